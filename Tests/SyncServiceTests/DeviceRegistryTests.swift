import EventEngine
import FencePlanner
import Geodesy
import RotateTestSupport
import SyncService
import Testing

/// `DeviceRegistry` against the obvious references: one `FenceMonitor` per device in a
/// dictionary, each resumed from its own state whenever the catalog version changes, and one
/// `FenceRotator` per device for what the platforms hold.
@Suite struct DeviceRegistryTests {
    static let catalog = PlannerFixtures.catalog(count: 600, sideMeters: 6_000, radii: 50...300, seed: 41)
    static let configuration = RotationConfiguration(limit: 12, headroom: 1, marginMeters: 20)

    @Test func interleavedDevicesAndACatalogChangeMatchOneRotatorPerDevice() throws {
        let seed = TestSeed.value(salt: 4_100)
        let start = Coordinate(validLatitude: 45.8, longitude: 15.97)
        let walks = (0..<6).map { d in PlannerFixtures.walk(count: 80, from: start, maxStepMeters: 60, seed: seed ^ UInt64(d)) }
        var registry = DeviceRegistry(catalog: Self.catalog, configuration: Self.configuration)
        var reference: [String: FenceRotator] = [:]
        var engines: [String: FenceMonitor] = [:]
        var catalog = Self.catalog
        // Removes the places the first device monitors halfway through, and moves another.
        var changed = false
        for step in 0..<80 {
            if step == 40 {
                let monitored = try #require(reference["d0"]).state.monitored.map(\.id)
                let changes =
                    monitored.prefix(3).map { CatalogChange.remove(id: $0) }
                    + [.move(id: catalog.places[7].id, to: start)]
                let answers = try registry.apply(changes)
                catalog = try catalog.applying(changes)
                // Every device's engine is handed the new catalog (the brute force): a state the
                // change broke is replanned at its refresh center when that plan covers the old
                // circle, else the engine asks for a fix.
                for (device, rotator) in reference {
                    var resumed = try FenceRotator(catalog: catalog, configuration: Self.configuration, state: rotator.state)
                    if resumed.mustReselect { _ = resumed.replanAtRefreshCenter() }
                    reference[device] = resumed
                }
                var expected: [String: MonitorOutput] = [:]
                for (device, engine) in engines {
                    var handed = engine
                    expected[device] = handed.handle(.catalog(catalog, atSeconds: engine.state.lastInputSeconds ?? 0))
                    engines[device] = handed
                }
                // The registry answers exactly the devices whose engine has something to say (a
                // plan to push, a fix to ask for, a visit to end), in id order, with that answer.
                let said = expected.filter { !$0.value.operations.isEmpty || !$0.value.placeEvents.isEmpty || $0.value.location == .oneFix }
                #expect(answers.map(\.device) == said.keys.sorted(), "\(TestSeed.replay(seed))")
                for (device, output) in answers { #expect(output == expected[device], "\(device), \(TestSeed.replay(seed))") }
                #expect(answers.contains { !$0.output.operations.isEmpty }, "the first device's plan is pushed")
                changed = true
            }
            for (d, walk) in walks.enumerated() {
                let device = "d\(d)"
                let fix = Fix(walk[step].coordinate, accuracyMeters: walk[step].accuracyMeters, timestampSeconds: Double(step))
                var rotator = try reference[device] ?? FenceRotator(catalog: catalog, configuration: Self.configuration)
                let update = rotator.update(with: fix)
                reference[device] = rotator
                var engine = try engines[device] ?? FenceMonitor(catalog: catalog, configuration: Self.configuration)
                let expected = engine.handle(.fix(fix, source: .continuous))
                engines[device] = engine
                let output = try registry.handle(.fix(fix, source: .continuous), from: device)
                #expect(output == expected, "\(device) step \(step), \(TestSeed.replay(seed))")
                #expect(output.operations == (update?.diff.operations ?? []), "\(device) step \(step), \(TestSeed.replay(seed))")
            }
        }
        #expect(changed && registry.catalog.version == catalog.version)
        #expect(registry.states == engines.mapValues(\.state))
        #expect(registry.states.mapValues(\.rotator) == reference.mapValues(\.state))
        #expect(registry.count == walks.count)
    }

    @Test func restoredStatesResumeAtTheFirstReportAndForeignOnesAreRefused() throws {
        var first = DeviceRegistry(catalog: Self.catalog, configuration: Self.configuration)
        let position = Coordinate(validLatitude: 45.8, longitude: 15.97)
        _ = try first.handle(.fix(Fix(position, timestampSeconds: 0), source: .continuous), from: "a")
        var second = DeviceRegistry(catalog: Self.catalog, configuration: Self.configuration)
        try second.restore(first.states)
        #expect(second.count == 1 && second.states == first.states)
        // Resumed, not started afresh: the same position inside the refresh region changes nothing.
        #expect(try second.handle(.fix(Fix(position, timestampSeconds: 1), source: .continuous), from: "a").operations.isEmpty)

        var foreign = try #require(first.states["a"])
        foreign.rotator.monitored = Array(repeating: foreign.rotator.monitored[0], count: 20)  // more places than slots
        var third = DeviceRegistry(catalog: Self.catalog, configuration: Self.configuration)
        #expect(throws: DeviceError.self) { try third.restore(["ok": first.states["a"]!, "bad": foreign]) }
        #expect(third.count == 0, "nothing is added when one state is refused")
        do {
            try third.restore(["bad": foreign])
        } catch {
            #expect(error.device == "bad")
        }
    }
}
