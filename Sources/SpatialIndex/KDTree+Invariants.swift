import Geodesy

extension KDTree {
    /// Checks the tree's structural invariants and traps on the first violation: every point of
    /// a child lies inside its lane's (outward-rounded) box and under its radius bound; a node's
    /// children split its range in order, two to four of them, unused lanes last and empty;
    /// children of more than `leafSize` points are internal nodes, reached exactly once, the
    /// others leaves; leaves tile `0..<count` in order; a leaf lists its points by radius,
    /// largest first; the original indices are a permutation; the height is the number of levels.
    ///
    /// Compiled only in debug builds (free in release); tests call it after every build.
    package func _checkInvariants() {
        #if DEBUG
        guard !isEmpty else {
            precondition(nodes.isEmpty && leafBlocks.isEmpty && height == 0, "an empty index must have no nodes")
            return
        }
        var seen = Array(repeating: false, count: count)
        for index in originalIndices {
            precondition(!seen[Int(index)], "original index \(index) appears twice")
            seen[Int(index)] = true
        }
        precondition(leafBlocks.count == 4 * count, "a radius and three coordinates per point")
        // The structure first, then every point as its leaf stores it, then the boxes around them.
        let (lanes, leaves) = checkStructure()
        let (vectors, radiiMeters) = checkLeaves(leaves)
        checkBoxes(lanes, vectors: vectors, radiiMeters: radiiMeters)
        #endif
    }

    #if DEBUG
    /// A used lane of a node: the node's index, the lane and the points of its child.
    private typealias Lane = (node: Int, lane: Int, points: Range<Int>)

    /// Walks the nodes from the root, checking each node's lanes (two to four used, first, and
    /// the unused ones with empty boxes), that every node is reached once and the height; returns
    /// every used lane and the leaves in order.
    private func checkStructure() -> (lanes: [Lane], leaves: [Range<Int>]) {
        var lanes: [Lane] = []
        var leaves: [Range<Int>] = []
        var reached = Array(repeating: false, count: nodes.count)
        var levels = 0
        func visit(_ index: Int, _ points: Range<Int>, depth: Int) {
            precondition(index < nodes.count && !reached[index], "node \(index) missing or reached twice")
            reached[index] = true
            levels = Swift.max(levels, depth + 1)
            let node = nodes[index]
            let (starts, ends, children) = node.children(start: Int32(points.lowerBound), end: Int32(points.upperBound), leafSize: leafSize)
            var used = 0
            for lane in 0..<4 {
                let range = Int(starts[lane])..<Int(ends[lane])
                if range.isEmpty {
                    precondition(
                        node.minX[lane] == .infinity && node.maxX[lane] == -.infinity && node.minY[lane] == .infinity
                            && node.maxY[lane] == -.infinity && node.minZ[lane] == .infinity && node.maxZ[lane] == -.infinity,
                        "unused lane \(lane) of node \(index) has a box")
                    continue
                }
                precondition(lane == used, "node \(index): an unused lane before lane \(lane)")
                used += 1
                lanes.append((index, lane, range))
                if range.count > leafSize {
                    visit(Int(children[lane]), range, depth: depth + 1)
                } else {
                    leaves.append(range)
                }
            }
            precondition(used >= 2, "node \(index) has \(used) children")
        }
        if count > leafSize {
            visit(0, 0..<count, depth: 0)
        } else {
            precondition(nodes.isEmpty, "an index of one leaf has no nodes")
            leaves = [0..<count]
        }
        precondition(reached.allSatisfy { $0 }, "unreachable nodes")
        precondition(levels == height, "height \(height) but \(levels) levels")
        return (lanes, leaves)
    }

    /// Checks that `leaves` tile the points in order, each at most `leafSize` long and sorted by
    /// radius, and the uniform radius; returns every point's unit vector and radius as read from
    /// its leaf's block.
    private func checkLeaves(_ leaves: [Range<Int>]) -> (vectors: [UnitVector], radiiMeters: [Double]) {
        var vectors = [UnitVector](repeating: UnitVector(x: 1, y: 0, z: 0), count: count)
        var radiiMeters = [Double](repeating: 0, count: count)
        var nextLeafStart = 0
        for leaf in leaves {
            precondition(leaf.lowerBound == nextLeafStart && leaf.count <= leafSize, "leaf \(leaf) out of order or too large")
            nextLeafStart = leaf.upperBound
            for i in leaf {
                vectors[i] = vector(at: i, inLeaf: leaf.lowerBound, leaf.upperBound)
                radiiMeters[i] = radiusMeters(at: i, inLeafFrom: leaf.lowerBound)
            }
            // Largest fences first: edge queries drop a leaf's too-small suffix unread.
            for i in leaf.dropLast() {
                precondition(radiiMeters[i] >= radiiMeters[i + 1], "leaf \(leaf) not sorted by radius")
            }
        }
        precondition(nextLeafStart == count, "leaves do not cover every point")
        if let uniformRadiusMeters {
            precondition(radiiMeters.allSatisfy { $0 == uniformRadiusMeters }, "radii differ from the uniform radius")
        } else {
            precondition(Set(radiiMeters).count > 1, "one radius for all but no uniform radius")
        }
        return (vectors, radiiMeters)
    }

    /// Checks that every point of each lane lies inside the lane's box and under its radius bound.
    private func checkBoxes(_ lanes: [Lane], vectors: [UnitVector], radiiMeters: [Double]) {
        for (index, lane, points) in lanes {
            let node = nodes[index]
            for i in points {
                let v = vectors[i]
                precondition(Double(node.minX[lane]) <= v.x && v.x <= Double(node.maxX[lane]), "x outside node \(index) lane \(lane)")
                precondition(Double(node.minY[lane]) <= v.y && v.y <= Double(node.maxY[lane]), "y outside node \(index) lane \(lane)")
                precondition(Double(node.minZ[lane]) <= v.z && v.z <= Double(node.maxZ[lane]), "z outside node \(index) lane \(lane)")
                precondition(radiiMeters[i] <= Double(node.maxRadius[lane]), "radius above node \(index) lane \(lane)'s bound")
            }
        }
    }
    #endif
}
