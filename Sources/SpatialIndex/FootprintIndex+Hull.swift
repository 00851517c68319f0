import Geodesy

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Measuring a footprint from outside through its shells' convex hulls, visiting a few vertices
/// instead of every edge.
///
/// From a point outside a part's convex hull, every nearest point of the part's boundary lies
/// on the hull when the hull's nearest point is a vertex or lies on an edge that is also one of
/// the shell's (the part lies within its hull, so nothing of it comes nearer; holes lie behind
/// the shell). In the gnomonic plane about the query, where every arc is a straight segment and
/// the distance from the origin grows with the distance on the sphere, the hull is a convex
/// polygon, and the distance to the chain of its edges that face the origin falls and then rises
/// along the chain (it is the largest of the functions hᵢ · sec(φ − φᵢ) over the edges' lines,
/// each log-convex in the ray's angle φ, so its logarithm is convex). A walk that starts at a
/// hull vertex on that chain and steps while the next vertex comes nearer therefore ends at the
/// nearest point.
///
/// The walk starts at the hull's extreme vertex in the direction of the query, one of eight
/// stored per part: seen from farther than 1.09 times the hull's reach from the cap's center it
/// lies on the facing chain (the direction is within 22.5° of its normal cone). Every walk is
/// checked: a start with no facing edge, or a nearest point inside an edge that bridges a concave
/// pocket of the shell, falls back to measuring every edge; no walk takes more steps than its hull
/// has vertices.
extension FootprintIndex {
    /// Directions in which each part's extreme hull vertex is kept: eighths of the circle.
    static var hullDirections: Int { 8 }
    /// A footprint whose cap is wider than this is always measured edge by edge (the walk needs
    /// every vertex well in front of the query).
    static let hullCapLimitRadians = 5 * Double.pi / 180
    /// The walk runs for queries within 80° of the cap's center: every vertex is then within 85°,
    /// in front of the gnomonic plane as `GnomonicFrame.measureRing` requires.
    static var hullQueryLimitCosine: Double { 0.17364817766693041 }

    /// Values in a walk head: one cache line.
    static var walkHeadValues: Int { 8 }

    /// Whether a footprint whose cap edge is `bound` meters away (as the tree ranks it) is walked:
    /// a query outside the cap by more than the cap's rounding is outside every part's hull.
    @inline(__always)
    static func isWalked(bound: Double) -> Bool { bound > 1e-3 }

    /// How many values past `base` the first cache-line boundary lies (where `walkHeads` start).
    @inline(__always)
    static func lineStart(_ base: UnsafePointer<Double>) -> Int {
        (walkHeadValues - Int(UInt(bitPattern: base) % 64) / MemoryLayout<Double>.stride) % walkHeadValues
    }

    /// Place `footprint`'s walk head and record.
    ///
    /// The head, one cache line per place (`walkHeads`), is what a query reads before the
    /// record: the cap center (3 values); where the record starts in `walks`; the first part's
    /// hull size m and shell vertex count (32 bits each, one value's bits); the number of parts;
    /// the first part's hull position of the extreme vertex in each of the `hullDirections`
    /// directions (16 bits each, four in each of the last two values' bits). The record holds
    /// per part its hull size, shell vertex count and the eight positions (`walkPartHeader`
    /// values), then its hull's vertices counterclockwise, each as x, y, z and its index in the
    /// shell (increasing: the shell's order). Directions are 22.5° + 45° k from east in the
    /// frame about the cap center. Nil when a part's hull cannot be walked: a footprint wider
    /// than `hullCapLimitRadians`, a hull of more than 65,535 vertices, or one that does not
    /// follow its shell's order.
    static func walkRecord(of footprint: SphericalMultiPolygon) -> (head: [Double], record: [Double])? {
        guard !footprint.hasSeams, footprint.cap.radiusRadians <= hullCapLimitRadians else { return nil }
        let center = footprint.cap.center
        let frame = GnomonicFrame(center: center)
        var record: [Double] = []
        var head = [center.x, center.y, center.z, 0, 0, Double(footprint.parts.count), 0, 0]
        for (index, part) in footprint.parts.enumerated() {
            guard let hull = hull(of: part.shell, in: frame), hull.order.count <= 0xFFFF, part.shell.count <= 0xFFFF_FFFF else {
                return nil
            }
            record.append(Double(hull.order.count))
            record.append(Double(part.shell.count))
            var starts: (UInt64, UInt64) = (0, 0)
            for (k, direction) in hullDirectionVectors.enumerated() {
                let extreme = hull.order.indices.max { a, b in
                    let (da, db) = ((hull.points[a] * direction).sum(), (hull.points[b] * direction).sum())
                    return da != db ? da < db : a > b
                }!
                record.append(Double(extreme))
                let bits = UInt64(extreme) << UInt64(16 * (k & 3))
                if k < 4 { starts.0 |= bits } else { starts.1 |= bits }
            }
            if index == 0 {
                head[4] = Double(bitPattern: UInt64(hull.order.count) | UInt64(part.shell.count) << 32)
                head[6] = Double(bitPattern: starts.0)
                head[7] = Double(bitPattern: starts.1)
            }
            for shellIndex in hull.order {
                let vertex = part.shell[shellIndex]
                record.append(vertex.x)
                record.append(vertex.y)
                record.append(vertex.z)
                record.append(Double(shellIndex))
            }
        }
        return (head, record)
    }

    /// The `hullDirections` directions, 22.5° + 45° k from east.
    static let hullDirectionVectors = (0..<8).map { k in
        let angle = (Double(k) + 0.5) * Double.pi / 4
        return SIMD2(cos(angle), sin(angle))
    }

    /// Values before a part's hull vertices in a walk record.
    static var walkPartHeader: Int { 2 + hullDirections }

    /// The eighth of the circle the direction to `query` from `center` falls in, in the frame
    /// about `center` (the order of `hullDirections`); nil beyond `hullQueryLimitCosine`. The
    /// frame's axes are `GnomonicFrame`'s, unnormalized: the same directions.
    @inline(__always)
    static func octant(of query: UnitVector, from center: UnitVector) -> Int? {
        guard query.dot(center) > hullQueryLimitCosine else { return nil }
        let east = GnomonicFrame.unnormalizedEast(of: center)
        return octant(query.dot(east), query.dot(center.cross(east)))
    }

    /// The convex hull of `shell` in `frame`: its vertices as indices into the shell, increasing
    /// (counterclockwise, as the shell), and their images. Collinear vertices are left out (an
    /// edge through one then joins two shell vertices that are not neighbors, and is treated as
    /// a bridge). Nil for a vertex behind the frame or a hull that does not follow the shell's
    /// order.
    static func hull(of shell: [UnitVector], in frame: GnomonicFrame) -> (order: [Int], points: [SIMD2<Double>])? {
        var points: [SIMD2<Double>] = []
        points.reserveCapacity(shell.count)
        for vertex in shell {
            guard let point = frame.project(vertex) else { return nil }
            points.append(point)
        }
        // Andrew's monotone chain: the lower hull left to right, then the upper right to left.
        let order = points.indices.sorted { a, b in
            points[a].x != points[b].x ? points[a].x < points[b].x : points[a].y < points[b].y
        }
        func turn(_ o: Int, _ a: Int, _ b: Int) -> Double {
            let u = points[a] - points[o], v = points[b] - points[o]
            return u.x * v.y - u.y * v.x
        }
        func chain(_ indices: [Int]) -> [Int] {
            var chain: [Int] = []
            for i in indices {
                while chain.count >= 2, turn(chain[chain.count - 2], chain[chain.count - 1], i) <= 0 { chain.removeLast() }
                chain.append(i)
            }
            return chain.dropLast()
        }
        var hull = chain(order) + chain(order.reversed())
        guard hull.count >= 3 else { return nil }
        // Counterclockwise from the shell's first hull vertex: the shell indices must increase.
        let first = hull.indices.min { hull[$0] < hull[$1] }!
        hull = Array(hull[first...] + hull[..<first])
        guard zip(hull, hull.dropFirst()).allSatisfy({ $0 < $1 }) else { return nil }
        return (hull, hull.map { points[$0] })
    }

    /// The eighth of the circle (counterclockwise from east, as `hullDirectionVectors`) that the
    /// direction (dx, dy) falls in.
    @inline(__always)
    static func octant(_ dx: Double, _ dy: Double) -> Int {
        // The quadrant counterclockwise from east, then its half: in the first and third the
        // first half is the flatter, in the second and fourth the steeper. Without branches
        // (the direction to each candidate is anyone's guess).
        let below = dy < 0 ? 1 : 0, west = dx < 0 ? 1 : 0
        let quadrant = below << 1 | (below ^ west)
        let steep = abs(dy) >= abs(dx) ? 1 : 0
        return quadrant << 1 | (steep ^ (quadrant & 1))
    }

    /// Place `index`'s footprint seen from the center of `frame`, a point outside its cap, by
    /// walking each part's hull: the squared tangent of the distance to the nearest edge, the
    /// value `measure` gives to within rounding; nil when the walk cannot vouch for its answer
    /// (or the footprint has no walk record).
    func measureOutside(_ index: Int, from frame: GnomonicFrame) -> Double? {
        withWalkHeads { heads in
            let head = heads + Self.walkHeadValues * index
            guard head[3] >= 0, let octant = Self.octant(of: frame.center, from: UnitVector(x: head[0], y: head[1], z: head[2])) else {
                return nil
            }
            return walks.withUnsafeBufferPointer { walks -> Double? in
                let sizes = head[4].bitPattern
                var part = walks.baseAddress! + Int(head[3])
                guard
                    var best = Self.walk(
                        part + Self.walkPartHeader, count: Int(truncatingIfNeeded: sizes & 0xFFFF_FFFF),
                        ringCount: Int(truncatingIfNeeded: sizes >> 32), from: Self.walkStart(head, octant), in: frame)
                else { return nil }
                for _ in 1..<max(1, Int(head[5])) {
                    part += Self.walkPartHeader + 4 * Int(part[0])
                    guard
                        let nearest = Self.walk(
                            part + Self.walkPartHeader, count: Int(part[0]), ringCount: Int(part[1]), from: Int(part[2 + octant]), in: frame
                        )
                    else { return nil }
                    best = min(best, nearest)
                }
                return best
            }
        }
    }

    /// The first part's hull position the walk starts at from `octant` (`head`: a walk head).
    @inline(__always)
    static func walkStart(_ head: UnsafePointer<Double>, _ octant: Int) -> Int {
        Int(truncatingIfNeeded: (octant < 4 ? head[6] : head[7]).bitPattern >> UInt64(16 * (octant & 3)) & 0xFFFF)
    }

    /// Where the walk of a footprint's first part from `query` starts (`head`: its walk head):
    /// the offset in `walks` of the vertex it reads first (the one before and after are read
    /// next).
    @inline(__always)
    static func walkStartOffset(_ head: UnsafePointer<Double>, from query: UnitVector) -> Int? {
        guard head[3] >= 0, let octant = octant(of: query, from: UnitVector(x: head[0], y: head[1], z: head[2])) else { return nil }
        return Int(head[3]) + walkPartHeader + 4 * walkStart(head, octant)
    }

    /// The walk heads (`walkHeads`) from their first cache-line boundary, each place's
    /// `walkHeadValues` values from `walkHeadValues` times its index.
    @inline(__always)
    func withWalkHeads<R>(_ body: (UnsafePointer<Double>) -> R) -> R {
        walkHeads.withUnsafeBufferPointer { buffer in body(buffer.baseAddress! + Self.lineStart(buffer.baseAddress!)) }
    }

    /// The walk along one part's hull (`vertices`: its `count` hull vertices in a walk record, of
    /// a shell of `ringCount`) from hull position `start`, both ways while the vertices come
    /// nearer: the squared distance from the origin of `frame` to the nearest point, nil when
    /// `start` faces away or the nearest point lies inside a bridge over a concave pocket.
    @inline(__always)
    static func walk(
        _ vertices: UnsafePointer<Double>, count m: Int, ringCount: Int, from start: Int, in frame: GnomonicFrame
    ) -> Double? {
        let (c, e, n) = (frame.center, frame.east, frame.north)
        @inline(__always) func image(_ position: Int) -> SIMD2<Double> {
            let v = vertices + 4 * position
            let inverse = 1 / (v[0] * c.x + v[1] * c.y + v[2] * c.z)
            return SIMD2((v[0] * e.x + v[1] * e.y + v[2] * e.z) * inverse, (v[0] * n.x + v[1] * n.y + v[2] * n.z) * inverse)
        }
        // The squared distance from the origin to the segment from p to q (as `measureRing`).
        @inline(__always) func segment(_ p: SIMD2<Double>, _ q: SIMD2<Double>) -> Double {
            let d = q - p
            let along = -(p.x * d.x + p.y * d.y)
            let length = d.x * d.x + d.y * d.y
            if along <= 0 { return p.x * p.x + p.y * p.y }
            if along >= length { return q.x * q.x + q.y * q.y }
            let cross = p.x * q.y - p.y * q.x
            return cross * cross / length
        }
        // An edge between neighbors on the hull joins neighbors on the shell, or bridges a pocket.
        @inline(__always) func isShellEdge(_ from: Int, _ to: Int) -> Bool {
            let step = Int(vertices[4 * to + 3]) - Int(vertices[4 * from + 3])
            return step == 1 || step == 1 - ringCount
        }
        let origin = image(start)
        var best = (origin * origin).sum()
        var bridged = Double.infinity
        var faced = false
        // One edge, p at hull position `from` before q at `to`: false when it faces away from the
        // origin (the origin on its inner, left side), past the end of the facing chain.
        @inline(__always) func measure(_ from: Int, _ p: SIMD2<Double>, _ to: Int, _ q: SIMD2<Double>) -> Bool {
            guard p.x * q.y - p.y * q.x < 0 else { return false }
            faced = true
            let distance = segment(p, q)
            if isShellEdge(from, to) {
                best = min(best, distance)
            } else {
                best = min(best, (q * q).sum(), (p * p).sum())
                bridged = min(bridged, distance)
            }
            return true
        }
        var (position, point, squared) = (start, origin, best)
        for _ in 0..<m {
            let next = position + 1 == m ? 0 : position + 1
            let following = image(next)
            guard measure(position, point, next, following) else { break }
            let nextSquared = (following * following).sum()
            if nextSquared >= squared { break }
            (position, point, squared) = (next, following, nextSquared)
        }
        (position, point, squared) = (start, origin, (origin * origin).sum())
        for _ in 0..<m {
            let previous = position == 0 ? m - 1 : position - 1
            let preceding = image(previous)
            guard measure(previous, preceding, position, point) else { break }
            let previousSquared = (preceding * preceding).sum()
            if previousSquared >= squared { break }
            (position, point, squared) = (previous, preceding, previousSquared)
        }
        guard faced, bridged >= best else { return nil }
        return best
    }
}
