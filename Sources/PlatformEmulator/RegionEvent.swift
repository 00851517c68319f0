/// A region event as the app receives it.
public struct RegionEvent: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable {
        case enter
        case exit
        /// Android's `GEOFENCE_TRANSITION_DWELL`: inside for the region's loitering delay.
        case dwell
    }

    public var kind: Kind
    /// The identifier the region was registered under.
    public var regionID: String
    /// When the OS decided the crossing (cushion reached and stay complete), seconds.
    public var decidedAtSeconds: Double
    /// When the app receives it: the decision plus the drawn latency, seconds.
    public var deliveredAtSeconds: Double

    public init(kind: Kind, regionID: String, decidedAtSeconds: Double, deliveredAtSeconds: Double) {
        self.kind = kind
        self.regionID = regionID
        self.decidedAtSeconds = decidedAtSeconds
        self.deliveredAtSeconds = deliveredAtSeconds
    }

    public var description: String { "\(kind.rawValue) \(regionID) decided \(decidedAtSeconds) s, delivered \(deliveredAtSeconds) s" }
}

/// What a registration call returns to the app (and, for a silent drop, what the app is not told).
public enum RegistrationResult: Hashable, Sendable {
    /// The region is monitored.
    case accepted
    /// The call succeeded as far as the app can tell, but the region is not monitored (iOS
    /// beyond its limit).
    case silentlyDropped
    /// The call failed with the platform's status code; nothing was registered (Android beyond
    /// its limit: 1001, `GEOFENCE_TOO_MANY_GEOFENCES`).
    case rejected(errorCode: Int)
}
