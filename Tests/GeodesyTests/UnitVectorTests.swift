import Foundation
import Geodesy
import RotateTestSupport
import Testing

@Suite struct UnitVectorTests {
    @Test(arguments: [
        (90.0, 0.0), (-90.0, 0.0), (0.0, 180.0), (0.0, -179.9999999), (45.0, 179.9999), (-45.0, -180.0),
        (0.0, 0.0), (89.9999999, 135.0), (-12.5, 90.0), (33.3, -90.0),
    ])
    func coordinateRoundTripsThroughItsVector(latitude: Double, longitude: Double) throws {
        let c = try Coordinate(latitude: latitude, longitude: longitude)
        let v = UnitVector(c)
        #expect(isApproximatelyEqual(v.length, 1, absolute: 1e-15))
        let back = Coordinate(v)
        #expect(c.distance(to: back) < 1e-8, "\(c) came back as \(back)")
        #expect(abs(back.latitude - latitude) < 1e-12)
    }

    @Test func polesMapToTheZAxis() throws {
        let north = UnitVector(try Coordinate(latitude: 90, longitude: 77))
        #expect(north.z == 1)
        #expect(abs(north.x) < 1e-16 && abs(north.y) < 1e-16)
        #expect(Coordinate(UnitVector(x: 0, y: 0, z: -1)) == Coordinate(validLatitude: -90, longitude: 0))
    }

    @Test func squaredChordIsMonotoneInDistance() {
        let seed = TestSeed.value(salt: 2)
        var rng = SplitMix64(seed: seed)
        let origin = SyntheticCoordinates.uniformOnSphere(using: &rng)
        var pairs: [(Double, Double)] = []
        for _ in 0..<2_000 {
            let p = SyntheticCoordinates.uniformOnSphere(using: &rng)
            pairs.append((origin.distance(to: p), UnitVector(origin).squaredChord(to: UnitVector(p))))
        }
        pairs.sort { $0.0 < $1.0 }
        for (a, b) in zip(pairs, pairs.dropFirst()) {
            #expect(a.1 <= b.1 + 1e-15, "\(TestSeed.replay(seed))")
        }
    }

    @Test(arguments: [0.0, 1e-3, 1.0, 1_000.0, 1e6, 1e7, 2e7, Earth.halfCircumferenceMeters])
    func chordAndArcConvertBothWays(meters: Double) {
        let chord = GreatCircle.chord(arcMeters: meters)
        #expect(isApproximatelyEqual(GreatCircle.arcMeters(chord: chord), meters, absolute: meters > 1.9e7 ? 1e-3 : 1e-8, relative: 1e-12))
        #expect(
            isApproximatelyEqual(
                GreatCircle.arcMeters(squaredChord: chord * chord), meters, absolute: meters > 1.9e7 ? 1e-3 : 1e-8, relative: 1e-12))
        #expect(isApproximatelyEqual(GreatCircle.squaredChord(arcMeters: meters), chord * chord, relative: 1e-15))
    }

    @Test func chordSpecialValues() {
        #expect(GreatCircle.chord(arcMeters: 0) == 0)
        #expect(GreatCircle.chord(arcMeters: Earth.halfCircumferenceMeters) == 2)
        #expect(isApproximatelyEqual(GreatCircle.arcMeters(chord: 2.0.squareRoot()), Earth.halfCircumferenceMeters / 2, relative: 1e-15))
        // Outside the domain: clamped, never NaN.
        #expect(GreatCircle.arcMeters(chord: 3) == GreatCircle.arcMeters(chord: 2))
        #expect(GreatCircle.arcMeters(squaredChord: -1e-18) == 0)
        #expect(GreatCircle.chord(arcMeters: -5) == 0)
    }

    @Test func chordDistanceAgreesWithTheGreatCircleDistance() {
        let seed = TestSeed.value(salt: 3)
        var rng = SplitMix64(seed: seed)
        for _ in 0..<1_000 {
            let a = SyntheticCoordinates.uniformOnSphere(using: &rng)
            let b = SyntheticCoordinates.gaussian(around: a, sigmaMeters: 50_000, using: &rng)
            let viaChord = GreatCircle.arcMeters(squaredChord: UnitVector(a).squaredChord(to: UnitVector(b)))
            #expect(isApproximatelyEqual(viaChord, a.distance(to: b), absolute: 1e-6), "\(TestSeed.replay(seed))")
        }
    }
}

@Suite struct SmallArcsineTests {
    /// The three series (chords below 0.02, 0.02 to 0.1, and 0.1 to 0.6) against libm's `asin`,
    /// and the order kept across the switches (at chords 0.02, 0.1 and 0.6, where libm takes over).
    @Test func theSeriesMatchLibmBelowTheSwitchAndAreMonotone() {
        var previous = -1.0
        var worst = 0.0
        for i in 0...70_000 {
            let c = 0.7 * Double(i) / 70_000  // chords 0 ... 0.7
            let arc = GreatCircle.arcMeters(squaredChord: c * c)
            let reference = 2 * Earth.meanRadiusMeters * Foundation.asin(c / 2)
            worst = max(worst, abs(arc - reference) / max(reference, 1e-300))
            #expect(arc >= previous)
            previous = arc
        }
        #expect(worst < 4e-16, "relative error \(worst)")
        // Just below and above each switch, one ulp apart: never decreasing.
        for chord in [0.02, 0.1, 0.6] {
            let at = GreatCircle.arcMeters(squaredChord: chord * chord)
            let below = GreatCircle.arcMeters(squaredChord: (chord * chord).nextDown)
            let above = GreatCircle.arcMeters(squaredChord: (chord * chord).nextUp)
            #expect(below <= at && at <= above, "around chord \(chord)")
        }
    }

    /// The tangent's two series (below 0.01, and 0.01 to 0.05) against libm's `atan`, and the
    /// order kept across the switches (at 0.01 and 0.05, where libm takes over).
    @Test func theTangentSeriesMatchLibmAndAreMonotone() {
        var previous = -1.0
        var worst = 0.0
        for i in 0...60_000 {
            let t = 0.06 * Double(i) / 60_000
            let arc = GreatCircle.arcMeters(tangent: t)
            let reference = Foundation.atan(t) * Earth.meanRadiusMeters
            worst = max(worst, abs(arc - reference) / max(reference, 1e-300))
            #expect(arc >= previous)
            previous = arc
        }
        #expect(worst < 4e-16, "relative error \(worst)")
        for t in [0.01, 0.05] {
            let (below, at, above) = (
                GreatCircle.arcMeters(tangent: t.nextDown), GreatCircle.arcMeters(tangent: t), GreatCircle.arcMeters(tangent: t.nextUp)
            )
            #expect(below <= at && at <= above, "around \(t)")
        }
    }

    /// The two-lane conversion against the scalar one, bit for bit, on both sides of the series'
    /// switch, at zero, at the clamps and just outside the domain.
    @Test func twoLanesConvertExactlyAsOne() {
        let seed = TestSeed.value(salt: 91)
        var rng = SplitMix64(seed: seed)
        var squaredChords: [Double] = [
            0, -1e-18, 4, 4.5, 0.01, 0.02 * 0.02, 0.02 * 0.02 * (1 - 1e-16), 0.02 * 0.02 * (1 + 1e-16), 0.1 * 0.1, 0.1 * 0.1 * (1 - 1e-16),
            0.1 * 0.1 * (1 + 1e-16),
            0.6 * 0.6, 0.6 * 0.6 * (1 - 1e-16), 0.6 * 0.6 * (1 + 1e-16),
        ]
        for _ in 0..<5_000 {
            let chord =
                switch rng.nextInt(below: 4) {
                case 0: rng.nextDouble(in: 0..<2)
                case 1: rng.nextDouble(in: 0.08..<0.7)
                case 2: rng.nextDouble(in: 0.015..<0.025)
                default: rng.nextDouble(in: 0..<0.12)
                }
            squaredChords.append(chord * chord)
        }
        for a in squaredChords.indices {
            let pair = SIMD2(squaredChords[a], squaredChords[(a * 7 + 3) % squaredChords.count])
            let both = GreatCircle.arcMeters(squaredChords: pair)
            #expect(both.x.bitPattern == GreatCircle.arcMeters(squaredChord: pair.x).bitPattern, "\(pair.x) \(TestSeed.replay(seed))")
            #expect(both.y.bitPattern == GreatCircle.arcMeters(squaredChord: pair.y).bitPattern, "\(pair.y) \(TestSeed.replay(seed))")
        }
    }
}
