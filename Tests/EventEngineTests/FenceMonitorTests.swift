import FencePlanner
import FenceRules
import Foundation
import Geodesy
import RotateTestSupport
import Testing

@testable import EventEngine

/// Fixes with times, from `PlannerFixtures.walk` (one a second).
func timedWalk(count: Int, from start: Coordinate, maxStepMeters: Double, inaccurateShare: Double = 0, seed: UInt64) -> [Fix] {
    PlannerFixtures.walk(count: count, from: start, maxStepMeters: maxStepMeters, inaccurateShare: inaccurateShare, seed: seed)
        .enumerated().map { i, fix in Fix(fix.coordinate, accuracyMeters: fix.accuracyMeters, timestampSeconds: Double(i)) }
}

/// The sequence of entries and exits for each place, checked: it alternates from an entry, a
/// dwell comes at most once between an entry and its exit, and times never go back.
func checkVisitShape(_ events: [PlaceEvent], _ context: String) {
    var inside: [String: Bool] = [:]
    var dwelt: [String: Bool] = [:]
    var lastTime = -Double.infinity
    for event in events {
        #expect(event.timeSeconds >= lastTime, "\(context): time went back at \(event)")
        lastTime = event.timeSeconds
        switch event.kind {
        case .entry:
            #expect(inside[event.placeID] != true, "\(context): second entry \(event)")
            inside[event.placeID] = true
            dwelt[event.placeID] = false
        case .exit:
            #expect(inside[event.placeID] == true, "\(context): exit without an entry \(event)")
            inside[event.placeID] = false
        case .dwell:
            #expect(inside[event.placeID] == true && dwelt[event.placeID] == false, "\(context): dwell out of place \(event)")
            dwelt[event.placeID] = true
        }
    }
}

@Suite struct FenceMonitorTests {
    static let center = Coordinate(validLatitude: 45.8, longitude: 15.97)

    /// The published in-app result the rules were designed from: a 100 m fence crossed at 10 m/s
    /// through its center, one fix a second on the exact route reported with 5 m accuracy taken
    /// as one σ: entered at about 69–70 m and exited at about 131–132 m from the center.
    @Test func reproducesThePublishedCrossing() throws {
        let catalog = try PlaceCatalog(places: [Place(id: "shop", coordinate: Self.center, radiusMeters: 100)])
        var monitor = try FenceMonitor(catalog: catalog, configuration: RotationConfiguration())
        let start = Self.center.destination(bearingDegrees: 270, distanceMeters: 300.5)
        var events: [(PlaceEvent, Double)] = []
        for second in 0...60 {
            let position = start.destination(bearingDegrees: 90, distanceMeters: 10 * Double(second))
            let output = monitor.handle(.fix(Fix(position, accuracyMeters: 5, timestampSeconds: Double(second)), source: .continuous))
            for event in output.placeEvents { events.append((event, position.distance(to: Self.center))) }
        }
        #expect(events.map(\.0.kind) == [.entry, .exit])
        #expect(events.allSatisfy { $0.0.evidence.name == "app" })
        let entry = try #require(events.first).1
        let exit = try #require(events.last).1
        #expect(abs(entry - 69.5) <= 3, "entered at \(entry) m")
        #expect(abs(exit - 131.5) <= 3, "exited at \(exit) m")
    }

    /// With fixes only, the engine emits exactly what the confident rule gives when every fence
    /// of the catalog is checked at every trusted fix (the brute force), on random walks among
    /// overlapping fences, with untrusted fixes mixed in.
    /// Runs 6 and up mix in footprints (star shapes, some with a hole): the rule on each then
    /// watches the polygon.
    @Test(arguments: 0..<9)
    func fixesAloneMatchTheRuleOnEveryFence(run: Int) throws {
        let seed = TestSeed.value(salt: 0x4D4F_4E00 + UInt64(run))
        var rng = SplitMixForSeeds(state: seed)
        let catalog = PlannerFixtures.catalog(
            count: 150, sideMeters: 1_500, center: Self.center, radii: 30...150, footprintShare: run >= 6 ? 0.7 : 0, seed: seed)
        var configuration = RotationConfiguration()
        configuration.maxTrustedAccuracyMeters = 25
        // Odd runs with the speed-adaptive dwell.
        var settings = FenceMonitor.Settings()
        settings.dwellMeters = run % 2 == 1 ? 20 : nil
        var monitor = try FenceMonitor(catalog: catalog, configuration: configuration, settings: settings)
        let step = rng.uniform(1, 25)
        let fixes = timedWalk(count: 900, from: Self.center, maxStepMeters: step, inaccurateShare: 0.05, seed: seed)
        var rules = catalog.places.map { place in
            var rule = ConfidentRule(
                fence: CircularFence(center: place.coordinate, radiusMeters: place.radiusMeters), dwellMeters: settings.dwellMeters)
            rule.footprint = place.footprint
            return rule
        }
        var expected: [String] = []
        var actual: [String] = []
        for fix in fixes {
            let time = fix.timestampSeconds ?? 0
            let trusted = (fix.accuracyMeters ?? 0) <= configuration.maxTrustedAccuracyMeters
            if trusted {
                var here: [String] = []
                for i in rules.indices {
                    let outcome = rules[i].update(with: RuleFix(fix.coordinate, accuracyMeters: fix.accuracyMeters, timestampSeconds: time))
                    if let event = outcome.event { here.append("\(catalog.places[i].id) \(event == .enter ? "entry" : "exit") \(time)") }
                }
                expected += here.sorted()
            }
            let output = monitor.handle(.fix(fix, source: .continuous))
            actual += output.placeEvents.map { "\($0.placeID) \($0.kind.rawValue) \($0.timeSeconds)" }.sorted()
        }
        #expect(!expected.isEmpty, "the walk should enter some fence: \(TestSeed.replay(seed))")
        #expect(actual == expected, "\(TestSeed.replay(seed))")
    }

    /// Fixes and platform events mixed at random (entries and exits of nearby places, repeated,
    /// late and out of place): every place's events alternate entry and exit, dwells come once per
    /// visit, and nothing is emitted twice.
    @Test(arguments: 0..<6)
    func mixedSourcesNeverEmitTwice(run: Int) throws {
        let seed = TestSeed.value(salt: 0x4D49_5800 + UInt64(run))
        var rng = SplitMixForSeeds(state: seed)
        let catalog = PlannerFixtures.catalog(count: 120, sideMeters: 1_200, center: Self.center, radii: 40...120, seed: seed)
        var settings = FenceMonitor.Settings()
        for place in catalog.places.prefix(60) { settings.dwellSeconds[place.id] = rng.uniform(5, 60) }
        var monitor = try FenceMonitor(catalog: catalog, configuration: RotationConfiguration(), settings: settings)
        var events: [PlaceEvent] = []
        for input in Self.mixedInputs(catalog: catalog, count: 1_200, rng: &rng, seed: seed) {
            events += monitor.handle(input).placeEvents
        }
        #expect(events.contains { $0.evidence == .platform } && events.contains { $0.evidence.name == "app" })
        checkVisitShape(events, TestSeed.replay(seed))
    }

    /// A random stream of fixes (some untrusted, some out of order) and platform reports for the
    /// places near the walk and the refresh regions.
    static func mixedInputs(catalog: PlaceCatalog, count: Int, rng: inout SplitMixForSeeds, seed: UInt64) -> [MonitorInput] {
        let fixes = timedWalk(count: count, from: center, maxStepMeters: 6, inaccurateShare: 0.05, seed: seed)
        var inputs: [MonitorInput] = []
        for fix in fixes {
            let time = fix.timestampSeconds ?? 0
            let draw = rng.unit()
            if draw < 0.75 {
                inputs.append(.fix(fix, source: .continuous))
            } else if draw < 0.8 {
                // Out of order: an older time.
                inputs.append(
                    .fix(Fix(fix.coordinate, accuracyMeters: fix.accuracyMeters, timestampSeconds: time - 5), source: .continuous))
            } else if draw < 0.97 {
                let near = catalog.index.nearest(3, to: fix.coordinate, measuredTo: .edge)
                let place = catalog.places[near[Int(rng.next() % UInt64(near.count))].index]
                inputs.append(.region(RegionReport(regionID: place.id, kind: rng.unit() < 0.5 ? .entry : .exit, timeSeconds: time)))
            } else {
                inputs.append(.region(RegionReport(regionID: "refresh-\(rng.next() % 4)", kind: .exit, timeSeconds: time)))
            }
        }
        return inputs
    }

    /// A fix the refresh region keeps away from every unmonitored place skips the index search;
    /// the answers and states are the same as with the search at every fix, on walks through a
    /// sparse catalog (mostly `exact`, with and without a margin) with fixes of every source and
    /// accuracy, platform events and refresh exits mixed in.
    @Test(arguments: 0..<6)
    func refreshBoundLeavesAnswersUnchanged(run: Int) throws {
        let seed = TestSeed.value(salt: 0x5242_4400 + UInt64(run))
        var rng = SplitMixForSeeds(state: seed)
        let catalog = PlannerFixtures.catalog(count: 400, sideMeters: 12_000, center: Self.center, radii: 40...400, seed: seed)
        var configuration = RotationConfiguration()
        configuration.marginMeters = run % 2 == 0 ? 0 : 150
        configuration.maxTrustedAccuracyMeters = 40
        var searching = try FenceMonitor(catalog: catalog, configuration: configuration)
        searching.boundsNeighborhoodByRefresh = false
        var bounded = try FenceMonitor(catalog: catalog, configuration: configuration)
        let fixes = timedWalk(count: 2_500, from: Self.center, maxStepMeters: rng.uniform(5, 60), inaccurateShare: 0.1, seed: seed)
        var skipped = 0
        var events = 0
        for (k, fix) in fixes.enumerated() {
            let time = fix.timestampSeconds ?? 0
            let draw = rng.unit()
            let input: MonitorInput
            let sources: [FixSource] = [.continuous, .wakeFix, .significantChange]
            if draw < 0.6 {
                input = .fix(fix, source: sources[Int(rng.next() % 3)])
            } else if draw < 0.85, let refresh = bounded.rotator.state.refresh {
                // A probe where the bound is tight: just inside the refresh circle, toward the
                // nearest place it does not monitor.
                let monitored = Set(bounded.rotator.state.monitored.map(\.id))
                let outside = catalog.index.nearest(bounded.rotator.state.monitored.count + 1, to: refresh.center, measuredTo: .edge)
                    .first { !monitored.contains(catalog.places[$0.index].id) }
                let toward = outside.map { refresh.center.initialBearingDegrees(to: catalog.places[$0.index].coordinate) } ?? 0
                let probe = refresh.center.destination(
                    bearingDegrees: toward, distanceMeters: max(0, refresh.radiusMeters - rng.uniform(0, 60)))
                input = .fix(Fix(probe, accuracyMeters: rng.uniform(0, 45), timestampSeconds: time), source: sources[Int(rng.next() % 3)])
            } else if draw < 0.97 {
                let near = catalog.index.nearest(3, to: fix.coordinate, measuredTo: .edge)
                let place = catalog.places[near[Int(rng.next() % UInt64(near.count))].index]
                input = .region(RegionReport(regionID: place.id, kind: rng.unit() < 0.5 ? .entry : .exit, timeSeconds: time))
            } else {
                let refresh = bounded.rotator.state.refresh?.id ?? "refresh-0"
                input = .region(RegionReport(regionID: refresh, kind: .exit, timeSeconds: time))
            }
            let expected = searching.handle(input)
            let actual = bounded.handle(input)
            #expect(actual == expected, "input \(k): \(TestSeed.replay(seed))")
            #expect(bounded.state == searching.state, "input \(k): \(TestSeed.replay(seed))")
            if actual != expected || bounded.state != searching.state { break }
            events += actual.placeEvents.count
            if case .fix(let fix, _) = input, let bound = bounded.rotator.unmonitoredEdgeBound(from: UnitVector(fix.coordinate)),
                bound > 4 * bounded.sigma(of: fix) + 1
            {
                skipped += 1
            }
        }
        #expect(skipped > fixes.count / 4, "the bound should hold at many fixes: \(skipped); \(TestSeed.replay(seed))")
        #expect(events > 0, "the walk should visit some place: \(TestSeed.replay(seed))")
    }

    /// A monitor stored and resumed at any point answers the rest of the inputs as the original.
    @Test(arguments: 0..<4)
    func resumedStateAnswersIdentically(run: Int) throws {
        let seed = TestSeed.value(salt: 0x5245_5300 + UInt64(run))
        var rng = SplitMixForSeeds(state: seed)
        let catalog = PlannerFixtures.catalog(count: 300, sideMeters: 2_000, center: Self.center, radii: 40...120, seed: seed)
        var settings = FenceMonitor.Settings()
        settings.dwellSeconds = Dictionary(uniqueKeysWithValues: catalog.places.prefix(100).map { ($0.id, 30.0) })
        let configuration = RotationConfiguration()
        let inputs = Self.mixedInputs(catalog: catalog, count: 600, rng: &rng, seed: seed)
        var original = try FenceMonitor(catalog: catalog, configuration: configuration, settings: settings)
        let cut = Int(rng.next() % UInt64(inputs.count))
        for input in inputs[..<cut] { _ = original.handle(input) }
        let stored = try JSONEncoder().encode(original.state)
        let state = try JSONDecoder().decode(MonitorState.self, from: stored)
        #expect(state == original.state)
        var resumed = try FenceMonitor(catalog: catalog, configuration: configuration, settings: settings, state: state)
        for (k, input) in inputs[cut...].enumerated() {
            let a = original.handle(input)
            let b = resumed.handle(input)
            #expect(a == b, "input \(cut + k): \(TestSeed.replay(seed))")
            if a != b { break }
        }
    }

    /// A state of another format version, or inconsistent, is refused.
    @Test func corruptStatesAreRefused() throws {
        let catalog = PlannerFixtures.catalog(count: 50, sideMeters: 1_000, center: Self.center, seed: 3)
        var monitor = try FenceMonitor(catalog: catalog, configuration: RotationConfiguration())
        _ = monitor.handle(.fix(Fix(catalog.places[0].coordinate, accuracyMeters: 5, timestampSeconds: 0), source: .continuous))
        let good = try JSONSerialization.jsonObject(with: JSONEncoder().encode(monitor.state)) as? [String: Any] ?? [:]
        var bad: [[String: Any]] = []
        var version = good
        version["format_version"] = 99
        bad.append(version)
        var duplicate = good
        if let tracks = good["tracks"] as? [Any], let first = tracks.first { duplicate["tracks"] = [first, first] }
        bad.append(duplicate)
        for object in bad {
            let data = try JSONSerialization.data(withJSONObject: object)
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(MonitorState.self, from: data) }
        }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(MonitorState.self, from: Data("{}".utf8)) }
    }
}
