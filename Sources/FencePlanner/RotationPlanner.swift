import Geodesy
import SpatialIndex

/// Chooses what to monitor at one fix: the `placeSlots` places nearest by fence edge (with
/// stickiness and the untrusted-fix rules), and the refresh radius that keeps every unmonitored
/// fence out of reach.
///
/// A planner is a value with its own query scratch; use one per thread (a `FenceRotator` owns one).
public struct RotationPlanner: Sendable {
    /// The catalog the planner selects from.
    public let catalog: PlaceCatalog
    /// The configuration, validated.
    public let configuration: RotationConfiguration
    private var buffer = NeighborBuffer()
    /// The places nearest by edge at the fix being decided (placeSlots + 1 of them).
    private var ranked: [Neighbor] = []
    /// The warm-start neighborhood of the last warm query.
    private var neighborhood = WarmNeighborhood()
    private var decision = PlanDecision()

    /// Creates a planner over `catalog`, validating `configuration`.
    ///
    /// - Throws: `ConfigurationError` when the configuration is invalid (the first rule of
    ///   `RotationConfiguration.validated()` it breaks).
    public init(catalog: PlaceCatalog, configuration: RotationConfiguration) throws(ConfigurationError) {
        self.catalog = catalog
        self.configuration = try configuration.validated()
    }

    /// The selection at `fix`.
    ///
    /// A one-off answer with no rotation state: what a server computes for a position, or a
    /// survey over many. `FenceRotator` calls it with its incumbents and numbers the refresh ids.
    ///
    /// ```swift
    /// var planner = try RotationPlanner(catalog: catalog, configuration: RotationConfiguration(limit: 20, marginMeters: 250))
    /// let here = Fix(try Coordinate(latitude: 46.0569, longitude: 14.5058), accuracyMeters: 10)
    /// let selection = planner.select(at: here, refreshID: "refresh-0")
    /// print(selection.monitored.map(\.fence.id), selection.refresh?.radiusMeters ?? 0, selection.guarantee.name)
    /// ```
    ///
    /// - Parameters:
    ///   - fix: the position; its accuracy must be nil or finite and ≥ 0 (a precondition).
    ///   - incumbents: the fences monitored until now (for stickiness and for untrusted fixes);
    ///     a fence whose catalog definition changed is not an incumbent.
    ///   - refreshID: the identifier for the new refresh region.
    ///   - warmStart: with incumbents, reuse the neighborhood of the last selection while it
    ///     provably holds the answer, else query the index for a fresh neighborhood; the result
    ///     is the same either way.
    ///   - incumbentPositions: the incumbents' positions in this catalog, when the caller knows
    ///     them (a rotator keeps them from its last selection), to skip looking them up by id;
    ///     −1 for an incumbent that is not in this catalog with its definition.
    /// - Returns: the places ranked by fence edge (ties: nearer center, then id), the refresh
    ///   region centered on the fix with radius `next unmonitored edge − margin` (minus the fix's
    ///   accuracy when it is not trusted), capped at `maxRegionRadiusMeters` and never raised, and
    ///   the guarantee (see `decide(at:incumbentPositions:warmStart:into:)`).
    public mutating func select(
        at fix: Fix, incumbents: [Fence] = [], refreshID: String, warmStart: Bool = true,
        incumbentPositions: [Int]? = nil
    ) -> Selection {
        let catalog = self.catalog
        // The incumbents that are still in the catalog with the same definition.
        let positions: [Int]
        if let incumbentPositions, incumbentPositions.count == incumbents.count {
            // −1 marks an incumbent that is gone or changed: not an incumbent any more.
            positions = incumbentPositions.contains(-1) ? incumbentPositions.filter { $0 >= 0 } : incumbentPositions
        } else {
            positions = incumbents.compactMap { fence in
                guard let position = catalog.position(of: fence.id), catalog.fences[position] == fence else { return nil }
                return position
            }
        }
        // The reused decision is moved out while `decide` mutates the planner (an `inout` to a
        // property of `self` would overlap), and put back after.
        var decision = self.decision
        self.decision = PlanDecision()
        decide(at: fix, incumbentPositions: positions, warmStart: warmStart, into: &decision)
        var monitored: [MonitoredPlace] = []
        monitored.reserveCapacity(decision.positions.count)
        for (position, edge) in zip(decision.positions, decision.edgesMeters) {
            monitored.append(MonitoredPlace(position: position, fence: catalog.fences[position], edgeDistanceMeters: edge))
        }
        let selection = Selection(
            fix: fix, monitored: monitored,
            refresh: decision.refreshRadiusMeters.map { RefreshRegion(id: refreshID, center: fix.coordinate, radiusMeters: $0) },
            guarantee: decision.guarantee, nextUnmonitoredEdgeMeters: decision.nextUnmonitoredEdgeMeters, trustedFix: decision.trustedFix)
        self.decision = decision
        return selection
    }

    /// Decides what to monitor at `fix`, by catalog position, into `decision` (its arrays are
    /// reused: a caller that keeps one decision allocates nothing per call once they have grown).
    ///
    /// The places are the `placeSlots` nearest by fence edge, except that a fix not trusted never
    /// drops an incumbent the user may be inside (edge within the fix's accuracy), and that with
    /// `stickinessMeters` a dropped incumbent keeps its slot against a newcomer less than that
    /// much nearer, as long as the selection stays exact. The refresh radius is `next unmonitored
    /// edge − margin` (minus the accuracy of a fix not trusted), capped at
    /// `maxRegionRadiusMeters`, never below 0. The guarantee is `saturated` when more fences than
    /// slots lie within the margin, `degraded` when the radius is under `minRefreshRadiusMeters`,
    /// else `exact`.
    ///
    /// - Parameters:
    ///   - fix: the position; its accuracy must be nil or finite and ≥ 0 (a precondition).
    ///   - incumbentPositions: catalog positions of the places monitored until now (each once).
    ///   - warmStart: with incumbents, reuse the neighborhood of the last decision while it
    ///     provably holds the answer (the triangle inequality bounds how far every edge moved),
    ///     else query the index for a fresh neighborhood; the result is the same either way.
    ///   - decision: receives the decision; its arrays are reused.
    /// - Complexity: one k-nearest query with k = placeSlots + 1 (none while the warm
    ///   neighborhood holds), plus O(slots) bookkeeping (O(slots²) when incumbents are dropped).
    public mutating func decide(at fix: Fix, incumbentPositions: [Int] = [], warmStart: Bool = true, into decision: inout PlanDecision) {
        let config = configuration
        let slots = config.placeSlots
        let query = UnitVector(fix.coordinate)
        let accuracy = fix.accuracyMeters ?? 0
        precondition(accuracy.isFinite && accuracy >= 0, "fix accuracy must be finite and >= 0")
        let trusted = fix.accuracyMeters.map { $0 <= config.maxTrustedAccuracyMeters } ?? true
        let reach = trusted ? 0 : accuracy
        decision.trustedFix = trusted

        if catalog.count <= slots {
            if let footprints = catalog.footprintIndex {
                footprints.nearest(catalog.count, to: query, into: &buffer, results: &ranked)
                decision.setMonitored(ranked[...])
            } else {
                catalog.index.nearest(catalog.count, to: query, measuredTo: .edge, into: &buffer)
                decision.setMonitored(buffer.neighbors[...])
            }
            decision.refreshRadiusMeters = nil
            decision.nextUnmonitoredEdgeMeters = nil
            decision.guarantee = .exact
            return
        }

        // Warm starts serve a rotation (consecutive fixes with incumbents); a one-off decision,
        // like a batch over unrelated positions, takes the plain query.
        rank(query, count: slots + 1, warm: warmStart && !incumbentPositions.isEmpty)
        let ranked = self.ranked
        let nextEdge: Double, radius: Double
        if trusted && (config.stickinessMeters == 0 || Self.holdsAll(incumbentPositions, ranked, slots)) {
            // The usual case: the nearest `slots`, in ranking order, and the next one sizes the
            // refresh region.
            decision.setMonitored(ranked.prefix(slots))
            nextEdge = ranked[slots].distanceMeters
            radius = min(config.maxRegionRadiusMeters, nextEdge - config.marginMeters)
        } else {
            (nextEdge, radius) = chooseKeepingIncumbents(query, ranked, incumbentPositions, trusted: trusted, reach: reach, into: &decision)
        }
        decision.nextUnmonitoredEdgeMeters = nextEdge
        decision.refreshRadiusMeters = max(0, radius)
        let overlapping = overlappingCount(query, reach: config.marginMeters + reach, kthEdge: ranked[slots].distanceMeters)
        if overlapping > slots {
            decision.guarantee = .saturated(overlapping: overlapping)
        } else if radius >= config.minRefreshRadiusMeters {
            decision.guarantee = .exact
        } else {
            decision.guarantee = .degraded(fallbackDistanceMeters: max(0, radius))
        }
    }

    /// Whether every incumbent is among the first `slots` ranked (then neither stickiness nor
    /// pinning changes anything).
    private static func holdsAll(_ incumbents: [Int], _ ranked: [Neighbor], _ slots: Int) -> Bool {
        guard incumbents.count <= slots else { return false }
        // Along a walk the incumbents are usually the ranked prefix in the same order.
        if incumbents.indices.allSatisfy({ incumbents[$0] == ranked[$0].index }) { return true }
        return incumbents.allSatisfy { incumbent in ranked.prefix(slots).contains { $0.index == incumbent } }
    }

    /// The choice when incumbents may keep their slots: an untrusted fix pins the incumbents the
    /// user may be inside, stickiness keeps dropped incumbents against slightly nearer newcomers
    /// (only while the selection stays exact). Writes the monitored places; returns the next
    /// unmonitored edge and the refresh radius (before flooring at 0).
    private func chooseKeepingIncumbents(
        _ query: UnitVector, _ ranked: [Neighbor], _ incumbentPositions: [Int], trusted: Bool, reach: Double,
        into decision: inout PlanDecision
    ) -> (next: Double, radius: Double) {
        let config = configuration
        let slots = config.placeSlots
        let catalog = self.catalog
        // Edge distances known so far (the ranked places, then any incumbent asked about): a few
        // dozen entries, searched linearly (cheaper than hashing at this size).
        var otherEdges: [(position: Int, edge: Double)] = []
        func edge(_ position: Int) -> Double {
            if let known = ranked.first(where: { $0.index == position }) { return known.distanceMeters }
            if let known = otherEdges.first(where: { $0.position == position }) { return known.edge }
            let value = catalog.edgeDistanceMeters(of: position, to: query)
            otherEdges.append((position, value))
            return value
        }

        // The ranking order: edge, then squared chord (nearer center), then position (id order).
        func precedes(_ a: Int, _ b: Int) -> Bool {
            RankingKey.precedes(
                key: edge(a), squaredChord: catalog.vectors[a].squaredChord(to: query), index: a,
                edge(b), catalog.vectors[b].squaredChord(to: query), b)
        }

        // Pure choice: the nearest `slots` by edge, except that an untrusted fix never drops a
        // fence the user may be inside (its edge within the fix's accuracy).
        var chosen = ranked.prefix(slots).map(\.index)
        var pinned: [Int] = []
        if !trusted {
            pinned = incumbentPositions.filter { edge($0) <= reach }
            for position in pinned where !chosen.contains(position) {
                // Replace the farthest member that is not itself pinned.
                if let victim = chosen.lastIndex(where: { !pinned.contains($0) }) { chosen[victim] = position }
            }
        }
        let pure = chosen

        // Stickiness: a dropped incumbent keeps its slot against a newcomer less than
        // `stickinessMeters` nearer (nearest dropped incumbent against farthest newcomer first).
        if config.stickinessMeters > 0 {
            let dropped = incumbentPositions.filter { !chosen.contains($0) }.sorted(by: precedes)
            var newcomers = chosen.filter { !incumbentPositions.contains($0) && !pinned.contains($0) }.sorted { precedes($1, $0) }
            for incumbent in dropped {
                guard let newcomer = newcomers.first, edge(incumbent) - edge(newcomer) < config.stickinessMeters else { break }
                newcomers.removeFirst()
                if let slot = chosen.firstIndex(of: newcomer) { chosen[slot] = incumbent }
            }
        }

        /// Whether `members` are the first `slots` ranked, in order (the usual case).
        func isRankedPrefix(_ members: [Int]) -> Bool { zip(members, ranked).allSatisfy { $0 == $1.index } }

        // The nearest unmonitored place is among the first slots + 1 ranked (pigeonhole).
        func safeRadius(_ members: [Int]) -> (next: Double, radius: Double) {
            let next =
                isRankedPrefix(members)
                ? ranked[slots].distanceMeters
                : ranked.first { !members.contains($0.index) }?.distanceMeters ?? .infinity
            return (next, min(config.maxRegionRadiusMeters, next - config.marginMeters - reach))
        }
        var (nextEdge, radius) = safeRadius(chosen)
        if chosen != pure && radius < config.minRefreshRadiusMeters {
            // Stickiness saves churn, never the guarantee: it only stands when the sticky
            // selection is still exact (its radius is never larger than the pure one's).
            chosen = pure
            (nextEdge, radius) = safeRadius(pure)
        }
        // `chosen` is already in ranking order unless pinning or stickiness replaced members.
        decision.positions.removeAll(keepingCapacity: true)
        decision.edgesMeters.removeAll(keepingCapacity: true)
        for position in isRankedPrefix(chosen) ? chosen : chosen.sorted(by: precedes) {
            decision.positions.append(position)
            decision.edgesMeters.append(edge(position))
        }
        return (nextEdge, radius)
    }

    /// Fills `ranked` with the `count` nearest places by edge at `query`: from the warm
    /// neighborhood while it provably holds them, else from the index (a warm query asks for a
    /// fresh neighborhood).
    ///
    /// The fresh neighborhood's query is not seeded with the incumbents: it asks for about twice
    /// as many places as there are incumbents, so as seeds they could never fill the list and
    /// bound the search, and ranking them first and checking every candidate against them would
    /// be work for nothing.
    private mutating func rank(_ query: UnitVector, count: Int, warm: Bool) {
        if let footprints = catalog.footprintIndex {
            // Footprints are ranked exactly by their index (the warm neighborhood ranks circles).
            footprints.nearest(count, to: query, into: &buffer, results: &ranked)
            return
        }
        if warm && neighborhood.rank(query, count: count, uniformRadius: catalog.uniformRadiusMeters, into: &ranked) { return }
        ranked.removeAll(keepingCapacity: true)
        if warm {
            // Refresh the neighborhood: twice what a selection needs, plus one. Fewer places let
            // the proof fail sooner (a refill is an index query); more cost ranking at every fix.
            let wanted = min(catalog.count, 2 * count + 1)
            // The cached places all lie within `reach` here: the search prunes from the root as
            // if it had found them. (A bounded query that finds too few, which the bound rules
            // out, falls back to the plain one.)
            var bounded = false
            if let reach = neighborhood.reach, reach.places >= wanted {
                catalog.index.nearest(wanted, to: query, measuredTo: .edge, within: reach.meters, into: &buffer)
                bounded = buffer.neighbors.count == wanted
            }
            if !bounded { catalog.index.nearest(wanted, to: query, measuredTo: .edge, into: &buffer) }
            let found = buffer.neighbors
            if found.count == wanted && wanted < catalog.count {
                neighborhood.refill(at: query, with: found, from: catalog)
            } else {
                neighborhood.forget()
            }
            ranked.append(contentsOf: found.prefix(count))
        } else {
            catalog.index.nearest(count, to: query, measuredTo: .edge, into: &buffer)
            ranked.append(contentsOf: buffer.neighbors)
        }
    }

    /// How many fences have an edge within `reach` of the query (only counted when the
    /// (slots+1)-th nearest is within reach, i.e. when it can exceed the slots).
    private mutating func overlappingCount(_ query: UnitVector, reach: Double, kthEdge: Double) -> Int {
        guard kthEdge <= reach else { return 0 }
        if let footprints = catalog.footprintIndex {
            var found: [Neighbor] = []
            footprints.within(reach, of: query, into: &buffer, results: &found)
            return found.count
        }
        catalog.index.within(reach, of: query, measuredTo: .edge, into: &buffer)
        return buffer.neighbors.count
    }
}
