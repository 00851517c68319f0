import FencePlanner

/// One thing that happened to a device, as the host hands it to `FenceMonitor`. Every input
/// carries its time: the engine has no clock of its own.
public enum MonitorInput: Sendable {
    /// A location report and the service that produced it. Its `timestampSeconds` is its time
    /// (required: a fix without one is ignored with a reason).
    case fix(Fix, source: FixSource)
    /// The platform reported crossing a registered region (a place or the refresh region).
    case region(RegionReport)
    /// The platform lost every registration (Android: reboot, app update): re-register all.
    case platformReset(atSeconds: Double)
    /// The identifiers the device reports registered now, after lost or partly applied diffs.
    case registered([String], atSeconds: Double)
    /// A new version of the catalog.
    case catalog(PlaceCatalog, atSeconds: Double)
    /// The platform's own word that the user became still or moved on (its motion classifier's
    /// transitions, its visit monitoring): "still" is a cue to look for a stop with a few network
    /// fixes (`FenceMonitor.Settings.visits`; ignored without).
    case motion(MotionReport)

    /// The input's time, seconds.
    public var timeSeconds: Double? {
        switch self {
        case .fix(let fix, _): fix.timestampSeconds
        case .region(let report): report.timeSeconds
        case .motion(let report): report.timeSeconds
        case .platformReset(let t), .registered(_, let t), .catalog(_, let t): t
        }
    }
}

/// The location service a fix came from (what `LocationRequest` asks for).
public enum FixSource: String, Hashable, Sendable, Codable, CaseIterable {
    /// Continuous updates (the GNSS receiver on).
    case continuous
    /// iOS significant-change updates, or Android's background updates.
    case significantChange = "significant_change"
    /// The one fix an app obtains when a region event wakes it.
    case wakeFix = "wake_fix"
    /// A Wi-Fi or cell position the engine asked for (`LocationRequest.networkFixes`).
    case network
}

/// The platform says the user became still or moved on.
public struct MotionReport: Hashable, Sendable, Codable {
    /// Which change the platform reported.
    public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
        /// The user became still: iOS `CMMotionActivity.stationary`, Android
        /// `DetectedActivity.STILL` entered; a `CLVisit` arrival.
        case still
        /// The user moved on: the classifier left "still"; a `CLVisit` departure.
        case moving
    }

    /// Which signal it came from.
    public enum Source: String, Hashable, Sendable, Codable, CaseIterable {
        /// The motion classifier's transitions (iOS `CMMotionActivityManager`, Android
        /// `ActivityTransitionRequest`).
        case activity
        /// The platform's visit monitoring (iOS `startMonitoringVisits()`, `CLVisit`).
        case visit
    }

    /// Still or moving (`motion` in JSON).
    public var kind: Kind
    /// The signal (`source` in JSON).
    public var source: Source
    /// Delivery time, seconds (on the same scale as the fixes').
    public var timeSeconds: Double

    /// A report of `kind` from `source`, delivered at `timeSeconds`.
    public init(_ kind: Kind, source: Source = .activity, timeSeconds: Double) {
        self.kind = kind
        self.source = source
        self.timeSeconds = timeSeconds
    }

    private enum CodingKeys: String, CodingKey {
        case kind = "motion"
        case source
        case timeSeconds = "t"
    }
}

/// A platform region event: which registered identifier, entry or exit, when it was delivered.
public struct RegionReport: Hashable, Sendable, Codable {
    /// Which crossing the platform reported.
    public enum Kind: String, Hashable, Sendable, Codable {
        /// The device entered the region (`"entry"` in JSON).
        case entry
        /// The device left the region (`"exit"` in JSON).
        case exit
    }

    /// The registered identifier: a place id or a refresh region's id (`region` in JSON).
    public var regionID: String
    /// Entry or exit (`event` in JSON).
    public var kind: Kind
    /// Delivery time, seconds (on the same scale as the fixes').
    public var timeSeconds: Double

    /// Creates a report; nothing is validated here (the engine ignores an unknown identifier with a reason).
    public init(regionID: String, kind: Kind, timeSeconds: Double) {
        self.regionID = regionID
        self.kind = kind
        self.timeSeconds = timeSeconds
    }

    private enum CodingKeys: String, CodingKey {
        case regionID = "region"
        case kind = "event"
        case timeSeconds = "t"
    }
}
