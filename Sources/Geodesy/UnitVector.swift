#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A point on the unit sphere as an Earth-centered 3D vector (x toward 0°N 0°E, y toward 0°N 90°E,
/// z toward the north pole).
///
/// Unit vectors make great-circle geometry free of special cases: the date line and the poles are
/// ordinary points, and the straight-line (chord) distance between two vectors is a strictly
/// increasing function of their great-circle distance, so nearest-neighbor order can be decided
/// with `squaredChord(to:)` alone — no trigonometry in hot loops.
public struct UnitVector: Hashable, Sendable {
    /// Component toward 0°N 0°E, in units of the sphere radius (`-1...1` for a unit vector).
    public var x: Double
    /// Component toward 0°N 90°E, in units of the sphere radius (`-1...1` for a unit vector).
    public var y: Double
    /// Component toward the north pole, in units of the sphere radius; equals sin(latitude) for a unit vector.
    public var z: Double

    /// Creates a vector from raw components. The caller is responsible for unit length.
    @inlinable
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The unit vector of a coordinate.
    @inlinable
    public init(_ coordinate: Coordinate) {
        let lat = coordinate.latitudeRadians
        let lon = coordinate.longitudeRadians
        let cosLat = cos(lat)
        self.init(x: cosLat * cos(lon), y: cosLat * sin(lon), z: sin(lat))
    }

    /// Squared Euclidean distance between two vectors: the squared chord, in units of the sphere
    /// radius squared (`0...4` for unit vectors).
    ///
    /// This exact expression (`dx·dx + dy·dy + dz·dz`, in that order) is the single definition of
    /// "nearer" across rotate: the index and the brute-force reference both call it, so their
    /// rankings agree bit for bit.
    @inlinable @inline(__always)
    public func squaredChord(to other: UnitVector) -> Double {
        let dx = x - other.x
        let dy = y - other.y
        let dz = z - other.z
        return dx * dx + dy * dy + dz * dz
    }

    /// The dot product: the cosine of the central angle for two unit vectors (`-1...1`).
    @inlinable public func dot(_ other: UnitVector) -> Double { x * other.x + y * other.y + z * other.z }

    /// The cross product `self × other`, normal to both; its length is the sine of the central angle for
    /// two unit vectors, so it is zero (not a unit vector) for equal or antipodal inputs.
    @inlinable public func cross(_ other: UnitVector) -> UnitVector {
        UnitVector(x: y * other.z - z * other.y, y: z * other.x - x * other.z, z: x * other.y - y * other.x)
    }

    /// The Euclidean length, in units of the sphere radius (1 for a unit vector, up to rounding).
    @inlinable public var length: Double { (x * x + y * y + z * z).squareRoot() }

    /// Each component multiplied by `factor`; the result is a unit vector only when `|factor| · length` is 1.
    @inlinable public func scaled(by factor: Double) -> UnitVector {
        UnitVector(x: x * factor, y: y * factor, z: z * factor)
    }

    /// The component-wise sum; not normalized (use `normalized` for the direction).
    @inlinable public static func + (lhs: UnitVector, rhs: UnitVector) -> UnitVector {
        UnitVector(x: lhs.x + rhs.x, y: lhs.y + rhs.y, z: lhs.z + rhs.z)
    }

    /// The component-wise difference `lhs - rhs`; not normalized.
    @inlinable public static func - (lhs: UnitVector, rhs: UnitVector) -> UnitVector {
        UnitVector(x: lhs.x - rhs.x, y: lhs.y - rhs.y, z: lhs.z - rhs.z)
    }

    /// The same direction with length 1. A zero vector stays zero.
    @inlinable public var normalized: UnitVector {
        let l = length
        return l > 0 ? scaled(by: 1 / l) : self
    }

    /// The central angle to another vector in radians, `0...π`.
    ///
    /// Uses `atan2(|a × b|, a · b)`, which keeps full relative precision at 0, at sub-meter
    /// separations and near antipodes (unlike `acos` of the dot product, or `asin` of the chord
    /// near π). For identical vectors the cross product is exactly zero, so the angle is exactly 0.
    @inlinable
    public func angleRadians(to other: UnitVector) -> Double {
        atan2(cross(other).length, dot(other))
    }
}

extension Coordinate {
    /// The coordinate of a (not necessarily normalized, non-zero) vector.
    ///
    /// At the poles the longitude is 0 (any longitude names the pole). A computed longitude of
    /// -180 is reported as 180, as in `init(latitude:longitude:)`.
    public init(_ vector: UnitVector) {
        let horizontal = (vector.x * vector.x + vector.y * vector.y).squareRoot()
        let lat = atan2(vector.z, horizontal) * (180 / Double.pi)
        var lon = horizontal == 0 ? 0 : atan2(vector.y, vector.x) * (180 / Double.pi)
        lon = min(180, max(-180, lon))
        self.init(validLatitude: min(90, max(-90, lat)), longitude: lon)
    }

    /// This coordinate's unit vector.
    @inlinable public var unitVector: UnitVector { UnitVector(self) }
}
