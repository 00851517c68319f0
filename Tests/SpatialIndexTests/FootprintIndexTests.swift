import Geodesy
import Testing

@testable import SpatialIndex

/// The exact k nearest by fence edge over circles and polygon footprints mixed, against ranking
/// every place by its exact edge distance.
struct FootprintIndexTests {
    static func shapes(count: Int, seed: UInt64) throws -> [FootprintIndex.Shape] {
        var rng = SplitMix64(seed: seed)
        let origin = try Coordinate(latitude: 48.85, longitude: 2.35)
        return try (0..<count).map { _ in
            let center = origin.destination(
                bearingDegrees: rng.nextDouble(in: 0..<360), distanceMeters: 2_000 * rng.nextUnit().squareRoot())
            if rng.next() % 2 == 0 { return .circle(center: UnitVector(center), radiusMeters: rng.nextDouble(in: 5..<80)) }
            // A star of 4–64 vertices, 5–80 m from its center, some long and thin.
            let vertices = Int(rng.next() % 61) + 4
            let stretch = rng.nextDouble(in: 0.2..<1)
            var ring = (0..<vertices).map { i -> Coordinate in
                let bearing = -360 * (Double(i) + rng.nextDouble(in: 0..<0.8)) / Double(vertices)
                let radius = rng.nextDouble(in: 5..<80) * (i % 2 == 0 ? 1 : stretch)
                return center.destination(bearingDegrees: bearing, distanceMeters: radius)
            }
            ring.append(ring[0])
            return .footprint(SphericalMultiPolygon(try SphericalPolygon(shell: ring)))
        }
    }

    @Test(arguments: [1, 5, 18, 40])
    func nearestByExactEdgeEqualsBruteForce(k: Int) throws {
        let shapes = try Self.shapes(count: 600, seed: UInt64(k))
        let index = FootprintIndex(shapes, leafSize: 8)
        var rng = SplitMix64(seed: 99)
        var buffer = NeighborBuffer()
        var results: [Neighbor] = []
        let origin = try Coordinate(latitude: 48.85, longitude: 2.35)
        for _ in 0..<150 {
            let query = UnitVector(
                origin.destination(bearingDegrees: rng.nextDouble(in: 0..<360), distanceMeters: rng.nextDouble(in: 0..<2_500)))
            index.nearest(k, to: query, into: &buffer, results: &results)
            let brute = shapes.enumerated().map { i, shape -> (Double, Int) in
                switch shape {
                case .circle(let center, let radius): (Earth.meanRadiusMeters * query.angleRadians(to: center) - radius, i)
                case .footprint(let footprint): (footprint.signedDistanceMeters(to: query), i)
                }
            }.sorted { $0 < $1 }.prefix(k)
            #expect(results.map(\.index) == brute.map(\.1))
            for (got, want) in zip(results, brute) { #expect(abs(got.distanceMeters - want.0) < 1e-6) }
        }
    }

    /// Footprints whose hulls the walk goes around: stars (concave, with bridges over pockets),
    /// long thin bars, squares with courtyards, two-part footprints, and one around each pole.
    static func walkedFootprints(seed: UInt64) throws -> [SphericalMultiPolygon] {
        var rng = SplitMix64(seed: seed)
        func star(_ center: Coordinate, vertices: Int, radii: Range<Double>, stretch: Double) throws -> SphericalPolygon {
            var ring = (0..<vertices).map { i -> Coordinate in
                let bearing = -360 * (Double(i) + rng.nextDouble(in: 0..<0.8)) / Double(vertices)
                return center.destination(bearingDegrees: bearing, distanceMeters: rng.nextDouble(in: radii) * (i % 2 == 0 ? 1 : stretch))
            }
            ring.append(ring[0])
            return try SphericalPolygon(shell: ring)
        }
        func square(_ center: Coordinate, _ half: Double) -> [Coordinate] {
            [45.0, 135, 225, 315, 45].map { center.destination(bearingDegrees: $0, distanceMeters: half * 2.0.squareRoot()) }
        }
        var footprints: [SphericalMultiPolygon] = []
        for _ in 0..<60 {
            let center = try Coordinate(latitude: rng.nextDouble(in: -70..<70), longitude: rng.nextDouble(in: -180..<180))
            footprints.append(
                SphericalMultiPolygon(
                    try star(center, vertices: Int(rng.next() % 61) + 4, radii: 5..<80, stretch: rng.nextDouble(in: 0.2..<1))))
        }
        for _ in 0..<10 {
            let center = try Coordinate(latitude: rng.nextDouble(in: -60..<60), longitude: rng.nextDouble(in: -180..<180))
            let heading = rng.nextDouble(in: 0..<180)
            let bar = [heading + 2, heading + 178, heading + 182, heading + 358, heading + 2].map {
                center.destination(bearingDegrees: $0, distanceMeters: 150)
            }
            footprints.append(SphericalMultiPolygon(try SphericalPolygon(shell: bar)))
            footprints.append(SphericalMultiPolygon(try SphericalPolygon(shell: square(center, 40), holes: [square(center, 15)])))
            let other = center.destination(bearingDegrees: rng.nextDouble(in: 0..<360), distanceMeters: 200)
            footprints.append(
                try SphericalMultiPolygon(parts: [
                    try star(center, vertices: 12, radii: 20..<60, stretch: 0.5), try star(other, vertices: 7, radii: 10..<50, stretch: 1),
                ]))
        }
        for pole in [90.0, -90] {
            footprints.append(
                SphericalMultiPolygon(try star(try Coordinate(latitude: pole, longitude: 0), vertices: 9, radii: 20..<60, stretch: 0.6)))
        }
        return footprints
    }

    /// From outside a footprint's cap, near and far, the hull walk gives every edge's answer: its
    /// distance where it vouches for one (and it does for most queries well outside), and the
    /// index's answer equals the footprint's own distance wherever the query is.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func walkFromOutsideEqualsEveryEdge(seed: UInt64) throws {
        let footprints = try Self.walkedFootprints(seed: seed)
        let index = FootprintIndex(footprints.map { .footprint($0) })
        var rng = SplitMix64(seed: seed &+ 100)
        var walked = 0, farQueries = 0, farWalked = 0
        for (place, footprint) in footprints.enumerated() {
            let center = Coordinate(footprint.cap.center)
            for reach in [0.5, 0.999, 1.001, 1.05, 1.2, 2, 5, 40, 3_000] {
                for _ in 0..<12 {
                    let query = UnitVector(
                        center.destination(bearingDegrees: rng.nextDouble(in: 0..<360), distanceMeters: footprint.cap.radiusMeters * reach))
                    let want = footprint.signedDistanceMeters(to: query)
                    let bound = Earth.meanRadiusMeters * query.angleRadians(to: footprint.cap.center) - footprint.cap.radiusMeters
                    #expect(abs(index.edgeDistanceMeters(of: place, to: query, bound: bound) - want) <= 1e-9 * max(1, abs(want)))
                    guard reach > 1 else { continue }
                    let frame = GnomonicFrame(center: query)
                    if reach >= 2 { farQueries += 1 }
                    guard let squared = index.measureOutside(place, from: frame), let every = index.measure(place, from: frame) else {
                        continue
                    }
                    walked += 1
                    if reach >= 2 { farWalked += 1 }
                    #expect(!every.inside)
                    #expect(abs(squared.squareRoot() - every.tangent) <= 1e-12 * every.tangent, "place \(place), reach \(reach)")
                }
            }
        }
        #expect(walked > 0)
        #expect(Double(farWalked) >= 0.8 * Double(farQueries), "\(farWalked) of \(farQueries) queries from twice the cap's radius walked")
    }
}
