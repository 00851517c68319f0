import Geodesy

extension KDTree {
    /// All places within `meters` of `query`, written to `buffer.neighbors`.
    ///
    /// - Parameters:
    ///   - meters: the reach; a place qualifies when its centre distance (or, with `.edge`, its
    ///     fence-edge distance, negative inside) is at most this. With `.edge` a negative reach asks
    ///     for fences the query is at least that deep inside.
    ///   - query: the query position's unit vector.
    ///   - target: measure to the centre or to the fence edge.
    ///   - buffer: scratch and result storage (allocates only to grow).
    /// - Returns: nothing; `buffer.neighbors` holds every qualifying place, sorted as `nearest`
    ///   sorts (by centre: great-circle order; by edge: edge distance), ties by index.
    @inlinable
    public func within(_ meters: Double, of query: UnitVector, measuredTo target: DistanceTarget = .center, into buffer: inout NeighborBuffer) {
        precondition(!meters.isNaN, "reach must not be NaN")
        buffer.entries.removeAll(keepingCapacity: true)
        buffer._neighbors.removeAll(keepingCapacity: true)
        guard !nodes.isEmpty else { return }
        let byEdge = target == .edge
        buffer.stack.removeAll(keepingCapacity: true)
        buffer.stack.append(.init(node: 0, bound: 0))
        while let next = buffer.stack.popLast() {
            let node = nodes[Int(next.node)]
            let limit = RankingKey.pruningSquaredChord(beyondMeters: byEdge ? meters + Double(node.maxRadius) : meters)
            if next.bound > limit { continue }
            if node.isLeaf {
                let start = Int(node.start), end = Int(node.end)
                for i in start..<end {
                    let squaredChord = vector(at: i, inLeaf: start, end).squaredChord(to: query)
                    if squaredChord > limit { continue }
                    if byEdge {
                        let edge = RankingKey.edgeMeters(squaredChord: squaredChord, radiusMeters: radiiMeters[i])
                        if edge <= meters { buffer.entries.append(.init(key: edge, squaredChord: squaredChord, index: originalIndices[i])) }
                    } else if GreatCircle.arcMeters(squaredChord: squaredChord) <= meters {
                        buffer.entries.append(.init(key: squaredChord, squaredChord: squaredChord, index: originalIndices[i]))
                    }
                }
            } else {
                buffer.stack.append(.init(node: node.right, bound: nodes[Int(node.right)].squaredDistance(to: query)))
                buffer.stack.append(.init(node: next.node + 1, bound: nodes[Int(next.node + 1)].squaredDistance(to: query)))
            }
        }
        buffer.sortEntries()
        for entry in buffer.entries {
            let distance = byEdge ? entry.key : GreatCircle.arcMeters(squaredChord: entry.key)
            buffer._neighbors.append(Neighbor(index: Int(entry.index), distanceMeters: distance))
        }
    }

    /// All places within `meters` of `coordinate` (allocates its result; see the buffer overload).
    public func within(_ meters: Double, of coordinate: Coordinate, measuredTo target: DistanceTarget = .center) -> [Neighbor] {
        var buffer = NeighborBuffer()
        within(meters, of: UnitVector(coordinate), measuredTo: target, into: &buffer)
        return buffer.neighbors
    }
}
