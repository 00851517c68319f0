import FencePlanner

/// What the host does after one input: notify place events, apply registration operations (in
/// order), and keep the location service the engine asks for.
public struct MonitorOutput: Hashable, Sendable {
    /// Entries, exits and dwells, in time order; each visit yields one entry and one exit.
    public var placeEvents: [PlaceEvent] = []
    /// Store visits that began or ended, in time order (`FenceMonitor.Settings.visits`; none
    /// while it is nil).
    public var visits: [VisitEvent] = []
    /// Platform calls in their safe order (`RegistrationDiff.operations`), or every registration
    /// again after a platform reset.
    public var operations: [RegistrationOperation] = []
    /// Places started while the fix is inside them (`RegistrationDiff.insideAtStart`): no entry
    /// will come from the platform; the engine decided them from the fix.
    public var insideAtStart: [String] = []
    /// After a `registered` report: what to stop and start so that the platform holds the plan.
    public var reconciliation: Reconciliation?
    /// The location service the host should run from now on.
    public var location: LocationRequest = .none
    /// With `location` `.oneFix`: whether a Wi-Fi or cell position will do
    /// (`FenceMonitor.oneFixFromNetwork`; iOS `kCLLocationAccuracyHundredMeters`, Android
    /// `PRIORITY_BALANCED_POWER_ACCURACY`).
    public var oneFixFromNetwork = false
    /// The goals a battery budget gives up now, in order (`VisitSettings.budget`; empty without
    /// one or while its account holds enough).
    public var givenUp: [VisitGoal] = []
    /// The guarantee in force with that request (nil before the first selection).
    public var guarantee: Guarantee?
    /// Why the input was ignored, if it was (it changed nothing).
    public var ignored: String?

    /// An output with nothing to do: no events, no operations, location `none`.
    public init() {}
}

/// A place event: the user entered, left, or stayed in a place.
public struct PlaceEvent: Hashable, Sendable, Codable {
    /// What happened at the place (`event` in JSON).
    public enum Kind: String, Hashable, Sendable, Codable {
        /// The user arrived: the visit starts.
        case entry
        /// The user left: the visit ends.
        case exit
        /// Inside for the place's dwell time (`FenceMonitor.Settings.dwellSeconds`), once per visit.
        case dwell
    }

    /// The place's id (`place` in JSON).
    public var placeID: String
    /// Entry, exit or dwell.
    public var kind: Kind
    /// The input's time, seconds.
    public var timeSeconds: Double
    /// Who decided: the platform, the in-app rule, a catalog change or the dwell timer.
    public var evidence: Evidence

    /// Creates an event; nothing is validated here.
    public init(placeID: String, kind: Kind, timeSeconds: Double, evidence: Evidence) {
        self.placeID = placeID
        self.kind = kind
        self.timeSeconds = timeSeconds
        self.evidence = evidence
    }

    private enum CodingKeys: String, CodingKey {
        case placeID = "place"
        case kind = "event"
        case timeSeconds = "t"
        case evidence
    }
}

/// Why the engine says so.
public enum Evidence: Hashable, Sendable, Codable {
    /// The platform's region event.
    case platform
    /// The app's own decision from fixes, with P(inside) at the deciding fix.
    case fixes(probabilityInside: Double)
    /// The place was removed from the catalog or redefined while the user was inside it.
    case catalogChange
    /// The time inside reached the place's dwell time.
    case timeInside

    /// The trace spelling: `platform`, `app`, `catalog` or `time`.
    public var name: String {
        switch self {
        case .platform: "platform"
        case .fixes: "app"
        case .catalogChange: "catalog"
        case .timeInside: "time"
        }
    }
}

/// The location service the engine needs now: the least that keeps the guarantee.
public enum LocationRequest: Hashable, Sendable, Codable {
    /// The platform's regions suffice.
    case none
    /// Significant-change updates (iOS) or background updates (Android): no GNSS; a backstop for
    /// a refresh exit delivered late.
    case significantChanges
    /// One fix now: after a refresh exit, a catalog change or before the first selection.
    case oneFix
    /// Continuous updates, at least one per `distanceFilterMeters` of movement (0: every fix).
    case continuous(distanceFilterMeters: Double)
    /// A Wi-Fi or cell position every `intervalSeconds`, the GNSS receiver off (iOS:
    /// `kCLLocationAccuracyHundredMeters`; Android: `PRIORITY_BALANCED_POWER_ACCURACY`): enough
    /// to see a stop begin and end (`FenceMonitor.Settings.visits`).
    case networkFixes(intervalSeconds: Double)

    /// Whether the request keeps the GNSS receiver on.
    public var keepsGNSSOn: Bool {
        switch self {
        case .continuous, .oneFix: true
        case .none, .significantChanges, .networkFixes: false
        }
    }
}
