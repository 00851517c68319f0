import FencePlanner
import Geodesy

/// A whole reselection (selection, refresh radius, diff against the previous selection) at every
/// fix of a walk whose fixes are `stepMeters` apart, cold (a fresh index query) against warm (the
/// previous neighborhood re-ranked, or the query seeded with the previous selection). Both
/// produce the same selections (checked).
///
/// Two paths are timed: the decision by catalog position (`RotationPlanner.decide` and
/// `PositionDiff`, what a service holding many devices calls; no allocation per reselection) and
/// the full one (`RotationPlanner.select` and `RegistrationDiff`, which copy the fences' definitions
/// into a `Selection`).
public enum WalkReselectionBenchmark {
    public struct Report: Sendable {
        public var places: Int
        public var reselections: Int
        /// Decision by position and position diff.
        public var cold: Measurement
        public var warm: Measurement
        /// `Selection` and `RegistrationDiff`.
        public var coldSelection: Measurement
        public var warmSelection: Measurement
        /// Cold median over warm median (decision by position).
        public var speedup: Double { cold.median / warm.median }
        /// The same for the full selection.
        public var selectionSpeedup: Double { coldSelection.median / warmSelection.median }
        /// Fixes where warm and cold, or the two paths, disagreed (must be 0).
        public var mismatches: Int
    }

    public static func run(
        places count: Int, fixes: Int = 20_000, stepMeters: Double = 15, repetitions: Int = 5, seed: UInt64 = 1,
        mixedRadii: Bool = false
    ) throws -> Report {
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
        let refreshIDs = walk.indices.map { "refresh-\($0)" }

        /// Decides at every fix; returns a checksum of the diffs, and every decision when asked.
        func decisions(warm: Bool, keep: Bool) -> (checksum: Int, kept: [PlanDecision]) {
            var previous = PlanDecision(), next = PlanDecision(), diff = PositionDiff()
            var checksum = 0
            var kept: [PlanDecision] = []
            for fix in walk {
                planner.decide(at: fix, incumbentPositions: previous.positions, warmStart: warm, into: &next)
                diff.update(from: previous.positions, to: next.positions)
                checksum &+= diff.start.count &+ diff.stop.count
                if keep { kept.append(next) }
                swap(&previous, &next)
            }
            return (checksum, kept)
        }
        /// Selects at every fix; returns a checksum of the diffs, and every selection when asked.
        func selections(warm: Bool, keep: Bool) -> (checksum: Int, kept: [Selection]) {
            var previous: [Fence] = []
            var positions: [Int] = []
            var refresh: RefreshRegion?
            var checksum = 0
            var kept: [Selection] = []
            for (i, fix) in walk.enumerated() {
                let selection = planner.select(
                    at: fix, incumbents: previous, refreshID: refreshIDs[i], warmStart: warm,
                    incumbentPositions: positions)
                let diff = RegistrationDiff(from: previous, previousPositions: positions, previousRefresh: refresh, to: selection)
                checksum &+= diff.start.count &+ diff.stop.count
                previous = selection.fences
                positions = selection.monitored.map(\.position)
                refresh = selection.refresh
                if keep { kept.append(selection) }
            }
            return (checksum, kept)
        }
        let coldDecisions = decisions(warm: false, keep: true).kept, warmDecisions = decisions(warm: true, keep: true).kept
        let coldSelections = selections(warm: false, keep: true).kept, warmSelections = selections(warm: true, keep: true).kept
        var mismatches = 0
        for i in walk.indices {
            let selection = warmSelections[i], decision = warmDecisions[i]
            let same =
                coldDecisions[i] == decision && coldSelections[i] == selection
                && selection.monitored.map(\.position) == decision.positions
                && selection.monitored.map(\.edgeDistanceMeters) == decision.edgesMeters
                && selection.refresh?.radiusMeters == decision.refreshRadiusMeters && selection.guarantee == decision.guarantee
            if !same { mismatches += 1 }
        }
        let cold = Stopwatch.measure(repetitions: repetitions, operations: walk.count) { _ = decisions(warm: false, keep: false) }
        let warm = Stopwatch.measure(repetitions: repetitions, operations: walk.count) { _ = decisions(warm: true, keep: false) }
        let coldSelection = Stopwatch.measure(repetitions: repetitions, operations: walk.count) { _ = selections(warm: false, keep: false) }
        let warmSelection = Stopwatch.measure(repetitions: repetitions, operations: walk.count) { _ = selections(warm: true, keep: false) }
        return Report(
            places: count, reselections: walk.count, cold: cold, warm: warm, coldSelection: coldSelection,
            warmSelection: warmSelection, mismatches: mismatches)
    }
}
