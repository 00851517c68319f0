import EventEngine
import FencePlanner
import Geodesy
import PlatformEmulator
import PlatformFacts
import Testing
import WalkSimulator

/// The timeline a replay keeps: what it says was monitored agrees with its own registration
/// calls, its verdicts agree with the scored report, and each miss's reason follows what the
/// phone was made to do.
@Suite struct ReplayTimelineTests {
    /// 30 places of 60 m around a center, and a 1.8 km walk through them.
    static func setting() throws -> (PlaceCatalog, Walk) {
        let center = Coordinate(validLatitude: 46.05, longitude: 14.51)
        let places = (0..<30).map { i in
            Place(
                id: "p\(i)", coordinate: center.destination(bearingDegrees: Double(i) * 12, distanceMeters: Double(i % 5) * 150),
                radiusMeters: 60)
        }
        var rng = SplitMix64(seed: 3)
        let waypoints = [
            center.destination(bearingDegrees: 200, distanceMeters: 900), center.destination(bearingDegrees: 20, distanceMeters: 900),
        ]
        let walk = WalkGenerator.along(
            waypoints, speedMetersPerSecond: 1.4, fixes: FixModel(intervalSeconds: 1, noiseSigmaMeters: 5), kind: .walk, using: &rng)
        return (try PlaceCatalog(places: places), walk)
    }

    /// Nothing monitored: every visit missed as not monitored. Everything monitored on the ideal
    /// phone: every visit detected. On a phone whose cushion no 60 m fence can meet (the estimate
    /// must reach the center): each visit missed as below the platform's resolution. On iOS with
    /// every delivery 15 minutes late: past its 20 regions, not monitored; the rest missed by
    /// latency of at least 15 minutes, or below resolution where the phone decided no entry.
    @Test func missReasonsFollowWhatThePhoneDid() throws {
        let (catalog, walk) = try Self.setting()
        var nothing = FixedStrategy(places: [])
        let none = PlatformReplay(platform: .ideal(delaySeconds: 0), seed: 1).timeline(walk, strategy: &nothing, catalog: catalog)
        #expect(none.visitOutcomes.count > 3)
        #expect(none.visitOutcomes.allSatisfy { $0.reason == .notMonitored && $0.detectedSeconds == nil })

        var everything = FixedStrategy(places: catalog.places.map(\.fence))
        let all = PlatformReplay(platform: .ideal(delaySeconds: 0), seed: 1).timeline(walk, strategy: &everything, catalog: catalog)
        #expect(all.visitOutcomes.allSatisfy { $0.reason == nil && $0.detectedSeconds != nil })

        var blind = EmulatedPlatform.ideal(delaySeconds: 0)
        blind.entryCushionMeters = 1_000...1_000
        blind.entryDepthFraction = 1
        let unresolved = PlatformReplay(platform: blind, seed: 1).timeline(walk, strategy: &everything, catalog: catalog)
        #expect(unresolved.visitOutcomes.count == all.visitOutcomes.count)
        #expect(unresolved.visitOutcomes.allSatisfy { $0.reason == .belowResolution })

        var late = EmulatedPlatform.iOS
        late.crossings.latency = PlatformProfile.LatencyDistribution(
            minimumSeconds: 900, medianSeconds: 900, p90Seconds: 900, maximumSeconds: 900)
        let slow = PlatformReplay(platform: late, seed: 1).timeline(walk, strategy: &everything, catalog: catalog)
        let dropped = Set(catalog.places.map(\.id).dropFirst(20))
        var latencies = 0
        for outcome in slow.visitOutcomes {
            if dropped.contains(outcome.visit.placeID) {
                #expect(outcome.reason == .notMonitored, "\(outcome)")
            } else if case .latency(let seconds) = outcome.reason {
                latencies += 1
                #expect(seconds >= 900 - VisitOracle.earlyToleranceSeconds, "\(outcome)")
            } else {
                #expect(outcome.reason == .belowResolution || outcome.detectedSeconds != nil, "\(outcome)")
            }
        }
        #expect(latencies > 0)
        #expect(slow.visitOutcomes.contains { dropped.contains($0.visit.placeID) })
    }

    /// rotate on Android with a reboot every 10 minutes and on iOS, over generated walks: at
    /// every moment between registration calls the places the timeline says were monitored are
    /// those its calls left monitored (added and monitored, not removed since, not lost to a
    /// reboot); the visits and stops it says were detected are as many as the report scored.
    @Test(arguments: ["ios", "android"])
    func monitoredSpansAreTheRegistrationCallsAddedUp(platform: String) throws {
        var scenario = Simulation.Scenario()
        scenario.walkKind = .errands
        scenario.placeSet = .clustered
        scenario.walks = 2
        scenario.seed = 11
        let simulation = try Simulation(scenario)
        var replay = PlatformReplay(platform: platform == "ios" ? .iOS : .android, seed: 3)
        if platform == "android" { replay.rebootEverySeconds = 600 }
        var configuration = simulation.configuration
        configuration.limit = replay.platform.profile.regionLimit
        var checked = 0
        for index in 0..<scenario.walks {
            let trip = simulation.trip(index)
            var rotate = try RotateStrategy(catalog: simulation.rotateCatalog, configuration: configuration)
            let timeline = replay.timeline(trip.walk, strategy: &rotate, catalog: simulation.catalog, stops: trip.stops)
            var rotateAgain = try RotateStrategy(catalog: simulation.rotateCatalog, configuration: configuration)
            let report = replay.replay(trip.walk, strategy: &rotateAgain, catalog: simulation.catalog, stops: trip.stops)
            #expect(timeline.report == report)
            #expect(timeline.visitOutcomes.filter { $0.detectedSeconds != nil }.count == report.score.detected)
            #expect(timeline.stopOutcomes.count == report.stops.stops)
            #expect(timeline.stopOutcomes.filter { $0.detectedSeconds != nil }.count == report.stops.detected)
            #expect(timeline.stopOutcomes.allSatisfy { ($0.detectedSeconds == nil) == ($0.reason != nil) })

            let lost = timeline.reboots.filter(\.registrationsLost).map(\.timeSeconds)
            if platform == "android" { #expect(!lost.isEmpty) }
            let times = Array(Set(timeline.registrations.map(\.timeSeconds) + lost)).sorted()
            for (a, b) in zip(times, times.dropFirst()) {
                let t = (a + b) / 2
                var monitored = Set<String>()
                var calls = timeline.registrations.filter { !$0.isTrigger && $0.timeSeconds <= t }[...]
                for reboot in lost where reboot <= t {
                    while let call = calls.first, call.timeSeconds < reboot {
                        apply(call, to: &monitored)
                        calls.removeFirst()
                    }
                    monitored.removeAll()
                }
                for call in calls { apply(call, to: &monitored) }
                let spans = Set(timeline.monitored.filter { $0.value.contains { $0.contains(t) } }.keys)
                #expect(spans == monitored, "at \(t) s: \(spans.symmetricDifference(monitored).sorted())")
                checked += 1
            }
        }
        #expect(checked > 20)
    }

    /// rotate with store visits on iOS over errand trips: every departure the engine reported is
    /// on the visit it ends (the one whose stay began when the departure's stay did), none on a
    /// visit still open when the trip ended, and never before the visit's report.
    @Test func eachDepartureLandsOnItsVisit() throws {
        var scenario = Simulation.Scenario()
        scenario.walkKind = .errands
        scenario.walks = 3
        scenario.seed = 12
        let simulation = try Simulation(scenario)
        let replay = PlatformReplay(platform: .iOS, seed: 4)
        var configuration = simulation.configuration
        configuration.limit = replay.platform.profile.regionLimit
        var settings = FenceMonitor.Settings(profile: replay.platform.profile)
        settings.visits = VisitSettings()
        var departures = 0
        for index in 0..<scenario.walks {
            let trip = simulation.trip(index)
            var rotate = try RotateStrategy(catalog: simulation.rotateCatalog, configuration: configuration, settings: settings)
            let timeline = replay.timeline(trip.walk, strategy: &rotate, catalog: simulation.catalog, stops: trip.stops)
            let arrivals = rotate.visitEvents.filter { $0.kind == .arrival }
            #expect(arrivals.count == timeline.visits.count)
            let ended = Dictionary(
                rotate.visitEvents.filter { $0.kind == .departure }.map { ($0.visit.arrivalSeconds, $0.timeSeconds) },
                uniquingKeysWith: { first, _ in first })
            for (arrival, visit) in zip(arrivals, timeline.visits) {
                #expect(visit.departureSeconds == ended[arrival.visit.arrivalSeconds], "visit at \(visit.timeSeconds) s")
                if let departure = visit.departureSeconds { #expect(departure >= visit.timeSeconds) }
            }
            departures += timeline.visits.filter { $0.departureSeconds != nil }.count
        }
        #expect(departures > 3)
    }

    func apply(_ call: ReplayTimeline.Registration, to monitored: inout Set<String>) {
        if call.action == .add, call.outcome == .monitored {
            monitored.insert(call.regionID)
        } else {
            monitored.remove(call.regionID)
        }
    }
}
