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
        return 2 * Earth.meanRadiusMeters * arcsine(half: half)
    }

    /// Arc length in meters for the tangent of the arc's angle (≥ 0): the distance the gnomonic
    /// plane about a point gives (a point θ away lies at tan θ from the origin). The one
    /// conversion the polygons and their index share, so their distances agree bit for bit.
    ///
    /// atan's Taylor series below 0.05 (318 km), cut where the next term is under a thousandth
    /// of the last bit (t¹¹/11 below 0.01, t¹⁹/19 below 0.05); libm's `atan` above.
    @inlinable @inline(__always)
    public static func arcMeters(tangent t: Double) -> Double {
        let u = t * t
        let angle: Double
        if t < 0.01 {
            angle = t + t * (u * (-1 / 3 + u * (1 / 5 + u * (-1 / 7 + u * (1 / 9)))))
        } else if t < 0.05 {
            let inner = 1 / 13 + u * (-1 / 15 + u * (1 / 17))
            angle = t + t * (u * (-1 / 3 + u * (1 / 5 + u * (-1 / 7 + u * (1 / 9 + u * (-1 / 11 + u * inner))))))
        } else {
            angle = atan(t)
        }
        return angle * Earth.meanRadiusMeters
    }

    /// asin of a half chord (0...1): the series below 0.3, libm's `asin` above.
    @inlinable @inline(__always)
    static func arcsine(half: Double) -> Double {
        half < 0.01 ? tinyArcsine(half) : half < 0.05 ? smallArcsine(half) : half < 0.3 ? mediumArcsine(half) : asin(half)
    }

    /// `arcMeters(squaredChord:)` of two squared chords at once (two lanes of the same
    /// operations, in the same order: bit for bit the scalar results). For loops that convert
    /// many rankings to meters.
    @inlinable @inline(__always)
    public static func arcMeters(squaredChords: SIMD2<Double>) -> SIMD2<Double> {
        // The clamps lane by lane, as in the scalar code (the SIMD min and max handle NaN lane by
        // lane through branches), then the series on both lanes at once.
        let half = SIMD2(min(1, max(0, squaredChords.x).squareRoot() * 0.5), min(1, max(0, squaredChords.y).squareRoot() * 0.5))
        let t = half * half
        if half.x < 0.05 && half.y < 0.05 {
            // The tiny and the small series share their last two steps: each lane enters them
            // from its own x⁷ sum (a lane select on the bits, no branch).
            var seventh = SIMD2<Double>(repeating: tinySeventh)
            if !(half.x < 0.01 && half.y < 0.01) {
                let small = arcsineSeriesToSeventh(SIMD2(repeating: smallThirteenth), t)
                let tiny = unsafeBitCast(half .< SIMD2(repeating: 0.01), to: SIMD2<UInt64>.self)
                let bits = (unsafeBitCast(seventh, to: SIMD2<UInt64>.self) & tiny) | (unsafeBitCast(small, to: SIMD2<UInt64>.self) & ~tiny)
                seventh = unsafeBitCast(bits, to: SIMD2<Double>.self)
            }
            return 2 * Earth.meanRadiusMeters * (half + half * (t * arcsineSeriesFromSeventh(seventh, t)))
        }
        return arcMetersBeyondSmall(half: half)
    }

    /// `arcMeters(squaredChords:)` when a lane's half chord is 0.05 or more (chords over ~640 km):
    /// out of line, so that the common case stays small enough to be inlined.
    @usableFromInline @inline(never)
    static func arcMetersBeyondSmall(half: SIMD2<Double>) -> SIMD2<Double> {
        guard half.x < 0.3 && half.y < 0.3 else {
            return SIMD2(2 * Earth.meanRadiusMeters * arcsine(half: half.x), 2 * Earth.meanRadiusMeters * arcsine(half: half.y))
        }
        // Each lane takes the series the scalar code takes for it.
        let t = half * half
        let tiny = tinyArcsineSeries(t), small = smallArcsineSeries(t), medium = mediumArcsineSeries(t)
        let p = SIMD2(
            half.x < 0.01 ? tiny.x : half.x < 0.05 ? small.x : medium.x,
            half.y < 0.01 ? tiny.y : half.y < 0.05 ? small.y : medium.y)
        return 2 * Earth.meanRadiusMeters * (half + half * (t * p))
    }

    /// asin(x) for 0 ≤ x < 0.01 (chords under ~127 km: the distances a fence query ranks) from its
    /// Maclaurin series, x + x³/6 + 3x⁵/40 + …, to x⁷: the first omitted term is below 4e-18
    /// relative, under the rounding of the result. Monotone (positive coefficients evaluated by
    /// Horner's rule with monotone roundings), which the equal-radius edge search relies on, and
    /// never above the longer series at the same x (see `smallArcsine`), so the switch keeps the
    /// order.
    @inlinable @inline(__always)
    static func tinyArcsine(_ x: Double) -> Double {
        let t = x * x
        return x + x * (t * tinyArcsineSeries(t))
    }

    /// asin(x) for 0.01 ≤ x < 0.05 (chords of ~127 to ~640 km) from the same series to x¹³: the
    /// first omitted term is below 2e-18 relative. Monotone for the same reason, and never below
    /// the tiny series (its extra terms are non-negative, then the same operations).
    @inlinable @inline(__always)
    static func smallArcsine(_ x: Double) -> Double {
        let t = x * x
        return x + x * (t * smallArcsineSeries(t))
    }

    /// asin(x) for 0.05 ≤ x < 0.3 (chords of ~640 to ~3,800 km: sparse catalogs, whose nearest
    /// places can lie that far, so their keys stay off libm's `asin` and the branch choosing it)
    /// from the same series to x²⁹: the first omitted term is below 1e-18 relative. Monotone for
    /// the same reason, and never below the short series (its extra terms are non-negative), so the
    /// switch between them keeps the order.
    @inlinable @inline(__always)
    static func mediumArcsine(_ x: Double) -> Double {
        let t = x * x
        return x + x * (t * mediumArcsineSeries(t))
    }

    /// (asin(x) − x) / x³ to the x⁷ term, by Horner's rule in t = x².
    @inlinable @inline(__always)
    static func tinyArcsineSeries<T: ArcsineSeriesArgument>(_ t: T) -> T {
        arcsineSeriesFromSeventh(T.constant(tinySeventh), t)
    }

    /// (asin(x) − x) / x³ to the x¹³ term, by Horner's rule in t = x².
    @inlinable @inline(__always)
    static func smallArcsineSeries<T: ArcsineSeriesArgument>(_ t: T) -> T {
        arcsineSeriesTail(T.constant(smallThirteenth), t)
    }

    /// The x⁷ coefficient, where the tiny series starts.
    @inlinable static var tinySeventh: Double { 5.0 / 112 }
    /// The x¹³ coefficient, where the small series starts.
    @inlinable static var smallThirteenth: Double { 231.0 / 13_312 }

    /// (asin(x) − x) / x³ to the x²⁹ term; from the x¹³ term down, the same operations as
    /// `smallArcsineSeries` (the shared `arcsineSeriesTail`).
    @inlinable @inline(__always)
    static func mediumArcsineSeries<T: ArcsineSeriesArgument>(_ t: T) -> T {
        var p = T.constant(5_014_575.0 / 973_078_528)
        p = p * t + T.constant(1_300_075.0 / 226_492_416)
        p = p * t + T.constant(676_039.0 / 104_857_600)
        p = p * t + T.constant(88_179.0 / 12_058_624)
        p = p * t + T.constant(46_189.0 / 5_505_024)
        p = p * t + T.constant(12_155.0 / 1_245_184)
        p = p * t + T.constant(6_435.0 / 557_056)
        p = p * t + T.constant(143.0 / 10_240)
        p = p * t + T.constant(231.0 / 13_312)
        return arcsineSeriesTail(p, t)
    }

    /// Horner's rule from `p`, the sum so far at the x¹³ coefficient, down to the x³ one.
    @inlinable @inline(__always)
    static func arcsineSeriesTail<T: ArcsineSeriesArgument>(_ p: T, _ t: T) -> T {
        arcsineSeriesFromSeventh(arcsineSeriesToSeventh(p, t), t)
    }

    /// Horner's rule from `p`, the sum so far at the x¹³ coefficient, to the sum at the x⁷ one.
    @inlinable @inline(__always)
    static func arcsineSeriesToSeventh<T: ArcsineSeriesArgument>(_ p: T, _ t: T) -> T {
        var p = p
        p = p * t + T.constant(63.0 / 2_816)
        p = p * t + T.constant(35.0 / 1_152)
        p = p * t + T.constant(tinySeventh)
        return p
    }

    /// Horner's rule from `p`, the sum so far at the x⁷ coefficient, down to the x³ one (the
    /// operations every series ends with).
    @inlinable @inline(__always)
    static func arcsineSeriesFromSeventh<T: ArcsineSeriesArgument>(_ p: T, _ t: T) -> T {
        var p = p
        p = p * t + T.constant(3.0 / 40)
        p = p * t + T.constant(1.0 / 6)
        return p
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

/// A `Double` or two of them: what the arcsine series are evaluated on (one text for the scalar
/// and the two-lane conversions, so their operations cannot drift apart).
@usableFromInline
protocol ArcsineSeriesArgument {
    static func constant(_ value: Double) -> Self
    static func * (a: Self, b: Self) -> Self
    static func + (a: Self, b: Self) -> Self
}

extension Double: ArcsineSeriesArgument {
    @inlinable @inline(__always) static func constant(_ value: Double) -> Double { value }
}

extension SIMD2: ArcsineSeriesArgument where Scalar == Double {
    @inlinable @inline(__always) static func constant(_ value: Double) -> SIMD2<Double> { SIMD2(repeating: value) }
}
