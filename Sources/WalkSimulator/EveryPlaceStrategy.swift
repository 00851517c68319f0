import FencePlanner
import Geodesy
import SpatialIndex

/// The platform's own bound, `every-place`: every place near the device registered, with no
/// region limit, so that whatever it misses is missed by the platform's region monitoring
/// itself (its cushion, stay, position error and latency), not by a selection. Not a design a
/// phone can run: the replay lets it register beyond the platform's limit
/// (`ignoresRegionLimit`), and it follows the device with continuous fixes.
///
/// Every place whose fence edge comes within `reachMeters` of the device is registered, looked
/// up again each time the device has moved `stepMeters` from the last lookup's center, so a
/// place is registered while the device is still at least `reachMeters − stepMeters` (1.5 km)
/// from its fence: a registration is never made with the device inside or at the edge of a fence
/// (except at the first fix, as for every strategy). A place once registered stays registered:
/// removing it would drop the events the platform has decided and not yet delivered (Android's
/// latency reaches 6 minutes, 10 km at driving speed). So the bound hears what the platform
/// reports with the whole catalog registered from the first fix, at the cost of the places near
/// the path only. The gap between this bound and another strategy's recall is the selection's
/// and the app's share of the misses; the bound's own gap to 100 % is the platform's.
public struct EveryPlaceStrategy: MonitoringStrategy, Sendable {
    /// Places whose fence edge is within this distance of the selection's center are registered,
    /// meters.
    public static let reachMeters = 2_000.0
    /// The selection follows the device after it has moved this far, meters.
    public static let stepMeters = 500.0

    public let catalog: PlaceCatalog
    /// The center of the last lookup (nil before `begin`).
    public private(set) var center: Coordinate?
    /// Every place registered so far, by catalog position.
    private var registered: Set<Int> = []
    private var buffer = NeighborBuffer()

    public init(catalog: PlaceCatalog) {
        self.catalog = catalog
    }

    public var name: String { "every-place" }
    public var backgroundFixes: BackgroundFixes { .continuous }
    public var ignoresRegionLimit: Bool { true }

    public mutating func begin(at fix: Fix) -> MonitoredRegions { select(at: fix.coordinate) }

    /// Nil: no trigger region is registered.
    public mutating func triggerExited(_ id: String, at fix: Fix) -> MonitoredRegions? { nil }

    /// Once the device is `stepMeters` from the last lookup's center, the places registered so
    /// far and those now within reach, when any is new; nil (keep) otherwise.
    public mutating func received(_ fix: Fix) -> MonitoredRegions? {
        guard let center, fix.coordinate.distance(to: center) < Self.stepMeters else {
            let before = registered.count
            let regions = select(at: fix.coordinate)
            return registered.count > before ? regions : nil
        }
        return nil
    }

    private mutating func select(at coordinate: Coordinate) -> MonitoredRegions {
        center = coordinate
        catalog.index.within(Self.reachMeters, of: UnitVector(coordinate), measuredTo: .edge, into: &buffer)
        for neighbor in buffer.neighbors { registered.insert(neighbor.index) }
        return MonitoredRegions(places: registered.sorted().map { catalog.fences[$0] }, triggers: [])
    }
}
