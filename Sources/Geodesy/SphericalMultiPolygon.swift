#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One place's footprint: one or more polygons (GeoJSON's Polygon and MultiPolygon), inside
/// when inside any of them.
///
/// The pieces of a shape cut at the antimeridian (RFC 7946 §3.1.9 asks writers to cut there) are
/// one shape: an edge that runs along the 180th meridian is a seam, not boundary, when some
/// piece lies on the other side of it, so the distance to the boundary from a point near the cut
/// is the distance to the shape's real edge.
public struct SphericalMultiPolygon: Hashable, Sendable {
    /// The polygons.
    public let parts: [SphericalPolygon]
    /// A cap that contains every part (`SphericalCap.enclosing(_:)` of their shells' vertices).
    public let cap: SphericalCap
    /// For each part and ring, the indices of the edges that are seams at the antimeridian.
    let seams: [[Set<Int>]]
    /// Whether any edge is a seam at the antimeridian.
    public let hasSeams: Bool

    /// - Throws: `PolygonError.notWithinHemisphere` when the parts together are not within a
    ///   hemisphere; `.tooManyVerticesInShape` for more than `SphericalPolygon.maximumVertices`
    ///   over the parts; `.tooFewPositions` (ring 0, count 0) for no part.
    public init(parts: [SphericalPolygon]) throws(PolygonError) {
        try self.init(parts: parts, limitingVertices: true)
    }

    private init(parts: [SphericalPolygon], limitingVertices: Bool) throws(PolygonError) {
        guard !parts.isEmpty else { throw .tooFewPositions(ring: 0, count: 0) }
        let total = parts.reduce(0) { $0 + $1.vertexCount }
        if limitingVertices, total > SphericalPolygon.maximumVertices {
            throw .tooManyVerticesInShape(count: total, limit: SphericalPolygon.maximumVertices)
        }
        guard let cap = SphericalCap.enclosing(parts.flatMap(\.shell)), cap.radiusRadians < SphericalCap.hemisphereLimitRadians else {
            throw .notWithinHemisphere
        }
        self.parts = parts
        self.cap = cap
        // A vertex on the antimeridian has y = 0 and x < 0 exactly as read (lon ±180, sin 180°
        // is not 0 in floating point, so the test is on the side: |y| tiny, x negative); the
        // side of the cut a piece lies on is the sign of its vertices' y.
        func onCut(_ v: UnitVector) -> Bool { v.x < 0 && abs(v.y) <= 1e-12 * abs(v.x) }
        var sides = Set<Int>()
        for part in parts {
            let off = part.shell.filter { !onCut($0) }
            if let first = off.first { sides.insert(first.y > 0 ? 1 : -1) }
        }
        let bothSides = sides.count == 2
        seams = parts.map { part in
            ([part.shell] + part.holes).map { ring in
                guard bothSides else { return [] }
                return Set(ring.indices.filter { onCut(ring[$0]) && onCut(ring[($0 + 1) % ring.count]) })
            }
        }
        hasSeams = seams.contains { $0.contains { !$0.isEmpty } }
    }

    /// A shape of one polygon.
    public init(_ polygon: SphericalPolygon) {
        parts = [polygon]
        cap = polygon.cap
        seams = [Array(repeating: [], count: 1 + polygon.holes.count)]
        hasSeams = false
    }

    /// Whether `point` lies inside some part.
    public func contains(_ point: UnitVector) -> Bool { parts.contains { $0.contains(point) } }

    /// The great-circle distance from `point` to the nearest edge that is not a seam, meters,
    /// negative inside.
    public func signedDistanceMeters(to point: UnitVector) -> Double {
        // In the gnomonic plane about the point (`SphericalPolygon.measure`), every part at once.
        let frame = GnomonicFrame(center: point)
        var tangent = Double.infinity
        var inside = false
        var measured = true
        for (index, part) in parts.enumerated() {
            let seams = self.seams[index]
            let skip: ((Int, Int) -> Bool)? = hasSeams ? { ring, edge in seams[ring].contains(edge) } : nil
            guard let seen = part.measure(in: frame, skipping: skip) else {
                measured = false
                break
            }
            tangent = min(tangent, seen.tangent)
            inside = inside || seen.inside
        }
        if measured {
            let distance = GreatCircle.arcMeters(tangent: tangent)
            return inside ? -distance : distance
        }
        var best = Double.infinity
        for (index, part) in parts.enumerated() {
            let seams = self.seams[index]
            best = min(
                best, part.boundaryDistanceRadians(to: point, skipping: hasSeams ? { ring, edge in seams[ring].contains(edge) } : nil))
        }
        let distance = best * Earth.meanRadiusMeters
        return contains(point) ? -distance : distance
    }

    /// The number of vertices over every part.
    public var vertexCount: Int { parts.reduce(0) { $0 + $1.vertexCount } }

    /// The area on the sphere, square meters: the sum of the parts' (`SphericalPolygon.areaSquareMeters`).
    public var areaSquareMeters: Double { parts.reduce(0) { $0 + $1.areaSquareMeters } }
}

extension SphericalMultiPolygon: Codable {
    /// Encodes the parts as arrays of rings (shell first), each ring an array of `[x, y, z]` unit
    /// vectors as stored (oriented, the closing vertex not repeated): decoding rebuilds the same
    /// shape bit for bit, which latitudes and longitudes in degrees would not.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(parts.map { part in ([part.shell] + part.holes).map { ring in ring.map { [$0.x, $0.y, $0.z] } } })
    }

    /// Decodes what `encode(to:)` writes, validating as `init(parts:)` does.
    ///
    /// - Throws: `DecodingError.dataCorrupted` for a vector that is not three finite numbers of
    ///   unit length (within 1e-9), no rings in a part, or a shape `SphericalPolygon` refuses
    ///   (the reason in the description).
    public init(from decoder: any Decoder) throws {
        self = try Self.decoded(from: decoder, trusted: false)
    }

    /// What `encode(to:)` wrote, each part validated as `SphericalPolygon.init(shellVectors:)`
    /// does, or, `trusted`, rebuilt as `init(trustedShellVectors:)` does.
    static func decoded(from decoder: any Decoder, trusted: Bool) throws -> SphericalMultiPolygon {
        let container = try decoder.singleValueContainer()
        let encoded = try container.decode([[[[Double]]]].self)
        func corrupted(_ reason: String) -> DecodingError {
            DecodingError.dataCorrupted(DecodingError.Context(codingPath: decoder.codingPath, debugDescription: reason))
        }
        var parts: [SphericalPolygon] = []
        for rings in encoded {
            var vectors: [[UnitVector]] = []
            for ring in rings {
                vectors.append(
                    try ring.map { components in
                        guard components.count == 3, components.allSatisfy(\.isFinite) else {
                            throw corrupted("a footprint vertex is not three finite numbers")
                        }
                        let vector = UnitVector(x: components[0], y: components[1], z: components[2])
                        guard abs(vector.x * vector.x + vector.y * vector.y + vector.z * vector.z - 1) <= 1e-9 else {
                            throw corrupted("a footprint vertex is not a unit vector")
                        }
                        return vector
                    })
            }
            guard let shell = vectors.first else { throw corrupted("a footprint part has no rings") }
            do {
                let holes = Array(vectors.dropFirst())
                parts.append(
                    try trusted
                        ? SphericalPolygon(trustedShellVectors: shell, holeVectors: holes)
                        : SphericalPolygon(shellVectors: shell, holeVectors: holes))
            } catch {
                throw corrupted("footprint part \(parts.count): \(error)")
            }
        }
        do {
            return try SphericalMultiPolygon(parts: parts, limitingVertices: !trusted)
        } catch {
            throw corrupted("footprint: \(error)")
        }
    }
}

/// A footprint as a store wrote it (`SphericalMultiPolygon`'s `Codable` form), read back without
/// checking its rings' shape again (`SphericalPolygon.init(trustedShellVectors:holeVectors:)`):
/// O(n) for n vertices where the checks take O(n log n), and a footprint accepted under other
/// vertex limits reads back. For a store that guards its rows otherwise (the state database's
/// catalog digest); vectors that are not unit vectors, an empty part or a ring of fewer than 3
/// vertices still throw.
package struct TrustedFootprint: Decodable, Sendable {
    package let shape: SphericalMultiPolygon

    package init(from decoder: any Decoder) throws {
        shape = try SphericalMultiPolygon.decoded(from: decoder, trusted: true)
    }
}
