import FencePlanner
import Geodesy
import RotateTestSupport
import Testing
import WalkSimulator

/// A rotator that never monitors anything: every fence entered is a miss.
struct MonitorsNothing: FenceRotating {
    var hasSelection = false
    var currentRefresh: RefreshRegion? { nil }
    mutating func update(with fix: Fix) -> RotationUpdate? { hasSelection ? nil : reselect(at: fix) }
    mutating func reselect(at fix: Fix) -> RotationUpdate {
        hasSelection = true
        let selection = Selection(
            fix: fix, monitored: [], refresh: nil, guarantee: .exact, nextUnmonitoredEdgeMeters: nil, trustedFix: true)
        return RotationUpdate(selection: selection, diff: RegistrationDiff(from: [], previousRefresh: nil, to: selection))
    }
}

/// The naive design published in “Region Monitoring and Geofencing”: the nearest places by center
/// distance, the refresh radius reaching to the next place's fence, floored at 50 m. Test-only, to
/// show that the oracle finds its misses.
struct NaivePlanner: FenceRotating {
    let catalog: PlaceCatalog
    let slots: Int
    var monitored: [Fence] = []
    var currentRefresh: RefreshRegion?
    var hasSelection = false
    var count = 0

    mutating func update(with fix: Fix) -> RotationUpdate? {
        if let refresh = currentRefresh, refresh.contains(fix.coordinate) { return nil }
        return reselect(at: fix)
    }

    mutating func reselect(at fix: Fix) -> RotationUpdate {
        let ranked = catalog.index.nearest(slots + 1, to: fix.coordinate, measuredTo: .center)
        let chosen = ranked.prefix(slots).map {
            MonitoredPlace(
                position: $0.index, fence: catalog.places[$0.index].fence,
                edgeDistanceMeters: $0.distanceMeters - catalog.places[$0.index].radiusMeters)
        }
        let next = ranked.count > slots ? ranked[slots].distanceMeters - catalog.places[ranked[slots].index].radiusMeters : 1e9
        let refresh = RefreshRegion(id: "refresh-\(count)", center: fix.coordinate, radiusMeters: max(50, next))
        count += 1
        let selection = Selection(
            fix: fix, monitored: chosen, refresh: refresh, guarantee: .exact, nextUnmonitoredEdgeMeters: next, trustedFix: true)
        let diff = RegistrationDiff(from: monitored, previousRefresh: currentRefresh, to: selection)
        monitored = selection.fences
        currentRefresh = refresh
        hasSelection = true
        return RotationUpdate(selection: selection, diff: diff)
    }
}

@Suite struct OracleTests {
    let origin = Coordinate(validLatitude: 46.05, longitude: 14.51)

    @Test func consecutiveMissedSamplesOfOnePlaceAreOneEvent() throws {
        // A straight 1 km walk through two fences and past a third.
        let places = [
            Place(id: "a", coordinate: origin.destination(bearingDegrees: 90, distanceMeters: 200), radiusMeters: 50),
            Place(id: "b", coordinate: origin.destination(bearingDegrees: 90, distanceMeters: 600), radiusMeters: 30),
            Place(id: "c", coordinate: origin.destination(bearingDegrees: 0, distanceMeters: 300), radiusMeters: 30),
        ]
        let catalog = try PlaceCatalog(places: places)
        var rng = SplitMix64(seed: 1)
        let walk = WalkGenerator.along(
            [origin, origin.destination(bearingDegrees: 90, distanceMeters: 1_000)],
            speedMetersPerSecond: 7, fixes: FixModel(), kind: .straight, using: &rng)
        var rotator = MonitorsNothing()
        let report = MissedFenceOracle.replay(walk, rotator: &rotator, catalog: catalog, placeSlots: 17)
        #expect(report.misses.map(\.placeID) == ["a", "b"])
        #expect(report.misses.allSatisfy { $0.fencesContaining == 1 && $0.avoidable })
        // The first missed point is where the path meets the fence, to the 1 m check spacing.
        #expect(abs(report.misses[0].position.distance(to: origin) - 150) <= 1.01)
        #expect(abs(report.misses[1].position.distance(to: origin) - 570) <= 1.01)
        #expect(abs(report.kilometers - 1) < 1e-6)
    }

    /// Places in a row ahead of a walker, 2 slots: each refresh edge sits exactly on the next
    /// fence when the margin is 0.
    func rowScenario(margin: Double, speed: Double, delay: Double) throws -> OracleReport {
        let places = (0..<40).map {
            Place(
                id: "row\($0)", coordinate: origin.destination(bearingDegrees: 90, distanceMeters: 137 * Double($0 + 1)), radiusMeters: 40)
        }
        let catalog = try PlaceCatalog(places: places)
        let config = RotationConfiguration(limit: 3, headroom: 0, marginMeters: margin, minRefreshRadiusMeters: 1)
        var rotator = try FenceRotator(catalog: catalog, configuration: config)
        var rng = SplitMix64(seed: 2)
        let walk = WalkGenerator.along(
            [origin, origin.destination(bearingDegrees: 90, distanceMeters: 5_500)],
            speedMetersPerSecond: speed, fixes: FixModel(intervalSeconds: 1), kind: .straight, using: &rng)
        return MissedFenceOracle.replay(
            walk, rotator: &rotator, catalog: catalog, placeSlots: config.placeSlots, platformDelaySeconds: delay)
    }

    @Test func withMarginZeroAWalkerClipsFencesAndTheRightMarginFixesIt() throws {
        let clipped = try rowScenario(margin: 0, speed: 1.4, delay: 0)
        #expect(clipped.avoidableMisses > 0, "a walker 1.4 m per fix should clip a fence with margin 0")
        let safe = try rowScenario(margin: 1.4, speed: 1.4, delay: 0)
        #expect(safe.misses.isEmpty)
        #expect(safe.reselections > 10)
    }

    @Test func aDriveClearlyMissesWithoutMarginAndNotWithIt() throws {
        let clipped = try rowScenario(margin: 0, speed: 25, delay: 0)
        #expect(clipped.avoidableMisses >= 10)
        #expect(try rowScenario(margin: 25, speed: 25, delay: 0).misses.isEmpty)
    }

    /// A recording with a 100-minute gap, across which the user moved 1.5 km along the row: the
    /// margin it needs is its 1.4 m step, not the jump, and with it the planner misses nothing
    /// (the first fix after the gap reselects). Taken as a path, the jump would need a 1.5 km
    /// margin, and the small one misses the fences of the row it crosses.
    @Test func aRecordingGapNeedsNoMarginAndMissesNothing() throws {
        let places = (0..<40).map {
            Place(
                id: "row\($0)", coordinate: origin.destination(bearingDegrees: 90, distanceMeters: 137 * Double($0 + 1)), radiusMeters: 40)
        }
        let catalog = try PlaceCatalog(places: places)
        var rng = SplitMix64(seed: 3)
        let straight = WalkGenerator.along(
            [origin, origin.destination(bearingDegrees: 90, distanceMeters: 5_500)],
            speedMetersPerSecond: 1.4, fixes: FixModel(intervalSeconds: 1), kind: .straight, using: &rng)
        // Samples 1,000 to 2,070 (1.5 km) are not recorded; the rest come 100 minutes later.
        var samples = Array(straight.samples[..<1_000])
        for var sample in straight.samples[2_071...] {
            sample.timeSeconds += 6_000
            samples.append(sample)
        }
        let recorded = Walk(samples: samples, kind: .walk, gapSeconds: Walk.recordingGapSeconds)
        #expect(recorded.gaps.count == 1)
        let margin = recorded.requiredMarginMeters(delaySeconds: 0)
        #expect(margin > 1.3 && margin < 1.5)
        let config = RotationConfiguration(limit: 3, headroom: 0, marginMeters: margin, minRefreshRadiusMeters: 1)
        var rotator = try FenceRotator(catalog: catalog, configuration: config)
        let report = MissedFenceOracle.replay(recorded, rotator: &rotator, catalog: catalog, placeSlots: config.placeSlots)
        #expect(report.misses.isEmpty)

        var interpolated = recorded
        interpolated.gapSeconds = nil
        #expect(interpolated.requiredMarginMeters(delaySeconds: 0) > 1_400)
        var naive = try FenceRotator(catalog: catalog, configuration: config)
        let crossing = MissedFenceOracle.replay(interpolated, rotator: &naive, catalog: catalog, placeSlots: config.placeSlots)
        #expect(crossing.avoidableMisses > 0)
    }

    @Test func thePlatformDelayMustBeInTheMargin() throws {
        // 4 s delay at 1.4 m/s: the margin must cover 1.4 × (1 + 4) = 7 m.
        #expect(try rowScenario(margin: 1.4, speed: 1.4, delay: 4).avoidableMisses > 0)
        #expect(try rowScenario(margin: 7, speed: 1.4, delay: 4).misses.isEmpty)
    }

    @Test func theNaiveDesignMissesFencesInADenseSetAndTheRealPlannerDoesNot() throws {
        var scenario = Simulation.Scenario()
        scenario.placeSet = .dense
        scenario.placeCount = 1_200
        scenario.regionSideMeters = 3_000
        scenario.lengthMeters = 2_000...3_000
        scenario.fixes = FixModel(intervalSeconds: 1, noiseSigmaMeters: 0)
        scenario.configuration = RotationConfiguration(limit: 20, headroom: 1)
        let simulation = try Simulation(scenario)
        var naive = OracleReport(), real = OracleReport()
        for i in 0..<4 {
            let walk = simulation.walk(i)
            var flawed = NaivePlanner(catalog: simulation.catalog, slots: simulation.configuration.placeSlots)
            naive.merge(
                MissedFenceOracle.replay(
                    walk, rotator: &flawed, catalog: simulation.catalog, placeSlots: simulation.configuration.placeSlots))
            var rotator = try FenceRotator(catalog: simulation.catalog, configuration: simulation.configuration)
            real.merge(
                MissedFenceOracle.replay(
                    walk, rotator: &rotator, catalog: simulation.catalog, placeSlots: simulation.configuration.placeSlots))
        }
        #expect(naive.misses.count > 5, "the naive design should miss fences: \(naive.misses.count)")
        #expect(real.avoidableMisses == 0)
        #expect(real.unavoidableOutsideSaturation == 0)
    }

    @Test func theReferenceScenarioMissesNothing() throws {
        // 500 places uniformly in a 10 km square, 100 m fences, a 6 km diagonal walk at 1.4 m per
        // fix, limit 20, headroom 0 (the naive nearest-19 design published in
        // “Region Monitoring and Geofencing” reselected 6 times on it).
        var scenario = Simulation.Scenario()
        scenario.placeCount = 500
        scenario.regionSideMeters = 10_000
        scenario.walkKind = .diagonal
        scenario.walks = 1
        scenario.lengthMeters = 6_000...6_000
        scenario.speedMetersPerSecond = 1.4
        scenario.fixes = FixModel(intervalSeconds: 1, noiseSigmaMeters: 0)
        scenario.configuration = RotationConfiguration(limit: 20, headroom: 0)
        let simulation = try Simulation(scenario)
        #expect(simulation.configuration.marginMeters == 1.4)
        let report = try simulation.run()
        #expect(report.misses.isEmpty)
        #expect(abs(report.kilometers - 6) < 0.01)
        #expect((3...12).contains(report.reselections), "\(report.reselections) reselections")
        #expect(report.maxSlotsUsed <= 20)
    }

    @Test(arguments: [WalkKind.dateLine, .pole, .commute])
    func specialWalksMissNothing(kind: WalkKind) throws {
        var scenario = Simulation.Scenario()
        scenario.walkKind = kind
        scenario.placeCount = 600
        scenario.regionSideMeters = 15_000
        scenario.walks = 3
        scenario.lengthMeters = 4_000...6_000
        let report = try Simulation(scenario).run()
        #expect(report.misses.isEmpty, "\(kind): \(report.misses.prefix(3))")
        #expect(report.reselections >= 3)
    }

    @Test func mixedWalksOverEverySetHaveNoAvoidableMisses() throws {
        for set in PlaceSetKind.allCases {
            var scenario = Simulation.Scenario()
            scenario.placeSet = set
            scenario.placeCount = 1_500
            scenario.regionSideMeters = 8_000
            scenario.walkKind = nil
            scenario.walks = 4
            scenario.lengthMeters = 3_000...6_000
            scenario.seed = TestSeed.value(salt: 600)
            let report = try Simulation(scenario).run()
            #expect(report.avoidableMisses == 0, "\(set): \(TestSeed.replay(scenario.seed))")
            #expect(report.unavoidableOutsideSaturation == 0, "\(set): \(TestSeed.replay(scenario.seed))")
        }
    }
}
