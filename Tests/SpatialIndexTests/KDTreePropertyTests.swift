import Geodesy
import RotateTestSupport
import SpatialIndex
import Testing

/// The index against brute force on seeded data sets: same indices, same order, same distances.
@Suite struct KDTreePropertyTests {
    static let queryCount = 2_000

    static let sets: [@Sendable (UInt64) -> PointSet] = [
        { PointSet.uniformGlobe(3_000, seed: $0) },
        { PointSet.clusteredCities(4_000, seed: $0) },
        { PointSet.denseSquareKilometer(10_000, seed: $0) },
        { PointSet.dateLineStrip(3_000, seed: $0) },
        { PointSet.polarCap(3_000, seed: $0) },
    ]

    @Test(arguments: 0..<sets.count, RadiusMix.allCases)
    func nearestMatchesBruteForce(setIndex: Int, radii mix: RadiusMix) {
        let seed = TestSeed.value(salt: UInt64(100 + setIndex))
        let set = Self.sets[setIndex](seed)
        let radii = mix.radii(count: set.coordinates.count, seed: seed ^ 1)
        let tree = KDTree(coordinates: set.coordinates, radiiMeters: radii)
        tree._checkInvariants()
        let brute = BruteForceIndex(coordinates: set.coordinates, radiiMeters: radii)
        let sigma = setIndex == 2 ? 300.0 : 2_000.0
        var buffer = NeighborBuffer()
        var failures = 0
        for (i, q) in set.queries(Self.queryCount, sigmaMeters: sigma, seed: seed ^ 2).enumerated() {
            let v = UnitVector(q)
            for target in [DistanceTarget.center, .edge] {
                let expected = brute.nearest(100, to: v, measuredTo: target)
                for k in [1, 17, 18, 100] {
                    tree.nearest(k, to: v, measuredTo: target, into: &buffer)
                    if buffer.neighbors != Array(expected.prefix(k)) {
                        failures += 1
                        if failures <= 3 {
                            Issue.record(
                                "\(set) \(mix) radii, query \(i) at \(q), k \(k) by \(target): tree \(buffer.neighbors.prefix(5)) brute \(expected.prefix(5)); \(TestSeed.replay(seed))"
                            )
                        }
                    }
                }
            }
        }
        #expect(failures == 0)
    }

    @Test(arguments: [0, 1, 2, 3, 4])
    func withinMatchesBruteForce(setIndex: Int) {
        let seed = TestSeed.value(salt: UInt64(200 + setIndex))
        let set = Self.sets[setIndex](seed)
        let radii = RadiusMix.mixed.radii(count: set.coordinates.count, seed: seed ^ 1)
        let tree = KDTree(coordinates: set.coordinates, radiiMeters: radii, leafSize: 8)
        tree._checkInvariants()
        let brute = BruteForceIndex(coordinates: set.coordinates, radiiMeters: radii)
        var buffer = NeighborBuffer()
        var rng = SplitMix64(seed: seed ^ 5)
        let weights = set.coordinates.map { _ in 1 + rng.nextInt(below: 5) }
        let reaches = setIndex == 2 ? [-100.0, 5, 50, 200] : [-100.0, 500, 5_000, 50_000]
        for (i, q) in set.queries(200, sigmaMeters: 1_000, seed: seed ^ 3).enumerated() {
            let v = UnitVector(q)
            for reach in reaches {
                for target in [DistanceTarget.center, .edge] {
                    tree.within(reach, of: v, measuredTo: target, into: &buffer)
                    let expected = brute.within(reach, of: v, measuredTo: target)
                    #expect(buffer.neighbors == expected, "\(set) query \(i), within \(reach) by \(target); \(TestSeed.replay(seed))")
                    #expect(
                        tree.count(within: reach, of: v, measuredTo: target, using: &buffer) == expected.count,
                        "\(set) query \(i), count within \(reach) by \(target); \(TestSeed.replay(seed))")
                    #expect(
                        tree.count(within: reach, of: v, measuredTo: target, weights: weights, using: &buffer)
                            == expected.reduce(0) { $0 + weights[$1.index] },
                        "\(set) query \(i), weighted count within \(reach) by \(target); \(TestSeed.replay(seed))")
                }
            }
        }
    }

    /// The k nearest within a reach: the brute-force ranking cut at the reach, then its first k.
    /// Reaches at the k-th distance itself (the planner's case: it knows k places within), just
    /// below it, and far beyond; by center and by edge, one radius and mixed radii.
    @Test(arguments: [0, 2, 4], RadiusMix.allCases)
    func nearestWithinReachMatchesBruteForce(setIndex: Int, radii mix: RadiusMix) {
        let seed = TestSeed.value(salt: UInt64(250 + setIndex))
        let set = Self.sets[setIndex](seed)
        let radii = mix.radii(count: set.coordinates.count, seed: seed ^ 1)
        let tree = KDTree(coordinates: set.coordinates, radiiMeters: radii)
        let brute = BruteForceIndex(coordinates: set.coordinates, radiiMeters: radii)
        var buffer = NeighborBuffer()
        for (i, q) in set.queries(150, sigmaMeters: 1_000, seed: seed ^ 4).enumerated() {
            let v = UnitVector(q)
            for target in [DistanceTarget.center, .edge] {
                let ranking = brute.nearest(60, to: v, measuredTo: target)
                for k in [1, 18, 37] {
                    let kth = ranking[k - 1].distanceMeters
                    for reach in [kth, kth.nextDown, kth - 50, kth + 2_000, -Double.infinity, .infinity] {
                        tree.nearest(k, to: v, measuredTo: target, within: reach, into: &buffer)
                        let expected = Array(ranking.filter { $0.distanceMeters <= reach }.prefix(k))
                        #expect(
                            buffer.neighbors == expected,
                            "\(set) \(mix) query \(i), k \(k) within \(reach) by \(target); \(TestSeed.replay(seed))")
                    }
                }
            }
        }
    }

    @Test func smallLeavesAndDeepTreesAgree() {
        let seed = TestSeed.value(salt: 300)
        let set = PointSet.clusteredCities(2_000, seed: seed)
        let radii = RadiusMix.mixed.radii(count: 2_000, seed: seed)
        let brute = BruteForceIndex(coordinates: set.coordinates, radiiMeters: radii)
        for leafSize in [1, 3, 7] {
            let tree = KDTree(coordinates: set.coordinates, radiiMeters: radii, leafSize: leafSize)
            tree._checkInvariants()
            var buffer = NeighborBuffer()
            for q in set.queries(150, sigmaMeters: 3_000, seed: seed ^ UInt64(leafSize)) {
                for target in [DistanceTarget.center, .edge] {
                    tree.nearest(18, to: UnitVector(q), measuredTo: target, into: &buffer)
                    #expect(
                        buffer.neighbors == brute.nearest(18, to: UnitVector(q), measuredTo: target),
                        "leaf \(leafSize); \(TestSeed.replay(seed))")
                }
            }
        }
    }

    @Test func equalRadiiRankByEdgeExactlyAsByCenter() {
        let seed = TestSeed.value(salt: 400)
        let set = PointSet.denseSquareKilometer(3_000, seed: seed)
        let tree = KDTree(coordinates: set.coordinates, radiiMeters: Array(repeating: 75, count: 3_000))
        for q in set.queries(300, sigmaMeters: 200, seed: seed) {
            let byEdge = tree.nearest(18, to: q, measuredTo: .edge)
            let byCenter = tree.nearest(18, to: q, measuredTo: .center)
            #expect(byEdge.map(\.index) == byCenter.map(\.index))
            for (e, c) in zip(byEdge, byCenter) {
                #expect(isApproximatelyEqual(e.distanceMeters, c.distanceMeters - 75, absolute: 1e-9))
            }
        }
    }
}
