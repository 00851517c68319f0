#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Moving along great circles: destination points, bearings and interpolation.
extension Coordinate {
    /// Local east and north unit vectors at this coordinate.
    ///
    /// At a pole "north" and "east" are taken from the meridian of the stored longitude, as if the
    /// pole had been reached along it: at the north pole, north points down the meridian
    /// `longitude + 180°`. This keeps `destination` defined (and deterministic) everywhere.
    @usableFromInline
    func eastNorth() -> (east: UnitVector, north: UnitVector) {
        let lat = latitudeRadians
        let lon = longitudeRadians
        let sinLat = sin(lat), cosLat = cos(lat), sinLon = sin(lon), cosLon = cos(lon)
        let east = UnitVector(x: -sinLon, y: cosLon, z: 0)
        let north = UnitVector(x: -sinLat * cosLon, y: -sinLat * sinLon, z: cosLat)
        return (east, north)
    }

    /// The point reached by traveling `distanceMeters` along the great circle that leaves this
    /// coordinate at `bearingDegrees` (clockwise from north).
    ///
    /// Any finite distance is allowed: a negative distance travels the opposite way, and distances
    /// beyond `πR` continue round the globe. At a pole the bearing is measured from the meridian of
    /// the stored longitude (see `eastNorth`). Crossing the date line or a pole needs no care.
    ///
    /// - Parameters:
    ///   - bearingDegrees: initial bearing in degrees, clockwise from north.
    ///   - distanceMeters: distance along the surface in meters.
    public func destination(bearingDegrees: Double, distanceMeters: Double) -> Coordinate {
        let frame = eastNorth()
        let bearing = bearingDegrees * (Double.pi / 180)
        let direction = frame.north.scaled(by: cos(bearing)) + frame.east.scaled(by: sin(bearing))
        let angle = distanceMeters / Earth.meanRadiusMeters
        let start = UnitVector(self)
        return Coordinate((start.scaled(by: cos(angle)) + direction.scaled(by: sin(angle))).normalized)
    }

    /// Initial bearing in degrees (`0..<360`, clockwise from north) of the great circle from this
    /// coordinate to `other`. 0 when the points coincide; for antipodes, where every direction
    /// leads there, the bearing of the tie-break circle used by `interpolated(to:fraction:)`.
    public func initialBearingDegrees(to other: Coordinate) -> Double {
        let frame = eastNorth()
        let tangent = Coordinate.tangent(from: UnitVector(self), to: UnitVector(other), frame: frame)
        var degrees = atan2(tangent.dot(frame.east), tangent.dot(frame.north)) * (180 / Double.pi)
        if degrees < 0 { degrees += 360 }
        return degrees >= 360 ? 0 : degrees
    }

    /// The point a `fraction` of the way along the shorter great circle from this coordinate to
    /// `other` (`0` gives this point, `1` gives `other`; values outside `0...1` extrapolate).
    ///
    /// Computed as `a·cos(fθ) + t·sin(fθ)` with `t` the unit tangent at `a` toward `b`, so the
    /// distance from `a` is exactly proportional to `fraction` up to rounding, at any separation.
    /// Antipodal endpoints have no unique great circle; the one leaving `a` northward (or, at a
    /// pole, along the stored longitude's meridian) is used, deterministically.
    public func interpolated(to other: Coordinate, fraction: Double) -> Coordinate {
        if fraction == 0 { return self }
        if fraction == 1 { return other }
        let a = UnitVector(self)
        let b = UnitVector(other)
        let angle = a.angleRadians(to: b)
        if angle == 0 { return self }
        let tangent = Coordinate.tangent(from: a, to: b, frame: eastNorth())
        let traveled = fraction * angle
        return Coordinate((a.scaled(by: cos(traveled)) + tangent.scaled(by: sin(traveled))).normalized)
    }

    /// Unit tangent at `a` pointing along the great circle toward `b`.
    static func tangent(from a: UnitVector, to b: UnitVector, frame: (east: UnitVector, north: UnitVector)) -> UnitVector {
        // (a × b) × a = b − (a·b) a, built from the cross product so that it stays accurate for
        // nearby points; near antipodes it vanishes and the northward tie-break is used.
        let normal = a.cross(b)
        let tangent = normal.cross(a)
        let length = tangent.length
        if length > 1e-15 { return tangent.scaled(by: 1 / length) }
        return frame.north
    }
}
