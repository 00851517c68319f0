#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A polygon on the sphere: one outer ring (the shell) and any number of holes, each edge the
/// great-circle arc between two vertices, the whole within an open hemisphere.
///
/// Everything is computed from unit vectors, with no longitude unwrapping: a polygon across the
/// antimeridian or around a pole needs nothing special. Containment and orientation use the
/// gnomonic projection about the polygon's enclosing cap's center, which maps every great circle
/// to a straight line, so the planar crossing test there is exact for great-circle edges; the
/// distance to the boundary is the exact great-circle distance to the nearest edge.
///
/// Great-circle edges differ from the straight lon/lat edges RFC 7946 describes by about
/// L² · tan(φ) / (8 R) at the middle of an edge of length L at latitude φ: 2 mm for 300 m and
/// 2 cm for 1 km at 45°, 2 m for 10 km. rotate uses great circles, the shortest path on the
/// Earth, as it does for circles.
public struct SphericalPolygon: Hashable, Sendable {
    /// The shell's vertices, counterclockwise seen from outside the sphere (the interior on the
    /// left), the closing vertex not repeated.
    public let shell: [UnitVector]
    /// Each hole's vertices, clockwise, the closing vertex not repeated.
    public let holes: [[UnitVector]]
    /// A cap that contains the polygon (`SphericalCap.enclosing(_:)` of the shell's vertices: a
    /// cap of less than 90° contains the arcs between points it contains, and the holes lie in
    /// the shell).
    public let cap: SphericalCap
    /// The gnomonic frame about the cap's center.
    let frame: GnomonicFrame
    /// Each ring's vertices in that frame (shell first), the first repeated at the end.
    let planar: [[SIMD2<Double>]]
    /// The shell and the holes, in that order (the same arrays).
    let rings: [[UnitVector]]
    /// Every ring's vertices one after another (shell first), and where each ring ends in it:
    /// what `measure` walks without an array per ring.
    let flat: [UnitVector]
    let ringEnds: [Int]

    /// A polygon from rings of coordinates, each closed (its last position equal to its first) or
    /// not; repeated consecutive positions are dropped. Rings wound either way are reoriented.
    ///
    /// The rings must form a valid polygon (`SphericalPolygon+Validation.swift` has the rules): no
    /// ring crosses or touches itself; rings meet only at shared vertices, without crossing
    /// there, a hole touching the shell or another hole at one vertex at most; every hole lies
    /// inside the shell and outside the other holes. The checks take O(n log n) for n vertices.
    ///
    /// - Throws: `PolygonError`: a ring with fewer than 3 distinct positions, more than
    ///   `maximumRingVertices`, or with no area (narrower than `minimumMeanWidthMeters` on average,
    ///   or its positions collinear in longitude and latitude);
    ///   more than `maximumVertices` over the rings; a polygon not within an open hemisphere; a
    ///   ring that crosses itself or another ring; rings touching in a loop; a hole not inside the
    ///   shell, or inside another hole.
    public init(shell: [Coordinate], holes: [[Coordinate]] = []) throws(PolygonError) {
        try self.init(shellVectors: shell.map(UnitVector.init), holeVectors: holes.map { $0.map(UnitVector.init) })
    }

    /// A polygon from rings of unit vectors (see `init(shell:holes:)`).
    public init(shellVectors: [UnitVector], holeVectors: [[UnitVector]] = []) throws(PolygonError) {
        try self.init(rings: [shellVectors] + holeVectors, validating: true)
    }

    /// A polygon from rings a polygon accepted before (its `shell` and `holes`, as stored), without
    /// checking the rings' shape again: for a store that guards what it wrote otherwise (a
    /// digest). A ring of fewer than 3 vertices or a shape beyond a hemisphere still throws, so
    /// that nothing read can trap; the vertex limits and the area do not apply (a footprint
    /// stored under other limits reads back).
    ///
    /// - Complexity: O(n) for n vertices.
    package init(trustedShellVectors shell: [UnitVector], holeVectors holes: [[UnitVector]] = []) throws(PolygonError) {
        try self.init(rings: [shell] + holes, validating: false)
    }

    private init(rings given: [[UnitVector]], validating: Bool) throws(PolygonError) {
        var rings: [[UnitVector]] = []
        var total = 0
        for (index, ring) in given.enumerated() {
            let distinct = Self.distinct(ring)
            guard distinct.count >= 3 else { throw .tooFewPositions(ring: index, count: distinct.count) }
            if validating, distinct.count > Self.maximumRingVertices {
                throw .tooManyVertices(ring: index, count: distinct.count, limit: Self.maximumRingVertices)
            }
            total += distinct.count
            rings.append(distinct)
        }
        if validating, total > Self.maximumVertices { throw .tooManyVerticesInShape(count: total, limit: Self.maximumVertices) }
        guard var cap = SphericalCap.enclosing(rings[0]), cap.radiusRadians < SphericalCap.hemisphereLimitRadians else {
            throw .notWithinHemisphere
        }
        var frame = GnomonicFrame(center: cap.center)
        // The cap of the shell as stored (counterclockwise): a polygon rebuilt from its own
        // rings gets the same cap to the last bit (the enclosing cap's rounding depends on the
        // order of its points).
        if let projected = Optional(rings[0].compactMap(frame.project)), projected.count == rings[0].count,
            Self.signedArea(projected) < 0
        {
            rings[0].reverse()
            guard let reversed = SphericalCap.enclosing(rings[0]), reversed.radiusRadians < SphericalCap.hemisphereLimitRadians else {
                throw .notWithinHemisphere
            }
            cap = reversed
            frame = GnomonicFrame(center: cap.center)
        }
        var planar: [[SIMD2<Double>]] = []
        for (index, ring) in rings.enumerated() {
            var points: [SIMD2<Double>] = []
            var kept: [UnitVector] = []
            points.reserveCapacity(ring.count + 1)
            kept.reserveCapacity(ring.count)
            for vertex in ring {
                guard let point = frame.project(vertex) else { throw .notWithinHemisphere }
                // Two vertices a rounding apart have one image: one vertex, so that no edge of
                // the checks is a point.
                if points.last == point { continue }
                points.append(point)
                kept.append(vertex)
            }
            while points.count > 1, points.first == points.last {
                points.removeLast()
                kept.removeLast()
            }
            guard points.count >= 3 else { throw .tooFewPositions(ring: index, count: points.count) }
            let area = Self.signedArea(points)
            if validating, Self.hasNoArea(points, twiceArea: area, vectors: kept) { throw .zeroArea(ring: index) }
            // Shells counterclockwise, holes clockwise (RFC 7946's right-hand rule): a ring
            // wound the other way is reversed.
            if (area > 0) != (index == 0) {
                points.reverse()
                kept.reverse()
            }
            rings[index] = kept
            points.append(points[0])
            planar.append(points)
        }
        if validating {
            var counts = ValidationCounts()
            try Self.validate(planar, counts: &counts)
        }
        self.shell = rings[0]
        self.holes = Array(rings.dropFirst())
        self.rings = rings
        self.flat = rings.flatMap { $0 }
        var end = 0
        self.ringEnds = rings.map { ring in
            end += ring.count
            return end
        }
        self.cap = cap
        self.frame = frame
        self.planar = planar
    }

    /// Whether `point` lies inside (on the shell's side of every ring; a point exactly on an
    /// edge may fall either way).
    public func contains(_ point: UnitVector) -> Bool {
        guard let p = frame.project(point) else { return false }
        var inside = false
        for ring in planar { if Self.crosses(ring, p) { inside.toggle() } }
        return inside
    }

    /// The great-circle distance from `point` to the nearest edge, meters, negative inside.
    public func signedDistanceMeters(to point: UnitVector) -> Double {
        let frame = GnomonicFrame(center: point)
        if let (tangent, inside) = measure(in: frame, skipping: nil) {
            let distance = GreatCircle.arcMeters(tangent: tangent)
            return inside ? -distance : distance
        }
        let distance = boundaryDistanceRadians(to: point, skipping: nil) * Earth.meanRadiusMeters
        return contains(point) ? -distance : distance
    }

    /// The polygon seen from the center of `frame` (the point measured from): the tangent of
    /// the great-circle distance to the nearest edge that `skip` does not name (a ring's index,
    /// the edge's first vertex's index), and whether the point is inside. Nil when a vertex lies
    /// more than 87° from the point, where the plane stretches too far.
    ///
    /// In the gnomonic plane about the point, every edge is a straight segment and a point θ away
    /// lies at tan θ from the origin, so the nearest point of a segment to the origin is the
    /// nearest point of the arc, at tan of its distance: exact, with a few multiplications per
    /// vertex, where measuring each arc on the sphere costs square roots and an arctangent. The
    /// crossing test of a ray from the origin decides containment in the same pass.
    func measure(in frame: GnomonicFrame, skipping skip: ((Int, Int) -> Bool)?) -> (tangent: Double, inside: Bool)? {
        var best = Double.infinity
        var inside = false
        let measured = flat.withUnsafeBufferPointer { vertices in
            var start = 0
            for (r, end) in ringEnds.enumerated() {
                let skipEdge = skip.map { skip in { (edge: Int) in skip(r, edge) } }
                guard frame.measureRing(vertices, start..<end, skipping: skipEdge, nearest: &best, inside: &inside) else { return false }
                start = end
            }
            return true
        }
        return measured ? (best.squareRoot(), inside) : nil
    }

    /// The great-circle distance from `point` to the nearest edge, radians, over the edges that
    /// `skip` does not name: in the gnomonic plane about the point (`measure`), or, for a polygon
    /// that reaches beyond 87° from it, arc by arc on the sphere.
    func boundaryDistanceRadians(to point: UnitVector, skipping skip: ((Int, Int) -> Bool)?) -> Double {
        if let (tangent, _) = measure(in: GnomonicFrame(center: point), skipping: skip) { return atan(tangent) }
        var best = Double.infinity
        for (r, ring) in rings.enumerated() {
            for i in ring.indices where skip.map({ !$0(r, i) }) ?? true {
                best = min(best, Self.arcDistanceRadians(point, ring[i], ring[(i + 1) % ring.count]))
            }
        }
        return best
    }

    /// Every edge as its two vertices, ring by ring (shell first).
    public var edges: [(UnitVector, UnitVector)] {
        rings.flatMap { ring in ring.indices.map { (ring[$0], ring[($0 + 1) % ring.count]) } }
    }

    /// The number of vertices over every ring.
    public var vertexCount: Int { shell.count + holes.reduce(0) { $0 + $1.count } }

    /// The area on the sphere, square meters: the shell's less its holes'.
    ///
    /// Each ring's area is the sum of the solid angles of the triangles (cap center, vᵢ, vᵢ₊₁),
    /// each by Van Oosterom and Strackee's formula, tan(Ω / 2) = c · (a × b) / (1 + c · a +
    /// a · b + b · c), with the triple product taken as c · ((a − c) × (b − c)), equal to it,
    /// from the small differences: it keeps its precision for triangles meters across (the
    /// spherical excess of their angles would not).
    public var areaSquareMeters: Double {
        let c = cap.center
        func solidAngle(_ ring: [UnitVector]) -> Double {
            var total = 0.0
            for i in ring.indices {
                let a = ring[i], b = ring[(i + 1) % ring.count]
                total += 2 * atan2(c.dot((a - c).cross(b - c)), 1 + c.dot(a) + a.dot(b) + b.dot(c))
            }
            return abs(total)
        }
        let steradians = solidAngle(shell) - holes.reduce(0) { $0 + solidAngle($1) }
        return steradians * Earth.meanRadiusMeters * Earth.meanRadiusMeters
    }

    /// The angle from `p` to the great-circle arc from `a` to `b` (shorter than π), radians: to
    /// the foot of the perpendicular when it falls within the arc, else to the nearer end.
    public static func arcDistanceRadians(_ p: UnitVector, _ a: UnitVector, _ b: UnitVector) -> Double {
        // a × b as (a + b) × (b − a) / 2: for ends meters apart b − a keeps its relative
        // precision where a × b loses it to cancellation (S2's robust cross product), so the
        // normal's direction, and the distance, stay exact to micrometers.
        let normal = (a + b).cross(b - a)
        let length = normal.length
        guard length > 0 else { return p.angleRadians(to: a) }
        let n = normal.scaled(by: 1 / length)
        // The foot lies within the arc when p is on the inner side of the planes through the
        // origin, n and each end.
        if a.cross(n).dot(p) <= 0, n.cross(b).dot(p) <= 0 {
            let offPlane = n.dot(p)
            let inPlane = (p - n.scaled(by: offPlane)).length
            return atan2(abs(offPlane), inPlane)
        }
        return min(p.angleRadians(to: a), p.angleRadians(to: b))
    }

    // MARK: - Planar helpers (in the gnomonic frame)

    static func distinct(_ ring: [UnitVector]) -> [UnitVector] {
        var result: [UnitVector] = []
        result.reserveCapacity(ring.count)
        for vertex in ring where result.last != vertex { result.append(vertex) }
        while result.count > 1, result.first == result.last { result.removeLast() }
        return result
    }

    /// Twice the signed area of an open ring (positive counterclockwise).
    static func signedArea(_ ring: [SIMD2<Double>]) -> Double {
        var sum = 0.0
        for i in ring.indices {
            let a = ring[i]
            let b = ring[(i + 1) % ring.count]
            sum += a.x * b.y - b.x * a.y
        }
        return sum
    }

    /// Whether a ray from `p` toward +x crosses the closed ring's edge an odd number of times.
    static func crosses(_ ring: [SIMD2<Double>], _ p: SIMD2<Double>) -> Bool {
        var odd = false
        for i in 0..<(ring.count - 1) {
            let a = ring[i]
            let b = ring[i + 1]
            if (a.y > p.y) != (b.y > p.y) {
                let x = a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x)
                if p.x < x { odd.toggle() }
            }
        }
        return odd
    }
}

/// Why a polygon was refused (`SphericalPolygon.init`); rings are numbered from 0, the shell.
public enum PolygonError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A ring with fewer than 3 distinct positions (`count` of them).
    case tooFewPositions(ring: Int, count: Int)
    /// A ring with more distinct positions (`count`) than `limit`
    /// (`SphericalPolygon.maximumRingVertices`).
    case tooManyVertices(ring: Int, count: Int, limit: Int)
    /// A polygon, or a footprint over its parts, with more vertices (`count`) than `limit`
    /// (`SphericalPolygon.maximumVertices`).
    case tooManyVerticesInShape(count: Int, limit: Int)
    /// A ring with no area: narrower on average than `SphericalPolygon.minimumMeanWidthMeters`
    /// (collinear positions, a ring folded onto itself).
    case zeroArea(ring: Int)
    /// The shape's enclosing cap is 89° or more.
    case notWithinHemisphere
    /// Two edges of one ring meet other than at their shared vertex.
    case selfIntersection(ring: Int, firstEdge: Int, secondEdge: Int)
    /// A hole crosses the shell or another hole, touches it other than at a shared vertex, or
    /// runs along it.
    case ringsCross(ring: Int, other: Int)
    /// Rings touch at more than one point, the two directly or through other rings touching them:
    /// a piece of the interior is cut off.
    case disconnectedInterior(ring: Int, other: Int)
    /// A hole lies outside the shell.
    case holeOutsideShell(ring: Int)
    /// One hole lies inside another.
    case nestedHoles(ring: Int, other: Int)

    /// The reason, in words.
    public var description: String {
        switch self {
        case .tooFewPositions(let ring, let count): "ring \(ring) has \(count) distinct positions; a ring needs at least 3"
        case .tooManyVertices(let ring, let count, let limit): "ring \(ring) has \(count) vertices; a ring may have at most \(limit)"
        case .tooManyVerticesInShape(let count, let limit): "the shape has \(count) vertices over its rings; at most \(limit)"
        case .zeroArea(let ring): "ring \(ring) has no area (its positions lie on a line, or it folds onto itself)"
        case .notWithinHemisphere: "the shape is not within a hemisphere"
        case .selfIntersection(let ring, let first, let second): "ring \(ring) intersects itself (edges \(first) and \(second))"
        case .ringsCross(let ring, let other): "ring \(ring) crosses ring \(other)"
        case .disconnectedInterior(let ring, let other):
            "ring \(ring) and ring \(other) touch at a second point, directly or through other rings, which cuts the interior apart"
        case .holeOutsideShell(let ring): "hole \(ring) is not inside the shell"
        case .nestedHoles(let ring, let other): "hole \(ring) and hole \(other) lie one inside the other"
        }
    }
}

/// A spherical cap: the points within `radiusRadians` of `center`.
public struct SphericalCap: Hashable, Sendable {
    /// The cap's center.
    public let center: UnitVector
    /// The cap's angular radius, radians.
    public let radiusRadians: Double

    /// A cap of `radiusRadians` around `center` (nothing is validated).
    public init(center: UnitVector, radiusRadians: Double) {
        self.center = center
        self.radiusRadians = radiusRadians
    }

    /// The cap's radius along the Earth's surface, meters.
    public var radiusMeters: Double { radiusRadians * Earth.meanRadiusMeters }

    /// A cap radius this close to 90° is not "within a hemisphere": the gnomonic projection used
    /// for containment needs every vertex clearly in front of the center (cos > 0.017).
    public static let hemisphereLimitRadians = 89.0 * Double.pi / 180

    /// A cap that contains `points` (one at least): Welzl's smallest enclosing circle in the
    /// gnomonic plane about the points' mean direction (the smallest enclosing cap exactly for
    /// points this plane does not distort, and within a meter at city scale), its radius then
    /// the exact largest angle from its center to a point, so the cap contains every point
    /// whatever the distortion. Nil when the points' mean direction is undefined or some point
    /// lies in the hemisphere behind it.
    public static func enclosing(_ points: [UnitVector]) -> SphericalCap? {
        guard !points.isEmpty else { return nil }
        var sum = UnitVector(x: 0, y: 0, z: 0)
        for point in points { sum = sum + point }
        guard sum.length > 1e-12 else { return nil }
        let mean = sum.normalized
        let frame = GnomonicFrame(center: mean)
        var planar: [SIMD2<Double>] = []
        planar.reserveCapacity(points.count)
        for point in points {
            guard let projected = frame.project(point) else { return nil }
            planar.append(projected)
        }
        let circle = smallestEnclosingCircle(planar)
        let center = frame.unproject(circle.center)
        var radius = 0.0
        for point in points { radius = max(radius, center.angleRadians(to: point)) }
        return SphericalCap(center: center, radiusRadians: radius)
    }

    /// Welzl's smallest enclosing circle, iterative (move-to-front), over the points in a fixed
    /// pseudo-random order so that the same points give the same circle.
    static func smallestEnclosingCircle(_ input: [SIMD2<Double>]) -> (center: SIMD2<Double>, radius: Double) {
        var points = input
        var rng = SplitMix64(seed: UInt64(points.count) &* 0x9E37_79B9_7F4A_7C15)
        if points.count > 1 {
            for i in stride(from: points.count - 1, to: 0, by: -1) {
                points.swapAt(i, Int(rng.next() % UInt64(i + 1)))
            }
        }
        func distance(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double { ((a - b) * (a - b)).sum().squareRoot() }
        func inside(_ p: SIMD2<Double>, _ c: (center: SIMD2<Double>, radius: Double)) -> Bool {
            distance(p, c.center) <= c.radius * (1 + 1e-12) + 1e-15
        }
        func two(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> (center: SIMD2<Double>, radius: Double) {
            let center = (a + b) / 2
            return (center, distance(a, center))
        }
        func three(_ a: SIMD2<Double>, _ b: SIMD2<Double>, _ c: SIMD2<Double>) -> (center: SIMD2<Double>, radius: Double) {
            let bx = b.x - a.x
            let by = b.y - a.y
            let cx = c.x - a.x
            let cy = c.y - a.y
            let d = 2 * (bx * cy - by * cx)
            guard d != 0 else {
                // Collinear: the circle on the two farthest apart.
                let pairs = [two(a, b), two(a, c), two(b, c)]
                return pairs.max { $0.radius < $1.radius }!
            }
            let ux = (cy * (bx * bx + by * by) - by * (cx * cx + cy * cy)) / d
            let uy = (bx * (cx * cx + cy * cy) - cx * (bx * bx + by * by)) / d
            let center = SIMD2(a.x + ux, a.y + uy)
            return (center, max(distance(center, a), distance(center, b), distance(center, c)))
        }
        guard let first = points.first else { return (SIMD2(0, 0), 0) }
        var circle = (center: first, radius: 0.0)
        for i in points.indices where !inside(points[i], circle) {
            circle = (points[i], 0)
            for j in 0..<i where !inside(points[j], circle) {
                circle = two(points[i], points[j])
                for k in 0..<j where !inside(points[k], circle) {
                    circle = three(points[i], points[j], points[k])
                }
            }
        }
        return circle
    }
}

/// The gnomonic projection about a center: a point p in front of it maps to
/// (p · east, p · north) / (p · center) in the tangent plane (in Earth radii), and every great
/// circle to a straight line. Near the center it is the local east-north plane: a point d meters
/// away lands tan(d / R), d · (1 + d² / 3R²) / R, from the center: 66 µm off at 2 km.
public struct GnomonicFrame: Hashable, Sendable {
    /// The point the plane touches the sphere at, the origin of the images.
    public let center: UnitVector
    /// The tangent plane's axes (east, then north where the center is not near a pole).
    public let east: UnitVector
    public let north: UnitVector

    /// The frame about `center` (a unit vector).
    public init(center: UnitVector) {
        self.center = center
        east = Self.unnormalizedEast(of: center).normalized
        north = center.cross(east)
    }

    /// The east axis of the frame about `center`, before it is normalized: the cross product of
    /// an axis not parallel to the center (the pole's, away from the poles) with it. It and the
    /// center crossed with it point as the frame's axes do, for a direction without a square root.
    @inlinable
    public static func unnormalizedEast(of center: UnitVector) -> UnitVector {
        let axis = abs(center.z) < 0.9 ? UnitVector(x: 0, y: 0, z: 1) : UnitVector(x: 1, y: 0, z: 0)
        return axis.cross(center)
    }

    /// The point's image, nil for a point not in front of the center.
    public func project(_ point: UnitVector) -> SIMD2<Double>? {
        let depth = point.dot(center)
        guard depth > 1e-9 else { return nil }
        return SIMD2(point.dot(east) / depth, point.dot(north) / depth)
    }

    /// The unit vector whose image is `point`.
    public func unproject(_ point: SIMD2<Double>) -> UnitVector {
        (center + east.scaled(by: point.x) + north.scaled(by: point.y)).normalized
    }
}

extension GnomonicFrame {
    /// One closed ring (`vertices[range]`, the closing vertex not repeated) seen from the frame's
    /// center, the point measured from: lowers `nearest` to the squared distance from the origin
    /// to each edge's image that `skip` (by the edge's first vertex, counted from the ring's
    /// start) does not name, the squared tangent of the arc's distance, and toggles `inside` at
    /// each edge a ray from the origin crosses. False, leaving both part-way, when a vertex lies
    /// more than 87° from the center, where the plane stretches too far.
    @inlinable
    public func measureRing(
        _ vertices: UnsafeBufferPointer<UnitVector>, _ range: Range<Int>, skipping skip: ((Int) -> Bool)? = nil,
        nearest: inout Double, inside: inout Bool
    ) -> Bool {
        let (c, e, n) = (center, east, north)
        @inline(__always) func image(_ v: UnitVector) -> (Double, Double, Bool) {
            let depth = v.x * c.x + v.y * c.y + v.z * c.z
            let inverse = 1 / depth
            return ((v.x * e.x + v.y * e.y + v.z * e.z) * inverse, (v.x * n.x + v.y * n.y + v.z * n.z) * inverse, depth > 0.05)
        }
        guard !range.isEmpty else { return true }
        let (firstX, firstY, firstInFront) = image(vertices[range.lowerBound])
        guard firstInFront else { return false }
        var (px, py) = (firstX, firstY)
        for i in range {
            var (qx, qy) = (firstX, firstY)
            if i + 1 < range.upperBound {
                let (x, y, inFront) = image(vertices[i + 1])
                guard inFront else { return false }
                (qx, qy) = (x, y)
            }
            let dx = qx - px
            let dy = qy - py
            // p × q: the edge's line passes the origin on its left when positive.
            let cross = px * qy - py * qx
            // The ray from the origin along +x crosses this edge: it straddles the axis and meets
            // it at x = cross / (qy − py), taken when > 0 (decided by signs, without dividing).
            if (py > 0) != (qy > 0), cross != 0, (cross > 0) == (dy > 0) { inside.toggle() }
            if skip.map({ !$0(i - range.lowerBound) }) ?? true {
                // The squared distance from the origin to the segment: to an end when the foot of
                // the perpendicular falls outside it, else cross² / |d|², divided only when it
                // is nearer than the nearest so far.
                let along = -(px * dx + py * dy)
                let length = dx * dx + dy * dy
                if along <= 0 {
                    nearest = min(nearest, px * px + py * py)
                } else if along >= length {
                    nearest = min(nearest, qx * qx + qy * qy)
                } else if cross * cross < nearest * length {
                    nearest = cross * cross / length
                }
            }
            (px, py) = (qx, qy)
        }
        return true
    }
}
