import Geodesy

/// Validation shared by every rule: finite values, ranges, non-negative accuracy, and timestamps
/// that move forward.
public struct FixGate: Hashable, Sendable {
    /// The last accepted timestamp.
    public private(set) var lastSeconds: Double?

    /// A gate that has accepted nothing yet (any timestamp is fresh).
    public init() {}

    /// The fix's coordinate if it is valid and fresh (and records its time), else the rejection.
    public mutating func admit(_ fix: RuleFix) -> Result<Coordinate, FixRejection> {
        guard fix.latitude.isFinite, fix.longitude.isFinite, fix.accuracyMeters?.isFinite ?? true,
            fix.timestampSeconds?.isFinite ?? true
        else { return .failure(.notFinite) }
        guard (-90.0...90.0).contains(fix.latitude) else { return .failure(.latitudeOutOfRange(fix.latitude)) }
        guard (-180.0...180.0).contains(fix.longitude) else { return .failure(.longitudeOutOfRange(fix.longitude)) }
        if let accuracy = fix.accuracyMeters, accuracy < 0 { return .failure(.negativeAccuracy(accuracy)) }
        if let t = fix.timestampSeconds {
            if let last = lastSeconds, !(t > last) { return .failure(.stale(lastSeconds: last, seconds: t)) }
        }
        let coordinate = Coordinate(validLatitude: fix.latitude, longitude: fix.longitude)
        if let t = fix.timestampSeconds { lastSeconds = t }
        return .success(coordinate)
    }
}
