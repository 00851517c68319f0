import Geodesy
import RotateTestSupport
import Testing

@Suite struct NavigationTests {
    let r = Earth.meanRadiusMeters

    @Test func quarterCircleEastFromTheOriginReaches90East() throws {
        let end = try Coordinate(latitude: 0, longitude: 0).destination(bearingDegrees: 90, distanceMeters: .pi * r / 2)
        #expect(abs(end.latitude) < 1e-12)
        #expect(abs(end.longitude - 90) < 1e-12)
    }

    @Test func destinationCrossesTheDateLine() throws {
        let start = try Coordinate(latitude: 0, longitude: 179.9)
        let distance = r * 0.2 * .pi / 180
        let end = start.destination(bearingDegrees: 90, distanceMeters: distance)
        #expect(abs(end.longitude - -179.9) < 1e-9)
        #expect(isApproximatelyEqual(start.distance(to: end), distance, relative: 1e-12))
    }

    @Test func destinationOverThePoleComesDownTheOtherMeridian() throws {
        let start = try Coordinate(latitude: 89, longitude: 10)
        let end = start.destination(bearingDegrees: 0, distanceMeters: r * 2 * .pi / 180)
        #expect(abs(end.latitude - 89) < 1e-9)
        #expect(abs(end.longitude - -170) < 1e-9)
    }

    @Test func fromAPoleTheBearingFollowsTheStoredMeridian() throws {
        let pole = try Coordinate(latitude: 90, longitude: 40)
        // Bearing 180 (south) leaves down the pole's own meridian.
        let south = pole.destination(bearingDegrees: 180, distanceMeters: r * .pi / 180)
        #expect(abs(south.latitude - 89) < 1e-9)
        #expect(abs(south.longitude - 40) < 1e-9)
        let away = pole.destination(bearingDegrees: 77, distanceMeters: 1_000)
        #expect(isApproximatelyEqual(pole.distance(to: away), 1_000, relative: 1e-9))
    }

    @Test func destinationAndBearingAreInverses() {
        let seed = TestSeed.value(salt: 4)
        var rng = SplitMix64(seed: seed)
        for _ in 0..<1_000 {
            let a = SyntheticCoordinates.uniformOnSphere(using: &rng)
            let b = SyntheticCoordinates.uniformOnSphere(using: &rng)
            let bearing = a.initialBearingDegrees(to: b)
            #expect((0..<360).contains(bearing))
            let reached = a.destination(bearingDegrees: bearing, distanceMeters: a.distance(to: b))
            #expect(reached.distance(to: b) < 1e-6, "\(TestSeed.replay(seed)): \(a) -> \(b)")
        }
    }

    @Test func interpolationEndsAtTheEndpointsAndIsProportional() {
        let seed = TestSeed.value(salt: 5)
        var rng = SplitMix64(seed: seed)
        for _ in 0..<500 {
            let a = SyntheticCoordinates.uniformOnSphere(using: &rng)
            let b = SyntheticCoordinates.uniformOnSphere(using: &rng)
            let d = a.distance(to: b)
            #expect(a.interpolated(to: b, fraction: 0) == a)
            #expect(a.interpolated(to: b, fraction: 1) == b)
            for f in [0.1, 0.5, 0.9] {
                let p = a.interpolated(to: b, fraction: f)
                #expect(isApproximatelyEqual(a.distance(to: p), f * d, absolute: 1e-6), "\(TestSeed.replay(seed))")
                #expect(isApproximatelyEqual(p.distance(to: b), (1 - f) * d, absolute: 1e-6), "\(TestSeed.replay(seed))")
            }
        }
    }

    @Test func interpolationAcrossTheDateLineStaysOnTheShortArc() throws {
        let a = try Coordinate(latitude: 0, longitude: 179)
        let b = try Coordinate(latitude: 0, longitude: -179)
        let mid = a.interpolated(to: b, fraction: 0.5)
        #expect(abs(abs(mid.longitude) - 180) < 1e-9)
        #expect(abs(mid.latitude) < 1e-9)
    }

    @Test func interpolationBetweenAntipodesIsDeterministicAndHalfway() throws {
        let a = try Coordinate(latitude: 10, longitude: 20)
        let b = try Coordinate(latitude: -10, longitude: -160)
        let mid = a.interpolated(to: b, fraction: 0.5)
        #expect(mid == a.interpolated(to: b, fraction: 0.5))
        #expect(isApproximatelyEqual(a.distance(to: mid), .pi * r / 2, absolute: 1e-3))
        #expect(isApproximatelyEqual(mid.distance(to: b), .pi * r / 2, absolute: 1e-3))
    }

    @Test func densifyingAPathAcrossThePoleKeepsStepsEqual() throws {
        let a = try Coordinate(latitude: 89.99, longitude: 0)
        let b = try Coordinate(latitude: 89.99, longitude: 180)
        let total = a.distance(to: b)
        var previous = a
        for i in 1...10 {
            let p = a.interpolated(to: b, fraction: Double(i) / 10)
            #expect(isApproximatelyEqual(previous.distance(to: p), total / 10, absolute: 1e-6))
            previous = p
        }
    }
}
