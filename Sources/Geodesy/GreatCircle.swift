#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Conversions between great-circle (arc) distances on the Earth and chords of the unit sphere.
///
/// For a central angle θ the chord of the unit sphere is `c = 2 sin(θ/2)`, so the arc on the
/// Earth is `s = 2R asin(c/2)`. Both directions are strictly increasing on `0...πR` (arc) and
/// `0...2` (chord); values outside are clamped.
public enum GreatCircle {
    /// Arc length in meters for a chord of the unit sphere (`0...2`).
    @inlinable
    public static func arcMeters(chord: Double) -> Double {
        2 * Earth.meanRadiusMeters * asin(min(1, max(0, chord * 0.5)))
    }

    /// Arc length in meters for a *squared* chord of the unit sphere (`0...4`).
    ///
    /// This is the one conversion the spatial index and its brute-force reference share, so
    /// distances reported by both agree bit for bit.
    @inlinable @inline(__always)
    public static func arcMeters(squaredChord: Double) -> Double {
        2 * Earth.meanRadiusMeters * asin(min(1, max(0, squaredChord).squareRoot() * 0.5))
    }

    /// Chord of the unit sphere for an arc length in meters (clamped to `0...πR`).
    @inlinable
    public static func chord(arcMeters: Double) -> Double {
        let meters = min(Earth.halfCircumferenceMeters, max(0, arcMeters))
        return 2 * sin(meters / (2 * Earth.meanRadiusMeters))
    }

    /// Squared chord of the unit sphere for an arc length in meters (clamped to `0...πR`).
    @inlinable
    public static func squaredChord(arcMeters: Double) -> Double {
        let c = chord(arcMeters: arcMeters)
        return c * c
    }
}
