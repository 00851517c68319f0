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
/// lies on the facing chain (the direction is within 22.5° of its normal cone). Every step is
/// checked: a start with no facing edge, a nearest point inside an edge that bridges a concave
/// pocket of the shell, or a walk around the whole hull falls back to measuring every edge.
extension FootprintIndex {
    /// Directions in which each part's extreme hull vertex is kept: eighths of the circle.
    static var hullDirections: Int { 8 }
    /// A footprint whose cap is wider than this is always measured edge by edge (the walk needs
    /// every vertex well in front of the query).
    static let hullCapLimitRadians = 5 * Double.pi / 180
    /// The walk runs for queries within 80° of the cap's center: every vertex is then within 85°,
    /// in front of the gnomonic plane as `GnomonicFrame.measureRing` requires.
    static var hullQueryLimitCosine: Double { 0.17364817766693041 }

    /// Place `footprint`'s walk record: its cap center, the east and north axes of the gnomonic
    /// frame about it (3 values each), its number of parts, then
    /// per part its hull's size m, its shell's vertex count, the hull position of the extreme
    /// vertex in each of the `hullDirections` directions (22.5° + 45° k from east in the frame
    /// about the cap center), and its hull's vertices counterclockwise, each as x, y, z and its
    /// index in the shell (increasing, the shell's order): everything a walk reads, in one run of
    /// memory. Nil when a part's hull cannot be walked: a footprint wider than
    /// `hullCapLimitRadians`, or a hull that does not follow its shell's order.
    static func walkRecord(of footprint: SphericalMultiPolygon) -> [Double]? {
        guard !footprint.hasSeams, footprint.cap.radiusRadians <= hullCapLimitRadians else { return nil }
        let center = footprint.cap.center
        let frame = GnomonicFrame(center: center)
        var record = [
            center.x, center.y, center.z, frame.east.x, frame.east.y, frame.east.z, frame.north.x, frame.north.y, frame.north.z,
            Double(footprint.parts.count),
        ]
        for part in footprint.parts {
            guard let hull = hull(of: part.shell, in: frame) else { return nil }
            record.append(Double(hull.order.count))
            record.append(Double(part.shell.count))
            for k in 0..<hullDirections {
                let angle = (Double(k) + 0.5) * 2 * Double.pi / Double(hullDirections)
                let direction = SIMD2(cos(angle), sin(angle))
                let extreme = hull.order.indices.max { a, b in
                    let (da, db) = ((hull.points[a] * direction).sum(), (hull.points[b] * direction).sum())
                    return da != db ? da < db : a > b
                }!
                record.append(Double(extreme))
            }
            for shellIndex in hull.order {
                let vertex = part.shell[shellIndex]
                record.append(vertex.x)
                record.append(vertex.y)
                record.append(vertex.z)
                record.append(Double(shellIndex))
            }
        }
        return record
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

    /// The eighth of the circle (counterclockwise from east, as `hullTable`'s directions) that
    /// the direction (dx, dy) falls in.
    @inline(__always)
    static func octant(_ dx: Double, _ dy: Double) -> Int {
        let (ax, ay) = (abs(dx), abs(dy))
        if dy >= 0 { return dx >= 0 ? (ay < ax ? 0 : 1) : (ay > ax ? 2 : 3) }
        return dx < 0 ? (ay < ax ? 4 : 5) : (ay > ax ? 6 : 7)
    }

    /// Place `index`'s footprint seen from the center of `frame`, a point outside its cap, by
    /// walking each part's hull: the squared tangent of the distance to the nearest edge, the
    /// value `measure` gives to within rounding; nil when the walk cannot vouch for its answer
    /// (or the footprint has no walk record).
    func measureOutside(_ index: Int, from frame: GnomonicFrame) -> Double? {
        let start = Int(walkStarts[index].x)
        guard start >= 0 else { return nil }
        return walks.withUnsafeBufferPointer { walks -> Double? in
            let record = walks.baseAddress! + start
            guard let octant = Self.octant(record, from: frame.center) else { return nil }
            var best = Double.infinity
            var part = record + Self.walkHeader
            for _ in 0..<Int(record[Self.walkHeader - 1]) {
                let m = Int(part[0])
                guard let nearest = Self.walk(part, from: Int(part[2 + octant]), in: frame) else { return nil }
                best = min(best, nearest)
                part += 2 + Self.hullDirections + 4 * m
            }
            return best
        }
    }

    /// The values of a walk record before its first part.
    static var walkHeader: Int { 10 }

    /// The eighth of the circle the direction to `query` from the cap center of `record` (a walk
    /// record) falls in, in the frame about the cap center; nil beyond `hullQueryLimitCosine`.
    @inline(__always)
    static func octant(_ record: UnsafePointer<Double>, from query: UnitVector) -> Int? {
        guard query.x * record[0] + query.y * record[1] + query.z * record[2] > hullQueryLimitCosine else { return nil }
        return octant(
            query.x * record[3] + query.y * record[4] + query.z * record[5], query.x * record[6] + query.y * record[7] + query.z * record[8]
        )
    }

    /// Where the walk of `record`'s first part from `query` starts: the vertex it reads first
    /// (the one before and after are read next).
    @inline(__always)
    static func walkStartVertex(_ record: UnsafePointer<Double>, from query: UnitVector) -> UnsafePointer<Double>? {
        guard let octant = octant(record, from: query) else { return nil }
        let part = record + walkHeader
        return part + 2 + hullDirections + 4 * Int(part[2 + octant])
    }

    /// The walk along one part's hull (`part`: its place in a walk record) from hull position
    /// `start`, both ways while the vertices come nearer: the squared distance from the origin of
    /// `frame` to the nearest point, nil when `start` faces away or the nearest point lies inside
    /// a bridge over a concave pocket.
    @inline(__always)
    static func walk(_ part: UnsafePointer<Double>, from start: Int, in frame: GnomonicFrame) -> Double? {
        let m = Int(part[0])
        let ringCount = Int(part[1])
        let vertices = part + 2 + hullDirections
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
