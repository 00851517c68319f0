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
        let half = min(1, max(0, squaredChord).squareRoot() * 0.5)
        return 2 * Earth.meanRadiusMeters * (half < 0.05 ? smallArcsine(half) : asin(half))
    }

    /// `arcMeters(squaredChord:)` of two squared chords at once (two lanes of the same
    /// operations, in the same order: bit for bit the scalar results). For loops that convert
    /// many rankings to meters.
    @inlinable @inline(__always)
    public static func arcMeters(squaredChords: SIMD2<Double>) -> SIMD2<Double> {
        // The clamps lane by lane, as in the scalar code (the SIMD min and max handle NaN lane by
        // lane through branches), then the series on both lanes at once.
        let half = SIMD2(min(1, max(0, squaredChords.x).squareRoot() * 0.5), min(1, max(0, squaredChords.y).squareRoot() * 0.5))
        guard half.x < 0.05 && half.y < 0.05 else {
            return SIMD2(arcMeters(squaredChord: squaredChords.x), arcMeters(squaredChord: squaredChords.y))
        }
        let t = half * half
        var p = SIMD2(repeating: 231.0 / 13_312)
        p = p * t + 63.0 / 2_816
        p = p * t + 35.0 / 1_152
        p = p * t + 5.0 / 112
        p = p * t + 3.0 / 40
        p = p * t + 1.0 / 6
        return 2 * Earth.meanRadiusMeters * (half + half * (t * p))
    }

    /// asin(x) for 0 ≤ x < 0.05 (chords under ~640 km, every distance a fence query ranks) from its
    /// Maclaurin series, x + x³/6 + 3x⁵/40 + …, to x¹³: the first omitted term is below 2e-18
    /// relative, under the rounding of the result. Four times faster than libm's `asin`, and
    /// monotone (positive coefficients evaluated by Horner's rule with monotone roundings), which
    /// the equal-radius edge search relies on.
    @inlinable @inline(__always)
    static func smallArcsine(_ x: Double) -> Double {
        let t = x * x
        var p = 231.0 / 13_312
        p = p * t + 63.0 / 2_816
        p = p * t + 35.0 / 1_152
        p = p * t + 5.0 / 112
        p = p * t + 3.0 / 40
        p = p * t + 1.0 / 6
        return x + x * (t * p)
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
