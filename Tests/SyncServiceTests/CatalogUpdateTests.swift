import FencePlanner
import Geodesy
import RotateTestSupport
import SyncService
import Testing

/// Which devices a catalog change set affects: the spatial index against checking every device,
/// and the affected devices' new plans against replanning them by brute force.
@Suite struct CatalogUpdateTests {
    @Test func affectedDevicesMatchCheckingEveryDeviceAndReplanByTheReference() throws {
        let seed = TestSeed.value(salt: 515)
        var rng = SplitMix64(seed: seed)
        let catalog = PlannerFixtures.catalog(count: 900, sideMeters: 8_000, radii: 30...400, seed: seed)
        let configuration = RotationConfiguration(marginMeters: 30)
        let origin = Coordinate(validLatitude: 45.8, longitude: 15.97)
        // Devices after one to three fixes somewhere in the region.
        var states: [RotatorState] = []
        for _ in 0..<300 {
            var rotator = try FenceRotator(catalog: catalog, configuration: configuration)
            for _ in 0..<(1 + rng.nextInt(below: 3)) {
                let at = origin.destination(bearingDegrees: rng.nextDouble(in: 0..<360), distanceMeters: rng.nextDouble(in: 0..<4_500))
                _ = rotator.reselect(at: Fix(at))
            }
            states.append(rotator.state)
        }
        states.append(RotatorState())  // a device that never selected
        let index = DeviceStateIndex(states: states, catalog: catalog, marginMeters: configuration.marginMeters)
        var sizes: [Int] = []
        for round in 0..<12 {
            var changes: [CatalogChange] = []
            for _ in 0..<(1 + rng.nextInt(below: 25)) {
                let place = catalog.places[rng.nextInt(below: catalog.count)]
                let somewhere = origin.destination(
                    bearingDegrees: rng.nextDouble(in: 0..<360), distanceMeters: rng.nextDouble(in: 0..<5_000))
                switch rng.nextInt(below: 6) {
                case 0:
                    changes.append(
                        .add(Place(id: "new-\(round)-\(changes.count)", coordinate: somewhere, radiusMeters: rng.nextDouble(in: 20..<300))))
                case 1: changes.append(.remove(id: place.id))
                case 2: changes.append(.move(id: place.id, to: somewhere))
                case 3: changes.append(.setRadius(id: place.id, meters: rng.nextDouble(in: 20..<500)))
                case 4: changes.append(.setTransitions(id: place.id, place.transitions == .both ? .exit : .both))
                default: changes.append(.move(id: place.id, to: place.coordinate))  // no change at all
                }
            }
            // A set may name a place twice; keep the first (a removed place cannot be moved).
            var seen = Set<String>()
            changes = changes.filter { seen.insert($0.id).inserted }
            let next = try catalog.applying(changes)
            let context = Comment(rawValue: "round \(round), \(changes.count) changes; \(TestSeed.replay(seed))")
            let affected = index.affectedDevices(by: changes, next: next)
            let reference = DeviceStateIndex.affectedDevicesByBruteForce(
                states: states, catalog: catalog, changes: changes, next: next,
                marginMeters: configuration.marginMeters)
            #expect(affected == reference, context)
            sizes.append(affected.count)
            // An exact state is affected exactly when it no longer holds in the new catalog; one
            // not affected still keeps every place of the new catalog within its reach monitored
            // (checked over every place, by distance).
            for (device, state) in states.enumerated() where state.guarantee == .exact {
                #expect(
                    affected.contains(device) == !FenceRotator.stillHolds(state, in: next, marginMeters: configuration.marginMeters),
                    Comment(rawValue: "device \(device), \(context)"))
                guard !affected.contains(device), let region = state.refresh else { continue }
                let reach = region.radiusMeters + configuration.marginMeters
                for place in next.places where region.center.distance(to: place.coordinate) - place.radiusMeters < reach - 1e-6 {
                    #expect(state.monitored.contains(place.fence), Comment(rawValue: "device \(device) misses \(place.id), \(context)"))
                }
            }
            // The affected devices' new plans are the reference planner's at their refresh centers.
            for replanned in try DeviceStateIndex.replan(affected, states: states, next: next, configuration: configuration) {
                let state = states[replanned.device]
                guard let refresh = state.refresh, let update = replanned.update else {
                    #expect(state.refresh == nil && replanned.state.catalogVersion == nil, context)
                    continue
                }
                let incumbents = state.monitored.filter { fence in next.position(of: fence.id).map { next.fences[$0] == fence } ?? false }
                let expected = ReferencePlanner.select(
                    next, configuration, at: Fix(refresh.center), incumbents: incumbents,
                    refreshID: next.refreshIdentifierPrefix + String(state.reselections))
                #expect(update.selection == expected, context)
                #expect(replanned.state.catalogVersion == 1 && replanned.state.monitored == expected.fences, context)
                // The diff stops every monitored place that changed or went.
                for fence in state.monitored where !incumbents.contains(fence) { #expect(update.diff.stop.contains(fence), context) }
            }
        }
        #expect(sizes.contains { $0 > 1 } && sizes.contains { $0 < states.count }, "rounds should affect some devices, not all")
    }

    @Test func noChangesAffectNobody() {
        let catalog = PlannerFixtures.catalog(count: 30, sideMeters: 1_000, seed: 2)
        let index = DeviceStateIndex(states: [RotatorState(), RotatorState()], catalog: catalog, marginMeters: 0)
        #expect(index.affectedDevices(by: [], next: catalog).isEmpty)
    }
}
