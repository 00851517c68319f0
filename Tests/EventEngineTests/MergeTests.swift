import EventEngine
import FencePlanner
import Geodesy
import PlatformFacts
import RotateTestSupport
import Testing

/// The merge of platform events and the app's own decisions, rule by rule.
@Suite struct MergeTests {
    static let center = Coordinate(validLatitude: 45.8, longitude: 15.97)

    static func monitor(places: [Place] = [Place(id: "shop", coordinate: center, radiusMeters: 100)]) throws -> FenceMonitor {
        var configuration = RotationConfiguration()
        configuration.limit = 4
        configuration.headroom = 0
        configuration.maxTrustedAccuracyMeters = 50
        return try FenceMonitor(catalog: try PlaceCatalog(places: places), configuration: configuration)
    }

    static func fix(_ meters: Double, at t: Double, accuracy: Double = 5, source: FixSource = .continuous) -> MonitorInput {
        .fix(
            Fix(center.destination(bearingDegrees: 90, distanceMeters: meters), accuracyMeters: accuracy, timestampSeconds: t),
            source: source)
    }

    /// The platform's entry for a place the app entered from fixes is absorbed, and so is the
    /// app's decision for a place the platform entered first.
    @Test func eachVisitIsEnteredOnce() throws {
        var monitor = try Self.monitor()
        _ = monitor.handle(Self.fix(400, at: 0))
        var events: [PlaceEvent] = []
        for t in 1...5 { events += monitor.handle(Self.fix(20, at: Double(t))).placeEvents }
        #expect(events.map(\.kind) == [.entry])
        #expect(monitor.handle(.region(RegionReport(regionID: "shop", kind: .entry, timeSeconds: 6))).placeEvents.isEmpty)

        // The app woken far away (a single fix), then the platform's entry: the platform's is
        // the entry, and the fixes that follow agree with it.
        var other = try Self.monitor()
        _ = other.handle(Self.fix(400, at: 0, source: .wakeFix))
        let first = other.handle(.region(RegionReport(regionID: "shop", kind: .entry, timeSeconds: 1))).placeEvents
        #expect(first.map(\.kind) == [.entry] && first.first?.evidence == .platform)
        var later: [PlaceEvent] = []
        for t in 2...6 { later += other.handle(Self.fix(20, at: Double(t))).placeEvents }
        #expect(later.isEmpty, "the fixes agree with the platform: nothing new")
    }

    /// While fixes keep coming, a platform entry that a fix of a second ago contradicts (the user
    /// is far outside) is absorbed, and so is a late one after the app ended the visit; without a
    /// stream of fixes it is taken.
    @Test func aPlatformEntryContradictedByAFreshFixIsAbsorbed() throws {
        var monitor = try Self.monitor()
        _ = monitor.handle(Self.fix(400, at: 0))
        #expect(monitor.handle(.region(RegionReport(regionID: "shop", kind: .entry, timeSeconds: 1))).placeEvents.isEmpty)
        var events: [PlaceEvent] = []
        for t in 2...5 { events += monitor.handle(Self.fix(10, at: Double(t))).placeEvents }
        for t in 6...10 { events += monitor.handle(Self.fix(400, at: Double(t))).placeEvents }
        #expect(events.map(\.kind) == [.entry, .exit])
        #expect(monitor.handle(.region(RegionReport(regionID: "shop", kind: .entry, timeSeconds: 11))).placeEvents.isEmpty)
        _ = monitor.handle(Self.fix(400, at: 12, source: .wakeFix))
        let taken = monitor.handle(.region(RegionReport(regionID: "shop", kind: .entry, timeSeconds: 13))).placeEvents
        #expect(taken.map(\.kind) == [.entry])
    }

    /// A platform exit while a fresh fix puts the user inside is absorbed when fixes keep coming
    /// (a late exit; the rule decides the real one); one after the fixes stop is taken.
    @Test func aPlatformExitContradictedByAFreshFixIsAbsorbed() throws {
        // Twelve shops within 60 m for 3 place slots: saturated, continuous fixes.
        let places = (0..<12).map { i in
            Place(id: "p\(i)", coordinate: Self.center.destination(bearingDegrees: 30 * Double(i), distanceMeters: 60), radiusMeters: 80)
        }
        var monitor = try Self.monitor(places: places)
        var events: [PlaceEvent] = []
        for t in 0...4 { events += monitor.handle(Self.fix(60, at: Double(t))).placeEvents }
        #expect(monitor.locationRequest() == .continuous(distanceFilterMeters: 0))
        let entered = try #require(events.first { $0.kind == .entry }).placeID
        #expect(monitor.handle(.region(RegionReport(regionID: entered, kind: .exit, timeSeconds: 10))).placeEvents.isEmpty)
        let late = monitor.handle(.region(RegionReport(regionID: entered, kind: .exit, timeSeconds: 60))).placeEvents
        #expect(late.map(\.kind) == [.exit])
    }

    /// With no stream of fixes (the platform's regions suffice), a platform exit is taken even
    /// right after a fix inside: nothing else would end the visit.
    @Test func aPlatformExitWithoutFixesIsTaken() throws {
        var monitor = try Self.monitor()
        _ = monitor.handle(Self.fix(400, at: 0, source: .wakeFix))
        _ = monitor.handle(.region(RegionReport(regionID: "shop", kind: .entry, timeSeconds: 1)))
        _ = monitor.handle(Self.fix(10, at: 2, source: .significantChange))
        #expect(monitor.locationRequest() == .none)
        let exit = monitor.handle(.region(RegionReport(regionID: "shop", kind: .exit, timeSeconds: 3))).placeEvents
        #expect(exit.map(\.kind) == [.exit])
    }

    /// Untrusted fixes (too inaccurate, out of order, stale) never end a visit.
    @Test func untrustedFixesNeverExit() throws {
        var monitor = try Self.monitor()
        _ = monitor.handle(Self.fix(400, at: 0, source: .wakeFix))
        _ = monitor.handle(.region(RegionReport(regionID: "shop", kind: .entry, timeSeconds: 1)))
        var events: [PlaceEvent] = []
        for t in 2...20 { events += monitor.handle(Self.fix(2_000, at: Double(t), accuracy: 500)).placeEvents }
        #expect(events.isEmpty, "inaccurate fixes far away")
        let outOfOrder = monitor.handle(Self.fix(2_000, at: 5))
        #expect(outOfOrder.ignored != nil && outOfOrder.placeEvents.isEmpty)
        _ = monitor.handle(.registered(["shop"], atSeconds: 200))
        let stale = monitor.handle(Self.fix(2_000, at: 100))
        #expect(stale.ignored != nil && stale.placeEvents.isEmpty)
        #expect(monitor.state.tracks.first { $0.id == "shop" }?.inside == true)
        // Trusted fixes far away end it: one exit, after the dwell's three fixes.
        events = []
        for t in 201...205 { events += monitor.handle(Self.fix(2_000, at: Double(t))).placeEvents }
        #expect(events.map(\.kind) == [.exit])
    }

    /// A place registered while the fix is inside it is entered from that fix, and the
    /// platform's later state report does not enter it again.
    @Test func insideAtRegistrationIsEnteredByTheApp() throws {
        var monitor = try Self.monitor()
        let output = monitor.handle(
            .fix(
                Fix(Self.center.destination(bearingDegrees: 90, distanceMeters: 10), accuracyMeters: 5, timestampSeconds: 0),
                source: .wakeFix))
        #expect(output.operations.contains(.start(monitor.catalog.fences[0])))
        #expect(output.placeEvents.map(\.kind) == [.entry])
        #expect(monitor.handle(.region(RegionReport(regionID: "shop", kind: .entry, timeSeconds: 30))).placeEvents.isEmpty)
    }

    /// After the platform lost its registrations, every planned region is registered again.
    @Test func aPlatformResetRegistersEverythingAgain() throws {
        let places = (0..<10).map { i in
            Place(id: "p\(i)", coordinate: Self.center.destination(bearingDegrees: 36 * Double(i), distanceMeters: 500), radiusMeters: 50)
        }
        var monitor = try Self.monitor(places: places)
        _ = monitor.handle(Self.fix(0, at: 0))
        let planned = monitor.rotator.state
        let output = monitor.handle(.platformReset(atSeconds: 100))
        var expected: [RegistrationOperation] = planned.refresh.map { [.startRefresh($0)] } ?? []
        expected += planned.monitored.map(RegistrationOperation.start)
        #expect(output.operations == expected)
        #expect(!planned.monitored.isEmpty && planned.refresh != nil)
    }

    /// After a platform reset the engine registers everything again and asks for a fix; that fix
    /// reselects and enters the monitored place it is inside (the platform reports no entry for
    /// a region registered with the device inside, and its undelivered events are gone).
    @Test func aPlatformResetIsFollowedByAFixThatDecides() throws {
        let places = (0..<10).map { i in
            Place(id: "p\(i)", coordinate: Self.center.destination(bearingDegrees: 36 * Double(i), distanceMeters: 500), radiusMeters: 80)
        }
        var monitor = try Self.monitor(places: places)
        _ = monitor.handle(Self.fix(0, at: 0, source: .wakeFix))
        let reset = monitor.handle(.platformReset(atSeconds: 100))
        #expect(!reset.operations.isEmpty && reset.location == .oneFix)
        // The device is now inside p0 (500 m east... p0 is at bearing 0, 500 m north).
        let inside = Self.center.destination(bearingDegrees: 0, distanceMeters: 500)
        let next = monitor.handle(.fix(Fix(inside, accuracyMeters: 5, timestampSeconds: 101), source: .wakeFix))
        #expect(next.placeEvents.map(\.placeID) == ["p0"] && next.placeEvents.first?.kind == .entry)
        #expect(next.operations.contains { if case .stopRefresh = $0 { true } else { false } }, "reselected")
        #expect(next.location != .oneFix)
    }

    /// The refresh region's exit asks for a fix, and that fix reselects even inside the old circle.
    @Test func aRefreshExitReselectsOnTheNextFix() throws {
        let places = (0..<10).map { i in
            Place(id: "p\(i)", coordinate: Self.center.destination(bearingDegrees: 36 * Double(i), distanceMeters: 900), radiusMeters: 50)
        }
        var monitor = try Self.monitor(places: places)
        _ = monitor.handle(Self.fix(0, at: 0))
        let refresh = try #require(monitor.rotator.state.refresh)
        #expect(monitor.handle(Self.fix(5, at: 1)).operations.isEmpty, "inside the circle: nothing to change")
        let exit = monitor.handle(.region(RegionReport(regionID: refresh.id, kind: .exit, timeSeconds: 2)))
        #expect(exit.location == .oneFix)
        let next = monitor.handle(Self.fix(5, at: 3))
        #expect(next.operations.contains(.stopRefresh(refresh.id)))
        #expect(next.location != .oneFix)
    }
}
