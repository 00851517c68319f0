import FencePlanner
import PlatformEmulator

/// What a strategy asks the phone to monitor: place fences, whose entries are store visits, and
/// trigger regions (refresh circles, movement triggers), whose exits wake the app.
public struct MonitoredRegions: Hashable, Sendable {
    public var places: [Fence]
    public var triggers: [RefreshRegion]

    public init(places: [Fence], triggers: [RefreshRegion]) {
        self.places = places
        self.triggers = triggers
    }

    /// Regions registered in all.
    public var count: Int { places.count + triggers.count }
}

/// How the app hears of the device's position in the background, besides region events.
public enum BackgroundFixes: String, Hashable, Sendable, CaseIterable {
    /// None: the app runs only when a region event wakes it.
    case none
    /// Every fix (continuous updates: the GNSS receiver stays on).
    case continuous
    /// Significant-change updates (iOS: about every 500 m, no more often than every 5 minutes),
    /// or Android's background updates (a few an hour).
    case significantChange
    /// A network-accuracy fix (Wi-Fi, about 100 m) every `MonitoringStrategy.periodicFixSeconds`,
    /// each waking the app: an SDK's timer in the background (Radar's tracking presets).
    case periodic
}

/// A way of choosing what a phone monitors, replayed through a platform emulator and the visit
/// oracle: rotate, or one of the reference designs a developer would otherwise build.
///
/// The replay calls `begin` at the first fix, then `triggerExited` when the platform delivers
/// the exit of a trigger region (with the fix the woken app obtains) and `received` for every
/// background fix `backgroundFixes` asks for; each returns the full set of regions to monitor
/// from then on, or nil to keep what is registered. The replay registers the difference (by id
/// and full definition) with the emulator.
public protocol MonitoringStrategy {
    /// The name in reports (`rotate`, `nearest19-floor50`, …).
    var name: String { get }
    /// What the app asks for in the background now (may change after each call).
    var backgroundFixes: BackgroundFixes { get }
    /// Whether the strategy has declared that what it monitors cannot cover every fence within
    /// reach (rotate's `saturated` guarantee), so the app must decide in-app; a visit entered
    /// unmonitored then is not counted avoidable. False for designs that never say so.
    var declaresSaturation: Bool { get }
    /// The regions to monitor from the first fix.
    mutating func begin(at fix: Fix) -> MonitoredRegions
    /// The platform delivered the exit of trigger `id`; `fix` is the woken app's fix.
    mutating func triggerExited(_ id: String, at fix: Fix) -> MonitoredRegions?
    /// A background fix arrived.
    mutating func received(_ fix: Fix) -> MonitoredRegions?
    /// Whether the fix the app obtains when a trigger's exit wakes it comes from Wi-Fi or cell
    /// (a network fix: no GNSS) instead of the GNSS receiver.
    var wakeFixFromNetwork: Bool { get }
    /// Whether what the strategy monitors now keeps every fence within reach covered (rotate's
    /// `exact` guarantee); false while it is `degraded` or `saturated`. True for designs that
    /// make no such promise.
    var guaranteeIsExact: Bool { get }
    /// Whether the app decides its place events itself, from the platform's events and its own
    /// fixes (rotate's event engine): the replay then hands it every place event the platform
    /// delivers and scores the entries it reports (`takeEntries`), not the platform's own.
    var decidesPlaceEvents: Bool { get }
    /// The platform delivered the entry (or exit) of place `id` at `timeSeconds`.
    mutating func placeEvent(_ id: String, entered: Bool, at timeSeconds: Double)
    /// The entries the app reported since the last call.
    mutating func takeEntries() -> [ReceivedEntry]
    /// The exits the app reported since the last call (a strategy that decides its place events).
    mutating func takeExits() -> [ReceivedEntry]
    /// Whether the app reports store visits of its own (rotate's engine with
    /// `FenceMonitor.Settings.visits`): the stop oracle then scores those (`takeVisits`), not the
    /// entries.
    var reportsVisits: Bool { get }
    /// The visits the app reported since the last call.
    mutating func takeVisits() -> [ReportedVisit]
    /// The departures the strategy reported since the last call: each with the number of its
    /// visit among every visit `takeVisits` returned (0 the first), in order.
    mutating func takeDepartures() -> [(visit: Int, timeSeconds: Double)]
    /// Whether the app reports its visits' departures (`takeDepartures`): the stop oracle then
    /// counts the visits it left open (`StopScore.visitsLeftOpen`).
    var reportsDepartures: Bool { get }
    /// The platform lost every registration (a reboot, an app update): the regions to register
    /// again, or nil for what was registered before (a host that re-registers what it had).
    mutating func platformReset(at timeSeconds: Double) -> MonitoredRegions?
    /// Whether the replay lets the strategy register beyond the platform's region limit: true
    /// only for the platform's bound (`EveryPlaceStrategy`), which no phone can run.
    var ignoresRegionLimit: Bool { get }
    /// The replay is about to handle the walk's sample `index` (0-based): every call until the
    /// next one belongs to that sample.
    mutating func willHandleSample(_ index: Int)
    /// Seconds between fixes when `backgroundFixes` is `.periodic`.
    var periodicFixSeconds: Double { get }
    /// Whether the app sends every fix it handles to a server (each a request, priced by the
    /// energy model), as SDKs that decide events on their server do.
    var sendsUpdatesToServer: Bool { get }
    /// Whether the app listens to the phone's motion-activity classifier (`MotionActivity`).
    var usesMotionActivity: Bool { get }
    /// The classifier says the device became still (`moving` false) or moved on; `fix` is the
    /// sample's fix when there is one. Heard by a running app, or by any app where the platform's
    /// transitions wake it.
    mutating func motionChanged(moving: Bool, at timeSeconds: Double, fix: Fix?) -> MonitoredRegions?
    /// Whether the app monitors visits (iOS `startMonitoringVisits()`; nothing where the platform
    /// has none).
    var usesVisitMonitoring: Bool { get }
    /// The platform delivered a visit (an arrival, or a departure with its arrival); `fix` is the
    /// sample's fix when there is one.
    mutating func visitReported(_ visit: VisitEvent, fix: Fix?) -> MonitoredRegions?
}

extension MonitoringStrategy {
    public var declaresSaturation: Bool { false }
    public var decidesPlaceEvents: Bool { false }
    public var guaranteeIsExact: Bool { true }
    public var ignoresRegionLimit: Bool { false }
    public var wakeFixFromNetwork: Bool { false }
    public mutating func placeEvent(_ id: String, entered: Bool, at timeSeconds: Double) {}
    public mutating func takeEntries() -> [ReceivedEntry] { [] }
    public mutating func takeExits() -> [ReceivedEntry] { [] }
    public var reportsVisits: Bool { false }
    public mutating func takeVisits() -> [ReportedVisit] { [] }
    public mutating func takeDepartures() -> [(visit: Int, timeSeconds: Double)] { [] }
    public var reportsDepartures: Bool { false }
    public mutating func platformReset(at timeSeconds: Double) -> MonitoredRegions? { nil }
    public mutating func willHandleSample(_ index: Int) {}
    public var periodicFixSeconds: Double { 0 }
    public var sendsUpdatesToServer: Bool { false }
    public var usesMotionActivity: Bool { false }
    public mutating func motionChanged(moving: Bool, at timeSeconds: Double, fix: Fix?) -> MonitoredRegions? { nil }
    public var usesVisitMonitoring: Bool { false }
    public mutating func visitReported(_ visit: VisitEvent, fix: Fix?) -> MonitoredRegions? { nil }
}
