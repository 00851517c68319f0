import FencePlanner
import Geodesy

/// A whole reselection (selection, refresh radius, diff against the previous selection) at every
/// fix of a walk whose fixes are `stepMeters` apart, cold (a fresh index query) against warm (the
/// query seeded with the previous selection). Both produce the same selections (checked).
public enum WalkReselectionBenchmark {
    public struct Report: Sendable {
        public var places: Int
        public var reselections: Int
        public var cold: Measurement
        public var warm: Measurement
        /// Cold median over warm median.
        public var speedup: Double { cold.median / warm.median }
        /// Fixes where the two disagreed (must be 0).
        public var mismatches: Int
    }

    public static func run(places count: Int, fixes: Int = 20_000, stepMeters: Double = 15, repetitions: Int = 5, seed: UInt64 = 1,
                           mixedRadii: Bool = false) throws -> Report {
        var rng = SplitMix64(seed: seed)
        let coordinates = SyntheticCoordinates.clustered(count: count, using: &rng)
        let places = coordinates.enumerated().map { i, c in
            Place(id: "p\(i)", coordinate: c, radiusMeters: mixedRadii ? rng.nextDouble(in: 20..<5_000) : 100)
        }
        let catalog = try PlaceCatalog(places: places)
        // A wandering walk from a random place: the bearing drifts, fixes `stepMeters` apart.
        var position = coordinates[rng.nextInt(below: coordinates.count)]
        var bearing = rng.nextDouble(in: 0..<360)
        let walk: [Fix] = (0..<fixes).map { _ in
            bearing += rng.nextDouble(in: -10..<10)
            position = position.destination(bearingDegrees: bearing, distanceMeters: stepMeters)
            return Fix(position)
        }
        var planner = try RotationPlanner(catalog: catalog, configuration: RotationConfiguration())
        func pass(warm: Bool) -> [Selection] {
            var previous: [Fence] = []
            var positions: [Int] = []
            var refresh: RefreshRegion?
            var selections: [Selection] = []
            selections.reserveCapacity(walk.count)
            for (i, fix) in walk.enumerated() {
                let selection = planner.select(at: fix, incumbents: previous, refreshID: "refresh-\(i)", warmStart: warm,
                                               incumbentPositions: positions)
                let diff = RegistrationDiff(from: previous, previousPositions: positions, previousRefresh: refresh, to: selection)
                previous = selection.fences
                positions = selection.monitored.map(\.position)
                refresh = selection.refresh
                if diff.start.count > 1_000 { selections.append(selection) }  // keeps the diff alive
                selections.append(selection)
            }
            return selections
        }
        let coldSelections = pass(warm: false), warmSelections = pass(warm: true)
        let mismatches = zip(coldSelections, warmSelections).filter { $0 != $1 }.count
        let cold = Stopwatch.measure(repetitions: repetitions, operations: walk.count) { _ = pass(warm: false) }
        let warm = Stopwatch.measure(repetitions: repetitions, operations: walk.count) { _ = pass(warm: true) }
        return Report(places: count, reselections: walk.count, cold: cold, warm: warm, mismatches: mismatches)
    }
}
