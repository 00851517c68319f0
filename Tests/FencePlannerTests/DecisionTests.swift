import FencePlanner
import Geodesy
import RotateTestSupport
import Testing

/// `RotationPlanner.decide` (the planner's decision by catalog position) and `PositionDiff`.
@Suite struct DecisionTests {
    /// Along walks with every kind of configuration (stickiness, untrusted fixes, saturation,
    /// mixed radii), a decision into one reused value, warm and cold, says exactly what the
    /// brute-force reference's selection says.
    @Test(arguments: RotatorPropertyTests.scenarios)
    func decisionsMatchTheReferenceSelection(scenario: RotatorPropertyTests.Scenario) throws {
        let seed = TestSeed.value(salt: 811 &+ UInt64(scenario.count))
        let catalog = PlannerFixtures.catalog(count: scenario.count, sideMeters: scenario.sideMeters, radii: scenario.radii, seed: seed)
        var warm = try RotationPlanner(catalog: catalog, configuration: scenario.config)
        var cold = try RotationPlanner(catalog: catalog, configuration: scenario.config)
        let walk = PlannerFixtures.walk(
            count: 250, from: Coordinate(validLatitude: 45.8, longitude: 15.97),
            maxStepMeters: scenario.maxStepMeters / 4, inaccurateShare: scenario.inaccurateShare, seed: seed ^ 5)
        var decision = PlanDecision(), coldDecision = PlanDecision()
        var incumbents: [Fence] = []
        for (i, fix) in walk.enumerated() {
            let positions = incumbents.map { catalog.position(of: $0.id)! }
            warm.decide(at: fix, incumbentPositions: positions, warmStart: true, into: &decision)
            cold.decide(at: fix, incumbentPositions: positions, warmStart: false, into: &coldDecision)
            let reference = ReferencePlanner.select(catalog, warm.configuration, at: fix, incumbents: incumbents, refreshID: "refresh-\(i)")
            let context = Comment(rawValue: "\(scenario) fix \(i); \(TestSeed.replay(seed))")
            #expect(decision == coldDecision, context)
            #expect(decision.positions == reference.monitored.map(\.position), context)
            #expect(decision.edgesMeters == reference.monitored.map(\.edgeDistanceMeters), context)
            #expect(decision.refreshRadiusMeters == reference.refresh?.radiusMeters, context)
            #expect(decision.nextUnmonitoredEdgeMeters == reference.nextUnmonitoredEdgeMeters, context)
            #expect(decision.guarantee == reference.guarantee, context)
            #expect(decision.trustedFix == reference.trustedFix, context)
            incumbents = reference.fences
        }
    }

    /// A small catalog (no more places than slots) is monitored whole, without a refresh region.
    @Test func aCatalogThatFitsIsMonitoredWhole() throws {
        let catalog = PlannerFixtures.catalog(count: 5, sideMeters: 2_000, seed: 3)
        var planner = try RotationPlanner(catalog: catalog, configuration: RotationConfiguration())
        var decision = PlanDecision()
        planner.decide(at: Fix(Coordinate(validLatitude: 45.8, longitude: 15.97)), into: &decision)
        #expect(Set(decision.positions) == Set(0..<5))
        #expect(decision.refreshRadiusMeters == nil && decision.nextUnmonitoredEdgeMeters == nil && decision.guarantee == .exact)
    }

    /// Deciding into two decisions in turn (the previous one gives the incumbents), the storage
    /// stays the same once grown: no allocation per call.
    @Test func alternatingDecisionsKeepTheirStorage() throws {
        let catalog = PlannerFixtures.catalog(count: 600, sideMeters: 6_000, seed: 4)
        var planner = try RotationPlanner(catalog: catalog, configuration: RotationConfiguration())
        let walk = PlannerFixtures.walk(count: 60, from: Coordinate(validLatitude: 45.8, longitude: 15.97), maxStepMeters: 40, seed: 9)
        var previous = PlanDecision(), next = PlanDecision()
        func addresses(_ decision: PlanDecision) -> [UInt] {
            [
                decision.positions.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) },
                decision.edgesMeters.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) },
            ]
        }
        planner.decide(at: walk[0], into: &previous)
        planner.decide(at: walk[1], incumbentPositions: previous.positions, into: &next)
        let storage = Set(addresses(previous) + addresses(next))
        for fix in walk.dropFirst(2) {
            swap(&previous, &next)
            planner.decide(at: fix, incumbentPositions: previous.positions, into: &next)
            #expect(storage.isSuperset(of: addresses(next)))
        }
    }

    /// The position diff against plain set arithmetic, in order, over random pairs: equal lists,
    /// unrelated ones, shared prefixes with other tails, shared suffixes after other heads, a
    /// place entering while the last leaves, and two places swapped (the cases of a walk).
    @Test func positionDiffIsTheOrderedSetDifference() {
        var rng = SplitMix64(seed: TestSeed.value(salt: 77))
        /// Up to 22 distinct positions below 40 (around the 20 the diff compares by scanning; up
        /// to 79 below 200 in one round of ten: longer than its membership tables), in random
        /// order.
        var universe = 40, limit = 23
        func positions() -> [Int] {
            var all = Array(0..<universe)
            for i in stride(from: all.count - 1, to: 0, by: -1) { all.swapAt(i, rng.nextInt(below: i + 1)) }
            return Array(all.prefix(rng.nextInt(below: limit)))
        }
        var diff = PositionDiff()
        for round in 0..<500 {
            (universe, limit) = round % 10 == 9 ? (200, 80) : (40, 23)
            let previous = positions()
            var next: [Int]
            switch rng.nextInt(below: 6) {
            case 0: next = previous
            case 1: next = positions()
            case 2:
                // A shared prefix, then other places (as when a place enters or leaves the ranking).
                let kept = rng.nextInt(below: previous.count + 1)
                next = Array(previous.prefix(kept))
                next += positions().filter { !next.contains($0) }.prefix(rng.nextInt(below: limit - kept))
            case 3:
                // A shared suffix after other places (a place entering near the front).
                let kept = rng.nextInt(below: previous.count + 1)
                let tail = Array(previous.suffix(kept))
                next = positions().filter { !tail.contains($0) }.prefix(rng.nextInt(below: limit - kept)) + tail
            case 4:
                // One place enters at a random rank and the last one leaves (the usual change).
                next = previous
                if !next.isEmpty, let newcomer = (0..<universe).first(where: { !previous.contains($0) }) {
                    next.removeLast()
                    next.insert(newcomer, at: rng.nextInt(below: next.count + 1))
                }
            default:
                // The same places, two of them swapped (as when two places trade ranks).
                next = previous
                if next.count >= 2 { next.swapAt(rng.nextInt(below: next.count), rng.nextInt(below: next.count)) }
            }
            diff.update(from: previous, to: next)
            #expect(diff.stop == previous.filter { !next.contains($0) })
            #expect(diff.start == next.filter { !previous.contains($0) })
        }
    }

    /// Positions are compared as 32-bit lanes only when they fit: positions that agree in their
    /// low 32 bits are still different places.
    @Test func positionDiffNeverConfusesPositionsBeyond32Bits() {
        var diff = PositionDiff()
        let high = 1 << 32
        diff.update(from: [1, 2, 3, 4], to: [1, 4, high + 2, 3])
        #expect(diff.stop == [2])
        #expect(diff.start == [high + 2])
        diff.update(from: [7, high + 5, 9], to: [7, 5, 9])
        #expect(diff.stop == [high + 5])
        #expect(diff.start == [5])
    }
}
