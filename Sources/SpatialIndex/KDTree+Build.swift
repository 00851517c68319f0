import Geodesy

extension KDTree {
    /// Leaf size used when none is given: as fast as any size compared for k ≈ 18 queries (within
    /// noise of 24 to 48; `Benchmarks/RESULTS.md`, "Leaf size") while the index stays under 40
    /// bytes a place.
    public static let defaultLeafSize = 32

    /// Builds the index over coordinates, with an optional fence radius per place.
    ///
    /// - Parameters:
    ///   - coordinates: the places' centers; a result's `index` is the position in this array.
    ///   - radiiMeters: one radius per place (finite, ≥ 0), or nil for all zero.
    ///   - leafSize: the most points in one leaf (≥ 1).
    /// - Complexity: O(n log n) time, O(n) extra memory.
    public init(coordinates: [Coordinate], radiiMeters: [Double]? = nil, leafSize: Int = KDTree.defaultLeafSize) {
        self.init(vectors: coordinates.map(UnitVector.init), radiiMeters: radiiMeters, leafSize: leafSize)
    }

    /// Builds the index over unit vectors (finite, unit length), with an optional radius per place.
    ///
    /// Mismatched radius counts, negative or non-finite radii, non-finite vectors and a leaf size
    /// below 1 are programming errors and trap; validate input first (the planner's catalog does).
    /// - Complexity: O(n log n) time, O(n) extra memory.
    public init(vectors input: [UnitVector], radiiMeters: [Double]? = nil, leafSize: Int = KDTree.defaultLeafSize) {
        precondition(leafSize >= 1, "leafSize must be at least 1")
        precondition(input.count < Int(Int32.max), "at most \(Int32.max - 1) places")
        if let radiiMeters {
            precondition(radiiMeters.count == input.count, "one radius per place")
            precondition(radiiMeters.allSatisfy { $0.isFinite && $0 >= 0 }, "radii must be finite and >= 0")
        }
        precondition(input.allSatisfy { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }, "vectors must be finite")

        var builder = Builder(leafSize: leafSize)
        var points: [Builder.Point] = []
        points.reserveCapacity(input.count)
        for (i, v) in input.enumerated() {
            points.append(.init(vector: v, radius: radiiMeters?[i] ?? 0, index: Int32(i)))
        }
        if !input.isEmpty {
            builder.nodes.reserveCapacity(Builder.nodeCount(input.count, leafSize: leafSize))
            // The recursion works on the points' storage directly: no uniqueness check per swap.
            points.withUnsafeMutableBufferPointer { points in
                _ = builder.build(points, 0, points.count)
            }
        }
        // Radii and coordinates in leaf blocks (radii, x's, y's, z's), indices in leaf order, in one pass.
        var leafBlocks = [Double](repeating: 0, count: 4 * points.count)
        var indices = [Int32](repeating: 0, count: points.count)
        for node in builder.nodes where node.isLeaf {
            let start = Int(node.start), n = Int(node.end) - start, block = 4 * start
            for j in 0..<n {
                let point = points[start + j]
                leafBlocks[block + j] = point.radius
                leafBlocks[block + n + j] = point.vector.x
                leafBlocks[block + 2 * n + j] = point.vector.y
                leafBlocks[block + 3 * n + j] = point.vector.z
                indices[start + j] = point.index
            }
        }
        let (nodes, height) = builder.fourChildNodes()
        let first = points.first?.radius
        self.init(
            leafBlocks: leafBlocks,
            uniformRadiusMeters: first.flatMap { r in points.allSatisfy { $0.radius == r } ? r : nil },
            originalIndices: indices,
            nodes: nodes,
            leafSize: leafSize,
            height: height
        )
    }
}

extension KDTree {
    /// The largest Float not above `value` (a box's lower side, rounded outward).
    static func floatDown(_ value: Double) -> Float {
        let f = Float(value)
        return Double(f) > value ? f.nextDown : f
    }

    /// The smallest Float not below `value` (+∞ beyond Float's range; a box's upper side).
    static func floatUp(_ value: Double) -> Float {
        let f = Float(value)
        return Double(f) < value ? f.nextUp : f
    }
}

extension KDTree {
    /// The build's selection on plain values (for tests): `values` reordered so that position
    /// `nth` holds what a sort would put there, nothing greater before it, nothing smaller after.
    package static func _selectForTesting(_ values: [Double], nth: Int) -> [Double] {
        var points = values.enumerated().map {
            Builder.Point(vector: UnitVector(x: $0.element, y: 0, z: 0), radius: 0, index: Int32($0.offset))
        }
        points.withUnsafeMutableBufferPointer { Builder.select($0, nth: nth, low: 0, high: values.count) { $0.vector.x } }
        return points.map(\.vector.x)
    }
}

/// Builds a binary k-d tree by recursive median splits on the widest axis (x, y, z, or the fence
/// radius; see `build`), then folds its levels two by two into the index's four-child nodes.
private struct Builder {
    struct Point {
        var vector: UnitVector
        var radius: Double
        var index: Int32
    }

    /// A binary node in pre-order (the left child is the next node): the bounding box of its
    /// points and their largest radius, rounded outward to `Float`; its points `start..<end` in
    /// leaf order; `right`, its right child (internal nodes), or -1 for a leaf.
    struct BinaryNode {
        var minX: Float, minY: Float, minZ: Float
        var maxX: Float, maxY: Float, maxZ: Float
        var maxRadius: Float
        var start: Int32, end: Int32
        var right: Int32
        var isLeaf: Bool { right < 0 }
    }

    let leafSize: Int
    var nodes: [BinaryNode] = []

    /// Nodes a build over `count` points makes when every split is at the median (so the node
    /// array is allocated once; radius splits, at the middle of the radius range, may need more).
    static func nodeCount(_ count: Int, leafSize: Int) -> Int {
        count <= leafSize ? 1 : 1 + nodeCount(count / 2, leafSize: leafSize) + nodeCount(count - count / 2, leafSize: leafSize)
    }

    init(leafSize: Int) {
        self.leafSize = leafSize
    }

    /// Builds the subtree over `points[low..<high]` and returns its node index.
    mutating func build(_ points: UnsafeMutableBufferPointer<Point>, _ low: Int, _ high: Int) -> Int {
        var minX = Double.infinity, minY = Double.infinity, minZ = Double.infinity
        var maxX = -Double.infinity, maxY = -Double.infinity, maxZ = -Double.infinity
        var minRadius = Double.infinity, maxRadius = -Double.infinity
        // `a < b ? a : b` is one min instruction (`Swift.min` keeps NaN rules; input is finite).
        for i in low..<high {
            let p = points[i]
            minX = p.vector.x < minX ? p.vector.x : minX; maxX = p.vector.x > maxX ? p.vector.x : maxX
            minY = p.vector.y < minY ? p.vector.y : minY; maxY = p.vector.y > maxY ? p.vector.y : maxY
            minZ = p.vector.z < minZ ? p.vector.z : minZ; maxZ = p.vector.z > maxZ ? p.vector.z : maxZ
            minRadius = p.radius < minRadius ? p.radius : minRadius
            maxRadius = p.radius > maxRadius ? p.radius : maxRadius
        }
        let node = BinaryNode(
            minX: KDTree.floatDown(minX), minY: KDTree.floatDown(minY), minZ: KDTree.floatDown(minZ),
            maxX: KDTree.floatUp(maxX), maxY: KDTree.floatUp(maxY), maxZ: KDTree.floatUp(maxZ),
            maxRadius: KDTree.floatUp(maxRadius),
            start: Int32(low), end: Int32(high), right: -1)
        let nodeIndex = nodes.count
        nodes.append(node)
        guard high - low > leafSize else {
            // Within a leaf, largest fences first: with mixed radii they tend to rank best by
            // edge, so the k-th key tightens early and a leaf's places arrive in about the order
            // they rank (insertions into the best k shift less). (Equal radii: as the splits left them.)
            if minRadius < maxRadius {
                let before: (Point, Point) -> Bool = { $0.radius != $1.radius ? $0.radius > $1.radius : $0.index < $1.index }
                if high - low <= 64 {
                    // A leaf's few places by insertion: the library's sort is a merge sort behind a
                    // closure, heavy for so short a range.
                    Self.insertionSort(points, low, high, by: before)
                } else {
                    var leaf = UnsafeMutableBufferPointer(rebasing: points[low..<high])
                    leaf.sort(by: before)
                }
            }
            return nodeIndex
        }

        let ex = maxX - minX, ey = maxY - minY, ez = maxZ - minZ
        var axis = ey > ex ? (ez > ey ? 2 : 1) : (ez > ex ? 2 : 0)
        // Radius is a fourth axis, in the same units (meters over the Earth's radius): where the
        // fences' radii spread wider than the places themselves (a town holding fences of 20 m
        // to 5 km), halving by radius separates the large fences, which reach a query, from the
        // small ones, which cannot: an edge search then skips the small half whole. Equal radii
        // never split this way; places spread wider than their radii (most data) neither.
        // The radius split is at the middle of the radius range, not at the median place, so
        // fences of one size never end up on both sides (with a few large fences among many
        // small ones, the large ones get a subtree of their own).
        let radiusSpread = (maxRadius - minRadius) / Earth.meanRadiusMeters
        if radiusSpread > max(ex, ey, ez) { axis = 3 }
        var middle = low + (high - low) / 2
        // One specialized copy of the selection per axis (no axis test per comparison).
        switch axis {
        case 0: Self.select(points, nth: middle, low: low, high: high) { $0.vector.x }
        case 1: Self.select(points, nth: middle, low: low, high: high) { $0.vector.y }
        case 2: Self.select(points, nth: middle, low: low, high: high) { $0.vector.z }
        default: middle = Self.partition(points, low: low, high: high, radiusAtMost: minRadius + (maxRadius - minRadius) / 2)
        }
        _ = build(points, low, middle)
        let right = build(points, middle, high)
        nodes[nodeIndex].right = Int32(right)
        return nodeIndex
    }

    /// The binary tree's levels folded two by two into four-child nodes, from the bottom: a
    /// node's lanes are its children, each replaced by its own two children when it is internal
    /// with an odd height (levels below it). Below a complete tree's root every node then has four
    /// lanes, and those at the bottom four leaves (folding from the top would leave the bottom
    /// nodes with two leaves each whenever the leaves lie an even number of levels down: half the
    /// node array empty); only the root can have two. Each node's internal children are stored
    /// together, in lane order, and their subtrees after them. Returns the nodes and their number
    /// of levels.
    func fourChildNodes() -> (nodes: [KDTree.Node], height: Int) {
        guard let root = nodes.first, !root.isLeaf else { return ([], 0) }
        // Heights, children after parents in pre-order: one pass from the end.
        var heights = [Int](repeating: 0, count: nodes.count)
        for index in nodes.indices.reversed() where !nodes[index].isLeaf {
            heights[index] = 1 + max(heights[index + 1], heights[Int(nodes[index].right)])
        }
        var folded: [KDTree.Node] = []
        // At most one node per binary internal node (about a third of them in practice); the
        // index copies the nodes into its own storage, so the spare capacity is not kept.
        folded.reserveCapacity(nodes.count / 2 + 1)
        var height = 0
        /// Writes the node folding binary node `index` at `slot` (already reserved), then its
        /// subtree. No allocation per node: the lanes are a `SIMD4` and the node is written in
        /// place (small arrays per node would add an allocation for every few dozen places).
        func fold(_ index: Int, at slot: Int, depth: Int) {
            height = max(height, depth + 1)
            var lanes = SIMD4<Int32>(repeating: -1), laneCount = 0
            for side in 0..<2 {
                let child = side == 0 ? index + 1 : Int(nodes[index].right)
                if !nodes[child].isLeaf && heights[child] % 2 == 1 {
                    lanes[laneCount] = Int32(child + 1)
                    lanes[laneCount + 1] = nodes[child].right
                    laneCount += 2
                } else {
                    lanes[laneCount] = Int32(child)
                    laneCount += 1
                }
            }
            let empty = Float.infinity
            var node = KDTree.Node(
                minX: SIMD4(repeating: empty), minY: SIMD4(repeating: empty), minZ: SIMD4(repeating: empty),
                maxX: SIMD4(repeating: -empty), maxY: SIMD4(repeating: -empty), maxZ: SIMD4(repeating: -empty),
                maxRadius: .zero, splits: SIMD4(repeating: nodes[index].end))
            var innerCount = 0
            for lane in 0..<laneCount {
                let child = nodes[Int(lanes[lane])]
                node.minX[lane] = child.minX; node.minY[lane] = child.minY; node.minZ[lane] = child.minZ
                node.maxX[lane] = child.maxX; node.maxY[lane] = child.maxY; node.maxZ[lane] = child.maxZ
                node.maxRadius[lane] = child.maxRadius
                if lane < 3 { node.splits[lane] = child.end }
                if !child.isLeaf { innerCount += 1 }
            }
            let first = folded.count
            node.splits[3] = Int32(first)
            folded[slot] = node
            for _ in 0..<innerCount { folded.append(node) }
            var offset = 0
            for lane in 0..<laneCount where !nodes[Int(lanes[lane])].isLeaf {
                fold(Int(lanes[lane]), at: first + offset, depth: depth + 1)
                offset += 1
            }
        }
        folded.append(
            KDTree.Node(
                minX: .zero, minY: .zero, minZ: .zero, maxX: .zero, maxY: .zero, maxZ: .zero,
                maxRadius: .zero, splits: .zero))
        fold(0, at: 0, depth: 0)
        return (folded, height)
    }

    /// Reorders `points[low..<high]` so that the fences with radius ≤ `limit` come first; returns
    /// where the others start. Without a branch, as `select`'s partition.
    static func partition(_ points: UnsafeMutableBufferPointer<Point>, low: Int, high: Int, radiusAtMost limit: Double) -> Int {
        var store = low, k = low
        while k < high {
            let p = points[k]
            points[k] = points[store]
            points[store] = p
            store &+= p.radius <= limit ? 1 : 0
            k &+= 1
        }
        return store
    }

    /// Reorders `points[low..<high]` so that position `nth` holds the element a sort by `coordinate`
    /// would put there, with nothing greater before it and nothing smaller after it
    /// (introselect: partitions around a median-of-three pivot, falling back to a full sort of the
    /// remaining range when partitions stop shrinking, so the worst case stays O(m log m)).
    @inline(__always)
    static func select(_ points: UnsafeMutableBufferPointer<Point>, nth: Int, low: Int, high: Int, by coordinate: (Point) -> Double) {
        var lo = low, hi = high - 1
        var budget = 2 * (Int.bitWidth - (high - low).leadingZeroBitCount) + 8
        while hi > lo {
            if budget == 0 {
                var rest = UnsafeMutableBufferPointer(rebasing: points[lo...hi])
                rest.sort { coordinate($0) < coordinate($1) }
                return
            }
            if hi - lo < 16 {
                // The few left by insertion (the library's sort, a stable merge sort behind a
                // closure, costs more than such a range needs).
                insertionSort(points, lo, hi &+ 1) { coordinate($0) < coordinate($1) }
                return
            }
            budget -= 1
            let mid = lo + (hi - lo) / 2
            // Median of three into `hi`.
            if coordinate(points[mid]) < coordinate(points[lo]) { swap(points, mid, lo) }
            if coordinate(points[hi]) < coordinate(points[lo]) { swap(points, hi, lo) }
            if coordinate(points[mid]) < coordinate(points[hi]) { swap(points, hi, mid) }
            let pivot = coordinate(points[hi])
            // Lomuto's partition without a branch: each element is swapped with the first of
            // those not below the pivot (itself while there is none), and that boundary moves up
            // past the element when it is below. Hoare's scans stop where the data says, on a
            // branch the processor guesses wrong about every other step; this loop has none.
            var store = lo, k = lo
            while k < hi {
                let p = points[k]
                points[k] = points[store]
                points[store] = p
                store &+= coordinate(p) < pivot ? 1 : 0
                k &+= 1
            }
            swap(points, store, hi)
            if nth < store {
                hi = store &- 1
            } else if nth > store {
                let below = store &- lo
                lo = store &+ 1
                if below < (hi &- lo) >> 3 {
                    // Few below the pivot: perhaps many equal to it (places sharing a coordinate),
                    // which this partition leaves above it one pass after another. Gather those
                    // right after the pivot; if `nth` falls among them, it holds its value.
                    var equal = lo
                    k = lo
                    while k <= hi {
                        let p = points[k]
                        points[k] = points[equal]
                        points[equal] = p
                        equal &+= coordinate(p) == pivot ? 1 : 0
                        k &+= 1
                    }
                    if nth < equal { return }
                    lo = equal
                }
            } else {
                return
            }
        }
    }

    /// Sorts `points[low..<high]` by `before` (a strict order), stably, by insertion: for the
    /// short ranges of a build (leaves, the end of a selection).
    @inline(__always)
    static func insertionSort(_ points: UnsafeMutableBufferPointer<Point>, _ low: Int, _ high: Int, by before: (Point, Point) -> Bool) {
        var k = low &+ 1
        while k < high {
            let p = points[k]
            var m = k
            while m > low && before(p, points[m &- 1]) {
                points[m] = points[m &- 1]
                m &-= 1
            }
            points[m] = p
            k &+= 1
        }
    }

    @inline(__always)
    static func swap(_ points: UnsafeMutableBufferPointer<Point>, _ i: Int, _ j: Int) {
        let t = points[i]
        points[i] = points[j]
        points[j] = t
    }
}
