import Foundation
import Testing

@testable import Geodesy

/// Spherical polygons against independent brute forces: containment against the winding
/// number summed from the angles each edge subtends at the point (no projection), the distance
/// to the boundary against the nearest of many points along every edge, the enclosing cap's
/// planar circle against every circle through two or three points.
struct SphericalPolygonTests {
    /// A star-shaped ring of `count` vertices around `center`, radii in `radii` meters, at
    /// increasing bearings (counterclockwise seen from above when `clockwise` is false).
    static func star(
        around center: Coordinate, count: Int, radii: Range<Double>, clockwise: Bool = false, rng: inout SplitMix64
    ) -> [Coordinate] {
        let step = 360.0 / Double(count)
        var ring = (0..<count).map { i in
            // Bearings run clockwise from north: a ring counterclockwise seen from above takes
            // them in decreasing order.
            let bearing = (clockwise ? 1 : -1) * (Double(i) * step + rng.nextDouble(in: 0..<(step * 0.8)))
            return center.destination(bearingDegrees: bearing, distanceMeters: rng.nextDouble(in: radii))
        }
        ring.append(ring[0])
        return ring
    }

    /// The winding number of the rings about `p`: each edge's signed angle at `p`, summed, over
    /// 2π (the tangent-plane angle between the great circles from `p` to its two ends).
    static func winding(_ rings: [[UnitVector]], _ p: UnitVector) -> Int {
        var total = 0.0
        for ring in rings {
            for i in ring.indices {
                let a = ring[i]
                let b = ring[(i + 1) % ring.count]
                // Directions from p toward a and b in p's tangent plane.
                let ta = a - p.scaled(by: p.dot(a))
                let tb = b - p.scaled(by: p.dot(b))
                total += atan2(p.dot(ta.cross(tb)), ta.dot(tb))
            }
        }
        return Int((total / (2 * .pi)).rounded())
    }

    /// Random centers, near the equator, at 60° and within a kilometer of a pole and of the
    /// antimeridian.
    static func centers(_ rng: inout SplitMix64) -> [Coordinate] {
        let fixed = [
            try! Coordinate(latitude: 0.5, longitude: 10), try! Coordinate(latitude: 60, longitude: -75),
            try! Coordinate(latitude: 89.995, longitude: 30), try! Coordinate(latitude: -12, longitude: 179.999),
        ]
        return fixed
            + (0..<6).map { _ in try! Coordinate(latitude: rng.nextDouble(in: -80..<80), longitude: rng.nextDouble(in: -180..<180)) }
    }

    @Test func containmentMatchesTheWindingNumberAndDistanceTheNearestEdgePoint() throws {
        var rng = SplitMix64(seed: 42)
        for center in Self.centers(&rng) {
            for _ in 0..<8 {
                // With a hole, at least 8 shell vertices: the shell's edges then pass at least
                // 40 m · cos(81°/2) = 30 m from the center, beyond the hole's 12 m.
                let holed = rng.next() % 2 == 0
                let count = Int(rng.next() % 12) + (holed ? 8 : 3)
                let shellRing = Self.star(around: center, count: count, radii: 40..<400, clockwise: rng.next() % 2 == 0, rng: &rng)
                let holes = holed ? [Self.star(around: center, count: 5, radii: 3..<12, clockwise: rng.next() % 2 == 0, rng: &rng)] : []
                let polygon = try SphericalPolygon(shell: shellRing, holes: holes)
                let rings = [polygon.shell] + polygon.holes
                // Oriented: the shell winds +1 about a point inside it, each hole −1.
                #expect(Self.winding([polygon.shell], polygon.cap.center) == 1 || !polygon.contains(polygon.cap.center))
                for _ in 0..<200 {
                    let point = center.destination(bearingDegrees: rng.nextDouble(in: 0..<360), distanceMeters: rng.nextDouble(in: 0..<600))
                    let p = UnitVector(point)
                    let expected = Self.winding(rings, p) != 0
                    let distance = polygon.signedDistanceMeters(to: p)
                    // Brute force: 100 points along every edge.
                    var nearest = Double.infinity
                    var spacing = 0.0
                    for (a, b) in polygon.edges {
                        let angle = a.angleRadians(to: b)
                        spacing = max(spacing, angle * Earth.meanRadiusMeters / 100)
                        for k in 0...100 {
                            let t = Double(k) / 100
                            let q = (a.scaled(by: sin((1 - t) * angle)) + b.scaled(by: sin(t * angle))).normalized
                            nearest = min(nearest, p.angleRadians(to: q) * Earth.meanRadiusMeters)
                        }
                    }
                    #expect(abs(distance).isFinite)
                    #expect(abs(distance) <= nearest + 1e-6 && abs(distance) >= nearest - spacing / 2 - 1e-6, "\(distance) vs \(nearest)")
                    guard abs(distance) > 1e-3 else { continue }
                    #expect(polygon.contains(p) == expected, "\(point) in polygon around \(center)")
                    #expect((distance < 0) == expected)
                }
            }
        }
    }

    @Test func aRingWoundEitherWayIsTheSamePolygon() throws {
        var rng = SplitMix64(seed: 7)
        let center = try Coordinate(latitude: 46.05, longitude: 14.5)
        let ring = Self.star(around: center, count: 9, radii: 50..<200, rng: &rng)
        let forward = try SphericalPolygon(shell: ring)
        let backward = try SphericalPolygon(shell: ring.reversed())
        #expect(forward.shell.count == 9)
        for _ in 0..<500 {
            let p = UnitVector(center.destination(bearingDegrees: rng.nextDouble(in: 0..<360), distanceMeters: rng.nextDouble(in: 0..<300)))
            #expect(forward.contains(p) == backward.contains(p))
            #expect(abs(forward.signedDistanceMeters(to: p) - backward.signedDistanceMeters(to: p)) < 1e-9)
        }
        // The shell counterclockwise: positive winding about its center.
        #expect(Self.winding([forward.shell], UnitVector(center)) == 1)
        #expect(Self.winding([backward.shell], UnitVector(center)) == 1)
    }

    @Test func badRingsAreRefusedWithTheReason() throws {
        let o = try Coordinate(latitude: 10, longitude: 20)
        func at(_ east: Double, _ north: Double) -> Coordinate {
            o.destination(bearingDegrees: atan2(east, north) * 180 / .pi, distanceMeters: (east * east + north * north).squareRoot())
        }
        let square = [at(-50, -50), at(50, -50), at(50, 50), at(-50, 50), at(-50, -50)]
        #expect(throws: PolygonError.tooFewPositions(ring: 0, count: 2)) { try SphericalPolygon(shell: [at(0, 0), at(10, 0), at(0, 0)]) }
        #expect(throws: PolygonError.selfIntersection(ring: 0, firstEdge: 0, secondEdge: 2)) {
            try SphericalPolygon(shell: [at(-50, -50), at(50, 50), at(50, -50), at(-50, 50), at(-50, -50)])
        }
        #expect(throws: PolygonError.holeOutsideShell(ring: 1)) {
            try SphericalPolygon(shell: square, holes: [[at(100, 100), at(110, 100), at(110, 110), at(100, 100)]])
        }
        #expect(throws: PolygonError.ringsCross(ring: 1, other: 0)) {
            try SphericalPolygon(shell: square, holes: [[at(40, 0), at(60, 0), at(60, 10), at(40, 0)]])
        }
        #expect(throws: PolygonError.nestedHoles(ring: 2, other: 1)) {
            try SphericalPolygon(
                shell: square,
                holes: [[at(-30, -30), at(30, -30), at(30, 30), at(-30, 30)], [at(-10, -10), at(10, -10), at(10, 10), at(-10, 10)]])
        }
        // Three points spread over more than a hemisphere.
        #expect(throws: PolygonError.notWithinHemisphere) {
            try SphericalPolygon(shell: [
                try Coordinate(latitude: 0, longitude: 0), try Coordinate(latitude: 0, longitude: 120),
                try Coordinate(latitude: 0, longitude: -120),
            ])
        }
        // A good square with a hole: the hole's inside is outside the polygon.
        let holed = try SphericalPolygon(shell: square, holes: [[at(-10, -10), at(10, -10), at(10, 10), at(-10, 10)]])
        #expect(!holed.contains(UnitVector(at(0, 0))))
        #expect(abs(holed.signedDistanceMeters(to: UnitVector(at(0, 0))) - 10) < 0.01)
        #expect(holed.contains(UnitVector(at(30, 0))))
        #expect(abs(holed.signedDistanceMeters(to: UnitVector(at(30, 0))) + 20) < 0.01)
    }

    /// A polygon around the north pole contains it; one across the antimeridian, whole or cut
    /// into its two pieces as RFC 7946 asks, is the same shape: same containment, same distance
    /// to its edge (the cut is a seam, not boundary).
    @Test func polesAndTheAntimeridianNeedNothingSpecial() throws {
        let around = try SphericalPolygon(
            shell: (0..<8).map { try! Coordinate(latitude: 89.99, longitude: Double($0) * 45 - 180) } + [
                try Coordinate(latitude: 89.99, longitude: -180)
            ])
        #expect(around.contains(UnitVector(x: 0, y: 0, z: 1)))
        // The pole is 0.01° from each vertex; the octagon's edges pass at cos(22.5°) of that.
        let apothem = 0.01 * .pi / 180 * Earth.meanRadiusMeters * cos(.pi / 8)
        #expect(abs(-around.signedDistanceMeters(to: UnitVector(x: 0, y: 0, z: 1)) - apothem) < 0.01)

        func c(_ lat: Double, _ lon: Double) -> Coordinate { try! Coordinate(latitude: lat, longitude: lon > 180 ? lon - 360 : lon) }
        let whole = SphericalMultiPolygon(
            try SphericalPolygon(shell: [c(-0.01, 179.99), c(-0.01, -179.98), c(0.01, -179.98), c(0.01, 179.99)]))
        let east = try SphericalPolygon(shell: [c(-0.01, 179.99), c(-0.01, 180), c(0.01, 180), c(0.01, 179.99)])
        let west = try SphericalPolygon(shell: [c(-0.01, -180), c(-0.01, -179.98), c(0.01, -179.98), c(0.01, -180)])
        let cut = try SphericalMultiPolygon(parts: [east, west])
        var rng = SplitMix64(seed: 3)
        for _ in 0..<2_000 {
            let p = UnitVector(c(rng.nextDouble(in: -0.02..<0.02), 179.97 + rng.nextDouble(in: 0..<0.06)))
            let (a, b) = (whole.signedDistanceMeters(to: p), cut.signedDistanceMeters(to: p))
            guard abs(a) > 1e-3 else { continue }
            #expect(whole.contains(p) == cut.contains(p))
            // The cut's vertices on the meridian lie on the parallel, which the whole's edge
            // leaves by L² · tan φ / (8 R) = 37 µm at its middle (3.3 km at 0.01°).
            #expect(abs(a - b) < 1e-4, "\(a) vs \(b)")
        }
        // One piece alone: its edge on the meridian is boundary.
        let alone = SphericalMultiPolygon(east)
        #expect(abs(alone.signedDistanceMeters(to: UnitVector(c(0, 179.9999))) + 0.0001 * .pi / 180 * Earth.meanRadiusMeters) < 1e-3)
    }

    /// The enclosing cap contains every vertex, and its planar circle is the smallest of all
    /// circles through two or three of the points that contain them all.
    @Test func theEnclosingCircleIsTheSmallest() throws {
        var rng = SplitMix64(seed: 11)
        for _ in 0..<200 {
            let n = Int(rng.next() % 9) + 1
            let points = (0..<n).map { _ in SIMD2(rng.nextDouble(in: -1..<1), rng.nextDouble(in: -1..<1)) }
            let circle = SphericalCap.smallestEnclosingCircle(points)
            func covers(_ center: SIMD2<Double>, _ radius: Double) -> Bool {
                points.allSatisfy { (($0 - center) * ($0 - center)).sum().squareRoot() <= radius * (1 + 1e-9) + 1e-12 }
            }
            #expect(covers(circle.center, circle.radius))
            var best = n == 1 ? 0.0 : Double.infinity
            for i in 0..<n {
                for j in (i + 1)..<max(i + 1, n) {
                    let center = (points[i] + points[j]) / 2
                    let radius = ((points[i] - center) * (points[i] - center)).sum().squareRoot()
                    if covers(center, radius) { best = min(best, radius) }
                    for k in (j + 1)..<max(j + 1, n) {
                        let (a, b, c) = (points[i], points[j], points[k])
                        let d = 2 * ((b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x))
                        guard abs(d) > 1e-12 else { continue }
                        let bb = (b - a) * (b - a)
                        let cc = (c - a) * (c - a)
                        let ux = ((c.y - a.y) * bb.sum() - (b.y - a.y) * cc.sum()) / d
                        let uy = ((b.x - a.x) * cc.sum() - (c.x - a.x) * bb.sum()) / d
                        let center = SIMD2(a.x + ux, a.y + uy)
                        let radius = ((a - center) * (a - center)).sum().squareRoot()
                        if covers(center, radius) { best = min(best, radius) }
                    }
                }
            }
            #expect(abs(circle.radius - best) <= 1e-9 * max(1, best), "\(circle.radius) vs \(best)")
        }
        for center in Self.centers(&rng) {
            let ring = Self.star(around: center, count: 20, radii: 10..<3_000, rng: &rng)
            let cap = try #require(SphericalCap.enclosing(ring.map(UnitVector.init)))
            for vertex in ring { #expect(cap.center.angleRadians(to: UnitVector(vertex)) <= cap.radiusRadians * (1 + 1e-12)) }
            #expect(cap.radiusMeters <= 3_000.01)
        }
    }
}

/// The area of a spherical polygon against shapes whose area is known in closed form.
struct SphericalPolygonAreaTests {
    /// A regular polygon inscribed in a cap of angular radius θ tends to the cap's area,
    /// 2πR²(1 − cos θ), as its vertex count grows: the 4,096-gon is within 1 part in 10⁶ (the
    /// inscribed polygon's deficit is about (2π/n)²/6 of the area), from a 20 m shop to a
    /// 2,000 km region, at the equator and near a pole.
    @Test(arguments: [(20.0, 0.0), (350.0, 60.0), (40_000.0, -75.0), (2_000_000.0, 30.0)])
    func aFineRegularPolygonHasItsCapsArea(radiusMeters: Double, latitude: Double) throws {
        let center = Coordinate(validLatitude: latitude, longitude: 100)
        let n = 4_096
        let ring = (0..<n).map { i in center.destination(bearingDegrees: -360 * Double(i) / Double(n), distanceMeters: radiusMeters) }
        let polygon = try SphericalPolygon(shell: ring)
        let theta = radiusMeters / Earth.meanRadiusMeters
        // 1 − cos θ as 2 sin²(θ / 2): without the cancellation.
        let cap = 4 * Double.pi * Earth.meanRadiusMeters * Earth.meanRadiusMeters * pow(sin(theta / 2), 2)
        let deficit = pow(2 * Double.pi / Double(n), 2) / 6
        #expect(abs(polygon.areaSquareMeters / cap - (1 - deficit)) < 1e-6, "\(polygon.areaSquareMeters) vs \(cap)")
    }

    /// A rectangle with a rectangular hole: the difference of the two planar areas, to a few
    /// parts in 10⁵ (at 60 m the sphere's curvature and the meridians' convergence are smaller).
    @Test func aHoleIsTakenAway() throws {
        let corner = Coordinate(validLatitude: 60.17, longitude: 24.94)
        func rectangle(_ east: Double, _ north: Double, _ width: Double, _ height: Double) -> [Coordinate] {
            let a = corner.destination(bearingDegrees: 90, distanceMeters: east).destination(bearingDegrees: 0, distanceMeters: north)
            return [
                a, a.destination(bearingDegrees: 90, distanceMeters: width),
                a.destination(bearingDegrees: 90, distanceMeters: width).destination(bearingDegrees: 0, distanceMeters: height),
                a.destination(bearingDegrees: 0, distanceMeters: height),
            ]
        }
        let polygon = try SphericalPolygon(shell: rectangle(0, 0, 60, 40), holes: [rectangle(20, 10, 10, 20)])
        #expect(abs(polygon.areaSquareMeters - (2_400 - 200)) < 0.1)
        let both = try SphericalMultiPolygon(parts: [polygon, try SphericalPolygon(shell: rectangle(100, 0, 10, 10))])
        #expect(abs(both.areaSquareMeters - 2_300) < 0.1)
    }
}
