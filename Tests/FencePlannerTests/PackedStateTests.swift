import FencePlanner
import Geodesy
import RotateTestSupport
import Testing

/// Packed rotator states against the plain ones they pack: the same state back, across catalog
/// versions, and the same rotation when resumed.
@Suite struct PackedStateTests {
    static let catalog = PlannerFixtures.catalog(count: 400, sideMeters: 5_000, radii: 40...250, seed: 61)
    static let configuration = RotationConfiguration(limit: 12, headroom: 1, marginMeters: 10)

    /// States a rotator reaches along a walk.
    static func states(seed: UInt64) throws -> [RotatorState] {
        var rotator = try FenceRotator(catalog: catalog, configuration: configuration)
        var states: [RotatorState] = [rotator.state]
        for fix in PlannerFixtures.walk(count: 150, from: catalog.places[0].coordinate, maxStepMeters: 120, seed: seed) {
            if rotator.update(with: fix) != nil { states.append(rotator.state) }
        }
        return states
    }

    /// Change sets that remove, move, resize, re-tag and add places, monitored ones among them.
    static func changes(for state: RotatorState, seed: UInt64) -> [CatalogChange] {
        var rng = SplitMixForSeeds(state: seed)
        var changes: [CatalogChange] = []
        let monitored = state.monitored.map(\.id)
        var touched = Set<String>()
        func pick() -> String {
            let id =
                rng.next() % 2 == 0 && !monitored.isEmpty
                ? monitored[Int(rng.next() % UInt64(monitored.count))] : catalog.places[Int(rng.next() % UInt64(catalog.count))].id
            return touched.insert(id).inserted ? id : ""
        }
        for i in 0..<6 {
            let id = pick()
            guard !id.isEmpty else { continue }
            switch i % 4 {
            case 0: changes.append(.remove(id: id))
            case 1: changes.append(.move(id: id, to: catalog.places[Int(rng.next() % 400)].coordinate))
            case 2: changes.append(.setRadius(id: id, meters: 77))
            default: changes.append(.setTransitions(id: id, .exit))
            }
        }
        // Ids that sort before and after the others shift every position.
        changes.append(.add(Place(id: "a-first", coordinate: catalog.places[1].coordinate, radiusMeters: 60)))
        changes.append(.add(Place(id: "z-last", coordinate: catalog.places[2].coordinate, radiusMeters: 60)))
        return changes
    }

    @Test func packingKeepsTheStateAcrossCatalogVersions() throws {
        let seed = TestSeed.value(salt: 0x5041_434B)
        var checked = 0
        for state in try Self.states(seed: seed) {
            let packed = PackedRotatorState(state, in: Self.catalog)
            #expect(packed.unpacked(in: Self.catalog) == state, "\(TestSeed.replay(seed))")
            #expect(packed.positions.count == state.monitored.count && packed.foreign.isEmpty)
            // Through two change sets: the same state, positions where the place is unchanged.
            let first = try Self.catalog.applying(Self.changes(for: state, seed: seed ^ UInt64(checked)))
            let second = try first.applying([.remove(id: first.places[first.count / 2].id)])
            var moved = packed.repacked(
                from: Self.catalog, to: first, positionMap: PackedRotatorState.positionMap(from: Self.catalog, to: first))
            moved = moved.repacked(from: first, to: second, positionMap: PackedRotatorState.positionMap(from: first, to: second))
            #expect(moved.unpacked(in: second) == state, "\(TestSeed.replay(seed))")
            #expect(moved == PackedRotatorState(state, in: second), "packing in the last catalog directly gives the same")
            for (fence, position) in zip(state.monitored, moved.monitoredPositions) {
                let expected = second.position(of: fence.id).flatMap { second.fences[$0] == fence ? $0 : nil } ?? -1
                #expect(position == expected, "\(fence.id)")
            }
            checked += 1
        }
        #expect(checked > 5)
    }

    /// Resumed from its packed state, a rotator makes the same updates as one resumed from the
    /// plain state, in the same catalog and after a change.
    @Test func aPackedRotatorRotatesAsThePlainOne() throws {
        let seed = TestSeed.value(salt: 0x524F_5441)
        let walk = PlannerFixtures.walk(count: 120, from: Self.catalog.places[5].coordinate, maxStepMeters: 150, seed: seed)
        var rotator = try FenceRotator(catalog: Self.catalog, configuration: Self.configuration)
        for (i, fix) in walk.enumerated() {
            let catalog = i == 60 ? try Self.catalog.applying(Self.changes(for: rotator.state, seed: seed)) : rotator.catalog
            let packed =
                i == 60
                ? rotator.packedState.repacked(
                    from: Self.catalog, to: catalog, positionMap: PackedRotatorState.positionMap(from: Self.catalog, to: catalog))
                : rotator.packedState
            var plain = try FenceRotator(catalog: catalog, configuration: Self.configuration, state: rotator.state)
            var resumed = try FenceRotator(catalog: catalog, configuration: Self.configuration, packed: packed)
            #expect(resumed.state == plain.state && resumed.mustReselect == plain.mustReselect, "fix \(i), \(TestSeed.replay(seed))")
            #expect(resumed.update(with: fix) == plain.update(with: fix), "fix \(i), \(TestSeed.replay(seed))")
            #expect(resumed.state == plain.state)
            rotator = resumed
        }
        #expect(rotator.state.reselections > 3)
    }
}
