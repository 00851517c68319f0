import FencePlanner
import Geodesy
import PlatformEmulator

/// What happened on the phone during one platform replay, in time order: every registration
/// call and what the platform did with it, every region event it delivered, every fix the app
/// obtained, the location service and guarantee in force, the app's entries, exits and visits,
/// and the oracles' verdict on each visit and stop with the reason for each miss. What a
/// developer watches to learn why an app missed a place (`PlatformReplay.timeline`).
///
/// Times are seconds on the walk's clock.
public struct ReplayTimeline: Sendable {
    /// One registration call.
    public struct Registration: Hashable, Sendable {
        public enum Action: String, Hashable, Sendable {
            case add
            case remove
        }

        /// What the platform did with the call.
        public enum Outcome: String, Hashable, Sendable {
            /// Registered and monitored.
            case monitored
            /// Accepted as far as the app can tell, but not monitored (iOS past its limit).
            case dropped
            /// Refused with an error (Android past its limit).
            case rejected
            /// Removed.
            case removed
        }

        public var timeSeconds: Double
        public var regionID: String
        /// A trigger region (refresh circle, movement trigger), not a place fence.
        public var isTrigger: Bool
        public var center: Coordinate
        public var radiusMeters: Double
        public var action: Action
        public var outcome: Outcome
    }

    /// A region event the platform delivered to the app.
    public struct Delivered: Hashable, Sendable {
        public var event: RegionEvent
        /// The event of a trigger region (its exit wakes the app for a fix).
        public var isTrigger: Bool
    }

    /// A fix the app obtained.
    public struct AppFix: Hashable, Sendable {
        public enum Source: String, Hashable, Sendable {
            /// The first fix, when the app starts.
            case start
            /// The fix the app asks for when a trigger's exit wakes it.
            case wake
            /// Continuous updates (the GNSS receiver on).
            case continuous
            /// A periodic network fix.
            case periodic
            /// A significant-change update (Android: a background update).
            case significantChange = "significant-change"
        }

        public var fix: Fix
        public var source: Source
        /// A Wi-Fi or cell position rather than the walk's own fix.
        public var fromNetwork: Bool
        public var timeSeconds: Double
    }

    /// What the app had asked of the phone from `timeSeconds` on.
    public struct State: Hashable, Sendable {
        public var timeSeconds: Double
        public var service: BackgroundFixes
        /// The strategy's guarantee holds (rotate `exact`; designs that promise nothing say yes).
        public var exact: Bool
        /// The strategy declared that it cannot cover every fence within reach (rotate `saturated`).
        public var saturated: Bool
    }

    /// Why the app did not hear of a visit or a stop.
    public enum MissReason: Hashable, Sendable {
        /// The place's fence was not monitored by the phone at any moment of the stay.
        case notMonitored
        /// The phone decided the entry in time, but delivered it this many seconds after the
        /// true entry: too late to count.
        case latency(seconds: Double)
        /// The fence was monitored, but the phone decided no entry during the stay (or soon
        /// enough after it to count): the fence or the stay is below what the platform resolves
        /// (its cushion, its position error, its stay time).
        case belowResolution
        /// The phone delivered the entry in time (before the stop's window ended, or had the user
        /// inside since an earlier entry); the app did not report the visit.
        case notReported
        /// The app reported a visit to this other place during the stop.
        case otherPlace(String)
    }

    /// A visit on the true path (a passage through a fence) and whether an entry detected it.
    public struct VisitOutcome: Hashable, Sendable {
        public var visit: Visit
        /// When the detecting entry came, or nil.
        public var detectedSeconds: Double?
        /// Why it was missed; nil when detected.
        public var reason: MissReason?
    }

    /// A true stop (at least `StopOracle.minimumStopSeconds`) and whether a reported visit
    /// detected it at its place.
    public struct StopOutcome: Hashable, Sendable {
        public var stop: TrueStop
        public var detectedSeconds: Double?
        public var reason: MissReason?
    }

    /// The strategy's name (`MonitoringStrategy.name`).
    public var strategy: String
    /// Whether the app decides its own place events (rotate's engine): its entries and exits are
    /// then its own, distinct from the platform's events.
    public var decidesPlaceEvents: Bool
    /// The places smaller than this are below what the platform resolves reliably, meters
    /// (`PlatformProfile.recommendedMinRadiusMeters`).
    public var platformMinRadiusMeters: Double
    public var registrations: [Registration] = []
    public var events: [Delivered] = []
    /// The events the phone had decided but not delivered when the walk ended.
    public var undelivered: [Delivered] = []
    public var fixes: [AppFix] = []
    /// The first state, then each change.
    public var states: [State] = []
    /// A restart of the device.
    public struct Reboot: Hashable, Sendable {
        public var timeSeconds: Double
        /// Every registration was lost (Android); the app registered again at once.
        public var registrationsLost: Bool
    }

    /// When the device restarted.
    public var reboots: [Reboot] = []
    /// The entries the app reported (or received from the platform), the exits it reported, and
    /// the visits it reported.
    public var entries: [ReceivedEntry] = []
    public var exits: [ReceivedEntry] = []
    public var visits: [ReportedVisit] = []
    /// For each place id, the intervals its fence was monitored by the phone.
    public var monitored: [String: [ClosedRange<Double>]] = [:]
    public var visitOutcomes: [VisitOutcome] = []
    public var stopOutcomes: [StopOutcome] = []
    /// The replay's counts and score.
    public var report = PlatformReplayReport()

    init(strategy: String, decidesPlaceEvents: Bool, platformMinRadiusMeters: Double) {
        self.strategy = strategy
        self.decidesPlaceEvents = decidesPlaceEvents
        self.platformMinRadiusMeters = platformMinRadiusMeters
    }

    /// Whether place `id` was monitored at some moment of `span`.
    func wasMonitored(_ id: String, during span: ClosedRange<Double>) -> Bool {
        (monitored[id] ?? []).contains { $0.overlaps(span) }
    }

    /// Why a stay at `placeID` over `stay` went unreported, with `window` the span in which a
    /// report would have counted: not monitored during the stay; the phone had the user inside
    /// already (its last event of the place before the stay, less `lead` seconds, an entry, the
    /// place monitored from then on: not reported); else by the platform's entries decided from
    /// `lead` seconds before the stay to the window's end (delivered, or still on their way when
    /// the walk ended): none (below resolution), one delivered by the window's end, early or in
    /// it (not reported), or only later ones (latency from the stay's start to the first).
    func reason(placeID: String, stay: ClosedRange<Double>, window: ClosedRange<Double>, lead: Double) -> MissReason {
        guard wasMonitored(placeID, during: stay) else { return .notMonitored }
        let place = (events + undelivered).filter {
            !$0.isTrigger && $0.event.regionID == placeID && ($0.event.kind == .enter || $0.event.kind == .exit)
        }
        // A return after a short way out that the phone never saw leave (no exit since its entry).
        let before = place.filter { $0.event.decidedAtSeconds < stay.lowerBound - lead }
        if let last = before.max(by: { $0.event.decidedAtSeconds < $1.event.decidedAtSeconds }), last.event.kind == .enter,
            (monitored[placeID] ?? []).contains(where: { $0.contains(last.event.decidedAtSeconds) && $0.contains(stay.lowerBound) })
        {
            return .notReported
        }
        let decided = place.filter {
            $0.event.kind == .enter && (stay.lowerBound - lead...window.upperBound).contains($0.event.decidedAtSeconds)
        }
        guard !decided.isEmpty else { return .belowResolution }
        if decided.contains(where: { $0.event.deliveredAtSeconds <= window.upperBound }) { return .notReported }
        let first = decided.map(\.event.deliveredAtSeconds).min() ?? stay.lowerBound
        return .latency(seconds: first - stay.lowerBound)
    }

    /// Each visit's detection (`VisitOracle.detections`) and each miss's reason.
    mutating func judge(visits: [Visit]) {
        let detected = VisitOracle.detections(visits: visits, entries: entries)
        visitOutcomes = zip(visits, detected).map { visit, time in
            VisitOutcome(
                visit: visit, detectedSeconds: time,
                reason: time != nil
                    ? nil
                    : reason(
                        placeID: visit.placeID, stay: visit.entrySeconds...visit.exitSeconds, window: VisitOracle.window(visit),
                        lead: VisitOracle.earlyToleranceSeconds))
        }
    }

    /// Each counted stop's detection (`StopOracle.detections`) by `reported`, and each miss's
    /// reason: another place named during it first.
    mutating func judge(stops: [TrueStop], reported: [ReportedVisit], away: (String, ClosedRange<Double>) -> Bool = { _, _ in true }) {
        let detections = StopOracle.detections(stops: stops, visits: reported, away: away)
        stopOutcomes = detections.map { stop, time in
            guard time == nil else { return StopOutcome(stop: stop, detectedSeconds: time, reason: nil) }
            let span = stop.arrivalSeconds...stop.departureSeconds
            if let other = reported.first(where: { $0.placeID != nil && $0.placeID != stop.placeID && span.contains($0.timeSeconds) }),
                let id = other.placeID
            {
                return StopOutcome(stop: stop, detectedSeconds: nil, reason: .otherPlace(id))
            }
            return StopOutcome(
                stop: stop, detectedSeconds: nil,
                reason: reason(placeID: stop.placeID, stay: span, window: StopOracle.window(stop), lead: StopOracle.minimumStopSeconds))
        }
    }
}
