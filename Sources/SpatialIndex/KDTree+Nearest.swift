import Geodesy

extension KDTree {
    /// The `k` places nearest to `query`, written to `buffer.neighbors`.
    ///
    /// - Parameters:
    ///   - k: how many (≥ 0); fewer come back when the index holds fewer places.
    ///   - query: the query position's unit vector.
    ///   - target: `.center` ranks by great-circle distance to the centre (exact order via squared
    ///     chords); `.edge` ranks by fence-edge distance (centre distance minus the place's radius,
    ///     negative inside), which is what the planner uses.
    ///   - buffer: scratch and result storage; reuse it to make no allocation per query.
    /// - Returns: nothing; `buffer.neighbors` holds the results sorted by distance, ties by index,
    ///   with `distanceMeters` the centre or edge distance.
    /// - Complexity: about O(log n + k) node visits for well-spread points.
    @inlinable
    public func nearest(_ k: Int, to query: UnitVector, measuredTo target: DistanceTarget = .center, into buffer: inout NeighborBuffer) {
        precondition(k >= 0, "k must be >= 0")
        switch target {
        case .center:
            var metric = CenterMetric()
            searchNearest(k, query, &metric, &buffer)
        case .edge:
            if let radius = uniformRadiusMeters {
                // One common radius: edge order is centre order (see `RankingKey`).
                var metric = UniformEdgeMetric(radiusMeters: radius)
                searchNearest(k, query, &metric, &buffer)
            } else {
                var metric = EdgeMetric()
                searchNearest(k, query, &metric, &buffer)
            }
        }
    }

    /// The `k` places nearest to `coordinate` (allocates its result; see the buffer overload).
    public func nearest(_ k: Int, to coordinate: Coordinate, measuredTo target: DistanceTarget = .center) -> [Neighbor] {
        var buffer = NeighborBuffer(capacity: min(k, count))
        nearest(k, to: UnitVector(coordinate), measuredTo: target, into: &buffer)
        return buffer.neighbors
    }

    @inlinable
    func searchNearest<Metric: RankingMetric>(_ k: Int, _ query: UnitVector, _ metric: inout Metric, _ buffer: inout NeighborBuffer) {
        buffer._neighbors.removeAll(keepingCapacity: true)
        let k = Swift.min(k, count)
        guard k > 0 else { return }
        buffer.prepare(resultSlots: k, stackSlots: height + 2)
        let height = self.height
        // SAFETY: every index below is in bounds by construction: node indices come from the
        // tree (children of valid nodes), point indices from node ranges inside `vectors`, result
        // slots from 0..<k (the entries array holds k), and the stack never holds more than
        // height + 1 entries (each pop of an internal node pushes its two children).
        let found: Int = vectors.withUnsafeBufferPointer { vectors in
            radiiMeters.withUnsafeBufferPointer { radii in
                originalIndices.withUnsafeBufferPointer { ids in
                    nodes.withUnsafeBufferPointer { nodes in
                        buffer.entries.withUnsafeMutableBufferPointer { best in
                            buffer.stack.withUnsafeMutableBufferPointer { stack in
                                var found = 0
                                var top = 1
                                stack[0] = .init(node: 0, bound: 0)
                                while top > 0 {
                                    top -= 1
                                    let next = stack[top]
                                    let node = nodes[Int(next.node)]
                                    var worst = found < k ? Double.infinity : best[k - 1].key
                                    var limit = metric.pruningSquaredChord(worstKey: worst, maxRadius: Double(node.maxRadius))
                                    if next.bound > limit { continue }
                                    if node.isLeaf {
                                        for i in Int(node.start)..<Int(node.end) {
                                            let squaredChord = vectors[i].squaredChord(to: query)
                                            if squaredChord > limit { continue }
                                            let candidate = NeighborBuffer.Entry(
                                                key: metric.key(squaredChord: squaredChord, radius: Metric.usesRadius ? radii[i] : 0),
                                                squaredChord: squaredChord, index: ids[i])
                                            var position: Int
                                            if found == k {
                                                guard candidate.precedes(best[k - 1]) else { continue }
                                                position = k - 1
                                            } else {
                                                position = found
                                                found += 1
                                            }
                                            while position > 0, candidate.precedes(best[position - 1]) {
                                                best[position] = best[position - 1]
                                                position -= 1
                                            }
                                            best[position] = candidate
                                            if found == k {
                                                worst = best[k - 1].key
                                                limit = metric.pruningSquaredChord(worstKey: worst, maxRadius: Double(node.maxRadius))
                                            }
                                        }
                                    } else {
                                        assert(top + 2 <= height + 2, "stack deeper than the tree")
                                        let left = next.node + 1
                                        let right = node.right
                                        let leftBound = nodes[Int(left)].squaredDistance(to: query)
                                        let rightBound = nodes[Int(right)].squaredDistance(to: query)
                                        // Visit the nearer child first: push it last.
                                        if leftBound <= rightBound {
                                            stack[top] = .init(node: right, bound: rightBound)
                                            stack[top + 1] = .init(node: left, bound: leftBound)
                                        } else {
                                            stack[top] = .init(node: left, bound: leftBound)
                                            stack[top + 1] = .init(node: right, bound: rightBound)
                                        }
                                        top += 2
                                    }
                                }
                                return found
                            }
                        }
                    }
                }
            }
        }
        for entry in buffer.entries.prefix(found) {
            buffer._neighbors.append(Neighbor(index: Int(entry.index), distanceMeters: metric.meters(key: entry.key)))
        }
    }
}

/// How a query ranks places, and how it turns its ranking into a pruning bound in chord space.
@usableFromInline
protocol RankingMetric {
    /// Whether keys depend on the place's radius (else radii are not even loaded).
    static var usesRadius: Bool { get }
    /// The ranking key of a place at `squaredChord` with `radius` (see `RankingKey`).
    func key(squaredChord: Double, radius: Double) -> Double
    /// A squared chord beyond which no place with radius ≤ `maxRadius` can rank at or before
    /// `worstKey`.
    mutating func pruningSquaredChord(worstKey: Double, maxRadius: Double) -> Double
    /// The distance in meters a key stands for.
    func meters(key: Double) -> Double
}

/// Rank by centre: the key is the squared chord itself, so pruning needs no trigonometry.
@usableFromInline
struct CenterMetric: RankingMetric {
    @inlinable init() {}
    @inlinable static var usesRadius: Bool { false }
    @inlinable @inline(__always)
    func key(squaredChord: Double, radius: Double) -> Double { squaredChord }
    @inlinable @inline(__always)
    func pruningSquaredChord(worstKey: Double, maxRadius: Double) -> Double { worstKey }
    @inlinable func meters(key: Double) -> Double { GreatCircle.arcMeters(squaredChord: key) }
}

/// Rank by fence edge (meters). The chord bound for (worst key + largest radius under a node)
/// needs a `sin`; it is cached, since the worst key and the radius bound rarely change between
/// consecutive nodes (with equal radii, only when a better candidate arrives).
@usableFromInline
struct EdgeMetric: RankingMetric {
    @usableFromInline var cachedMeters: Double = .nan
    @usableFromInline var cachedChord: Double = .infinity

    @inlinable init() {}
    @inlinable static var usesRadius: Bool { true }
    @inlinable @inline(__always)
    func key(squaredChord: Double, radius: Double) -> Double {
        RankingKey.edgeMeters(squaredChord: squaredChord, radiusMeters: radius)
    }
    @inlinable @inline(__always)
    mutating func pruningSquaredChord(worstKey: Double, maxRadius: Double) -> Double {
        let meters = worstKey + maxRadius
        if meters != cachedMeters {
            cachedMeters = meters
            cachedChord = RankingKey.pruningSquaredChord(beyondMeters: meters)
        }
        return cachedChord
    }
    @inlinable func meters(key: Double) -> Double { key }
}

/// Rank by fence edge when every place has the same radius: search by squared chord (no
/// trigonometry), then report `arc - radius`. Exact, because with one radius the edge order
/// (edge, squared chord, index) equals the centre order (squared chord, index).
@usableFromInline
struct UniformEdgeMetric: RankingMetric {
    @usableFromInline let radiusMeters: Double

    @inlinable init(radiusMeters: Double) {
        self.radiusMeters = radiusMeters
    }
    @inlinable static var usesRadius: Bool { false }
    @inlinable @inline(__always)
    func key(squaredChord: Double, radius: Double) -> Double { squaredChord }
    @inlinable @inline(__always)
    func pruningSquaredChord(worstKey: Double, maxRadius: Double) -> Double { worstKey }
    @inlinable func meters(key: Double) -> Double {
        RankingKey.edgeMeters(squaredChord: key, radiusMeters: radiusMeters)
    }
}
