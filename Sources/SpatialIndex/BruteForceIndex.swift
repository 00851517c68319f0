import Geodesy

/// The obviously correct reference for `KDTree`: computes every place's key and sorts.
///
/// It ranks with the same `RankingKey` expressions as the tree, so on the same input both must
/// return identical results (same indices, same order, same distances). Tests compare against it,
/// and `rotate bench` times it as the baseline ("compute all distances, sort").
public struct BruteForceIndex: Sendable {
    public let vectors: [UnitVector]
    public let radiiMeters: [Double]

    public init(coordinates: [Coordinate], radiiMeters: [Double]? = nil) {
        self.init(vectors: coordinates.map(UnitVector.init), radiiMeters: radiiMeters)
    }

    public init(vectors: [UnitVector], radiiMeters: [Double]? = nil) {
        precondition(radiiMeters == nil || radiiMeters?.count == vectors.count, "one radius per place")
        self.vectors = vectors
        self.radiiMeters = radiiMeters ?? Array(repeating: 0, count: vectors.count)
    }

    public var count: Int { vectors.count }

    /// The `k` nearest places by centre or by fence edge, sorted, ties by index.
    /// - Complexity: O(n log n) per query.
    public func nearest(_ k: Int, to query: UnitVector, measuredTo target: DistanceTarget = .center) -> [Neighbor] {
        precondition(k >= 0, "k must be >= 0")
        return Array(ranked(query, target).prefix(k))
    }

    /// Every place within `meters` by centre or by fence edge, sorted as `nearest` sorts.
    public func within(_ meters: Double, of query: UnitVector, measuredTo target: DistanceTarget = .center) -> [Neighbor] {
        ranked(query, target).filter { $0.distanceMeters <= meters }
    }

    private func ranked(_ query: UnitVector, _ target: DistanceTarget) -> [Neighbor] {
        var keyed: [(key: Double, squaredChord: Double, neighbor: Neighbor)] = []
        keyed.reserveCapacity(vectors.count)
        for (i, vector) in vectors.enumerated() {
            let squaredChord = vector.squaredChord(to: query)
            switch target {
            case .center:
                keyed.append((squaredChord, squaredChord, Neighbor(index: i, distanceMeters: GreatCircle.arcMeters(squaredChord: squaredChord))))
            case .edge:
                let edge = RankingKey.edgeMeters(squaredChord: squaredChord, radiusMeters: radiiMeters[i])
                keyed.append((edge, squaredChord, Neighbor(index: i, distanceMeters: edge)))
            }
        }
        keyed.sort {
            if $0.key != $1.key { return $0.key < $1.key }
            if $0.squaredChord != $1.squaredChord { return $0.squaredChord < $1.squaredChord }
            return $0.neighbor.index < $1.neighbor.index
        }
        return keyed.map(\.neighbor)
    }
}
