import CPrefetch
import Geodesy

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The k nearest places by exact fence edge where places are circles or polygon footprints.
///
/// Each footprint is indexed in the k-d tree by its enclosing cap (`SphericalMultiPolygon.cap`):
/// the distance from a point to the cap's edge is a lower bound of its signed distance to the
/// footprint's edge (inside too), as a circle's own edge distance is exact. A query measures the
/// places nearest by that bound exactly, in order of the bound, until the bound passes the k-th
/// exact distance found so far (no later place can come nearer), and keeps the k nearest exactly:
/// the answer of ranking every place by its exact edge distance, ties as `RankingKey` breaks them
/// (the nearer circle or cap center, then the index). A footprint outside its cap is measured by
/// walking its convex hull (`measureOutside`), a few vertices, instead of every edge.
public struct FootprintIndex: Sendable {
    /// A place's fence.
    public enum Shape: Hashable, Sendable {
        /// A circular fence: its center and radius, meters.
        case circle(center: UnitVector, radiusMeters: Double)
        /// A polygon footprint.
        case footprint(SphericalMultiPolygon)
    }

    /// The tree over the circles and the footprints' caps, in `shapes` order.
    public let tree: KDTree
    /// Each place's footprint, nil for a circle.
    public let footprints: [SphericalMultiPolygon?]
    /// Each place's circle center or cap center: ties in edge distance go to the nearer.
    let centers: [UnitVector]
    /// Every footprint's vertices, ring after ring, footprints in the tree's leaf order (places
    /// near each other lie near each other in memory): what a query measures, with no pointer
    /// to follow per footprint.
    let arena: [UnitVector]
    /// Per place (by index): its parts in `parts`, from `x` up to `y`: one read finds them.
    let partRanges: [SIMD2<Int32>]
    /// Per part, in the tree's leaf order as the arena: where its first ring begins in `arena`
    /// (`x`), and its rings in `ringEnds`, from `y` up to `z` (`w` unused).
    let parts: [SIMD4<Int32>]
    /// Per ring, in leaf order: where it ends in `arena` (it begins where the ring before in its
    /// part ends, the first at the part's start).
    let ringEnds: [Int32]
    /// Every footprint's walk record (`walkRecord(of:)`), in leaf order: what a query from
    /// outside a footprint's cap reads instead of every edge (`measureOutside`).
    let walks: [Double]
    /// Per place, `walkHeadValues` values from a cache-line boundary (`withWalkHeads`): where its
    /// walk begins (`walkRecord(of:)`); a place without a walk record has -1 at 3.
    let walkHeads: [Double]
    /// Per place: 0 a circle, 1 a footprint measured in the arena, 2 a footprint with an
    /// antimeridian seam (measured by `SphericalMultiPolygon`). Read instead of `footprints`,
    /// whose arrays lie scattered over the heap.
    let kinds: [UInt8]

    /// Indexes `shapes` (a place's index is its position here); `leafSize` as `KDTree`'s.
    public init(_ shapes: [Shape], leafSize: Int = KDTree.defaultLeafSize) {
        var vectors: [UnitVector] = []
        var radii: [Double] = []
        var footprints: [SphericalMultiPolygon?] = []
        vectors.reserveCapacity(shapes.count)
        radii.reserveCapacity(shapes.count)
        footprints.reserveCapacity(shapes.count)
        for shape in shapes {
            switch shape {
            case .circle(let center, let radius):
                vectors.append(center)
                radii.append(radius)
                footprints.append(nil)
            case .footprint(let footprint):
                vectors.append(footprint.cap.center)
                radii.append(footprint.cap.radiusMeters)
                footprints.append(footprint)
            }
        }
        tree = KDTree(vectors: vectors, radiiMeters: radii, leafSize: leafSize)
        self.footprints = footprints
        centers = vectors
        // The arena and the part and ring tables, all in the tree's leaf order: the footprints a
        // query measures lie near each other in the tree, and so in memory.
        var arena: [UnitVector] = []
        arena.reserveCapacity(footprints.reduce(0) { $0 + ($1?.vertexCount ?? 0) })
        var partRanges = [SIMD2<Int32>](repeating: .zero, count: footprints.count)
        var parts: [SIMD4<Int32>] = []
        var ringEnds: [Int32] = []
        var walks: [Double] = []
        // One value more than a cache line of padding, to start at a line boundary.
        var walkHeads = [Double](repeating: -1, count: Self.walkHeadValues * (footprints.count + 1))
        let headBase = walkHeads.withUnsafeBufferPointer { Self.lineStart($0.baseAddress!) }
        for position in 0..<tree.count {
            let place = tree.originalIndex(atLeafPosition: position)
            guard let footprint = footprints[place] else { continue }
            let firstPart = Int32(parts.count)
            if let (values, record) = Self.walkRecord(of: footprint) {
                var head = values
                head[3] = Double(walks.count)
                let start = headBase + Self.walkHeadValues * place
                walkHeads.replaceSubrange(start..<start + Self.walkHeadValues, with: head)
                walks += record
            }
            for part in footprint.parts {
                let vertexStart = Int32(arena.count), ringStart = Int32(ringEnds.count)
                for ring in [part.shell] + part.holes {
                    arena.append(contentsOf: ring)
                    ringEnds.append(Int32(arena.count))
                }
                parts.append(SIMD4(vertexStart, ringStart, Int32(ringEnds.count), 0))
            }
            partRanges[place] = SIMD2(firstPart, Int32(parts.count))
        }
        self.arena = arena
        self.partRanges = partRanges
        self.parts = parts
        self.ringEnds = ringEnds
        self.walks = walks
        self.walkHeads = walkHeads
        kinds = footprints.map { footprint in footprint.map { $0.hasSeams ? 2 : 1 } ?? 0 }
    }

    /// The signed distance from `query` to place `index`'s fence edge, meters, negative inside:
    /// exact for a footprint, `bound` (its edge distance as the tree ranks it) for a circle.
    public func edgeDistanceMeters(of index: Int, to query: UnitVector, bound: Double) -> Double {
        kinds[index] == 0 ? bound : edgeDistanceMeters(of: index, from: GnomonicFrame(center: query), bound: bound)
    }

    /// `edgeDistanceMeters(of:to:bound:)` from the center of `frame`.
    func edgeDistanceMeters(of index: Int, from frame: GnomonicFrame, bound: Double) -> Double {
        let kind = kinds[index]
        if kind == 0 { return bound }
        if kind == 1, Self.isWalked(bound: bound), let squared = measureOutside(index, from: frame) {
            return GreatCircle.arcMeters(tangent: squared.squareRoot())
        }
        if kind == 1, let (tangent, inside) = measure(index, from: frame) {
            let distance = GreatCircle.arcMeters(tangent: tangent)
            return inside ? -distance : distance
        }
        return footprints[index]?.signedDistanceMeters(to: frame.center) ?? bound
    }

    /// Place `index`'s footprint seen from the center of `frame`, from the arena: the tangent of
    /// the great-circle distance to its nearest edge and whether the center is inside (the
    /// measurement of `SphericalPolygon.signedDistanceMeters`); nil when a vertex lies more than
    /// 87° away.
    func measure(_ index: Int, from frame: GnomonicFrame) -> (tangent: Double, inside: Bool)? {
        var best = Double.infinity
        var inside = false
        let range = partRanges[index]
        // Through buffer pointers: an array of `self` read inside the closure would be retained
        // at every read.
        let measured = arena.withUnsafeBufferPointer { vertices in
            parts.withUnsafeBufferPointer { parts in
                ringEnds.withUnsafeBufferPointer { ringEnds in
                    for part in Int(range.x)..<Int(range.y) {
                        let table = parts[part]
                        var partInside = false
                        var start = Int(table.x)
                        for ring in Int(table.y)..<Int(table.z) {
                            let end = Int(ringEnds[ring])
                            guard frame.measureRing(vertices, start..<end, nearest: &best, inside: &partInside) else { return false }
                            start = end
                        }
                        inside = inside || partInside
                    }
                    return true
                }
            }
        }
        return measured ? (best.squareRoot(), inside) : nil
    }

    /// The `k` places nearest to `query` by exact fence edge, sorted (ties as `RankingKey`), written
    /// to `results`; `buffer` is the tree's scratch.
    ///
    /// Best first, in order of the bound: the tree's k + `nearestSlack` nearest by bound are
    /// measured one after another, each coming nearer than the k-th measured so far taking its
    /// place, until a bound passes the k-th distance (no later place can come nearer: its exact
    /// distance is at least its bound; a micrometer of slack, the tree's edge distances and the
    /// exact ones round apart). When those candidates run out first, every place whose bound is
    /// within the k-th distance is gone through the same way.
    public func nearest(_ k: Int, to query: UnitVector, into buffer: inout NeighborBuffer, results: inout [Neighbor]) {
        results.removeAll(keepingCapacity: true)
        guard k > 0 else { return }
        let asked = k + Self.nearestSlack
        tree.nearest(asked, to: query, measuredTo: .edge, into: &buffer)
        prefetch(buffer.neighbors, query)
        let frame = GnomonicFrame(center: query)
        var kth = Double.infinity
        let candidates = buffer.neighbors
        for (position, neighbor) in candidates.enumerated() {
            if results.count == k, neighbor.distanceMeters > kth + 1e-6 { return }
            // The hull vertex a later candidate's walk starts at, its record's first lines
            // asked for by `prefetch` and arrived by now.
            if position + Self.walkLookahead < candidates.count { prefetchWalk(candidates[position + Self.walkLookahead], query) }
            let distance = edgeDistanceMeters(of: neighbor.index, from: frame, bound: neighbor.distanceMeters)
            insert(Neighbor(index: neighbor.index, distanceMeters: distance), into: &results, keeping: k, query)
            if results.count == k { kth = results[k - 1].distanceMeters }
        }
        // Every place measured, or the next bound past the k-th.
        guard buffer.neighbors.count == asked else { return }
        let found = Set(buffer.neighbors.lazy.map(\.index))
        tree.within(kth + 1e-6, of: query, measuredTo: .edge, into: &buffer)
        for neighbor in buffer.neighbors {
            if neighbor.distanceMeters > kth + 1e-6 { break }
            if found.contains(neighbor.index) { continue }
            let distance = edgeDistanceMeters(of: neighbor.index, from: frame, bound: neighbor.distanceMeters)
            insert(Neighbor(index: neighbor.index, distanceMeters: distance), into: &results, keeping: k, query)
            kth = results[k - 1].distanceMeters
        }
    }

    /// Candidates the tree returns beyond the k asked for: in most queries the bound of the first
    /// of them already passes the k-th exact distance, and no second pass over the tree is needed.
    static var nearestSlack: Int { 2 }
    /// How many candidates ahead of the one measured the walk's first vertex is asked for.
    static var walkLookahead: Int { 3 }

    /// Inserts `neighbor` into `results` (sorted, ties as `RankingKey`), keeping the `k` first.
    func insert(_ neighbor: Neighbor, into results: inout [Neighbor], keeping k: Int, _ query: UnitVector) {
        var position = results.count
        while position > 0, precedes(neighbor, results[position - 1], query) { position -= 1 }
        guard position < k else { return }
        if results.count == k { results.removeLast() }
        results.insert(neighbor, at: position)
    }

    /// `RankingKey`'s order, the centers read only for a tie in distance.
    @inline(__always)
    func precedes(_ a: Neighbor, _ b: Neighbor, _ query: UnitVector) -> Bool {
        if a.distanceMeters != b.distanceMeters { return a.distanceMeters < b.distanceMeters }
        return RankingKey.precedes(
            key: a.distanceMeters, squaredChord: centers[a.index].squaredChord(to: query), index: a.index,
            b.distanceMeters, centers[b.index].squaredChord(to: query), b.index)
    }

    /// Every place whose exact fence edge is within `meters` of `query`, sorted (ties as
    /// `RankingKey`), written to `results`; `buffer` is the tree's scratch.
    public func within(_ meters: Double, of query: UnitVector, into buffer: inout NeighborBuffer, results: inout [Neighbor]) {
        results.removeAll(keepingCapacity: true)
        // The tree's edges are lower bounds: it finds a superset, refined exactly.
        tree.within(meters + 1e-6, of: query, measuredTo: .edge, into: &buffer)
        let frame = GnomonicFrame(center: query)
        for neighbor in buffer.neighbors {
            let distance = edgeDistanceMeters(of: neighbor.index, from: frame, bound: neighbor.distanceMeters)
            if distance <= meters { results.append(Neighbor(index: neighbor.index, distanceMeters: distance)) }
        }
        sort(&results, query)
    }

    /// Asks the cache for what measuring `neighbors`' footprints reads, all of them before any
    /// is measured, so the misses overlap instead of coming one after another: the walk head of
    /// a footprint measured from outside its cap (and the lines about the first candidates'
    /// first hull vertices: `nearest` asks for the later ones as it goes); else its part range,
    /// its first part's table entry and the first 256 bytes of its vertices (the hardware
    /// prefetcher follows the rest of the stream).
    func prefetch(_ neighbors: [Neighbor], _ query: UnitVector) {
        kinds.withUnsafeBufferPointer { kinds in
            withWalkHeads { heads in
                var fallback = false
                for neighbor in neighbors where kinds[neighbor.index] == 1 {
                    guard Self.isWalked(bound: neighbor.distanceMeters) else {
                        fallback = true
                        continue
                    }
                    rotate_prefetch(heads + Self.walkHeadValues * neighbor.index)
                }
                for neighbor in neighbors.prefix(Self.walkLookahead) { prefetchWalk(neighbor, query) }
                guard fallback else { return }
                partRanges.withUnsafeBufferPointer { ranges in
                    @inline(__always) func measured(_ neighbor: Neighbor) -> Bool {
                        kinds[neighbor.index] == 1 && !Self.isWalked(bound: neighbor.distanceMeters)
                    }
                    for neighbor in neighbors where measured(neighbor) { rotate_prefetch(ranges.baseAddress! + neighbor.index) }
                    parts.withUnsafeBufferPointer { parts in
                        for neighbor in neighbors where measured(neighbor) {
                            rotate_prefetch(parts.baseAddress! + Int(ranges[neighbor.index].x))
                        }
                        arena.withUnsafeBufferPointer { arena in
                            for neighbor in neighbors where measured(neighbor) {
                                let first = arena.baseAddress! + Int(parts[Int(ranges[neighbor.index].x)].x)
                                for line in 0..<4 { rotate_prefetch(UnsafeRawPointer(first) + 64 * line) }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Asks the cache for the lines about the hull vertex the walk of `neighbor`'s footprint from
    /// `query` starts at (reading its walk head).
    @inline(__always)
    func prefetchWalk(_ neighbor: Neighbor, _ query: UnitVector) {
        guard Self.isWalked(bound: neighbor.distanceMeters), kinds[neighbor.index] == 1 else { return }
        withWalkHeads { heads in
            guard let offset = Self.walkStartOffset(heads + Self.walkHeadValues * neighbor.index, from: query) else { return }
            walks.withUnsafeBufferPointer { walks in
                for line in -1..<2 { rotate_prefetch(UnsafeRawPointer(walks.baseAddress! + offset) + 64 * line) }
            }
        }
    }

    func sort(_ results: inout [Neighbor], _ query: UnitVector) {
        results.sort { a, b in precedes(a, b, query) }
    }

    /// Bytes per vertex of the query's arena (a unit vector), its ring and part tables and the
    /// walk records and heads; the validated shapes (`footprints`) are kept beside it.
    public var bytesPerVertex: Double {
        guard !arena.isEmpty else { return 0 }
        let bytes =
            arena.count * MemoryLayout<UnitVector>.stride
            + parts.count * MemoryLayout<SIMD4<Int32>>.stride + ringEnds.count * MemoryLayout<Int32>.stride
            + partRanges.count * MemoryLayout<SIMD2<Int32>>.stride + walks.count * MemoryLayout<Double>.stride
            + walkHeads.count * MemoryLayout<Double>.stride
        return Double(bytes) / Double(arena.count)
    }
}
