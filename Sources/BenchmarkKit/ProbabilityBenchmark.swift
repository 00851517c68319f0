import FenceRules
import Geodesy

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Time per `InsideProbability.value` evaluation over seeded inputs near a fence edge (d within
/// ±6σ of R: the hard case, where the answer is neither 0 nor 1) and anywhere (d 0…10 km);
/// R 1 m…5 km, σ 0.5…200 m, log-uniform.
public enum ProbabilityBenchmark {
    public struct Report: Sendable {
        public var evaluations: Int
        /// Inputs near the edge.
        public var nanosecondsPerEvaluation: Measurement
        /// Inputs anywhere in 0…10 km.
        public var nanosecondsPerEvaluationAnywhere: Measurement
        public var checksum: Double
    }

    public static func run(evaluations: Int = 200_000, repetitions: Int = 5, seed: UInt64 = 1) -> Report {
        var rng = SplitMix64(seed: seed)
        func inputs(nearEdge: Bool) -> [(Double, Double, Double)] {
            (0..<max(1, evaluations)).map { _ in
                let sigma = 0.5 * pow(400, rng.nextUnit())
                let radius = pow(5_000, rng.nextUnit())
                let distance = nearEdge ? max(0, radius + sigma * rng.nextDouble(in: -6..<6)) : rng.nextDouble(in: 0..<10_000)
                return (distance, radius, sigma)
            }
        }
        var checksum = 0.0
        func time(_ inputs: [(Double, Double, Double)]) -> Measurement {
            Stopwatch.measure(repetitions: repetitions, operations: inputs.count) {
                var sum = 0.0
                for (d, r, s) in inputs { sum += InsideProbability.value(distanceMeters: d, radiusMeters: r, sigmaMeters: s) }
                checksum += sum
            }
        }
        let near = time(inputs(nearEdge: true))
        let anywhere = time(inputs(nearEdge: false))
        return Report(
            evaluations: evaluations, nanosecondsPerEvaluation: near, nanosecondsPerEvaluationAnywhere: anywhere, checksum: checksum)
    }
}
