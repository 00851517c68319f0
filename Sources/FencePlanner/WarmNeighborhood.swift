import Geodesy
import SpatialIndex

/// The places nearest by fence edge to a past fix, kept so that the next fixes of a walk, meters
/// away, can be ranked without touching the index while the triangle inequality proves the
/// answer is among them.
///
/// It holds the places found nearest at `center` (with copies of their vectors and radii, so
/// re-ranking reads one small array front to back instead of the catalog) and `boundary`, the edge
/// distance at `center` of the farthest of them (no place outside ranked before it there). At a
/// fix `d` meters away every edge has moved by at most `d`: every place outside has an edge of at
/// least `boundary − d`.
///
/// Every fix re-ranks all the cached places, visiting them in the order the previous fix ranked
/// them: fixes meters apart rarely reorder their places, so that order is usually still right,
/// and checking it costs one comparison a place without a branch, where sorting from scratch
/// costs a branch the processor guesses wrong at every swap.
struct WarmNeighborhood: Sendable {
    /// A cached place: its unit vector, fence radius and catalog position.
    struct Cached: Sendable {
        var vector: UnitVector
        var radiusMeters: Double
        var position: Int
    }

    private var center: UnitVector?
    /// The edge at `center` of the farthest cached place: no place outside has a smaller one.
    private var boundary = 0.0
    /// The cached places, in the last fix's ranking order (kept in that order, so re-ranking
    /// reads them front to back).
    private var places: [Cached] = []
    /// Scratch: the ranking keys of `places` at the fix being ranked (edge meters, or the squared
    /// chord when every radius is the same).
    private var keys: [Double] = []
    /// After a `rank` that could not prove its answer: the largest edge of the cached places at
    /// that fix, so every one of them lies within it (a bound for the index query that follows).
    private(set) var reach: (places: Int, meters: Double)?

    /// Drops the cached places.
    mutating func forget() {
        center = nil
        places.removeAll(keepingCapacity: true)
    }

    /// Caches `found`, the places nearest by edge at `query` in ranking order; the last one's edge
    /// becomes the boundary (nothing is cached when fewer than two). Places not found rank at or
    /// after the last, so their edge is at least the boundary.
    mutating func refill(at query: UnitVector, with found: [Neighbor], from catalog: PlaceCatalog) {
        forget()
        guard found.count >= 2 else { return }
        center = query
        let cached = found.count
        boundary = found[cached - 1].distanceMeters
        places.resize(to: cached, filler: Cached(vector: UnitVector(x: 0, y: 0, z: 0), radiusMeters: 0, position: 0))
        if keys.count < cached { keys = Array(repeating: 0, count: cached) }
        // One tight loop of independent reads: the catalog's arrays are large and these places
        // lie anywhere in them, so the processor should have many of the reads in flight at once
        // (appending one place at a time would wait on each). With one radius for all, the radii
        // are not read at all (half the cache misses).
        let uniformRadius = catalog.uniformRadiusMeters
        // SAFETY: `places` was resized to `cached`; the positions come from the catalog's index.
        found.withUnsafeBufferPointer { found in
            catalog.vectors.withUnsafeBufferPointer { catalogVectors in
                catalog.radiiMeters.withUnsafeBufferPointer { catalogRadii in
                    places.withUnsafeMutableBufferPointer { places in
                        for slot in 0..<cached {
                            let position = found[slot].index
                            places[slot] = Cached(
                                vector: catalogVectors[position], radiusMeters: uniformRadius ?? catalogRadii[position],
                                position: position)
                        }
                    }
                }
            }
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
        let cached = places.count
        reach = nil
        guard let center, cached >= count, count > 0 else { return false }
        let moved = GreatCircle.arcMeters(squaredChord: center.squaredChord(to: query))
        // SAFETY: `keys` holds at least `cached` values.
        let settled = places.withUnsafeBufferPointer { places in
            keys.withUnsafeMutableBufferPointer { keys in
                for i in 0..<cached { keys[i] = places[i].vector.squaredChord(to: query) }
                if uniformRadius == nil { Self.convertToEdges(keys, count: cached, places: places) }
                // The answer stands when the first `count` keys still increase strictly and the
                // last of them is below every other key (equal keys go to the sort, which breaks
                // ties); the order of the rest does not matter. Two lanes of comparisons folded
                // into one mask: no branch on any of them.
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
        if !settled { sortPlaces(query, count: count) }
        ranked.resize(to: count, filler: Neighbor(index: 0, distanceMeters: 0))
        // SAFETY: `count` ≤ `cached`.
        places.withUnsafeBufferPointer { places in
            keys.withUnsafeBufferPointer { keys in
                ranked.withUnsafeMutableBufferPointer { ranked in
                    guard let uniformRadius else {
                        for i in 0..<count { ranked[i] = Neighbor(index: places[i].position, distanceMeters: keys[i]) }
                        return
                    }
                    // Two arcs at a time: this conversion is a large share of the work.
                    var i = 0
                    while i + 1 < count {
                        let arcs = GreatCircle.arcMeters(squaredChords: SIMD2(keys[i], keys[i + 1]))
                        ranked[i] = Neighbor(index: places[i].position, distanceMeters: arcs.x - uniformRadius)
                        ranked[i + 1] = Neighbor(index: places[i + 1].position, distanceMeters: arcs.y - uniformRadius)
                        i += 2
                    }
                    if i < count {
                        ranked[i] = Neighbor(
                            index: places[i].position,
                            distanceMeters: RankingKey.edgeMeters(squaredChord: keys[i], radiusMeters: uniformRadius))
                    }
                }
            }
        }
        if ranked[count - 1].distanceMeters + 1e-6 < boundary - moved - 1e-6 { return true }
        // SAFETY: `keys` holds the keys of all `cached` places at `query`.
        let largest = keys.withUnsafeBufferPointer { keys in
            var largest = -Double.infinity
            for i in 0..<cached { largest = Swift.max(largest, keys[i]) }
            return largest
        }
        reach = (cached, uniformRadius.map { RankingKey.edgeMeters(squaredChord: largest, radiusMeters: $0) } ?? largest)
        return false
    }

    /// Replaces the squared chords in `keys` (of `places`) by fence edges in meters, two at a time.
    private static func convertToEdges(_ keys: UnsafeMutableBufferPointer<Double>, count: Int, places: UnsafeBufferPointer<Cached>) {
        var i = 0
        while i + 1 < count {
            let arcs = GreatCircle.arcMeters(squaredChords: SIMD2(keys[i], keys[i + 1]))
            keys[i] = arcs.x - places[i].radiusMeters
            keys[i + 1] = arcs.y - places[i + 1].radiusMeters
            i += 2
        }
        if i < count { keys[i] = RankingKey.edgeMeters(squaredChord: keys[i], radiusMeters: places[i].radiusMeters) }
    }

    /// Puts the first `count` places of the ranking at `query` first in `places` (their keys in
    /// `keys`), in ranking order: by key, then squared chord, then catalog position, as the index
    /// ranks; the rest follow in any order. Insertion: the last fix's order is nearly right.
    private mutating func sortPlaces(_ query: UnitVector, count: Int) {
        let cached = places.count
        // SAFETY: `places` and `keys` hold `cached` values; `count` ≤ `cached`.
        places.withUnsafeMutableBufferPointer { places in
            keys.withUnsafeMutableBufferPointer { keys in
                /// Whether `a` with key `keyA` ranks before `b` with key `keyB`.
                func precedes(_ keyA: Double, _ a: Cached, _ keyB: Double, _ b: Cached) -> Bool {
                    if keyA != keyB { return keyA < keyB }
                    // A tie on the key (rare): the squared chords, then the positions.
                    return RankingKey.precedes(
                        key: keyA, squaredChord: a.vector.squaredChord(to: query), index: a.position,
                        keyB, b.vector.squaredChord(to: query), b.position)
                }
                /// Inserts `place` with `key` into the sorted `0..<end`, from index `end`.
                func insert(_ key: Double, _ place: Cached, below end: Int) {
                    var j = end
                    while j > 0 && precedes(key, place, keys[j - 1], places[j - 1]) {
                        keys[j] = keys[j - 1]
                        places[j] = places[j - 1]
                        j -= 1
                    }
                    keys[j] = key
                    places[j] = place
                }
                for i in 1..<count { insert(keys[i], places[i], below: i) }
                // A place of the rest that ranks before the last of the first `count` takes its
                // place there; the last moves to the rest.
                for i in count..<cached where precedes(keys[i], places[i], keys[count - 1], places[count - 1]) {
                    let key = keys[i], place = places[i]
                    keys[i] = keys[count - 1]
                    places[i] = places[count - 1]
                    insert(key, place, below: count - 1)
                }
            }
        }
    }
}
