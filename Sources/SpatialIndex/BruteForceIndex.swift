import Geodesy

/// The obviously correct reference for `KDTree`: computes every place's key and sorts.
///
/// It ranks with the same `RankingKey` expressions as the tree, so on the same input both must
/// return identical results (same indices, same order, same distances). Tests compare against it,
/// and `rotate bench` times it as the baseline ("compute all distances, sort").
package struct BruteForceIndex: Sendable {
    /// The places' unit vectors, in input order (a result's `index` is a position here).
    package let vectors: [UnitVector]
    /// One fence radius in meters per place, in input order; all 0 when none were given.
    package let radiiMeters: [Double]

    /// Builds the reference over coordinates, with an optional fence radius in meters per place.
    ///
    /// - Parameters:
    ///   - coordinates: the places' centers; a result's `index` is the position in this array.
    ///   - radiiMeters: one radius per place, or nil for all zero; a count other than
    ///     `coordinates.count` is a programming error and traps.
    package init(coordinates: [Coordinate], radiiMeters: [Double]? = nil) {
        self.init(vectors: coordinates.map(UnitVector.init), radiiMeters: radiiMeters)
    }

    /// Builds the reference over unit vectors, with an optional fence radius in meters per place.
    ///
    /// Nothing is precomputed: every query scans all places. A radius count other than
    /// `vectors.count` is a programming error and traps.
    package init(vectors: [UnitVector], radiiMeters: [Double]? = nil) {
        precondition(radiiMeters == nil || radiiMeters?.count == vectors.count, "one radius per place")
        self.vectors = vectors
        self.radiiMeters = radiiMeters ?? Array(repeating: 0, count: vectors.count)
    }

    /// Number of places.
    package var count: Int { vectors.count }

    /// The `k` nearest places by center or by fence edge, sorted, ties as `RankingKey` says.
    ///
    /// Computes every place's key, then keeps the best `k` in a sorted array (a candidate enters
    /// when it precedes the current k-th). Only the final `k` are converted to `Neighbor`.
    /// - Complexity: O(n · k) worst case, O(n) typical.
    package func nearest(_ k: Int, to query: UnitVector, measuredTo target: DistanceTarget = .center) -> [Neighbor] {
        precondition(k >= 0, "k must be >= 0")
        guard k > 0 else { return [] }
        var best: [Keyed] = []
        best.reserveCapacity(k + 1)
        for i in vectors.indices {
            let candidate = keyed(i, query, target)
            if best.count == k {
                guard candidate.precedes(best[k - 1]) else { continue }
                best.removeLast()
            }
            let position = best.firstIndex { candidate.precedes($0) } ?? best.count
            best.insert(candidate, at: position)
        }
        return best.map(\.neighbor)
    }

    /// The `k` nearest places the naive way: compute every place's distance, sort them all, keep
    /// the first `k`. Same answer as `nearest`; this is the design rotate replaces, and the
    /// baseline `rotate bench` times.
    /// - Complexity: O(n log n) per query.
    package func nearestSortingAll(_ k: Int, to query: UnitVector, measuredTo target: DistanceTarget = .center) -> [Neighbor] {
        precondition(k >= 0, "k must be >= 0")
        return vectors.indices.map { keyed($0, query, target) }
            .sorted { $0.precedes($1) }
            .prefix(k)
            .map(\.neighbor)
    }

    /// Every place within `meters` by center or by fence edge, sorted as `nearest` sorts.
    /// - Complexity: O(n + m log m) for m results.
    package func within(_ meters: Double, of query: UnitVector, measuredTo target: DistanceTarget = .center) -> [Neighbor] {
        vectors.indices.map { keyed($0, query, target) }
            .filter { $0.neighbor.distanceMeters <= meters }
            .sorted { $0.precedes($1) }
            .map(\.neighbor)
    }

    private struct Keyed {
        var key: Double
        var squaredChord: Double
        var neighbor: Neighbor

        func precedes(_ other: Keyed) -> Bool {
            RankingKey.precedes(
                key: key, squaredChord: squaredChord, index: neighbor.index, other.key, other.squaredChord, other.neighbor.index)
        }
    }

    private func keyed(_ i: Int, _ query: UnitVector, _ target: DistanceTarget) -> Keyed {
        let squaredChord = vectors[i].squaredChord(to: query)
        switch target {
        case .center:
            return Keyed(
                key: squaredChord, squaredChord: squaredChord,
                neighbor: Neighbor(index: i, distanceMeters: GreatCircle.arcMeters(squaredChord: squaredChord)))
        case .edge:
            let edge = RankingKey.edgeMeters(squaredChord: squaredChord, radiusMeters: radiiMeters[i])
            return Keyed(key: edge, squaredChord: squaredChord, neighbor: Neighbor(index: i, distanceMeters: edge))
        }
    }
}
