import RotateTestSupport
import Testing

@testable import Geodesy

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The pairwise check of a polygon's rings, written from the rules with nothing shared with the
/// sweep but the exact orientation (itself checked against integer arithmetic): every pair of
/// edges, every pair of rings at every shared vertex (their edges' cyclic order there), the
/// graph of touching rings by counting its components, containment by the winding number.
/// O(n²): the reference for `SphericalPolygon.validate`.
enum BruteForceRingCheck {
    /// What the rings get: nil when valid, else every error of the first kind of defect found
    /// (crossings, then rings touching in a loop, then holes out of place), any of which the
    /// check under test may name.
    static func errors(_ planar: [[SIMD2<Double>]]) -> Set<PolygonError>? {
        let crossings = crossingErrors(planar)
        if !crossings.isEmpty { return crossings }
        if touchesInALoop(planar) {
            // Which two rings are named depends on the order the loop is followed in.
            var all = Set<PolygonError>()
            for r in planar.indices { for o in 0..<r { all.insert(.disconnectedInterior(ring: r, other: o)) } }
            return all
        }
        let placement = placementErrors(planar)
        return placement.isEmpty ? nil : placement
    }

    static func sign(_ a: SIMD2<Double>, _ b: SIMD2<Double>, _ c: SIMD2<Double>) -> Int { SphericalPolygon.orientationSign(a, b, c) }

    /// Whether closed segments ab and cd share a point.
    static func meet(_ a: SIMD2<Double>, _ b: SIMD2<Double>, _ c: SIMD2<Double>, _ d: SIMD2<Double>) -> Bool {
        func on(_ p: SIMD2<Double>, _ q: SIMD2<Double>, _ r: SIMD2<Double>) -> Bool {
            sign(p, q, r) == 0 && min(p.x, q.x) <= r.x && r.x <= max(p.x, q.x) && min(p.y, q.y) <= r.y && r.y <= max(p.y, q.y)
        }
        let (d1, d2, d3, d4) = (sign(c, d, a), sign(c, d, b), sign(a, b, c), sign(a, b, d))
        if d1 != 0, d2 != 0, d3 != 0, d4 != 0 { return d1 != d2 && d3 != d4 }
        return on(c, d, a) || on(c, d, b) || on(a, b, c) || on(a, b, d)
    }

    /// Whether segments from the shared point v to p and to q overlap (collinear, same way).
    static func overlap(_ v: SIMD2<Double>, _ p: SIMD2<Double>, _ q: SIMD2<Double>) -> Bool {
        guard sign(v, p, q) == 0 else { return false }
        // The same way from v: the same side in x, or in y for a vertical line.
        return p.x != v.x ? (p.x > v.x) == (q.x > v.x) : (p.y > v.y) == (q.y > v.y)
    }

    static func crossingErrors(_ planar: [[SIMD2<Double>]]) -> Set<PolygonError> {
        var errors = Set<PolygonError>()
        for r in planar.indices {
            let ring = planar[r]
            let n = ring.count - 1
            for i in 0..<n {
                for o in r..<planar.count {
                    let other = planar[o]
                    let m = other.count - 1
                    for j in (o == r ? i + 1 : 0)..<m {
                        let (a, b, c, d) = (ring[i], ring[i + 1], other[j], other[j + 1])
                        if o == r {
                            if j == i + 1 || (i == 0 && j == n - 1) {
                                // Neighbors: at their shared vertex, bad when they fold back.
                                let (shared, p, q) = j == i + 1 ? (b, a, d) : (a, b, c)
                                if overlap(shared, p, q) { errors.insert(.selfIntersection(ring: r, firstEdge: i, secondEdge: j)) }
                            } else if meet(a, b, c, d) {
                                errors.insert(.selfIntersection(ring: r, firstEdge: i, secondEdge: j))
                            }
                            continue
                        }
                        guard meet(a, b, c, d) else { continue }
                        // Allowed: exactly one shared end, not running along each other.
                        let ends = [(a, b, c, d), (a, b, d, c), (b, a, c, d), (b, a, d, c)].filter { $0.0 == $0.2 }
                        if ends.count == 1, let (v, p, _, q) = ends.first, !overlap(v, p, q) { continue }
                        errors.insert(.ringsCross(ring: o, other: r))
                    }
                }
            }
        }
        // Rings crossing at a shared vertex: around it, their edges alternate.
        for r in planar.indices {
            for o in (r + 1)..<max(r + 1, planar.count) {
                for i in 0..<(planar[r].count - 1) {
                    for j in 0..<(planar[o].count - 1) where planar[r][i] == planar[o][j] {
                        if alternate(planar[r], i, planar[o], j) { errors.insert(.ringsCross(ring: o, other: r)) }
                    }
                }
            }
        }
        return errors
    }

    /// Whether the edges of rings a and b at their shared vertex alternate in angle around it.
    static func alternate(_ a: [SIMD2<Double>], _ i: Int, _ b: [SIMD2<Double>], _ j: Int) -> Bool {
        let v = a[i]
        let around = [
            (a[i == 0 ? a.count - 2 : i - 1], 0), (a[i + 1], 0), (b[j == 0 ? b.count - 2 : j - 1], 1), (b[j + 1], 1),
        ]
        // By angle from +x: the upper half first (y above, or on the axis to the right).
        func half(_ p: SIMD2<Double>) -> Int { p.y > v.y || (p.y == v.y && p.x > v.x) ? 0 : 1 }
        let sorted = around.sorted { p, q in
            half(p.0) != half(q.0) ? half(p.0) < half(q.0) : sign(v, p.0, q.0) > 0
        }
        return sorted[0].1 == sorted[2].1
    }

    /// Whether the graph of rings and the positions rings share (each ring joined to each shared
    /// position it passes through) has a cycle: more links than nodes less components.
    static func touchesInALoop(_ planar: [[SIMD2<Double>]]) -> Bool {
        var rings: [SIMD2<Double>: Set<Int>] = [:]
        for (r, ring) in planar.enumerated() { for p in ring.dropLast() { rings[p, default: []].insert(r) } }
        let shared = rings.filter { $0.value.count > 1 }
        guard !shared.isEmpty else { return false }
        let points = Array(shared.keys)
        var adjacency = [[Int]](repeating: [], count: planar.count + points.count)
        var links = 0
        for (k, p) in points.enumerated() {
            for r in shared[p] ?? [] {
                adjacency[r].append(planar.count + k)
                adjacency[planar.count + k].append(r)
                links += 1
            }
        }
        var seen = [Bool](repeating: false, count: adjacency.count)
        var components = 0
        for start in adjacency.indices where !seen[start] {
            components += 1
            var stack = [start]
            seen[start] = true
            while let node = stack.popLast() {
                for next in adjacency[node] where !seen[next] {
                    seen[next] = true
                    stack.append(next)
                }
            }
        }
        return links > adjacency.count - components
    }

    /// The winding number of a closed ring about p (p on no edge), by Sunday's crossing rule.
    static func winding(_ ring: [SIMD2<Double>], _ p: SIMD2<Double>) -> Int {
        var total = 0
        for i in 0..<(ring.count - 1) {
            let (a, b) = (ring[i], ring[i + 1])
            if a.y <= p.y {
                if b.y > p.y, sign(a, b, p) > 0 { total += 1 }
            } else if b.y <= p.y, sign(a, b, p) < 0 {
                total -= 1
            }
        }
        return total
    }

    /// Holes outside the shell, holes inside holes: each tested by one of its vertices that the
    /// other ring does not pass through.
    static func placementErrors(_ planar: [[SIMD2<Double>]]) -> Set<PolygonError> {
        func inside(_ r: Int, _ o: Int) -> Bool {
            guard let p = planar[r].first(where: { !planar[o].contains($0) }) else { return false }
            return winding(planar[o], p) != 0
        }
        var errors = Set<PolygonError>()
        for h in planar.indices.dropFirst() {
            if !inside(h, 0) { errors.insert(.holeOutsideShell(ring: h)) }
            for o in planar.indices.dropFirst() where o != h && inside(h, o) {
                errors.insert(.nestedHoles(ring: max(h, o), other: min(h, o)))
            }
        }
        return errors
    }
}

/// `SphericalPolygon.validate` (the sweep) against `BruteForceRingCheck` on seeded random rings,
/// the exact orientation against integer arithmetic, the vertex limits, zero-area rings, and
/// holes touching the shell or each other at a vertex.
struct SphericalPolygonValidationTests {
    /// Random rings on a small grid: many collinear edges, overlaps, shared vertices, vertices
    /// on others' edges, vertical and horizontal edges; `spacing` and `offset` place the grid
    /// (at a spacing that is not a power of two, "collinear" grid points round off the line, and
    /// the exact orientation decides).
    static func gridRings(_ rng: inout SplitMixForSeeds, spacing: Double, offset: Double) -> [[SIMD2<Double>]]? {
        func ring(_ size: Int, _ count: Int, _ from: Int) -> [SIMD2<Double>]? {
            var points: [SIMD2<Double>] = []
            for _ in 0..<count {
                let (i, j) = (from + Int(rng.next() % UInt64(size)), from + Int(rng.next() % UInt64(size)))
                let p = SIMD2(offset + Double(i) * spacing, offset + Double(j) * spacing)
                if points.last != p { points.append(p) }
            }
            while points.count > 1, points.first == points.last { points.removeLast() }
            guard points.count >= 3 else { return nil }
            var area = 0.0
            for k in points.indices {
                let (a, b) = (points[k], points[(k + 1) % points.count])
                area += a.x * b.y - b.x * a.y
            }
            guard abs(area) > 1e-6 * spacing * spacing else { return nil }
            return points
        }
        guard let shell = ring(6, 3 + Int(rng.next() % 6), 0) else { return nil }
        var rings = [shell]
        for _ in 0..<Int(rng.next() % 3) {
            if let hole = ring(4, 3 + Int(rng.next() % 3), 1) { rings.append(hole) }
        }
        // Oriented as the polygon orients them (shell counterclockwise, holes clockwise), closed.
        for r in rings.indices {
            var area = 0.0
            for k in rings[r].indices {
                let (a, b) = (rings[r][k], rings[r][(k + 1) % rings[r].count])
                area += a.x * b.y - b.x * a.y
            }
            if (area > 0) != (r == 0) { rings[r].reverse() }
            rings[r].append(rings[r][0])
        }
        return rings
    }

    static func compare(_ planar: [[SIMD2<Double>]], _ seed: UInt64, counts: inout SphericalPolygon.ValidationCounts) -> Bool {
        let expected = BruteForceRingCheck.errors(planar)
        var got: PolygonError?
        do { try SphericalPolygon.validate(planar, counts: &counts) } catch { got = error }
        switch (expected, got) {
        case (nil, nil): return true
        case (nil, let got?):
            Issue.record("\(got) for valid rings \(planar), \(TestSeed.replay(seed))")
        case (let expected?, nil):
            Issue.record("accepted rings the brute force refuses with \(expected): \(planar), \(TestSeed.replay(seed))")
        case (let expected?, let got?):
            if expected.contains(got) { return true }
            Issue.record("\(got), not one of \(expected): \(planar), \(TestSeed.replay(seed))")
        }
        return false
    }

    /// Thousands of grid polygons, on an exact grid and on one where rounding decides: the sweep
    /// accepts what the brute force accepts and names one of the defects it finds.
    @Test(arguments: [(1.0, 0.0), (1e-5 / 3, 0.3)])
    func theSweepAgreesWithTheBruteForceOnGridRings(spacing: Double, offset: Double) {
        let seed = TestSeed.value(salt: 401)
        var rng = SplitMixForSeeds(state: seed)
        var counts = SphericalPolygon.ValidationCounts()
        var (valid, tried) = (0, 0)
        for _ in 0..<20_000 {
            guard let planar = Self.gridRings(&rng, spacing: spacing, offset: offset) else { continue }
            tried += 1
            if BruteForceRingCheck.errors(planar) == nil { valid += 1 }
            guard Self.compare(planar, seed, counts: &counts) else { return }
        }
        // Both outcomes, in numbers.
        #expect(valid > 300 && tried - valid > 3_000, "\(valid) valid of \(tried)")
    }

    /// Star-shaped shells with star-shaped holes around random centers (near the poles, across
    /// the antimeridian), some holes sharing a vertex with the shell or with each other, some
    /// vertices pushed out so that rings cross: `SphericalPolygon.init` accepts exactly what the
    /// brute force accepts on its rings in the gnomonic plane.
    @Test func polygonsOnTheSphereAgreeWithTheBruteForce() throws {
        let seed = TestSeed.value(salt: 402)
        var rng = SplitMixForSeeds(state: seed)
        var library = SplitMix64(seed: seed)
        let centers =
            [
                Coordinate(validLatitude: 89.9995, longitude: 10), Coordinate(validLatitude: -89.99, longitude: -170),
                Coordinate(validLatitude: 12, longitude: 179.9995), Coordinate(validLatitude: -40, longitude: -179.999),
            ] + (0..<4).map { _ in Coordinate(validLatitude: rng.uniform(-85, 85), longitude: rng.uniform(-180, 180)) }
        var outcomes: [String: Int] = [:]
        for center in centers {
            for _ in 0..<150 {
                let count = 8 + Int(rng.next() % 12)
                var shell = SphericalPolygonTests.star(around: center, count: count, radii: 60..<200, rng: &library).dropLast().map { $0 }
                var holes: [[Coordinate]] = []
                for _ in 0..<Int(rng.next() % 4) {
                    let bearing = rng.uniform(0, 360)
                    let hole = SphericalPolygonTests.star(
                        around: center.destination(bearingDegrees: bearing, distanceMeters: rng.uniform(0, 40)),
                        count: 3 + Int(rng.next() % 4),
                        radii: 5..<25, clockwise: rng.next() % 2 == 0, rng: &library
                    ).dropLast().map { $0 }
                    holes.append(hole)
                }
                // Touching: a hole vertex moved onto a shell vertex or another hole's vertex.
                for h in holes.indices where rng.next() % 2 == 0 {
                    let k = Int(rng.next() % UInt64(holes[h].count))
                    if h > 0, rng.next() % 2 == 0 {
                        holes[h][k] = holes[h - 1][Int(rng.next() % UInt64(holes[h - 1].count))]
                    } else {
                        holes[h][k] = shell[Int(rng.next() % UInt64(shell.count))]
                    }
                }
                // Crossing: now and then a shell vertex pulled to the center or pushed out.
                if rng.next() % 4 == 0 {
                    let k = Int(rng.next() % UInt64(shell.count))
                    shell[k] = center.destination(bearingDegrees: rng.uniform(0, 360), distanceMeters: rng.uniform(0, 300))
                }
                let vectors = ([shell] + holes).map { $0.map(UnitVector.init) }
                let result: Result<SphericalPolygon, PolygonError> = Result { () throws(PolygonError) in
                    try SphericalPolygon(shellVectors: vectors[0], holeVectors: Array(vectors.dropFirst()))
                }
                // The same rings as the check sees them: projected, oriented, unchecked.
                guard let rings = try? SphericalPolygon(trustedShellVectors: vectors[0], holeVectors: Array(vectors.dropFirst())) else {
                    continue
                }
                let expected = BruteForceRingCheck.errors(rings.planar)
                switch result {
                case .success:
                    #expect(expected == nil, "accepted; brute force: \(String(describing: expected)), \(TestSeed.replay(seed))")
                    outcomes["valid", default: 0] += 1
                case .failure(.zeroArea), .failure(.tooFewPositions):
                    continue
                case .failure(let error):
                    #expect(
                        expected?.contains(error) == true,
                        "\(error); brute force: \(String(describing: expected)), \(TestSeed.replay(seed))")
                    outcomes["\(error)".prefix { $0 != "(" }.description, default: 0] += 1
                }
            }
        }
        // Valid polygons, touching ones among them, and each kind of refusal, in numbers.
        #expect((outcomes["valid"] ?? 0) > 100, "\(outcomes)")
        #expect(outcomes.count >= 4, "\(outcomes)")
    }

    /// The orientation's sign against 128-bit integer arithmetic, on points of a 2⁻⁵⁰ grid
    /// (exact in a double, differences exact in 64 bits), nearly collinear: the floating-point
    /// determinant's sign is wrong for many of them (the differences' products round by more
    /// than a unit's nudge off the line).
    @Test func theOrientationIsExact() {
        let seed = TestSeed.value(salt: 403)
        var rng = SplitMixForSeeds(state: seed)
        var wrongInFloatingPoint = 0
        for _ in 0..<20_000 {
            func random() -> Int64 { Int64(bitPattern: rng.next() >> 12) - (1 << 51) }
            let (ax, ay, dx, dy) = (random(), random(), random() >> 3, random() >> 3)
            let t = Int64(rng.next() % 15) - 7
            // c on the line through a along d, nudged by a unit or two (or not).
            let (cx, cy) = (ax + t * dx + Int64(rng.next() % 3) - 1, ay + t * dy + Int64(rng.next() % 3) - 1)
            let (bx, by) = (ax + dx, ay + dy)
            guard abs(cx) < 1 << 52, abs(cy) < 1 << 52 else { continue }
            let exact = Int128(bx - ax) * Int128(cy - ay) - Int128(by - ay) * Int128(cx - ax)
            let expected = exact > 0 ? 1 : exact < 0 ? -1 : 0
            func point(_ x: Int64, _ y: Int64) -> SIMD2<Double> { SIMD2(Double(x), Double(y)) * 0x1p-50 }
            let (a, b, c) = (point(ax, ay), point(bx, by), point(cx, cy))
            let got = SphericalPolygon.orientationSign(a, b, c)
            #expect(got == expected, "\(a) \(b) \(c): \(got) vs \(expected), \(TestSeed.replay(seed))")
            let naive = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
            if (naive > 0 ? 1 : naive < 0 ? -1 : 0) != expected { wrongInFloatingPoint += 1 }
        }
        #expect(wrongInFloatingPoint > 100)
    }

    /// A ring of the most vertices validates with O(n log n) pair tests, where the pairwise check
    /// makes n² / 2; one vertex more is refused, naming the ring, the count and the limit, and so
    /// is a polygon of more vertices over its rings than `maximumVertices`.
    @Test func theVertexLimitsAndTheWorkOfTheCheck() throws {
        let center = Coordinate(validLatitude: 48.2, longitude: 16.37)
        let n = SphericalPolygon.maximumRingVertices
        func ring(_ count: Int, radius: Double) -> [Coordinate] {
            // A wavy circle: concave, so that no pair is trivially apart.
            (0..<count).map { i in
                let r = radius * (1 + 0.2 * sin(Double(i) * 0.7))
                return center.destination(bearingDegrees: -360 * Double(i) / Double(count), distanceMeters: r)
            }
        }
        let polygon = try SphericalPolygon(shell: ring(n, radius: 800))
        var counts = SphericalPolygon.ValidationCounts()
        try SphericalPolygon.validate(polygon.planar, counts: &counts)
        // Two pair tests per edge entering, one per edge leaving; a binary search per event.
        let logN = Int(log2(Double(n)).rounded(.up))
        #expect(counts.pairTests <= 3 * n, "\(counts.pairTests) pair tests for \(n) edges")
        #expect(counts.orderTests <= 3 * n * logN, "\(counts.orderTests) order tests for \(n) edges")
        #expect(throws: PolygonError.tooManyVertices(ring: 0, count: n + 1, limit: n)) {
            try SphericalPolygon(shell: ring(n + 1, radius: 800))
        }
        #expect(throws: PolygonError.tooManyVertices(ring: 1, count: n + 1, limit: n)) {
            try SphericalPolygon(shell: ring(3, radius: 3_000), holes: [ring(n + 1, radius: 100).reversed()])
        }
        let total = SphericalPolygon.maximumVertices
        let holes = (0..<(total / n + 1)).map { k in ring(n, radius: 50 + 100 * Double(k)) }
        #expect(throws: PolygonError.tooManyVerticesInShape(count: n * holes.count + 4, limit: total)) {
            try SphericalPolygon(shell: ring(4, radius: 10_000), holes: holes)
        }
        // Over the parts of a footprint, too.
        let parts = try (0..<3).map { k in
            try SphericalPolygon(shell: ring(n, radius: 800).map { $0.destination(bearingDegrees: 90, distanceMeters: 4_000 * Double(k)) })
        }
        #expect(throws: PolygonError.tooManyVerticesInShape(count: 3 * n, limit: total)) { try SphericalMultiPolygon(parts: parts) }
        #expect(PolygonError.tooManyVertices(ring: 2, count: 12_345, limit: n).description.contains("ring 2 has 12345 vertices"))
    }

    /// A ring with no area is refused, a shell or a hole: three collinear positions (on a
    /// meridian, on the equator, on one great circle, on a line in longitude and latitude), a
    /// ring folded onto itself, a sliver narrower than `minimumMeanWidthMeters`; a thin but real
    /// sliver is not, nor a sliver along the antimeridian (a piece of a cut shape).
    @Test func zeroAreaRingsAreRefused() throws {
        let o = Coordinate(validLatitude: 60.17, longitude: 24.94)
        let square = [-45.0, 45, 135, 225].map { o.destination(bearingDegrees: $0, distanceMeters: 100) }
        let meridian = [0.0, 10, 20].map { Coordinate(validLatitude: 60 + $0 * 1e-4, longitude: 24.94) }
        let equator = [0.0, 10, 20].map { Coordinate(validLatitude: 0, longitude: 24.94 + $0 * 1e-4) }
        let line = [0.0, 30, 80].map { o.destination(bearingDegrees: 33, distanceMeters: $0) }
        let folded = line + [o.destination(bearingDegrees: 33, distanceMeters: 50)]
        // On the sphere 5.7 cm wide at the middle; a line as GeoJSON draws it.
        let lonLat = [(24.9, 60.1), (24.91, 60.11), (24.92, 60.12)].map { Coordinate(validLatitude: $0.1, longitude: $0.0) }
        let acrossTheAntimeridian = [(179.9995, -17.0), (-179.9995, -17.001), (-179.9985, -17.002)].map {
            Coordinate(validLatitude: $0.1, longitude: $0.0)
        }
        for ring in [meridian, equator, line, folded, lonLat, acrossTheAntimeridian] {
            #expect(throws: PolygonError.zeroArea(ring: 0)) { try SphericalPolygon(shell: ring) }
        }
        let holeLine = [0.0, 10, 20].map { o.destination(bearingDegrees: 120, distanceMeters: $0) }
        #expect(throws: PolygonError.zeroArea(ring: 1)) { try SphericalPolygon(shell: square, holes: [holeLine]) }
        // 0.5 mm wide over 50 m: on average narrower than 1 mm; 5 cm wide is a shape.
        let a = o.destination(bearingDegrees: 33, distanceMeters: 50)
        func strip(_ width: Double) -> [Coordinate] {
            [o, a, a.destination(bearingDegrees: 123, distanceMeters: width), o.destination(bearingDegrees: 123, distanceMeters: width)]
        }
        #expect(throws: PolygonError.zeroArea(ring: 0)) { try SphericalPolygon(shell: strip(0.0005)) }
        #expect(abs(try SphericalPolygon(shell: strip(0.05)).areaSquareMeters - 2.5) < 0.001)
        // A piece 0.5 mm wide west of the antimeridian, its edge along it.
        let cut = [(180.0, -17.0), (180.0, -17.001), (179.999_999_99, -17.001), (179.999_999_99, -17.0)].map {
            Coordinate(validLatitude: $0.1, longitude: $0.0)
        }
        #expect(try SphericalPolygon(shell: cut).shell.count == 4)
    }

    /// A hole touching the shell at one vertex, two holes touching each other at one: accepted
    /// (OGC), with containment against the winding number and the distance to the edge against
    /// the nearest point of every edge, near the touching vertex. Touching along an edge, at two
    /// vertices, or crossing at the shared vertex is refused.
    @Test func holesTouchingAtOneVertex() throws {
        let o = Coordinate(validLatitude: -33.87, longitude: 151.21)
        func at(_ east: Double, _ north: Double) -> Coordinate {
            o.destination(bearingDegrees: atan2(east, north) * 180 / .pi, distanceMeters: (east * east + north * north).squareRoot())
        }
        let square = [at(0, 0), at(100, 0), at(100, 100), at(0, 100)]
        // A triangle hole with its apex on the shell's corner (0, 0), and another on the bottom
        // edge's vertex (50, 0) of a shell with that vertex.
        let corner = [at(0, 0), at(40, 20), at(20, 40)]
        let withMiddle = [at(0, 0), at(50, 0), at(100, 0), at(100, 100), at(0, 100)]
        let onMiddle = [at(50, 0), at(85, 30), at(65, 30)]
        // Two holes touching at (60, 60).
        let first = [at(60, 60), at(80, 60), at(80, 80)]
        let second = [at(60, 60), at(40, 60), at(40, 45)]
        let cases = [
            try SphericalPolygon(shell: square, holes: [corner]), try SphericalPolygon(shell: withMiddle, holes: [onMiddle]),
            try SphericalPolygon(shell: square, holes: [first, second]),
            try SphericalPolygon(shell: withMiddle, holes: [corner, onMiddle, first, second]),
        ]
        let seed = TestSeed.value(salt: 404)
        var rng = SplitMixForSeeds(state: seed)
        for (polygon, touching) in zip(cases, [[at(0, 0)], [at(50, 0)], [at(60, 60)], [at(0, 0), at(50, 0), at(60, 60)]]) {
            let rings = [polygon.shell] + polygon.holes
            let edges = polygon.edges.map { ($0.0, $0.1, $0.0.angleRadians(to: $0.1)) }
            for vertex in touching {
                for _ in 0..<100 {
                    // Within 3 m of the touching vertex, some within a millimeter.
                    let reach = rng.next() % 4 == 0 ? 1e-3 : 3.0
                    let point = vertex.destination(bearingDegrees: rng.uniform(0, 360), distanceMeters: rng.uniform(0, reach))
                    let p = UnitVector(point)
                    // The nearest point of each edge by ternary search along it (the distance
                    // to the points of an arc shorter than π is unimodal).
                    var nearest = Double.infinity
                    for (a, b, angle) in edges {
                        func along(_ t: Double) -> Double {
                            p.angleRadians(to: (a.scaled(by: sin((1 - t) * angle)) + b.scaled(by: sin(t * angle))).normalized)
                        }
                        var (low, high) = (0.0, 1.0)
                        for _ in 0..<60 {
                            let (m1, m2) = (low + (high - low) / 3, high - (high - low) / 3)
                            if along(m1) < along(m2) { high = m2 } else { low = m1 }
                        }
                        nearest = min(nearest, along(0), along(1), along((low + high) / 2))
                    }
                    nearest *= Earth.meanRadiusMeters
                    let distance = polygon.signedDistanceMeters(to: p)
                    #expect(abs(abs(distance) - nearest) <= 1e-6, "\(distance) vs \(nearest) at \(point), \(TestSeed.replay(seed))")
                    guard abs(distance) > 1e-6 else { continue }
                    let expected = SphericalPolygonTests.winding(rings, p) != 0
                    #expect(polygon.contains(p) == expected, "\(point), \(TestSeed.replay(seed))")
                    #expect((distance < 0) == expected)
                }
            }
        }
        // Along an edge, at two vertices, crossing at the shared vertex, a hole touching one
        // touching the shell twice. (A vertex on another ring's edge, not a vertex of it, is on
        // the sphere a rounding inside or outside: the grid tests above have it exactly.)
        let alongEdge = [at(0, 0), at(50, 0), at(25, 30)]
        #expect(throws: PolygonError.ringsCross(ring: 1, other: 0)) { try SphericalPolygon(shell: withMiddle, holes: [alongEdge]) }
        let twice = [at(0, 0), at(50, 30), at(100, 0), at(50, 50)]
        #expect(throws: PolygonError.disconnectedInterior(ring: 1, other: 0)) { try SphericalPolygon(shell: withMiddle, holes: [twice]) }
        let through = [at(50, 0), at(60, -10), at(50, 40), at(40, 20)]
        #expect(throws: PolygonError.ringsCross(ring: 1, other: 0)) { try SphericalPolygon(shell: withMiddle, holes: [through]) }
        let chain = [[at(0, 0), at(30, 10), at(20, 20)], [at(20, 20), at(60, 10), at(50, 0)]]
        #expect(throws: PolygonError.disconnectedInterior(ring: 2, other: 0)) { try SphericalPolygon(shell: withMiddle, holes: chain) }
        // Three holes meeting at one point: the interior stays whole.
        let star = [[at(50, 50), at(70, 50), at(70, 70)], [at(50, 50), at(30, 50), at(30, 30)], [at(50, 50), at(50, 70), at(30, 70)]]
        #expect(try SphericalPolygon(shell: square, holes: star).holes.count == 3)
    }
}
