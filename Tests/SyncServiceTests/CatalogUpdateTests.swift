import FencePlanner
import Geodesy
import RotateTestSupport
import SyncService
import Testing

/// Which devices a catalog change set affects: the spatial index against checking every device,
/// and the affected devices' new plans against replanning them by brute force.
@Suite struct CatalogUpdateTests {
    /// A place's signed edge distance from `point`: a footprint's polygon, a circle's edge.
    static func edge(_ place: Place, _ point: Coordinate) -> Double {
        place.footprint?.signedDistanceMeters(to: UnitVector(point)) ?? point.distance(to: place.coordinate) - place.radiusMeters
    }

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
        // Keyed by the caller's ids; answers come in this order.
        let ids = states.indices.map { "device-\($0)" }
        let index = DeviceStateIndex(states: zip(ids, states), catalog: catalog, configuration: configuration)
        var pushed = 0, askedForFix = 0
        var sizes: [Int] = []
        for round in 0..<12 {
            var changes: [CatalogChange] = []
            for _ in 0..<(1 + rng.nextInt(below: 25)) {
                let place = catalog.places[rng.nextInt(below: catalog.count)]
                let somewhere = origin.destination(
                    bearingDegrees: rng.nextDouble(in: 0..<360), distanceMeters: rng.nextDouble(in: 0..<5_000))
                switch rng.nextInt(below: 6) {
                case 0 where changes.count % 2 == 0:
                    changes.append(
                        .add(Place(id: "new-\(round)-\(changes.count)", coordinate: somewhere, radiusMeters: rng.nextDouble(in: 20..<300))))
                case 0:
                    // A footprint: measured by its polygon, within its enclosing circle.
                    let footprint = PlannerFixtures.footprint(around: somewhere, radiusMeters: rng.nextDouble(in: 20..<300), using: &rng)
                    changes.append(.add(Place(id: "new-\(round)-\(changes.count)", footprint: footprint)))
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
            let reference = index.affectedDevicesByBruteForce(by: changes, next: next)
            #expect(affected == reference, context)
            #expect(affected == ids.filter(Set(affected).contains), "in the order given; \(context)")
            sizes.append(affected.count)
            // An exact state is affected exactly when it no longer holds in the new catalog; one
            // not affected still keeps every place of the new catalog within its reach monitored
            // (checked over every place, by distance).
            for (device, state) in zip(ids, states) where state.guarantee == .exact {
                #expect(
                    affected.contains(device) == !FenceRotator.stillHolds(state, in: next, marginMeters: configuration.marginMeters),
                    Comment(rawValue: "device \(device), \(context)"))
                guard !affected.contains(device), let region = state.refresh else { continue }
                let reach = region.radiusMeters + configuration.marginMeters
                for place in next.places where Self.edge(place, region.center) < reach - 1e-6 {
                    #expect(state.monitored.contains(place.fence), Comment(rawValue: "device \(device) misses \(place.id), \(context)"))
                }
            }
            // The affected devices' new plans are the reference planner's at their refresh centers,
            // pushed when valid anywhere in the old circle, else a fix is asked for.
            for replanned in try index.replan(affected, in: next) {
                let state = try #require(ids.firstIndex(of: replanned.device).map { states[$0] })
                let incumbents = state.monitored.filter { fence in next.position(of: fence.id).map { next.fences[$0] == fence } ?? false }
                guard let refresh = state.refresh else {
                    #expect(replanned.needsFix && replanned.state == state, context)
                    continue
                }
                let expected = ReferencePlanner.select(
                    next, configuration, at: Fix(refresh.center), incumbents: incumbents,
                    refreshID: next.refreshIdentifierPrefix + String(state.reselections))
                let covers = expected.refresh.map { $0.radiusMeters >= refresh.radiusMeters } ?? true
                guard let update = replanned.update else {
                    #expect(!covers && replanned.state == state, context)
                    askedForFix += 1
                    continue
                }
                pushed += 1
                #expect(covers && update.selection == expected, context)
                #expect(replanned.state.catalogVersion == 1 && replanned.state.monitored == expected.fences, context)
                // The diff stops every monitored place that changed or went.
                for fence in state.monitored where !incumbents.contains(fence) { #expect(update.diff.stop.contains(fence), context) }
                // Wherever the device is in its old circle, it is inside the new refresh region and
                // every fence it can reach before leaving it is monitored (every place checked).
                let monitored = Set(update.selection.fences)
                for _ in 0..<20 {
                    let point = refresh.center.destination(
                        bearingDegrees: rng.nextDouble(in: 0..<360),
                        distanceMeters: refresh.radiusMeters * rng.nextDouble(in: 0..<1).squareRoot())
                    guard let region = update.selection.refresh else { break }
                    #expect(region.contains(point), context)
                    let reach = region.radiusMeters + configuration.marginMeters
                    for place in next.places where Self.edge(place, region.center) < reach - 1e-6 {
                        #expect(monitored.contains(place.fence), Comment(rawValue: "\(place.id) reachable from \(point); \(context)"))
                    }
                }
            }
        }
        #expect(pushed > 0 && askedForFix > 0, "both a push and a request for a fix should occur")
        #expect(sizes.contains { $0 > 1 } && sizes.contains { $0 < states.count }, "rounds should affect some devices, not all")
    }

    @Test func noChangesAffectNobody() {
        let catalog = PlannerFixtures.catalog(count: 30, sideMeters: 1_000, seed: 2)
        let index = DeviceStateIndex(
            states: ["a": RotatorState(), "b": RotatorState()], catalog: catalog, configuration: RotationConfiguration())
        #expect(index.affectedDevices(by: [], next: catalog).isEmpty)
    }

    /// Places added inside a device's refresh circle shrink the safe radius at its center below the
    /// old one: a plan made there would leave the device, anywhere in its old circle, possibly
    /// outside the new refresh region, where no exit fires. The replan asks for a fix instead,
    /// and the device's answer reselects where it is.
    @Test func placesAddedInsideTheOldCircleAskForAFix() throws {
        let center = Coordinate(validLatitude: 46.05, longitude: 14.5)
        // 30 places 1.5–3 km away: 17 slots leave a refresh circle of several hundred meters.
        let places = (0..<30).map { i in
            Place(
                id: "p\(i)", coordinate: center.destination(bearingDegrees: Double(i) * 12, distanceMeters: 1_500 + Double(i) * 50),
                radiusMeters: 80)
        }
        let catalog = try PlaceCatalog(places: places)
        let configuration = RotationConfiguration(marginMeters: 20)
        var rotator = try FenceRotator(catalog: catalog, configuration: configuration)
        _ = rotator.update(with: Fix(center))
        let old = try #require(rotator.state.refresh)
        #expect(old.radiusMeters > 600)
        // Twelve places added halfway to the circle's edge.
        let added: [CatalogChange] = (0..<12).map { i in
            .add(
                Place(
                    id: "new\(i)", coordinate: center.destination(bearingDegrees: Double(i) * 30, distanceMeters: old.radiusMeters / 2),
                    radiusMeters: 40))
        }
        let next = try catalog.applying(added)
        let index = DeviceStateIndex(states: [("d", rotator.state)], catalog: catalog, configuration: configuration)
        #expect(index.affectedDevices(by: added, next: next) == ["d"])
        let replanned = try #require(try index.replan(["d"], in: next).first)
        #expect(replanned.needsFix && replanned.state == rotator.state)
        // The device answers from where it is, near the old edge: resumed, it must reselect there.
        var resumed = try FenceRotator(catalog: next, configuration: configuration, state: replanned.state)
        let there = center.destination(bearingDegrees: 200, distanceMeters: old.radiusMeters * 0.9)
        let answer = resumed.update(with: Fix(there))
        #expect(answer != nil)
        #expect(answer?.selection.refresh?.contains(there) ?? true)
    }
}
