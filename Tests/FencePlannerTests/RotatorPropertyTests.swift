import FencePlanner
import Geodesy
import RotateTestSupport
import Testing

/// Random catalogs, configurations and walks: the planner against the brute-force reference, and
/// the diff invariants at every reselection.
@Suite struct RotatorPropertyTests {
    struct Scenario: Sendable, CustomStringConvertible {
        var name: String
        var count: Int
        var sideMeters: Double
        var radii: ClosedRange<Double>
        var config: RotationConfiguration
        var maxStepMeters: Double
        var inaccurateShare: Double = 0
        var footprintShare: Double = 0
        var description: String { name }
    }

    static let scenarios: [Scenario] = [
        Scenario(
            name: "shops, defaults", count: 500, sideMeters: 10_000, radii: 100...100, config: RotationConfiguration(), maxStepMeters: 150),
        Scenario(
            name: "mixed radii, margin", count: 800, sideMeters: 8_000, radii: 20...1_000,
            config: RotationConfiguration(marginMeters: 60), maxStepMeters: 200),
        Scenario(
            name: "dense mall, saturating", count: 400, sideMeters: 400, radii: 10...40,
            config: RotationConfiguration(limit: 10, headroom: 1, marginMeters: 25), maxStepMeters: 30),
        Scenario(
            name: "sticky", count: 600, sideMeters: 6_000, radii: 50...300,
            config: RotationConfiguration(marginMeters: 20, stickinessMeters: 150), maxStepMeters: 120),
        Scenario(
            name: "untrusted fixes", count: 600, sideMeters: 6_000, radii: 50...300,
            config: RotationConfiguration(headroom: 0, marginMeters: 10, stickinessMeters: 50, maxTrustedAccuracyMeters: 100),
            maxStepMeters: 150, inaccurateShare: 0.3),
        Scenario(
            name: "android slots", count: 1_500, sideMeters: 12_000, radii: 100...150,
            config: RotationConfiguration(limit: 100, headroom: 5, marginMeters: 150), maxStepMeters: 300),
        Scenario(
            name: "footprints and circles", count: 700, sideMeters: 5_000, radii: 20...300,
            config: RotationConfiguration(marginMeters: 30, stickinessMeters: 80), maxStepMeters: 120, footprintShare: 0.6),
        Scenario(
            name: "footprints, untrusted fixes, dense", count: 400, sideMeters: 600, radii: 10...60,
            config: RotationConfiguration(limit: 10, headroom: 1, marginMeters: 15, stickinessMeters: 30, maxTrustedAccuracyMeters: 80),
            maxStepMeters: 40, inaccurateShare: 0.3, footprintShare: 0.8),
    ]

    @Test(arguments: scenarios)
    func rotatorMatchesTheReferenceAndKeepsTheDiffInvariants(scenario: Scenario) throws {
        let seed = TestSeed.value(salt: UInt64(scenario.count) &* 31 &+ UInt64(scenario.name.utf8.count))
        let catalog = PlannerFixtures.catalog(
            count: scenario.count, sideMeters: scenario.sideMeters, radii: scenario.radii, footprintShare: scenario.footprintShare,
            seed: seed)
        var rotator = try FenceRotator(catalog: catalog, configuration: scenario.config)
        let config = rotator.configuration
        let walk = PlannerFixtures.walk(
            count: 400, from: Coordinate(validLatitude: 45.8, longitude: 15.97),
            maxStepMeters: scenario.maxStepMeters, inaccurateShare: scenario.inaccurateShare, seed: seed ^ 7)
        var registered: [String: Fence] = [:]
        var refresh: RefreshRegion?
        var refreshIDs: Set<String> = []
        var reselections = 0
        for (i, fix) in walk.enumerated() {
            let incumbents = rotator.state.monitored
            let expectedID = catalog.refreshIdentifierPrefix + String(rotator.state.reselections)
            guard let update = rotator.update(with: fix) else {
                // No reselection: the fix is inside the refresh region.
                #expect(refresh.map { $0.contains(fix.coordinate) } ?? true, "fix \(i) outside the refresh region without an update")
                continue
            }
            reselections += 1
            let context = "\(scenario) fix \(i); \(TestSeed.replay(seed))"
            let reference = ReferencePlanner.select(catalog, config, at: fix, incumbents: incumbents, refreshID: expectedID)
            #expect(update.selection == reference, "\(context)")

            // Diff invariants: stop only what is registered, start nothing registered (unless
            // stopped first because its definition changed), applying it gives the selection.
            let diff = update.diff
            var count = registered.count + (refresh == nil ? 0 : 1)
            for operation in diff.operations {
                switch operation {
                case .stopRefresh(let id):
                    #expect(id == refresh?.id, "\(context)")
                    refresh = nil
                    count -= 1
                case .stop(let fence):
                    #expect(registered[fence.id] == fence, "stopped an unregistered fence; \(context)")
                    registered[fence.id] = nil
                    count -= 1
                case .startRefresh(let region):
                    #expect(!refreshIDs.contains(region.id), "refresh id reused; \(context)")
                    refreshIDs.insert(region.id)
                    refresh = region
                    count += 1
                case .start(let fence):
                    #expect(registered[fence.id] == nil, "started a registered fence; \(context)")
                    registered[fence.id] = fence
                    count += 1
                }
                #expect(count <= config.limit - config.headroom, "transient count \(count); \(context)")
            }
            #expect(Set(registered.values) == Set(update.selection.fences), "\(context)")
            #expect(registered.count <= config.placeSlots, "\(context)")
            #expect(refresh == update.selection.refresh, "\(context)")
            // Kept places appear in neither list.
            let stopped = Set(diff.stop.map(\.id)), started = Set(diff.start.map(\.id))
            for fence in incumbents where update.selection.fences.contains(fence) {
                #expect(!stopped.contains(fence.id) && !started.contains(fence.id), "\(context)")
            }
            // insideAtStart: exactly the started fences containing the fix.
            let inside = update.selection.monitored.filter { started.contains($0.fence.id) && $0.edgeDistanceMeters <= 0 }.map(\.fence.id)
            #expect(diff.insideAtStart == inside, "\(context)")
            // The promise: while exact, every unmonitored fence lies beyond radius + margin (+ accuracy).
            if update.selection.guarantee == .exact, let region = update.selection.refresh {
                let reach = update.selection.trustedFix ? 0 : (fix.accuracyMeters ?? 0)
                let monitored = Set(update.selection.fences.map(\.id))
                for place in catalog.places where !monitored.contains(place.id) {
                    let edge =
                        place.footprint?.signedDistanceMeters(to: UnitVector(fix.coordinate))
                        ?? fix.coordinate.distance(to: place.coordinate) - place.radiusMeters
                    #expect(edge - region.radiusMeters >= config.marginMeters + reach - 1e-6, "\(place.id) within reach; \(context)")
                }
            }
        }
        #expect(reselections >= 3, "the walk should reselect a few times")
    }

    /// Reselecting at every fix of a walk with short steps keeps the planner's warm-start
    /// neighborhood alive for many fixes (re-ranked, re-centered, refreshed when it no longer
    /// provably holds the answer): every selection must equal the reference's and the cold path's.
    @Test(arguments: [(100.0...100.0, 8.0), (20.0...1_500.0, 25.0), (50.0...300.0, 300.0)])
    func warmReselectionsAtEveryFixMatchTheReference(radii: ClosedRange<Double>, maxStepMeters: Double) throws {
        let seed = TestSeed.value(salt: 702 &+ UInt64(maxStepMeters))
        let catalog = PlannerFixtures.catalog(count: 1_200, sideMeters: 9_000, radii: radii, seed: seed)
        let config = RotationConfiguration(marginMeters: 30)
        let walk = PlannerFixtures.walk(
            count: 600, from: Coordinate(validLatitude: 45.8, longitude: 15.97),
            maxStepMeters: maxStepMeters, seed: seed ^ 11)
        try expectWarmEqualsColdAndReference(
            catalog, config, walk, "radii \(radii), steps up to \(maxStepMeters) m; \(TestSeed.replay(seed))")
    }

    /// Places listed twice (two shops in one building: the same center and radius, other ids)
    /// tie exactly on the ranking key at every fix: the warm ranking must break the ties as the
    /// index does (nearer center, then catalog position), whichever order the last fix left.
    @Test(arguments: [100.0...100.0, 20.0...900.0])
    func warmReselectionsBreakExactTiesLikeTheIndex(radii: ClosedRange<Double>) throws {
        let seed = TestSeed.value(salt: 715)
        let singles = PlannerFixtures.catalog(count: 400, sideMeters: 6_000, radii: radii, seed: seed).places
        // Twins in reverse order, so catalog order and id order disagree on which comes first.
        let twins = singles.reversed().map { Place(id: $0.id + "-twin", coordinate: $0.coordinate, radiusMeters: $0.radiusMeters) }
        let catalog = try PlaceCatalog(places: singles + twins)
        let config = RotationConfiguration(marginMeters: 10)
        let walk = PlannerFixtures.walk(
            count: 400, from: Coordinate(validLatitude: 45.8, longitude: 15.97), maxStepMeters: 40, seed: seed ^ 3)
        try expectWarmEqualsColdAndReference(catalog, config, walk, "radii \(radii); \(TestSeed.replay(seed))")
    }

    /// Selects at every fix of `walk` warm-started, cold and with the reference planner (each
    /// fix's incumbents: the warm selection before it), expecting the same selection from all three.
    private func expectWarmEqualsColdAndReference(
        _ catalog: PlaceCatalog, _ config: RotationConfiguration, _ walk: [Fix],
        _ context: String
    ) throws {
        var warm = try RotationPlanner(catalog: catalog, configuration: config)
        var cold = try RotationPlanner(catalog: catalog, configuration: config)
        var incumbents: [Fence] = []
        for (i, fix) in walk.enumerated() {
            let id = "refresh-\(i)"
            let selection = warm.select(at: fix, incumbents: incumbents, refreshID: id, warmStart: true)
            let comment = Comment(rawValue: "fix \(i), \(context)")
            #expect(selection == cold.select(at: fix, incumbents: incumbents, refreshID: id, warmStart: false), comment)
            #expect(selection == ReferencePlanner.select(catalog, config, at: fix, incumbents: incumbents, refreshID: id), comment)
            incumbents = selection.fences
        }
    }

    @Test func sameInputsGiveTheSameUpdates() throws {
        let catalog = PlannerFixtures.catalog(count: 300, sideMeters: 5_000, radii: 30...300, seed: 5)
        let walk = PlannerFixtures.walk(count: 300, from: Coordinate(validLatitude: 45.8, longitude: 15.97), maxStepMeters: 100, seed: 6)
        func run() throws -> [RotationUpdate] {
            var rotator = try FenceRotator(catalog: catalog, configuration: RotationConfiguration(marginMeters: 15, stickinessMeters: 40))
            return walk.compactMap { rotator.update(with: $0) }
        }
        let first = try run()
        #expect(first.count > 2)
        #expect(try run() == first)
    }

    @Test func stickinessSavesChurnWalkingBackAndForth() throws {
        // Walk back and forth along a line through a grid of shops: without stickiness the set
        // flips at every turn; with it incumbents hold on.
        let catalog = PlannerFixtures.catalog(count: 400, sideMeters: 3_000, radii: 50...50, seed: 9)
        let start = Coordinate(validLatitude: 45.8, longitude: 15.97)
        var walk: [Fix] = []
        for lap in 0..<6 {
            for step in 0...40 {
                let meters = Double(lap % 2 == 0 ? step : 40 - step) * 15
                walk.append(Fix(start.destination(bearingDegrees: 60, distanceMeters: meters)))
            }
        }
        func churn(stickiness: Double) throws -> Int {
            var rotator = try FenceRotator(
                catalog: catalog, configuration: RotationConfiguration(marginMeters: 5, stickinessMeters: stickiness))
            return walk.compactMap { rotator.update(with: $0) }.reduce(0) { $0 + $1.diff.start.count + $1.diff.stop.count }
        }
        let loose = try churn(stickiness: 0)
        let sticky = try churn(stickiness: 100)
        #expect(sticky < loose, "stickiness 100 m: \(sticky) starts+stops, none: \(loose)")
    }
}
