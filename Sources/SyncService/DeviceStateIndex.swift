import FencePlanner
import Geodesy
import SpatialIndex

/// Stored device states indexed for catalog updates: which devices must change their
/// registrations when a change set turns one catalog version into the next, found through a
/// spatial index over the devices' refresh circles instead of by replanning every device.
///
/// A device must change when a place it monitors is removed or edited, or when a place is added,
/// moved or edited so that its new fence edge is nearer the device's refresh center than the
/// refresh radius plus the margin (the planner's promise would no longer hold). A device that
/// monitors the whole catalog (no refresh region) must change at any change.
///
/// The index is an immutable `Sendable` value built once from the states (a k-d tree over the
/// refresh centers, each with its radius plus the margin as its "fence radius", and, per catalog
/// place, the devices that monitor it); query it for any number of change sets.
public struct DeviceStateIndex: Sendable {
    /// The catalog the states were planned against.
    public let catalog: PlaceCatalog
    public let marginMeters: Double
    /// Number of device states indexed (devices are numbered by their position in the input).
    public let count: Int
    /// The refresh circles, and for each the device it belongs to.
    private let circles: KDTree
    private let circleDevices: [Int32]
    private let circleCenters: [UnitVector]
    private let circleReach: [Double]
    /// Devices monitoring catalog position `p`: `monitors[monitorStart[p]..<monitorStart[p + 1]]`.
    private let monitorStart: [Int32]
    private let monitors: [Int32]
    /// Devices without a refresh region (they monitor the whole catalog, or have never selected).
    private let uncircled: [Int32]

    /// - Parameters:
    ///   - states: the devices' stored states, planned against `catalog`; a device's number is its
    ///     position here. Monitored places not in `catalog` (by id and definition) are ignored:
    ///     such a state is stale already and is re-validated when resumed.
    ///   - marginMeters: the configuration's margin.
    public init(states: [RotatorState], catalog: PlaceCatalog, marginMeters: Double) {
        precondition(states.count < Int(Int32.max), "too many devices")
        self.catalog = catalog
        self.marginMeters = marginMeters
        count = states.count
        var centers: [UnitVector] = [], reach: [Double] = [], devices: [Int32] = [], uncircled: [Int32] = []
        var counts = [Int32](repeating: 0, count: catalog.count + 1)
        var positions: [Int32] = []
        var owners: [Int32] = []
        for (device, state) in states.enumerated() {
            if let refresh = state.refresh {
                centers.append(UnitVector(refresh.center))
                reach.append(refresh.radiusMeters + marginMeters)
                devices.append(Int32(device))
            } else {
                uncircled.append(Int32(device))
            }
            for fence in state.monitored {
                guard let position = catalog.position(of: fence.id), catalog.fences[position] == fence else { continue }
                positions.append(Int32(position))
                owners.append(Int32(device))
                counts[position + 1] += 1
            }
        }
        for p in 0..<catalog.count { counts[p + 1] += counts[p] }
        var next = counts
        var monitors = [Int32](repeating: 0, count: positions.count)
        for (position, owner) in zip(positions, owners) {
            monitors[Int(next[Int(position)])] = owner
            next[Int(position)] += 1
        }
        circles = KDTree(vectors: centers, radiiMeters: reach)
        circleDevices = devices
        circleCenters = centers
        circleReach = reach
        monitorStart = counts
        self.monitors = monitors
        self.uncircled = uncircled
    }

    /// The devices (numbers, ascending) that must change their registrations when `changes`
    /// turn `catalog` into `next` (see the type's description).
    public func affectedDevices(by changes: [CatalogChange], next: PlaceCatalog) -> [Int] {
        var affected = Set<Int32>()
        if !changes.isEmpty { affected.formUnion(uncircled) }
        var buffer = NeighborBuffer()
        var seen = Set<String>()
        for change in changes where seen.insert(change.id).inserted {
            // A change set may touch a place more than once: the two versions tell what became of it.
            let old = catalog.position(of: change.id), new = next.position(of: change.id)
            guard old.map({ catalog.fences[$0] }) != new.map({ next.fences[$0] }) else { continue }
            // Monitored, and now removed or edited.
            if let old {
                for i in Int(monitorStart[old])..<Int(monitorStart[old + 1]) { affected.insert(monitors[i]) }
            }
            // Its new definition within reach of a refresh circle.
            guard let position = new else { continue }
            let vector = next.vectors[position], radius = next.radiiMeters[position]
            // A millimeter of slack for rounding; the exact test below decides.
            circles.within(radius + 1e-3, of: vector, measuredTo: .edge, into: &buffer)
            for neighbor in buffer.neighbors {
                let edge = RankingKey.edgeMeters(squaredChord: circleCenters[neighbor.index].squaredChord(to: vector), radiusMeters: radius)
                if edge < circleReach[neighbor.index] { affected.insert(circleDevices[neighbor.index]) }
            }
        }
        return affected.map(Int.init).sorted()
    }

    /// The same answer by checking every device against every change (the reference for tests
    /// and the baseline of `rotate bench --catalog-update`).
    public static func affectedDevicesByBruteForce(
        states: [RotatorState], catalog: PlaceCatalog, changes: [CatalogChange], next: PlaceCatalog,
        marginMeters: Double
    ) -> [Int] {
        guard !changes.isEmpty else { return [] }
        let ids = Set(changes.map(\.id))
        var result: [Int] = []
        for (device, state) in states.enumerated() {
            guard let refresh = state.refresh else {
                result.append(device)
                continue
            }
            let center = UnitVector(refresh.center)
            let reach = refresh.radiusMeters + marginMeters
            let monitorsChanged = state.monitored.contains { fence in
                ids.contains(fence.id) && catalog.position(of: fence.id).map { catalog.fences[$0] == fence } == true
                    && next.position(of: fence.id).map { next.fences[$0] } != fence
            }
            let reached = ids.contains { id in
                guard let position = next.position(of: id) else { return false }
                if let old = catalog.position(of: id), catalog.fences[old] == next.fences[position] { return false }
                return RankingKey.edgeMeters(
                    squaredChord: center.squaredChord(to: next.vectors[position]),
                    radiusMeters: next.radiiMeters[position]) < reach
            }
            if monitorsChanged || reached { result.append(device) }
        }
        return result
    }
}

extension DeviceStateIndex {
    /// An affected device's new plan.
    public struct Replanned: Sendable {
        public var device: Int
        /// The new selection and diff, made at the device's refresh center in the new catalog;
        /// nil for a device without a refresh region (its position is unknown: it reselects at its
        /// next fix, see `FenceRotator.mustReselect`).
        public var update: RotationUpdate?
        /// The state to store for it.
        public var state: RotatorState
    }

    /// Replans `devices` (from `affectedDevices`) in `next`: each resumes from its state and
    /// reselects at its refresh center; the diff stops what changed or went and starts what is
    /// new. Devices are independent: callers may split the list among tasks.
    /// - Throws: `RotatorStateError` when a state does not belong to the configuration.
    public static func replan(
        _ devices: [Int], states: [RotatorState], next: PlaceCatalog,
        configuration: RotationConfiguration
    ) throws(RotatorStateError) -> [Replanned] {
        var result: [Replanned] = []
        result.reserveCapacity(devices.count)
        for device in devices {
            var rotator = try FenceRotator(catalog: next, configuration: configuration, state: states[device])
            guard let refresh = states[device].refresh else {
                result.append(Replanned(device: device, update: nil, state: rotator.state))
                continue
            }
            let update = rotator.reselect(at: Fix(refresh.center))
            result.append(Replanned(device: device, update: update, state: rotator.state))
        }
        return result
    }
}
