import Geodesy
import SpatialIndex

/// Chooses what to monitor at one fix: the `placeSlots` places nearest by fence edge (with
/// stickiness and the untrusted-fix rules), and the refresh radius that keeps every unmonitored
/// fence out of reach.
///
/// A planner is a value with its own query scratch; use one per thread (a `FenceRotator` owns one).
public struct RotationPlanner: Sendable {
    public let catalog: PlaceCatalog
    public let configuration: RotationConfiguration
    private var buffer = NeighborBuffer()
    private var seeds: [NeighborSeed] = []
    /// The warm-start neighbourhood: the places nearest by edge to `center` (more than a selection
    /// needs), ranked there with their edge distances there, and `boundary`, the edge distance
    /// there of the first place left out. At a fix `d` meters away every edge has moved by at most
    /// `d` (triangle inequality): every place outside has an edge of at least `boundary − d`.
    private var neighbourhood: (center: UnitVector, nearest: [Neighbor], boundary: Double)?
    private var scratch: [(key: Double, squaredChord: Double, position: Int)] = []

    /// - Throws: `ConfigurationError` when the configuration is invalid.
    public init(catalog: PlaceCatalog, configuration: RotationConfiguration) throws(ConfigurationError) {
        self.catalog = catalog
        self.configuration = try configuration.validated()
    }

    /// The selection at `fix`.
    ///
    /// - Parameters:
    ///   - fix: the position; its accuracy must be nil or finite and ≥ 0.
    ///   - incumbents: the fences monitored until now (for stickiness and for untrusted fixes);
    ///     a fence whose catalog definition changed is not an incumbent.
    ///   - refreshID: the identifier for the new refresh region.
    /// - Returns: the places ranked by fence edge (ties: nearer centre, then id), the refresh
    ///   region centred on the fix with radius `next unmonitored edge − margin` (minus the fix's
    ///   accuracy when it is not trusted), capped at `maxRegionRadiusMeters` and never raised, and
    ///   the guarantee.
    /// - Complexity: one k-nearest query with k = placeSlots + 1, plus O(slots²) bookkeeping.
    ///   - warmStart: with incumbents, reuse the neighbourhood of the last selection while it
    ///     provably holds the answer, else seed the index query with the incumbents; the result is
    ///     the same either way.
    ///   - incumbentPositions: the incumbents' positions in this catalog, when the caller knows
    ///     them (a rotator keeps them from its last selection), to skip looking them up by id.
    public mutating func select(at fix: Fix, incumbents: [Fence] = [], refreshID: String, warmStart: Bool = true,
                                incumbentPositions knownPositions: [Int]? = nil) -> Selection {
        let config = configuration
        let slots = config.placeSlots
        let query = UnitVector(fix.coordinate)
        let accuracy = fix.accuracyMeters ?? 0
        precondition(accuracy.isFinite && accuracy >= 0, "fix accuracy must be finite and >= 0")
        let trusted = fix.accuracyMeters.map { $0 <= config.maxTrustedAccuracyMeters } ?? true
        let reach = trusted ? 0 : accuracy

        if catalog.count <= slots {
            catalog.index.nearest(catalog.count, to: query, measuredTo: .edge, into: &buffer)
            let monitored = buffer.neighbors.map { monitoredPlace($0.index, edge: $0.distanceMeters) }
            return Selection(fix: fix, monitored: monitored, refresh: nil, guarantee: .exact,
                             nextUnmonitoredEdgeMeters: nil, trustedFix: trusted)
        }

        let catalog = self.catalog
        // The incumbents that are still in the catalog with the same definition.
        let incumbentPositions: [Int]
        if let knownPositions, knownPositions.count == incumbents.count {
            incumbentPositions = knownPositions
        } else {
            incumbentPositions = incumbents.compactMap { fence in
                guard let position = catalog.position(of: fence.id), catalog.fences[position] == fence else { return nil }
                return position
            }
        }
        let ranked: [Neighbor]
        // Warm starts serve a rotation (consecutive fixes with incumbents); a one-off selection,
        // like a batch over unrelated positions, takes the plain query.
        let warm = warmStart && !incumbents.isEmpty
        if warm, let cached = rankFromNeighbourhood(query, count: slots + 1) {
            ranked = cached
        } else if warm {
            // Refresh the neighbourhood: twice what a selection needs, plus the boundary place,
            // seeded with the incumbents.
            seeds.removeAll(keepingCapacity: true)
            for position in incumbentPositions {
                seeds.append(NeighborSeed(index: position, vector: catalog.vectors[position], radiusMeters: catalog.places[position].radiusMeters))
            }
            let wanted = min(catalog.count, 2 * (slots + 1) + 1)
            catalog.index.nearest(wanted, to: query, measuredTo: .edge, seededWith: seeds, into: &buffer)
            let found = buffer.neighbors
            if found.count == wanted && wanted < catalog.count {
                neighbourhood = (query, Array(found.dropLast()), found[found.count - 1].distanceMeters)
            } else {
                neighbourhood = nil
            }
            ranked = Array(found.prefix(slots + 1))
        } else {
            catalog.index.nearest(slots + 1, to: query, measuredTo: .edge, into: &buffer)
            ranked = buffer.neighbors
        }
        // Edge distances known so far (the ranked places, then any incumbent asked about): a few
        // dozen entries, searched linearly (cheaper than hashing at this size).
        var otherEdges: [(position: Int, edge: Double)] = []
        func edge(_ position: Int) -> Double {
            if let known = ranked.first(where: { $0.index == position }) { return known.distanceMeters }
            if let known = otherEdges.first(where: { $0.position == position }) { return known.edge }
            let value = RankingKey.edgeMeters(squaredChord: catalog.vectors[position].squaredChord(to: query),
                                              radiusMeters: catalog.places[position].radiusMeters)
            otherEdges.append((position, value))
            return value
        }

        // The ranking order: edge, then squared chord (nearer centre), then position (id order).
        func precedes(_ a: Int, _ b: Int) -> Bool {
            let ea = edge(a), eb = edge(b)
            if ea != eb { return ea < eb }
            let ca = catalog.vectors[a].squaredChord(to: query)
            let cb = catalog.vectors[b].squaredChord(to: query)
            return ca != cb ? ca < cb : a < b
        }

        // Pure choice: the nearest `slots` by edge, except that an untrusted fix never drops a
        // fence the user may be inside (its edge within the fix's accuracy).
        var chosen = ranked.prefix(slots).map(\.index)
        var pinned: Set<Int> = []
        if !trusted {
            let mustKeep = incumbentPositions.filter { edge($0) <= reach }
            pinned = Set(mustKeep)
            for position in mustKeep where !chosen.contains(position) {
                // Replace the farthest member that is not itself pinned.
                if let victim = chosen.lastIndex(where: { !pinned.contains($0) }) { chosen[victim] = position }
            }
        }
        let pure = chosen

        // Stickiness: a dropped incumbent keeps its slot against a newcomer less than
        // `stickinessMeters` nearer (nearest dropped incumbent against farthest newcomer first).
        if config.stickinessMeters > 0 {
            let incumbentSet = Set(incumbentPositions)
            let dropped = incumbentPositions.filter { !chosen.contains($0) }.sorted(by: precedes)
            var newcomers = chosen.filter { !incumbentSet.contains($0) && !pinned.contains($0) }.sorted { precedes($1, $0) }
            for incumbent in dropped {
                guard let newcomer = newcomers.first, edge(incumbent) - edge(newcomer) < config.stickinessMeters else { break }
                newcomers.removeFirst()
                if let slot = chosen.firstIndex(of: newcomer) { chosen[slot] = incumbent }
            }
        }

        /// Whether `members` are the first `slots` ranked, in order (the usual case).
        func isRankedPrefix(_ members: [Int]) -> Bool { members.elementsEqual(ranked.prefix(slots).lazy.map(\.index)) }

        // The nearest unmonitored place is among the first slots + 1 ranked (pigeonhole).
        func safeRadius(_ members: [Int]) -> (next: Double, radius: Double) {
            let next = isRankedPrefix(members)
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

        let guarantee: Guarantee
        let overlapping = overlappingCount(query, reach: config.marginMeters + reach, kthEdge: ranked[slots].distanceMeters)
        if overlapping > slots {
            guarantee = .saturated(overlapping: overlapping)
        } else if radius >= config.minRefreshRadiusMeters {
            guarantee = .exact
        } else {
            guarantee = .degraded(fallbackDistanceMeters: max(0, radius))
        }
        // `chosen` is already in ranking order unless pinning or stickiness replaced members.
        let order = isRankedPrefix(chosen) ? chosen : chosen.sorted(by: precedes)
        return Selection(
            fix: fix, monitored: order.map { monitoredPlace($0, edge: edge($0)) },
            refresh: RefreshRegion(id: refreshID, center: fix.coordinate, radiusMeters: max(0, radius)),
            guarantee: guarantee, nextUnmonitoredEdgeMeters: nextEdge, trustedFix: trusted)
    }

    /// The `count` nearest places by edge at `query`, from the cached neighbourhood, when it
    /// provably holds them: the count-th key there must stay below every outside place's lowest
    /// possible key (`boundary − d`, less 1 µm for rounding). The same keys, order and ties as
    /// the index query, so the answer is identical.
    private mutating func rankFromNeighbourhood(_ query: UnitVector, count: Int) -> [Neighbor]? {
        guard let cached = neighbourhood, cached.nearest.count >= count else { return nil }
        let moved = GreatCircle.arcMeters(squaredChord: cached.center.squaredChord(to: query))
        // At least `count` places have an edge of at most `nearest[count − 1]`'s + moved now, so a
        // place whose edge at the centre exceeds that by 2 × moved ranks after all of them and
        // needs no key: only a prefix of the cached ranking is re-ranked (1 µm pads for rounding).
        let cutoff = cached.nearest[count - 1].distanceMeters + 2 * moved + 2e-6
        scratch.removeAll(keepingCapacity: true)
        for neighbor in cached.nearest {
            if neighbor.distanceMeters > cutoff { break }
            let position = neighbor.index
            let squaredChord = catalog.vectors[position].squaredChord(to: query)
            scratch.append((RankingKey.edgeMeters(squaredChord: squaredChord, radiusMeters: catalog.places[position].radiusMeters), squaredChord, position))
        }
        // Insertion sort: the ranking at the centre, meters away, is nearly right already.
        func precedes(_ a: (key: Double, squaredChord: Double, position: Int), _ b: (key: Double, squaredChord: Double, position: Int)) -> Bool {
            RankingKey.precedes(key: a.key, squaredChord: a.squaredChord, index: a.position, b.key, b.squaredChord, b.position)
        }
        for i in 1..<scratch.count {
            let entry = scratch[i]
            var j = i
            while j > 0 && precedes(entry, scratch[j - 1]) {
                scratch[j] = scratch[j - 1]
                j -= 1
            }
            scratch[j] = entry
        }
        guard scratch[count - 1].key + 1e-6 < cached.boundary - moved - 1e-6 else { return nil }
        let ranked = scratch.map { Neighbor(index: $0.position, distanceMeters: $0.key) }
        if ranked.count == cached.nearest.count {
            // Every cached place was re-ranked: re-centre here, so the next fixes re-rank a short
            // prefix again. Outside places still have an edge of at least `boundary − moved`.
            neighbourhood = (query, ranked, cached.boundary - moved - 1e-6)
        }
        return Array(ranked.prefix(count))
    }

    /// How many fences have an edge within `reach` of the query (only counted when the
    /// (slots+1)-th nearest is within reach, i.e. when it can exceed the slots).
    private mutating func overlappingCount(_ query: UnitVector, reach: Double, kthEdge: Double) -> Int {
        guard kthEdge <= reach else { return 0 }
        catalog.index.within(reach, of: query, measuredTo: .edge, into: &buffer)
        return buffer.neighbors.count
    }

    private func monitoredPlace(_ position: Int, edge: Double) -> MonitoredPlace {
        MonitoredPlace(position: position, fence: catalog.fences[position], edgeDistanceMeters: edge)
    }
}
