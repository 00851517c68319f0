import FencePlanner
import Geodesy
import RotateTestSupport
import SpatialIndex
import Testing
import WalkSimulator

@Suite struct ReferenceStrategiesTests {
    static let origin = Coordinate(validLatitude: 45.8150, longitude: 15.9819)

    /// One place of a brute-force ranking: its position in the catalog, squared chord to the fix
    /// and fence-edge distance.
    struct Ranked {
        var position: Int
        var squaredChord: Double
        var edgeMeters: Double
    }

    /// Every place of the catalog, sorted the slow way: by center (squared chord, then position)
    /// or by fence edge (edge meters, then squared chord, then position).
    static func ranking(_ catalog: PlaceCatalog, at coordinate: Coordinate, byEdge: Bool) -> [Ranked] {
        let query = UnitVector(coordinate)
        return catalog.places.enumerated().map { position, place in
            let squaredChord = UnitVector(place.coordinate).squaredChord(to: query)
            return Ranked(
                position: position, squaredChord: squaredChord,
                edgeMeters: GreatCircle.arcMeters(squaredChord: squaredChord) - place.radiusMeters)
        }.sorted { a, b in
            if byEdge && a.edgeMeters != b.edgeMeters { return a.edgeMeters < b.edgeMeters }
            if a.squaredChord != b.squaredChord { return a.squaredChord < b.squaredChord }
            return a.position < b.position
        }
    }

    static func ids(_ ranking: some Sequence<Ranked>, _ catalog: PlaceCatalog) -> [String] {
        ranking.map { catalog.places[$0.position].id }
    }

    /// `count` places in a 3 km square: about one in eight repeats an earlier place's position
    /// (center ties), a third share a 100 m radius, the rest 10 m to `maxRadiusMeters` (fences
    /// overlap and often contain the fix).
    static func catalog(count: Int, maxRadiusMeters: Double = 600, seed: UInt64) throws -> PlaceCatalog {
        var rng = SplitMix64(seed: seed)
        var coordinates: [Coordinate] = []
        for _ in 0..<count {
            if !coordinates.isEmpty && rng.nextInt(below: 8) == 0 {
                coordinates.append(coordinates[rng.nextInt(below: coordinates.count)])
            } else {
                coordinates.append(SyntheticCoordinates.uniformInSquare(around: origin, sideMeters: 3_000, using: &rng))
            }
        }
        let places = coordinates.enumerated().map { i, coordinate in
            Place(
                id: "p\(i)", coordinate: coordinate,
                radiusMeters: rng.nextInt(below: 3) == 0 ? 100 : rng.nextDouble(in: 10..<maxRadiusMeters))
        }
        return try PlaceCatalog(places: places)
    }

    /// Fixes for a catalog: half Gaussian around a place (σ 150 m), half uniform in a 4 km square.
    static func fixes(_ count: Int, near catalog: PlaceCatalog, seed: UInt64) -> [Fix] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { i in
            let coordinate =
                i % 2 == 0
                ? SyntheticCoordinates.gaussian(
                    around: catalog.places[rng.nextInt(below: catalog.count)].coordinate, sigmaMeters: 150, using: &rng)
                : SyntheticCoordinates.uniformInSquare(around: origin, sideMeters: 4_000, using: &rng)
            return Fix(coordinate, accuracyMeters: 5)
        }
    }

    /// Catalog sizes around the limit: 1, 2, slots ± 1, the limit ± 1, and many.
    static func sizes(limit: Int) -> [Int] {
        Array(Set([1, 2, limit - 3, limit - 2, limit - 1, limit, limit + 1, 300].filter { $0 >= 1 })).sorted()
    }

    // MARK: - Selection against a brute force

    @Test func nearestWithRefreshMatchesABruteForce() throws {
        var floored = 0, containing = 0, reaching = 0
        for limit in [3, 20, 100] {
            let seed = TestSeed.value(salt: 0x4E31_3946 &+ UInt64(limit))
            // Radii up to 1–2 km make the next place's fence reach the fix, or nearly, at every limit.
            let variants: [(Int, Double)] = Self.sizes(limit: limit).flatMap { size in [(size, 600), (size, 1_000), (size, 2_000)] }
            for (k, (size, maxRadius)) in variants.enumerated() {
                let catalog = try Self.catalog(count: size, maxRadiusMeters: maxRadius, seed: seed &+ UInt64(k))
                for fix in Self.fixes(150, near: catalog, seed: seed &+ 1_000 &+ UInt64(k)) {
                    var strategy = NearestWithRefreshStrategy(catalog: catalog, regionLimit: limit)
                    let regions = strategy.begin(at: fix)
                    let ranking = Self.ranking(catalog, at: fix.coordinate, byEdge: false)
                    let context = "size \(size), limit \(limit), \(TestSeed.replay(seed))"
                    #expect(regions.places.map(\.id) == Self.ids(ranking.prefix(limit - 1), catalog), "\(context)")
                    #expect(regions.places == ranking.prefix(limit - 1).map { catalog.places[$0.position].fence }, "\(context)")
                    #expect(regions.count <= limit, "\(context)")
                    guard size > limit - 1 else {
                        #expect(regions.triggers.isEmpty, "every place fits: no refresh circle (\(context))")
                        continue
                    }
                    let next = ranking[limit - 1]
                    let reach = next.edgeMeters
                    let expected = max(reach, 50)
                    try #require(regions.triggers.count == 1, "\(context)")
                    let circle = regions.triggers[0]
                    #expect(
                        isApproximatelyEqual(circle.radiusMeters, expected, absolute: 1e-6),
                        "\(circle.radiusMeters) vs \(expected), \(context)")
                    #expect(circle.center == fix.coordinate, "\(context)")
                    #expect(circle.id == "trigger-0", "\(context)")
                    #expect(strategy.refresh == circle, "\(context)")
                    if reach <= 0 {
                        containing += 1
                    } else if reach < 50 {
                        floored += 1
                    } else {
                        reaching += 1
                    }
                }
            }
        }
        // Each branch of the radius rule was exercised.
        #expect(containing > 0 && floored > 0 && reaching > 0, "containing \(containing), floored \(floored), reaching \(reaching)")
    }

    @Test(arguments: [3, 20, 100])
    func nearestSignificantChangeMatchesABruteForce(limit: Int) throws {
        let seed = TestSeed.value(salt: 0x4E31_3853 &+ UInt64(limit))
        for (k, size) in Self.sizes(limit: limit).enumerated() {
            let catalog = try Self.catalog(count: size, seed: seed &+ UInt64(k))
            for fix in Self.fixes(40, near: catalog, seed: seed &+ 1_000 &+ UInt64(k)) {
                var strategy = NearestSignificantChangeStrategy(catalog: catalog, regionLimit: limit)
                let regions = strategy.begin(at: fix)
                let ranking = Self.ranking(catalog, at: fix.coordinate, byEdge: false)
                let context = "size \(size), limit \(limit), \(TestSeed.replay(seed))"
                #expect(regions.places.map(\.id) == Self.ids(ranking.prefix(limit - 2), catalog), "\(context)")
                #expect(regions.places == ranking.prefix(limit - 2).map { catalog.places[$0.position].fence }, "\(context)")
                #expect(regions.triggers.isEmpty, "\(context)")
                #expect(strategy.monitored == regions.places, "\(context)")
            }
        }
    }

    @Test(arguments: [3, 20, 100])
    func fixedTriggerMatchesABruteForce(limit: Int) throws {
        let seed = TestSeed.value(salt: 0x4649_5854 &+ UInt64(limit))
        var centerOrderDiffers = 0
        for (k, size) in Self.sizes(limit: limit).enumerated() {
            let catalog = try Self.catalog(count: size, seed: seed &+ UInt64(k))
            for fix in Self.fixes(40, near: catalog, seed: seed &+ 1_000 &+ UInt64(k)) {
                var strategy = FixedTriggerStrategy(catalog: catalog, regionLimit: limit)
                let regions = strategy.begin(at: fix)
                let ranking = Self.ranking(catalog, at: fix.coordinate, byEdge: true)
                let context = "size \(size), limit \(limit), \(TestSeed.replay(seed))"
                let expected = Self.ids(ranking.prefix(limit - 1), catalog)
                #expect(regions.places.map(\.id) == expected, "\(context)")
                #expect(regions.places == ranking.prefix(limit - 1).map { catalog.places[$0.position].fence }, "\(context)")
                try #require(regions.triggers.count == 1, "the trigger stays even when every place fits (\(context))")
                #expect(regions.triggers[0].radiusMeters == 1_000, "\(context)")
                #expect(regions.triggers[0].center == fix.coordinate, "\(context)")
                #expect(strategy.trigger == regions.triggers[0], "\(context)")
                let byCenter = Self.ids(Self.ranking(catalog, at: fix.coordinate, byEdge: false).prefix(limit - 1), catalog)
                if Set(byCenter) != Set(expected) { centerOrderDiffers += 1 }
            }
        }
        // The edge ranking is not the center ranking in disguise on these radii.
        #expect(centerOrderDiffers > 0)
    }

    // MARK: - The refresh radius rule, by hand

    /// Places due east of the origin at the given center distances and radii, and the
    /// nearest-with-refresh strategy with room for all but the last.
    static func line(_ placements: [(meters: Double, radiusMeters: Double)]) throws -> NearestWithRefreshStrategy {
        let places = placements.enumerated().map { i, p in
            Place(id: "p\(i)", coordinate: origin.destination(bearingDegrees: 90, distanceMeters: p.meters), radiusMeters: p.radiusMeters)
        }
        return NearestWithRefreshStrategy(catalog: try PlaceCatalog(places: places), regionLimit: placements.count)
    }

    @Test func refreshReachesTheNextFenceFlooredAt50Meters() throws {
        let fix = Fix(Self.origin)
        // Next place 400 m away with a 100 m fence: the circle reaches its edge, 300 m.
        var reaching = try Self.line([(100, 20), (200, 20), (400, 100)])
        let reachingRegions = reaching.begin(at: fix)
        let reached = try #require(reachingRegions.triggers.first)
        #expect(isApproximatelyEqual(reached.radiusMeters, 300, absolute: 1e-3))
        // Its edge 20 m away: floored at 50 m, 30 m into the unmonitored fence.
        var floored = try Self.line([(100, 20), (200, 20), (400, 380)])
        let flooredRegions = floored.begin(at: fix)
        #expect(flooredRegions.triggers.map(\.radiusMeters) == [50])
        // Its fence already contains the fix (edge −100 m): the floor again, no negative radius.
        var containing = try Self.line([(100, 20), (200, 20), (400, 500)])
        let contained = containing.begin(at: fix)
        #expect(contained.triggers.map(\.radiusMeters) == [50])
        // Ranked by center: the large fence containing the fix is the one left out.
        #expect(contained.places.map(\.id) == ["p0", "p1"])
    }

    // MARK: - Trigger radius clamps

    @Test(
        arguments: zip(
            [1_000, 50, 100, 99.9, 2_500, 5_000, 5_000.1, 70_000, 0, -5, .nan, .infinity, -.infinity] as [Double],
            [1_000, 100, 100, 100, 2_500, 5_000, 5_000, 5_000, 1_000, 1_000, 1_000, 5_000, 1_000] as [Double]))
    func fixedTriggerRadiusIsClamped(requested: Double, expected: Double) throws {
        #expect(FixedTriggerStrategy.clampedTriggerRadius(requested) == expected)
        let catalog = try Self.catalog(count: 30, seed: 7)
        var strategy = FixedTriggerStrategy(catalog: catalog, triggerRadiusMeters: requested)
        #expect(strategy.triggerRadiusMeters == expected)
        #expect(strategy.begin(at: Fix(Self.origin)).triggers.map(\.radiusMeters) == [expected])
    }

    // MARK: - Reselection

    /// Fixes 800 m apart from the origin along a 60° bearing: every step a new neighborhood.
    static let walk: [Fix] = (0..<6).map { Fix(origin.destination(bearingDegrees: 60, distanceMeters: Double($0) * 800)) }

    /// The two designs with a trigger region reselect on its exit only, around the new fix, under
    /// a fresh id: `nearest19-floor50` the 19 nearest by center and a circle reaching the next
    /// place's fence (at least 50 m), `fixed-trigger` the 19 nearest by edge and a 700 m trigger.
    @Test(arguments: [false, true])
    func triggerDesignsReselectOnTheirOwnExitOnly(fixedTrigger: Bool) throws {
        let catalog = try Self.catalog(count: 300, seed: TestSeed.value(salt: fixedTrigger ? 13 : 11))
        var strategy: any MonitoringStrategy =
            fixedTrigger ? FixedTriggerStrategy(catalog: catalog, triggerRadiusMeters: 700) : NearestWithRefreshStrategy(catalog: catalog)
        let first = strategy.begin(at: Self.walk[0])
        var current = try #require(first.triggers.first)
        for (n, fix) in Self.walk.dropFirst().enumerated() {
            #expect(strategy.received(fix) == nil, "no background fixes")
            #expect(strategy.triggerExited("p0", at: fix) == nil, "a place's exit keeps the regions")
            if n > 0 { #expect(strategy.triggerExited("trigger-\(n - 1)", at: fix) == nil, "a stale trigger keeps the regions") }
            let exited = strategy.triggerExited(current.id, at: fix)
            let regions = try #require(exited)
            let ranking = Self.ranking(catalog, at: fix.coordinate, byEdge: fixedTrigger)
            #expect(regions.places.map(\.id) == Self.ids(ranking.prefix(19), catalog))
            let trigger = try #require(regions.triggers.first)
            #expect(trigger.id == "trigger-\(n + 1)", "a fresh id at each reselection")
            #expect(trigger.center == fix.coordinate)
            let radius = fixedTrigger ? 700 : max(ranking[19].edgeMeters, 50)
            #expect(isApproximatelyEqual(trigger.radiusMeters, radius, absolute: 1e-6))
            current = trigger
        }
    }

    @Test func nearestSignificantChangeReselectsOnEveryUpdate() throws {
        let catalog = try Self.catalog(count: 300, seed: TestSeed.value(salt: 12))
        var strategy = NearestSignificantChangeStrategy(catalog: catalog)
        var monitored = strategy.begin(at: Self.walk[0]).places.map(\.id)
        var reselected = 0
        for fix in Self.walk.dropFirst() {
            #expect(strategy.triggerExited("trigger-0", at: fix) == nil, "no trigger region")
            let expected = Self.ids(Self.ranking(catalog, at: fix.coordinate, byEdge: false).prefix(18), catalog)
            let update = strategy.received(fix)
            guard Set(expected) != Set(monitored) else {
                #expect(update == nil, "the same places: keep")
                continue
            }
            let regions = try #require(update)
            #expect(regions.places.map(\.id) == expected)
            #expect(regions.triggers.isEmpty)
            monitored = expected
            reselected += 1
            // The same nearest places again: keep.
            let nearby = fix.coordinate.destination(bearingDegrees: 0, distanceMeters: 0.001)
            #expect(strategy.received(Fix(nearby)) == nil)
        }
        #expect(reselected >= 2)
    }

    // MARK: - Names, background fixes, small catalogs

    @Test func namesAndBackgroundFixes() throws {
        let catalog = try Self.catalog(count: 5, seed: 1)
        let strategies: [any MonitoringStrategy] = [
            NearestWithRefreshStrategy(catalog: catalog, regionLimit: 100),
            NearestSignificantChangeStrategy(catalog: catalog, regionLimit: 100),
            FixedTriggerStrategy(catalog: catalog, regionLimit: 100),
        ]
        #expect(strategies.map(\.name) == ["nearest19-floor50", "nearest18-significant-change", "fixed-trigger"])
        #expect(strategies.map(\.backgroundFixes) == [.none, .significantChange, .none])
    }

    @Test(arguments: [1, 5, 18, 19])
    func fewerPlacesThanTheLimit(count: Int) throws {
        let catalog = try Self.catalog(count: count, seed: TestSeed.value(salt: 14 &+ UInt64(count)))
        let fix = Fix(Self.origin)
        let all = Set(catalog.places.map(\.id))

        var refresh = NearestWithRefreshStrategy(catalog: catalog)
        let refreshed = refresh.begin(at: fix)
        #expect(Set(refreshed.places.map(\.id)) == all)
        #expect(refreshed.triggers.isEmpty, "every place fits: nothing to refresh")
        #expect(refresh.refresh == nil)
        #expect(refresh.triggerExited("trigger-0", at: Self.walk[3]) == nil)

        var significant = NearestSignificantChangeStrategy(catalog: catalog)
        let nearest = significant.begin(at: fix)
        #expect(nearest.places.count == min(count, 18))
        if count <= 18 {
            #expect(Set(nearest.places.map(\.id)) == all)
            #expect(significant.received(Self.walk[3]) == nil, "the same places from anywhere")
        }

        var fixed = FixedTriggerStrategy(catalog: catalog)
        let triggered = fixed.begin(at: fix)
        #expect(Set(triggered.places.map(\.id)) == all)
        #expect(triggered.triggers.map(\.id) == ["trigger-0"], "the module keeps its trigger whenever it has places")
        let exited = fixed.triggerExited("trigger-0", at: Self.walk[3])
        let again = try #require(exited)
        #expect(Set(again.places.map(\.id)) == all)
        #expect(again.triggers.map(\.id) == ["trigger-1"])
    }

    @Test func sameCallsGiveTheSameRegions() throws {
        let catalog = try Self.catalog(count: 200, seed: TestSeed.value(salt: 15))
        func run<S: MonitoringStrategy>(_ make: () -> S) -> [MonitoredRegions?] {
            var strategy = make()
            var out: [MonitoredRegions?] = [strategy.begin(at: Self.walk[0])]
            for (n, fix) in Self.walk.dropFirst().enumerated() {
                out.append(strategy.triggerExited("trigger-\(n)", at: fix))
                out.append(strategy.received(fix))
            }
            return out
        }
        #expect(run { NearestWithRefreshStrategy(catalog: catalog) } == run { NearestWithRefreshStrategy(catalog: catalog) })
        #expect(run { NearestSignificantChangeStrategy(catalog: catalog) } == run { NearestSignificantChangeStrategy(catalog: catalog) })
        #expect(run { FixedTriggerStrategy(catalog: catalog) } == run { FixedTriggerStrategy(catalog: catalog) })
    }
}
