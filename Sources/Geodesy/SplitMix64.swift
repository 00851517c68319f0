#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one seeded random number generator of rotate (SplitMix64, Steele, Lea & Flood,
/// "Fast splittable pseudorandom number generators", OOPSLA 2014).
///
/// Every random choice in the project (synthetic places, query positions, walks, noise) draws
/// from a `SplitMix64` created from a user-visible seed, so the same seed gives the same output
/// on every run. It is a value type: copying it forks the stream.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    /// The current state; `SplitMix64(seed: state)` continues the same stream.
    public var state: UInt64

    /// Creates a generator whose stream is fully determined by `seed`; every seed, including 0, is valid.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 uniformly distributed random bits; advances `state` by the golden-ratio increment.
    @inlinable
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform double in `[0, 1)` with 53 random bits.
    @inlinable
    public mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// A uniform double in `range` (half-open).
    @inlinable
    public mutating func nextDouble(in range: Range<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * nextUnit()
    }

    /// A uniform integer in `0..<upperBound` (Lemire's nearly divisionless method via the
    /// standard library, which only calls `next()`).
    @inlinable
    public mutating func nextInt(below upperBound: Int) -> Int {
        Int.random(in: 0..<upperBound, using: &self)
    }

    /// A standard normal sample (Box–Muller; one sample per call, deterministic).
    @inlinable
    public mutating func nextGaussian() -> Double {
        // 1 - u is in (0, 1], so the logarithm is finite.
        let u1 = 1 - nextUnit()
        let u2 = nextUnit()
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}
