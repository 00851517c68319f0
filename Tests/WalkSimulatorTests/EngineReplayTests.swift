import EventEngine
import FencePlanner
import Geodesy
import PlatformEmulator
import PlatformFacts
import Testing
import WalkSimulator

/// rotate's event engine replayed through the emulated phones.
@Suite struct EngineReplayTests {
    static func simulation(set: PlaceSetKind, kind: WalkKind, walks: Int = 3) throws -> Simulation {
        var scenario = Simulation.Scenario()
        scenario.walkKind = kind
        scenario.placeSet = set
        scenario.walks = walks
        scenario.lengthMeters = kind == .drive ? 10_000...15_000 : 3_000...5_000
        scenario.seed = 11
        return try Simulation(scenario)
    }

    /// On every emulated phone (cushions, stays, latency tails, noise, dropped initial entries,
    /// iOS's silent limit, Android's refusals), among clustered and dense places, walking and
    /// driving: each place's events alternate entry and exit, never twice in a row, and every
    /// entry the replay scored is one the engine reported.
    @Test(arguments: ["ideal", "iOS", "Android"], [PlaceSetKind.clustered, .dense])
    func everyVisitIsEnteredOnceOnEveryPhone(platform: String, set: PlaceSetKind) throws {
        for kind in [WalkKind.walk, .drive] {
            let simulation = try Self.simulation(set: set, kind: kind)
            let replay: PlatformReplay =
                switch platform {
                case "ideal": PlatformReplay(platform: .ideal(delaySeconds: 20), seed: 3)
                case "iOS": PlatformReplay(platform: .iOS, seed: 3)
                default: PlatformReplay(platform: .android, seed: 3)
                }
            var configuration = simulation.configuration
            configuration.limit = min(replay.platform.profile.regionLimit, 100)
            for index in 0..<simulation.scenario.walks {
                var strategy = try RotateStrategy(catalog: simulation.catalog, configuration: configuration)
                let report = replay.replay(simulation.walk(index), walkIndex: index, strategy: &strategy, catalog: simulation.catalog)
                var inside: Set<String> = []
                for event in strategy.placeEvents {
                    switch event.kind {
                    case .entry:
                        #expect(inside.insert(event.placeID).inserted, "\(platform) \(set) \(kind) \(index): second entry \(event)")
                    case .exit: #expect(inside.remove(event.placeID) != nil, "\(platform) \(set) \(kind) \(index): exit first \(event)")
                    case .dwell: break
                    }
                }
                let entries = strategy.placeEvents.filter { $0.kind == .entry }.count
                #expect(report.score.detected + report.score.falseEntries <= entries)
                #expect(entries > 0)
            }
        }
    }

    /// The engine's in-app decisions close the gap the platform leaves: on iOS among clustered
    /// places (degraded much of the time), rotate detects more visits than the planner with the
    /// platform's own entries alone (the engine with in-app decisions switched off).
    @Test func inAppDecisionsDetectVisitsThePlatformMisses() throws {
        let simulation = try Self.simulation(set: .clustered, kind: .walk, walks: 4)
        let replay = PlatformReplay(platform: .iOS, seed: 5)
        var configuration = simulation.configuration
        configuration.marginMeters = PlatformProfile.iOS.refreshExitMarginMeters(maxSpeedMetersPerSecond: 1.8, fixIntervalSeconds: 1)
        var off = FenceMonitor.Settings()
        off.enterProbability = 1.5  // P(inside) never exceeds it: no in-app entry
        var engine = PlatformReplayReport()
        var platformOnly = PlatformReplayReport()
        for index in 0..<simulation.scenario.walks {
            let walk = simulation.walk(index)
            var rotate = try RotateStrategy(catalog: simulation.catalog, configuration: configuration)
            engine.merge(replay.replay(walk, walkIndex: index, strategy: &rotate, catalog: simulation.catalog))
            var plain = try RotateStrategy(catalog: simulation.catalog, configuration: configuration, settings: off)
            platformOnly.merge(replay.replay(walk, walkIndex: index, strategy: &plain, catalog: simulation.catalog))
        }
        #expect(engine.score.detected > platformOnly.score.detected, "\(engine.score.detected) against \(platformOnly.score.detected)")
        #expect(engine.score.recall120 >= platformOnly.score.recall120)
    }

    /// The GNSS receiver is on only where the platform's regions cannot protect the user: on walks
    /// and drives through clustered places (where both are well above zero) rotate's GNSS-on share
    /// stays within 5 points of its share of time `degraded` or `saturated`.
    @Test(arguments: [WalkKind.walk, .drive])
    func gnssIsOnWhereTheGuaranteeIsNotExact(kind: WalkKind) throws {
        let simulation = try Self.simulation(set: .clustered, kind: kind, walks: 4)
        let replay = PlatformReplay(platform: .iOS, seed: 7)
        var configuration = simulation.configuration
        configuration.marginMeters = PlatformProfile.iOS.refreshExitMarginMeters(
            maxSpeedMetersPerSecond: kind == .drive ? 30 : 1.8, fixIntervalSeconds: 1)
        var total = PlatformReplayReport()
        for index in 0..<simulation.scenario.walks {
            var rotate = try RotateStrategy(catalog: simulation.catalog, configuration: configuration)
            total.merge(replay.replay(simulation.walk(index), walkIndex: index, strategy: &rotate, catalog: simulation.catalog))
        }
        #expect(total.notExactFraction > 0.01 && total.gnssOnFraction > 0.01)
        #expect(total.gnssOnFraction <= total.notExactFraction + 0.05, "GNSS \(total.gnssOnFraction), not exact \(total.notExactFraction)")
    }

    /// Android reboots every 10 minutes (every registration and undelivered event gone): the engine
    /// registers again, reselects at the next fix and decides the places it is inside, so each
    /// visit is still entered once, none is entered unmonitored, and rotate detects as many visits
    /// as without reboots, within 5 %.
    @Test func rebootsLoseNoVisit() throws {
        let simulation = try Self.simulation(set: .clustered, kind: .walk, walks: 4)
        var plain = PlatformReplay(platform: .android, seed: 9)
        var rebooting = plain
        rebooting.rebootEverySeconds = 600
        plain.rebootEverySeconds = nil
        var configuration = simulation.configuration
        configuration.limit = 100
        var with = PlatformReplayReport()
        var without = PlatformReplayReport()
        for index in 0..<simulation.scenario.walks {
            let walk = simulation.walk(index)
            var rotate = try RotateStrategy(catalog: simulation.catalog, configuration: configuration)
            with.merge(rebooting.replay(walk, walkIndex: index, strategy: &rotate, catalog: simulation.catalog))
            var inside: Set<String> = []
            for event in rotate.placeEvents where event.kind != .dwell {
                if event.kind == .entry {
                    #expect(inside.insert(event.placeID).inserted)
                } else {
                    #expect(inside.remove(event.placeID) != nil)
                }
            }
            var again = try RotateStrategy(catalog: simulation.catalog, configuration: configuration)
            without.merge(plain.replay(walk, walkIndex: index, strategy: &again, catalog: simulation.catalog))
        }
        #expect(with.seconds > 3 * 600, "the walks last long enough to reboot")
        #expect(with.visitsEnteredUnmonitored == 0)
        #expect(
            Double(with.score.detected) >= 0.95 * Double(without.score.detected), "\(with.score.detected) against \(without.score.detected)"
        )
    }
}
