/// A `RotatorState` bound to one catalog version, in about a tenth of the memory: each monitored
/// place is its position in that catalog (a 32-bit integer) instead of a copy of its fence; only
/// registrations the catalog does not define so (a place removed or redefined since it was
/// registered) are kept whole. What a service holding a million devices keeps per device.
///
/// It is valid for the catalog it was packed against (`packedVersion`) and, after a change set,
/// for the next one once `repacked(from:to:positionMap:)`. Unpacking gives back the state exactly.
public struct PackedRotatorState: Hashable, Sendable {
    /// Each monitored place in `monitored` order: its position in the catalog (≥ 0), or
    /// −(i + 1) for `foreign[i]`.
    public private(set) var positions: [Int32]
    /// Registrations not in the catalog with their definition.
    public private(set) var foreign: [Fence]
    /// The registered refresh region, if any (`RotatorState.refresh`).
    public var refresh: RefreshRegion?
    /// The last selection's guarantee, nil before the first (`RotatorState.guarantee`).
    public var guarantee: Guarantee?
    /// Reselections so far (`RotatorState.reselections`).
    public var reselections: Int
    /// The catalog version the registrations were planned against (`RotatorState.catalogVersion`).
    public var catalogVersion: Int?
    /// The version of the catalog `positions` refer to.
    public private(set) var packedVersion: Int

    /// Packs a state, looking each monitored place up in `catalog` by id.
    public init(_ state: RotatorState, in catalog: PlaceCatalog) {
        self.init(state, positions: FenceRotator.positions(of: state.monitored, in: catalog), in: catalog)
    }

    /// Packs a state whose monitored places' positions in `catalog` are known (−1: not in it with
    /// that definition).
    init(_ state: RotatorState, positions known: [Int], in catalog: PlaceCatalog) {
        positions = []
        positions.reserveCapacity(known.count)
        foreign = []
        for (fence, position) in zip(state.monitored, known) {
            if position >= 0 {
                positions.append(Int32(position))
            } else {
                foreign.append(fence)
                positions.append(Int32(-foreign.count))
            }
        }
        refresh = state.refresh
        guarantee = state.guarantee
        reselections = state.reselections
        catalogVersion = state.catalogVersion
        packedVersion = catalog.version
    }

    /// The monitored places' positions in the catalog it was packed against (−1: not in it).
    public var monitoredPositions: [Int] { positions.map { $0 >= 0 ? Int($0) : -1 } }

    /// The state, with fences from `catalog`.
    /// - Precondition: `catalog` is the version it was packed against.
    public func unpacked(in catalog: PlaceCatalog) -> RotatorState {
        precondition(catalog.version == packedVersion, "packed against catalog version \(packedVersion), not \(catalog.version)")
        var state = RotatorState()
        state.monitored = positions.map { $0 >= 0 ? catalog.fences[Int($0)] : foreign[Int(-$0) - 1] }
        state.refresh = refresh
        state.guarantee = guarantee
        state.reselections = reselections
        state.catalogVersion = catalogVersion
        return state
    }

    /// For each position of `catalog`, the position of the same place with the same definition in
    /// `next` (−1 where it was removed or redefined): what `repacked` takes.
    public static func positionMap(from catalog: PlaceCatalog, to next: PlaceCatalog) -> [Int32] {
        var map = [Int32](repeating: -1, count: catalog.count)
        // Both are sorted by id: one merge, no lookup.
        var j = 0
        for i in 0..<catalog.count {
            let id = catalog.places[i].id
            while j < next.count && next.places[j].id < id { j += 1 }
            if j < next.count && next.places[j].id == id && next.fences[j] == catalog.fences[i] { map[i] = Int32(j) }
        }
        return map
    }

    /// The same state, bound to `next`: places kept with their definition move to their new
    /// positions, the others become foreign registrations (the state itself does not change:
    /// `unpacked(in: next)` equals `unpacked(in: catalog)`).
    /// - Precondition: packed against `catalog`, and `map` is `positionMap(from: catalog, to: next)`.
    public func repacked(from catalog: PlaceCatalog, to next: PlaceCatalog, positionMap map: [Int32]) -> PackedRotatorState {
        precondition(catalog.version == packedVersion && map.count == catalog.count, "not packed against this catalog")
        var result = self
        result.packedVersion = next.version
        for (i, position) in positions.enumerated() where position >= 0 {
            let moved = map[Int(position)]
            if moved >= 0 {
                result.positions[i] = moved
            } else {
                result.foreign.append(catalog.fences[Int(position)])
                result.positions[i] = Int32(-result.foreign.count)
            }
        }
        return result
    }
}

extension FenceRotator {
    /// A rotator resuming from a packed state, without looking any place up: as
    /// `init(catalog:configuration:state:)` with the unpacked state.
    ///
    /// - Precondition: packed against `catalog`.
    /// - Throws: `RotatorStateError` as `init(catalog:configuration:state:)` throws it: an invalid
    ///   configuration, or a state that cannot belong to this catalog and configuration.
    public init(catalog: PlaceCatalog, configuration: RotationConfiguration, packed: PackedRotatorState) throws(RotatorStateError) {
        try self.init(
            catalog: catalog, configuration: configuration, state: packed.unpacked(in: catalog), positions: packed.monitoredPositions)
    }

    /// Resumes another packed state with this rotator's catalog, configuration and scratch (its
    /// planner's buffers and warm neighbourhood, a cache that any position may use): as
    /// `init(catalog:configuration:packed:)`, without making a planner. What a service that
    /// handles many devices one input at a time keeps between inputs.
    ///
    /// - Precondition: packed against the rotator's catalog.
    /// - Throws: `RotatorStateError.foreign` when the state cannot belong to the rotator's catalog and
    ///   configuration; the rotator is then unchanged.
    public mutating func resume(packed: PackedRotatorState) throws(RotatorStateError) {
        try adopt(packed.unpacked(in: catalog), positions: packed.monitoredPositions)
    }

    /// The state, packed against the rotator's catalog.
    public var packedState: PackedRotatorState {
        PackedRotatorState(state, positions: monitoredPlacePositions, in: catalog)
    }
}
