/// Repeated timings of one operation, in nanoseconds per operation.
public struct Measurement: Sendable, Equatable {
    /// One value per repetition, in the order measured.
    public let samples: [Double]

    public init(samples: [Double]) {
        precondition(!samples.isEmpty, "a measurement needs at least one sample")
        self.samples = samples
    }

    /// The median (mean of the middle two for an even count).
    public var median: Double {
        let sorted = samples.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }

    public var min: Double { samples.min() ?? .nan }
    public var max: Double { samples.max() ?? .nan }
}

/// The one timer of `rotate bench` and `RotateBenchmarks`.
public enum Stopwatch {
    /// Runs `body` once and returns its wall-clock duration in nanoseconds (monotonic clock).
    @inlinable
    public static func nanoseconds(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try body()
        let elapsed = clock.now - start
        let (seconds, attoseconds) = elapsed.components
        return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
    }

    /// Times `repetitions` runs of `body` (after one untimed warm-up run) and returns nanoseconds
    /// per operation, where one run performs `operations` operations.
    public static func measure(repetitions: Int, operations: Int, warmUp: Bool = true, _ body: () -> Void) -> Measurement {
        precondition(repetitions >= 1 && operations >= 1, "repetitions and operations must be >= 1")
        if warmUp { body() }
        var samples: [Double] = []
        for _ in 0..<repetitions {
            samples.append(nanoseconds(body) / Double(operations))
        }
        return Measurement(samples: samples)
    }
}
