import Geodesy

extension KDTree {
    /// Checks the tree's structural invariants and traps on the first violation: every point of
    /// a node lies inside its (outward-rounded) box and radius range; children split their
    /// parent's range exactly; leaves hold at most `leafSize` points; leaves tile `0..<count` in
    /// pre-order; the original indices are a permutation; the height bound holds.
    ///
    /// Compiled only in debug builds (free in release); tests call it after every build.
    package func _checkInvariants() {
        #if DEBUG
        guard !nodes.isEmpty else {
            precondition(vectors.isEmpty, "an empty node array must mean an empty index")
            return
        }
        var seen = Array(repeating: false, count: count)
        for index in originalIndices {
            precondition(!seen[Int(index)], "original index \(index) appears twice")
            seen[Int(index)] = true
        }
        var nextLeafStart = 0
        var maxDepth = 0
        func visit(_ nodeIndex: Int, depth: Int) -> Int {
            maxDepth = Swift.max(maxDepth, depth)
            let node = nodes[nodeIndex]
            for i in Int(node.start)..<Int(node.end) {
                let v = vectors[i]
                precondition(Double(node.minX) <= v.x && v.x <= Double(node.maxX), "x outside node \(nodeIndex)")
                precondition(Double(node.minY) <= v.y && v.y <= Double(node.maxY), "y outside node \(nodeIndex)")
                precondition(Double(node.minZ) <= v.z && v.z <= Double(node.maxZ), "z outside node \(nodeIndex)")
                precondition(Double(node.minRadius) <= radiiMeters[i] && radiiMeters[i] <= Double(node.maxRadius), "radius outside node \(nodeIndex)")
            }
            if node.isLeaf {
                precondition(Int(node.end - node.start) <= leafSize, "leaf \(nodeIndex) too large")
                precondition(Int(node.start) == nextLeafStart, "leaves out of order at \(nodeIndex)")
                nextLeafStart = Int(node.end)
                return nodeIndex + 1
            }
            let left = nodes[nodeIndex + 1]
            let rightIndex = visit(nodeIndex + 1, depth: depth + 1)
            precondition(rightIndex == Int(node.right), "right child of \(nodeIndex) misplaced")
            let right = nodes[rightIndex]
            precondition(left.start == node.start && left.end == right.start && right.end == node.end, "children of \(nodeIndex) do not split it")
            return visit(rightIndex, depth: depth + 1)
        }
        let end = visit(0, depth: 0)
        precondition(end == nodes.count, "unreachable nodes")
        precondition(nextLeafStart == count, "leaves do not cover every point")
        precondition(maxDepth == height, "height \(height) but deepest node at \(maxDepth)")
        #endif
    }
}
