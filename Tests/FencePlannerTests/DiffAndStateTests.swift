import FencePlanner
import Foundation
import Geodesy
import RotateTestSupport
import Testing

@Suite struct RegistrationDiffTests {
    let here = Coordinate(validLatitude: 52.52, longitude: 13.405)

    func selection(_ fences: [Fence], refresh: RefreshRegion?) -> Selection {
        Selection(fix: Fix(here), monitored: fences.enumerated().map { MonitoredPlace(position: $0, fence: $1, edgeDistanceMeters: 10 * Double($0) - 5) },
                  refresh: refresh, guarantee: .exact, nextUnmonitoredEdgeMeters: 100, trustedFix: true)
    }

    @Test func radiusCenterAndTransitionEditsAreStoppedAndStartedAgain() {
        let a = Fence(id: "a", center: here, radiusMeters: 100, transitions: .both)
        let b = Fence(id: "b", center: here.destination(bearingDegrees: 90, distanceMeters: 50), radiusMeters: 80, transitions: .entry)
        let c = Fence(id: "c", center: here.destination(bearingDegrees: 0, distanceMeters: 90), radiusMeters: 60, transitions: .exit)
        var b2 = b; b2.radiusMeters = 81
        var c2 = c; c2.center = here.destination(bearingDegrees: 0, distanceMeters: 91)
        var a2 = a; a2.transitions = .entry
        let old = RefreshRegion(id: "refresh-4", center: here, radiusMeters: 300)
        let new = RefreshRegion(id: "refresh-5", center: here, radiusMeters: 310)
        let diff = RegistrationDiff(from: [a, b, c], previousRefresh: old, to: selection([a2, b2, c2], refresh: new))
        #expect(diff.stop == [a, b, c])
        #expect(diff.start == [a2, b2, c2])
        let unchanged = RegistrationDiff(from: [a, b, c], previousRefresh: old, to: selection([a, b, c], refresh: new))
        #expect(unchanged.stop.isEmpty && unchanged.start.isEmpty)
        #expect(unchanged.stopRefresh == "refresh-4" && unchanged.startRefresh == new)
    }

    @Test func operationsPutTheRefreshFirstAndStopsBeforeStarts() {
        let a = Fence(id: "a", center: here, radiusMeters: 100, transitions: .both)
        let b = Fence(id: "b", center: here, radiusMeters: 50, transitions: .both)
        let old = RefreshRegion(id: "refresh-0", center: here, radiusMeters: 300)
        let new = RefreshRegion(id: "refresh-1", center: here, radiusMeters: 200)
        let diff = RegistrationDiff(from: [a], previousRefresh: old, to: selection([b], refresh: new))
        #expect(diff.operations == [.stopRefresh("refresh-0"), .stop(a), .startRefresh(new), .start(b)])
        #expect(diff.insideAtStart == ["b"])
    }
}

@Suite struct RotatorStateTests {
    func rotatorAndWalk() throws -> (FenceRotator, [Fix]) {
        let catalog = PlannerFixtures.catalog(count: 500, sideMeters: 10_000, radii: 50...200, seed: 31)
        let rotator = try FenceRotator(catalog: catalog, configuration: RotationConfiguration(marginMeters: 20))
        let walk = PlannerFixtures.walk(count: 400, from: Coordinate(validLatitude: 45.8, longitude: 15.97), maxStepMeters: 150, seed: 32)
        return (rotator, walk)
    }

    @Test func stateRoundTripsThroughJSONAndResumesIdentically() throws {
        var (uninterrupted, walk) = try rotatorAndWalk()
        var (resumable, _) = try rotatorAndWalk()
        let catalog = uninterrupted.catalog, config = uninterrupted.configuration
        for (i, fix) in walk.enumerated() {
            let expected = uninterrupted.update(with: fix)
            let data = try JSONEncoder().encode(resumable.state)
            let decoded = try JSONDecoder().decode(RotatorState.self, from: data)
            #expect(decoded == resumable.state)
            resumable = try FenceRotator(catalog: catalog, configuration: config, state: decoded)
            #expect(resumable.update(with: fix) == expected, "fix \(i)")
        }
        #expect(uninterrupted.state.reselections > 3)
    }

    func stateJSON(_ rotator: FenceRotator) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(rotator.state)) as? [String: Any])
    }

    func decode(_ object: Any) throws -> RotatorState {
        try JSONDecoder().decode(RotatorState.self, from: JSONSerialization.data(withJSONObject: object))
    }

    @Test func corruptOrForeignStatesAreErrorsNotCrashes() throws {
        var (rotator, walk) = try rotatorAndWalk()
        for fix in walk.prefix(50) { _ = rotator.update(with: fix) }
        let good = try stateJSON(rotator)
        #expect(try decode(good) == rotator.state)

        var wrongVersion = good; wrongVersion["format_version"] = 99
        var negative = good; negative["reselections"] = -1
        var noKeys: [String: Any] = [:]; noKeys["format_version"] = 1
        var badFence = good
        if var monitored = good["monitored"] as? [[String: Any]], !monitored.isEmpty {
            monitored[0]["radius_m"] = -5
            badFence["monitored"] = monitored
        }
        var duplicate = good
        if let monitored = good["monitored"] as? [[String: Any]], let first = monitored.first {
            duplicate["monitored"] = monitored + [first]
        }
        var badCenter = good
        if var monitored = good["monitored"] as? [[String: Any]], !monitored.isEmpty {
            monitored[0]["center"] = ["lat": 123.0, "lon": 0.0]
            badCenter["monitored"] = monitored
        }
        for corrupt in [wrongVersion, negative, noKeys, badFence, duplicate, badCenter] {
            #expect(throws: DecodingError.self) { try decode(corrupt) }
        }
        for garbage in ["", "null", "[]", "{\"format_version\":\"1\"}", "{{{{", "\u{0}\u{1}"] {
            #expect(throws: (any Error).self) { try JSONDecoder().decode(RotatorState.self, from: Data(garbage.utf8)) }
        }
        // Well-formed but foreign to this configuration or catalog.
        let tight = RotationConfiguration(limit: 5, headroom: 0)
        #expect(throws: RotatorStateError.self) { try FenceRotator(catalog: rotator.catalog, configuration: tight, state: rotator.state) }
        let otherPrefix = try PlaceCatalog(places: rotator.catalog.places, refreshIdentifierPrefix: "ring#")
        #expect(throws: RotatorStateError.self) { try FenceRotator(catalog: otherPrefix, configuration: rotator.configuration, state: rotator.state) }
    }

    @Test func randomBytesNeverCrashTheDecoder() {
        var rng = SplitMix64(seed: TestSeed.value(salt: 77))
        for _ in 0..<500 {
            let bytes = (0..<rng.nextInt(below: 64)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            _ = try? JSONDecoder().decode(RotatorState.self, from: Data(bytes))
        }
    }
}
