import CPrefetch

extension KDTree {
    /// The storage one search reads, to ask the cache for a stack entry's lines before it is
    /// visited. Made once a query from the buffers it already holds.
    @usableFromInline
    struct Prefetcher {
        @usableFromInline let leafBlocks: UnsafePointer<Double>
        @usableFromInline let ids: UnsafePointer<Int32>
        @usableFromInline let nodes: UnsafePointer<Node>
        @usableFromInline let leafSize: Int
        /// Whether leaves' radii are read too (ranking by edge).
        @usableFromInline let radii: Bool
        /// Cache lines asked for a leaf: as many as a full leaf spans (one more for a block that
        /// starts mid-line), whatever its size, so the loop's count is fixed per tree and its exit
        /// is never guessed wrong (leaves differ in size: a loop to each leaf's own end would stop
        /// where no predictor can tell). The lines beyond a smaller leaf are the next leaf's, often
        /// read soon after; a prefetch past the array's end never faults.
        @usableFromInline let lines: Int

        @inlinable init(
            leafBlocks: UnsafePointer<Double>, ids: UnsafePointer<Int32>, nodes: UnsafePointer<Node>, leafSize: Int, radii: Bool
        ) {
            self.leafBlocks = leafBlocks
            self.ids = ids
            self.nodes = nodes
            self.leafSize = leafSize
            self.radii = radii
            lines = ((radii ? 4 : 3) &* leafSize &* MemoryLayout<Double>.stride &+ 63) / 64 &+ 1
        }

        /// Asks the cache for what visiting `entry` will read: a leaf's coordinates (and radii)
        /// and ids, or an internal node's two cache lines. In an index larger than the L3 a
        /// query's leaves come from memory: asked for early, a leaf's lines load together and
        /// while the previous leaf is read, instead of one miss after another.
        @inlinable @inline(__always)
        func fetch(_ entry: NeighborBuffer.StackEntry) {
            let start = Int(entry.start), n = Int(entry.end) &- start
            if n <= leafSize {
                let first = UnsafeRawPointer(leafBlocks + (4 &* start &+ (radii ? 0 : n)))
                for line in 0..<lines { rotate_prefetch(first + 64 &* line) }
                if n > 0 {
                    rotate_prefetch(ids + start)
                    rotate_prefetch(ids + (start &+ n &- 1))
                }
            } else {
                let node = UnsafeRawPointer(nodes + Int(entry.node))
                rotate_prefetch(node)
                rotate_prefetch(node + 64)
            }
        }
    }
}
