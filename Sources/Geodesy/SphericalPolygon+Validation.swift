#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The checks a polygon's rings pass before it is accepted, in the gnomonic plane about its cap
/// (where every edge is a straight segment), in O(n log n) for n edges over every ring.
///
/// The rules (OGC Simple Features' for a polygon, with the contact between rings at vertices):
/// - Two edges of one ring meet only if they are neighbors, at their shared vertex, without
///   overlapping.
/// - Edges of two rings meet only at a vertex of both (the same position in both rings), without
///   overlapping, and the rings do not cross there: a hole may touch the shell, or another hole,
///   at one vertex (as OpenStreetMap's multipolygons often do).
/// - The rings touch without closing a loop: two rings touching at two points, or three rings
///   touching one another at three, cut the interior apart.
/// - Every hole lies inside the shell and outside every other hole.
///
/// Every test is exact: orientations by `orientationSign` (exact for any finite coordinates),
/// positions compared as stored. A ring's vertex lying on another ring's edge other than at a
/// vertex of that ring is a crossing: in floating point such a contact is a rounding away from a
/// crossing or a gap.
extension SphericalPolygon {
    /// The most vertices (distinct positions) one ring may have: 10,000. OpenStreetMap's largest
    /// buildings and site outlines have a few thousand (its ways hold at most 2,000 nodes), and
    /// a footprint's edge is measured from every report near it, edge by edge.
    public static let maximumRingVertices = 10_000
    /// The most vertices a polygon, or a footprint over all its parts, may have: 20,000.
    public static let maximumVertices = 20_000
    /// A ring narrower than this on average (twice its area over its perimeter), meters, has no
    /// area: collinear positions on a great circle, a ring folded onto itself. Nobody can be
    /// inside it, and its orientation is rounding. A ring with an edge along the antimeridian (a
    /// piece of a shape cut there, RFC 7946 §3.1.9, which may be as thin as the cut leaves it) has
    /// no area only when it is flat to a micrometer.
    public static let minimumMeanWidthMeters = 0.001

    /// Whether a ring (open, in the gnomonic plane, `twiceArea` its signed area's double; its
    /// vertices `vectors`) has no area: narrower on average than `minimumMeanWidthMeters`, and
    /// not because lobes wound both ways cancel (a figure eight, which the sweep refuses as
    /// crossing itself: the triangles of the fan from its first vertex, unsigned, are as thin);
    /// or its positions collinear in longitude and latitude, as GeoJSON sees them
    /// (`isFlatInLongitudeAndLatitude`).
    static func hasNoArea(_ ring: [SIMD2<Double>], twiceArea: Double, vectors: [UnitVector]) -> Bool {
        var perimeter = 0.0
        for i in ring.indices {
            let d = ring[(i + 1) % ring.count] - ring[i]
            perimeter += (d * d).sum().squareRoot()
        }
        // A vertex on the antimeridian has y 0 and x < 0 as read (`SphericalMultiPolygon`).
        func onCut(_ v: UnitVector) -> Bool { v.x < 0 && abs(v.y) <= 1e-12 * abs(v.x) }
        let seam = vectors.indices.contains { onCut(vectors[$0]) && onCut(vectors[($0 + 1) % vectors.count]) }
        let limit = (seam ? 1e-6 : minimumMeanWidthMeters) / Earth.meanRadiusMeters * perimeter
        if abs(twiceArea) < limit {
            var unsigned = 0.0
            for i in 1..<(ring.count - 1) {
                let (a, b) = (ring[i] - ring[0], ring[i + 1] - ring[0])
                unsigned += abs(a.x * b.y - a.y * b.x)
            }
            if unsigned < limit { return true }
        }
        return isFlatInLongitudeAndLatitude(vectors)
    }

    /// Whether a ring's positions are collinear in longitude and latitude, RFC 7946's plane: in
    /// that plane about its first position (longitudes the short way across ±180°, scaled by the
    /// cosine of its latitude, which keeps a line a line; a ring around a pole has no such plane
    /// and is not flat in it), its area and the unsigned triangles of
    /// the fan from that position within 10⁻⁹ of its perimeter squared. GeoJSON draws such a
    /// ring as a line; on the sphere it is a sliver L² · tan(φ) / (8R) wide (5.7 cm for 1.3 km at
    /// 60°), which nobody drew.
    static func isFlatInLongitudeAndLatitude(_ vectors: [UnitVector]) -> Bool {
        let degrees = 180 / Double.pi
        func position(_ v: UnitVector) -> (longitude: Double, latitude: Double) {
            (atan2(v.y, v.x) * degrees, asin(max(-1, min(1, v.z))) * degrees)
        }
        let positions = vectors.map(position)
        // A ring around a pole (its longitude turning a full circle) has no such plane.
        var turn = 0.0
        for i in positions.indices {
            var step = positions[(i + 1) % positions.count].longitude - positions[i].longitude
            step -= 360 * (step / 360).rounded()
            turn += step
        }
        guard abs(turn) < 180 else { return false }
        let origin = positions[0]
        let scale = cos(origin.latitude / degrees)
        let points = positions.map { p -> SIMD2<Double> in
            var east = p.longitude - origin.longitude
            east -= 360 * (east / 360).rounded()
            return SIMD2(east * scale, p.latitude - origin.latitude)
        }
        var (area, unsigned, perimeter) = (0.0, 0.0, 0.0)
        for i in points.indices {
            let (a, b) = (points[i], points[(i + 1) % points.count])
            let cross = a.x * b.y - a.y * b.x
            area += cross
            unsigned += abs(cross)
            perimeter += ((b - a) * (b - a)).sum().squareRoot()
        }
        let limit = 1e-9 * perimeter * perimeter
        return abs(area) <= limit && unsigned <= limit
    }

    /// What `validate` did: pairs of edges tested for contact, edges compared for their order in
    /// the sweep, how many edges the sweep held at most.
    struct ValidationCounts {
        var pairTests = 0
        var orderTests = 0
        var largestStatus = 0
    }

    /// Checks oriented, closed planar rings (the shell counterclockwise first, then the holes
    /// clockwise, each with its first vertex repeated at the end, no two consecutive vertices
    /// equal) against the rules above.
    ///
    /// A Shamos–Hoey sweep over the vertices in (x, y) order keeps the edges the sweep line
    /// crosses in order: an edge is tested against its neighbors when it enters and when an edge
    /// between them leaves, which finds a forbidden contact if there is one (the leftmost makes
    /// its two edges neighbors before the sweep reaches it). The same sweep finds each ring's
    /// nearest ring below at its first vertex, and so which ring encloses it. The contacts at
    /// shared vertices are then checked one by one.
    ///
    /// - Throws: `PolygonError.selfIntersection`, `.ringsCross` (a forbidden contact; rings that
    ///   cross at a shared vertex), `.disconnectedInterior`, `.holeOutsideShell`, `.nestedHoles`,
    ///   in that order of precedence.
    /// - Complexity: O(n log n) comparisons for n edges, plus moving the sweep's array of the
    ///   edges it crosses at each insertion (a few hundred for rings of thousands of vertices).
    static func validate(_ planar: [[SIMD2<Double>]], counts: inout ValidationCounts) throws(PolygonError) {
        var sweep = RingSweep(planar)
        if let (a, b) = sweep.run(counts: &counts) {
            let (first, second) = (sweep.edges[a], sweep.edges[b])
            if first.ring == second.ring {
                throw .selfIntersection(
                    ring: Int(first.ring), firstEdge: Int(min(first.index, second.index)), secondEdge: Int(max(first.index, second.index)))
            }
            throw .ringsCross(ring: Int(max(first.ring, second.ring)), other: Int(min(first.ring, second.ring)))
        }
        try checkSharedVertices(planar)
        for hole in planar.indices.dropFirst() {
            switch sweep.parents[hole] {
            case 0: continue
            case -1: throw .holeOutsideShell(ring: hole)
            case let other: throw .nestedHoles(ring: max(hole, other), other: min(hole, other))
            }
        }
        // The shell inside a hole: that hole is not inside the shell.
        if sweep.parents[0] > 0 { throw .holeOutsideShell(ring: sweep.parents[0]) }
    }

    /// The contacts the sweep does not see, positions that two edges share as an end of each (an
    /// edge ending where another begins is never beside it in the sweep): a ring passing twice
    /// through one position touches itself; two rings sharing one must not cross there, and must
    /// not close a loop of touching rings (rings and shared positions as the nodes of a graph,
    /// each ring joined to the positions it passes through: a cycle is a piece of the interior
    /// cut off).
    static func checkSharedVertices(_ planar: [[SIMD2<Double>]]) throws(PolygonError) {
        var first: [SIMD2<Double>: Int] = [:]
        first.reserveCapacity(planar.reduce(0) { $0 + $1.count })
        var shared: [SIMD2<Double>: [(ring: Int, index: Int)]] = [:]
        for (r, ring) in planar.enumerated() {
            for i in 0..<(ring.count - 1) {
                let point = ring[i]
                if let seen = first[point] {
                    // Not neighbors: consecutive positions differ, the first and the last too.
                    if seen >> 32 == r { throw .selfIntersection(ring: r, firstEdge: seen & 0xFFFF_FFFF, secondEdge: i) }
                    shared[point, default: [(seen >> 32, seen & 0xFFFF_FFFF)]].append((r, i))
                } else {
                    first[point] = r << 32 | i
                }
            }
        }
        guard !shared.isEmpty else { return }
        // In (x, y) order: the same error whatever the dictionary's order.
        let points = shared.keys.sorted { $0.x != $1.x ? $0.x < $1.x : $0.y < $1.y }
        for point in points {
            guard let rings = shared[point] else { continue }
            for j in rings.indices {
                for k in rings.indices where k > j {
                    let (a, b) = (rings[j], rings[k])
                    if crossAtSharedVertex(planar[a.ring], a.index, planar[b.ring], b.index) {
                        throw .ringsCross(ring: max(a.ring, b.ring), other: min(a.ring, b.ring))
                    }
                }
            }
        }
        var parent = Array(0..<(planar.count + points.count))
        func root(_ node: Int) -> Int {
            var node = node
            while parent[node] != node {
                parent[node] = parent[parent[node]]
                node = parent[node]
            }
            return node
        }
        for (p, point) in points.enumerated() {
            guard let rings = shared[point] else { continue }
            let node = planar.count + p
            for (ring, _) in rings {
                let (a, b) = (root(ring), root(node))
                guard a != b else { throw .disconnectedInterior(ring: max(ring, rings[0].ring), other: min(ring, rings[0].ring)) }
                parent[a] = b
            }
        }
    }

    /// Whether ring `b` (closed, its vertex `j`) crosses ring `a` (its vertex `i`) at that
    /// vertex, which both pass through: one of `b`'s edges from it leaves into each of the two
    /// angles `a`'s edges make there. Neither edge of `b` runs along one of `a`'s (the sweep
    /// refuses that overlap first).
    static func crossAtSharedVertex(_ a: [SIMD2<Double>], _ i: Int, _ b: [SIMD2<Double>], _ j: Int) -> Bool {
        let v = a[i]
        let (u, w) = (a[i == 0 ? a.count - 2 : i - 1], a[i + 1])
        // Whether the direction to d lies strictly inside the angle from u counterclockwise to w.
        func inside(_ d: SIMD2<Double>) -> Bool {
            let uw = orientationSign(v, u, w)
            let ud = orientationSign(v, u, d)
            let dw = orientationSign(v, d, w)
            if uw > 0 { return ud > 0 && dw > 0 }
            if uw < 0 { return ud > 0 || dw > 0 }
            // u and w opposite: the angle is the half-plane left of u.
            return ud > 0
        }
        return inside(b[j == 0 ? b.count - 2 : j - 1]) != inside(b[j + 1])
    }

    /// The sign of the orientation of `c` from the line `a` → `b` (1 left, −1 right, 0 on it),
    /// exact: the determinant (b − a) × (c − a) in floating point when it is larger than its
    /// rounding error can be (Shewchuk's bound for orient2d, (3 + 16ε) ε times the sum of the two
    /// products' magnitudes, ε = 2⁻⁵³), else as the exact sum of the products of the
    /// differences' error-free parts (Shewchuk 1997, *Adaptive precision floating-point
    /// arithmetic and fast robust geometric predicates*).
    @inline(__always)
    static func orientationSign(_ a: SIMD2<Double>, _ b: SIMD2<Double>, _ c: SIMD2<Double>) -> Int {
        let left = (b.x - a.x) * (c.y - a.y)
        let right = (b.y - a.y) * (c.x - a.x)
        let determinant = left - right
        let bound = 3.3306690738754716e-16 * (abs(left) + abs(right))
        if determinant > bound { return 1 }
        if -determinant > bound { return -1 }
        return exactOrientationSign(a, b, c)
    }

    /// `orientationSign` without rounding: each difference as a sum of two doubles (Knuth's
    /// two-sum), each product of parts as two (fused multiply-add), their 16 terms summed into a
    /// nonoverlapping expansion whose largest term has the sign of the sum.
    @inline(never)
    static func exactOrientationSign(_ a: SIMD2<Double>, _ b: SIMD2<Double>, _ c: SIMD2<Double>) -> Int {
        func difference(_ x: Double, _ y: Double) -> (Double, Double) {
            let s = x - y
            let virtual = x - s
            return (s, (x - (s + virtual)) + (virtual - y))
        }
        func sum(_ x: Double, _ y: Double) -> (Double, Double) {
            let s = x + y
            let virtual = s - x
            return (s, (x - (s - virtual)) + (y - virtual))
        }
        let (bx, bxe) = difference(b.x, a.x)
        let (cy, cye) = difference(c.y, a.y)
        let (by, bye) = difference(b.y, a.y)
        let (cx, cxe) = difference(c.x, a.x)
        var terms: [Double] = []
        terms.reserveCapacity(16)
        for (x, y, sign) in [
            (bx, cy, 1.0), (bx, cye, 1), (bxe, cy, 1), (bxe, cye, 1), (by, cx, -1), (by, cxe, -1), (bye, cx, -1), (bye, cxe, -1),
        ] {
            // x · y exactly: the rounded product and its error, by a fused multiply-add.
            let product = x * y
            terms.append(sign * product)
            terms.append(sign * (-product).addingProduct(x, y))
        }
        // Shewchuk's grow-expansion: adding each term keeps the expansion's components
        // nonoverlapping, in increasing magnitude, the last the largest.
        var expansion: [Double] = []
        expansion.reserveCapacity(32)
        for term in terms {
            var carry = term
            var grown: [Double] = []
            grown.reserveCapacity(expansion.count + 1)
            for component in expansion {
                let (s, error) = sum(carry, component)
                if error != 0 { grown.append(error) }
                carry = s
            }
            if carry != 0 { grown.append(carry) }
            expansion = grown
        }
        guard let largest = expansion.last else { return 0 }
        return largest > 0 ? 1 : -1
    }
}

/// The sweep `SphericalPolygon.validate` runs: every ring's edges, the events at their ends in
/// (x, y) order, and the edges the sweep line crosses, bottom to top.
struct RingSweep {
    /// One edge, its ends in (x, y) order, and where it comes from.
    struct Edge {
        var left: SIMD2<Double>
        var right: SIMD2<Double>
        var ring: Int32
        var index: Int32
        /// Whether the ring runs from `left` to `right` along it.
        var forward: Bool
        /// The ring's vertex count.
        var ringCount: Int32
    }

    let edges: [Edge]
    /// Per ring, its lowest vertex in (x, y) order, that vertex's index, where its edges begin
    /// in `edges`; the rings in the order of their lowest vertices.
    let ringStarts: [SIMD2<Double>]
    let lowestVertices: [Int]
    let ringBases: [Int]
    let ringOrder: [Int]
    /// Per ring, the ring directly enclosing it (found by `run`), -1 for none.
    var parents: [Int]
    /// The edges the sweep line crosses, bottom to top.
    var status: [Int32] = []

    init(_ planar: [[SIMD2<Double>]]) {
        var edges: [Edge] = []
        edges.reserveCapacity(planar.reduce(0) { $0 + $1.count - 1 })
        var starts: [SIMD2<Double>] = []
        var lowestVertices: [Int] = []
        var bases: [Int] = []
        for (r, ring) in planar.enumerated() {
            bases.append(edges.count)
            let count = Int32(ring.count - 1)
            var lowest = 0
            for i in 0..<(ring.count - 1) {
                let (p, q) = (ring[i], ring[i + 1])
                let forward = Self.precedes(p, q)
                edges.append(
                    Edge(left: forward ? p : q, right: forward ? q : p, ring: Int32(r), index: Int32(i), forward: forward, ringCount: count)
                )
                if Self.precedes(p, ring[lowest]) { lowest = i }
            }
            starts.append(ring[lowest])
            lowestVertices.append(lowest)
        }
        self.edges = edges
        ringStarts = starts
        self.lowestVertices = lowestVertices
        ringBases = bases
        ringOrder = starts.indices.sorted { Self.precedes(starts[$0], starts[$1]) || (starts[$0] == starts[$1] && $0 < $1) }
        parents = Array(repeating: -1, count: planar.count)
    }

    /// The sweep's order of points: by x, then by y.
    @inline(__always)
    static func precedes(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Bool { a.x < b.x || (a.x == b.x && a.y < b.y) }

    /// Where an edge lies from another in the sweep's order, or that they touch.
    enum Side { case below, above, contact }

    /// Edge `s`, entering at its left end, against `t`, in the sweep: by the side of `t` its left
    /// end lies on, or for two edges from the same point, its right end. `t` crosses the sweep
    /// line there (it began before or at that point and ends after it).
    @inline(__always)
    func entering(_ s: Int, against t: Int) -> Side { side(of: s, against: t, atLeftEnd: true) }

    /// Edge `s`, leaving at its right end, against `t`, in the sweep: by the side of `t` its right
    /// end lies on, or for two edges to the same point, its left end.
    @inline(__always)
    func leaving(_ s: Int, against t: Int) -> Side { side(of: s, against: t, atLeftEnd: false) }

    /// Edge `s` against `t` at one end of `s` (`atLeftEnd`, else its right end): the side of `t`
    /// that end lies on; when it lies on `t`'s line at `t`'s end of the same side, the side of
    /// `s`'s other end; otherwise on `t`, a contact.
    @inline(__always)
    func side(of s: Int, against t: Int, atLeftEnd: Bool) -> Side {
        let (a, b) = (edges[s], edges[t])
        let (near, far) = atLeftEnd ? (a.left, a.right) : (a.right, a.left)
        let side = SphericalPolygon.orientationSign(b.left, b.right, near)
        if side != 0 { return side > 0 ? .above : .below }
        guard near == (atLeftEnd ? b.left : b.right) else { return .contact }
        let turn = SphericalPolygon.orientationSign(b.left, b.right, far)
        return turn == 0 ? .contact : turn > 0 ? .above : .below
    }

    /// Where edge `s` goes in (or is in) `status`, by binary search with `side`; the edge it
    /// touches instead, if the search meets one.
    func search(
        _ s: Int, by side: (Int, Int) -> Side, counts: inout SphericalPolygon.ValidationCounts
    ) -> (position: Int, touching: Int?) {
        var (low, high) = (0, status.count)
        while low < high {
            let middle = (low + high) / 2
            let t = Int(status[middle])
            if t == s { return (middle, nil) }
            counts.orderTests += 1
            switch side(s, t) {
            case .above: low = middle + 1
            case .below: high = middle
            case .contact: return (middle, t)
            }
        }
        return (low, nil)
    }

    /// Whether edges `a` and `b` meet where the rules forbid: anywhere for two edges of one ring
    /// that are not neighbors; elsewhere than at one shared end, or along a stretch, for others.
    func forbidden(_ a: Int, _ b: Int, counts: inout SphericalPolygon.ValidationCounts) -> Bool {
        counts.pairTests += 1
        let (s, t) = (edges[a], edges[b])
        // Bounding boxes first: exact, and most neighbors in the sweep are apart.
        if s.right.x < t.left.x || t.right.x < s.left.x { return false }
        if max(s.left.y, s.right.y) < min(t.left.y, t.right.y) || max(t.left.y, t.right.y) < min(s.left.y, s.right.y) { return false }
        let d1 = SphericalPolygon.orientationSign(t.left, t.right, s.left)
        let d2 = SphericalPolygon.orientationSign(t.left, t.right, s.right)
        let d3 = SphericalPolygon.orientationSign(s.left, s.right, t.left)
        let d4 = SphericalPolygon.orientationSign(s.left, s.right, t.right)
        if d1 * d2 < 0 && d3 * d4 < 0 { return true }
        // Collinear ends within the other's box lie on it (the boxes overlap).
        func within(_ e: Edge, _ p: SIMD2<Double>) -> Bool {
            e.left.x <= p.x && p.x <= e.right.x && min(e.left.y, e.right.y) <= p.y && p.y <= max(e.left.y, e.right.y)
        }
        let touch =
            (d1 == 0 && within(t, s.left)) || (d2 == 0 && within(t, s.right)) || (d3 == 0 && within(s, t.left))
            || (d4 == 0 && within(s, t.right))
        guard touch else { return false }
        if s.ring == t.ring {
            let step = abs(s.index - t.index)
            guard step == 1 || step == s.ringCount - 1 else { return true }
        }
        // Allowed only at one shared end, the other ends not on one ray from it.
        let shared: (SIMD2<Double>, SIMD2<Double>, SIMD2<Double>)
        if s.left == t.left {
            shared = (s.left, s.right, t.right)
        } else if s.left == t.right {
            shared = (s.left, s.right, t.left)
        } else if s.right == t.left {
            shared = (s.right, s.left, t.right)
        } else if s.right == t.right {
            shared = (s.right, s.left, t.left)
        } else {
            return true
        }
        let (v, p, q) = shared
        return SphericalPolygon.orientationSign(v, p, q) == 0 && Self.precedes(v, p) == Self.precedes(v, q)
    }

    /// Sweeps the edges: the first forbidden contact found (two edges), nil when there is none,
    /// and then `parents` set.
    mutating func run(counts: inout SphericalPolygon.ValidationCounts) -> (Int, Int)? {
        // Events: 2 g leaves at edge g's right end, 2 g + 1 enters at its left end; at one point,
        // leaving first.
        let events = (0..<(2 * edges.count)).sorted { e, f in
            let p = e & 1 == 0 ? edges[e >> 1].right : edges[e >> 1].left
            let q = f & 1 == 0 ? edges[f >> 1].right : edges[f >> 1].left
            if p != q { return Self.precedes(p, q) }
            return e & 1 != f & 1 ? e & 1 == 0 : e < f
        }
        var nextRing = 0
        var start = 0
        while start < events.count {
            let e = events[start]
            let point = e & 1 == 0 ? edges[e >> 1].right : edges[e >> 1].left
            var end = start
            while end < events.count {
                let f = events[end]
                guard (f & 1 == 0 ? edges[f >> 1].right : edges[f >> 1].left) == point else { break }
                end += 1
            }
            for f in events[start..<end] {
                let g = f >> 1
                if f & 1 == 0 {
                    var (position, touching) = search(g, by: leaving, counts: &counts)
                    if let touching { return (g, touching) }
                    if position >= status.count || status[position] != Int32(g) {
                        // Not where the order puts it: a contact the sweep passed (cannot happen
                        // with exact orientations); found by looking.
                        guard let found = status.firstIndex(of: Int32(g)) else { continue }
                        position = found
                    }
                    status.remove(at: position)
                    if position > 0, position < status.count, forbidden(Int(status[position - 1]), Int(status[position]), counts: &counts) {
                        return (Int(status[position - 1]), Int(status[position]))
                    }
                } else {
                    let (position, touching) = search(g, by: entering, counts: &counts)
                    if let touching { return (g, touching) }
                    status.insert(Int32(g), at: position)
                    counts.largestStatus = max(counts.largestStatus, status.count)
                    if position > 0, forbidden(Int(status[position - 1]), g, counts: &counts) { return (Int(status[position - 1]), g) }
                    if position + 1 < status.count, forbidden(g, Int(status[position + 1]), counts: &counts) {
                        return (g, Int(status[position + 1]))
                    }
                }
            }
            // The rings whose lowest vertex this is, bottom to top: each inside the ring of the
            // edge just below it when that ring's inside lies above that edge, else beside that
            // ring, inside what encloses it.
            var starting: [(position: Int, ring: Int)] = []
            while nextRing < ringOrder.count, ringStarts[ringOrder[nextRing]] == point {
                let ring = ringOrder[nextRing]
                nextRing += 1
                // Its two edges from that vertex, both entering here.
                let (base, vertex) = (ringBases[ring], lowestVertices[ring])
                let count = Int(edges[base].ringCount)
                let lowest = min(
                    search(base + vertex, by: entering, counts: &counts).position,
                    search(base + (vertex + count - 1) % count, by: entering, counts: &counts).position)
                starting.append((lowest, ring))
            }
            for (position, ring) in starting.sorted(by: { $0.position < $1.position }) where position > 0 {
                let below = edges[Int(status[position - 1])]
                let insideAbove = below.forward == (below.ring == 0)
                parents[ring] = insideAbove ? Int(below.ring) : parents[Int(below.ring)]
            }
            start = end
        }
        return nil
    }
}
