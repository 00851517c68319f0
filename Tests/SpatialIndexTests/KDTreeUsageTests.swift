import Foundation
import Geodesy
import RotateTestSupport
import SpatialIndex
import Testing

@Suite struct KDTreeUsageTests {
    @Test func queriesReuseTheBufferWithoutReallocating() {
        let set = PointSet.clusteredCities(20_000, seed: 11)
        let tree = KDTree(coordinates: set.coordinates, radiiMeters: RadiusMix.mixed.radii(count: 20_000, seed: 12))
        var buffer = NeighborBuffer(capacity: 18)
        let queries = set.queries(2_000, sigmaMeters: 1_000, seed: 13).map(UnitVector.init)
        // Warm-up: let the buffer reach its working size.
        tree.nearest(18, to: queries[0], measuredTo: .edge, into: &buffer)
        tree.nearest(18, to: queries[0], measuredTo: .center, into: &buffer)
        let storage = buffer.storageAddresses
        for q in queries {
            tree.nearest(18, to: q, measuredTo: .edge, into: &buffer)
            #expect(buffer.neighbors.count == 18)
            tree.nearest(18, to: q, measuredTo: .center, into: &buffer)
        }
        #expect(buffer.storageAddresses == storage, "a query reallocated the buffer")
    }

    @Test func buildIsDeterministic() {
        let set = PointSet.clusteredCities(5_000, seed: 14)
        let radii = RadiusMix.mixed.radii(count: 5_000, seed: 15)
        let a = KDTree(coordinates: set.coordinates, radiiMeters: radii)
        let b = KDTree(coordinates: set.coordinates, radiiMeters: radii)
        #expect((0..<a.count).map(a.originalIndex(atLeafPosition:)) == (0..<b.count).map(b.originalIndex(atLeafPosition:)))
        #expect(a.nodeCount == b.nodeCount)
    }

    @Test func memoryStaysUnder40BytesPerPlace() {
        let set = PointSet.uniformGlobe(50_000, seed: 16)
        let tree = KDTree(coordinates: set.coordinates, radiiMeters: RadiusMix.equal.radii(count: 50_000, seed: 0))
        #expect(Double(tree.memoryBytes) / 50_000 <= 40, "\(tree.memoryBytes) bytes")
    }

    @Test func oneSharedIndexServesManyTasksAtOnce() async {
        let set = PointSet.clusteredCities(20_000, seed: 17)
        let radii = RadiusMix.mixed.radii(count: 20_000, seed: 18)
        let tree = KDTree(coordinates: set.coordinates, radiiMeters: radii)
        let queries = set.queries(400, sigmaMeters: 2_000, seed: 19).map(UnitVector.init)
        var serial: [[Neighbor]] = []
        var buffer = NeighborBuffer()
        for q in queries {
            tree.nearest(18, to: q, measuredTo: .edge, into: &buffer)
            serial.append(buffer.neighbors)
        }
        let parallel = await withTaskGroup(of: (Int, [[Neighbor]]).self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var buffer = NeighborBuffer()
                    var answers: [[Neighbor]] = []
                    for q in queries {
                        tree.nearest(18, to: q, measuredTo: .edge, into: &buffer)
                        answers.append(buffer.neighbors)
                    }
                    return (worker, answers)
                }
            }
            var all: [[[Neighbor]]] = Array(repeating: [], count: 8)
            for await (worker, answers) in group { all[worker] = answers }
            return all
        }
        for answers in parallel { #expect(answers == serial) }
    }
}

@Suite struct BruteForceIndexTests {
    @Test func selectionAndFullSortAgree() {
        let set = PointSet.clusteredCities(400, seed: 21)
        let brute = BruteForceIndex(coordinates: set.coordinates, radiiMeters: RadiusMix.mixed.radii(count: 400, seed: 22))
        for q in set.queries(40, sigmaMeters: 5_000, seed: 23).map(UnitVector.init) {
            for target in [DistanceTarget.center, .edge] {
                for k in [0, 1, 18, 400, 401] {
                    #expect(brute.nearest(k, to: q, measuredTo: target) == brute.nearestSortingAll(k, to: q, measuredTo: target))
                }
            }
        }
    }

    @Test func resultsAreSortedAndDistancesMatchGeodesy() {
        let set = PointSet.uniformGlobe(500, seed: 24)
        let radii = RadiusMix.mixed.radii(count: 500, seed: 25)
        let brute = BruteForceIndex(coordinates: set.coordinates, radiiMeters: radii)
        let q = Coordinate(validLatitude: 10, longitude: -170)
        let byCenter = brute.nearest(500, to: UnitVector(q), measuredTo: .center)
        let byEdge = brute.nearest(500, to: UnitVector(q), measuredTo: .edge)
        #expect(zip(byCenter, byCenter.dropFirst()).allSatisfy { $0.distanceMeters <= $1.distanceMeters })
        #expect(zip(byEdge, byEdge.dropFirst()).allSatisfy { $0.distanceMeters <= $1.distanceMeters })
        for n in byCenter {
            #expect(isApproximatelyEqual(n.distanceMeters, q.distance(to: set.coordinates[n.index]), absolute: 1e-6))
        }
        for n in byEdge {
            #expect(isApproximatelyEqual(n.distanceMeters, q.distance(to: set.coordinates[n.index]) - radii[n.index], absolute: 1e-6))
        }
    }
}

@Suite struct PruningTests {
    /// `count` clustered places with 100 m fences, indexed, and the set (for queries near them).
    static func clusteredTree(count: Int, seed: UInt64) -> (KDTree, PointSet) {
        var rng = SplitMix64(seed: seed)
        let points = SyntheticCoordinates.clustered(count: count, using: &rng)
        return (
            KDTree(coordinates: points, radiiMeters: Array(repeating: 100, count: count)),
            PointSet(name: "clustered \(count)", coordinates: points)
        )
    }

    /// A million clustered places: an 18-nearest query evaluates a few hundred distances, not
    /// millions (counted, not timed).
    @Test func aQueryAtAMillionPlacesEvaluatesFewDistances() {
        let (tree, set) = Self.clusteredTree(count: 1_000_000, seed: 31)
        var buffer = NeighborBuffer()
        var worst = 0, total = 0
        let queries = set.queries(200, sigmaMeters: 500, seed: 32)
        for q in queries {
            for target in [DistanceTarget.center, .edge] {
                let counts = tree.nearestCounting(18, to: UnitVector(q), measuredTo: target, into: &buffer)
                #expect(buffer.neighbors.count == 18)
                worst = max(worst, counts.pointsEvaluated)
                total += counts.pointsEvaluated
            }
        }
        #expect(Double(total) / Double(2 * queries.count) < 300, "mean \(Double(total) / Double(2 * queries.count))")
        #expect(worst < 3_000, "worst \(worst)")
    }

    /// A reach known in advance (the k-th distance, as a warm planner knows it from places that
    /// were nearest a moment ago) prunes from the root: never more nodes than the plain search,
    /// and fewer over many queries. The same answer (the property tests compare with brute force).
    @Test func aKnownReachVisitsFewerNodes() {
        let (tree, set) = Self.clusteredTree(count: 100_000, seed: 33)
        var buffer = NeighborBuffer()
        var plainNodes = 0, boundedNodes = 0
        for q in set.queries(300, sigmaMeters: 500, seed: 34) {
            let v = UnitVector(q)
            let plain = tree.nearestCounting(37, to: v, measuredTo: .edge, into: &buffer).nodesVisited
            let expected = buffer.neighbors
            let bounded = tree.nearestCounting(37, to: v, measuredTo: .edge, within: expected[36].distanceMeters, into: &buffer)
                .nodesVisited
            #expect(buffer.neighbors == expected)
            #expect(bounded <= plain)
            plainNodes += plain
            boundedNodes += bounded
        }
        #expect(boundedNodes < plainNodes, "bounded \(boundedNodes) nodes, plain \(plainNodes)")
    }

    /// Fences too small to reach the k-th edge are not evaluated: a town of 5 km fences with as
    /// many 20 m fences mixed in (which can never rank among 5 km fences around the user) costs
    /// about what the 5 km fences alone cost, not twice, and answers exactly like brute force.
    @Test func fencesTooSmallToReachAreNotEvaluated() {
        var rng = SplitMix64(seed: 33)
        let center = Coordinate(validLatitude: 48.2, longitude: 16.37)
        let big = (0..<3_000).map { _ in SyntheticCoordinates.uniformInSquare(around: center, sideMeters: 12_000, using: &rng) }
        let small = (0..<3_000).map { _ in SyntheticCoordinates.uniformInSquare(around: center, sideMeters: 12_000, using: &rng) }
        let bigOnly = KDTree(coordinates: big, radiiMeters: Array(repeating: 5_000, count: big.count))
        let radii = Array(repeating: 5_000.0, count: big.count) + Array(repeating: 20.0, count: small.count)
        let both = KDTree(coordinates: big + small, radiiMeters: radii)
        let brute = BruteForceIndex(coordinates: big + small, radiiMeters: radii)
        var buffer = NeighborBuffer()
        var bigOnlyPoints = 0, bothPoints = 0
        for _ in 0..<200 {
            let q = SyntheticCoordinates.uniformInSquare(around: center, sideMeters: 6_000, using: &rng)
            bigOnlyPoints += bigOnly.nearestCounting(18, to: UnitVector(q), measuredTo: .edge, into: &buffer).pointsEvaluated
            bothPoints += both.nearestCounting(18, to: UnitVector(q), measuredTo: .edge, into: &buffer).pointsEvaluated
            #expect(buffer.neighbors == brute.nearest(18, to: UnitVector(q), measuredTo: .edge))
        }
        #expect(Double(bothPoints) < 1.3 * Double(bigOnlyPoints), "with small fences \(bothPoints), 5 km fences alone \(bigOnlyPoints)")
    }

    /// Where radii spread wider than the places (a dense town with fences of 20 m to 5 km), nodes
    /// split by radius too, so an edge search skips the small fences' subtrees whole: it visits
    /// under twice the nodes it visits over the same places with one radius (1.70× here; 3.0×
    /// without radius splits).
    @Test func radiusSplitsKeepMixedRadiiSearchesNarrow() {
        var rng = SplitMix64(seed: 34)
        let center = Coordinate(validLatitude: -33.9, longitude: 18.4)
        let places = (0..<40_000).map { _ in SyntheticCoordinates.uniformInSquare(around: center, sideMeters: 20_000, using: &rng) }
        let radii = places.map { _ in rng.nextDouble(in: 20..<5_000) }
        let mixed = KDTree(coordinates: places, radiiMeters: radii)
        let equal = KDTree(coordinates: places, radiiMeters: Array(repeating: 100, count: places.count))
        let brute = BruteForceIndex(coordinates: places, radiiMeters: radii)
        var buffer = NeighborBuffer()
        var mixedNodes = 0, equalNodes = 0
        for _ in 0..<200 {
            let q = UnitVector(SyntheticCoordinates.uniformInSquare(around: center, sideMeters: 10_000, using: &rng))
            mixedNodes += mixed.nearestCounting(18, to: q, measuredTo: .edge, into: &buffer).nodesVisited
            #expect(buffer.neighbors == brute.nearest(18, to: q, measuredTo: .edge))
            equalNodes += equal.nearestCounting(18, to: q, measuredTo: .edge, into: &buffer).nodesVisited
        }
        #expect(Double(mixedNodes) < 2.2 * Double(equalNodes), "mixed radii \(mixedNodes) nodes, one radius \(equalNodes)")
        #expect(Double(mixed.memoryBytes) / Double(places.count) <= 40, "\(mixed.memoryBytes) bytes")
    }

    /// Radius splits are not at the median, so a tree can have more nodes than a median build:
    /// the index still keeps no spare node storage (40 bytes per place at most).
    @Test func radiusSplitsKeepMemoryUnder40BytesPerPlace() {
        let set = PointSet.clusteredCities(60_000, seed: 35)
        var rng = SplitMix64(seed: 36)
        let radii = set.coordinates.map { _ in rng.nextDouble(in: 20..<5_000) }
        let mixed = KDTree(coordinates: set.coordinates, radiiMeters: radii)
        let equal = KDTree(coordinates: set.coordinates, radiiMeters: Array(repeating: 100, count: radii.count))
        #expect(mixed.nodeCount > equal.nodeCount)
        #expect(Double(mixed.memoryBytes) / Double(radii.count) <= 40, "\(mixed.memoryBytes) bytes")
    }
}

@Suite struct WarmStartTests {
    /// Seeded queries along a walk return exactly the cold answer, ranking fewer places (seeding
    /// tightens the k-th key from the start, so fewer places pass the reach test).
    @Test(arguments: RadiusMix.allCases)
    func seededQueriesEqualColdOnesAlongAWalk(mix: RadiusMix) {
        let seed = TestSeed.value(salt: 1_400)
        let set = PointSet.clusteredCities(20_000, seed: seed)
        let radii = mix.radii(count: set.coordinates.count, seed: seed ^ 1)
        let tree = KDTree(coordinates: set.coordinates, radiiMeters: radii)
        let vectors = set.coordinates.map(UnitVector.init)
        var rng = SplitMix64(seed: seed ^ 2)
        var position = set.coordinates[rng.nextInt(below: set.coordinates.count)]
        var cold = NeighborBuffer(), warm = NeighborBuffer()
        var previous: [Neighbor] = []
        var coldKeys = 0, warmKeys = 0
        for step in 0..<400 {
            position = position.destination(bearingDegrees: 45 + 20 * sin(Double(step) / 10), distanceMeters: step % 50 == 0 ? 3_000 : 15)
            for target in [DistanceTarget.edge, .center] {
                let seeds = previous.map { NeighborSeed(index: $0.index, vector: vectors[$0.index], radiusMeters: radii[$0.index]) }
                coldKeys += tree.nearestCounting(18, to: UnitVector(position), measuredTo: target, into: &cold).keysComputed
                warmKeys +=
                    tree.nearestCounting(18, to: UnitVector(position), measuredTo: target, seededWith: seeds, into: &warm).keysComputed
                #expect(warm.neighbors == cold.neighbors, "step \(step) \(target); \(TestSeed.replay(seed))")
                if target == .edge { previous = cold.neighbors }
            }
        }
        #expect(warmKeys < coldKeys, "warm \(warmKeys), cold \(coldKeys)")
    }
}

@Suite struct TraversalOrderTests {
    /// Depth first, nearest child first, the search opens few more nodes than a best-first search
    /// (nodes in the order of their bounds, which opens only nodes whose bound is within the final
    /// k-th key) would: within 15 % by center, by edge with one radius and with radii of 20 m to
    /// 5 km (2–4 % here). Visiting the farthest child first opens 45 to 69 times as many (checked).
    @Test(arguments: [RadiusMix.equal, .mixed])
    func depthFirstOpensFewMoreNodesThanBestFirst(mix: RadiusMix) {
        let seed = TestSeed.value(salt: 1_500)
        let set = PointSet.clusteredCities(50_000, seed: seed)
        let radii = mix.radii(count: set.coordinates.count, seed: seed ^ 1)
        let tree = KDTree(coordinates: set.coordinates, radiiMeters: radii)
        var buffer = NeighborBuffer()
        for target in [DistanceTarget.center, .edge] {
            var visited = 0, bestFirst = 0
            for q in set.queries(400, sigmaMeters: 500, seed: seed ^ 2) {
                let v = UnitVector(q)
                visited += tree.nearestCounting(18, to: v, measuredTo: target, into: &buffer).nodesVisited
                bestFirst += tree.nodesBounded(by: buffer.neighbors[17].distanceMeters, from: v, measuredTo: target)
            }
            #expect(
                Double(visited) <= 1.15 * Double(bestFirst),
                "\(mix) \(target): \(visited) nodes, best first \(bestFirst); \(TestSeed.replay(seed))")
        }
    }
}
