import FencePlanner
import Geodesy
import RotateTestSupport
import SyncService
import Testing
import WalkSimulator

/// Devices updated from many tasks at once over one shared catalog: the outcome must not depend
/// on the number of tasks, and must equal one rotator per device fed in a plain loop. These are
/// the suites `.ci/run` also runs under the thread sanitizer
/// (`--filter "ConcurrentDeviceTests|oneSharedIndexServesManyTasksAtOnce"`).
@Suite struct ConcurrentDeviceTests {
    static let catalog = PlannerFixtures.catalog(count: 1_500, sideMeters: 12_000, radii: 40...400, seed: 31)

    /// The reference: one rotator per device, each fed all of its fixes, one device after another,
    /// digesting exactly what `DeviceFleet` digests.
    static func reference(_ catalog: PlaceCatalog, _ configuration: RotationConfiguration, _ fixes: [Fix], _ perDevice: Int) throws
        -> DeviceFleet.Summary
    {
        var summary = DeviceFleet.Summary()
        for device in 0..<(fixes.count / perDevice) {
            var rotator = try FenceRotator(catalog: catalog, configuration: configuration)
            var digest: UInt64 = 0xcbf2_9ce4_8422_2325
            for fix in fixes[(device * perDevice)..<((device + 1) * perDevice)] {
                summary.updates += 1
                guard let update = rotator.update(with: fix) else { continue }
                summary.reselections += 1
                let changes = update.diff.stop.count + update.diff.start.count
                summary.registrationChanges += changes
                digest = (digest ^ UInt64(changes) ^ (update.selection.refresh?.radiusMeters ?? -1).bitPattern) &* 0x0000_0100_0000_01b3
            }
            summary.devices += 1
            summary.checksum &+= digest
        }
        return summary
    }

    @Test(arguments: [1, 2, 3, 8, 500])
    func concurrentUpdatesEqualOneRotatorPerDeviceInALoop(tasks: Int) async throws {
        let configuration = RotationConfiguration(marginMeters: 20, stickinessMeters: 30)
        let fixes = WanderingDevices.fixes(
            catalog: Self.catalog, devices: 240, fixesPerDevice: 25, stepMeters: 60,
            seed: TestSeed.value(salt: 17))
        let expected = try Self.reference(Self.catalog, configuration, fixes, 25)
        let summary = try await DeviceFleet.update(
            catalog: Self.catalog, configuration: configuration, fixes: fixes,
            fixesPerDevice: 25, tasks: tasks)
        #expect(summary == expected)
        #expect(summary.devices == 240 && summary.updates == 240 * 25)
        #expect(summary.reselections > 240, "the walks should reselect after their first fix")
        #expect(
            try DeviceFleet.updateSequentially(catalog: Self.catalog, configuration: configuration, fixes: fixes, fixesPerDevice: 25)
                == expected)
    }

    /// Building the next catalog version does not disturb readers of the current one: tasks
    /// planning on version 0 while other tasks build versions 1 to 4 get what they get alone.
    @Test func readersOfAVersionAreUndisturbedWhileTheNextIsBuilt() async throws {
        let configuration = RotationConfiguration(marginMeters: 20)
        let fixes = WanderingDevices.fixes(catalog: Self.catalog, devices: 120, fixesPerDevice: 20, stepMeters: 60, seed: 23)
        let alone = try DeviceFleet.updateSequentially(
            catalog: Self.catalog, configuration: configuration, fixes: fixes, fixesPerDevice: 20)
        let catalog = Self.catalog
        let ids = catalog.places.prefix(40).map(\.id)
        let (summaries, versions) = try await withThrowingTaskGroup(of: (DeviceFleet.Summary?, Int?).self) { group in
            for _ in 0..<3 {
                group.addTask {
                    (
                        try DeviceFleet.updateSequentially(
                            catalog: catalog, configuration: configuration, fixes: fixes, fixesPerDevice: 20), nil
                    )
                }
            }
            group.addTask {
                var next = catalog
                for round in 0..<4 { next = try next.applying(ids[(round * 10)..<(round * 10 + 10)].map { .remove(id: $0) }) }
                return (nil, next.version)
            }
            var summaries: [DeviceFleet.Summary] = [], versions: [Int] = []
            for try await (summary, version) in group {
                if let summary { summaries.append(summary) }
                if let version { versions.append(version) }
            }
            return (summaries, versions)
        }
        #expect(summaries == Array(repeating: alone, count: 3))
        #expect(versions == [4] && catalog.version == 0 && catalog.count == 1_500)
    }

    /// A device's walk depends on the fleet's seed and its own number, not on how many devices
    /// there are.
    @Test func aDevicesWalkDoesNotDependOnTheFleetSize() {
        let few = WanderingDevices.fixes(catalog: Self.catalog, devices: 3, fixesPerDevice: 10, stepMeters: 30, seed: 5)
        let many = WanderingDevices.fixes(catalog: Self.catalog, devices: 50, fixesPerDevice: 10, stepMeters: 30, seed: 5)
        #expect(few == Array(many.prefix(30)))
        // Consecutive fixes are the step apart.
        #expect(abs(many[11].coordinate.distance(to: many[12].coordinate) - 30) < 1e-6)
    }

    @Test func anInvalidConfigurationIsAnError() async {
        let fixes = WanderingDevices.fixes(catalog: Self.catalog, devices: 2, fixesPerDevice: 2, stepMeters: 30, seed: 5)
        await #expect(throws: ConfigurationError.self) {
            try await DeviceFleet.update(
                catalog: Self.catalog, configuration: RotationConfiguration(limit: 2, headroom: 2), fixes: fixes,
                fixesPerDevice: 2, tasks: 2)
        }
    }
}
