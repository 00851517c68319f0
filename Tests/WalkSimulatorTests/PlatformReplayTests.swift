import EventEngine
import FencePlanner
import Geodesy
import PlatformEmulator
import PlatformFacts
import RotateTestSupport
import Testing
import WalkSimulator

/// A strategy that wraps another and records every set of regions it returns, with the time.
struct RecordingStrategy<Inner: MonitoringStrategy>: MonitoringStrategy {
    var inner: Inner
    var returned: [MonitoredRegions] = []
    var receivedFixTimes: [Double] = []

    var name: String { inner.name }
    var backgroundFixes: BackgroundFixes { inner.backgroundFixes }

    mutating func begin(at fix: Fix) -> MonitoredRegions {
        let regions = inner.begin(at: fix)
        returned.append(regions)
        return regions
    }

    mutating func triggerExited(_ id: String, at fix: Fix) -> MonitoredRegions? {
        let regions = inner.triggerExited(id, at: fix)
        if let regions { returned.append(regions) }
        return regions
    }

    mutating func received(_ fix: Fix) -> MonitoredRegions? {
        receivedFixTimes.append(fix.timestampSeconds ?? -1)
        let regions = inner.received(fix)
        if let regions { returned.append(regions) }
        return regions
    }

    var decidesPlaceEvents: Bool { inner.decidesPlaceEvents }
    mutating func placeEvent(_ id: String, entered: Bool, at timeSeconds: Double) {
        inner.placeEvent(id, entered: entered, at: timeSeconds)
    }
    mutating func takeEntries() -> [ReceivedEntry] { inner.takeEntries() }
}

/// Monitors a fixed set of places (and no trigger), asking for `fixes` in the background.
struct FixedStrategy: MonitoringStrategy {
    var places: [Fence]
    var backgroundFixes: BackgroundFixes = .none
    var name: String { "fixed" }
    mutating func begin(at fix: Fix) -> MonitoredRegions { MonitoredRegions(places: places, triggers: []) }
    mutating func triggerExited(_ id: String, at fix: Fix) -> MonitoredRegions? { nil }
    mutating func received(_ fix: Fix) -> MonitoredRegions? { nil }
}

/// Every place of the catalog registered at the first fix, past any region limit: the brute
/// force `EveryPlaceStrategy` is checked against.
struct WholeCatalogStrategy: MonitoringStrategy {
    var catalog: PlaceCatalog
    var name: String { "whole-catalog" }
    var backgroundFixes: BackgroundFixes { .none }
    var ignoresRegionLimit: Bool { true }
    mutating func begin(at fix: Fix) -> MonitoredRegions { MonitoredRegions(places: catalog.fences, triggers: []) }
    mutating func triggerExited(_ id: String, at fix: Fix) -> MonitoredRegions? { nil }
    mutating func received(_ fix: Fix) -> MonitoredRegions? { nil }
}

/// Another strategy with its background fixes turned off.
struct WithoutBackgroundFixes<Inner: MonitoringStrategy>: MonitoringStrategy {
    var inner: Inner
    var name: String { inner.name }
    var backgroundFixes: BackgroundFixes { .none }
    mutating func begin(at fix: Fix) -> MonitoredRegions { inner.begin(at: fix) }
    mutating func triggerExited(_ id: String, at fix: Fix) -> MonitoredRegions? { inner.triggerExited(id, at: fix) }
    mutating func received(_ fix: Fix) -> MonitoredRegions? { inner.received(fix) }
    var decidesPlaceEvents: Bool { inner.decidesPlaceEvents }
    mutating func placeEvent(_ id: String, entered: Bool, at timeSeconds: Double) {
        inner.placeEvent(id, entered: entered, at: timeSeconds)
    }
    mutating func takeEntries() -> [ReceivedEntry] { inner.takeEntries() }
}

@Suite struct PlatformReplayTests {
    static func simulation(walks: Int = 4, set: PlaceSetKind = .uniform, kind: WalkKind = .walk) throws -> Simulation {
        var scenario = Simulation.Scenario()
        scenario.walkKind = kind
        scenario.placeSet = set
        scenario.walks = walks
        scenario.lengthMeters = 3_000...6_000
        scenario.seed = 7
        return try Simulation(scenario)
    }

    /// On the ideal phone with no delay, rotate (exact on the uniform set) has every fence a walk
    /// enters monitored before it is entered, and the phone reports each entry at once: every visit
    /// is detected, none falsely, within a couple of fix intervals.
    @Test func onTheIdealPhoneRotateDetectsEveryVisit() throws {
        let simulation = try Self.simulation()
        let replay = PlatformReplay(platform: .ideal(delaySeconds: 0), seed: 1)
        var total = PlatformReplayReport()
        for index in 0..<simulation.scenario.walks {
            var strategy = try RotateStrategy(catalog: simulation.catalog, configuration: simulation.configuration)
            total.merge(replay.replay(simulation.walk(index), walkIndex: index, strategy: &strategy, catalog: simulation.catalog))
        }
        #expect(total.score.visits > 10)
        #expect(total.score.detected == total.score.visits)
        #expect(total.score.falseEntries == 0)
        #expect((total.score.latencySeconds(quantile: 1) ?? 99) <= 2)
    }

    /// A strategy that monitors nothing detects nothing; one that monitors every place of a small
    /// catalog (no limit on the ideal phone) detects every visit; visits entered while unmonitored
    /// are all of the first's, none of the second's, and on iOS those of the places past the limit.
    @Test func detectionFollowsWhatIsMonitored() throws {
        let center = Coordinate(validLatitude: 46.05, longitude: 14.51)
        let places = (0..<30).map { i in
            Place(
                id: "p\(i)", coordinate: center.destination(bearingDegrees: Double(i) * 12, distanceMeters: Double(i % 5) * 150),
                radiusMeters: 60)
        }
        let catalog = try PlaceCatalog(places: places)
        var rng = SplitMix64(seed: 3)
        let waypoints = [
            center.destination(bearingDegrees: 200, distanceMeters: 900), center.destination(bearingDegrees: 20, distanceMeters: 900),
        ]
        let walk = WalkGenerator.along(
            waypoints, speedMetersPerSecond: 1.4, fixes: FixModel(intervalSeconds: 1, noiseSigmaMeters: 5), kind: .walk, using: &rng)
        let replay = PlatformReplay(platform: .ideal(delaySeconds: 0), seed: 1)
        var nothing = FixedStrategy(places: [])
        let none = replay.replay(walk, strategy: &nothing, catalog: catalog)
        var everything = FixedStrategy(places: catalog.places.map(\.fence))
        let all = replay.replay(walk, strategy: &everything, catalog: catalog)
        #expect(none.score.visits > 0)
        #expect(none.score.detected == 0)
        #expect(all.score.detected == all.score.visits)
        #expect(all.registrationCalls == places.count)
        #expect(none.visitsEnteredUnmonitored == none.score.visits)
        #expect(all.visitsEnteredUnmonitored == 0)
        // Past iOS's 20 regions the rest are silently not monitored: their visits count as
        // entered unmonitored, and none of them is detected.
        let iOS = PlatformReplay(platform: .iOS, seed: 1).replay(walk, strategy: &everything, catalog: catalog)
        let dropped = Set(catalog.places.map(\.id).dropFirst(20))
        let visitsOfDropped = VisitOracle.visits(on: walk, catalog: catalog).filter { dropped.contains($0.placeID) }.count
        #expect(visitsOfDropped > 0)
        #expect(iOS.visitsEnteredUnmonitored == visitsOfDropped)
    }

    /// The platform's bound (`every-place`: the places near the device, following it, no region
    /// limit, kept once registered) hears exactly what the platform reports with the whole catalog registered from the
    /// first fix: the same visits detected with the same latencies and false entries, on iOS and
    /// Android, walking and driving, over walks that leave the first selection far behind.
    @Test(arguments: [WalkKind.walk, .drive])
    func everyPlaceIsThePlatformWithTheWholeCatalog(kind: WalkKind) throws {
        var scenario = Simulation.Scenario()
        scenario.walkKind = kind
        scenario.placeSet = .clustered
        scenario.placeCount = 400
        scenario.walks = 3
        scenario.lengthMeters = kind == .walk ? 6_000...8_000 : 20_000...25_000
        scenario.seed = 11
        let simulation = try Simulation(scenario)
        for platform in [EmulatedPlatform.iOS, .android] {
            let replay = PlatformReplay(platform: platform, seed: 3)
            var bound = PlatformReplayReport()
            var whole = PlatformReplayReport()
            for index in 0..<scenario.walks {
                let walk = simulation.walk(index)
                var strategy = EveryPlaceStrategy(catalog: simulation.catalog)
                bound.merge(replay.replay(walk, walkIndex: index, strategy: &strategy, catalog: simulation.catalog))
                var everything = WholeCatalogStrategy(catalog: simulation.catalog)
                whole.merge(replay.replay(walk, walkIndex: index, strategy: &everything, catalog: simulation.catalog))
            }
            #expect(whole.score.visits > 20)
            #expect(whole.eventsDelivered > 0)
            #expect(bound.score == whole.score, "\(platform.profile.name) \(kind)")
            #expect(bound.eventsDelivered == whole.eventsDelivered)
            #expect(bound.visitsEnteredUnmonitored == whole.visitsEnteredUnmonitored)
            #expect(bound.registrationCalls <= whole.registrationCalls)
        }
    }

    /// Registration calls equal the differences between consecutive sets the strategy returned,
    /// computed apart from the replay: a region removed or redefined costs a removal, one added or
    /// redefined an addition.
    @Test(arguments: ["ideal", "iOS", "Android"])
    func registrationCallsAreTheDifferencesOfWhatTheStrategyAskedFor(platform: String) throws {
        let simulation = try Self.simulation(walks: 3, set: .clustered)
        let replay: PlatformReplay =
            switch platform {
            case "ideal": PlatformReplay(platform: .ideal(delaySeconds: 20), seed: 5)
            case "iOS": PlatformReplay(platform: .iOS, seed: 5)
            default: PlatformReplay(platform: .android, seed: 5)
            }
        for index in 0..<simulation.scenario.walks {
            var strategy = RecordingStrategy(
                inner: try RotateStrategy(catalog: simulation.catalog, configuration: simulation.configuration))
            let report = replay.replay(simulation.walk(index), walkIndex: index, strategy: &strategy, catalog: simulation.catalog)
            var expected = 0
            var previous: [String: String] = [:]
            for regions in strategy.returned {
                var current: [String: String] = [:]
                for fence in regions.places { current[fence.id] = "\(fence.center) \(fence.radiusMeters)" }
                for trigger in regions.triggers { current[trigger.id] = "\(trigger.center) \(trigger.radiusMeters)" }
                expected += previous.filter { current[$0.key] != $0.value }.count
                expected += current.filter { previous[$0.key] != $0.value }.count
                previous = current
            }
            #expect(report.registrationCalls == expected, "\(platform) walk \(index)")
            #expect(report.rejectedRegistrations == 0)
        }
    }

    /// Significant changes reach the strategy no more often than every 5 minutes and 500 m (iOS),
    /// on foot (where the distance binds) and driving (where the time does).
    @Test(arguments: [WalkKind.walk, .drive])
    func significantChangesAreSpacedByTimeAndDistance(kind: WalkKind) throws {
        var scenario = Simulation.Scenario()
        scenario.walkKind = kind
        scenario.walks = 1
        scenario.lengthMeters = kind == .drive ? 40_000...50_000 : 4_000...6_000
        scenario.seed = 7
        let simulation = try Simulation(scenario)
        var scenarioWalk = simulation.walk(0)
        scenarioWalk.samples = Array(scenarioWalk.samples.prefix(4_000))
        var strategy = RecordingStrategy(inner: FixedStrategy(places: [], backgroundFixes: .significantChange))
        let report = PlatformReplay(platform: .iOS, seed: 2).replay(scenarioWalk, strategy: &strategy, catalog: simulation.catalog)
        let times = strategy.receivedFixTimes
        #expect(times.count == report.backgroundFixes)
        #expect(times.count >= 2)
        let positions = Dictionary(
            scenarioWalk.samples.compactMap { s in s.fix.map { ($0.timestampSeconds ?? -1, $0.coordinate) } },
            uniquingKeysWith: { a, _ in a })
        var previous = scenarioWalk.samples.first { $0.fix != nil }?.fix
        for time in times {
            guard let last = previous, let position = positions[time] else { continue }
            #expect(time - (last.timestampSeconds ?? 0) >= 300)
            #expect(position.distance(to: last.coordinate) >= 500)
            previous = Fix(position, timestampSeconds: time)
        }
    }

    /// Android refuses registrations past 100 regions; iOS takes them without error.
    @Test func registrationsPastTheLimitAreRefusedOnAndroid() throws {
        let center = Coordinate(validLatitude: 46.05, longitude: 14.51)
        let places = (0..<101).map { i in
            Place(id: "p\(i)", coordinate: center.destination(bearingDegrees: Double(i) * 3.5, distanceMeters: 2_000), radiusMeters: 50)
        }
        let catalog = try PlaceCatalog(places: places)
        let walk = Walk(
            samples: (0..<10).map {
                Walk.Sample(timeSeconds: Double($0), truePosition: center, fix: Fix(center, timestampSeconds: Double($0)))
            }, kind: .walk)
        var strategy = FixedStrategy(places: catalog.places.map(\.fence))
        #expect(PlatformReplay(platform: .android, seed: 1).replay(walk, strategy: &strategy, catalog: catalog).rejectedRegistrations == 1)
        #expect(PlatformReplay(platform: .iOS, seed: 1).replay(walk, strategy: &strategy, catalog: catalog).rejectedRegistrations == 0)
    }

    /// When the refresh exit comes later than the margin allows (here every iOS delivery takes
    /// 15 minutes, three times the published tail, while the margin covers the 10 s 90th
    /// percentile), rotate's
    /// significant-change updates find the device outside the refresh circle and reselect: fewer
    /// visits are entered while their fence is unmonitored than with the refresh exit alone.
    @Test func significantChangesCoverARefreshExitThatComesLate() throws {
        let simulation = try Self.simulation(walks: 6)
        var monitoring = EmulatedPlatform.iOS
        monitoring.crossings.latency = PlatformProfile.LatencyDistribution(
            minimumSeconds: 900, medianSeconds: 900, p90Seconds: 900, maximumSeconds: 900)
        let replay = PlatformReplay(platform: monitoring, seed: 4)
        var configuration = simulation.configuration
        configuration.marginMeters = PlatformProfile.iOS.refreshExitMarginMeters(maxSpeedMetersPerSecond: 1.8, fixIntervalSeconds: 1)
        var withBackstop = PlatformReplayReport()
        var refreshOnly = PlatformReplayReport()
        for index in 0..<simulation.scenario.walks {
            let walk = simulation.walk(index)
            var rotate = try RotateStrategy(catalog: simulation.catalog, configuration: configuration)
            #expect(rotate.backgroundFixes == .significantChange || rotate.backgroundFixes == .continuous)
            withBackstop.merge(replay.replay(walk, walkIndex: index, strategy: &rotate, catalog: simulation.catalog))
            var plain = WithoutBackgroundFixes(inner: try RotateStrategy(catalog: simulation.catalog, configuration: configuration))
            refreshOnly.merge(replay.replay(walk, walkIndex: index, strategy: &plain, catalog: simulation.catalog))
        }
        #expect(refreshOnly.visitsEnteredUnmonitored > 0)
        #expect(
            withBackstop.visitsEnteredUnmonitored < refreshOnly.visitsEnteredUnmonitored,
            "\(withBackstop.visitsEnteredUnmonitored) with, \(refreshOnly.visitsEnteredUnmonitored) without")
        #expect(withBackstop.backgroundFixes > 0)
    }
}

/// Asks for a network fix every `periodicFixSeconds` and keeps every fix it receives.
struct PeriodicRecorder: MonitoringStrategy {
    var received: [Fix] = []
    var name: String { "periodic" }
    var backgroundFixes: BackgroundFixes { .periodic }
    var periodicFixSeconds: Double { 30 }
    mutating func begin(at fix: Fix) -> MonitoredRegions { MonitoredRegions(places: [], triggers: []) }
    mutating func triggerExited(_ id: String, at fix: Fix) -> MonitoredRegions? { nil }
    mutating func received(_ fix: Fix) -> MonitoredRegions? {
        received.append(fix)
        return nil
    }
}

@Suite struct NetworkFixTests {
    /// A walk of fixes without error along a line, indoors between `indoors` seconds.
    static func walk(seconds: Int, indoors: ClosedRange<Double>) -> Walk {
        let start = Coordinate(validLatitude: 46.05, longitude: 14.51)
        let samples = (0...seconds).map { t in
            let truth = start.destination(bearingDegrees: 90, distanceMeters: Double(t) * 0.5)
            let inside = indoors.contains(Double(t))
            // Indoors the walk's own fix stands for a Wi-Fi position, off by a fixed 30 m.
            let reported = inside ? truth.destination(bearingDegrees: 0, distanceMeters: 30) : truth
            return Walk.Sample(
                timeSeconds: Double(t), truePosition: truth,
                fix: Fix(reported, accuracyMeters: inside ? 65 : 5, timestampSeconds: Double(t)),
                indoors: inside)
        }
        return Walk(samples: samples, kind: .errands)
    }

    /// A network fix outdoors is the true position off by Wi-Fi's error (σ per axis as set,
    /// checked against the distances to the truth), reporting the network accuracy; indoors it is
    /// the walk's own fix (already a Wi-Fi position); without noise, the walk's fix everywhere.
    @Test func networkFixesCarryWiFiErrorOutdoorsAndTheWalksFixIndoors() throws {
        let walk = Self.walk(seconds: 30_000, indoors: 20_000...25_000)
        let catalog = try PlaceCatalog(places: [
            Place(id: "a", coordinate: Coordinate(validLatitude: 46.2, longitude: 14.7), radiusMeters: 50)
        ])
        let truth = Dictionary(uniqueKeysWithValues: walk.samples.map { ($0.timeSeconds, $0) })
        var replay = PlatformReplay(platform: .ideal(delaySeconds: 0), seed: 5)
        var strategy = PeriodicRecorder()
        _ = replay.replay(walk, strategy: &strategy, catalog: catalog)
        #expect(strategy.received.count > 900)
        var squares = 0.0
        var outdoors = 0
        for fix in strategy.received {
            let time = try #require(fix.timestampSeconds)
            let sample = try #require(truth[time])
            if sample.indoors {
                #expect(fix == sample.fix)
            } else {
                #expect(fix.accuracyMeters == replay.networkFixAccuracyMeters)
                let error = fix.coordinate.distance(to: sample.truePosition)
                squares += error * error
                outdoors += 1
            }
        }
        // E[east² + north²] = 2σ²; the errors are correlated over 60 s, fixes 30 s apart.
        let sigma = (squares / Double(2 * outdoors)).squareRoot()
        #expect(abs(sigma - replay.networkFixNoise.sigmaMeters) < 0.2 * replay.networkFixNoise.sigmaMeters)

        replay.networkFixNoise = .none
        var exact = PeriodicRecorder()
        _ = replay.replay(walk, strategy: &exact, catalog: catalog)
        #expect(!exact.received.isEmpty)
        for fix in exact.received { #expect(fix == truth[fix.timestampSeconds ?? -1]?.fix) }
    }

    /// rotate with `networkWakeFix` never turns the GNSS receiver on for the fix after a refresh
    /// exit: with low-power's settings its replay has no GNSS time and counts every wake fix (each
    /// fix requested after the first) as a network fix; the same settings with GNSS wake fixes
    /// turn the receiver on.
    @Test func networkWakeFixesLeaveTheReceiverOff() throws {
        let simulation = try PlatformReplayTests.simulation(walks: 2, set: .uniform)
        let replay = PlatformReplay(platform: .iOS, seed: 3)
        var network = FenceMonitor.Settings()
        network.visits = VisitSettings(budget: .lowPower)
        var gnss = network
        gnss.visits?.networkWakeFix = false
        for index in 0..<simulation.scenario.walks {
            let walk = simulation.walk(index)
            var a = try RotateStrategy(catalog: simulation.catalog, configuration: simulation.configuration, settings: network)
            var b = try RotateStrategy(catalog: simulation.catalog, configuration: simulation.configuration, settings: gnss)
            let withNetwork = replay.replay(walk, walkIndex: index, strategy: &a, catalog: simulation.catalog)
            let withGNSS = replay.replay(walk, walkIndex: index, strategy: &b, catalog: simulation.catalog)
            #expect(withGNSS.gnssOnSeconds > 0)
            #expect(withNetwork.gnssOnSeconds == 0)
            #expect(withNetwork.fixesRequested > 1)
            #expect(withNetwork.networkFixes >= withNetwork.fixesRequested - 1)
        }
    }
}
