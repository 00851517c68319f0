/// How the planner uses the platform's region slots and how cautious it is.
///
/// One slot is always the refresh region, and `headroom` slots are left for other code in the
/// host app, so `placeSlots = limit - headroom - 1` places are monitored at a time.
public struct RotationConfiguration: Hashable, Sendable, Codable {
    /// Regions the platform lets one app monitor (iOS 20, Android 100).
    public var limit: Int = 20
    /// Slots left free for the host app's own regions.
    public var headroom: Int = 2
    /// How far the user may travel past the refresh edge before the app hears of it (detection
    /// latency × speed, plus fix spacing), meters. See `margin(maxSpeedMetersPerSecond:…)`.
    public var marginMeters: Double = 0
    /// The smallest refresh region the platform monitors reliably, meters; a safe radius below it
    /// makes the selection `degraded`.
    public var minRefreshRadiusMeters: Double = 100
    /// The largest region the platform accepts, meters; the refresh radius is capped to it.
    public var maxRegionRadiusMeters: Double = 400_000
    /// An incumbent keeps its slot against a newcomer less than this much nearer by edge, meters.
    public var stickinessMeters: Double = 0
    /// Fixes with a reported accuracy worse than this (meters) are not trusted to shrink the
    /// set: fences the user may be inside are kept, and the accuracy is added to the reach.
    public var maxTrustedAccuracyMeters: Double = 100

    /// The defaults: iOS's limit of 20 regions, headroom 2, no margin, refresh radius 100 m to 400 km,
    /// no stickiness, fixes trusted up to 100 m accuracy.
    public init() {}

    /// Creates a configuration; nothing is validated until a planner or rotator uses it (or
    /// `validated()` is called). Distances in meters.
    public init(
        limit: Int = 20, headroom: Int = 2, marginMeters: Double = 0, minRefreshRadiusMeters: Double = 100,
        maxRegionRadiusMeters: Double = 400_000, stickinessMeters: Double = 0, maxTrustedAccuracyMeters: Double = 100
    ) {
        self.limit = limit
        self.headroom = headroom
        self.marginMeters = marginMeters
        self.minRefreshRadiusMeters = minRefreshRadiusMeters
        self.maxRegionRadiusMeters = maxRegionRadiusMeters
        self.stickinessMeters = stickinessMeters
        self.maxTrustedAccuracyMeters = maxTrustedAccuracyMeters
    }

    /// Places monitored at a time: `limit - headroom - 1`.
    public var placeSlots: Int { limit - headroom - 1 }

    /// The margin needed when the app may learn of a refresh exit up to `latencySeconds` late and
    /// fixes arrive every `fixIntervalSeconds`, for a user moving at up to
    /// `maxSpeedMetersPerSecond`: `speed × (latency + fix interval)`.
    public static func margin(maxSpeedMetersPerSecond: Double, latencySeconds: Double, fixIntervalSeconds: Double) -> Double {
        maxSpeedMetersPerSecond * (latencySeconds + fixIntervalSeconds)
    }

    /// Checks every rule and returns the configuration unchanged, or throws the first violation.
    ///
    /// - Throws: `ConfigurationError`, checked in this order: `.invalidLimit` for a limit below 1,
    ///   `.negative` for negative headroom, `.noPlaceSlots` when `placeSlots` is below 1, then per
    ///   distance field (margin, min refresh radius, max region radius, stickiness, max trusted
    ///   accuracy) `.notFinite` or `.negative`, and `.emptyRefreshRange` when the minimum refresh
    ///   radius exceeds the maximum region radius or the maximum is 0.
    public func validated() throws(ConfigurationError) -> RotationConfiguration {
        guard limit >= 1 else { throw .invalidLimit(limit) }
        guard headroom >= 0 else { throw .negative(field: "headroom", value: Double(headroom)) }
        guard placeSlots >= 1 else { throw .noPlaceSlots(limit: limit, headroom: headroom) }
        let fields: [(String, Double)] = [
            ("marginMeters", marginMeters), ("minRefreshRadiusMeters", minRefreshRadiusMeters),
            ("maxRegionRadiusMeters", maxRegionRadiusMeters), ("stickinessMeters", stickinessMeters),
            ("maxTrustedAccuracyMeters", maxTrustedAccuracyMeters),
        ]
        for (field, value) in fields {
            guard value.isFinite else { throw .notFinite(field: field) }
            guard value >= 0 else { throw .negative(field: field, value: value) }
        }
        guard minRefreshRadiusMeters <= maxRegionRadiusMeters, maxRegionRadiusMeters > 0 else {
            throw .emptyRefreshRange(min: minRefreshRadiusMeters, max: maxRegionRadiusMeters)
        }
        return self
    }
}

/// Why a `RotationConfiguration` is unusable.
public enum ConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The region limit is below 1.
    case invalidLimit(Int)
    /// `limit - headroom - 1` leaves no slot for places.
    case noPlaceSlots(limit: Int, headroom: Int)
    /// The named field (`headroom` or a distance in meters) is negative.
    case negative(field: String, value: Double)
    /// The named distance field is NaN or infinite.
    case notFinite(field: String)
    /// No refresh radius is possible: the minimum refresh radius exceeds the maximum region
    /// radius, or the maximum is 0 (meters).
    case emptyRefreshRange(min: Double, max: Double)

    /// One line naming the field and the rule it breaks.
    public var description: String {
        switch self {
        case .invalidLimit(let limit): "limit \(limit) must be at least 1"
        case .noPlaceSlots(let limit, let headroom):
            "limit \(limit) minus headroom \(headroom) minus the refresh region leaves no slot for places"
        case .negative(let field, let value): "\(field) is \(value); it must not be negative"
        case .notFinite(let field): "\(field) is not a finite number"
        case .emptyRefreshRange(let min, let max): "minimum refresh radius \(min) m exceeds the maximum region radius \(max) m"
        }
    }
}
