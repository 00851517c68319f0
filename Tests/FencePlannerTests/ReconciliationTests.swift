import FencePlanner
import Geodesy
import RotateTestSupport
import Testing

/// Reconciliation from what the device reports: whatever failed before, applying it leaves
/// exactly the plan.
@Suite struct ReconciliationTests {
    /// The platform, as a set of registered identifiers.
    struct Platform {
        var registered: Set<String> = []
        mutating func apply(_ operation: RegistrationOperation) {
            switch operation {
            case .stopRefresh(let id): registered.remove(id)
            case .stop(let fence): registered.remove(fence.id)
            case .startRefresh(let region): registered.insert(region.id)
            case .start(let fence): registered.insert(fence.id)
            }
        }
    }

    /// Along a walk, the device loses some diffs, applies others partly or twice, and carries
    /// identifiers nobody planned; after every report, the reconciliation applied in full gives
    /// exactly the planned places plus the refresh region, never exceeding the slots on the way,
    /// and a second application changes nothing.
    @Test func reportsConvergeWhateverFailedBefore() throws {
        let seed = TestSeed.value(salt: 43)
        let catalog = PlannerFixtures.catalog(count: 600, sideMeters: 6_000, radii: 50...300, seed: seed)
        let configuration = RotationConfiguration(marginMeters: 15)
        var rotator = try FenceRotator(catalog: catalog, configuration: configuration)
        let walk = PlannerFixtures.walk(
            count: 400, from: Coordinate(validLatitude: 45.8, longitude: 15.97), maxStepMeters: 120, seed: seed ^ 1)
        var rng = SplitMix64(seed: seed ^ 2)
        var platform = Platform()
        var fullReconciliations = 0
        for (i, fix) in walk.enumerated() {
            let context = Comment(rawValue: "fix \(i); \(TestSeed.replay(seed))")
            if let update = rotator.update(with: fix) {
                switch rng.nextInt(below: 4) {
                case 0: break  // the response was lost
                case 1: for operation in update.diff.operations where rng.nextInt(below: 3) != 0 { platform.apply(operation) }
                case 2: for _ in 0..<2 { update.diff.operations.forEach { platform.apply($0) } }  // applied twice
                default: update.diff.operations.forEach { platform.apply($0) }
                }
            }
            if rng.nextInt(below: 10) == 0 { platform.registered.insert("ghost-\(rng.nextInt(below: 5))") }
            guard rng.nextInt(below: 3) == 0 else { continue }  // the device reports now and then

            var planned = Set(rotator.state.monitored.map(\.id))
            if let refresh = rotator.state.refresh { planned.insert(refresh.id) }
            let reconciliation = rotator.reconcile(registered: platform.registered)
            #expect(Set(reconciliation.stop) == platform.registered.subtracting(planned), context)
            #expect(reconciliation.stop == reconciliation.stop.sorted(), context)
            #expect(reconciliation.start == rotator.state.monitored.filter { !platform.registered.contains($0.id) }, context)
            #expect(reconciliation.refresh == rotator.state.refresh, context)

            let partly = rng.nextInt(below: 4) == 0
            for id in reconciliation.stop where !partly || rng.nextInt(below: 2) == 0 { platform.registered.remove(id) }
            if !partly {
                #expect(platform.registered.count <= configuration.limit - configuration.headroom, context)
            }
            if let refresh = reconciliation.refresh { platform.registered.insert(refresh.id) }
            for fence in reconciliation.start where !partly || rng.nextInt(below: 2) == 0 {
                platform.registered.insert(fence.id)
                if !partly { #expect(platform.registered.count <= configuration.limit - configuration.headroom, context) }
            }
            guard !partly else { continue }
            fullReconciliations += 1
            #expect(platform.registered == planned, context)
            let again = rotator.reconcile(registered: platform.registered)
            #expect(again.isInSync && again.refresh == rotator.state.refresh, context)
        }
        #expect(fullReconciliations > 20)
    }

    @Test func beforeAnySelectionEverythingReportedIsStopped() throws {
        let catalog = PlannerFixtures.catalog(count: 50, sideMeters: 2_000, seed: 3)
        let rotator = try FenceRotator(catalog: catalog, configuration: RotationConfiguration())
        let reconciliation = rotator.reconcile(registered: ["b", "a", "a", "refresh-7"])
        #expect(reconciliation == Reconciliation(stop: ["a", "b", "refresh-7"], start: [], refresh: nil))
    }
}
