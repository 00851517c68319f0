import Geodesy
import RotateTestSupport
import SpatialIndex
import Testing

@testable import RotateCommands

/// `validate`'s density (the most places within 1 km of one place, itself included, and the first
/// place with that many) against counting every pair.
@Suite struct ValidateCommandTests {
    /// The reference: every pair, measured as the index measures (`GreatCircle.arcMeters` of the
    /// squared chord), the first place with the largest count.
    static func bruteForce(_ vectors: [UnitVector], withinMeters meters: Double) -> (places: Int, position: Int) {
        var best = (places: 0, position: 0)
        for (i, a) in vectors.enumerated() {
            let count = vectors.count { GreatCircle.arcMeters(squaredChord: a.squaredChord(to: $0)) <= meters }
            if count > best.places { best = (count, i) }
        }
        return best
    }

    /// Random small sets, many of their places stacked on a few shared positions (in half of the
    /// sets most of them, so that crowds are searched as weighted points; in the others a few
    /// per position), the others scattered near them, some about the reach away: the same count
    /// and the same place as brute force, with one index query per distinct position.
    @Test func densityMatchesBruteForceWithManyColocatedPlaces() {
        let seed = TestSeed.value(salt: 1_100)
        var rng = SplitMix64(seed: seed)
        let center = Coordinate(validLatitude: 46.05, longitude: 14.5)
        // Sets searched over an index of distinct positions, and sets with shared positions
        // searched over the catalog's own index.
        var crowded = 0, sharedUncrowded = 0
        for round in 0..<300 {
            let count = 1 + rng.nextInt(below: round % 10 == 0 ? 3 : 200)
            let siteCount = 1 + rng.nextInt(below: 4)
            let sites = (0..<siteCount).map { _ in SyntheticCoordinates.uniformInSquare(around: center, sideMeters: 3_000, using: &rng) }
            let coordinates = (0..<count).map { _ -> Coordinate in
                let site = sites[rng.nextInt(below: sites.count)]
                switch rng.nextInt(below: 10) {
                case 0..<(round % 2 == 0 ? 6 : 1): return site
                case 6..<8: return SyntheticCoordinates.uniformInSquare(around: site, sideMeters: 50, using: &rng)
                default:
                    return site.destination(bearingDegrees: 360 * rng.nextUnit(), distanceMeters: 995 + 10 * rng.nextUnit())
                }
            }
            let vectors = coordinates.map(UnitVector.init)
            let largest = ValidateCommand.Groups(vectors).sizes.max() ?? 0
            if largest > ValidateCommand.Density.crowd { crowded += 1 } else if largest > 1 { sharedUncrowded += 1 }
            let density = ValidateCommand.Density(vectors: vectors, index: KDTree(vectors: vectors), withinMeters: 1_000)
            let expected = Self.bruteForce(vectors, withinMeters: 1_000)
            let context = "round \(round), \(count) places; \(TestSeed.replay(seed))"
            #expect(density.places == expected.places && density.position == expected.position, "\(context)")
            #expect(density.queries == Set(vectors).count, "\(context)")
        }
        #expect(crowded > 50 && sharedUncrowded > 50, "\(crowded) crowded sets, \(sharedUncrowded) shared but not crowded")
    }

    /// 20,000 places at one position and one elsewhere: two index queries, not one per place.
    @Test func colocatedPlacesAreQueriedOnce() {
        let here = UnitVector(Coordinate(validLatitude: 46.05, longitude: 14.5))
        let there = UnitVector(Coordinate(validLatitude: 46.06, longitude: 14.5))
        let vectors = [there] + Array(repeating: here, count: 20_000)
        let density = ValidateCommand.Density(vectors: vectors, index: KDTree(vectors: vectors), withinMeters: 1_000)
        #expect(density.places == 20_000 && density.position == 1)
        #expect(density.queries == 2)
    }
}
