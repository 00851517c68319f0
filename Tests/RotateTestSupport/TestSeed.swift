#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Seeds for property tests: fixed by default, overridable with `ROTATE_TEST_SEED` so that a
/// failure can be replayed (every failure message prints its seed).
public enum TestSeed {
    /// `ROTATE_TEST_SEED` if set to a number, else `fallback`.
    public static func value(_ fallback: UInt64 = 20_261_129) -> UInt64 {
        guard let raw = getenv("ROTATE_TEST_SEED"), let seed = UInt64(String(cString: raw)) else { return fallback }
        return seed
    }

    /// A seed derived from the base seed and a test-specific salt (so tests do not share streams).
    public static func value(salt: UInt64) -> UInt64 {
        var rng = SplitMixForSeeds(state: value() ^ (salt &* 0x9E37_79B9_7F4A_7C15))
        return rng.next()
    }

    /// How to replay: printed in failure messages.
    public static func replay(_ seed: UInt64) -> String {
        "seed \(seed) (replay with ROTATE_TEST_SEED=\(value()))"
    }
}

/// A SplitMix64 of the tests' own, kept apart from the library generator under test: it derives
/// seeds and draws inputs for references that must not share code with what they check.
public struct SplitMixForSeeds {
    public var state: UInt64
    public init(state: UInt64) { self.state = state }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }
    public mutating func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * unit() }
}
