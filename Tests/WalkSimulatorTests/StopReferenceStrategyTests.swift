import FencePlanner
import FenceRules
import Geodesy
import PlatformEmulator
import Testing

@testable import WalkSimulator

@Suite struct StopReferenceStrategyTests {
    static let shop = Coordinate(validLatitude: 46.05, longitude: 14.51)
    static let catalog: PlaceCatalog = {
        let places = [
            Place(id: "shop", coordinate: shop, radiusMeters: 50),
            Place(id: "far", coordinate: shop.destination(bearingDegrees: 0, distanceMeters: 5_000), radiusMeters: 50),
        ]
        return try! PlaceCatalog(places: places)
    }()

    /// From 2 km west at 1.4 m/s to the shop, standing there for `staySeconds`, then 1.5 km east.
    static func trip(staySeconds: Double) -> (Walk, TrueStop) {
        var timeline = Timeline(start: shop.destination(bearingDegrees: 270, distanceMeters: 2_000))
        timeline.move(to: shop.destination(bearingDegrees: 270, distanceMeters: 50), speed: 1.4)
        let arrival = timeline.now
        timeline.move(to: shop, speed: 1.4)
        timeline.wait(staySeconds)
        let departure = timeline.now
        timeline.move(to: shop.destination(bearingDegrees: 90, distanceMeters: 1_500), speed: 1.4)
        var rng = SplitMix64(seed: 1)
        let walk = timeline.sampled(
            fixes: FixModel(intervalSeconds: 1, noiseSigmaMeters: 0), indoors: [], model: ErrandModel(), using: &rng)
        return (walk, TrueStop(placeID: "shop", arrivalSeconds: arrival, departureSeconds: departure))
    }

    /// Radar's Responsive preset on the ideal phone: a network fix and a server request every
    /// 150 s while moving, none while stopped (after 140 s within 70 m), the stop's entry from
    /// the update inside the fence, and moving again once the 100 m stopped region is left.
    @Test func radarUpdatesEvery150SecondsWhileMovingAndNotWhenStopped() {
        let (walk, stop) = Self.trip(staySeconds: 1_800)
        var strategy = RadarResponsiveStrategy(catalog: Self.catalog)
        let replay = PlatformReplay(platform: .ideal(delaySeconds: 0), seed: 1)
        let report = replay.replay(walk, strategy: &strategy, catalog: Self.catalog, stops: [stop])
        let total = walk.samples.last?.timeSeconds ?? 0
        let moving = total - 1_800
        // Moving: one every 150 s; stopped: the updates until the stop is decided (at most 2).
        #expect(Double(report.networkFixes) >= moving / 150 - 2)
        #expect(Double(report.networkFixes) <= moving / 150 + 4)
        #expect(report.serverRequests >= report.networkFixes)
        #expect(report.stops.detected == 1)
        #expect(!strategy.stopped)
    }

    /// transistorsoft's defaults on the ideal phone: continuous GNSS while moving; still for the
    /// classifier's minute, heard 0 s late on the ideal phone, then 5 minutes of stop timeout, and
    /// the GNSS receiver is off for the rest of a 30-minute stay; the stationary geofence's exit
    /// (25 m) brings tracking back.
    @Test func stationaryGeofenceTurnsGNSSOffAfterTheStopTimeout() {
        let (walk, stop) = Self.trip(staySeconds: 1_800)
        var strategy = StationaryGeofenceStrategy(catalog: Self.catalog, regionLimit: 20)
        let replay = PlatformReplay(platform: .ideal(delaySeconds: 0), seed: 1)
        let report = replay.replay(walk, strategy: &strategy, catalog: Self.catalog, stops: [stop])
        let total = walk.samples.last?.timeSeconds ?? 0
        let off = total - report.gnssOnSeconds
        // Give or take the last meters of the approach (within 10 m counts as still) and the
        // 25 m walked out before the stationary geofence's exit: under 30 s.
        #expect(abs(off - (1_800 - 60 - 300)) < 30, "GNSS off \(off) s")
        #expect(report.stops.detected == 1)
        #expect(strategy.tracking)
    }

    /// The classifier: still after the window, heard after the latency; moving heard after the
    /// latency; a change undone sooner is never heard.
    @Test func theMotionClassifierHearsLastingChangesOnly() {
        var classifier = MotionActivityClassifier(
            MotionActivity(windowSeconds: 60, stillMeters: 10, latencySeconds: 30, wakesSuspendedApp: true))
        var heard: [(Double, Bool)] = []
        func at(_ t: Double, _ meters: Double) {
            if let change = classifier.advance(to: UnitVector(Self.shop.destination(bearingDegrees: 90, distanceMeters: meters)), at: t) {
                heard.append((t, change))
            }
        }
        for t in 0...300 { at(Double(t), 0) }
        // Walking away: 11.2 m past at 308 s, heard 30 s later.
        for t in 301...499 { at(Double(t), Double(t - 300) * 1.4) }
        // Standing for 70 s: still from 560 s, moving again at 571 s, before the 590 s it would
        // have been heard.
        for t in 500...570 { at(Double(t), 199 * 1.4) }
        for t in 571...700 { at(Double(t), 199 * 1.4 + Double(t - 570) * 1.4) }
        #expect(heard.map(\.0) == [90, 338])
        #expect(heard.map(\.1) == [true, false])
    }
}

@Suite struct SignificantChangeTests {
    /// iOS's significant-change service wakes the app at least every 15 minutes, moved or not:
    /// an hour standing still gives four updates.
    @Test func significantChangesComeAtLeastEvery15Minutes() {
        var timeline = Timeline(start: StopReferenceStrategyTests.shop)
        timeline.wait(3_600)
        var rng = SplitMix64(seed: 1)
        let walk = timeline.sampled(
            fixes: FixModel(intervalSeconds: 1, noiseSigmaMeters: 0), indoors: [], model: ErrandModel(), using: &rng)
        var strategy = NearestSignificantChangeStrategy(catalog: StopReferenceStrategyTests.catalog, regionLimit: 20)
        let report = PlatformReplay(platform: .iOS, seed: 1).replay(walk, strategy: &strategy, catalog: StopReferenceStrategyTests.catalog)
        #expect(report.networkFixes == 4)
    }
}

@Suite struct IndoorWakeFixTests {
    /// A woken app's fix indoors finds no satellites: the receiver runs its longest time to fix
    /// (iOS: 10 s) before the Wi-Fi position, where outdoors it stops at the fix (1–10 s).
    @Test func theWakeFixIndoorsRunsTheReceiverToItsLongest() throws {
        var timeline = Timeline(start: StopReferenceStrategyTests.shop.destination(bearingDegrees: 270, distanceMeters: 3_000))
        timeline.move(to: StopReferenceStrategyTests.shop.destination(bearingDegrees: 90, distanceMeters: 3_000), speed: 1.4)
        var rng = SplitMix64(seed: 1)
        let outdoors = timeline.sampled(
            fixes: FixModel(intervalSeconds: 1, noiseSigmaMeters: 0), indoors: [], model: ErrandModel(), using: &rng)
        var indoors = outdoors
        for i in indoors.samples.indices { indoors.samples[i].indoors = true }
        var platform = EmulatedPlatform.iOS
        platform.crossings.positionNoise = .none
        let replay = PlatformReplay(platform: platform, seed: 1)
        func run(_ walk: Walk) -> PlatformReplayReport {
            var strategy = NearestWithRefreshStrategy(catalog: StopReferenceStrategyTests.catalog, regionLimit: 2)
            return replay.replay(walk, strategy: &strategy, catalog: StopReferenceStrategyTests.catalog)
        }
        let outside = run(outdoors), inside = run(indoors)
        try #require(inside.fixesRequested > 1)
        #expect(inside.gnssOnSeconds == Double(inside.fixesRequested - 1) * 10)
        #expect(outside.gnssOnSeconds < inside.gnssOnSeconds)
    }
}

@Suite struct StillRuleEvaluationTests {
    /// A trip with a 10-minute stop at the shop and a 3-minute bus stop 1 km on: a rule that
    /// needs 2 minutes notices the stop 2 minutes in and calls the bus stop a decoy still; one
    /// that needs 5 minutes notices the stop only, 5 minutes in; neither is still while moving.
    @Test func stillsAreScoredAgainstTheTripsStopsAndDecoys() {
        var timeline = Timeline(start: StopReferenceStrategyTests.shop.destination(bearingDegrees: 270, distanceMeters: 1_000))
        timeline.move(to: StopReferenceStrategyTests.shop, speed: 1.4)
        let arrival = timeline.now
        timeline.wait(600)
        let departure = timeline.now
        let bus = StopReferenceStrategyTests.shop.destination(bearingDegrees: 90, distanceMeters: 1_000)
        timeline.move(to: bus, speed: 1.4)
        let busArrival = timeline.now
        timeline.wait(180)
        let busDeparture = timeline.now
        timeline.move(to: bus.destination(bearingDegrees: 90, distanceMeters: 1_000), speed: 1.4)
        var rng = SplitMix64(seed: 1)
        let walk = timeline.sampled(
            fixes: FixModel(intervalSeconds: 1, noiseSigmaMeters: 0), indoors: [], model: ErrandModel(), using: &rng)
        let trip = Trip(
            walk: walk, mode: .walking, stops: [TrueStop(placeID: "shop", arrivalSeconds: arrival, departureSeconds: departure)],
            decoys: [
                DecoyStop(kind: .busStop, nearPlaceID: "far", coordinate: bus, arrivalSeconds: busArrival, departureSeconds: busDeparture)
            ])
        var quick = StillRuleEvaluation.Result(rule: StillnessRule(radiusMeters: 20, durationSeconds: 120))
        StillRuleEvaluation.score(trip, into: &quick)
        #expect(quick.stops == 1 && quick.noticed == 1 && quick.longNoticed == 1)
        #expect(quick.latenciesSeconds.count == 1 && abs((quick.latenciesSeconds.first ?? 0) - 120) <= 15)
        #expect(quick.decoyStills == 1 && quick.falseStills == 0)
        var slow = StillRuleEvaluation.Result(rule: StillnessRule(radiusMeters: 20, durationSeconds: 300))
        StillRuleEvaluation.score(trip, into: &slow)
        #expect(slow.noticed == 1 && slow.decoyStills == 0 && slow.falseStills == 0)
        #expect(abs((slow.latenciesSeconds.first ?? 0) - 300) <= 15)
    }
}

@Suite struct AttributionEvaluationTests {
    /// A stop at the shop and a bus stop 1 km away, fixes exact: the stop goes to the shop with a
    /// high probability, the bus stop to "none of them"; a stop shorter than the settle time and
    /// burst is not asked.
    @Test func stopsAndDecoysAreAnsweredFromTheBurst() {
        let shop = StopReferenceStrategyTests.shop
        var timeline = Timeline(start: shop.destination(bearingDegrees: 270, distanceMeters: 500))
        timeline.move(to: shop, speed: 1.4)
        let arrival = timeline.now
        timeline.wait(600)
        let departure = timeline.now
        let bus = shop.destination(bearingDegrees: 90, distanceMeters: 1_000)
        timeline.move(to: bus, speed: 1.4)
        let busArrival = timeline.now
        timeline.wait(300)
        let busDeparture = timeline.now
        timeline.move(to: bus.destination(bearingDegrees: 90, distanceMeters: 200), speed: 1.4)
        var rng = SplitMix64(seed: 1)
        let walk = timeline.sampled(
            fixes: FixModel(intervalSeconds: 1, noiseSigmaMeters: 2), indoors: [], model: ErrandModel(), using: &rng)
        let trip = Trip(
            walk: walk, mode: .walking, stops: [TrueStop(placeID: "shop", arrivalSeconds: arrival, departureSeconds: departure)],
            decoys: [
                DecoyStop(kind: .busStop, nearPlaceID: "shop", coordinate: bus, arrivalSeconds: busArrival, departureSeconds: busDeparture)
            ])
        var result = AttributionEvaluation.Result()
        AttributionEvaluation.score(trip, catalog: StopReferenceStrategyTests.catalog, attribution: StopAttribution(), into: &result)
        #expect(result.stops == 1 && result.right == 1 && result.amongCandidates == 1)
        // A 50 m fence under fixes reporting 2 m: resolvable.
        #expect(result.resolvableStops == 1 && result.resolvableRight == 1)
        #expect(result.decoys == 1 && result.decoysRight == 1)
        #expect(result.bins[3].answers == 2 && result.bins[3].right == 2)
    }
}
