import Geodesy
import RotateFormats
import RotateTestSupport
import SpatialIndex
import Testing

@Suite struct RealDataIndexTests {
    /// The k-d tree against brute force on the GeoNames cities1000 set (200 of 2,000 seeded queries in
    /// debug; the release `rotate bench --places Datasets/cities1000.csv` in CI checks more).
    @Test func citiesMatchBruteForce() throws {
        let cities = try PlacesCSV.read(path: DatasetPaths.path("cities1000.csv")).places
        let coordinates = cities.map(\.coordinate)
        var radii = cities.map(\.radiusMeters)
        let tree = KDTree(coordinates: coordinates, radiiMeters: radii)
        let brute = BruteForceIndex(coordinates: coordinates, radiiMeters: radii)
        let set = PointSet(name: "cities1000", coordinates: coordinates)
        let seed = TestSeed.value(salt: 800)
        var buffer = NeighborBuffer()
        for (i, q) in set.queries(2_000, sigmaMeters: 3_000, seed: seed).enumerated() where i % 10 == 0 {
            let v = UnitVector(q)
            let expected = brute.nearest(18, to: v, measuredTo: .edge)
            tree.nearest(18, to: v, measuredTo: .edge, into: &buffer)
            #expect(buffer.neighbors == expected, "query \(i); \(TestSeed.replay(seed))")
        }
        // Mixed radii on the same points.
        var rng = SplitMix64(seed: seed)
        radii = radii.map { _ in rng.nextDouble(in: 20..<5_000) }
        let mixed = KDTree(coordinates: coordinates, radiiMeters: radii)
        let mixedBrute = BruteForceIndex(coordinates: coordinates, radiiMeters: radii)
        for q in set.queries(40, sigmaMeters: 3_000, seed: seed ^ 1) {
            mixed.nearest(17, to: UnitVector(q), measuredTo: .edge, into: &buffer)
            #expect(buffer.neighbors == mixedBrute.nearest(17, to: UnitVector(q), measuredTo: .edge))
        }
    }
}
