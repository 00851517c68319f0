import FencePlanner
import Foundation
import Geodesy

/// Draws a plan as an SVG map a person can read at a glance: fence circles (monitored ones
/// highlighted), the walk, reselection points with their refresh circles, misses, a scale bar and
/// a legend.
///
/// Projection: azimuthal equidistant centered on the walk (distances and bearings from the center
/// are true, north is up at the center), which has no cut at ±180° and no singularity at the
/// poles, so date-line and polar walks draw as they are.
public enum SVGMap {
    /// The record as one SVG document, `width` pixels wide and at least 400 high (the height
    /// follows the extent of the walk and the monitored places), with `title` at the top (escaped
    /// for XML). Without a walk the map centers on the places.
    public static func document(_ record: PlanRecord, title: String, width: Double = 1_000) -> String {
        let center = center(of: record.walk.isEmpty ? record.places.map(\.coordinate) : record.walk)
        func project(_ c: Coordinate) -> (x: Double, y: Double) {
            let d = center.distance(to: c)
            guard d > 0 else { return (0, 0) }
            let bearing = center.initialBearingDegrees(to: c) * Double.pi / 180
            return (d * sin(bearing), -d * cos(bearing))
        }
        // Fit the walk and the monitored places, with a margin.
        var focus = record.walk.map(project)
        for place in record.places where record.monitored[place.id] != nil {
            let p = project(place.coordinate)
            focus += [(p.x - place.radiusMeters, p.y - place.radiusMeters), (p.x + place.radiusMeters, p.y + place.radiusMeters)]
        }
        if focus.isEmpty { focus = [(-500, -500), (500, 500)] }
        var minX = focus.map(\.x).min()!, maxX = focus.map(\.x).max()!
        var minY = focus.map(\.y).min()!, maxY = focus.map(\.y).max()!
        let span = max(maxX - minX, maxY - minY, 200)
        let pad = span * 0.06
        minX -= pad; maxX += pad; minY -= pad; maxY += pad
        let meters = max(maxX - minX, (maxY - minY) * 0.6)
        let scale = width / meters
        let height = max(400, (maxY - minY) * scale)
        let offsetX = (width - (maxX - minX) * scale) / 2
        func screen(_ c: Coordinate) -> (Double, Double) {
            let p = project(c)
            return ((p.x - minX) * scale + offsetX, (p.y - minY) * scale)
        }
        func f(_ v: Double) -> String { CSVWriter.decimal(v, decimals: 1) }
        func ring(_ center: Coordinate, _ radius: Double) -> String {
            (0..<48).map { i -> String in
                let (x, y) = screen(center.destination(bearingDegrees: 7.5 * Double(i), distanceMeters: radius))
                return "\(f(x)),\(f(y))"
            }.joined(separator: " ")
        }
        func escape(_ s: String) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(
                of: ">", with: "&gt;"
            )
            .replacingOccurrences(of: "\"", with: "&quot;")
        }

        var svg: [String] = []
        svg.append(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(f(width))\" height=\"\(f(height))\" viewBox=\"0 0 \(f(width)) \(f(height))\" font-family=\"sans-serif\" font-size=\"13\">"
        )
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"#fbfbf8\"/>")
        // Refresh circles first (largest, behind everything).
        svg.append("<g fill=\"none\" stroke=\"#3b7dd8\" stroke-width=\"1.2\" stroke-dasharray=\"6 4\" opacity=\"0.7\">")
        for r in record.reselections {
            if let refresh = r.refresh, refresh.radiusMeters > 0 {
                svg.append(
                    "<polygon points=\"\(ring(refresh.center, refresh.radiusMeters))\"><title>\(escape(refresh.id)) at fix \(r.fix): \(f(refresh.radiusMeters)) m, \(r.guarantee.name)</title></polygon>"
                )
            }
        }
        svg.append("</g>")
        // Fences: never monitored in gray, monitored at some point in orange.
        for place in record.places {
            let monitored = record.monitored[place.id] != nil
            let style =
                monitored
                ? "fill=\"#f5a623\" fill-opacity=\"0.45\" stroke=\"#c77700\"" : "fill=\"#9a9a9a\" fill-opacity=\"0.18\" stroke=\"#8a8a8a\""
            svg.append(
                "<polygon points=\"\(ring(place.coordinate, place.radiusMeters))\" \(style) stroke-width=\"1\"><title>\(escape(place.name ?? place.id)) (\(escape(place.id)), \(f(place.radiusMeters)) m)\(monitored ? ", monitored" : "")</title></polygon>"
            )
        }
        // The walk.
        let path = record.walk.map { c -> String in
            let (x, y) = screen(c); return "\(f(x)),\(f(y))"
        }.joined(separator: " ")
        svg.append("<polyline points=\"\(path)\" fill=\"none\" stroke=\"#1f2d5a\" stroke-width=\"2\" stroke-linejoin=\"round\"/>")
        if let first = record.walk.first, let last = record.walk.last {
            let (sx, sy) = screen(first), (ex, ey) = screen(last)
            svg.append(
                "<circle cx=\"\(f(sx))\" cy=\"\(f(sy))\" r=\"6\" fill=\"#2e9e44\" stroke=\"white\" stroke-width=\"1.5\"><title>start</title></circle>"
            )
            svg.append(
                "<rect x=\"\(f(ex - 5))\" y=\"\(f(ey - 5))\" width=\"10\" height=\"10\" fill=\"#1f2d5a\" stroke=\"white\" stroke-width=\"1.5\"><title>end</title></rect>"
            )
        }
        // Reselection points.
        for r in record.reselections {
            let (x, y) = screen(r.position)
            let color = r.guarantee == .exact ? "#3b7dd8" : "#d0021b"
            svg.append(
                "<circle cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"4.5\" fill=\"\(color)\" stroke=\"white\" stroke-width=\"1\"><title>reselect at fix \(r.fix): +\(r.started) −\(r.stopped), \(r.guarantee.name)</title></circle>"
            )
        }
        // Misses.
        for miss in record.misses {
            let (x, y) = screen(miss.position)
            svg.append(
                "<path d=\"M\(f(x - 6)),\(f(y - 6)) L\(f(x + 6)),\(f(y + 6)) M\(f(x - 6)),\(f(y + 6)) L\(f(x + 6)),\(f(y - 6))\" stroke=\"#d0021b\" stroke-width=\"3\"><title>missed \(escape(miss.placeID))</title></path>"
            )
        }
        // Place events: entries green, exits purple; filled when decided in-app, hollow when the
        // platform reported them.
        for mark in record.placeEvents {
            let (x, y) = screen(mark.position)
            let color = mark.entry ? "#2e9e44" : "#7b3fb0"
            let fill = mark.inApp ? "fill=\"\(color)\"" : "fill=\"white\""
            let shape =
                mark.entry
                ? "<path d=\"M\(f(x)),\(f(y - 6)) L\(f(x + 5)),\(f(y + 4)) L\(f(x - 5)),\(f(y + 4)) Z\""
                : "<path d=\"M\(f(x)),\(f(y + 6)) L\(f(x + 5)),\(f(y - 4)) L\(f(x - 5)),\(f(y - 4)) Z\""
            svg.append(
                shape
                    + " \(fill) stroke=\"\(color)\" stroke-width=\"1.5\"><title>\(mark.entry ? "entry" : "exit") \(escape(mark.placeID)) (\(mark.inApp ? "in-app" : "platform"))</title></path>"
            )
        }
        // Scale bar: a round length near a fifth of the width.
        let target = meters / 5
        let magnitude = pow(10, floor(log10(target)))
        let barMeters = [1.0, 2, 5, 10].map { $0 * magnitude }.last { $0 <= target } ?? magnitude
        let barPixels = barMeters * scale
        let barLabel =
            barMeters >= 1_000
            ? "\(CSVWriter.decimal(barMeters / 1_000, decimals: 1)) km" : "\(CSVWriter.decimal(barMeters, decimals: 0)) m"
        let by = height - 24
        svg.append(
            "<g stroke=\"#222\" stroke-width=\"2\"><line x1=\"20\" y1=\"\(f(by))\" x2=\"\(f(20 + barPixels))\" y2=\"\(f(by))\"/>"
                + "<line x1=\"20\" y1=\"\(f(by - 6))\" x2=\"20\" y2=\"\(f(by + 6))\"/><line x1=\"\(f(20 + barPixels))\" y1=\"\(f(by - 6))\" x2=\"\(f(20 + barPixels))\" y2=\"\(f(by + 6))\"/></g>"
        )
        svg.append("<text x=\"\(f(20 + barPixels / 2))\" y=\"\(f(by - 10))\" text-anchor=\"middle\" fill=\"#222\">\(barLabel)</text>")
        // North arrow, title and legend.
        svg.append(
            "<text x=\"\(f(width - 24))\" y=\"28\" text-anchor=\"middle\" font-weight=\"bold\" fill=\"#222\">N</text><path d=\"M\(f(width - 24)),34 l-6,14 l6,-4 l6,4 z\" fill=\"#222\"/>"
        )
        svg.append("<rect x=\"10\" y=\"10\" width=\"300\" height=\"190\" rx=\"6\" fill=\"white\" fill-opacity=\"0.9\" stroke=\"#bbb\"/>")
        svg.append("<text x=\"20\" y=\"30\" font-weight=\"bold\" fill=\"#222\">\(escape(title))</text>")
        let legend: [(String, String)] = [
            (
                "<polygon points=\"22,48 34,48 34,58 22,58\" fill=\"#f5a623\" fill-opacity=\"0.45\" stroke=\"#c77700\"/>",
                "fence, monitored at some point"
            ),
            (
                "<polygon points=\"22,68 34,68 34,78 22,78\" fill=\"#9a9a9a\" fill-opacity=\"0.18\" stroke=\"#8a8a8a\"/>",
                "fence, never monitored"
            ),
            ("<line x1=\"20\" y1=\"93\" x2=\"36\" y2=\"93\" stroke=\"#1f2d5a\" stroke-width=\"2\"/>", "walk (start green, end square)"),
            ("<circle cx=\"28\" cy=\"113\" r=\"4.5\" fill=\"#3b7dd8\"/>", "reselection (red: degraded/saturated)"),
            ("<line x1=\"20\" y1=\"133\" x2=\"36\" y2=\"133\" stroke=\"#3b7dd8\" stroke-dasharray=\"6 4\"/>", "refresh circle"),
            ("<path d=\"M23,146 L33,156 M23,156 L33,146\" stroke=\"#d0021b\" stroke-width=\"3\"/>", "missed fence"),
            ("<path d=\"M28,166 L33,176 L23,176 Z\" fill=\"#2e9e44\" stroke=\"#2e9e44\"/>", "entry (filled: in-app; hollow: platform)"),
            ("<path d=\"M28,196 L33,186 L23,186 Z\" fill=\"#7b3fb0\" stroke=\"#7b3fb0\"/>", "exit (the same)"),
        ]
        for (i, (symbol, label)) in legend.enumerated() {
            svg.append(symbol + "<text x=\"44\" y=\"\(57 + 20 * i)\" fill=\"#222\">\(label)</text>")
        }
        svg.append("</svg>")
        return svg.joined(separator: "\n")
    }

    /// The normalized mean of the points' unit vectors (any point when they cancel out).
    static func center(of points: [Coordinate]) -> Coordinate {
        guard let first = points.first else { return Coordinate(validLatitude: 0, longitude: 0) }
        var sum = UnitVector(x: 0, y: 0, z: 0)
        for p in points { sum = sum + UnitVector(p) }
        return sum.length > 1e-9 ? Coordinate(sum) : first
    }
}
