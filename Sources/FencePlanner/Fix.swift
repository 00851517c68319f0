import Geodesy

/// One location report from the device.
public struct Fix: Hashable, Sendable, Codable {
    public var coordinate: Coordinate
    /// Reported horizontal accuracy in meters (nil when unknown: treated as trustworthy).
    public var accuracyMeters: Double?
    /// Seconds on any monotonic scale (optional; not used for planning).
    public var timestampSeconds: Double?

    public init(_ coordinate: Coordinate, accuracyMeters: Double? = nil, timestampSeconds: Double? = nil) {
        self.coordinate = coordinate
        self.accuracyMeters = accuracyMeters
        self.timestampSeconds = timestampSeconds
    }
}
