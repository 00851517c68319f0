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
/// query finds a leaf's radii next to its coordinates); nodes are a pre-order array whose left
/// child is the next node and whose right child is stored. Each node keeps its bounding box and
/// the largest fence radius below it, which makes edge-distance pruning exact.
///
/// Every query returns results sorted by distance, ties broken by the smaller place index — the
/// same order `BruteForceIndex` produces (see `RankingKey`).
public struct KDTree: Sendable {
    /// Fence radii (meters) and unit vectors' coordinates: the leaf holding points `start..<end`
    /// (n of them) stores its radii at `4 * start ..< 4 * start + n`, then its x's, its y's and
    /// its z's.
    @usableFromInline let leafBlocks: [Double]
    /// For each stored point, its index in the input.
    @usableFromInline let originalIndices: [Int32]
    /// Pre-order nodes; node 0 is the root (absent when the tree is empty).
    @usableFromInline let nodes: [Node]

    /// Largest number of points in one leaf.
    public let leafSize: Int
    /// The radius every place shares, when they all share one (enables the centre-order search
    /// for edge queries); nil for mixed radii or an empty index.
    @usableFromInline let uniformRadiusMeters: Double?
    /// Number of levels below the root (0 for a single leaf); bounds the traversal stack.
    @usableFromInline let height: Int

    /// Number of places indexed.
    @inlinable public var count: Int { originalIndices.count }
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

    /// One tree node (36 bytes): the bounding box of its points and their largest radius, in
    /// `Float` rounded outward (so the box only grows and bounds stay safe), the first of its
    /// points in leaf order, and `link`: the right child's index for an internal node (the left
    /// child is always the next node), or `-1 - end` for a leaf holding points `start..<end`.
    @usableFromInline
    struct Node: Sendable {
        @usableFromInline var minX: Float, minY: Float, minZ: Float
        @usableFromInline var maxX: Float, maxY: Float, maxZ: Float
        @usableFromInline var maxRadius: Float
        @usableFromInline var start: Int32
        @usableFromInline var link: Int32

        @inlinable var isLeaf: Bool { link < 0 }
        /// The right child (internal nodes).
        @inlinable var right: Int32 { link }
        /// One past the last point (leaves).
        @inlinable var end: Int32 { -1 - link }

        /// Squared distance from `q` to the nearest point of the box.
        ///
        /// Never larger than `squaredChord` from `q` to any point inside, bit for bit: the box
        /// (widened to Double) contains every point, per axis the clamped difference is a rounded
        /// subtraction no larger than the point's (rounding is monotone), and the squares are
        /// summed in the same order as `UnitVector.squaredChord`.
        @inlinable @inline(__always)
        func squaredDistance(to q: UnitVector) -> Double {
            let loX = Double(minX), hiX = Double(maxX)
            let loY = Double(minY), hiY = Double(maxY)
            let loZ = Double(minZ), hiZ = Double(maxZ)
            // Branch-free: the gap below, the gap above, or 0 inside (at most one is positive).
            // Written as `a > b ? a : b` (no NaN can occur), which compiles to one max instruction.
            let dx = Self.larger(Self.larger(loX - q.x, q.x - hiX), 0)
            let dy = Self.larger(Self.larger(loY - q.y, q.y - hiY), 0)
            let dz = Self.larger(Self.larger(loZ - q.z, q.z - hiZ), 0)
            return dx * dx + dy * dy + dz * dz
        }

        /// `max` for values that are never NaN: one max instruction (`Swift.max` keeps NaN rules).
        @inlinable @inline(__always)
        static func larger(_ a: Double, _ b: Double) -> Double { a > b ? a : b }
    }

    /// Approximate memory held by the index in bytes (array storage, excluding the input).
    public var memoryBytes: Int {
        leafBlocks.capacity * MemoryLayout<Double>.stride
            + originalIndices.capacity * MemoryLayout<Int32>.stride
            + nodes.capacity * MemoryLayout<Node>.stride
    }

    /// Number of nodes (internal and leaves).
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
        self.nodes = nodes
        self.leafSize = leafSize
    }
}
