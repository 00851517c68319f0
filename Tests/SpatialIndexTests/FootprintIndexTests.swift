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
}
