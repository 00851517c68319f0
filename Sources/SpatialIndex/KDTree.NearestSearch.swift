import Geodesy

extension KDTree {
    /// Base addresses of what one nearest search reads and writes (see `withSearchMemory`).
    ///
    /// - SAFETY: every index a search makes is in bounds by construction: node indices come from
    ///   the tree (children of valid nodes), point indices from leaf ranges (a leaf of n points owns
    ///   radii and coordinates 4·start ..< 4·start + 4n, and holds at most `leafSize` points, the
    ///   size of `chords`, `leafKeys` and `candidates`; `rankScratch` has 3 more, for padding),
    ///   result slots from 0...k after the sentinel (`best` holds k + 2, slot k being `fillByRank`'s
    ///   spare, and `bestChords` k + 2 when the metric keeps chords), and the stack never holds more
    ///   than 3 · height + 1 entries (three stacked children per level of the current path, and the
    ///   slot above them that the nearest child passes through).
    @usableFromInline
    struct SearchMemory {
        @usableFromInline let leafBlocks: UnsafePointer<Double>
        @usableFromInline let ids: UnsafePointer<Int32>
        @usableFromInline let nodes: UnsafePointer<Node>
        /// The best list: slot 0 is the sentinel, the list starts at slot 1.
        @usableFromInline let best: UnsafeMutablePointer<NeighborBuffer.Best>
        @usableFromInline let bestChords: UnsafeMutablePointer<Double>
        @usableFromInline let stack: UnsafeMutablePointer<NeighborBuffer.StackEntry>
        @usableFromInline let stackCount: Int
        /// One leaf's squared chords.
        @usableFromInline let chords: UnsafeMutablePointer<Double>
        /// One leaf's keys, by edge (those of the candidates).
        @usableFromInline let leafKeys: UnsafeMutablePointer<Double>
        /// The leaf slots of the places that may rank, by edge.
        @usableFromInline let candidates: UnsafeMutablePointer<Int>
        /// The first leaf's keys rounded to `Float`, for ranking them at once.
        @usableFromInline let rankScratch: UnsafeMutablePointer<Float>

        @inlinable
        init(
            scratch: UnsafeMutableRawBufferPointer, leafSize: Int, usesRadius: Bool, leafBlocks: UnsafeBufferPointer<Double>,
            ids: UnsafeBufferPointer<Int32>, nodes: UnsafeBufferPointer<Node>, best: UnsafeMutableBufferPointer<NeighborBuffer.Best>,
            bestChords: UnsafeMutableBufferPointer<Double>, stack: UnsafeMutableBufferPointer<NeighborBuffer.StackEntry>
        ) {
            let base = scratch.baseAddress!
            let perLeaf = usesRadius ? leafSize : 0
            chords = base.bindMemory(to: Double.self, capacity: leafSize)
            leafKeys = (base + 8 * leafSize).bindMemory(to: Double.self, capacity: perLeaf)
            candidates = (base + 8 * (leafSize + perLeaf)).bindMemory(to: Int.self, capacity: perLeaf)
            rankScratch = (base + 8 * (leafSize + 2 * perLeaf)).bindMemory(to: Float.self, capacity: leafSize + 3)
            self.leafBlocks = leafBlocks.baseAddress!
            self.ids = ids.baseAddress!
            self.nodes = nodes.baseAddress!
            self.best = best.baseAddress!
            self.bestChords = bestChords.baseAddress!
            self.stack = stack.baseAddress!
            stackCount = stack.count
        }
    }

    /// One nearest search over the tree, depth first: at an internal node the nearest child is
    /// visited next and the other three are stacked, the nearer on top; a leaf, or an entry whose
    /// bound no longer reaches the k-th key, resumes from the stack.
    @usableFromInline
    struct NearestSearch<Metric: RankingMetric> {
        @usableFromInline let memory: SearchMemory
        @usableFromInline let metric: Metric
        @usableFromInline let query: UnitVector
        @usableFromInline let nodeQuery: Node.Query
        @usableFromInline let k: Int
        /// The k-th key until k places are found: the reach's (+∞ but in a bounded query).
        @usableFromInline let reachKey: Double
        @usableFromInline let leafSize: Int
        @usableFromInline let seeds: UnsafeBufferPointer<NeighborSeed>
        @usableFromInline let prefetcher: Prefetcher
        /// The best list, after the sentinel.
        @usableFromInline let best: UnsafeMutablePointer<NeighborBuffer.Best>
        /// The best list's squared chords (read only when the metric keeps chords).
        @usableFromInline let bestChords: UnsafeMutablePointer<Double>
        /// Places in the best list so far (at most k).
        @usableFromInline var found = 0

        @inlinable
        init(
            _ memory: SearchMemory, metric: Metric, query: UnitVector, k: Int, reachKey: Double, leafSize: Int,
            seeds: UnsafeBufferPointer<NeighborSeed>
        ) {
            self.memory = memory
            self.metric = metric
            self.query = query
            nodeQuery = Node.Query(query)
            self.k = k
            self.reachKey = reachKey
            self.leafSize = leafSize
            self.seeds = seeds
            prefetcher = Prefetcher(
                leafBlocks: memory.leafBlocks, ids: memory.ids, nodes: memory.nodes, leafSize: leafSize,
                radii: Metric.usesRadius)
            memory.best[0] = .sentinel
            best = memory.best + 1
            bestChords = memory.bestChords + (Metric.usesRadius ? 1 : 0)
        }

        /// The k-th key so far: what a place must beat to rank.
        @inlinable @inline(__always)
        var worst: Double { found < k ? reachKey : best[k &- 1].key }

        @inlinable @inline(__always)
        mutating func offer(key: Double, squaredChord: Double, index: Int32) {
            NeighborBuffer.offer(
                key: key, squaredChord: squaredChord, index: index, to: best, chords: bestChords,
                keepsChords: Metric.usesRadius, found: &found, k: k)
        }

        /// Ranks the seeds first, so the walk starts with a k-th key close to the final one.
        @inlinable @inline(__always)
        mutating func rankSeeds() {
            for seed in seeds {
                let squaredChord = seed.vector.squaredChord(to: query)
                offer(
                    key: metric.key(squaredChord: squaredChord, radius: Metric.usesRadius ? seed.radiusMeters : 0),
                    squaredChord: squaredChord, index: Int32(seed.index))
            }
        }

        /// Walks the tree from `root` until the stack is empty.
        @inlinable @inline(__always)
        mutating func run<Probe: SearchProbe>(root: NeighborBuffer.StackEntry, _ probe: inout Probe) {
            // Locals, not members: the node step is a call, and passing it members would make the
            // whole search state live in memory rather than in registers.
            let stack = memory.stack, nodes = memory.nodes, leafSize = self.leafSize, nodeQuery = self.nodeQuery, metric = self.metric
            var top = 0
            var next = root
            while true {
                // Bounds are in key space: no place under the entry ranks before it.
                let worst = self.worst
                if !(next.bound > worst) {
                    probe.node()
                    let start = Int(next.start), end = Int(next.end)
                    if end &- start > leafSize {
                        assert(top + 3 < memory.stackCount, "stack deeper than the tree")
                        // One node read bounds all four children; the nearest is visited next.
                        KDTree.stackChildren(
                            of: nodes + Int(next.node), entry: next, query: nodeQuery, metric: metric,
                            leafSize: leafSize, into: stack + top)
                        top = top &+ 3
                        next = stack[top]
                        // The nearest child and the next: their lines load together.
                        prefetcher.fetch(next)
                        prefetcher.fetch(stack[top &- 1])
                        continue
                    }
                    // What comes after this leaf, asked for while it is read.
                    if top > 0 { prefetcher.fetch(stack[top &- 1]) }
                    scanLeaf(start: start, end: end, worst: worst, &probe)
                }
                guard top > 0 else { break }
                top -= 1
                next = stack[top]
            }
        }

        /// Offers a leaf's places `start..<end` to the best list, whose k-th key is `worst`.
        @inlinable @inline(__always)
        mutating func scanLeaf<Probe: SearchProbe>(start: Int, end: Int, worst: Double, _ probe: inout Probe) {
            var worst = worst
            let chords = memory.chords, candidates = memory.candidates, leafKeys = memory.leafKeys
            // The leaf's block: its radii, then its x's, y's and z's.
            let n = end &- start
            let radii = memory.leafBlocks + 4 &* start
            let px = radii + n, py = px + n, pz = py + n
            // Every squared chord of the leaf first, in a loop without branches that computes
            // several at once (same operations, same order as `UnitVector.squaredChord`), then the
            // checks.
            var kept = n
            if Metric.usesRadius {
                // Edge keys need a square root and a series: computed only for the places that
                // pass a test without either (listed without a branch, with the chords), then two
                // at a time. The whole leaf is tested: the reach test drops fences too small to
                // rank at no more cost than finding where they start.
                kept = metric.squaredChordsKeepingReaching(
                    x: px, y: py, z: pz, radii: radii, count: kept, query: query, worstKey: worst,
                    squaredChords: chords, candidates: candidates)
                metric.keys(squaredChords: UnsafePointer(chords), radii: radii, of: UnsafePointer(candidates), count: kept, into: leafKeys)
            } else {
                let (qx, qy, qz) = (query.x, query.y, query.z)
                for j in 0..<kept {
                    let dx = px[j] - qx, dy = py[j] - qy, dz = pz[j] - qz
                    chords[j] = dx * dx + dy * dy + dz * dz
                }
            }
            probe.points(n)
            probe.keys(kept)
            // The first leaf (no key known yet): ranked all at once, without inserting one by one
            // (each insertion ends in a shift loop whose exit no predictor can guess).
            if found == 0 && worst == .infinity {
                let keys = Metric.usesRadius ? UnsafePointer(leafKeys) : UnsafePointer(chords)
                if KDTree.fillByRank(
                    count: kept, keys: keys, squaredChords: UnsafePointer(chords),
                    candidates: Metric.usesRadius ? UnsafePointer(candidates) : nil, ids: memory.ids + start,
                    scratch: memory.rankScratch, best: best, chords: bestChords, keepsChords: Metric.usesRadius, k: k)
                {
                    found = Swift.min(kept, k)
                    return
                }
            }
            for t in 0..<kept {
                let j = Metric.usesRadius ? candidates[t] : t
                let squaredChord = chords[j]
                let key = Metric.usesRadius ? leafKeys[t] : metric.key(squaredChord: squaredChord, radius: 0)
                if key > worst { continue }
                let id = memory.ids[start &+ j]
                // A seed was ranked already; never count it twice.
                if !seeds.isEmpty && seeds.contains(where: { $0.index == Int(id) }) { continue }
                offer(key: key, squaredChord: squaredChord, index: id)
                if found == k { worst = best[k &- 1].key }
            }
        }
    }
}
