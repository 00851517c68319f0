import Geodesy

extension KDTree {
    /// The `k` places nearest to `query`, written to `buffer.neighbors`.
    ///
    /// - Parameters:
    ///   - k: how many (≥ 0); fewer come back when the index holds fewer places.
    ///   - query: the query position's unit vector.
    ///   - target: `.center` ranks by great-circle distance to the center (exact order via squared
    ///     chords); `.edge` ranks by fence-edge distance (center distance minus the place's radius,
    ///     negative inside), which is what the planner uses.
    ///   - buffer: scratch and result storage; reuse it to make no allocation per query.
    ///
    /// Afterwards `buffer.neighbors` holds the results sorted by distance, ties by index, with
    /// `distanceMeters` the center or edge distance.
    /// - Complexity: about O(log n + k) node visits for well-spread points.
    @inlinable
    public func nearest(_ k: Int, to query: UnitVector, measuredTo target: DistanceTarget = .center, into buffer: inout NeighborBuffer) {
        precondition(k >= 0, "k must be >= 0")
        var probe = NoProbe()
        search(k, query, target, [], &buffer, &probe)
    }

    /// The `k` nearest places, warm-started from places that were near a previous query (a
    /// reselection along a walk, where consecutive queries are meters apart).
    ///
    /// The seeds are ranked first, so the search starts with a k-th key close to the final one
    /// and prunes from the root; the answer is exactly that of the cold query. Each seed must be
    /// an indexed place with its exact vector and radius (as given to the index), listed once.
    public func nearest(
        _ k: Int, to query: UnitVector, measuredTo target: DistanceTarget = .center, seededWith seeds: [NeighborSeed],
        into buffer: inout NeighborBuffer
    ) {
        precondition(k >= 0, "k must be >= 0")
        var probe = NoProbe()
        search(k, query, target, seeds, &buffer, &probe)
    }

    /// The `k` places nearest to `query` among those within `maxMeters` of it (fewer when fewer
    /// lie within).
    ///
    /// A caller that knows `k` places within some distance (say, places that were nearest at a
    /// previous position, meters away) passes it, and the search prunes from the root as if the
    /// k-th were already found; when at least `k` places lie within `maxMeters` the answer is
    /// exactly that of the unbounded query.
    public func nearest(
        _ k: Int, to query: UnitVector, measuredTo target: DistanceTarget = .center, within maxMeters: Double,
        into buffer: inout NeighborBuffer
    ) {
        precondition(k >= 0, "k must be >= 0")
        precondition(!maxMeters.isNaN, "reach must not be NaN")
        var probe = NoProbe()
        searchWithin(maxMeters, k, query, target, [], &buffer, &probe)
    }

    /// The same query, also counting the distance evaluations (squared chords), the ranking keys
    /// computed from them (by edge, those of the places that pass the reach test; by center, the
    /// squared chord is the key) and the nodes it made (for tests that prove the pruning works
    /// without timing anything).
    package func nearestCounting(
        _ k: Int, to query: UnitVector, measuredTo target: DistanceTarget, seededWith seeds: [NeighborSeed] = [],
        within maxMeters: Double = .infinity, into buffer: inout NeighborBuffer
    )
        -> (pointsEvaluated: Int, keysComputed: Int, nodesVisited: Int)
    {
        precondition(k >= 0, "k must be >= 0")
        var probe = CountingProbe()
        searchWithin(maxMeters, k, query, target, seeds, &buffer, &probe)
        return (probe.points, probe.keys, probe.nodes)
    }

    /// `search` with the buffer's reach set to `maxMeters` for its duration, then the results
    /// beyond it dropped (a reach's key is padded: see `RankingMetric.keyBound`).
    func searchWithin<Probe: SearchProbe>(
        _ maxMeters: Double, _ k: Int, _ query: UnitVector, _ target: DistanceTarget, _ seeds: [NeighborSeed],
        _ buffer: inout NeighborBuffer, _ probe: inout Probe
    ) {
        buffer.reachMeters = maxMeters
        search(k, query, target, seeds, &buffer, &probe)
        buffer.reachMeters = .infinity
        var kept = buffer._neighbors.count
        while kept > 0 && buffer._neighbors[kept - 1].distanceMeters > maxMeters { kept -= 1 }
        buffer._neighbors.resize(to: kept, filler: Neighbor(index: 0, distanceMeters: 0))
    }

    @inlinable
    func search<Probe: SearchProbe>(
        _ k: Int, _ query: UnitVector, _ target: DistanceTarget, _ seeds: [NeighborSeed], _ buffer: inout NeighborBuffer,
        _ probe: inout Probe
    ) {
        switch target {
        case .center:
            var metric = CenterMetric()
            searchNearest(k, query, seeds, &metric, &buffer, &probe)
        case .edge:
            if let radius = uniformRadiusMeters {
                // One common radius: edge order is center order (see `RankingKey`).
                var metric = UniformEdgeMetric(radiusMeters: radius)
                searchNearest(k, query, seeds, &metric, &buffer, &probe)
            } else {
                var metric = EdgeMetric()
                searchNearest(k, query, seeds, &metric, &buffer, &probe)
            }
        }
    }

    /// The `k` places nearest to `coordinate` (allocates its result; see the buffer overload).
    public func nearest(_ k: Int, to coordinate: Coordinate, measuredTo target: DistanceTarget = .center) -> [Neighbor] {
        var buffer = NeighborBuffer(capacity: min(k, count))
        nearest(k, to: UnitVector(coordinate), measuredTo: target, into: &buffer)
        return buffer.neighbors
    }

    /// The search behind every nearest query: the tree's and the buffer's storage opened once
    /// (`withSearchMemory`), the seeds ranked, the tree walked (`NearestSearch.run`), and the best
    /// list converted to meters.
    @inlinable @inline(__always)
    func searchNearest<Metric: RankingMetric, Probe: SearchProbe>(
        _ k: Int, _ query: UnitVector, _ seeds: [NeighborSeed], _ metric: inout Metric, _ buffer: inout NeighborBuffer, _ probe: inout Probe
    ) {
        let k = Swift.min(k, count)
        // `_neighbors` keeps its length from the last query: resized (rarely) at the end, never
        // emptied and refilled with placeholders.
        guard k > 0 else {
            buffer._neighbors.removeAll(keepingCapacity: true)
            return
        }
        buffer.prepare(resultSlots: k + 2, chordSlots: Metric.usesRadius ? k + 2 : 1, stackSlots: 3 * height + 4)
        // Until k places are found, the k-th key is the reach's (+∞ but in a bounded query).
        let reachKey = buffer.reachMeters == .infinity ? .infinity : metric.keyBound(meters: buffer.reachMeters)
        // What the search's closures capture holds no references (pointers and numbers only).
        let root = NeighborBuffer.StackEntry(node: 0, start: 0, end: Int32(count), bound: -Double.infinity), leafSize = self.leafSize
        let found = seeds.withUnsafeBufferPointer { seeds in
            withSearchMemory(&buffer, usesRadius: Metric.usesRadius) { memory in
                var search = NearestSearch(memory, metric: metric, query: query, k: k, reachKey: reachKey, leafSize: leafSize, seeds: seeds)
                search.rankSeeds()
                search.run(root: root, &probe)
                return search.found
            }
        }
        buffer._neighbors.resize(to: found, filler: Neighbor(index: 0, distanceMeters: 0))
        buffer.best.withUnsafeBufferPointer { sentinelAndEntries in
            let entries = UnsafeBufferPointer(rebasing: sentinelAndEntries.dropFirst())
            buffer._neighbors.withUnsafeMutableBufferPointer { neighbors in
                var i = 0
                while i + 1 < found {
                    let meters = metric.meters(keys: SIMD2(entries[i].key, entries[i + 1].key))
                    neighbors[i] = Neighbor(index: Int(entries[i].index), distanceMeters: meters.x)
                    neighbors[i + 1] = Neighbor(index: Int(entries[i + 1].index), distanceMeters: meters.y)
                    i += 2
                }
                if i < found {
                    neighbors[i] = Neighbor(index: Int(entries[i].index), distanceMeters: metric.meters(key: entries[i].key))
                }
            }
        }
    }

    /// Runs `body` with pointers to what one search reads and writes: the tree's leaf blocks, ids
    /// and nodes, the buffer's best list, chords and stack (prepared for this query), and scratch
    /// for one leaf on the stack.
    @inlinable @inline(__always)
    func withSearchMemory(_ buffer: inout NeighborBuffer, usesRadius: Bool, _ body: (SearchMemory) -> Int) -> Int {
        // Per leaf: squared chords, and by edge the keys and the candidates' slots (8 bytes
        // each), then the ranking's Floats (3 more, for padding).
        let scratchBytes = 8 * (usesRadius ? 3 : 1) * leafSize + 4 * (leafSize + 3)
        let leafSize = self.leafSize
        // The arrays first, the scratch innermost: the scratch's closure then captures only
        // pointers and `body` (whose captures must hold no references either), so nothing is
        // copied or retained per query.
        return leafBlocks.withUnsafeBufferPointer { leafBlocks in
            originalIndices.withUnsafeBufferPointer { ids in
                nodes.withUnsafeBufferPointer { nodes in
                    buffer.best.withUnsafeMutableBufferPointer { best in
                        buffer.bestChords.withUnsafeMutableBufferPointer { bestChords in
                            buffer.stack.withUnsafeMutableBufferPointer { stack in
                                withUnsafeTemporaryAllocation(byteCount: scratchBytes, alignment: 16) { scratch in
                                    body(
                                        SearchMemory(
                                            scratch: scratch, leafSize: leafSize, usesRadius: usesRadius, leafBlocks: leafBlocks,
                                            ids: ids, nodes: nodes, best: best, bestChords: bestChords, stack: stack))
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

extension KDTree {
    /// Fills the empty best list from one leaf's `count` keys at once: each key's rank among
    /// them (how many are smaller), counted four at a time on the keys rounded to `Float`, is its
    /// slot; ranks of k and more go to the spare slot `best[k]`. Rounding to `Float` keeps order
    /// (never reverses it), so when no two rounded keys are equal (the ranks' sum shows it) the
    /// ranks are the exact order; else returns false and the caller ranks the leaf one by one.
    @inlinable @inline(__always)
    static func fillByRank(
        count m: Int, keys: UnsafePointer<Double>, squaredChords: UnsafePointer<Double>, candidates: UnsafePointer<Int>?,
        ids: UnsafePointer<Int32>, scratch: UnsafeMutablePointer<Float>, best: UnsafeMutablePointer<NeighborBuffer.Best>,
        chords: UnsafeMutablePointer<Double>, keepsChords: Bool, k: Int
    ) -> Bool {
        let padded = (m &+ 3) & ~3
        for t in 0..<m { scratch[t] = Float(keys[t]) }
        for t in m..<padded { scratch[t] = .infinity }
        var rankSum = 0
        for i in 0..<m {
            let own = SIMD4<Float>(repeating: scratch[i])
            var below = SIMD4<Int32>.zero
            var g = 0
            while g < padded {
                let v = UnsafeRawPointer(scratch + g).loadUnaligned(as: SIMD4<Float>.self)
                below &-= unsafeBitCast(v .< own, to: SIMD4<Int32>.self)
                g &+= 4
            }
            let rank = Int(below.wrappedSum())
            rankSum &+= rank
            let slot = Swift.min(rank, k)
            let j = candidates?[i] ?? i
            best[slot] = NeighborBuffer.Best(key: keys[i], index: ids[j])
            if keepsChords { chords[slot] = squaredChords[j] }
        }
        return rankSum == m &* (m &- 1) / 2
    }

    /// One internal node's step of a nearest search: its four children (the node holding points
    /// `entry.start..<entry.end`) written to `slots[3 - rank]` by the rank of their bounds, so that
    /// `slots[0...2]` hold the farthest to the second nearest (the nearer on top) and `slots[3]`
    /// the nearest, to be visited next. Unused lanes (no points) rank last: their bound is beyond
    /// any place's key.
    ///
    /// Out of line: inlined into the search loop, its lane selects were compiled into per-lane
    /// branches; on its own it is a short run of vector instructions and no branch.
    @inlinable @inline(never)
    static func stackChildren<Metric: RankingMetric>(
        of node: UnsafePointer<Node>, entry: NeighborBuffer.StackEntry, query: Node.Query,
        metric: Metric, leafSize: Int, into slots: UnsafeMutablePointer<NeighborBuffer.StackEntry>
    ) {
        let squared = node.pointee.squaredChordBounds(from: query)
        let (low, high, order) = metric.lowerBounds(squaredChords: squared, maxRadii: node.pointee.maxRadius)
        let (starts, ends, children) = node.pointee.children(start: entry.start, end: entry.end, leafSize: leafSize)
        let ranks = ranks(ordering: order)
        slots[3 &- Int(ranks[0])] = .init(node: children[0], start: starts[0], end: ends[0], bound: low[0])
        slots[3 &- Int(ranks[1])] = .init(node: children[1], start: starts[1], end: ends[1], bound: low[1])
        slots[3 &- Int(ranks[2])] = .init(node: children[2], start: starts[2], end: ends[2], bound: high[0])
        slots[3 &- Int(ranks[3])] = .init(node: children[3], start: starts[3], end: ends[3], bound: high[1])
    }

    /// Each lane's rank by `order` (0 for the smallest), without branches or lane selects: the
    /// Floats as integers in the same order (a negative one's magnitude bits flipped), shifted to
    /// leave room for the lane in the two lowest bits (so that no two tie; the order only chooses
    /// which child is visited first) and for differences that cannot overflow; of each pair, the
    /// difference's sign says which ranks first.
    @inlinable @inline(__always)
    static func ranks(ordering order: SIMD4<Float>) -> SIMD4<Int32> {
        let bits = unsafeBitCast(order, to: SIMD4<Int32>.self)
        let sortable = bits ^ ((bits &>> 31) & 0x7fff_ffff)
        let keys = ((sortable &>> 3) &<< 2) | SIMD4(0, 1, 2, 3)
        // -1 in each lane whose key exceeds the other's.
        let after1 = (SIMD4(keys[1], keys[2], keys[3], keys[0]) &- keys) &>> 31
        let after2 = (SIMD4(keys[2], keys[3], keys[0], keys[1]) &- keys) &>> 31
        let after3 = (SIMD4(keys[3], keys[0], keys[1], keys[2]) &- keys) &>> 31
        return SIMD4<Int32>.zero &- after1 &- after2 &- after3
    }
}

/// A place to rank before searching (see `KDTree.nearest(_:to:measuredTo:seededWith:into:)`).
public struct NeighborSeed: Sendable, Hashable {
    /// The place's index in the input the tree was built from.
    public var index: Int
    /// The place's unit vector, exactly as given to the index.
    public var vector: UnitVector
    /// The place's fence radius in meters, exactly as given to the index (0 when built without radii).
    public var radiusMeters: Double

    /// Creates a seed from an indexed place's input index, vector and radius in meters.
    public init(index: Int, vector: UnitVector, radiusMeters: Double) {
        self.index = index
        self.vector = vector
        self.radiusMeters = radiusMeters
    }
}

/// Hooks a search calls as it works; `NoProbe` compiles away, `CountingProbe` counts.
@usableFromInline
protocol SearchProbe {
    mutating func node()
    mutating func points(_ count: Int)
    mutating func keys(_ count: Int)
}

@usableFromInline
struct NoProbe: SearchProbe {
    /// A byte of storage: an empty struct has no address of its own (all share one), so the
    /// thread sanitizer would see every thread's `inout` access to its probe as one variable.
    @usableFromInline var unused: UInt8 = 0
    @inlinable init() {}
    @inlinable @inline(__always) mutating func node() {}
    @inlinable @inline(__always) mutating func points(_ count: Int) {}
    @inlinable @inline(__always) mutating func keys(_ count: Int) {}
}

@usableFromInline
struct CountingProbe: SearchProbe {
    @usableFromInline var nodes = 0
    @usableFromInline var points = 0
    @usableFromInline var keys = 0
    @inlinable init() {}
    @inlinable @inline(__always) mutating func node() { nodes += 1 }
    @inlinable @inline(__always) mutating func points(_ count: Int) { points += count }
    @inlinable @inline(__always) mutating func keys(_ count: Int) { keys += count }
}

/// How a query ranks places, and when a node cannot hold anything that ranks at or before the
/// current k-th.
@usableFromInline
protocol RankingMetric {
    /// Whether keys depend on the place's radius (else radii are not even loaded).
    static var usesRadius: Bool { get }
    /// The ranking key of a place at `squaredChord` with `radius` (see `RankingKey`).
    func key(squaredChord: Double, radius: Double) -> Double
    /// A key no place under a node can beat, given the squared chord to the node's box and the
    /// largest radius under it. Exact: rounding can only make it smaller (every operation involved
    /// is monotone, and the edge bound is padded), so a node whose bound exceeds the k-th key holds
    /// nothing that ranks at or before it. Children are visited in order of this bound.
    func lowerBound(squaredChord: Double, maxRadius: Double) -> Double
    /// Bounds of four children at once (lanes 0–1 and 2–3), each at most `lowerBound` of its
    /// lane, from their boxes' squared-chord bounds (see `KDTree.Node.squaredChordBounds`) and
    /// largest radii; and Floats that only order the children (approximate).
    func lowerBounds(squaredChords: SIMD4<Float>, maxRadii: SIMD4<Float>) -> (SIMD2<Double>, SIMD2<Double>, order: SIMD4<Float>)
    /// The distance in meters a key stands for.
    func meters(key: Double) -> Double
    /// `meters(key:)` of two keys at once, bit for bit the same results (the results' conversion
    /// was a tenth of a query's instructions).
    func meters(keys: SIMD2<Double>) -> SIMD2<Double>
    /// `key(squaredChord:radius:)` of the places `candidates[0..<count]` (offsets into
    /// `squaredChords` and `radii`), bit for bit the same keys, written to `keys[0..<count]`.
    /// Only called when `usesRadius`.
    func keys(
        squaredChords: UnsafePointer<Double>, radii: UnsafePointer<Double>, of candidates: UnsafePointer<Int>, count: Int,
        into keys: UnsafeMutablePointer<Double>)
    /// Writes the squared chords from `query` to the places `0..<count` of a leaf (coordinates
    /// `x`, `y`, `z`) to `squaredChords` (same operations, same order as
    /// `UnitVector.squaredChord`), and to `candidates` the offsets whose key can be at most
    /// `worstKey` (every place whose key is, and few others), in order; returns how many. Only
    /// called when `usesRadius`.
    func squaredChordsKeepingReaching(
        x: UnsafePointer<Double>, y: UnsafePointer<Double>, z: UnsafePointer<Double>,
        radii: UnsafePointer<Double>, count: Int, query: UnitVector, worstKey: Double,
        squaredChords: UnsafeMutablePointer<Double>, candidates: UnsafeMutablePointer<Int>
    ) -> Int
    /// A key at least that of every place within `meters` (finite): every operation from a
    /// place's distance to its key is monotone, and chord keys are padded by 1 µm.
    func keyBound(meters: Double) -> Double
}

extension RankingMetric {
    /// Keys that are squared chords: the bounds are the squared chords themselves.
    @inlinable @inline(__always)
    func lowerBounds(squaredChords: SIMD4<Float>, maxRadii: SIMD4<Float>) -> (SIMD2<Double>, SIMD2<Double>, order: SIMD4<Float>) {
        (
            SIMD2(Double(squaredChords[0]), Double(squaredChords[1])), SIMD2(Double(squaredChords[2]), Double(squaredChords[3])),
            squaredChords
        )
    }
    @inlinable @inline(__always)
    func keys(
        squaredChords: UnsafePointer<Double>, radii: UnsafePointer<Double>, of candidates: UnsafePointer<Int>, count: Int,
        into keys: UnsafeMutablePointer<Double>
    ) {
        for t in 0..<count {
            let j = candidates[t]
            keys[t] = key(squaredChord: squaredChords[j], radius: radii[j])
        }
    }
    @inlinable @inline(__always)
    func squaredChordsKeepingReaching(
        x: UnsafePointer<Double>, y: UnsafePointer<Double>, z: UnsafePointer<Double>,
        radii: UnsafePointer<Double>, count: Int, query: UnitVector, worstKey: Double,
        squaredChords: UnsafeMutablePointer<Double>, candidates: UnsafeMutablePointer<Int>
    ) -> Int {
        for j in 0..<count {
            let dx = x[j] - query.x, dy = y[j] - query.y, dz = z[j] - query.z
            squaredChords[j] = dx * dx + dy * dy + dz * dz
            candidates[j] = j
        }
        return count
    }
}

/// Rank by center: the key is the squared chord itself, so pruning needs no trigonometry.
@usableFromInline
struct CenterMetric: RankingMetric {
    @inlinable init() {}
    @inlinable static var usesRadius: Bool { false }
    @inlinable @inline(__always)
    func key(squaredChord: Double, radius: Double) -> Double { squaredChord }
    @inlinable @inline(__always)
    func lowerBound(squaredChord: Double, maxRadius: Double) -> Double { squaredChord }
    @inlinable func meters(key: Double) -> Double { GreatCircle.arcMeters(squaredChord: key) }
    @inlinable @inline(__always)
    func meters(keys: SIMD2<Double>) -> SIMD2<Double> { GreatCircle.arcMeters(squaredChords: keys) }
    @inlinable func keyBound(meters: Double) -> Double { RankingKey.pruningSquaredChord(beyondMeters: meters) }
}

/// Rank by fence edge (meters). Pruning needs no trigonometry: a chord never exceeds its arc
/// (`chord · R ≤ arc`), so a node's bound is its box's chord times R, less the largest radius.
@usableFromInline
struct EdgeMetric: RankingMetric {
    @inlinable init() {}
    @inlinable static var usesRadius: Bool { true }
    @inlinable @inline(__always)
    func key(squaredChord: Double, radius: Double) -> Double {
        RankingKey.edgeMeters(squaredChord: squaredChord, radiusMeters: radius)
    }
    /// Meters per unit of chord in the bounds: R, less the pad (see `lowerBound`).
    @inlinable static var chordMeters: Double { Earth.meanRadiusMeters * (1 - 1e-12) }
    /// `chord · R · (1 − 1e-12) − maxRadius`: the chord never exceeds the arc, and the pad covers
    /// the rounding of the square root and the arc.
    @inlinable @inline(__always)
    func lowerBound(squaredChord: Double, maxRadius: Double) -> Double {
        squaredChord.squareRoot() * Self.chordMeters - maxRadius
    }
    /// `lowerBound` of each lane, bit for bit (the square root of the Float bound taken in Double,
    /// four `sqrtsd`: the branch to C's `sqrt` for negative input, which keeps `errno`, is never
    /// taken); ordered by the same bounds in chord units from the chords' guesses (`chordGuesses`,
    /// within 3.5 %), less the radii over R (computed beside the chords, off the chain). The order
    /// decides which child the search reads next, so the search waits on it: ordered by the exact
    /// bounds it was 3–6 % slower (10,000 and 100,000 places, mixed radii); by a reciprocal square
    /// root's first guess times the chord, then times R, less the radii (eight operations on the
    /// chain where these take three), ~2 % slower (clustered 100,000: 1,088 against 1,069 ns).
    @inlinable @inline(__always)
    func lowerBounds(squaredChords: SIMD4<Float>, maxRadii: SIMD4<Float>) -> (SIMD2<Double>, SIMD2<Double>, order: SIMD4<Float>) {
        let low = SIMD2(
            lowerBound(squaredChord: Double(squaredChords[0]), maxRadius: Double(maxRadii[0])),
            lowerBound(squaredChord: Double(squaredChords[1]), maxRadius: Double(maxRadii[1])))
        let high = SIMD2(
            lowerBound(squaredChord: Double(squaredChords[2]), maxRadius: Double(maxRadii[2])),
            lowerBound(squaredChord: Double(squaredChords[3]), maxRadius: Double(maxRadii[3])))
        return (low, high, Self.chordGuesses(squaredChords) - maxRadii * Float(1 / Earth.meanRadiusMeters))
    }
    /// For each lane, the square root of `squared` (≥ 0, +∞ allowed) within 3.5 % (below 2¹²⁸), by
    /// halving its bits (the exponent halves; the constant spreads the mantissa's error evenly);
    /// monotone, and finite for +∞ (~1.8e19). For ordering only.
    @inlinable @inline(__always)
    static func chordGuesses(_ squared: SIMD4<Float>) -> SIMD4<Float> {
        let bits = unsafeBitCast(squared, to: SIMD4<UInt32>.self)
        return unsafeBitCast((bits &>> 1) &+ 0x1fbb_4f2e, to: SIMD4<Float>.self)
    }
    @inlinable func meters(key: Double) -> Double { key }
    @inlinable @inline(__always)
    func meters(keys: SIMD2<Double>) -> SIMD2<Double> { keys }
    /// The key is the edge itself.
    @inlinable func keyBound(meters: Double) -> Double { meters }
    /// Two places at a time through `GreatCircle.arcMeters(squaredChords:)` (bit for bit the
    /// scalar arcs), minus the radii.
    @inlinable @inline(__always)
    func keys(
        squaredChords: UnsafePointer<Double>, radii: UnsafePointer<Double>, of candidates: UnsafePointer<Int>, count: Int,
        into keys: UnsafeMutablePointer<Double>
    ) {
        var t = 0
        while t &+ 1 < count {
            let a = candidates[t], b = candidates[t &+ 1]
            let arcs = GreatCircle.arcMeters(squaredChords: SIMD2(squaredChords[a], squaredChords[b]))
            let edges = arcs - SIMD2(radii[a], radii[b])
            keys[t] = edges.x
            keys[t &+ 1] = edges.y
            t &+= 2
        }
        if t < count {
            let j = candidates[t]
            keys[t] = key(squaredChord: squaredChords[j], radius: radii[j])
        }
    }
    /// The leaf's squared chords, and the places whose key can reach `worstKey` by a test without
    /// a square root or a series: `(chord · R · (1 − 1e-9))² ≤ reach²` and `reach ≥ 0`, where
    /// `reach` is `worstKey + radius` padded by 1 µm and 1e-12 of the radius. Dense towns compute
    /// chords for ~100 places a query of which a third rank; the rest take no square root and no
    /// series. One pass, two places at a time (lane by lane), each kept without a branch.
    ///
    /// Exact (never drops a place whose key is at most `worstKey`): a key is at least `-radius`,
    /// and at least `lowerBound` with the place's own radius, `chord · R · (1 − 1e-12) − radius`
    /// rounded. A place is dropped when `reach < 0`, so `worstKey < -radius`; or when its rounded
    /// `reach²` is below the rounded `squaredChord · scale`, so `reach < chord · R · (1 − 1e-9 +
    /// 1e-15)`, below that bound's rounded product: then `worstKey + radius` plus the pads, less
    /// the rounding of the sum (under 1e-15 of its terms: 2e-8 m for keys, which never exceed
    /// ~2e7 m, and 1e-15 of the radius), is below the product, and the rounded bound lies above
    /// `worstKey`, strictly: a key equal to the k-th still ranks by its tie-breaks.
    @inlinable @inline(__always)
    func squaredChordsKeepingReaching(
        x: UnsafePointer<Double>, y: UnsafePointer<Double>, z: UnsafePointer<Double>,
        radii: UnsafePointer<Double>, count: Int, query: UnitVector, worstKey: Double,
        squaredChords: UnsafeMutablePointer<Double>, candidates: UnsafeMutablePointer<Int>
    ) -> Int {
        var kept = 0, j = 0
        let scale = Self.squaredReachScale, slack = worstKey + 1e-6, radiusPad = 1 + 1e-12
        let qx = SIMD2(repeating: query.x), qy = SIMD2(repeating: query.y), qz = SIMD2(repeating: query.z)
        while j &+ 1 < count {
            let dx = SIMD2(x[j], x[j &+ 1]) - qx, dy = SIMD2(y[j], y[j &+ 1]) - qy, dz = SIMD2(z[j], z[j &+ 1]) - qz
            let chords = dx * dx + dy * dy + dz * dz
            squaredChords[j] = chords.x
            squaredChords[j &+ 1] = chords.y
            let reach = SIMD2(repeating: slack) + SIMD2(radii[j], radii[j &+ 1]) * radiusPad
            let room = reach * reach - chords * scale
            // Kept when both are at least 0, i.e. when the smaller is (no NaN can occur).
            candidates[kept] = j
            kept &+= (reach.x < room.x ? reach.x : room.x) >= 0 ? 1 : 0
            candidates[kept] = j &+ 1
            kept &+= (reach.y < room.y ? reach.y : room.y) >= 0 ? 1 : 0
            j &+= 2
        }
        if j < count {
            let dx = x[j] - query.x, dy = y[j] - query.y, dz = z[j] - query.z
            let chord = dx * dx + dy * dy + dz * dz
            squaredChords[j] = chord
            let reach = slack + radii[j] * radiusPad
            let room = reach * reach - chord * scale
            candidates[kept] = j
            kept &+= (reach < room ? reach : room) >= 0 ? 1 : 0
        }
        return kept
    }
    /// `(R · (1 − 1e-9))²`: meters² per unit of squared chord in `squaredChordsKeepingReaching`,
    /// padded well beyond the rounding of the squares and the products.
    @inlinable static var squaredReachScale: Double {
        let meters = Earth.meanRadiusMeters * (1 - 1e-9)
        return meters * meters
    }
}

/// Rank by fence edge when every place has the same radius: search by squared chord (no
/// trigonometry), then report `arc - radius`. Exact, because with one radius the edge order
/// (edge, squared chord, index) equals the center order (squared chord, index).
@usableFromInline
struct UniformEdgeMetric: RankingMetric {
    @usableFromInline let radiusMeters: Double

    @inlinable init(radiusMeters: Double) {
        self.radiusMeters = radiusMeters
    }
    @inlinable static var usesRadius: Bool { false }
    @inlinable @inline(__always)
    func key(squaredChord: Double, radius: Double) -> Double { squaredChord }
    @inlinable @inline(__always)
    func lowerBound(squaredChord: Double, maxRadius: Double) -> Double { squaredChord }
    @inlinable func meters(key: Double) -> Double {
        RankingKey.edgeMeters(squaredChord: key, radiusMeters: radiusMeters)
    }
    /// Bit for bit `meters(key:)` lane by lane: `edgeMeters` is the arc minus the radius.
    @inlinable @inline(__always)
    func meters(keys: SIMD2<Double>) -> SIMD2<Double> {
        GreatCircle.arcMeters(squaredChords: keys) - radiusMeters
    }
    /// An edge within `meters` is a center within `meters + radius`.
    @inlinable func keyBound(meters: Double) -> Double { RankingKey.pruningSquaredChord(beyondMeters: meters + radiusMeters) }
}

extension KDTree {
    /// How many nodes have a bound at most the key of `meters` (by `target` from `query`): the
    /// nodes a search that opens nodes in the order of their bounds (best first) would open if it
    /// ended with that k-th distance, and a depth-first search must open at least those with a
    /// smaller bound. The key is padded (see `RankingMetric.keyBound`), so the count errs high.
    /// For tests that the depth-first order stays close to best first.
    package func nodesBounded(by meters: Double, from query: UnitVector, measuredTo target: DistanceTarget) -> Int {
        switch target {
        case .center:
            return nodesBounded(byKey: CenterMetric().keyBound(meters: meters), from: query, CenterMetric())
        case .edge:
            if let radius = uniformRadiusMeters {
                let metric = UniformEdgeMetric(radiusMeters: radius)
                return nodesBounded(byKey: metric.keyBound(meters: meters), from: query, metric)
            }
            return nodesBounded(byKey: EdgeMetric().keyBound(meters: meters), from: query, EdgeMetric())
        }
    }

    private func nodesBounded<Metric: RankingMetric>(byKey key: Double, from query: UnitVector, _ metric: Metric) -> Int {
        guard !isEmpty else { return 0 }
        // The root's bound is -∞; a child counts when its bound is at most the key. A child's box
        // lies in its parent's and its largest radius is at most the parent's, so bounds only grow
        // downwards: a child over the key has no descendant under it.
        var count = 1
        let nodeQuery = Node.Query(query)
        var pending: [(node: Int32, start: Int32, end: Int32)] = self.count > leafSize ? [(0, 0, Int32(self.count))] : []
        while let (index, start, end) = pending.popLast() {
            let node = nodes[Int(index)]
            let squared = node.squaredChordBounds(from: nodeQuery)
            let (starts, ends, children) = node.children(start: start, end: end, leafSize: leafSize)
            for lane in 0..<4
            where starts[lane] < ends[lane]
                && metric.lowerBound(squaredChord: Double(squared[lane]), maxRadius: Double(node.maxRadius[lane])) <= key
            {
                count += 1
                if Int(ends[lane] - starts[lane]) > leafSize { pending.append((children[lane], starts[lane], ends[lane])) }
            }
        }
        return count
    }
}
