import Geodesy
import SpatialIndex

/// The places nearest by fence edge to a past fix, kept so that the next fixes of a walk, meters
/// away, can be ranked without touching the index while the triangle inequality proves the
/// answer is among them.
///
/// It holds the places found nearest at `center` (with copies of their vectors and radii, so
/// re-ranking reads small contiguous arrays instead of the catalog) and `boundary`, the edge
/// distance at `center` of the first place left out. At a fix `d` meters away every edge has
/// moved by at most `d`: every place outside has an edge of at least `boundary − d`.
///
/// Every fix re-ranks all the cached places, visiting them in the order the previous fix ranked
/// them: fixes meters apart rarely reorder their places, so that order is usually still right,
/// and checking it costs one comparison a place without a branch, where sorting from scratch
/// costs a branch the processor guesses wrong at every swap.
struct WarmNeighbourhood: Sendable {
    private var center: UnitVector?
    /// The edge at `center` of the first place left out.
    private var boundary = 0.0
    /// The cached places by slot: unit vector, fence radius, catalog position.
    private var vectors: [UnitVector] = []
    private var radii: [Double] = []
    private var positions: [Int] = []
    /// The slots in the last fix's ranking order.
    private var order: [Int] = []
    /// Scratch: the ranking keys by slot, then in `order` (edge meters, or the squared chord when
    /// every radius is the same).
    private var slotKeys: [Double] = []
    private var keys: [Double] = []

    /// Drops the cached places.
    mutating func forget() {
        center = nil
        vectors.removeAll(keepingCapacity: true)
        radii.removeAll(keepingCapacity: true)
        positions.removeAll(keepingCapacity: true)
        order.removeAll(keepingCapacity: true)
    }

    /// Caches `found`, the places nearest by edge at `query` in ranking order, all but the last;
    /// the last one's edge becomes the boundary (nothing is cached when fewer than two).
    mutating func refill(at query: UnitVector, with found: [Neighbor], from catalog: PlaceCatalog) {
        forget()
        guard found.count >= 2 else { return }
        center = query
        for (slot, neighbor) in found.dropLast().enumerated() {
            vectors.append(catalog.vectors[neighbor.index])
            radii.append(catalog.radiiMeters[neighbor.index])
            positions.append(neighbor.index)
            order.append(slot)
        }
        boundary = found[found.count - 1].distanceMeters
        if keys.count < order.count {
            keys = Array(repeating: 0, count: order.count)
            slotKeys = keys
        }
    }

    /// Writes the `count` nearest places by edge at `query` into `ranked`, when the cache provably
    /// holds them: the count-th edge must stay below every outside place's lowest possible edge
    /// (`boundary − d`, less 1 µm for rounding). The same keys, order and ties as the index
    /// query, so the answer is identical. False (and `ranked` unspecified) when it cannot.
    ///
    /// - Parameter uniformRadius: the radius every catalog place shares, if any: then the edge
    ///   order is the squared-chord order (see `RankingKey`), and only what is reported is
    ///   converted to meters.
    mutating func rank(_ query: UnitVector, count: Int, uniformRadius: Double?, into ranked: inout [Neighbor]) -> Bool {
        let cached = order.count
        guard let center, cached >= count, count > 0 else { return false }
        let moved = GreatCircle.arcMeters(squaredChord: center.squaredChord(to: query))
        // SAFETY: `order` is a permutation of the slots `0..<cached`, which index `vectors`,
        // `radii` and `positions`; `keys` holds at least `cached` values.
        let settled = vectors.withUnsafeBufferPointer { vectors in
            order.withUnsafeBufferPointer { order in
                keys.withUnsafeMutableBufferPointer { keys in
                    for i in 0..<cached { keys[i] = vectors[order[i]].squaredChord(to: query) }
                    if uniformRadius == nil { radii.withUnsafeBufferPointer { Self.convertToEdges(keys, count: cached, radii: $0, order: order) } }
                    // The answer stands when the first `count` keys still increase strictly and
                    // the last of them is below every other key (equal keys go to the sort,
                    // which breaks ties); the order of the rest does not matter. Two lanes of
                    // comparisons folded into one mask: no branch on any of them.
                    var holds = SIMDMask<SIMD2<Int64>>(repeating: true)
                    var i = 1
                    while i + 1 < count {
                        holds .&= SIMD2(keys[i - 1], keys[i]) .< SIMD2(keys[i], keys[i + 1])
                        i += 2
                    }
                    if i < count { holds .&= SIMD2(repeating: keys[i - 1]) .< SIMD2(repeating: keys[i]) }
                    let last = SIMD2(repeating: keys[count - 1])
                    i = count
                    while i + 1 < cached {
                        holds .&= last .< SIMD2(keys[i], keys[i + 1])
                        i += 2
                    }
                    if i < cached { holds .&= last .< SIMD2(repeating: keys[i]) }
                    return all(holds)
                }
            }
        }
        if !settled { sortOrder(query, count: count) }
        ranked.resize(to: count, filler: Neighbor(index: 0, distanceMeters: 0))
        // SAFETY: `count` ≤ `cached`.
        positions.withUnsafeBufferPointer { positions in
            order.withUnsafeBufferPointer { order in
                keys.withUnsafeBufferPointer { keys in
                    ranked.withUnsafeMutableBufferPointer { ranked in
                        guard let uniformRadius else {
                            for i in 0..<count { ranked[i] = Neighbor(index: positions[order[i]], distanceMeters: keys[i]) }
                            return
                        }
                        // Two arcs at a time: this conversion is a large share of the work.
                        var i = 0
                        while i + 1 < count {
                            let arcs = GreatCircle.arcMeters(squaredChords: SIMD2(keys[i], keys[i + 1]))
                            ranked[i] = Neighbor(index: positions[order[i]], distanceMeters: arcs.x - uniformRadius)
                            ranked[i + 1] = Neighbor(index: positions[order[i + 1]], distanceMeters: arcs.y - uniformRadius)
                            i += 2
                        }
                        if i < count {
                            ranked[i] = Neighbor(index: positions[order[i]],
                                                 distanceMeters: RankingKey.edgeMeters(squaredChord: keys[i], radiusMeters: uniformRadius))
                        }
                    }
                }
            }
        }
        return ranked[count - 1].distanceMeters + 1e-6 < boundary - moved - 1e-6
    }

    /// Replaces the squared chords in `keys` (of the slots in `order`) by fence edges in meters,
    /// two at a time.
    private static func convertToEdges(_ keys: UnsafeMutableBufferPointer<Double>, count: Int, radii: UnsafeBufferPointer<Double>,
                                       order: UnsafeBufferPointer<Int>) {
        var i = 0
        while i + 1 < count {
            let arcs = GreatCircle.arcMeters(squaredChords: SIMD2(keys[i], keys[i + 1]))
            keys[i] = arcs.x - radii[order[i]]
            keys[i + 1] = arcs.y - radii[order[i + 1]]
            i += 2
        }
        if i < count { keys[i] = RankingKey.edgeMeters(squaredChord: keys[i], radiusMeters: radii[order[i]]) }
    }

    /// Puts the first `count` places of the ranking at `query` in `order[0..<count]` (and their
    /// keys in `keys`), in ranking order: by key, then squared chord, then catalog position, as
    /// the index ranks; the rest follow in any order. Insertion: the last fix's order is nearly
    /// right.
    private mutating func sortOrder(_ query: UnitVector, count: Int) {
        let cached = order.count
        // SAFETY: `order` and `keys` hold `cached` values; `order` holds slots of `vectors` and
        // `positions`; `count` ≤ `cached`.
        vectors.withUnsafeBufferPointer { vectors in
            positions.withUnsafeBufferPointer { positions in
                order.withUnsafeMutableBufferPointer { order in
                    keys.withUnsafeMutableBufferPointer { keys in
                        /// Whether slot `a` with key `keyA` ranks before slot `b` with key `keyB`.
                        func precedes(_ keyA: Double, _ a: Int, _ keyB: Double, _ b: Int) -> Bool {
                            if keyA != keyB { return keyA < keyB }
                            // A tie on the key (rare): the squared chords, then the positions.
                            return RankingKey.precedes(key: keyA, squaredChord: vectors[a].squaredChord(to: query), index: positions[a],
                                                       keyB, vectors[b].squaredChord(to: query), positions[b])
                        }
                        /// Inserts `key` of `slot` into the sorted `0..<end`, from position `end`.
                        func insert(_ key: Double, _ slot: Int, below end: Int) {
                            var j = end
                            while j > 0 && precedes(key, slot, keys[j - 1], order[j - 1]) {
                                keys[j] = keys[j - 1]
                                order[j] = order[j - 1]
                                j -= 1
                            }
                            keys[j] = key
                            order[j] = slot
                        }
                        for i in 1..<count { insert(keys[i], order[i], below: i) }
                        // A place of the rest that ranks before the last of the first `count`
                        // takes its place there; the last moves to the rest.
                        for i in count..<cached where precedes(keys[i], order[i], keys[count - 1], order[count - 1]) {
                            let key = keys[i], slot = order[i]
                            keys[i] = keys[count - 1]
                            order[i] = order[count - 1]
                            insert(key, slot, below: count - 1)
                        }
                    }
                }
            }
        }
    }
}
