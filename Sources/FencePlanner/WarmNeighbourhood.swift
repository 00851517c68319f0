import Geodesy
import SpatialIndex

/// The places nearest by fence edge to a past fix, kept so that the next fixes of a walk, meters
/// away, can be ranked without touching the index while the triangle inequality proves the
/// answer is among them.
///
/// It holds the places ranked at `center` (with copies of their vectors and radii, so re-ranking
/// reads one small contiguous array instead of the catalog) and `boundary`, the edge distance at
/// `center` of the first place left out. At a fix `d` meters away every edge has moved by at most
/// `d`: every place outside has an edge of at least `boundary − d`.
struct WarmNeighbourhood: Sendable {
    struct Entry: Sendable {
        var vector: UnitVector
        var radiusMeters: Double
        var position: Int
        /// Fence-edge distance at `center`.
        var edgeMeters: Double
    }

    private var center: UnitVector?
    private var entries: [Entry] = []
    /// Storage the next re-centred ranking is written to (swapped with `entries`).
    private var spare: [Entry] = []
    private var boundary = 0.0
    /// How many places past the `count` needed may fall inside the re-ranked prefix before the
    /// whole cache is re-ranked and re-centred on the fix (see `rank`).
    static let recentringSlack = 4
    /// Re-ranked entries: the ranking key, squared chord, catalog position and slot in `entries`.
    private var sorted: [(key: Double, squaredChord: Double, position: Int, slot: Int)] = []
    /// The edges in meters of the re-ranked entries, in ranking order.
    private var edges: [Double] = []

    /// Drops the cached places.
    mutating func forget() {
        center = nil
        entries.removeAll(keepingCapacity: true)
    }

    /// Caches `found`, the places nearest by edge at `query` in ranking order, all but the last;
    /// the last one's edge becomes the boundary (nothing is cached when fewer than two).
    mutating func refill(at query: UnitVector, with found: [Neighbor], from catalog: PlaceCatalog) {
        forget()
        guard found.count >= 2 else { return }
        center = query
        for neighbor in found.dropLast() {
            entries.append(Entry(vector: catalog.vectors[neighbor.index], radiusMeters: catalog.radiiMeters[neighbor.index],
                                 position: neighbor.index, edgeMeters: neighbor.distanceMeters))
        }
        boundary = found[found.count - 1].distanceMeters
    }

    /// Writes the `count` nearest places by edge at `query` into `ranked`, when the cache provably
    /// holds them: the count-th key must stay below every outside place's lowest possible key
    /// (`boundary − d`, less 1 µm for rounding). The same keys, order and ties as the index
    /// query, so the answer is identical. False (and `ranked` unspecified) when it cannot.
    ///
    /// - Parameter uniformRadius: the radius every catalog place shares, if any: then the edge
    ///   order is the squared-chord order (see `RankingKey`), and only what is reported is
    ///   converted to meters.
    mutating func rank(_ query: UnitVector, count: Int, uniformRadius: Double?, into ranked: inout [Neighbor]) -> Bool {
        guard let center, entries.count >= count, count > 0 else { return false }
        let moved = GreatCircle.arcMeters(squaredChord: center.squaredChord(to: query))
        // At least `count` places have an edge of at most `entries[count − 1]`'s + moved now, so a
        // place whose edge at the centre exceeds that by 2 × moved ranks after all of them and
        // needs no key: only a prefix of the cached ranking is re-ranked (1 µm pads for rounding).
        var cutoff = entries[count - 1].edgeMeters + 2 * moved + 2e-6
        // The prefix grows with the distance from the centre, and the centre's order gets less
        // right (insertions shift further, and unpredictably): once it reaches `count + slack`
        // places, re-rank them all and re-centre here (measured along walks at 10,000 places:
        // the prefix went from 25.7 to 20.8 places a fix, the insertion shifts from 50 to 6).
        let slack = Self.recentringSlack
        if count + slack < entries.count && entries[count + slack].edgeMeters <= cutoff { cutoff = .infinity }
        if sorted.count < entries.count {
            sorted = Array(repeating: (0, 0, 0, 0), count: entries.count)
        }
        // SAFETY: `used` never exceeds `entries.count`, and `sorted` holds at least that many.
        let used = entries.withUnsafeBufferPointer { entries in
            sorted.withUnsafeMutableBufferPointer { sorted in
                // Insertion: the ranking at the centre, meters away, is nearly right already.
                var used = 0
                while used < entries.count && entries[used].edgeMeters <= cutoff {
                    let entry = entries[used]
                    let squaredChord = entry.vector.squaredChord(to: query)
                    let key = uniformRadius == nil
                        ? RankingKey.edgeMeters(squaredChord: squaredChord, radiusMeters: entry.radiusMeters) : squaredChord
                    var j = used
                    while j > 0 && RankingKey.precedes(key: key, squaredChord: squaredChord, index: entry.position,
                                                       sorted[j - 1].key, sorted[j - 1].squaredChord, sorted[j - 1].position) {
                        sorted[j] = sorted[j - 1]
                        j -= 1
                    }
                    sorted[j] = (key, squaredChord, entry.position, used)
                    used += 1
                }
                return used
            }
        }
        let recentring = used == entries.count
        // The edges in meters of the places reported (all re-ranked ones when re-centring).
        let converted = recentring ? used : count
        if edges.count < converted { edges = Array(repeating: 0, count: converted) }
        // SAFETY: `converted` ≤ `used`, and `sorted` and `edges` hold at least that many.
        edges.withUnsafeMutableBufferPointer { edges in
            sorted.withUnsafeBufferPointer { sorted in
                guard let uniformRadius else {
                    for i in 0..<converted { edges[i] = sorted[i].key }
                    return
                }
                // Two at a time: this conversion is a third of a warm ranking's instructions.
                var i = 0
                while i + 1 < converted {
                    let arcs = GreatCircle.arcMeters(squaredChords: SIMD2(sorted[i].squaredChord, sorted[i + 1].squaredChord))
                    edges[i] = arcs.x - uniformRadius
                    edges[i + 1] = arcs.y - uniformRadius
                    i += 2
                }
                if i < converted { edges[i] = RankingKey.edgeMeters(squaredChord: sorted[i].squaredChord, radiusMeters: uniformRadius) }
            }
        }
        guard edges[count - 1] + 1e-6 < boundary - moved - 1e-6 else { return false }
        ranked.resize(to: count, filler: Neighbor(index: 0, distanceMeters: 0))
        ranked.withUnsafeMutableBufferPointer { ranked in
            for i in 0..<count { ranked[i] = Neighbor(index: sorted[i].position, distanceMeters: edges[i]) }
        }
        if !recentring { return true }
        // Every cached place was re-ranked: re-centre here, so the next fixes re-rank a short
        // prefix again. Outside places still have an edge of at least `boundary − moved`.
        spare.removeAll(keepingCapacity: true)
        for i in 0..<used {
            var entry = entries[sorted[i].slot]
            entry.edgeMeters = edges[i]
            spare.append(entry)
        }
        swap(&entries, &spare)
        self.center = query
        boundary -= moved + 1e-6
        return true
    }
}
