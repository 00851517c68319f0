import FencePlanner
import Geodesy
import RotateTestSupport
import SyncService
import Testing

/// `DeviceRegistry` against the obvious reference: one `FenceRotator` per device in a dictionary,
/// each resumed from its own state whenever the catalog version changes.
@Suite struct DeviceRegistryTests {
    static let catalog = PlannerFixtures.catalog(count: 600, sideMeters: 6_000, radii: 50...300, seed: 41)
    static let configuration = RotationConfiguration(limit: 12, headroom: 1, marginMeters: 20)

    @Test func interleavedDevicesAndACatalogChangeMatchOneRotatorPerDevice() throws {
        let seed = TestSeed.value(salt: 4_100)
        let start = Coordinate(validLatitude: 45.8, longitude: 15.97)
        let walks = (0..<6).map { d in PlannerFixtures.walk(count: 80, from: start, maxStepMeters: 60, seed: seed ^ UInt64(d)) }
        var registry = DeviceRegistry(catalog: Self.catalog, configuration: Self.configuration)
        var reference: [String: FenceRotator] = [:]
        var catalog = Self.catalog
        // Removes the places the first device monitors halfway through, and moves another.
        var changed = false
        for step in 0..<80 {
            if step == 40 {
                let monitored = try #require(reference["d0"]).state.monitored.map(\.id)
                let changes =
                    monitored.prefix(3).map { CatalogChange.remove(id: $0) }
                    + [.move(id: catalog.places[7].id, to: start)]
                try registry.apply(changes)
                catalog = try catalog.applying(changes)
                for (device, rotator) in reference {
                    reference[device] = try FenceRotator(catalog: catalog, configuration: Self.configuration, state: rotator.state)
                }
                changed = true
            }
            for (d, walk) in walks.enumerated() {
                let device = "d\(d)"
                var rotator = try reference[device] ?? FenceRotator(catalog: catalog, configuration: Self.configuration)
                let expected = rotator.update(with: walk[step])
                reference[device] = rotator
                #expect(try registry.report(walk[step], from: device) == expected, "\(device) step \(step), \(TestSeed.replay(seed))")
            }
        }
        #expect(changed && registry.catalog.version == catalog.version)
        #expect(registry.states == reference.mapValues(\.state))
        #expect(registry.count == walks.count)
    }

    @Test func restoredStatesResumeAtTheFirstReportAndForeignOnesAreRefused() throws {
        var first = DeviceRegistry(catalog: Self.catalog, configuration: Self.configuration)
        let fix = Fix(Coordinate(validLatitude: 45.8, longitude: 15.97))
        _ = try first.report(fix, from: "a")
        var second = DeviceRegistry(catalog: Self.catalog, configuration: Self.configuration)
        try second.restore(first.states)
        #expect(second.count == 1 && second.states == first.states)
        // Resumed, not started afresh: the same fix inside the refresh region changes nothing.
        #expect(try second.report(fix, from: "a") == nil)

        var foreign = try #require(first.states["a"])
        foreign.monitored = Array(repeating: foreign.monitored[0], count: 20)  // more places than slots
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
