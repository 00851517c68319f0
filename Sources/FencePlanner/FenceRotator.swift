import Geodesy

/// One device's rotation: holds what is registered now and, for each new fix, says whether to
/// reselect and what to change.
///
/// A value type: a service keeps one per device (or stores its `state`, which is `Codable`, between
/// requests) and shares one `PlaceCatalog` among all of them. Deterministic: the same catalog,
/// configuration and fixes give the same updates.
public struct FenceRotator: Sendable {
    private var planner: RotationPlanner
    /// Catalog positions of `state.monitored` (−1 for a place gone or changed in this catalog;
    /// not stored: a restored rotator looks them up once).
    private var monitoredPositions: [Int]?
    /// What is registered now; store it to resume later with `init(catalog:configuration:state:)`.
    public private(set) var state: RotatorState
    /// Whether the next fix must reselect even inside the refresh region: a resumed state
    /// planned against another catalog version that no longer holds (see the resuming init).
    public private(set) var mustReselect = false
    /// The least radius of a refresh region that does not protect every place (a `degraded` or
    /// `saturated` selection), meters (0: the planner's safe radius, however small). An engine
    /// that finds stops rather than passages sets it (`VisitSettings.refreshFloorMeters`): a
    /// refresh region of a few meters where places cluster is left every few steps, each exit a
    /// wake-up and a fix, while a stop gives minutes to notice the places near it. An `exact`
    /// selection keeps its safe radius and its proof. Not stored in `state`: the engine sets it
    /// from its settings.
    public var refreshFloorMeters = 0.0
    /// The most places a selection that is not exact monitors (nil: every place slot): where
    /// the regions cannot protect every place anyway, each region more is wake-ups where places
    /// cluster, for an engine that finds stops by its own fixes there
    /// (`VisitSettings.placesWhereNotExact`). An exact selection uses every slot. Not stored in
    /// `state`: the engine sets it from its settings.
    public var placesWhereNotExact: Int? {
        didSet {
            guard placesWhereNotExact != oldValue else { return }
            cappedPlanner = placesWhereNotExact.flatMap { cap in
                guard cap < configuration.placeSlots else { return nil }
                var capped = configuration
                capped.limit = max(1, cap) + capped.headroom + 1
                return try? RotationPlanner(catalog: catalog, configuration: capped)
            }
        }
    }
    /// The planner with `placesWhereNotExact` slots.
    private var cappedPlanner: RotationPlanner?

    /// The catalog the rotator plans against.
    public var catalog: PlaceCatalog { planner.catalog }
    /// The validated configuration the rotator plans with.
    public var configuration: RotationConfiguration { planner.configuration }

    /// A rotator with nothing registered yet: its first fix always selects.
    ///
    /// - Throws: `ConfigurationError` when `configuration` breaks a rule of
    ///   `RotationConfiguration.validated()` (the first rule broken).
    public init(catalog: PlaceCatalog, configuration: RotationConfiguration) throws(ConfigurationError) {
        planner = try RotationPlanner(catalog: catalog, configuration: configuration)
        state = RotatorState()
    }

    /// A rotator resuming from a stored state. A state planned against another catalog version
    /// is re-validated: when it still holds (`stillHolds`) its `catalogVersion` becomes this
    /// catalog's (`state` then differs from the one passed in: store it), otherwise the next fix
    /// reselects (`mustReselect`).
    ///
    /// - Throws: `RotatorStateError` when the configuration is invalid or the state cannot belong
    ///   to this catalog and configuration (more places than slots, a foreign refresh identifier,
    ///   a refresh radius beyond the configuration's maximum; planned against this catalog's
    ///   version, yet monitoring a place the catalog does not define so, or without a refresh
    ///   region while places are left unmonitored).
    public init(catalog: PlaceCatalog, configuration: RotationConfiguration, state: RotatorState) throws(RotatorStateError) {
        try self.init(catalog: catalog, configuration: configuration, state: state, positions: nil)
    }

    /// The resuming init, with the monitored places' positions in `catalog` when the caller knows
    /// them (a packed state): then no place is looked up by id.
    init(catalog: PlaceCatalog, configuration: RotationConfiguration, state: RotatorState, positions known: [Int]?)
        throws(RotatorStateError)
    {
        let planner: RotationPlanner
        do {
            planner = try RotationPlanner(catalog: catalog, configuration: configuration)
        } catch {
            throw .invalidConfiguration(error)
        }
        try self.init(planner: planner, state: state, positions: known)
    }

    /// The resuming init over a planner already made (and its scratch).
    private init(planner: RotationPlanner, state: RotatorState, positions known: [Int]?) throws(RotatorStateError) {
        self.planner = planner
        self.state = RotatorState()
        try adopt(state, positions: known)
    }

    /// Takes `state` as what is registered now, over this rotator's planner (the body of the
    /// resuming init). On a throw the rotator is unchanged.
    mutating func adopt(_ state: RotatorState, positions known: [Int]?) throws(RotatorStateError) {
        let catalog = planner.catalog, configuration = planner.configuration
        guard state.monitored.count <= configuration.placeSlots else {
            throw .foreign("the state monitors \(state.monitored.count) places but the configuration has \(configuration.placeSlots) slots")
        }
        if let refresh = state.refresh, !refresh.id.hasPrefix(catalog.refreshIdentifierPrefix) {
            throw .foreign("refresh region '\(refresh.id)' does not use the catalog's prefix '\(catalog.refreshIdentifierPrefix)'")
        }
        if let refresh = state.refresh, refresh.radiusMeters > configuration.maxRegionRadiusMeters {
            throw .foreign(
                "refresh radius \(refresh.radiusMeters) m is beyond the configuration's \(configuration.maxRegionRadiusMeters) m")
        }
        // Looked up once: the positions of the monitored places in this catalog (−1 where a place
        // is gone or its definition changed), for the re-validation, the next selection and its diff.
        let positions = known ?? Self.positions(of: state.monitored, in: catalog)
        // Planned against this very version, the state is not re-validated: it must match it.
        if state.reselections > 0 && state.catalogVersion == catalog.version {
            if let i = positions.firstIndex(of: -1) {
                throw .foreign("'\(state.monitored[i].id)' is monitored, but catalog version \(catalog.version) has no such place")
            }
            if state.refresh == nil && state.monitored.count < catalog.count {
                throw .foreign(
                    "no refresh region, but \(catalog.count - state.monitored.count) places of catalog version \(catalog.version) are unmonitored"
                )
            }
        }
        self.state = state
        monitoredPositions = positions
        mustReselect = false
        if state.reselections > 0 && state.catalogVersion != catalog.version {
            mustReselect = !Self.stillHolds(state, positions: positions, in: catalog, marginMeters: planner.configuration.marginMeters)
            // Still exact in this version: re-stamped with it, so that the next resume trusts the
            // state instead of searching the index again. The state then differs from the one
            // stored, and the host writes it back once.
            if !mustReselect { self.state.catalogVersion = catalog.version }
        }
    }

    /// The monitored places' positions in the catalog (−1: not in it with their definition).
    public var monitoredPlacePositions: [Int] { monitoredPositions ?? Self.positions(of: state.monitored, in: catalog) }

    /// How far the refresh region keeps every unmonitored place from `vector`, meters: while the
    /// selection is `exact` and was planned against this catalog version, no place the rotator
    /// does not monitor has its fence edge nearer the region's center than its radius plus the
    /// margin (the planner sized it so; a re-stamped state was checked so), hence, by the
    /// triangle inequality, none is nearer `vector` than radius + margin − the distance from the
    /// center (negative or small outside the region). Nil when no such promise holds.
    public func unmonitoredEdgeBound(from vector: UnitVector) -> Double? {
        guard case .exact? = state.guarantee, let refresh = state.refresh, state.reselections > 0, !mustReselect,
            state.catalogVersion == catalog.version
        else { return nil }
        let fromCenter = Earth.meanRadiusMeters * vector.angleRadians(to: UnitVector(refresh.center))
        return refresh.radiusMeters + configuration.marginMeters - fromCenter
    }

    /// Each fence's position in `catalog`, or −1 when no place there has that id and definition.
    static func positions(of fences: [Fence], in catalog: PlaceCatalog) -> [Int] {
        fences.map { fence in catalog.position(of: fence.id).flatMap { catalog.fences[$0] == fence ? $0 : nil } ?? -1 }
    }

    /// Whether a state planned against another catalog version is still exact in `catalog`:
    /// every monitored place is there with the same definition, and no other place has its fence
    /// edge nearer the refresh region's center than the region's radius plus the margin.
    public static func stillHolds(_ state: RotatorState, in catalog: PlaceCatalog, marginMeters: Double) -> Bool {
        stillHolds(state, positions: positions(of: state.monitored, in: catalog), in: catalog, marginMeters: marginMeters)
    }

    static func stillHolds(_ state: RotatorState, positions: [Int], in catalog: PlaceCatalog, marginMeters: Double) -> Bool {
        guard !positions.contains(-1) else { return false }
        guard let refresh = state.refresh else {
            // Without a refresh region the whole catalog was monitored: it must still be.
            return catalog.count == state.monitored.count
        }
        let reach = refresh.radiusMeters + marginMeters
        // The tree's edges are exact for circles and lower bounds for footprints: a footprint
        // found is measured exactly before it counts.
        let center = UnitVector(refresh.center)
        for neighbor in catalog.index.within(reach, of: refresh.center, measuredTo: .edge)
        where neighbor.distanceMeters < reach && !positions.contains(neighbor.index)
            && (catalog.footprintIndex == nil || catalog.edgeDistanceMeters(of: neighbor.index, to: center) < reach)
        {
            return false
        }
        return true
    }

    /// Feeds one fix.
    ///
    /// ```swift
    /// let catalog = try PlaceCatalog(places: places)
    /// let configuration = RotationConfiguration.preset(.iOS, maxSpeedMetersPerSecond: 1.4, fixIntervalSeconds: 5)
    /// var rotator = try FenceRotator(catalog: catalog, configuration: configuration)
    /// let fix = Fix(try Coordinate(latitude: 46.0511, longitude: 14.5051), accuracyMeters: 12)
    /// if let update = rotator.update(with: fix) {
    ///     for operation in update.diff.operations { print(operation) }  // stop refresh, stops, start refresh, starts
    /// }
    /// ```
    ///
    /// - Returns: nil while the fix is inside the refresh region (for `degraded` and `saturated`
    ///   selections its radius is the fallback distance), when the whole catalog is already
    ///   monitored, or when the fix is unusable (accuracy negative, NaN or infinite — iOS reports a
    ///   negative accuracy for invalid locations); otherwise the new selection and the diff to
    ///   apply. The first usable fix always selects.
    public mutating func update(with fix: Fix) -> RotationUpdate? {
        if let accuracy = fix.accuracyMeters, !(accuracy.isFinite && accuracy >= 0) { return nil }
        if state.reselections > 0 && !mustReselect {
            guard let refresh = state.refresh, !refresh.contains(fix.coordinate) else { return nil }
        }
        return reselect(at: fix)
    }

    /// A plan for a device whose position is not known, after a catalog change: reselects at the
    /// refresh region's center and keeps the result only when it holds wherever the device may
    /// be, anywhere inside the old refresh circle (it reports leaving it): the new refresh region,
    /// on the same center, is at least as large as the old one, or the whole catalog is monitored.
    ///
    /// - Returns: the update (applied), or nil with the rotator unchanged when there is no refresh
    ///   region (no known position) or the new plan would not cover the old circle (places added
    ///   within its reach shrink the safe radius): ask the device for a fix; a state that no
    ///   longer holds reselects at it.
    public mutating func replanAtRefreshCenter() -> RotationUpdate? {
        guard let old = state.refresh else { return nil }
        var candidate = self
        let update = candidate.reselect(at: Fix(old.center))
        guard update.selection.refresh.map({ $0.radiusMeters >= old.radiusMeters }) ?? true else { return nil }
        self = candidate
        return update
    }

    /// Reselects at `fix` unconditionally: for when the platform reported that the device left
    /// the refresh region (the latest fix may still look inside it, through noise or delay), or
    /// when the host wants a fresh selection for any other reason.
    ///
    /// - Precondition: the fix's accuracy, if any, is finite and ≥ 0 (check it as `update` does).
    public mutating func reselect(at fix: Fix) -> RotationUpdate {
        let refreshID = catalog.refreshIdentifierPrefix + String(state.reselections)
        var selection = planner.select(at: fix, incumbents: state.monitored, refreshID: refreshID, incumbentPositions: monitoredPositions)
        if selection.guarantee != .exact,
            let fewer = cappedPlanner?.select(
                at: fix, incumbents: state.monitored, refreshID: refreshID, incumbentPositions: monitoredPositions)
        {
            selection = fewer
        }
        if selection.guarantee != .exact, let refresh = selection.refresh, refresh.radiusMeters < refreshFloorMeters {
            selection.refresh?.radiusMeters = min(refreshFloorMeters, configuration.maxRegionRadiusMeters)
        }
        let diff = RegistrationDiff(
            from: state.monitored, previousPositions: monitoredPositions, previousRefresh: state.refresh, to: selection)
        monitoredPositions = selection.monitored.map(\.position)
        state.monitored = selection.fences
        state.refresh = selection.refresh
        state.guarantee = selection.guarantee
        state.reselections += 1
        state.catalogVersion = catalog.version
        mustReselect = false
        return RotationUpdate(selection: selection, diff: diff)
    }
}

/// A reselection: the new selection and the registrations to change.
public struct RotationUpdate: Hashable, Sendable {
    /// What to monitor from now on.
    public var selection: Selection
    /// The platform calls from the previous registrations to `selection` (apply `diff.operations` in order).
    public var diff: RegistrationDiff

    /// Pairs a selection with the diff that reaches it.
    public init(selection: Selection, diff: RegistrationDiff) {
        self.selection = selection
        self.diff = diff
    }
}

/// The stored part of a `FenceRotator` (what the platform has registered), with a format version.
public struct RotatorState: Hashable, Sendable, Codable {
    /// The version this build writes. It also reads version 1, whose guarantee had Swift's
    /// default coding (`{"exact":{}}`); a version-1 state decodes as version 2.
    public static let currentFormatVersion = 2
    /// Every version this build reads.
    public static let readableFormatVersions: ClosedRange<Int> = 1...2

    /// The format version, `format_version` in JSON; always `currentFormatVersion` in memory (an
    /// older stored version is upgraded on decoding).
    public var formatVersion: Int = RotatorState.currentFormatVersion
    /// The monitored places' registrations.
    public var monitored: [Fence] = []
    /// The registered refresh region, if any.
    public var refresh: RefreshRegion?
    /// The last selection's guarantee (nil before the first).
    public var guarantee: Guarantee?
    /// Reselections so far (numbers the refresh identifiers).
    public var reselections: Int = 0
    /// The version of the catalog the registrations were planned against (nil in states written
    /// before versions existed: re-validated like any other version).
    public var catalogVersion: Int?

    /// A state with nothing registered and no reselection yet (what a new rotator holds).
    public init() {}

    private enum CodingKeys: String, CodingKey {
        case formatVersion = "format_version"
        case monitored, refresh, guarantee, reselections
        case catalogVersion = "catalog_version"
    }

    /// Decodes and validates: the format version must be one this build reads, identifiers unique, the
    /// counter non-negative and below `Int.max` (the next reselection adds one), a degraded
    /// guarantee's fallback distance and a saturated one's count non-negative, and no
    /// registrations before the first reselection; anything else is `DecodingError.dataCorrupted`.
    /// (Whether places are left unmonitored without a refresh region depends on the catalog:
    /// `FenceRotator` checks it.)
    ///
    /// - Throws: `DecodingError` when a key is missing or mistyped, and
    ///   `DecodingError.dataCorrupted` for an unreadable format version or a rule above broken.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decode(Int.self, forKey: .formatVersion)
        guard Self.readableFormatVersions.contains(version) else {
            throw DecodingError.dataCorruptedError(
                forKey: .formatVersion, in: container,
                debugDescription: "unsupported rotator state version \(version) (this build reads 1 and 2)")
        }
        formatVersion = Self.currentFormatVersion
        monitored = try container.decode([Fence].self, forKey: .monitored)
        refresh = try container.decodeIfPresent(RefreshRegion.self, forKey: .refresh)
        guarantee = try container.decodeIfPresent(Guarantee.self, forKey: .guarantee)
        reselections = try container.decode(Int.self, forKey: .reselections)
        catalogVersion = try container.decodeIfPresent(Int.self, forKey: .catalogVersion)
        guard reselections >= 0 else {
            throw DecodingError.dataCorruptedError(forKey: .reselections, in: container, debugDescription: "negative reselection count")
        }
        guard reselections < Int.max else {
            throw DecodingError.dataCorruptedError(forKey: .reselections, in: container, debugDescription: "reselection count at Int.max")
        }
        switch guarantee {
        case .degraded(let fallback)? where !(fallback.isFinite && fallback >= 0):
            throw DecodingError.dataCorruptedError(
                forKey: .guarantee, in: container, debugDescription: "fallback distance must be finite and >= 0")
        case .saturated(let overlapping)? where overlapping < 0:
            throw DecodingError.dataCorruptedError(forKey: .guarantee, in: container, debugDescription: "negative overlapping count")
        default:
            break
        }
        guard Set(monitored.map(\.id)).count == monitored.count else {
            throw DecodingError.dataCorruptedError(forKey: .monitored, in: container, debugDescription: "duplicate monitored ids")
        }
        guard reselections > 0 || (monitored.isEmpty && refresh == nil) else {
            throw DecodingError.dataCorruptedError(
                forKey: .reselections, in: container, debugDescription: "registrations without a selection")
        }
    }
}

/// Why a stored state cannot resume a rotator.
public enum RotatorStateError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The configuration given with the state is invalid.
    case invalidConfiguration(ConfigurationError)
    /// The state cannot have been planned against this catalog and configuration; the text says
    /// which check failed (too many places for the slots, a foreign refresh identifier, …).
    case foreign(String)

    /// One line a person reads: the configuration error, or why the state is foreign.
    public var description: String {
        switch self {
        case .invalidConfiguration(let error): "invalid configuration: \(error)"
        case .foreign(let reason): "the state does not belong to this catalog and configuration: \(reason)"
        }
    }
}
