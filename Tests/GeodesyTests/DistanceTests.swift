import Geodesy
import RotateTestSupport
import Testing

@Suite struct DistanceTests {
    let r = Earth.meanRadiusMeters

    @Test func meanRadiusIsTheIUGGValue() {
        #expect(Earth.meanRadiusMeters == 6_371_008.8)
        #expect(Earth.halfCircumferenceMeters == Double.pi * 6_371_008.8)
    }

    @Test func acrossTheDateLineIs222Meters() throws {
        let a = try Coordinate(latitude: 0, longitude: 179.999)
        let b = try Coordinate(latitude: 0, longitude: -179.999)
        // 0.002° of the equator: R · 0.002 · π/180 = 222.390 m.
        #expect(abs(a.distance(to: b) - 222.39) <= 0.5)
        #expect(isApproximatelyEqual(a.distance(to: b), r * 0.002 * .pi / 180, relative: 1e-9))
    }

    @Test func poleToPoleIsHalfTheCircumference() throws {
        let north = try Coordinate(latitude: 90, longitude: 0)
        let south = try Coordinate(latitude: -90, longitude: 123)
        #expect(isApproximatelyEqual(north.distance(to: south), .pi * r, relative: 1e-15))
    }

    @Test(arguments: [(0.0, 0.0), (90.0, 0.0), (-90.0, 45.0), (12.3456789, 180.0), (-33.9, -70.6)])
    func aPointIsExactlyZeroFromItself(latitude: Double, longitude: Double) throws {
        let c = try Coordinate(latitude: latitude, longitude: longitude)
        #expect(c.distance(to: c) == 0)
    }

    /// Analytic references: along a meridian the distance is R·Δφ; along the equator R·Δλ.
    @Test(arguments: [1e-9, 1e-6, 0.001, 1.0, 45.0, 90.0, 179.0, 179.999999])
    func meridianAndEquatorArcsMatchRTimesAngle(degrees: Double) throws {
        let expected = r * degrees * .pi / 180
        let onEquator = try Coordinate(latitude: 0, longitude: 0).distance(to: Coordinate(latitude: 0, longitude: degrees))
        #expect(isApproximatelyEqual(onEquator, expected, absolute: 1e-9, relative: 1e-12))
        if degrees <= 90 {
            let alongMeridian = try Coordinate(latitude: 0, longitude: 30).distance(to: Coordinate(latitude: degrees, longitude: 30))
            #expect(isApproximatelyEqual(alongMeridian, expected, absolute: 1e-9, relative: 1e-12))
        }
    }

    @Test func subMeterDistancesKeepTheirPrecision() throws {
        let start = try Coordinate(latitude: 45.8150, longitude: 15.9819)
        for meters in [0.001, 0.01, 0.5, 0.99] {
            let end = start.destination(bearingDegrees: 37, distanceMeters: meters)
            #expect(isApproximatelyEqual(start.distance(to: end), meters, absolute: 1e-6), "\(meters) m")
        }
    }

    @Test func antipodesAreHalfTheCircumferenceApart() throws {
        for (lat, lon) in [(0.0, 0.0), (10.0, 20.0), (-45.0, 179.5), (89.9, -3.0)] {
            let a = try Coordinate(latitude: lat, longitude: lon)
            let b = try Coordinate(latitude: -lat, longitude: lon > 0 ? lon - 180 : lon + 180)
            #expect(isApproximatelyEqual(a.distance(to: b), .pi * r, absolute: 1e-6), "\(a)")
        }
        // One meter short of the antipode is still resolved.
        let a = try Coordinate(latitude: 10, longitude: 20)
        let nearAntipode = a.destination(bearingDegrees: 0, distanceMeters: .pi * r - 1)
        #expect(isApproximatelyEqual(a.distance(to: nearAntipode), .pi * r - 1, absolute: 1e-6))
    }

    @Test func distanceIsSymmetricAndObeysTheTriangleInequality() {
        let seed = TestSeed.value(salt: 1)
        var rng = SplitMix64(seed: seed)
        for _ in 0..<2_000 {
            let a = SyntheticCoordinates.uniformOnSphere(using: &rng)
            let b = SyntheticCoordinates.uniformOnSphere(using: &rng)
            let c = SyntheticCoordinates.uniformOnSphere(using: &rng)
            #expect(a.distance(to: b) == b.distance(to: a), "\(TestSeed.replay(seed))")
            #expect(a.distance(to: c) <= a.distance(to: b) + b.distance(to: c) + 1e-6, "\(TestSeed.replay(seed))")
            #expect((0...(.pi * r)).contains(a.distance(to: b)))
        }
    }
}
