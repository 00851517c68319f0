import FencePlanner
import Foundation
import Geodesy
import RotateTestSupport
import Testing

@Suite struct RegistrationDiffTests {
    let here = Coordinate(validLatitude: 52.52, longitude: 13.405)

    func selection(_ fences: [Fence], refresh: RefreshRegion?) -> Selection {
        Selection(
            fix: Fix(here),
            monitored: fences.enumerated().map { MonitoredPlace(position: $0, fence: $1, edgeDistanceMeters: 10 * Double($0) - 5) },
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

    /// The one diff every host applies, on both of its paths (linear search up to 128 regions,
    /// hashing beyond), against a brute force over membership in each side.
    @Test(arguments: [(6, 8), (40, 50), (70, 90), (300, 280)])
    func changesEqualTheMembershipBruteForce(previousCount: Int, nextCount: Int) {
        var random = SplitMix64(seed: TestSeed.value(salt: UInt64(previousCount)))
        for _ in 0..<50 {
            // Distinct values from a range about as wide as both sides: some kept, some not.
            var pool = Array(0..<(previousCount + nextCount))
            pool.shuffle(using: &random)
            let previous = Array(pool.prefix(previousCount))
            pool.shuffle(using: &random)
            let next = Array(pool.prefix(nextCount))
            let changes = RegistrationDiff.changes(from: previous, to: next)
            let inNext = Set(next), inPrevious = Set(previous)
            #expect(changes.stop == previous.filter { !inNext.contains($0) })
            #expect(changes.start == next.indices.filter { !inPrevious.contains(next[$0]) })
        }
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
        #expect(throws: RotatorStateError.self) {
            try FenceRotator(catalog: otherPrefix, configuration: rotator.configuration, state: rotator.state)
        }
    }

    /// Valid states of real rotators, as stored: before the first fix, and along walks through a
    /// sparse catalog (exact selections), a dense one (degraded and exact), a ring of fences
    /// around the walk's start (saturated) and a catalog that fits in the slots (monitored whole,
    /// no refresh region); each with its catalog, configuration and the fixes that follow it.
    struct StoredState {
        var label: String
        var catalog: PlaceCatalog
        var configuration: RotationConfiguration
        var state: RotatorState
        var following: ArraySlice<Fix>
    }

    func storedStates() throws -> [StoredState] {
        var stored: [StoredState] = []
        let start = Coordinate(validLatitude: 45.8, longitude: 15.97)
        let walks: [(String, PlaceCatalog, RotationConfiguration, [Fix], [Int])] = [
            (
                "sparse", PlannerFixtures.catalog(count: 500, sideMeters: 10_000, radii: 50...200, seed: 31),
                RotationConfiguration(marginMeters: 20),
                PlannerFixtures.walk(count: 400, from: start, maxStepMeters: 150, seed: 32), [0, 300]
            ),
            (
                "dense", PlannerFixtures.catalog(count: 400, sideMeters: 1_200, radii: 30...120, seed: 33),
                RotationConfiguration(marginMeters: 20),
                PlannerFixtures.walk(count: 80, from: start, maxStepMeters: 40, seed: 34), Array(0..<80)
            ),
            (
                "mall",
                try PlaceCatalog(
                    places: (0..<40).map {
                        Place(
                            id: "mall\($0)", coordinate: start.destination(bearingDegrees: 9 * Double($0), distanceMeters: 30),
                            radiusMeters: 20)
                    }),
                RotationConfiguration(marginMeters: 50), PlannerFixtures.walk(count: 20, from: start, maxStepMeters: 5, seed: 36), [0]
            ),
            (
                "whole", PlannerFixturesForTests.small, RotationConfiguration(),
                PlannerFixtures.walk(count: 20, from: start, maxStepMeters: 100, seed: 35), [10]
            ),
        ]
        for (name, catalog, configuration, walk, keep) in walks {
            var rotator = try FenceRotator(catalog: catalog, configuration: configuration)
            if name == "sparse" {
                stored.append(
                    StoredState(
                        label: "\(name) before the first fix", catalog: catalog, configuration: configuration,
                        state: rotator.state, following: walk[...]))
            }
            var kinds: Set<String> = []
            for (i, fix) in walk.enumerated() {
                _ = rotator.update(with: fix)
                // Dense walk: the first state of each guarantee kind.
                let kind = rotator.state.guarantee?.name ?? "none"
                guard keep.contains(i), name != "dense" || kinds.insert(kind).inserted else { continue }
                stored.append(
                    StoredState(
                        label: "\(name) after fix \(i) (\(kind))", catalog: catalog, configuration: configuration,
                        state: rotator.state, following: walk[(i + 1)...]))
            }
        }
        return stored
    }

    /// A step into a JSON value: an object's member or an array's element.
    enum Step: CustomStringConvertible {
        case key(String)
        case index(Int)
        var description: String {
            switch self {
            case .key(let key): ".\(key)"
            case .index(let index): "[\(index)]"
            }
        }
    }

    /// Every value in `node` with its path (the root first); arrays by one element, drawn with
    /// `rng` (their elements are alike).
    static func paths(in node: Any, prefix: [Step] = [], rng: inout SplitMix64) -> [(path: [Step], value: Any)] {
        var result = [(prefix, node)]
        if let object = node as? [String: Any] {
            for key in object.keys.sorted() { result += paths(in: object[key]!, prefix: prefix + [.key(key)], rng: &rng) }
        } else if let array = node as? [Any], !array.isEmpty {
            let index = rng.nextInt(below: array.count)
            result += paths(in: array[index], prefix: prefix + [.index(index)], rng: &rng)
        }
        return result
    }

    /// `node` with the value at `path` replaced by `value`, or removed when `value` is nil.
    static func replacing(_ path: ArraySlice<Step>, in node: Any, with value: Any?) -> Any? {
        guard let step = path.first else { return value }
        switch step {
        case .key(let key):
            var object = node as! [String: Any]
            object[key] = replacing(path.dropFirst(), in: object[key]!, with: value)
            return object
        case .index(let index):
            var array = node as! [Any]
            array[index] = replacing(path.dropFirst(), in: array[index], with: value) ?? NSNull()
            return array
        }
    }

    static func kind(_ value: Any) -> String {
        switch value {
        case is NSNull: "null"
        case is String: "string"
        case is [Any]: "array"
        case is [String: Any]: "object"
        default: "number"
        }
    }

    /// Out-of-range values for a member, by its name: counts below 0 or not integers, huge
    /// numbers, coordinates beyond ±90 and ±180, radii not > 0 or beyond any catalog's and
    /// configuration's range, format versions this build does not read, empty identifiers and
    /// identifiers no catalog place or refresh region has, unknown transitions.
    static func outOfRange(_ name: String?) -> [Any] {
        switch name {
        case "format_version": [0, 3, -1, Int.max, 0.5, 1e300]
        case "reselections": [-1, Int.min, Int.max, 0.5, 1e300]
        case "catalog_version": [-1, Int.min, Int.max, 0.5, 1e300]
        case "overlapping": [-1, Int.min, 0.5, 1e300]
        case "lat": [90.5, -90.5, 1e300, -1e300]
        case "lon": [180.5, -180.5, 1e300, -1e300]
        case "radius_m": [-1, -0.5, -1e300, 1e300]
        case "fallback_distance_m": [-1, -1e300]
        case "kind": ["", "sideways", "Exact"]
        case "id": ["", "zz-unknown"]
        case "transitions": ["", "sideways"]
        default: []
        }
    }

    /// Stored states mutated one way at a time: each member removed, each value replaced by one of
    /// another JSON type (string, number, array, object, null), each number and identifier put
    /// out of range (see `outOfRange`), and the encoded text cut at random points. Every mutation
    /// is an error — `RotatorState` decoding throws `DecodingError`, or resuming a
    /// `FenceRotator` throws `RotatorStateError` — never a crash and never a state silently
    /// accepted, with two exceptions. The optional members are `guarantee` (nil before the first
    /// selection; not needed to resume) and `catalog_version` (nil in states written before
    /// versions existed; any integer is a version): removed, null, or for `catalog_version`
    /// another integer, the state is accepted and resumes as the stored one does — the same
    /// update for every following fix and the same state after a forced reselection — except
    /// that a saturated state, whose reach holds fences it does not monitor, no longer holds
    /// once its version is unknown and reselects at its next fix.
    @Test func mutatedStatesAreErrorsUnlessTheMemberIsOptional() throws {
        let seed = TestSeed.value(salt: 77)
        var rng = SplitMix64(seed: seed)
        let stored = try storedStates()
        #expect(Set(stored.compactMap(\.state.guarantee?.name)) == ["exact", "degraded", "saturated"])
        var accepted = 0, rejected = 0
        for sample in stored {
            let data = try JSONEncoder().encode(sample.state)
            let root = try JSONSerialization.jsonObject(with: data)
            let pristine = try FenceRotator(catalog: sample.catalog, configuration: sample.configuration, state: sample.state)

            func verdict(_ mutated: Data, _ what: String) -> FenceRotator? {
                let context = Comment(rawValue: "\(sample.label): \(what), \(TestSeed.replay(seed))")
                let state: RotatorState
                do {
                    state = try JSONDecoder().decode(RotatorState.self, from: mutated)
                } catch {
                    #expect(error is DecodingError, context)
                    rejected += 1
                    return nil
                }
                do {
                    let rotator = try FenceRotator(catalog: sample.catalog, configuration: sample.configuration, state: state)
                    accepted += 1
                    return rotator
                } catch {
                    rejected += 1
                    return nil
                }
            }

            var mutations: [(what: String, path: [Step], value: Any?)] = []
            for (path, value) in Self.paths(in: root, rng: &rng) {
                let name = path.last.flatMap { if case .key(let key) = $0 { key } else { nil } }
                let spelled = path.map(\.description).joined()
                if name != nil { mutations.append(("\(spelled) removed", path, nil)) }
                for other: Any in ["x", 7, ["x"], ["x": 1], NSNull()] where Self.kind(other) != Self.kind(value) {
                    mutations.append(("\(spelled) = \(other)", path, other))
                }
                for other in Self.outOfRange(name) { mutations.append(("\(spelled) = \(other)", path, other)) }
            }
            for mutation in mutations {
                let object = Self.replacing(mutation.path[...], in: root, with: mutation.value) ?? NSNull()
                let mutated = try JSONSerialization.data(withJSONObject: object, options: [.fragmentsAllowed])
                let context = "\(sample.label): \(mutation.what), \(TestSeed.replay(seed))"
                // The optional members, removed, null, or (the catalog version) another integer.
                let member = mutation.path.count == 1 ? mutation.path.first?.description : nil
                let absent = mutation.value == nil || mutation.value is NSNull
                let otherVersion =
                    member == ".catalog_version" && (absent || (mutation.value as? Int).map { $0 != sample.catalog.version } == true)
                let optional = (member == ".guarantee" && absent) || otherVersion
                guard var resumed = verdict(mutated, mutation.what) else {
                    #expect(!optional, "an optional member's mutation was rejected: \(context)")
                    continue
                }
                guard optional else {
                    Issue.record("a mutated state was accepted: \(context)")
                    continue
                }
                // Resumes as the stored state does.
                var reference = pristine
                let saturatedWithoutVersion = otherVersion && sample.state.reselections > 0 && sample.state.guarantee?.name == "saturated"
                #expect(resumed.mustReselect == saturatedWithoutVersion, "\(context)")
                for (i, fix) in sample.following.prefix(30).enumerated() {
                    let expected = i == 0 && saturatedWithoutVersion ? reference.reselect(at: fix) : reference.update(with: fix)
                    #expect(resumed.update(with: fix) == expected, "fix \(i) after: \(context)")
                }
                let far = Fix(
                    sample.following.last?.coordinate.destination(bearingDegrees: 90, distanceMeters: 50_000)
                        ?? Coordinate(validLatitude: 0, longitude: 0))
                #expect(resumed.reselect(at: far) == reference.reselect(at: far) && resumed.state == reference.state, "\(context)")
            }
            // Cut anywhere, the text is no longer JSON.
            for _ in 0..<20 {
                let cut = rng.nextInt(below: data.count)
                #expect(verdict(data.prefix(cut), "cut after \(cut) of \(data.count) bytes") == nil)
            }
        }
        #expect(accepted > 0 && rejected > 500)
    }
}
