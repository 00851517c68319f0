import Geodesy

/// One location report from the device.
public struct Fix: Hashable, Sendable, Codable {
    /// Where the device reported itself.
    public var coordinate: Coordinate
    /// Reported horizontal accuracy in meters (nil when unknown: treated as trustworthy).
    public var accuracyMeters: Double?
    /// Seconds on any monotonic scale (optional; not used for planning).
    public var timestampSeconds: Double?

    /// Creates a fix; nothing is validated here (the rotator ignores a fix whose accuracy is negative,
    /// NaN or infinite).
    public init(_ coordinate: Coordinate, accuracyMeters: Double? = nil, timestampSeconds: Double? = nil) {
        self.coordinate = coordinate
        self.accuracyMeters = accuracyMeters
        self.timestampSeconds = timestampSeconds
    }
}
