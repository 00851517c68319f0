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
/// The index is an immutable `Sendable` value built once from the states, keyed by the caller's
/// device ids (a k-d tree over the refresh centers, each with its radius plus the margin as its
/// "fence radius", and the states packed against the catalog: each monitored place a catalog
/// position, scanned once per query); query it for any number of change sets, and replan the
/// devices it names (`replan(_:in:)`).
///
/// ```swift
/// let stored: [String: RotatorState] = loadRotatorStates()  // planned against `catalog`
/// let index = DeviceStateIndex(states: stored, catalog: catalog, configuration: configuration)
/// let changes: [CatalogChange] = [.move(id: "market", to: try Coordinate(latitude: 46.0520, longitude: 14.5090))]
/// let next = try catalog.applying(changes)
/// let affected = index.affectedDevices(by: changes, next: next).sorted()  // usually a few of many
/// for plan in try index.replan(affected, in: next) {
///     if let update = plan.update { push(update.diff, to: plan.device) } else { askForFix(plan.device) }
/// }
/// ```
public struct DeviceStateIndex<ID: Hashable & Sendable>: Sendable {
    /// The catalog the states were planned against.
    public let catalog: PlaceCatalog
    /// The configuration the states were planned with; `replan(_:in:)` plans with it.
    public let configuration: RotationConfiguration
    /// The configuration's margin, meters: each refresh circle is widened by it.
    public var marginMeters: Double { configuration.marginMeters }
    /// The device ids, in the order given; answers list devices in this order.
    public let ids: [ID]
    /// The indexed states, in `ids` order, packed against `catalog`.
    public let packedStates: [PackedRotatorState]
    /// Number of device states indexed.
    public var count: Int { ids.count }
    /// The refresh circles, and for each the device it belongs to.
    private let circles: KDTree
    private let circleDevices: [Int32]
    private let circleCenters: [UnitVector]
    private let circleReach: [Double]
    /// Devices without a refresh region (they monitor the whole catalog, or have never selected).
    private let uncircled: [Int32]

    /// Indexes stored rotator states, packing each against `catalog` (each monitored place looked up by id).
    ///
    /// - Parameters:
    ///   - states: the devices' ids and stored states, planned against `catalog`, each id once.
    ///     Monitored places not in `catalog` (by id and definition) are ignored: such a state is
    ///     stale already and is re-validated when resumed.
    ///   - catalog: the catalog version the states were planned against.
    ///   - configuration: the configuration the states were planned with (its margin widens each
    ///     refresh circle; `replan` plans with it).
    /// - Precondition: no id repeats.
    public init(states: some Sequence<(ID, RotatorState)>, catalog: PlaceCatalog, configuration: RotationConfiguration) {
        self.init(
            packedStates: states.lazy.map { ($0.0, PackedRotatorState($0.1, in: catalog)) }, catalog: catalog, configuration: configuration)
    }

    /// `init(states:catalog:configuration:)` from states packed against `catalog`, as a service
    /// that keeps its devices packed holds them: no place is looked up by id.
    ///
    /// - Precondition: no id repeats; every state is packed against `catalog`.
    public init(packedStates states: some Sequence<(ID, PackedRotatorState)>, catalog: PlaceCatalog, configuration: RotationConfiguration) {
        var ids: [ID] = [], list: [PackedRotatorState] = []
        ids.reserveCapacity(states.underestimatedCount)
        list.reserveCapacity(states.underestimatedCount)
        for (id, state) in states {
            precondition(state.packedVersion == catalog.version, "a state packed against another catalog version")
            ids.append(id)
            list.append(state)
        }
        precondition(list.count < Int(Int32.max), "too many devices")
        self.ids = ids
        self.packedStates = list
        self.catalog = catalog
        self.configuration = configuration
        let marginMeters = configuration.marginMeters
        var centers: [UnitVector] = [], reach: [Double] = [], devices: [Int32] = [], uncircled: [Int32] = []
        centers.reserveCapacity(list.count)
        reach.reserveCapacity(list.count)
        devices.reserveCapacity(list.count)
        for (device, state) in list.enumerated() {
            if let refresh = state.refresh {
                centers.append(UnitVector(refresh.center))
                reach.append(refresh.radiusMeters + marginMeters)
                devices.append(Int32(device))
            } else {
                uncircled.append(Int32(device))
            }
        }
        circles = KDTree(vectors: centers, radiiMeters: reach)
        circleDevices = devices
        circleCenters = centers
        circleReach = reach
        self.uncircled = uncircled
    }

    /// `init(states:catalog:configuration:)` from a dictionary; answers list devices in the
    /// dictionary's order, which Swift does not fix from one process to the next (sort them if
    /// that matters).
    public init(states: [ID: RotatorState], catalog: PlaceCatalog, configuration: RotationConfiguration) {
        self.init(states: states.lazy.map { ($0.key, $0.value) }, catalog: catalog, configuration: configuration)
    }

    /// The devices that must change their registrations when `changes` turn `catalog` into
    /// `next` (see the type's description), in `ids` order.
    public func affectedDevices(by changes: [CatalogChange], next: PlaceCatalog) -> [ID] {
        affectedNumbers(by: changes, next: next).map { ids[$0] }
    }

    /// The affected devices' positions in `ids`, ascending.
    func affectedNumbers(by changes: [CatalogChange], next: PlaceCatalog) -> [Int] {
        var affected = Set<Int32>()
        if !changes.isEmpty { affected.formUnion(uncircled) }
        var buffer = NeighborBuffer()
        var seen = Set<String>()
        // The catalog positions of places removed or edited: a device monitoring one is affected.
        var gone = [Bool](repeating: false, count: catalog.count)
        var anyGone = false
        for change in changes where seen.insert(change.id).inserted {
            // A change set may touch a place more than once: the two versions tell what became of it.
            let old = catalog.position(of: change.id), new = next.position(of: change.id)
            guard !Self.sameDefinition(old, in: catalog, new, in: next) else { continue }
            if let old {
                gone[old] = true
                anyGone = true
            }
            // Its new definition within reach of a refresh circle.
            guard let position = new else { continue }
            let vector = next.vectors[position], radius = next.radiiMeters[position]
            // A millimeter of slack for rounding; the exact test below decides.
            circles.within(radius + 1e-3, of: vector, measuredTo: .edge, into: &buffer)
            let isFootprint = next.places[position].footprint != nil
            for neighbor in buffer.neighbors {
                var edge = RankingKey.edgeMeters(squaredChord: circleCenters[neighbor.index].squaredChord(to: vector), radiusMeters: radius)
                // A footprint's enclosing circle is never farther than its polygon: measured exactly when it is near.
                if isFootprint && edge < circleReach[neighbor.index] {
                    edge = next.edgeDistanceMeters(of: position, to: circleCenters[neighbor.index])
                }
                if edge < circleReach[neighbor.index] { affected.insert(circleDevices[neighbor.index]) }
            }
        }
        // One pass over every monitored position (a few nanoseconds each): cheaper than keeping
        // a list of the devices monitoring each place, which costs more to build than a query.
        if anyGone {
            for (device, state) in packedStates.enumerated() where state.positions.contains(where: { $0 >= 0 && gone[Int($0)] }) {
                affected.insert(Int32(device))
            }
        }
        return affected.map(Int.init).sorted()
    }

    /// The same answer by checking every device against every change (the reference for tests
    /// and the baseline of `rotate bench --catalog-update`), in `ids` order.
    package func affectedDevicesByBruteForce(by changes: [CatalogChange], next: PlaceCatalog) -> [ID] {
        guard !changes.isEmpty else { return [] }
        let ids = Set(changes.map(\.id))
        var result: [ID] = []
        for (device, packed) in zip(self.ids, packedStates) {
            let state = packed.unpacked(in: catalog)
            guard let refresh = state.refresh else {
                result.append(device)
                continue
            }
            let center = UnitVector(refresh.center)
            let reach = refresh.radiusMeters + marginMeters
            let monitorsChanged = state.monitored.contains { fence in
                guard ids.contains(fence.id), let old = catalog.position(of: fence.id), catalog.fences[old] == fence else { return false }
                return !Self.sameDefinition(old, in: catalog, next.position(of: fence.id), in: next)
            }
            let reached = ids.contains { id in
                guard let position = next.position(of: id) else { return false }
                if Self.sameDefinition(catalog.position(of: id), in: catalog, position, in: next) { return false }
                let edge =
                    next.places[position].footprint?.signedDistanceMeters(to: center)
                    ?? RankingKey.edgeMeters(
                        squaredChord: center.squaredChord(to: next.vectors[position]), radiusMeters: next.radiiMeters[position])
                return edge < reach
            }
            if monitorsChanged || reached { result.append(device) }
        }
        return result
    }
}

extension DeviceStateIndex {
    /// Whether a place is the same in both catalogs: present in both with the same registration
    /// and the same footprint (a new polygon within the same enclosing circle is a change).
    static func sameDefinition(_ old: Int?, in catalog: PlaceCatalog, _ new: Int?, in next: PlaceCatalog) -> Bool {
        guard let old, let new else { return old == nil && new == nil }
        return catalog.fences[old] == next.fences[new] && catalog.places[old].footprint == next.places[new].footprint
    }
}

extension DeviceStateIndex {
    /// An affected device's new plan.
    public struct Replanned: Sendable {
        /// The device's id, as given to the index.
        public var device: ID
        /// The new selection and diff, valid wherever the device can be: anywhere inside its old
        /// refresh circle (it reports leaving it). Made at the old circle's center in the new
        /// catalog, it is kept only when its refresh region contains the old one (or it monitors
        /// the whole catalog). Nil when no such plan exists (places added within the old circle's
        /// reach shrink the safe radius below the old one, or the device has no refresh region and
        /// so no known position): the host asks the device for a fix, and the answer to that fix
        /// is the real reselection (the stored state no longer holds, so it reselects).
        public var update: RotationUpdate?
        /// The state to store: the replanned one, or the old one when `update` is nil.
        public var state: RotatorState

        /// Whether the host must ask the device for a fix instead of pushing an update.
        public var needsFix: Bool { update == nil }
    }

    /// Replans `devices` (from `affectedDevices`, or any indexed ids) in `next`, with the
    /// configuration the index was built with: each resumes from its state and reselects at its
    /// refresh center; the diff stops what changed or went and starts what is new (see
    /// `Replanned` for when the device is asked for a fix instead). Devices are independent:
    /// callers may split the list among tasks.
    ///
    /// - Throws: `RotatorStateError` for the first device (in `devices` order) whose state does not
    ///   resume over `next` with the index's configuration (an invalid configuration, or a foreign
    ///   state); no result is returned then.
    /// - Precondition: every id is indexed (finding them is one pass over the indexed ids).
    public func replan(_ devices: [ID], in next: PlaceCatalog) throws(RotatorStateError) -> [Replanned] {
        var result: [Replanned] = []
        result.reserveCapacity(devices.count)
        var numbers: [ID: Int] = [:]
        numbers.reserveCapacity(devices.count)
        for device in devices { numbers[device] = -1 }
        for (number, id) in ids.enumerated() where numbers[id] != nil { numbers[id] = number }
        for device in devices {
            guard let number = numbers[device], number >= 0 else { preconditionFailure("device \(device) is not indexed") }
            let old = packedStates[number].unpacked(in: catalog)
            var rotator = try FenceRotator(catalog: next, configuration: configuration, state: old)
            let update = rotator.replanAtRefreshCenter()
            result.append(Replanned(device: device, update: update, state: update == nil ? old : rotator.state))
        }
        return result
    }
}
