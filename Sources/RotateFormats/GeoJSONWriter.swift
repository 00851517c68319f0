import FencePlanner
import Foundation
import Geodesy

/// Writes a plan as a GeoJSON FeatureCollection (RFC 7946): fences and refresh circles as
/// 64-vertex polygons (counter-clockwise, split at ±180° into a MultiPolygon, closed over a pole
/// when they contain one), footprints as their own polygons (the same rules), the walk as a
/// LineString (a MultiLineString when it crosses ±180°), reselection points and misses as
/// Points. Each place says whether and when it was monitored.
public enum GeoJSONWriter {
    /// Vertices of each circle's polygon (before a split at ±180°).
    public static let circleVertices = 64

    /// The record as one GeoJSON document: a FeatureCollection with the places first, then each
    /// reselection's refresh circle (when its radius is > 0) and point, the walk and the misses,
    /// each feature's `kind` property saying which. Positions are `[lon, lat]` in degrees, the
    /// order RFC 7946 requires, with 7 decimals.
    public static func document(_ record: PlanRecord) -> String {
        var features: [String] = []
        for place in record.places {
            let intervals = record.monitored[place.id] ?? []
            let ranges = "[" + intervals.map { "[\($0.lowerBound),\($0.upperBound)]" }.joined(separator: ",") + "]"
            var properties =
                "\"kind\":\"place\",\"id\":\(JSONObject.quoted(place.id)),\"radius_m\":\(number(place.radiusMeters)),"
                + "\"monitored\":\(!intervals.isEmpty),\"monitored_fixes\":\(ranges)"
            if let name = place.name { properties += ",\"name\":\(JSONObject.quoted(name))" }
            if let footprint = place.footprint {
                properties += ",\"shape\":\"footprint\""
                features.append(feature(self.footprint(footprint), properties))
            } else {
                features.append(feature(circle(place.coordinate, radiusMeters: place.radiusMeters), properties))
            }
        }
        for reselection in record.reselections {
            // A refresh circle under a meter is below the positions' precision (7 decimals of a
            // degree are about a centimeter): its vertices would collapse.
            if let refresh = reselection.refresh, refresh.radiusMeters >= 1 {
                features.append(
                    feature(
                        circle(refresh.center, radiusMeters: refresh.radiusMeters),
                        "\"kind\":\"refresh\",\"id\":\(JSONObject.quoted(refresh.id)),\"fix\":\(reselection.fix),"
                            + "\"radius_m\":\(number(refresh.radiusMeters)),\"guarantee\":\"\(reselection.guarantee.name)\""))
            }
            features.append(
                feature(
                    point(reselection.position),
                    "\"kind\":\"reselect\",\"fix\":\(reselection.fix),\"guarantee\":\"\(reselection.guarantee.name)\","
                        + "\"started\":\(reselection.started),\"stopped\":\(reselection.stopped)"))
        }
        if !record.walk.isEmpty {
            features.append(feature(line(record.walk), "\"kind\":\"walk\",\"fixes\":\(record.walk.count)"))
        }
        for miss in record.misses {
            features.append(
                feature(point(miss.position), "\"kind\":\"miss\",\"id\":\(JSONObject.quoted(miss.placeID)),\"avoidable\":\(miss.avoidable)")
            )
        }
        return "{\"type\":\"FeatureCollection\",\"features\":[\n" + features.joined(separator: ",\n") + "\n]}"
    }

    static func feature(_ geometry: String, _ properties: String) -> String {
        "{\"type\":\"Feature\",\"geometry\":\(geometry),\"properties\":{\(properties)}}"
    }

    static func number(_ value: Double) -> String { CSVWriter.decimal(value, decimals: 7) }

    static func position(_ lon: Double, _ lat: Double) -> String { "[\(number(lon)),\(number(lat))]" }

    /// Positions as written, a position that repeats the one before it once rounded dropped.
    static func positions(_ points: [(Double, Double)]) -> [String] {
        var written: [String] = []
        for point in points {
            let text = position(point.0, point.1)
            if written.last != text { written.append(text) }
        }
        return written
    }

    /// A closed ring's positions as written (repeats dropped, closed again), nil when fewer than
    /// three distinct positions are left.
    static func ring(_ points: [(Double, Double)]) -> String? {
        var written = positions(points)
        while written.count > 1 && written.last == written.first { written.removeLast() }
        guard Set(written).count >= 3 else { return nil }
        return "[" + (written + [written[0]]).joined(separator: ",") + "]"
    }

    /// Polygons of closed rings (shell first) as a Polygon or MultiPolygon; a ring that collapses
    /// when rounded is left out (a polygon with it, when it is the shell).
    static func polygons(_ polygons: [[[(Double, Double)]]]) -> String {
        let written = polygons.compactMap { rings -> String? in
            guard let shell = rings.first.flatMap(ring) else { return nil }
            return "[" + ([shell] + rings.dropFirst().compactMap(ring)).joined(separator: ",") + "]"
        }
        if written.count == 1 { return "{\"type\":\"Polygon\",\"coordinates\":\(written[0])}" }
        return "{\"type\":\"MultiPolygon\",\"coordinates\":[" + written.joined(separator: ",") + "]}"
    }

    static func point(_ c: Coordinate) -> String { "{\"type\":\"Point\",\"coordinates\":\(position(c.longitude, c.latitude))}" }

    /// A great-circle polyline; split where it crosses ±180°.
    static func line(_ coordinates: [Coordinate]) -> String {
        let parts = splitAtAntimeridian(coordinates)
        if parts.count == 1 {
            return "{\"type\":\"LineString\",\"coordinates\":[" + positions(parts[0]).joined(separator: ",") + "]}"
        }
        return "{\"type\":\"MultiLineString\",\"coordinates\":["
            + parts.map { "[" + positions($0).joined(separator: ",") + "]" }.joined(separator: ",") + "]}"
    }

    /// (lon, lat) runs of a polyline, cut where a step crosses ±180° (the crossing latitude
    /// interpolated on the unwrapped longitude).
    static func splitAtAntimeridian(_ coordinates: [Coordinate]) -> [[(Double, Double)]] {
        var parts: [[(Double, Double)]] = [[]]
        var previous: Coordinate?
        for c in coordinates {
            if let p = previous, abs(c.longitude - p.longitude) > 180 {
                let eastward = c.longitude < p.longitude  // e.g. 179 -> -179
                let target = eastward ? c.longitude + 360 : c.longitude - 360
                let edge = eastward ? 180.0 : -180.0
                let t = (edge - p.longitude) / (target - p.longitude)
                let lat = p.latitude + t * (c.latitude - p.latitude)
                parts[parts.count - 1].append((edge, lat))
                parts.append([(-edge, lat)])
            }
            parts[parts.count - 1].append((c.longitude, c.latitude))
            previous = c
        }
        return parts
    }

    /// A circle of `radiusMeters` as a Polygon, or a MultiPolygon when it crosses ±180°.
    static func circle(_ center: Coordinate, radiusMeters: Double) -> String {
        polygons(circlePolygons(center, radiusMeters: radiusMeters).map { [$0] })
    }

    /// Closed counter-clockwise (lon, lat) rings of a circle, split at ±180°.
    static func circlePolygons(_ center: Coordinate, radiusMeters: Double) -> [[(Double, Double)]] {
        // Counter-clockwise in (lon, lat): bearings decreasing from north.
        let vertices = (0..<circleVertices).map { i in
            center.destination(bearingDegrees: 360 - 360 * Double(i) / Double(circleVertices), distanceMeters: radiusMeters)
        }
        let north = Coordinate(validLatitude: 90, longitude: 0), south = Coordinate(validLatitude: -90, longitude: 0)
        for (pole, lat) in [(north, 90.0), (south, -90.0)] where center.distance(to: pole) <= radiusMeters {
            // The circle contains a pole: trace the boundary by longitude and close along the pole.
            var points = vertices.map { ($0.longitude, $0.latitude) }.sorted { $0.0 < $1.0 }
            if lat < 0 { points.reverse() }
            let first = points[0], last = points[points.count - 1]
            let start = lat > 0 ? -180.0 : 180.0
            var ring = [(start, first.1)] + points + [(-start, last.1), (-start, lat), (start, lat)]
            ring.append(ring[0])
            return [ring]
        }
        // Unwrap longitudes around the center's, then clip at ±180 and shift the overflow back.
        let unwrapped = vertices.map { v -> (Double, Double) in
            var d = v.longitude - center.longitude
            if d > 180 { d -= 360 }
            if d < -180 { d += 360 }
            return (center.longitude + d, v.latitude)
        }
        let maxLon = unwrapped.map(\.0).max() ?? 0, minLon = unwrapped.map(\.0).min() ?? 0
        func closed(_ ring: [(Double, Double)]) -> [(Double, Double)] { ring.isEmpty ? ring : ring + [ring[0]] }
        if maxLon <= 180 && minLon >= -180 { return [closed(unwrapped)] }
        let edge = maxLon > 180 ? 180.0 : -180.0
        let inside = clip(unwrapped, atLongitude: edge, keepBelow: edge > 0)
        let outside = clip(unwrapped, atLongitude: edge, keepBelow: edge < 0).map { ($0.0 - 2 * edge, $0.1) }
        return [closed(inside), closed(outside)].filter { $0.count >= 4 }
    }

    /// A footprint as a Polygon, or a MultiPolygon when it has several parts or a part crosses
    /// ±180°: its rings as stored (shells counterclockwise, holes clockwise), each closed.
    static func footprint(_ shape: SphericalMultiPolygon) -> String { polygons(shape.parts.flatMap(footprintPolygons)) }

    /// One part of a footprint as GeoJSON polygons, each its closed (lon, lat) rings, shell
    /// first. Longitudes are unwrapped about the part's enclosing cap's center, so a part cut at
    /// the antimeridian keeps its seam on its own side (−180 or 180); a part across ±180° is
    /// clipped into the piece on each side; a part around a pole is traced by longitude and closed
    /// along the pole, as a circle is.
    static func footprintPolygons(_ part: SphericalPolygon) -> [[[(Double, Double)]]] {
        for (pole, latitude) in [(UnitVector(x: 0, y: 0, z: 1), 90.0), (UnitVector(x: 0, y: 0, z: -1), -90.0)] where part.contains(pole) {
            return [[polarRing(part.shell, poleLatitude: latitude)] + part.holes.flatMap { piecesAtAntimeridian($0) }]
        }
        let reference = Coordinate(part.cap.center).longitude
        let shell = unwrapped(part.shell, about: reference)
        let holes = part.holes.map { unwrapped($0, about: reference) }
        let longitudes = ([shell] + holes).flatMap { $0.map(\.0) }
        let maxLon = longitudes.max() ?? 0, minLon = longitudes.min() ?? 0
        func closed(_ ring: [(Double, Double)]) -> [(Double, Double)] { ring.isEmpty ? ring : ring + [ring[0]] }
        if maxLon <= 180 && minLon >= -180 { return [([shell] + holes).map(closed)] }
        let edge = maxLon > 180 ? 180.0 : -180.0
        let (west, east) = split([shell] + holes, atLongitude: edge)
        // The piece beyond ±180° moves a turn back.
        let beyond = edge > 0 ? east : west
        let within = edge > 0 ? west : east
        return within + beyond.map { polygon in polygon.map { ring in ring.map { ($0.0 - 2 * edge, $0.1) } } }
    }

    /// The polygon of `rings` (shell first, counterclockwise; holes clockwise; not closed) cut
    /// along the meridian line at `longitude` in the (lon, lat) plane, Weiler–Atherton's way:
    /// each ring's runs on one side, between the points where it crosses the line, are joined
    /// along the line (northward on the west side, southward on the east, keeping the inside on
    /// the left) into the pieces' shells; a hole wholly on one side goes to the piece holding
    /// it. Returns the west and east pieces, each a list of polygons of closed rings. A vertex on
    /// the line counts as east.
    static func split(_ rings: [[(Double, Double)]], atLongitude line: Double) -> (
        west: [[[(Double, Double)]]], east: [[[(Double, Double)]]]
    ) {
        typealias Point = (Double, Double)
        func closed(_ ring: [Point]) -> [Point] { ring.isEmpty ? ring : ring + [ring[0]] }
        func pieces(west: Bool) -> [[[Point]]] {
            var fragments: [[Point]] = []
            var whole: [[Point]] = []  // holes wholly on this side
            for (r, ring) in rings.enumerated() {
                let onSide = ring.map { ($0.0 < line) == west }
                if onSide.allSatisfy({ $0 }) {
                    if r > 0 { whole.append(ring) }
                    continue
                }
                if !onSide.contains(true) { continue }
                // Start just after a vertex off this side, so every run is whole.
                let first = onSide.firstIndex(of: false)!
                var run: [Point] = []
                for step in 1...ring.count {
                    let i = (first + step) % ring.count, previous = (first + step - 1) % ring.count
                    let a = ring[previous], b = ring[i]
                    if onSide[previous] != onSide[i] {
                        let crossing = (line, a.1 + (line - a.0) / (b.0 - a.0) * (b.1 - a.1))
                        if onSide[i] {
                            run = [crossing]
                        } else {
                            run.append(crossing)
                            fragments.append(run)
                            run = []
                        }
                    }
                    if onSide[i] { run.append(b) }
                }
            }
            // Join the runs along the line: from a run's end to the nearest run start beyond it
            // (north on the west side, south on the east).
            var shells: [[Point]] = []
            var unused = Set(fragments.indices)
            while let start = unused.min() {
                unused.remove(start)
                var ring = fragments[start]
                while true {
                    let end = ring[ring.count - 1].1
                    let next = fragments.indices.filter { unused.contains($0) || $0 == start }
                        .filter { west ? fragments[$0][0].1 > end : fragments[$0][0].1 < end }
                        .min { abs(fragments[$0][0].1 - end) < abs(fragments[$1][0].1 - end) }
                    guard let next, next != start else { break }
                    unused.remove(next)
                    ring += fragments[next]
                }
                shells.append(ring)
            }
            func contains(_ ring: [Point], _ p: Point) -> Bool {
                var inside = false
                for i in ring.indices {
                    let a = ring[i], b = ring[(i + 1) % ring.count]
                    if (a.1 > p.1) != (b.1 > p.1) && p.0 < a.0 + (p.1 - a.1) / (b.1 - a.1) * (b.0 - a.0) { inside.toggle() }
                }
                return inside
            }
            return shells.map { shell in [closed(shell)] + whole.filter { contains(shell, $0[0]) }.map(closed) }
        }
        return (pieces(west: true), pieces(west: false))
    }

    /// A ring's (lon, lat) with each longitude within 180° of `reference`; a longitude within
    /// 10⁻⁹° of ±180 is ±180 exactly (a vertex on the antimeridian stays on its side's seam).
    static func unwrapped(_ ring: [UnitVector], about reference: Double) -> [(Double, Double)] {
        ring.map { vertex in
            let c = Coordinate(vertex)
            var d = c.longitude - reference
            if d > 180 { d -= 360 }
            if d < -180 { d += 360 }
            var longitude = reference + d
            if abs(abs(longitude) - 180) < 1e-9 { longitude = longitude > 0 ? 180 : -180 }
            return (longitude, c.latitude)
        }
    }

    /// A ring (a hole) as closed (lon, lat) rings within ±180°: whole, or clipped at ±180° into
    /// the piece on each side, unwrapped about its first vertex.
    static func piecesAtAntimeridian(_ ring: [UnitVector]) -> [[(Double, Double)]] {
        let points = unwrapped(ring, about: Coordinate(ring[0]).longitude)
        func closed(_ ring: [(Double, Double)]) -> [(Double, Double)] { ring.isEmpty ? ring : ring + [ring[0]] }
        let maxLon = points.map(\.0).max() ?? 0, minLon = points.map(\.0).min() ?? 0
        if maxLon <= 180 && minLon >= -180 { return [closed(points)] }
        let edge = maxLon > 180 ? 180.0 : -180.0
        // A hole alone, cut as a shell would be (reversed there and back: holes run clockwise).
        let (west, east) = split([points.reversed()], atLongitude: edge)
        let within = (edge > 0 ? west : east).map { $0[0] }
        let beyond = (edge > 0 ? east : west).map { $0[0].map { ($0.0 - 2 * edge, $0.1) } }
        return (within + beyond).map { $0.reversed() }
    }

    /// A shell around a pole as one closed (lon, lat) ring: its longitudes unwrapped along the
    /// ring (a full turn, eastward around the north pole and westward around the south one, as a
    /// counterclockwise shell runs), cut where the turn passes ±180°, and closed along the pole.
    static func polarRing(_ ring: [UnitVector], poleLatitude: Double) -> [(Double, Double)] {
        let coordinates = ring.map(Coordinate.init)
        var path: [(Double, Double)] = [(coordinates[0].longitude, coordinates[0].latitude)]
        for c in coordinates.dropFirst() + [coordinates[0]] {
            var d = c.longitude - path[path.count - 1].0
            d -= 360 * (d / 360).rounded()
            path.append((path[path.count - 1].0 + d, c.latitude))
        }
        let turn = path[path.count - 1].0 - path[0].0  // about ±360
        let eastward = turn > 0
        // The first longitude ≡ 180 (mod 360) past the start in the direction of the turn, and
        // the step that reaches it.
        let start = path[0].0
        let cut = eastward ? 180 + 360 * ((start - 180) / 360 + 1).rounded(.down) : 180 + 360 * ((start - 180) / 360 - 1).rounded(.up)
        let crossing =
            path.indices.dropLast().first { i in eastward ? path[i + 1].0 >= cut : path[i + 1].0 <= cut } ?? path.count - 2
        let a = path[crossing], b = path[crossing + 1]
        let t = b.0 == a.0 ? 0 : (cut - a.0) / (b.0 - a.0)
        let latitude = a.1 + t * (b.1 - a.1)
        // From the cut around the pole to the cut one turn on, shifted into ±180, then along
        // the pole back to the start.
        let shift = (eastward ? -180.0 : 180.0) - cut
        var traced: [(Double, Double)] = [(cut + shift, latitude)]
        for point in path[(crossing + 1)...].dropLast() { traced.append((point.0 + shift, point.1)) }
        for point in path[0...crossing] { traced.append((point.0 + turn + shift, point.1)) }
        let end = cut + turn + shift
        traced += [(end, latitude), (end, poleLatitude), (cut + shift, poleLatitude), (cut + shift, latitude)]
        // Rounding may leave a longitude a hair beyond ±180, and a vertex on the cut repeats it.
        var ring: [(Double, Double)] = []
        for point in traced.map({ (min(180, max(-180, $0.0)), $0.1) }) where ring.last.map({ $0 != point }) ?? true {
            ring.append(point)
        }
        return ring
    }

    /// Sutherland–Hodgman: the part of a ring on one side of a meridian line.
    static func clip(_ ring: [(Double, Double)], atLongitude x: Double, keepBelow: Bool) -> [(Double, Double)] {
        func keeps(_ p: (Double, Double)) -> Bool { keepBelow ? p.0 <= x : p.0 >= x }
        var output: [(Double, Double)] = []
        for (i, current) in ring.enumerated() {
            let previous = ring[(i + ring.count - 1) % ring.count]
            let crossing: (Double, Double) = {
                let t = (x - previous.0) / (current.0 - previous.0)
                return (x, previous.1 + t * (current.1 - previous.1))
            }()
            if keeps(current) {
                if !keeps(previous) { output.append(crossing) }
                output.append(current)
            } else if keeps(previous) {
                output.append(crossing)
            }
        }
        return output
    }
}

extension GeoJSONWriter {
    /// The rings `circle` writes (for tests).
    package static func circlePolygonsForTesting(_ center: Coordinate, radiusMeters: Double) -> [[(Double, Double)]] {
        circlePolygons(center, radiusMeters: radiusMeters)
    }

    /// The polygons `footprint` writes, each its closed (lon, lat) rings (for tests).
    package static func footprintPolygonsForTesting(_ shape: SphericalMultiPolygon) -> [[[(Double, Double)]]] {
        shape.parts.flatMap(footprintPolygons)
    }

    /// The geometry object `footprint` writes (for tests).
    package static func footprintForTesting(_ shape: SphericalMultiPolygon) -> String { footprint(shape) }

    /// The runs `line` writes (for tests).
    package static func splitForTesting(_ coordinates: [Coordinate]) -> [[(Double, Double)]] {
        splitAtAntimeridian(coordinates)
    }
}
