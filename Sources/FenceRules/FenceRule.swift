import Geodesy

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A circular fence as the in-app rules see it.
public struct CircularFence: Hashable, Sendable {
    /// The fence's center.
    public var center: Coordinate
    /// The fence's radius in meters (≥ 0; a fix at exactly this distance is inside).
    public var radiusMeters: Double

    /// Creates a fence; nothing is validated here.
    public init(center: Coordinate, radiusMeters: Double) {
        self.center = center
        self.radiusMeters = radiusMeters
    }
}

/// One location report as a rule receives it: raw values, validated by the rule.
public struct RuleFix: Hashable, Sendable {
    /// Latitude in degrees, unchecked (a rule rejects NaN, infinity and values outside `-90...90`).
    public var latitude: Double
    /// Longitude in degrees, unchecked (a rule rejects NaN, infinity and values outside `-180...180`).
    public var longitude: Double
    /// Reported horizontal accuracy, meters (nil: unknown).
    public var accuracyMeters: Double?
    /// Seconds on a monotonic scale (nil: no time, never stale).
    public var timestampSeconds: Double?

    /// Creates a fix from raw values in degrees, meters and seconds; nothing is validated here (the rule does).
    public init(latitude: Double, longitude: Double, accuracyMeters: Double? = nil, timestampSeconds: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.accuracyMeters = accuracyMeters
        self.timestampSeconds = timestampSeconds
    }

    /// Creates a fix at a validated coordinate; accuracy and timestamp are still checked by the rule.
    public init(_ coordinate: Coordinate, accuracyMeters: Double? = nil, timestampSeconds: Double? = nil) {
        self.init(
            latitude: coordinate.latitude, longitude: coordinate.longitude, accuracyMeters: accuracyMeters,
            timestampSeconds: timestampSeconds)
    }
}

/// Where a rule believes the user is.
public enum PresenceState: String, Hashable, Sendable {
    /// No trustworthy evidence yet.
    case unknown
    /// The rule believes the user is outside the fence.
    case outside
    /// The rule believes the user is inside the fence.
    case inside
}

/// What a rule tells the host app.
public enum FenceEvent: String, Hashable, Sendable {
    /// The user arrived: the state became `inside` (from `outside` or from `unknown`).
    case enter
    /// The user left: the state went from `inside` to `outside`.
    case exit
}

/// Why a rule ignored a fix. Rejected fixes never change a rule's state.
public enum FixRejection: Error, Hashable, Sendable, CustomStringConvertible {
    /// The latitude, longitude, accuracy or timestamp is NaN or infinite.
    case notFinite
    /// The latitude, in degrees, is outside `-90...90`.
    case latitudeOutOfRange(Double)
    /// The longitude, in degrees, is outside `-180...180`.
    case longitudeOutOfRange(Double)
    /// The accuracy, in meters, is negative.
    case negativeAccuracy(Double)
    /// The timestamp is not after the last accepted one.
    case stale(lastSeconds: Double, seconds: Double)
    /// The accuracy is outside the range the rule trusts (the two-threshold rule's gate); NaN when
    /// the accuracy is missing and the rule requires one.
    case accuracyGate(Double)

    /// One line a person reads, naming the value and the rule it breaks.
    public var description: String {
        switch self {
        case .notFinite: "a value is NaN or infinite"
        case .latitudeOutOfRange(let v): "latitude \(v) is outside -90...90"
        case .longitudeOutOfRange(let v): "longitude \(v) is outside -180...180"
        case .negativeAccuracy(let v): "accuracy \(v) is negative"
        case .stale(let last, let t): "timestamp \(t) is not after the last accepted \(last)"
        case .accuracyGate(let v): "accuracy \(v) m is outside the trusted range"
        }
    }
}

/// The result of feeding one fix to a rule.
public struct RuleOutcome: Hashable, Sendable {
    /// The event raised by this fix, if the state changed between inside and outside (or from
    /// unknown to inside, an arrival).
    public var event: FenceEvent?
    /// The state after this fix.
    public var state: PresenceState
    /// Why the fix was ignored, if it was.
    public var rejection: FixRejection?
    /// P(inside) for rules that compute it.
    public var probabilityInside: Double?
}

/// An in-app rule that turns a stream of fixes into enter and exit events for one fence.
///
/// Every rule rejects invalid fixes (NaN or infinite values, negative accuracy, coordinates out of
/// range) and stale or out-of-order ones (a timestamp not after the last accepted one) with a
/// reason, and they never change its state. Events are raised only on a valid state change: an
/// `enter` when the state becomes inside (also from unknown: an arrival), an `exit` when it goes
/// from inside to outside; unknown → outside raises nothing.
public protocol FenceRule: Sendable {
    /// The fence the rule watches.
    var fence: CircularFence { get }
    /// Where the rule believes the user is now (`unknown` before the first deciding fix).
    var state: PresenceState { get }
    /// Feeds one fix and returns the event it raises, if any, and the state after it.
    ///
    /// Fixes arrive in time order; a rejected fix (see `FixRejection`) leaves `state` unchanged and
    /// is reported in `RuleOutcome.rejection`.
    mutating func update(with fix: RuleFix) -> RuleOutcome
}

/// How the reported accuracy maps to the Gaussian σ per axis that P(inside) needs.
///
/// Platforms report a radius around the fix that holds the true position with some confidence
/// (commonly read as 63 % to 68 %). For a 2D Gaussian with σ per axis, the radius holding a share p
/// is `σ·√(−2 ln(1−p))`, so σ = accuracy / √(−2 ln(1−p)): 0.71·accuracy at 63 %, 0.66·accuracy at
/// 68 %. The cautious reading treats the accuracy as one σ (a wider error, so fewer confident
/// decisions); it is the default.
public enum AccuracyModel: Hashable, Sendable {
    /// The accuracy is one σ per axis (the cautious default).
    case oneSigma
    /// The accuracy is the radius holding this share (0 < p < 1) of fixes.
    case percentile(Double)

    /// The Gaussian σ per axis, meters, for a reported accuracy in meters: the accuracy itself for
    /// `oneSigma`, `accuracy / √(−2 ln(1−p))` for `percentile(p)`.
    public func sigma(forAccuracyMeters accuracy: Double) -> Double {
        switch self {
        case .oneSigma: return accuracy
        case .percentile(let p): return accuracy / (-2 * log1p(-p)).squareRoot()
        }
    }
}
