import EventEngine
import FencePlanner
import PlatformEmulator

/// rotate as a `MonitoringStrategy`: its event engine (`FenceMonitor`) decides what the phone
/// monitors (the rotator's selection: monitored places and the refresh region) and which place
/// events the app reports, from the platform's region events and its own fixes.
///
/// The engine asks for the least location service that keeps its guarantee, and the replay
/// delivers fixes accordingly: while `exact` the app relies on the refresh region's exit and
/// also asks for significant changes (iOS; Android's background updates, no GNSS): the margin
/// covers the platform's 90th-percentile latency, not its tail (iOS up to 5 minutes, a walker's
/// 540 m), and a significant change that finds the device already outside the refresh circle
/// reselects before the late exit arrives. While `degraded` or `saturated` no refresh circle
/// protects every unmonitored fence, so the app asks for continuous updates, reselects as it
/// moves and decides the places within reach in-app. With the whole catalog monitored it asks
/// for nothing.
public struct RotateStrategy: MonitoringStrategy {
    public private(set) var monitor: FenceMonitor
    /// Every place event the engine reported, in order.
    public private(set) var placeEvents: [PlaceEvent] = []
    /// Every visit event the engine reported, in order.
    public private(set) var visitEvents: [EventEngine.VisitEvent] = []
    private var entries: [ReceivedEntry] = []
    private var exits: [ReceivedEntry] = []
    private var visits: [ReportedVisit] = []
    /// Arrivals reported so far, the visits not yet departed (number, stay start), and the
    /// departures not yet taken.
    private var visitsReported = 0
    private var openVisits: [(number: Int, arrivalSeconds: Double)] = []
    private var departures: [(visit: Int, timeSeconds: Double)] = []

    public init(catalog: PlaceCatalog, configuration: RotationConfiguration, settings: FenceMonitor.Settings = FenceMonitor.Settings())
        throws(ConfigurationError)
    {
        monitor = try FenceMonitor(catalog: catalog, configuration: configuration, settings: settings)
    }

    public var name: String { "rotate" }
    public var rotator: FenceRotator { monitor.rotator }

    public var backgroundFixes: BackgroundFixes {
        switch monitor.locationRequest() {
        case .none: .none
        case .significantChanges: .significantChange
        case .continuous, .oneFix: .continuous
        case .networkFixes: .periodic
        }
    }

    public var periodicFixSeconds: Double {
        if case .networkFixes(let seconds) = monitor.locationRequest() { return seconds }
        return 0
    }

    /// Whether the engine's one-off fix may come from the network (`FenceMonitor.oneFixFromNetwork`).
    public var wakeFixFromNetwork: Bool { monitor.oneFixFromNetwork }

    public var declaresSaturation: Bool {
        if case .saturated = monitor.rotator.state.guarantee { return true }
        return false
    }

    public var decidesPlaceEvents: Bool { true }

    public var guaranteeIsExact: Bool {
        switch monitor.rotator.state.guarantee {
        case .exact?, nil: true
        case .degraded?, .saturated?: false
        }
    }

    public mutating func begin(at fix: Fix) -> MonitoredRegions {
        _ = handle(.fix(fix, source: .wakeFix))
        return Self.regions(of: monitor.rotator.state)
    }

    public mutating func triggerExited(_ id: String, at fix: Fix) -> MonitoredRegions? {
        // The exit only marks the refresh region left; the woken app's fix then reselects.
        _ = handle(.region(RegionReport(regionID: id, kind: .exit, timeSeconds: fix.timestampSeconds ?? 0)))
        return handle(.fix(fix, source: .wakeFix))
    }

    public mutating func received(_ fix: Fix) -> MonitoredRegions? {
        let source: FixSource =
            switch backgroundFixes {
            case .continuous: .continuous
            case .periodic: .network
            case .none, .significantChange: .significantChange
            }
        return handle(.fix(fix, source: source))
    }

    public mutating func placeEvent(_ id: String, entered: Bool, at timeSeconds: Double) {
        _ = handle(.region(RegionReport(regionID: id, kind: entered ? .entry : .exit, timeSeconds: timeSeconds)))
    }

    /// The engine re-registers everything it planned (`MonitorInput.platformReset`).
    public mutating func platformReset(at timeSeconds: Double) -> MonitoredRegions? {
        _ = handle(.platformReset(atSeconds: timeSeconds))
        return Self.regions(of: monitor.rotator.state)
    }

    public mutating func takeEntries() -> [ReceivedEntry] {
        defer { entries.removeAll(keepingCapacity: true) }
        return entries
    }

    public mutating func takeExits() -> [ReceivedEntry] {
        defer { exits.removeAll(keepingCapacity: true) }
        return exits
    }

    /// Whether the engine reports visits (`FenceMonitor.Settings.visits`).
    public var reportsVisits: Bool { monitor.settings.visits != nil }

    /// The arrivals the engine reported, each with the place it names (if any) and the places it
    /// lists.
    public mutating func takeVisits() -> [ReportedVisit] {
        defer { visits.removeAll(keepingCapacity: true) }
        return visits
    }

    /// The engine reports its visits' departures when it reports visits.
    public var reportsDepartures: Bool { reportsVisits }

    /// The departures the engine reported, each with its visit's number among the arrivals.
    public mutating func takeDepartures() -> [(visit: Int, timeSeconds: Double)] {
        defer { departures.removeAll(keepingCapacity: true) }
        return departures
    }

    /// With visits on, the engine hears the phone's motion classifier and visit monitoring
    /// (`MonitorInput.motion`): cues to look for a stop or a departure.
    public var usesMotionActivity: Bool { monitor.settings.visits != nil }
    public var usesVisitMonitoring: Bool { monitor.settings.visits != nil }

    public mutating func motionChanged(moving: Bool, at timeSeconds: Double, fix: Fix?) -> MonitoredRegions? {
        handle(.motion(MotionReport(moving ? .moving : .still, source: .activity, timeSeconds: timeSeconds)))
    }

    /// A platform visit's arrival says still, its departure moving; the visit's own coordinate
    /// is not used (the engine's fixes place the stay).
    public mutating func visitReported(_ visit: PlatformEmulator.VisitEvent, fix: Fix?) -> MonitoredRegions? {
        let kind: MotionReport.Kind = visit.departureSeconds == nil ? .still : .moving
        return handle(.motion(MotionReport(kind, source: .visit, timeSeconds: visit.deliveredAtSeconds)))
    }

    /// Hands `input` to the engine, keeps its entries, and returns what to monitor when its
    /// registrations changed.
    private mutating func handle(_ input: MonitorInput) -> MonitoredRegions? {
        let output = monitor.handle(input)
        placeEvents += output.placeEvents
        visitEvents += output.visits
        for event in output.visits {
            guard event.kind == .arrival else {
                // The departure of the open visit whose stay began at the same time.
                if let i = openVisits.lastIndex(where: { $0.arrivalSeconds == event.visit.arrivalSeconds }) {
                    departures.append((openVisits[i].number, event.timeSeconds))
                    openVisits.remove(at: i)
                }
                continue
            }
            let place = event.visit.placeID
            let others = event.visit.candidates.map(\.placeID).filter { $0 != place }
            visits.append(ReportedVisit(placeID: place, candidates: (place.map { [$0] } ?? []) + others, timeSeconds: event.timeSeconds))
            openVisits.append((visitsReported, event.visit.arrivalSeconds))
            visitsReported += 1
        }
        for event in output.placeEvents {
            let received = ReceivedEntry(placeID: event.placeID, timeSeconds: event.timeSeconds)
            if event.kind == .entry { entries.append(received) } else if event.kind == .exit { exits.append(received) }
        }
        return output.operations.isEmpty ? nil : Self.regions(of: monitor.rotator.state)
    }

    static func regions(of state: RotatorState) -> MonitoredRegions {
        MonitoredRegions(places: state.monitored, triggers: state.refresh.map { [$0] } ?? [])
    }
}
