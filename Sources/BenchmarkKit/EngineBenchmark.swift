import EventEngine
import FencePlanner
import Geodesy

/// The event engine's cost per fix: `FenceMonitor.handle(.fix(…))` (the planner plus the in-app
/// decisions over the places within reach) against `FenceRotator.update(with:)` (the planner
/// alone) on the same walk, in the same run. The difference is what deciding in-app costs.
///
/// The walk wanders through clustered places with 100 m fences, a fix a second 1.4 m apart
/// (walking), reported with 5 m Gaussian noise per axis and 5 m accuracy; the engine gets every
/// fix as a continuous update. Both make the same registrations (checked).
public enum EngineBenchmark {
    public struct Report: Sendable {
        public var places: Int
        public var fixes: Int
        public var planner: Measurement
        public var engine: Measurement
        /// Entries and exits the engine reported over the walk.
        public var entries: Int
        public var exits: Int
        /// Whether the engine's rotator ended with the planner's state.
        public var sameRegistrations: Bool
        /// Engine minus planner, medians, nanoseconds per fix.
        public var inAppNanosecondsPerFix: Double { engine.median - planner.median }
    }

    public static func run(places count: Int, fixes: Int = 20_000, repetitions: Int = 5, seed: UInt64 = 1) throws -> Report {
        var rng = SplitMix64(seed: seed)
        let coordinates = SyntheticCoordinates.clustered(count: count, using: &rng)
        let places = coordinates.enumerated().map { i, c in Place(id: "p\(i)", coordinate: c, radiusMeters: 100) }
        let catalog = try PlaceCatalog(places: places)
        let configuration = RotationConfiguration()
        var position = coordinates[rng.nextInt(below: coordinates.count)]
        var bearing = rng.nextDouble(in: 0..<360)
        let walk: [Fix] = (0..<fixes).map { i in
            bearing += rng.nextDouble(in: -10..<10)
            position = position.destination(bearingDegrees: bearing, distanceMeters: 1.4)
            let reported = SyntheticCoordinates.gaussian(around: position, sigmaMeters: 5, using: &rng)
            return Fix(reported, accuracyMeters: 5, timestampSeconds: Double(i))
        }

        var plannerState = RotatorState()
        let planner = Stopwatch.measure(repetitions: repetitions, operations: walk.count) {
            guard var rotator = try? FenceRotator(catalog: catalog, configuration: configuration) else { return }
            for fix in walk { _ = rotator.update(with: fix) }
            plannerState = rotator.state
        }
        var engineState = RotatorState()
        var entries = 0, exits = 0
        let engine = Stopwatch.measure(repetitions: repetitions, operations: walk.count) {
            guard var monitor = try? FenceMonitor(catalog: catalog, configuration: configuration) else { return }
            entries = 0
            exits = 0
            for fix in walk {
                for event in monitor.handle(.fix(fix, source: .continuous)).placeEvents {
                    if event.kind == .entry { entries += 1 } else if event.kind == .exit { exits += 1 }
                }
            }
            engineState = monitor.rotator.state
        }
        return Report(
            places: count, fixes: walk.count, planner: planner, engine: engine, entries: entries, exits: exits,
            sameRegistrations: plannerState == engineState)
    }
}
