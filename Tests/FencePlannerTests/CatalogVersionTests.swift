import FencePlanner
import Foundation
import Geodesy
import RotateTestSupport
import Testing

/// Catalog versions from change sets, and device states planned against an older version.
@Suite struct CatalogVersionTests {
    static let origin = Coordinate(validLatitude: 45.8, longitude: 15.97)

    @Test func aChangeSetMakesTheNextVersionAndLeavesTheOldOneAlone() throws {
        let catalog = PlannerFixtures.catalog(count: 40, sideMeters: 3_000, seed: 5)
        let ids = catalog.places.map(\.id)
        let target = Self.origin.destination(bearingDegrees: 10, distanceMeters: 500)
        let next = try catalog.applying([
            .add(Place(id: "new", coordinate: Self.origin, radiusMeters: 80)),
            .remove(id: ids[0]),
            .move(id: ids[1], to: target),
            .setRadius(id: ids[2], meters: 0.25),  // clamped to the catalog's minimum
            .setTransitions(id: ids[3], .exit),
            .remove(id: "new"), .add(Place(id: "new", coordinate: target, radiusMeters: 90)),
        ])
        #expect(try catalog.version == 0 && next.version == 1 && next.applying([]).version == 2)
        #expect(catalog.count == 40 && catalog.places.map(\.id) == ids)
        #expect(next.count == 40 && next[id: ids[0]] == nil)
        #expect(next[id: ids[1]]?.coordinate == target && next[id: ids[2]]?.radiusMeters == 1 && next[id: ids[3]]?.transitions == .exit)
        #expect(next[id: "new"]?.coordinate == target && next[id: "new"]?.radiusMeters == 90)
        #expect(next.clamps.map(\.id) == [ids[2]])
    }

    @Test func badChangeSetsAreErrorsNamingTheChange() {
        let catalog = PlannerFixtures.catalog(count: 10, sideMeters: 1_000, seed: 6)
        let id = catalog.places[0].id
        #expect(throws: CatalogChangeError.unknownID("nope", index: 1)) {
            try catalog.applying([.remove(id: id), .move(id: "nope", to: Self.origin)])
        }
        #expect(throws: CatalogChangeError.duplicateID(id, index: 0)) {
            try catalog.applying([.add(Place(id: id, coordinate: Self.origin, radiusMeters: 5))])
        }
        #expect(throws: CatalogChangeError.unknownID(id, index: 1)) { try catalog.applying([.remove(id: id), .remove(id: id)]) }
        #expect(throws: CatalogChangeError.self) { try catalog.applying([.setRadius(id: id, meters: -.infinity)]) }
    }

    /// A state planned against version 0, resumed with version 1: still trusted exactly when every
    /// monitored place is unchanged and no other fence edge lies within the refresh radius plus
    /// margin of its center (checked by brute force over every place); otherwise the next fix
    /// reselects even inside the refresh region, stops what changed, and stamps the new version.
    /// A state that still holds is re-stamped with the new version at once.
    @Test func olderStatesAreRevalidatedAgainstTheNewVersion() throws {
        let seed = TestSeed.value(salt: 91)
        var rng = SplitMix64(seed: seed)
        let catalog = PlannerFixtures.catalog(count: 400, sideMeters: 4_000, radii: 40...250, seed: seed)
        let configuration = RotationConfiguration(marginMeters: 25)
        var outcomes: Set<Bool> = []
        for round in 0..<60 {
            var rotator = try FenceRotator(catalog: catalog, configuration: configuration)
            let start = catalog.places[rng.nextInt(below: catalog.count)].coordinate
            _ = rotator.update(with: Fix(start))
            let state = rotator.state
            #expect(state.catalogVersion == 0)
            // A few random changes, some near the device, some monitored, some far.
            var changes: [CatalogChange] = []
            var touched = Set<String>()
            for _ in 0..<(1 + rng.nextInt(below: 3)) {
                let place = catalog.places[rng.nextInt(below: catalog.count)]
                guard touched.insert(place.id).inserted else { continue }
                let near = start.destination(bearingDegrees: rng.nextDouble(in: 0..<360), distanceMeters: rng.nextDouble(in: 0..<3_000))
                switch rng.nextInt(below: 5) {
                case 0:
                    changes.append(.add(Place(id: "added-\(changes.count)", coordinate: near, radiusMeters: rng.nextDouble(in: 20..<300))))
                case 1: changes.append(.remove(id: place.id))
                case 2: changes.append(.move(id: place.id, to: near))
                case 3: changes.append(.setRadius(id: place.id, meters: rng.nextDouble(in: 20..<600)))
                default: changes.append(.setTransitions(id: place.id, place.transitions == .both ? .entry : .both))
                }
            }
            let next = try catalog.applying(changes)
            // Brute force: every monitored fence unchanged, every other edge beyond reach.
            let region = try #require(state.refresh)
            let reach = region.radiusMeters + configuration.marginMeters
            let monitored = Set(state.monitored.map(\.id))
            let unchanged = state.monitored.allSatisfy { fence in next.position(of: fence.id).map { next.fences[$0] == fence } ?? false }
            let edges = next.places.filter { !monitored.contains($0.id) }.map {
                region.center.distance(to: $0.coordinate) - $0.radiusMeters
            }
            // The first place left out sits exactly at the reach (the radius is sized from it): an
            // edge within a micrometer of the reach counts as beyond it; closer calls are skipped.
            guard !edges.contains(where: { $0 < reach - 1e-6 && $0 > reach - 1e-3 }) else { continue }
            let expected = unchanged && edges.allSatisfy { $0 >= reach - 1e-6 }
            let context = Comment(rawValue: "round \(round), changes \(changes); \(TestSeed.replay(seed))")
            #expect(FenceRotator.stillHolds(state, in: next, marginMeters: configuration.marginMeters) == expected, context)
            outcomes.insert(expected)

            var resumed = try FenceRotator(catalog: next, configuration: configuration, state: state)
            #expect(resumed.mustReselect == !expected, context)
            if expected {
                // Re-stamped with the new version and nothing else; resumed again, it is trusted
                // (no re-validation) and answers every later fix as the first resume does.
                var restamped = state
                restamped.catalogVersion = next.version
                #expect(resumed.state == restamped, context)
                var again = try FenceRotator(catalog: next, configuration: configuration, state: resumed.state)
                var first = resumed
                let bearing = rng.nextDouble(in: 0..<360)
                for step in 0..<40 {
                    let fix = Fix(region.center.destination(bearingDegrees: bearing, distanceMeters: Double(step) * 60))
                    #expect(again.update(with: fix) == first.update(with: fix), context)
                }
            } else {
                #expect(resumed.state == state, "a state that no longer holds is not re-stamped; \(context)")
            }
            // A fix at the refresh center is inside the region: only a stale state reselects.
            let update = resumed.update(with: Fix(region.center))
            #expect((update != nil) == !expected, context)
            if let update {
                #expect(resumed.state.catalogVersion == 1 && !resumed.mustReselect, context)
                // Every monitored fence that changed or went is stopped.
                for fence in state.monitored where next.position(of: fence.id).map({ next.fences[$0] != fence }) ?? true {
                    #expect(update.diff.stop.contains(fence), context)
                }
            }
        }
        #expect(outcomes == [true, false], "both outcomes should occur")
    }

    @Test func statesWithoutAVersionStillDecode() throws {
        let json = #"{"format_version":1,"monitored":[],"reselections":0}"#
        let state = try JSONDecoder().decode(RotatorState.self, from: Data(json.utf8))
        #expect(state.catalogVersion == nil)
    }
}
