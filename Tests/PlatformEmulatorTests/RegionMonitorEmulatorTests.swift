import FencePlanner
import Geodesy
import PlatformEmulator
import PlatformFacts
import RotateTestSupport
import Testing

/// Rules with no position error and no latency unless a test sets them, so each rule is seen
/// alone.
func exactRules(
    entryCushion: ClosedRange<Double> = 0...0, exitCushion: ClosedRange<Double> = 0...0, entryDepthFraction: Double = 0.5,
    stay: Double = 0, latency: PlatformProfile.LatencyDistribution = .constant(0),
    overLimit: EmulatedPlatform.OverLimit = .silentlyUnmonitored,
    insideAtRegistration: EmulatedPlatform.InsideAtRegistration = .noEvent,
    reusedIdentifier: EmulatedPlatform.ReusedIdentifier = .replaces, survivesReboot: Bool = true
) -> EmulatedPlatform {
    EmulatedPlatform(
        profile: PlatformProfile(
            name: "exact", regionLimit: 20, recommendedMinRadiusMeters: 0, maxRegionRadiusMeters: 400_000,
            crossings: PlatformProfile.Crossings(exitCushionMeters: exitCushion, staySeconds: stay, latency: latency, positionNoise: .none)),
        entryCushionMeters: entryCushion, entryDepthFraction: entryDepthFraction, overLimit: overLimit,
        insideAtRegistration: insideAtRegistration, reusedIdentifier: reusedIdentifier, regionsSurviveReboot: survivesReboot,
        regionsSurviveAppUpdate: survivesReboot)
}

/// A platform preset with its position error and latency switched off, to test its discrete rules.
func exactPreset(_ platform: EmulatedPlatform) -> EmulatedPlatform {
    var rules = platform
    rules.crossings.positionNoise = .none
    rules.crossings.latency = .constant(0)
    return rules
}

let center = Coordinate(validLatitude: 46.05, longitude: 14.51)

/// The point `meters` east of `center` (west when negative).
func east(_ meters: Double, of origin: Coordinate = center) -> Coordinate {
    origin.destination(bearingDegrees: 90, distanceMeters: meters)
}

@Suite struct RegionMonitorEmulatorTests {
    @Test func exitNeedsTheCushion() {
        var phone = RegionMonitorEmulator(platform: exactRules(exitCushion: 50...50), regionLimit: 20, seed: 1)
        _ = phone.advance(to: center, at: 0)
        #expect(phone.register(id: "f", center: center, radiusMeters: 100, at: 0) == .accepted)
        #expect(phone.advance(to: east(120), at: 1).isEmpty)
        #expect(phone.advance(to: east(149), at: 2).isEmpty, "just inside the cushion: no exit")
        let events = phone.advance(to: east(151), at: 3)
        #expect(events == [RegionEvent(kind: .exit, regionID: "f", decidedAtSeconds: 3, deliveredAtSeconds: 3)])
    }

    @Test func entryNeedsTheCushion() {
        var phone = RegionMonitorEmulator(platform: exactRules(entryCushion: 30...30), regionLimit: 20, seed: 1)
        _ = phone.advance(to: east(300), at: 0)
        phone.register(id: "f", center: center, radiusMeters: 100, at: 0)
        #expect(phone.advance(to: east(90), at: 1).isEmpty, "inside the fence, not past the cushion")
        #expect(phone.advance(to: east(71), at: 2).isEmpty)
        #expect(phone.advance(to: east(69), at: 3).map(\.kind) == [.enter])
    }

    @Test func entryDepthIsCappedForFencesSmallerThanTheCushion() {
        // Radius 40 m, cushion 30 m, fraction 0.5: the estimate must reach 20 m from the center.
        var phone = RegionMonitorEmulator(platform: exactRules(entryCushion: 30...30, entryDepthFraction: 0.5), regionLimit: 20, seed: 1)
        _ = phone.advance(to: east(300), at: 0)
        phone.register(id: "small", center: center, radiusMeters: 40, at: 0)
        #expect(phone.advance(to: east(21), at: 1).isEmpty)
        #expect(phone.advance(to: east(19), at: 2).map(\.kind) == [.enter])
    }

    @Test func leavingBeforeTheStayEndsGivesNothing() {
        var phone = RegionMonitorEmulator(platform: exactRules(exitCushion: 10...10, stay: 20), regionLimit: 20, seed: 1)
        _ = phone.advance(to: center, at: 0)
        phone.register(id: "f", center: center, radiusMeters: 100, at: 0)
        var events: [RegionEvent] = []
        for t in 1...19 { phone.advance(to: east(150), at: Double(t), into: &events) }
        phone.advance(to: east(50), at: 20, into: &events)  // back inside before 20 s outside
        #expect(events.isEmpty)
        for t in 21...40 { phone.advance(to: east(150), at: Double(t), into: &events) }
        #expect(events.isEmpty, "19 s into the second stay")
        phone.advance(to: east(150), at: 41, into: &events)
        #expect(events == [RegionEvent(kind: .exit, regionID: "f", decidedAtSeconds: 41, deliveredAtSeconds: 41)])
    }

    @Test func iOSSilentlyDropsRegistrationsBeyondTheLimit() {
        var phone = RegionMonitorEmulator(platform: exactPreset(.iOS), regionLimit: PlatformProfile.iOS.regionLimit, seed: 1)
        _ = phone.advance(to: east(-5_000), at: 0)
        for i in 0..<20 { #expect(phone.register(id: "f\(i)", center: east(Double(i) * 1_000), radiusMeters: 100, at: 0) == .accepted) }
        #expect(phone.register(id: "f20", center: east(20_000), radiusMeters: 100, at: 0) == .silentlyDropped)
        #expect(phone.registeredIDs.count == 21)
        #expect(!phone.isMonitored("f20"))
        #expect(phone.isMonitored("f0"))
        #expect(phone.advance(to: east(20_000), at: 1).isEmpty, "the dropped region never fires")
        #expect(phone.advance(to: east(0), at: 30).isEmpty, "the stay has begun")
        #expect(phone.advance(to: east(0), at: 50).map(\.regionID) == ["f0"])
    }

    @Test func androidRefusesRegistrationsBeyondTheLimitWith1001() {
        var phone = RegionMonitorEmulator(platform: .android, seed: 1)
        for i in 0..<100 { #expect(phone.register(id: "f\(i)", center: east(Double(i) * 1_000), radiusMeters: 100, at: 0) == .accepted) }
        #expect(phone.register(id: "f100", center: east(100_000), radiusMeters: 100, at: 0) == .rejected(errorCode: 1001))
        #expect(phone.registeredIDs.count == 100)
        #expect(!phone.registeredIDs.contains("f100"))
        let removed = phone.unregister(id: "f3", at: 1)
        #expect(removed)
        #expect(phone.register(id: "f100", center: east(100_000), radiusMeters: 100, at: 1) == .accepted)
    }

    @Test func iOSRegistrationWhileInsideGivesNoEntryButLaterAnExit() {
        var phone = RegionMonitorEmulator(platform: exactPreset(.iOS), regionLimit: 20, seed: 1)
        _ = phone.advance(to: center, at: 0)
        phone.register(id: "f", center: center, radiusMeters: 100, at: 0)
        var events: [RegionEvent] = []
        for t in 1...30 { phone.advance(to: center, at: Double(t), into: &events) }
        #expect(events.isEmpty)
        for t in 31...60 { phone.advance(to: east(400), at: Double(t), into: &events) }
        #expect(events.map(\.kind) == [.exit])
    }

    /// An app that asks for the state at registration hears an exit from a region registered
    /// while outside it (and nothing from one registered inside); an app that does not hears
    /// nothing until the device enters and leaves. Settled at the first position when there is
    /// no estimate yet.
    @Test(arguments: [EmulatedPlatform.iOS, .android, .ideal(delaySeconds: 0)])
    func askingTheStateAtRegistrationReportsAnExitWhenOutside(platform: EmulatedPlatform) {
        var phone = RegionMonitorEmulator(platform: exactPreset(platform), regionLimit: 100, seed: 1)
        phone.register(id: "early", center: east(5_000), radiusMeters: 100, at: 0, stateRequest: .exitIfOutside)
        #expect(phone.advance(to: center, at: 0).map { "\($0.kind) \($0.regionID)" } == ["exit early"])
        phone.register(id: "asked", center: east(1_000), radiusMeters: 100, at: 1, stateRequest: .exitIfOutside)
        phone.register(id: "silent", center: east(2_000), radiusMeters: 100, at: 1)
        phone.register(id: "inside", center: center, radiusMeters: 100, at: 1, stateRequest: .exitIfOutside)
        let events = phone.advance(to: center, at: 2)
        #expect(events.filter { $0.kind == .exit }.map(\.regionID) == ["asked"])
    }

    @Test(arguments: [(0.0, true), (1.0, false)])
    func androidRegistrationWhileInsideReportsTheInitialEntryUnlessDropped(dropProbability: Double, expectEntry: Bool) {
        var rules = exactPreset(.android)
        rules.insideAtRegistration = .initialEnter(dropProbability: dropProbability)
        var phone = RegionMonitorEmulator(platform: rules, regionLimit: 100, seed: 1)
        _ = phone.advance(to: center, at: 0)
        phone.register(id: "f", center: center, radiusMeters: 100, at: 0)
        let events = phone.advance(to: center, at: 1)
        #expect(events.map(\.kind) == (expectEntry ? [.enter] : []))
        // Registered outside: no initial entry either way.
        phone.register(id: "far", center: east(5_000), radiusMeters: 100, at: 2)
        #expect(phone.advance(to: center, at: 3).isEmpty)
    }

    @Test func androidInitialEntryIsDroppedAtTheConfiguredRate() {
        var rules = exactPreset(.android)
        rules.insideAtRegistration = .initialEnter(dropProbability: 0.5)
        var phone = RegionMonitorEmulator(platform: rules, regionLimit: .max, seed: TestSeed.value(salt: 11))
        _ = phone.advance(to: center, at: 0)
        let n = 4_000
        for i in 0..<n { phone.register(id: "f\(i)", center: center, radiusMeters: 100, at: 0) }
        let delivered = phone.advance(to: center, at: 1).count
        // Binomial(4000, 0.5): σ = 31.6; 5σ either side.
        #expect(abs(Double(delivered) - 2_000) < 160, "\(delivered) of \(n) delivered, \(TestSeed.replay(TestSeed.value(salt: 11)))")
    }

    /// A refresh region re-added under the same id at the device's new position, after its exit.
    func reusedRefreshRegion(_ rules: EmulatedPlatform, removeFirst: Bool = false) -> [RegionEvent] {
        var phone = RegionMonitorEmulator(platform: rules, regionLimit: 100, seed: 1)
        var events: [RegionEvent] = []
        phone.advance(to: center, at: 0, into: &events)
        phone.register(id: "refresh", center: center, radiusMeters: 200, at: 0)
        for t in 1...60 { phone.advance(to: east(Double(t) * 10), at: Double(t), into: &events) }  // out to 600 m
        let newCenter = east(600)
        if removeFirst { phone.unregister(id: "refresh", at: 60) }
        phone.register(id: "refresh", center: newCenter, radiusMeters: 200, at: 60)
        for t in 61...120 { phone.advance(to: east(Double(t) * 10), at: Double(t), into: &events) }  // out to 1,200 m
        return events
    }

    @Test func iOSReusedIdentifierReplacesTheRegion() {
        let events = reusedRefreshRegion(exactPreset(.iOS))
        #expect(events.map(\.kind) == [.exit, .exit], "\(events)")
    }

    @Test func androidReusedIdentifierSwallowsTheNextExit() {
        var rules = exactPreset(.android)
        rules.insideAtRegistration = .initialEnter(dropProbability: 0)
        let events = reusedRefreshRegion(rules)
        // The initial entry, the first exit; the exit from the new circle is swallowed.
        #expect(events.map(\.kind) == [.enter, .exit], "\(events)")
        // Removing the id before adding it again gives a fresh state: an initial entry, then the exit.
        let fresh = reusedRefreshRegion(rules, removeFirst: true)
        #expect(fresh.map(\.kind) == [.enter, .exit, .enter, .exit], "\(fresh)")
    }

    @Test func androidKeptStateRecoversAfterReenteringTheOldCircle() {
        var rules = exactPreset(.android)
        rules.insideAtRegistration = .initialEnter(dropProbability: 0)
        var phone = RegionMonitorEmulator(platform: rules, regionLimit: 100, seed: 1)
        var events: [RegionEvent] = []
        phone.advance(to: center, at: 0, into: &events)
        phone.register(id: "r", center: center, radiusMeters: 200, at: 0)
        phone.advance(to: east(600), at: 1, into: &events)
        phone.register(id: "r", center: east(600), radiusMeters: 200, at: 1)
        phone.advance(to: east(1_000), at: 2, into: &events)  // leaves the new circle: swallowed
        phone.advance(to: center, at: 3, into: &events)  // back in the old circle: an entry there
        phone.advance(to: east(600), at: 4, into: &events)
        phone.advance(to: east(1_000), at: 5, into: &events)  // now the new circle's exit fires
        #expect(events.map(\.kind) == [.enter, .exit, .enter, .exit], "\(events)")
        #expect(events.map(\.decidedAtSeconds) == [0, 1, 3, 5])
    }

    @Test func androidRebootAndAppUpdateRemoveEveryGeofence() {
        for restart in ["reboot", "update"] {
            var phone = RegionMonitorEmulator(platform: exactPreset(.android), regionLimit: 100, seed: 1)
            _ = phone.advance(to: east(1_000), at: 0)
            phone.register(id: "f", center: center, radiusMeters: 100, at: 0)
            if restart == "reboot" { phone.reboot(at: 1) } else { phone.updateApp(at: 1) }
            #expect(phone.registeredIDs.isEmpty)
            #expect(phone.advance(to: center, at: 2).isEmpty, "\(restart): nothing monitored")
            #expect(phone.register(id: "f", center: center, radiusMeters: 100, at: 3) == .accepted)
        }
        // The ideal phone keeps its regions.
        var ideal = RegionMonitorEmulator(platform: .ideal(delaySeconds: 0), seed: 1)
        _ = ideal.advance(to: east(1_000), at: 0)
        ideal.register(id: "f", center: center, radiusMeters: 100, at: 0)
        ideal.reboot(at: 1)
        #expect(ideal.advance(to: center, at: 2).map(\.kind) == [.enter])
    }

    @Test func idealPhoneDeliversAFixedDelayAfterTheFirstPositionPastTheBoundary() {
        var phone = RegionMonitorEmulator(platform: .ideal(delaySeconds: 127), seed: 1)
        var events: [RegionEvent] = []
        phone.advance(to: east(500), at: 0, into: &events)
        phone.register(id: "f", center: center, radiusMeters: 100, at: 0)
        phone.advance(to: east(100), at: 10, into: &events)  // on the boundary: inside
        phone.advance(to: east(100.01), at: 20, into: &events)  // just past it
        phone.advance(to: east(500), at: 500, into: &events)
        #expect(
            events == [
                RegionEvent(kind: .enter, regionID: "f", decidedAtSeconds: 10, deliveredAtSeconds: 137),
                RegionEvent(kind: .exit, regionID: "f", decidedAtSeconds: 20, deliveredAtSeconds: 147),
            ])
    }

    @Test func unregisteredRegionsDeliverNothingMore() {
        var phone = RegionMonitorEmulator(platform: .ideal(delaySeconds: 60), seed: 1)
        _ = phone.advance(to: east(500), at: 0)
        phone.register(id: "f", center: center, radiusMeters: 100, at: 0)
        _ = phone.advance(to: center, at: 1)
        #expect(phone.undeliveredEventCount == 1)
        phone.unregister(id: "f", at: 2)
        #expect(phone.advance(to: center, at: 100).isEmpty)
    }
}

@Suite struct StillPhoneTests {
    /// iOS gives no entry for a region registered while inside, unless the app asks for its state
    /// (`.current`): then an entry; Android's initial trigger reports ENTER and DWELL at once.
    @Test func registeringInsideGivesAnEntryOnlyWhenTheStateIsAsked() {
        var ios = RegionMonitorEmulator(platform: exactPreset(.iOS), regionLimit: 20, seed: 1)
        _ = ios.advance(to: center, at: 0)
        ios.register(id: "silent", center: center, radiusMeters: 100, at: 0)
        ios.register(id: "asked", center: center, radiusMeters: 100, at: 0, stateRequest: .current)
        ios.register(id: "exit-only", center: center, radiusMeters: 100, at: 0, stateRequest: .exitIfOutside)
        #expect(ios.advance(to: center, at: 1).map { "\($0.kind) \($0.regionID)" } == ["enter asked"])
        var rules = exactPreset(.android)
        rules.insideAtRegistration = .initialEnter(dropProbability: 0)
        var android = RegionMonitorEmulator(platform: rules, regionLimit: 100, seed: 1)
        _ = android.advance(to: center, at: 0)
        android.register(id: "shop", center: center, radiusMeters: 100, at: 0, dwellAfterSeconds: 300)
        #expect(android.advance(to: center, at: 1).map { "\($0.kind) \($0.regionID)" } == ["enter shop", "dwell shop"])
    }

    /// Android's DWELL comes the loitering delay after the entry, only while still inside, once;
    /// iOS has none.
    @Test func dwellComesAfterTheLoiteringDelayOnAndroidOnly() {
        for (platform, expectDwell) in [(exactPreset(.android), true), (exactPreset(.iOS), false)] {
            var phone = RegionMonitorEmulator(platform: platform, regionLimit: 100, seed: 1)
            _ = phone.advance(to: east(500), at: 0)
            phone.register(id: "shop", center: center, radiusMeters: 100, at: 0, dwellAfterSeconds: 300)
            phone.register(id: "passed", center: east(250), radiusMeters: 50, at: 0, dwellAfterSeconds: 300)
            var events: [RegionEvent] = []
            // Through "passed" (inside it for about 70 s) into "shop", then 10 minutes there.
            for t in 1...300 { phone.advance(to: east(500 - Double(t) * 1.5 - 50), at: Double(t), into: &events) }
            for t in 301...900 { phone.advance(to: center, at: Double(t), into: &events) }
            let dwells = events.filter { $0.kind == .dwell }
            let entry = events.first { $0.kind == .enter && $0.regionID == "shop" }?.decidedAtSeconds ?? -1
            #expect(dwells.map(\.regionID) == (expectDwell ? ["shop"] : []), "\(platform.profile.name)")
            if expectDwell { #expect(dwells.first?.decidedAtSeconds == entry + 300) }
        }
    }

    /// Android's latency grows once the device has been still a while: the same exit, decided at
    /// once after a registration, arrives at once while moving and after the still latency once
    /// the device has stood for its period.
    @Test func androidLatencyGrowsWhenStill() {
        var rules = exactPreset(.android)
        rules.stillLatency = EmulatedPlatform.StillLatency(afterSeconds: 300, radiusMeters: 20, latency: .constant(200))
        func exitDelay(standing: Bool) -> Double? {
            var phone = RegionMonitorEmulator(platform: rules, regionLimit: 100, seed: 1)
            var events: [RegionEvent] = []
            for t in 0...400 { phone.advance(to: standing ? center : east(Double(t) * 1.4), at: Double(t), into: &events) }
            phone.register(id: "far", center: east(5_000), radiusMeters: 100, at: 400, stateRequest: .exitIfOutside)
            for t in 401...700 { phone.advance(to: standing ? center : east(Double(t) * 1.4), at: Double(t), into: &events) }
            return events.first { $0.regionID == "far" }.map { $0.deliveredAtSeconds - $0.decidedAtSeconds }
        }
        #expect(exitDelay(standing: false) == 0)
        #expect(exitDelay(standing: true) == 200)
    }
}

@Suite struct VisitMonitoringTests {
    /// A stay of 10 minutes gives an arrival 5 minutes in (dated from the stay's start) and a
    /// departure with its arrival when the device leaves 50 m; a 4-minute stay gives nothing; a
    /// phone without visit monitoring (Android) never reports one.
    @Test(arguments: [true, false])
    func staysBecomeVisits(iOS: Bool) {
        var rules = exactPreset(iOS ? .iOS : .android)
        if iOS { rules.visitMonitoring = VisitMonitoring(radiusMeters: 50, arrivalAfterSeconds: 300, latency: .constant(0)) }
        var phone = RegionMonitorEmulator(platform: rules, regionLimit: 100, seed: 1)
        phone.startMonitoringVisits()
        var visits: [VisitEvent] = []
        var events: [RegionEvent] = []
        var t = 0.0
        func go(_ position: Coordinate, for seconds: Int) {
            for _ in 0..<seconds {
                t += 1
                phone.advance(to: position, at: t, into: &events)
                visits += phone.takeVisits()
            }
        }
        go(center, for: 240)  // 4 minutes
        go(east(500), for: 600)  // 10 minutes elsewhere
        go(east(2_000), for: 60)
        guard iOS else {
            #expect(visits.isEmpty)
            return
        }
        #expect(visits.count == 2)
        #expect(visits.first?.arrivalSeconds == 241 && visits.first?.departureSeconds == nil)
        #expect(visits.first?.deliveredAtSeconds == 541)
        #expect(visits.last?.arrivalSeconds == 241 && visits.last?.departureSeconds == 841)
    }
}

@Suite struct DozeTests {
    /// A phone standing on a fence's edge sees its noisy estimate cross the edge back and forth;
    /// once Android dozes (an hour still), the estimate stops changing and so do the events.
    @Test func dozingFreezesTheEstimate() {
        var rules = exactPreset(.android)
        rules.crossings.positionNoise = .networkLocation
        rules.stillLatency = nil
        var phone = RegionMonitorEmulator(platform: rules, regionLimit: 100, seed: 3)
        phone.register(id: "edge", center: center, radiusMeters: 100, at: 0)
        var events: [RegionEvent] = []
        for t in 0...7_200 { phone.advance(to: east(100), at: Double(t), into: &events) }
        let beforeDoze = events.filter { $0.decidedAtSeconds < 3_600 }.count
        let dozing = events.filter { $0.decidedAtSeconds > 3_600 }.count
        #expect(beforeDoze > 4)
        #expect(dozing == 0)
        // Walking away wakes it: the estimate follows again and the exit comes.
        for t in 7_201...7_500 { phone.advance(to: east(100 + Double(t - 7_200) * 1.4), at: Double(t), into: &events) }
        #expect(events.last?.kind == .exit)
    }
}
