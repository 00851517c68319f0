import Geodesy

extension KDTree {
    /// All places within `meters` of `query`, written to `buffer.neighbors`.
    ///
    /// - Parameters:
    ///   - meters: the reach; a place qualifies when its center distance (or, with `.edge`, its
    ///     fence-edge distance, negative inside) is at most this. With `.edge` a negative reach asks
    ///     for fences the query is at least that deep inside.
    ///   - query: the query position's unit vector.
    ///   - target: measure to the center or to the fence edge.
    ///   - buffer: scratch and result storage (allocates only to grow).
    ///
    /// Afterwards `buffer.neighbors` holds every qualifying place, sorted as `nearest` sorts (by
    /// center: great-circle order; by edge: edge distance), ties by index.
    @inlinable
    public func within(
        _ meters: Double, of query: UnitVector, measuredTo target: DistanceTarget = .center, into buffer: inout NeighborBuffer
    ) {
        precondition(!meters.isNaN, "reach must not be NaN")
        buffer.entries.removeAll(keepingCapacity: true)
        buffer._neighbors.removeAll(keepingCapacity: true)
        var entries = buffer.entries
        buffer.entries = []
        forEachWithin(meters, of: query, measuredTo: target, stack: &buffer.stack) { i, key, squaredChord in
            entries.append(.init(key: key, squaredChord: squaredChord, index: originalIndices[i]))
        }
        buffer.entries = entries
        let byEdge = target == .edge
        buffer.sortEntries()
        for entry in buffer.entries {
            let distance = byEdge ? entry.key : GreatCircle.arcMeters(squaredChord: entry.key)
            buffer._neighbors.append(Neighbor(index: Int(entry.index), distanceMeters: distance))
        }
    }

    /// How many places lie within `meters` of `query`: the count `within` would return, without
    /// collecting, sorting or converting them (uses only `buffer`'s traversal stack).
    @inlinable
    public func count(
        within meters: Double, of query: UnitVector, measuredTo target: DistanceTarget = .center,
        using buffer: inout NeighborBuffer
    ) -> Int {
        precondition(!meters.isNaN, "reach must not be NaN")
        var count = 0
        forEachWithin(meters, of: query, measuredTo: target, stack: &buffer.stack) { _, _, _ in count += 1 }
        return count
    }

    /// The sum of `weights[i]` over the places `i` that `count(within:of:measuredTo:using:)` counts:
    /// the count when place `i` stands for `weights[i]` places, as when an index holds each
    /// distinct position once and the weights say how many places share it.
    ///
    /// - Parameter weights: one per indexed place, by input index.
    @inlinable
    package func count(
        within meters: Double, of query: UnitVector, measuredTo target: DistanceTarget = .center, weights: [Int],
        using buffer: inout NeighborBuffer
    ) -> Int {
        precondition(!meters.isNaN, "reach must not be NaN")
        precondition(weights.count == count, "one weight per place")
        var total = 0
        forEachWithin(meters, of: query, measuredTo: target, stack: &buffer.stack) { i, _, _ in total += weights[Int(originalIndices[i])] }
        return total
    }

    /// Calls `body` with the leaf-order position, key (edge meters, or the squared chord by center)
    /// and squared chord of every place within `meters` of `query`, in no particular order.
    @inlinable
    func forEachWithin(
        _ meters: Double, of query: UnitVector, measuredTo target: DistanceTarget, stack: inout [NeighborBuffer.StackEntry],
        _ body: (Int, Double, Double) -> Void
    ) {
        guard !isEmpty else { return }
        let byEdge = target == .edge
        /// The squared chord beyond which no place of radius at most `maxRadius` is within reach.
        func limit(_ maxRadius: Double) -> Double {
            RankingKey.pruningSquaredChord(beyondMeters: byEdge ? meters + maxRadius : meters)
        }
        let nodeQuery = Node.Query(query)
        stack.removeAll(keepingCapacity: true)
        // An entry's bound is its subtree's limit (from its largest radius); the root has none.
        stack.append(.init(node: 0, start: 0, end: Int32(count), bound: .infinity))
        while let next = stack.popLast() {
            let start = Int(next.start), end = Int(next.end)
            if end - start <= leafSize {
                for i in start..<end {
                    let squaredChord = vector(at: i, inLeaf: start, end).squaredChord(to: query)
                    if squaredChord > next.bound { continue }
                    if byEdge {
                        let edge = RankingKey.edgeMeters(squaredChord: squaredChord, radiusMeters: radiusMeters(at: i, inLeafFrom: start))
                        if edge <= meters { body(i, edge, squaredChord) }
                    } else if GreatCircle.arcMeters(squaredChord: squaredChord) <= meters {
                        body(i, squaredChord, squaredChord)
                    }
                }
            } else {
                let node = nodes[Int(next.node)]
                let squared = node.squaredChordBounds(from: nodeQuery), radii = node.maxRadius
                let (starts, ends, children) = node.children(start: next.start, end: next.end, leafSize: leafSize)
                for lane in 0..<4 where starts[lane] < ends[lane] {
                    let childLimit = limit(Double(radii[lane]))
                    if Double(squared[lane]) <= childLimit {
                        stack.append(.init(node: children[lane], start: starts[lane], end: ends[lane], bound: childLimit))
                    }
                }
            }
        }
    }

    /// All places within `meters` of `coordinate` (allocates its result; see the buffer overload).
    public func within(_ meters: Double, of coordinate: Coordinate, measuredTo target: DistanceTarget = .center) -> [Neighbor] {
        var buffer = NeighborBuffer()
        within(meters, of: UnitVector(coordinate), measuredTo: target, into: &buffer)
        return buffer.neighbors
    }
}
