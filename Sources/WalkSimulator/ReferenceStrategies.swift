import FencePlanner
import Geodesy
import SpatialIndex

// The reference designs: what a developer would build instead of rotate, replayed through the
// same platform emulator and visit oracle for comparison. They are not planner options, and they
// keep their known flaws on purpose (docs/design/simulator.md, "Reference designs").
//
// All three share these rules:
// - places are ranked through the catalog's index, ties by index (the catalog sorts places by
//   id, so ties go to the smaller id); a place fence is the catalog's registration of the place
//   (`PlaceCatalog.fences`), under the place's id, in ranking order;
// - each new trigger region gets a fresh id, `trigger-0`, `trigger-1`, … (never reused by one
//   strategy value): platforms keep inside/outside state per identifier, and re-registering one id
//   at a new center can leave it in the state of the old circle and swallow the next exit (the
//   same-id state trap). A catalog should hold no place id of that form;
// - no randomness: the same catalog and calls give the same regions;
// - a reselection is one k-nearest query of the index (k = the place slots, plus one for the
//   refresh radius), never a sort of the catalog as the sources do: same choice, not their cost.

/// Fresh trigger-region identifiers: `trigger-0`, `trigger-1`, … in the order they are made.
struct TriggerNumbering: Hashable, Sendable {
    private(set) var made = 0

    /// The next identifier.
    mutating func next() -> String {
        defer { made += 1 }
        return "trigger-\(made)"
    }
}

extension PlaceCatalog {
    /// The fences of the `count` places nearest to `coordinate` (or all of them, when fewer),
    /// ranked by `target`, ties by index; `buffer.neighbors` holds the ranking afterwards.
    func nearestFences(_ count: Int, to coordinate: Coordinate, by target: DistanceTarget, into buffer: inout NeighborBuffer)
        -> [Fence]
    {
        index.nearest(min(count, self.count), to: UnitVector(coordinate), measuredTo: target, into: &buffer)
        return buffer.neighbors.map { fences[$0.index] }
    }
}

/// Reference design `nearest19-floor50`: the places nearest by center plus one refresh circle on
/// the fix, reaching the next place's fence, floored at 50 m. Replayed for comparison; not a
/// planner option.
///
/// The design of the article "Region Monitoring and Geofencing" ("Watching more than 20 places",
/// `selectFences(around:places:fenceRadius:limit:)`), with per-place radii:
/// - the `regionLimit − 1` places nearest to the fix by great-circle distance to their center;
/// - one trigger region centered on the fix, of radius
///   `max(d − r, 50 m)`, where `d` is the center distance of the next place by center (the
///   `regionLimit`-th) and `r` its fence radius: no margin, no cap. When the fix is inside that
///   place's fence already (`d − r ≤ 0`), the radius is the floor;
/// - reselected, with a new trigger, when the platform reports the exit of the current trigger;
///   no background fixes.
///
/// When the whole catalog fits in the place slots, every place is monitored and no trigger is
/// registered (nothing is left to bring in).
///
/// Known flaw: the center ranking ignores radii, and the floor lets the circle reach into a
/// fence that is not monitored, so entries at the circle's edge are missed.
public struct NearestWithRefreshStrategy: MonitoringStrategy, Sendable {
    /// The floor of the refresh radius, meters (the article's: Core Location monitors small
    /// circles poorly).
    public static let refreshFloorMeters = 50.0

    public let catalog: PlaceCatalog
    /// Regions registered at most: `regionLimit − 1` places and the refresh circle.
    public let regionLimit: Int
    /// The refresh circle registered now (nil before `begin`, or when every place is monitored).
    public private(set) var refresh: RefreshRegion?
    private var numbering = TriggerNumbering()
    private var buffer: NeighborBuffer

    /// A strategy over `catalog`.
    ///
    /// - Parameter regionLimit: the platform's per-app region limit, at least 2 (iOS 20, the
    ///   default; Android 100). The name stays `nearest19-floor50` whatever the limit.
    public init(catalog: PlaceCatalog, regionLimit: Int = 20) {
        precondition(regionLimit >= 2, "a refresh circle and one place need a region limit of at least 2")
        self.catalog = catalog
        self.regionLimit = regionLimit
        self.buffer = NeighborBuffer(capacity: regionLimit)
    }

    public var name: String { "nearest19-floor50" }
    public var backgroundFixes: BackgroundFixes { .none }
    /// Places monitored at most: `regionLimit − 1`.
    public var placeSlots: Int { regionLimit - 1 }

    public mutating func begin(at fix: Fix) -> MonitoredRegions { select(at: fix) }

    /// Reselects around `fix` when `id` is the current refresh circle; nil (keep) otherwise.
    public mutating func triggerExited(_ id: String, at fix: Fix) -> MonitoredRegions? {
        guard id == refresh?.id else { return nil }
        return select(at: fix)
    }

    /// Nil: the design asks for no background fixes and ignores any.
    public mutating func received(_ fix: Fix) -> MonitoredRegions? { nil }

    private mutating func select(at fix: Fix) -> MonitoredRegions {
        let ranked = catalog.nearestFences(placeSlots + 1, to: fix.coordinate, by: .center, into: &buffer)
        guard ranked.count > placeSlots else {
            refresh = nil
            return MonitoredRegions(places: ranked, triggers: [])
        }
        let next = buffer.neighbors[placeSlots]
        let reach = next.distanceMeters - catalog.radiiMeters[next.index]
        let circle = RefreshRegion(
            id: numbering.next(), center: fix.coordinate, radiusMeters: max(reach, Self.refreshFloorMeters))
        refresh = circle
        return MonitoredRegions(places: Array(ranked.prefix(placeSlots)), triggers: [circle])
    }
}

/// Reference design `nearest18-significant-change`: the places nearest by center, reselected on
/// every significant-change update, with no trigger region. Replayed for comparison; not a
/// planner option.
///
/// The re-registration manager of "Working Around Rork Max's 20-Geofence Wall with Dynamic
/// Re-registration" (`GeofenceCoordinator.reregisterNearest(to:)`):
/// - the `regionLimit − 2` places nearest to the fix by great-circle distance to their center
///   (two slots of headroom for other users of the app's region budget);
/// - no trigger region; `backgroundFixes` is `.significantChange`, and every update reselects
///   around its fix. The replay decides when updates arrive.
///
/// The manager re-registers only the difference; here an update whose nearest places are those
/// already monitored (as a set, in any order) returns nil (keep), and the replay registers the
/// difference of any other.
/// The manager asks for entries only; the fences here are the catalog's registrations unchanged,
/// as for every strategy replayed.
///
/// Known flaw: significant-change updates come about every 500 m and no more often than every
/// 5 minutes, so a user outruns the selection and enters fences it has not brought in yet.
public struct NearestSignificantChangeStrategy: MonitoringStrategy, Sendable {
    public let catalog: PlaceCatalog
    /// The platform's region limit; `regionLimit − 2` places are monitored.
    public let regionLimit: Int
    /// The place fences registered now (empty before `begin`).
    public private(set) var monitored: [Fence] = []
    private var buffer: NeighborBuffer

    /// A strategy over `catalog`.
    ///
    /// - Parameter regionLimit: the platform's per-app region limit, at least 3 (iOS 20, the
    ///   default; Android 100). The name stays `nearest18-significant-change` whatever the limit.
    public init(catalog: PlaceCatalog, regionLimit: Int = 20) {
        precondition(regionLimit >= 3, "two slots of headroom and one place need a region limit of at least 3")
        self.catalog = catalog
        self.regionLimit = regionLimit
        self.buffer = NeighborBuffer(capacity: regionLimit)
    }

    public var name: String { "nearest18-significant-change" }
    public var backgroundFixes: BackgroundFixes { .significantChange }
    /// Places monitored at most: `regionLimit − 2`.
    public var placeSlots: Int { regionLimit - 2 }

    public mutating func begin(at fix: Fix) -> MonitoredRegions {
        monitored = catalog.nearestFences(placeSlots, to: fix.coordinate, by: .center, into: &buffer)
        return MonitoredRegions(places: monitored, triggers: [])
    }

    /// Nil: the design registers no trigger region.
    public mutating func triggerExited(_ id: String, at fix: Fix) -> MonitoredRegions? { nil }

    /// Reselects around the update's fix; nil when the nearest places are those monitored, in
    /// whatever order.
    public mutating func received(_ fix: Fix) -> MonitoredRegions? {
        let nearest = catalog.nearestFences(placeSlots, to: fix.coordinate, by: .center, into: &buffer)
        guard Set(nearest) != Set(monitored) else { return nil }
        monitored = nearest
        return MonitoredRegions(places: nearest, triggers: [])
    }
}

/// Reference design `fixed-trigger`: the places nearest by fence edge plus an exit-only movement
/// trigger of fixed radius on the fix. Replayed for comparison; not a planner option.
///
/// The design customer.io's geofence module ships (customerio-android, `geofence/`):
/// `GeofenceConstants.FALLBACK_MAX_BUSINESS_GEOFENCES = 19` places, ranked by
/// `GeofenceDistanceFilter.nearest` on the boundary distance (center distance minus radius; pull
/// request #806), and the movement trigger `cio_movement_trigger`, EXIT only, centered on the fix,
/// of radius `localRefreshTriggerRadius` (`FALLBACK_LOCAL_REFRESH_RADIUS_METERS = 1_000`; server
/// values clamped into `MIN_LOCAL_REFRESH_RADIUS_METERS = 100` to
/// `MAX_LOCAL_REFRESH_RADIUS_METERS = 5_000`, a non-positive one falling back to the default); its
/// exit re-ranks the set (pull request #698). Here:
/// - the `regionLimit − 1` places nearest to the fix by center distance minus radius (negative
///   inside); the module clamps negative distances to 0 and rounds to whole meters before its id
///   tie-break, which orders differently only among fences containing the fix or within a meter
///   of a tie;
/// - one trigger region centered on the fix, of radius `triggerRadiusMeters`, also when every
///   place fits (the module keeps the trigger whenever it has places); a fresh id at each
///   reselection where the module reuses one;
/// - reselected, with a new trigger, when the platform reports the exit of the current trigger;
///   no background fixes.
///
/// Known flaw: one radius for every place density. In a dense area the user meets many
/// unmonitored fences before leaving 1 km; on a drive the exit comes too late for the platform's
/// latency, or for a small radius too often.
public struct FixedTriggerStrategy: MonitoringStrategy, Sendable {
    /// The module's default trigger radius, meters.
    public static let defaultTriggerRadiusMeters = 1_000.0
    /// The range the trigger radius is clamped into, meters.
    public static let triggerRadiusRangeMeters = 100.0...5_000.0

    public let catalog: PlaceCatalog
    /// The platform's region limit; `regionLimit − 1` places and the trigger are monitored.
    public let regionLimit: Int
    /// The trigger's radius, meters, after clamping.
    public let triggerRadiusMeters: Double
    /// The movement trigger registered now (nil before `begin`).
    public private(set) var trigger: RefreshRegion?
    private var numbering = TriggerNumbering()
    private var buffer: NeighborBuffer

    /// A strategy over `catalog`.
    ///
    /// - Parameters:
    ///   - regionLimit: the platform's per-app region limit, at least 2 (iOS 20, the default;
    ///     Android 100).
    ///   - triggerRadiusMeters: the movement trigger's radius, clamped into
    ///     `triggerRadiusRangeMeters` as the module clamps server values (see
    ///     `clampedTriggerRadius(_:)`).
    public init(catalog: PlaceCatalog, regionLimit: Int = 20, triggerRadiusMeters: Double = defaultTriggerRadiusMeters) {
        precondition(regionLimit >= 2, "a trigger and one place need a region limit of at least 2")
        self.catalog = catalog
        self.regionLimit = regionLimit
        self.triggerRadiusMeters = Self.clampedTriggerRadius(triggerRadiusMeters)
        self.buffer = NeighborBuffer(capacity: regionLimit)
    }

    /// `meters` clamped into `triggerRadiusRangeMeters`; a value that is not positive (or NaN)
    /// falls back to `defaultTriggerRadiusMeters`, +∞ clamps to the top.
    public static func clampedTriggerRadius(_ meters: Double) -> Double {
        guard meters > 0 else { return defaultTriggerRadiusMeters }
        return min(triggerRadiusRangeMeters.upperBound, max(triggerRadiusRangeMeters.lowerBound, meters))
    }

    public var name: String { "fixed-trigger" }
    public var backgroundFixes: BackgroundFixes { .none }
    /// Places monitored at most: `regionLimit − 1`.
    public var placeSlots: Int { regionLimit - 1 }

    public mutating func begin(at fix: Fix) -> MonitoredRegions { select(at: fix) }

    /// Reselects around `fix` when `id` is the current trigger; nil (keep) otherwise.
    public mutating func triggerExited(_ id: String, at fix: Fix) -> MonitoredRegions? {
        guard id == trigger?.id else { return nil }
        return select(at: fix)
    }

    /// Nil: the design asks for no background fixes and ignores any.
    public mutating func received(_ fix: Fix) -> MonitoredRegions? { nil }

    private mutating func select(at fix: Fix) -> MonitoredRegions {
        let places = catalog.nearestFences(placeSlots, to: fix.coordinate, by: .edge, into: &buffer)
        let movement = RefreshRegion(id: numbering.next(), center: fix.coordinate, radiusMeters: triggerRadiusMeters)
        trigger = movement
        return MonitoredRegions(places: places, triggers: [movement])
    }
}
