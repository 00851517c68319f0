import FencePlanner
import Geodesy
import SyncService

/// A catalog change set against many stored device states (`rotate bench --catalog-update`):
/// finding the affected devices through `DeviceStateIndex` and replanning only them, against
/// replanning every device. The index's answer is checked against checking every device over a
/// sample of the states.
public enum CatalogUpdateBenchmark {
    public struct Configuration: Sendable {
        public var places = 100_000
        public var devices = 1_000_000
        public var changes = 1_000
        public var seed: UInt64 = 1
        /// Devices whose affected status is also checked by brute force.
        public var checkedDevices = 10_000
        public init() {}
    }

    public struct Report: Sendable {
        public var configuration: Configuration
        public var affected: Int
        public var applyMilliseconds: Double
        public var indexMilliseconds: Double
        /// The same index built from the states packed against the catalog (as a `DeviceRegistry`
        /// holds them): no place looked up by id.
        public var packedIndexMilliseconds: Double
        public var queryMilliseconds: Double
        public var replanAffectedMilliseconds: Double
        public var replanEveryoneMilliseconds: Double
        /// Brute-force check over the sample: mismatching devices (must be 0).
        public var mismatches: Int
        /// Replanning everyone over (query + replanning the affected).
        public var speedup: Double { replanEveryoneMilliseconds / (queryMilliseconds + replanAffectedMilliseconds) }
    }

    /// Plans `configuration.devices` devices near random places of a clustered catalog, makes a
    /// change set near places, then times applying it, indexing the states (as they are and
    /// packed), finding the affected devices, replanning them, and replanning every device; the
    /// index's answer is checked by brute force over the first `checkedDevices` states.
    ///
    /// - Parameters:
    ///   - configuration: the sizes and the seed (the same seed gives the same states and changes).
    ///   - progress: called with a line before each phase.
    /// - Returns: the timings, the affected devices and the check's mismatches.
    /// - Throws: what building the catalog, planning or applying the changes throws.
    public static func run(_ configuration: Configuration, progress: (String) -> Void = { _ in }) throws -> Report {
        var rng = SplitMix64(seed: configuration.seed)
        let coordinates = SyntheticCoordinates.clustered(count: configuration.places, using: &rng)
        let catalog = try PlaceCatalog(places: coordinates.enumerated().map { Place(id: "p\($0)", coordinate: $1, radiusMeters: 100) })
        let rotation = RotationConfiguration(marginMeters: 30)
        progress("planning \(configuration.devices) devices near random places")
        let (states, packed) = try plannedStates(
            devices: configuration.devices, near: coordinates, catalog: catalog, rotation: rotation, using: &rng)
        let changes = changeSet(count: configuration.changes, in: catalog, using: &rng)
        progress("applying \(changes.count) changes, indexing the states, finding and replanning the affected devices")
        var next = catalog
        let apply = try Stopwatch.nanoseconds { next = try catalog.applying(changes) } / 1e6
        // Devices are numbered by their position in `states`.
        var index: DeviceStateIndex<Int>?
        let build =
            Stopwatch.nanoseconds {
                index = DeviceStateIndex(
                    states: states.enumerated().lazy.map { ($0.offset, $0.element) }, catalog: catalog, configuration: rotation)
            } / 1e6
        var packedIndex: DeviceStateIndex<Int>?
        let packedBuild =
            Stopwatch.nanoseconds {
                packedIndex = DeviceStateIndex(
                    packedStates: packed.enumerated().lazy.map { ($0.offset, $0.element) }, catalog: catalog, configuration: rotation)
            } / 1e6
        var affected: [Int] = []
        let query = Stopwatch.nanoseconds { affected = index!.affectedDevices(by: changes, next: next) } / 1e6
        let packedAffected = packedIndex!.affectedDevices(by: changes, next: next)
        packedIndex = nil
        var replanned = 0
        let replanAffected =
            try Stopwatch.nanoseconds {
                replanned = try index!.replan(affected, in: next).count
            } / 1e6
        precondition(replanned == affected.count)
        progress("replanning all \(states.count) devices (the baseline)")
        let everyone = try replanEveryoneMilliseconds(states, in: next, rotation: rotation)
        progress("checking a sample of \(Swift.min(configuration.checkedDevices, states.count)) devices by brute force")
        let sample = Array(states.prefix(configuration.checkedDevices))
        let mismatches =
            sampleMismatches(sample, changes: changes, catalog: catalog, next: next, rotation: rotation, affected: affected)
            + (packedAffected == affected ? 0 : 1)
        return Report(
            configuration: configuration, affected: affected.count, applyMilliseconds: apply, indexMilliseconds: build,
            packedIndexMilliseconds: packedBuild,
            queryMilliseconds: query, replanAffectedMilliseconds: replanAffected, replanEveryoneMilliseconds: everyone,
            mismatches: mismatches)
    }

    /// The states of `devices` devices, each after one reselection at a 500 m Gaussian around a
    /// random one of `coordinates`, as they are and packed against `catalog`.
    private static func plannedStates(
        devices: Int, near coordinates: [Coordinate], catalog: PlaceCatalog, rotation: RotationConfiguration,
        using rng: inout SplitMix64
    ) throws -> (states: [RotatorState], packed: [PackedRotatorState]) {
        var states: [RotatorState] = []
        var packed: [PackedRotatorState] = []
        states.reserveCapacity(devices)
        packed.reserveCapacity(devices)
        for _ in 0..<devices {
            var rotator = try FenceRotator(catalog: catalog, configuration: rotation)
            let base = coordinates[rng.nextInt(below: coordinates.count)]
            _ = rotator.reselect(at: Fix(SyntheticCoordinates.gaussian(around: base, sigmaMeters: 500, using: &rng)))
            states.append(rotator.state)
            packed.append(rotator.packedState)
        }
        return (states, packed)
    }

    /// `count` changes near random places of `catalog`: of every 10 draws, 3 add a place within
    /// a 300 m Gaussian of a random place; the others remove, move, resize or make entry-only a
    /// place not changed yet (a draw on a changed place is dropped).
    private static func changeSet(count: Int, in catalog: PlaceCatalog, using rng: inout SplitMix64) -> [CatalogChange] {
        var changes: [CatalogChange] = []
        var touched = Set<String>()
        while changes.count < count {
            let i = rng.nextInt(below: catalog.count)
            let place = catalog.places[i]
            let near = SyntheticCoordinates.gaussian(around: place.coordinate, sigmaMeters: 300, using: &rng)
            switch rng.nextInt(below: 10) {
            case 0, 1, 2: changes.append(.add(Place(id: "added-\(changes.count)", coordinate: near, radiusMeters: 100)))
            default:
                guard touched.insert(place.id).inserted else { continue }
                switch rng.nextInt(below: 4) {
                case 0: changes.append(.remove(id: place.id))
                case 1: changes.append(.move(id: place.id, to: near))
                case 2: changes.append(.setRadius(id: place.id, meters: rng.nextDouble(in: 50..<300)))
                default: changes.append(.setTransitions(id: place.id, .entry))
                }
            }
        }
        return changes
    }

    /// The baseline: every device resumed against `next` and reselected at its refresh center,
    /// in milliseconds.
    private static func replanEveryoneMilliseconds(
        _ states: [RotatorState], in next: PlaceCatalog, rotation: RotationConfiguration
    ) throws -> Double {
        var checksum = 0
        return try Stopwatch.nanoseconds {
            for state in states {
                var rotator = try FenceRotator(catalog: next, configuration: rotation, state: state)
                if let refresh = state.refresh { checksum &+= rotator.reselect(at: Fix(refresh.center)).diff.start.count }
            }
        } / 1e6
    }

    /// How many answers differ from checking every device of `sample` (the run's first devices,
    /// numbered from 0): those of an index over the sample, and those of the run's `affected`
    /// within the sample.
    private static func sampleMismatches(
        _ sample: [RotatorState], changes: [CatalogChange], catalog: PlaceCatalog, next: PlaceCatalog,
        rotation: RotationConfiguration, affected: [Int]
    ) -> Int {
        let sampleIndex = DeviceStateIndex(
            states: sample.enumerated().lazy.map { ($0.offset, $0.element) }, catalog: catalog, configuration: rotation)
        let expected = sampleIndex.affectedDevicesByBruteForce(by: changes, next: next)
        let found = sampleIndex.affectedDevices(by: changes, next: next)
        let reference = Set(expected)
        return reference.symmetricDifference(found).count
            + reference.symmetricDifference(affected.prefix { $0 < sample.count }).count
    }
}
