import Geodesy

extension KDTree {
    /// Checks the tree's structural invariants and traps on the first violation: every point of
    /// a node lies inside its (outward-rounded) box and radius range; children split their
    /// parent's range exactly; leaves hold at most `leafSize` points; leaves tile `0..<count` in
    /// pre-order; a leaf lists its points by radius, largest first; the original indices are a
    /// permutation; the height bound holds.
    ///
    /// Compiled only in debug builds (free in release); tests call it after every build.
    package func _checkInvariants() {
        #if DEBUG
        guard !nodes.isEmpty else {
            precondition(isEmpty, "an empty node array must mean an empty index")
            return
        }
        var seen = Array(repeating: false, count: count)
        for index in originalIndices {
            precondition(!seen[Int(index)], "original index \(index) appears twice")
            seen[Int(index)] = true
        }
        // Every point's vector in leaf order, read from its leaf's block.
        var vectors = [UnitVector](repeating: UnitVector(x: 1, y: 0, z: 0), count: count)
        var radiiMeters = [Double](repeating: 0, count: count)
        for node in nodes where node.isLeaf {
            for i in Int(node.start)..<Int(node.end) {
                vectors[i] = vector(at: i, inLeaf: Int(node.start), Int(node.end))
                radiiMeters[i] = radiusMeters(at: i, inLeafFrom: Int(node.start))
            }
        }
        precondition(leafBlocks.count == 4 * count, "a radius and three coordinates per point")
        if let uniformRadiusMeters {
            precondition(radiiMeters.allSatisfy { $0 == uniformRadiusMeters }, "radii differ from the uniform radius")
        } else {
            precondition(Set(radiiMeters).count > 1, "one radius for all but no uniform radius")
        }
        var nextLeafStart = 0
        var maxDepth = 0
        /// Checks the subtree at `nodeIndex`; returns the index after it and its point range end.
        func visit(_ nodeIndex: Int, depth: Int) -> (next: Int, end: Int) {
            maxDepth = Swift.max(maxDepth, depth)
            let node = nodes[nodeIndex]
            if node.isLeaf {
                precondition(Int(node.end - node.start) <= leafSize && node.end >= node.start, "leaf \(nodeIndex) size")
                precondition(Int(node.start) == nextLeafStart, "leaves out of order at \(nodeIndex)")
                nextLeafStart = Int(node.end)
                checkPoints(node, nodeIndex, Int(node.start)..<Int(node.end))
                // Largest fences first: edge queries drop a leaf's too-small suffix unread.
                for i in Int(node.start)..<Swift.max(Int(node.start), Int(node.end) - 1) {
                    precondition(radiiMeters[i] >= radiiMeters[i + 1], "leaf \(nodeIndex) not sorted by radius")
                }
                return (nodeIndex + 1, Int(node.end))
            }
            let left = nodes[nodeIndex + 1]
            let (rightIndex, leftEnd) = visit(nodeIndex + 1, depth: depth + 1)
            precondition(rightIndex == Int(node.right), "right child of \(nodeIndex) misplaced")
            let right = nodes[rightIndex]
            let (after, end) = visit(rightIndex, depth: depth + 1)
            precondition(left.start == node.start && Int(right.start) == leftEnd, "children of \(nodeIndex) do not split it")
            checkPoints(node, nodeIndex, Int(node.start)..<end)
            return (after, end)
        }
        func checkPoints(_ node: Node, _ nodeIndex: Int, _ range: Range<Int>) {
            for i in range {
                let v = vectors[i]
                precondition(Double(node.minX) <= v.x && v.x <= Double(node.maxX), "x outside node \(nodeIndex)")
                precondition(Double(node.minY) <= v.y && v.y <= Double(node.maxY), "y outside node \(nodeIndex)")
                precondition(Double(node.minZ) <= v.z && v.z <= Double(node.maxZ), "z outside node \(nodeIndex)")
                precondition(radiiMeters[i] <= Double(node.maxRadius), "radius above node \(nodeIndex)'s bound")
            }
        }
        let (end, _) = visit(0, depth: 0)
        precondition(end == nodes.count, "unreachable nodes")
        precondition(nextLeafStart == count, "leaves do not cover every point")
        precondition(maxDepth == height, "height \(height) but deepest node at \(maxDepth)")
        #endif
    }
}
