import Geodesy

/// A static k-d tree over places on the globe, stored as 3D unit vectors.
///
/// Working in 3D on the unit sphere gives exact great-circle order with no date-line or pole cases.
/// The tree is built once in O(n log n) and never changes; it is an immutable `Sendable` value, so
/// one index can serve any number of threads at once (each thread brings its own
/// `NeighborBuffer` as scratch).
///
/// Layout (all flat arrays, no object per node): the points are stored reordered so that every
/// leaf is a contiguous range (`originalIndices` in leaf order; radii and coordinates in one
/// array, `leafBlocks`, where each leaf is one block: its radii, then its x's, y's and z's, so a
/// leaf's distances are computed several at a time from memory read front to back, and an edge
/// query finds a leaf's radii next to its coordinates); internal nodes are a flat array of
/// four-child nodes (two levels of a binary k-d tree each), which keep each child's bounding box
/// and the largest fence radius below it (that makes edge-distance pruning exact) side by side,
/// so one node read bounds four children at once.
///
/// Every query returns results sorted by distance, ties broken by the smaller place index — the
/// same order `BruteForceIndex` produces (see `RankingKey`).
///
/// ```swift
/// let centers = [
///     try Coordinate(latitude: 48.8584, longitude: 2.2945),
///     try Coordinate(latitude: 48.8606, longitude: 2.3376),
///     try Coordinate(latitude: 48.8530, longitude: 2.3499),
/// ]
/// let tree = KDTree(coordinates: centers, radiiMeters: [150, 100, 80])
/// var buffer = NeighborBuffer(capacity: 2)
/// let here = try Coordinate(latitude: 48.8570, longitude: 2.3400)
/// tree.nearest(2, to: UnitVector(here), measuredTo: .edge, into: &buffer)
/// for neighbor in buffer.neighbors {  // nearest fence edge first, ties by index
///     print(neighbor.index, neighbor.distanceMeters)
/// }
/// ```
public struct KDTree: Sendable {
    /// Fence radii (meters) and unit vectors' coordinates: the leaf holding points `start..<end`
    /// (n of them) stores its radii at `4 * start ..< 4 * start + n`, then its x's, its y's and
    /// its z's.
    @usableFromInline let leafBlocks: [Double]
    /// For each stored point, its index in the input.
    @usableFromInline let originalIndices: [Int32]
    /// Internal nodes: node 0 is the root, and each node's internal children are stored together,
    /// their subtrees after them (see `Node`). Empty when the whole index is one leaf (at most
    /// `leafSize` places) or empty.
    @usableFromInline let nodes: AlignedNodes

    /// Largest number of points in one leaf.
    public let leafSize: Int
    /// The radius every place shares, when they all share one (enables the center-order search
    /// for edge queries); nil for mixed radii or an empty index.
    @usableFromInline let uniformRadiusMeters: Double?
    /// Number of levels of internal nodes (0 when the index is one leaf); bounds the traversal
    /// stack.
    @usableFromInline let height: Int

    /// Number of places indexed.
    @inlinable public var count: Int { originalIndices.count }
    /// Whether the index holds no places; every query on an empty index returns no results.
    @inlinable public var isEmpty: Bool { originalIndices.isEmpty }

    /// The unit vector stored at leaf-order position `i` of the leaf holding `start..<end`.
    @inlinable func vector(at i: Int, inLeaf start: Int, _ end: Int) -> UnitVector {
        let n = end - start, block = 4 * start + n, j = i - start
        return UnitVector(x: leafBlocks[block + j], y: leafBlocks[block + n + j], z: leafBlocks[block + 2 * n + j])
    }

    /// The fence radius stored at leaf-order position `i` of the leaf starting at `start`.
    @inlinable func radiusMeters(at i: Int, inLeafFrom start: Int) -> Double {
        leafBlocks[4 * start + i - start]
    }

    /// One internal node (128 bytes): up to four children, lane i of each vector describing
    /// child i: the bounding box of its points and their largest radius, in `Float` rounded
    /// outward (so a box only grows and bounds stay safe). A search reads one node and has the
    /// bounds of four children, two levels of a binary tree, from two cache lines.
    ///
    /// The children hold consecutive ranges of points in leaf order: child i holds
    /// `s[i] ..< s[i + 1]`, where `s[0]` and `s[4]` are the node's own range (its parent's lanes
    /// give it) and `splits` lanes 0–2 hold the three between. A child of more than `leafSize`
    /// points is an internal node (the build splits exactly those), else a leaf. A node's internal
    /// children are stored one after another from index `splits` lane 3, in lane order. Unused
    /// lanes (a node of two or three children) come last: an empty range at the node's end and an
    /// empty box (min +∞, max −∞), whose squared chord is +∞.
    @usableFromInline
    struct Node: Sendable {
        @usableFromInline var minX: SIMD4<Float>, minY: SIMD4<Float>, minZ: SIMD4<Float>
        @usableFromInline var maxX: SIMD4<Float>, maxY: SIMD4<Float>, maxZ: SIMD4<Float>
        @usableFromInline var maxRadius: SIMD4<Float>
        @usableFromInline var splits: SIMD4<Int32>

        @inlinable init(
            minX: SIMD4<Float>, minY: SIMD4<Float>, minZ: SIMD4<Float>, maxX: SIMD4<Float>, maxY: SIMD4<Float>,
            maxZ: SIMD4<Float>, maxRadius: SIMD4<Float>, splits: SIMD4<Int32>
        ) {
            self.minX = minX
            self.minY = minY
            self.minZ = minZ
            self.maxX = maxX
            self.maxY = maxY
            self.maxZ = maxZ
            self.maxRadius = maxRadius
            self.splits = splits
        }

        /// Each child's range of points, `starts[i] ..< ends[i]`, and its node index (meaningful
        /// for internal children: those of more than `leafSize` points), given the node's own
        /// range `start..<end`.
        @inlinable @inline(__always)
        func children(start: Int32, end: Int32, leafSize: Int) -> (starts: SIMD4<Int32>, ends: SIMD4<Int32>, nodes: SIMD4<Int32>) {
            let starts = SIMD4(start, splits[0], splits[1], splits[2])
            let ends = SIMD4(splits[0], splits[1], splits[2], end)
            // -1 for internal children, 0 for leaves; internal children are stored in lane order
            // from the first one's index (lane 3).
            let inner: SIMD4<Int32> = (SIMD4(repeating: Int32(leafSize)) &- (ends &- starts)) &>> 31
            let shifted1 = SIMD4<Int32>(0, inner[0], inner[1], inner[2]), shifted2 = SIMD4<Int32>(0, 0, inner[0], inner[1])
            let before = shifted1 &+ shifted2 &+ SIMD4<Int32>(0, 0, 0, inner[0])
            return (starts, ends, SIMD4(repeating: splits[3]) &- before)
        }

        /// The query rounded to `Float`, in every lane (computed once a query).
        @usableFromInline
        struct Query {
            @usableFromInline let x: SIMD4<Float>, y: SIMD4<Float>, z: SIMD4<Float>

            @inlinable init(_ q: UnitVector) {
                x = SIMD4(repeating: Float(q.x))
                y = SIMD4(repeating: Float(q.y))
                z = SIMD4(repeating: Float(q.z))
            }
        }

        /// For each child, a squared chord no larger than `UnitVector.squaredChord` from the query
        /// to any point in its box (+∞ for unused lanes), four at once in `Float`.
        ///
        /// Why it is never larger: per axis the query rounded to Float is off by at most 2⁻²⁵ and a
        /// Float subtraction of values below 2 rounds by at most 2⁻²⁴, so the clamped gap less the
        /// slack 2⁻²¹ (its own rounding included) is at most the exact gap to the box, or 0. Such a
        /// gap is 0 or at least 2⁻⁴⁴ (the slack is a Float and so is the gap before it), so its
        /// square is a normal Float: squaring and summing round up by at most (1 + 2⁻²⁴)⁴, which
        /// the factor 1 − 2⁻²⁰ (its product rounded) more than removes, leaving at most
        /// (1 − 2⁻²¹) times the exact squared distance to the point, while `squaredChord` in Double
        /// is within 2⁻⁵⁰ of it relative. Looser than an exact box distance by ~3 m on the Earth.
        @inlinable @inline(__always)
        func squaredChordBounds(from q: Query) -> SIMD4<Float> {
            // The gap below plus the gap above, each clamped at 0: at most one is positive (the box
            // has min ≤ max, and an unused lane's gaps are both +∞), so the sum is the clamped gap.
            // Then less the slack, clamped again.
            let slack = SIMD4<Float>(repeating: 0x1p-21)
            let gx = Self.clamped(Self.clamped(minX - q.x) + Self.clamped(q.x - maxX) - slack)
            let gy = Self.clamped(Self.clamped(minY - q.y) + Self.clamped(q.y - maxY) - slack)
            let gz = Self.clamped(Self.clamped(minZ - q.z) + Self.clamped(q.z - maxZ) - slack)
            return (gx * gx + gy * gy + gz * gz) * SIMD4(repeating: 1 - 0x1p-20)
        }

        /// Each lane, or 0 where negative (never NaN here), by bit operations: lane selects
        /// (`replacing(with:where:)`) compile into per-lane branches inside the search.
        @inlinable @inline(__always)
        static func clamped(_ v: SIMD4<Float>) -> SIMD4<Float> {
            let bits = unsafeBitCast(v, to: SIMD4<Int32>.self)
            return unsafeBitCast(bits & ~(bits &>> 31), to: SIMD4<Float>.self)
        }
    }

    /// Approximate memory held by the index in bytes (array storage, excluding the input).
    public var memoryBytes: Int {
        leafBlocks.capacity * MemoryLayout<Double>.stride
            + originalIndices.capacity * MemoryLayout<Int32>.stride
            + nodes.count * MemoryLayout<Node>.stride
    }

    /// Number of internal nodes (each of up to four children).
    public var nodeCount: Int { nodes.count }

    /// The unit vector of the place with input index `index` is not kept in input order; this
    /// returns the input index stored at leaf-order position `position` (for tests and tools).
    package func originalIndex(atLeafPosition position: Int) -> Int { Int(originalIndices[position]) }

    /// - Parameters:
    ///   - leafBlocks: radii and coordinates in leaf blocks (see `leafBlocks`).
    ///   - uniformRadiusMeters: the radius every place shares, if they do.
    @usableFromInline
    init(leafBlocks: [Double], uniformRadiusMeters: Double?, originalIndices: [Int32], nodes: [Node], leafSize: Int, height: Int) {
        self.uniformRadiusMeters = uniformRadiusMeters
        self.height = height
        self.leafBlocks = leafBlocks
        self.originalIndices = originalIndices
        self.nodes = AlignedNodes(nodes)
        self.leafSize = leafSize
    }
}

/// The index's internal nodes in one allocation aligned to 64 bytes, so that each 128-byte node
/// occupies exactly two cache lines (an array's storage is only 16-byte aligned: a node could
/// straddle three, one more line to miss). That matters for indexes larger than the cache, whose
/// node reads come from memory.
/// Immutable once made, so safe to share between threads.
@usableFromInline
struct AlignedNodes: Sendable {
    @usableFromInline
    final class Storage: @unchecked Sendable {
        @usableFromInline let base: UnsafeMutablePointer<KDTree.Node>
        @usableFromInline let count: Int

        init(_ nodes: [KDTree.Node]) {
            count = nodes.count
            let raw = UnsafeMutableRawPointer.allocate(byteCount: Swift.max(1, count) * MemoryLayout<KDTree.Node>.stride, alignment: 64)
            base = raw.bindMemory(to: KDTree.Node.self, capacity: count)
            base.initialize(from: nodes, count: count)
        }

        deinit {
            base.deinitialize(count: count)
            base.deallocate()
        }
    }

    @usableFromInline let storage: Storage

    init(_ nodes: [KDTree.Node]) {
        storage = Storage(nodes)
    }

    @inlinable var count: Int { storage.count }
    @inlinable var isEmpty: Bool { storage.count == 0 }

    @inlinable subscript(index: Int) -> KDTree.Node {
        precondition(index >= 0 && index < storage.count, "node index out of range")
        return storage.base[index]
    }

    /// The nodes as a buffer, valid inside `body`.
    @inlinable
    func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<KDTree.Node>) throws -> R) rethrows -> R {
        try withExtendedLifetime(storage) { try body(UnsafeBufferPointer(start: storage.base, count: storage.count)) }
    }
}
