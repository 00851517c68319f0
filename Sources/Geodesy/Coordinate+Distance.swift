/// Great-circle distances between coordinates.
extension Coordinate {
    /// Great-circle distance in meters on the spherical Earth (`Earth.meanRadiusMeters`).
    ///
    /// Computed as `R · atan2(|a × b|, a · b)` on unit vectors (the vector form of Vincenty's
    /// spherical formula), which is accurate to a few ulps at 0 m, at sub-meter separations and at
    /// antipodes, has no date-line or pole special cases, and is symmetric. A point's distance to
    /// itself is exactly 0.
    ///
    /// - Returns: meters in `0...πR`.
    @inlinable
    public func distance(to other: Coordinate) -> Double {
        if self == other { return 0 }
        return Earth.meanRadiusMeters * UnitVector(self).angleRadians(to: UnitVector(other))
    }
}
