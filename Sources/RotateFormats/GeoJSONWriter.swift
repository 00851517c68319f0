import FencePlanner
import Foundation
import Geodesy

/// Writes a plan as a GeoJSON FeatureCollection (RFC 7946): fences and refresh circles as
/// 64-vertex polygons (counter-clockwise, split at ±180° into a MultiPolygon, closed over a pole
/// when they contain one), the walk as a LineString (a MultiLineString when it crosses ±180°),
/// reselection points and misses as Points. Each place says whether and when it was monitored.
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
            features.append(feature(circle(place.coordinate, radiusMeters: place.radiusMeters), properties))
        }
        for reselection in record.reselections {
            if let refresh = reselection.refresh, refresh.radiusMeters > 0 {
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

    static func point(_ c: Coordinate) -> String { "{\"type\":\"Point\",\"coordinates\":\(position(c.longitude, c.latitude))}" }

    /// A great-circle polyline; split where it crosses ±180°.
    static func line(_ coordinates: [Coordinate]) -> String {
        let parts = splitAtAntimeridian(coordinates)
        if parts.count == 1 {
            return "{\"type\":\"LineString\",\"coordinates\":[" + parts[0].map { position($0.0, $0.1) }.joined(separator: ",") + "]}"
        }
        return "{\"type\":\"MultiLineString\",\"coordinates\":["
            + parts.map { "[" + $0.map { position($0.0, $0.1) }.joined(separator: ",") + "]" }.joined(separator: ",") + "]}"
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
        let polygons = circlePolygons(center, radiusMeters: radiusMeters)
        func ring(_ points: [(Double, Double)]) -> String { "[[" + points.map { position($0.0, $0.1) }.joined(separator: ",") + "]]" }
        if polygons.count == 1 { return "{\"type\":\"Polygon\",\"coordinates\":\(ring(polygons[0]))}" }
        return "{\"type\":\"MultiPolygon\",\"coordinates\":[" + polygons.map(ring).joined(separator: ",") + "]}"
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

    /// The runs `line` writes (for tests).
    package static func splitForTesting(_ coordinates: [Coordinate]) -> [[(Double, Double)]] {
        splitAtAntimeridian(coordinates)
    }
}
