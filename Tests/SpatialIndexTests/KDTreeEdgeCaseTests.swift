import Geodesy
import RotateTestSupport
import SpatialIndex
import Testing

/// Degenerate inputs, each compared with the brute-force reference.
@Suite struct KDTreeEdgeCaseTests {
    /// Builds both indexes and checks every query kind for `queries` at several k and reaches.
    func expectAgreement(
        _ points: [Coordinate], radii: [Double]? = nil, queries: [Coordinate], leafSizes: [Int] = [1, 2, 32],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let brute = BruteForceIndex(coordinates: points, radiiMeters: radii)
        for leafSize in leafSizes {
            let tree = KDTree(coordinates: points, radiiMeters: radii, leafSize: leafSize)
            tree._checkInvariants()
            var buffer = NeighborBuffer()
            for q in queries {
                let v = UnitVector(q)
                for k in [0, 1, 2, 17, 18, 100, points.count, points.count + 5] {
                    for target in [DistanceTarget.center, .edge] {
                        tree.nearest(k, to: v, measuredTo: target, into: &buffer)
                        #expect(
                            buffer.neighbors == brute.nearest(k, to: v, measuredTo: target),
                            "k \(k) \(target) leaf \(leafSize) at \(q)", sourceLocation: sourceLocation)
                    }
                }
                for reach in [-50.0, 0, 1, 150, 10_000, 1e7, 3e7] {
                    for target in [DistanceTarget.center, .edge] {
                        tree.within(reach, of: v, measuredTo: target, into: &buffer)
                        #expect(
                            buffer.neighbors == brute.within(reach, of: v, measuredTo: target),
                            "within \(reach) \(target) leaf \(leafSize) at \(q)", sourceLocation: sourceLocation)
                    }
                }
            }
        }
    }

    let someQueries = [
        Coordinate(validLatitude: 0, longitude: 0), Coordinate(validLatitude: 90, longitude: 0),
        Coordinate(validLatitude: -90, longitude: 0), Coordinate(validLatitude: 12.5, longitude: 180),
        Coordinate(validLatitude: -33.9, longitude: 151.2),
    ]

    @Test func emptyIndexAnswersNothing() {
        let tree = KDTree(coordinates: [])
        #expect(tree.isEmpty)
        #expect(tree.nearest(5, to: Coordinate(validLatitude: 0, longitude: 0)).isEmpty)
        #expect(tree.within(1e9, of: Coordinate(validLatitude: 0, longitude: 0)).isEmpty)
        expectAgreement([], queries: someQueries)
    }

    @Test func singlePlace() {
        let only = [Coordinate(validLatitude: 45, longitude: 15)]
        let tree = KDTree(coordinates: only, radiiMeters: [200])
        let result = tree.nearest(3, to: Coordinate(validLatitude: 45, longitude: 15), measuredTo: .edge)
        #expect(result.map(\.index) == [0])
        #expect(result.first?.distanceMeters == -200)
        expectAgreement(only, radii: [200], queries: someQueries + only)
    }

    @Test func kZeroAndKBeyondCount() {
        let points = PointSet.uniformGlobe(40, seed: 1).coordinates
        let tree = KDTree(coordinates: points)
        #expect(tree.nearest(0, to: points[0]).isEmpty)
        #expect(tree.nearest(1_000, to: points[0]).count == 40)
        expectAgreement(points, queries: someQueries)
    }

    @Test func duplicatePointsTieByIndex() {
        var points = PointSet.clusteredCities(60, seed: 2).coordinates
        points += points.prefix(30)  // indices 60..<90 duplicate 0..<30
        let tree = KDTree(coordinates: points, leafSize: 4)
        let result = tree.nearest(2, to: points[7])
        #expect(result.map(\.index) == [7, 67])
        #expect(result.map(\.distanceMeters) == [0, 0])
        expectAgreement(points, queries: someQueries + Array(points.prefix(10)))
    }

    /// Places whose edge distances are exactly equal rank by center distance, then by index: pairs
    /// built so that `arc − radius` ties bit for bit (the farther place's radius is the arcs'
    /// difference, exact by Sterbenz's lemma), the farther one listed first by index.
    @Test func equalEdgesTieByCenterDistance() {
        let query = Coordinate(validLatitude: 51.5, longitude: -0.12)
        let q = UnitVector(query)
        var points: [Coordinate] = [], radii: [Double] = []
        for i in 0..<40 {
            let near = query.destination(bearingDegrees: 9 * Double(i), distanceMeters: 300 + 37 * Double(i))
            let far = query.destination(bearingDegrees: 200 + 7 * Double(i), distanceMeters: 500 + 41 * Double(i))
            let nearArc = GreatCircle.arcMeters(squaredChord: UnitVector(near).squaredChord(to: q))
            let farArc = GreatCircle.arcMeters(squaredChord: UnitVector(far).squaredChord(to: q))
            points += [far, near]
            radii += [farArc - nearArc, 0]
            #expect(farArc - (farArc - nearArc) == nearArc - 0, "pair \(i) does not tie")
        }
        let brute = BruteForceIndex(coordinates: points, radiiMeters: radii)
        let expected = brute.nearest(points.count, to: q, measuredTo: .edge)
        // Each tie: the nearer place (odd index) before the farther one (the even index below it).
        for pair in stride(from: 0, to: expected.count, by: 2) {
            #expect(expected[pair].distanceMeters == expected[pair + 1].distanceMeters)
            #expect(expected[pair].index == expected[pair + 1].index + 1)
        }
        expectAgreement(points, radii: radii, queries: [query], leafSizes: [1, 2, 8, 32])
    }

    /// Places whose distances differ by a micrometer: their keys are distinct as Doubles but
    /// equal once rounded to Float, which the first leaf's ranking works in; the order must still
    /// be exact (index order is the reverse of distance order, so a tie broken by index shows).
    @Test func keysEqualInFloatStillRankExactly() {
        let query = Coordinate(validLatitude: -23.55, longitude: -46.63)
        let q = UnitVector(query)
        let points = (0..<40).map { i in
            query.destination(bearingDegrees: 9 * Double(i), distanceMeters: 1_000 + 1e-6 * Double(40 - i))
        }
        var radii = Array(repeating: 0.0, count: points.count)
        radii[0] = 1  // mixed radii: the edge search proper, not the center order
        let chords = points.map { UnitVector($0).squaredChord(to: q) }
        let edges = zip(chords, radii).map { GreatCircle.arcMeters(squaredChord: $0) - $1 }
        for keys in [chords, edges] {
            let floatTies = Dictionary(grouping: keys.indices) { Float(keys[$0]) }.values.filter { group in
                Set(group.map { keys[$0] }).count > 1
            }
            #expect(!floatTies.isEmpty, "no distinct keys share a Float: the test would not reach the fallback")
        }
        expectAgreement(points, radii: radii, queries: [query], leafSizes: [32, 64])
    }

    @Test func allPointsIdentical() {
        let point = Coordinate(validLatitude: -12.25, longitude: 44.5)
        let points = Array(repeating: point, count: 100)
        let tree = KDTree(coordinates: points, leafSize: 8)
        tree._checkInvariants()
        #expect(tree.nearest(5, to: point).map(\.index) == [0, 1, 2, 3, 4])
        expectAgreement(points, queries: someQueries + [point], leafSizes: [1, 8, 32])
    }

    @Test func pointsAtBothPoles() {
        var points = [
            Coordinate(validLatitude: 90, longitude: 0), Coordinate(validLatitude: -90, longitude: 0),
            Coordinate(validLatitude: 90, longitude: 120), Coordinate(validLatitude: -90, longitude: -45),
        ]
        points += PointSet.polarCap(50, seed: 3).coordinates + PointSet.polarCap(50, south: true, seed: 4).coordinates
        let tree = KDTree(coordinates: points, leafSize: 4)
        // Both north-pole spellings are the same point, 0 m away.
        #expect(tree.nearest(2, to: Coordinate(validLatitude: 90, longitude: 77)).map(\.distanceMeters).allSatisfy { $0 < 1e-6 })
        expectAgreement(points, queries: someQueries)
    }

    @Test func pointsOnBothSidesOfTheDateLine() {
        let points =
            [
                Coordinate(validLatitude: 0, longitude: 179.9999), Coordinate(validLatitude: 0, longitude: -179.9999),
                Coordinate(validLatitude: 0, longitude: 170), Coordinate(validLatitude: 0, longitude: -170),
            ] + PointSet.dateLineStrip(100, seed: 5).coordinates
        let tree = KDTree(coordinates: points, leafSize: 4)
        // From just west of the line, the nearest two are the points either side of it.
        let result = tree.nearest(2, to: Coordinate(validLatitude: 0, longitude: 180), measuredTo: .center)
        #expect(Set(result.prefix(2).map(\.index)).isSubset(of: Set(0..<points.count)))
        #expect(result.allSatisfy { $0.distanceMeters < 100_000 })
        expectAgreement(points, queries: someQueries + Array(points.prefix(4)))
    }

    @Test func aHugeFenceFartherByCenterIsNearerByEdge() {
        // 50 small fences 1 to 2 km away, one 50 km fence whose center is 40 km away: we are inside it.
        var rng = SplitMix64(seed: 6)
        let here = Coordinate(validLatitude: 48.85, longitude: 2.35)
        var points = (0..<50).map { _ in
            here.destination(bearingDegrees: rng.nextDouble(in: 0..<360), distanceMeters: rng.nextDouble(in: 1_000..<2_000))
        }
        var radii = Array(repeating: 30.0, count: 50)
        points.append(here.destination(bearingDegrees: 10, distanceMeters: 40_000))
        radii.append(50_000)
        let tree = KDTree(coordinates: points, radiiMeters: radii)
        let byEdge = tree.nearest(3, to: here, measuredTo: .edge)
        #expect(byEdge.first?.index == 50)
        #expect((byEdge.first?.distanceMeters ?? 0) < -9_000)
        #expect(!tree.nearest(3, to: here, measuredTo: .center).contains { $0.index == 50 })
        expectAgreement(points, radii: radii, queries: [here] + someQueries)
    }

    @Test func leafSizeBoundariesAgree() {
        for n in [31, 32, 33, 63, 64, 65] {
            let points = PointSet.clusteredCities(n, seed: UInt64(n)).coordinates
            expectAgreement(points, radii: RadiusMix.mixed.radii(count: n, seed: 9), queries: Array(points.prefix(3)), leafSizes: [32])
        }
    }
}

/// The build's median selection against a sort: on distinct values, on a few values repeated
/// many times (places sharing coordinates, which its partition gathers), on one value, and on
/// sorted and reversed input; every position up to 300 values, five of them beyond.
@Suite struct BuildSelectionTests {
    @Test func selectionPutsEveryPositionWhereASortWould() {
        var rng = SplitMix64(seed: TestSeed.value(salt: 1_777))
        var inputs: [[Double]] = []
        for count in [1, 2, 3, 15, 16, 17, 40, 257, 1_000] {
            inputs.append((0..<count).map { _ in rng.nextDouble(in: -1..<1) })
            for distinct in [1, 2, 3, 10] {
                inputs.append((0..<count).map { _ in Double(rng.nextInt(below: distinct)) / 8 })
            }
            inputs.append((0..<count).map { Double($0) })
            inputs.append((0..<count).map { Double(count - $0) })
        }
        for values in inputs {
            let sorted = values.sorted()
            let positions = values.count <= 300 ? Array(0..<values.count) : [0, 1, values.count / 3, values.count / 2, values.count - 1]
            for nth in positions {
                let arranged = KDTree._selectForTesting(values, nth: nth)
                #expect(arranged.sorted() == sorted, "selection lost or duplicated a value")
                #expect(arranged[nth] == sorted[nth], "position \(nth) of \(values.count)")
                #expect(
                    arranged[..<nth].allSatisfy { $0 <= arranged[nth] } && arranged[(nth + 1)...].allSatisfy { $0 >= arranged[nth] },
                    "position \(nth) of \(values.count): a value on the wrong side")
            }
        }
    }
}
