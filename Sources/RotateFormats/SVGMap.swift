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
        let canvas = Canvas(fitting: record, width: width)
        // Drawn back to front: the refresh circles are the largest, so they go behind the rest.
        var svg = canvas.background()
        svg += canvas.refreshCircles(record.reselections)
        svg += canvas.fences(record.places, monitored: record.monitored)
        svg += canvas.walk(record.walk)
        svg += canvas.reselectionPoints(record.reselections)
        svg += canvas.misses(record.misses)
        svg += canvas.placeEvents(record.placeEvents)
        svg += canvas.visits(record.visits)
        svg += canvas.scaleBar()
        svg += canvas.legend(title: title)
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

extension SVGMap {
    /// The map's frame: the projection center, the visible extent in projected meters and the
    /// scale to pixels; each drawing method returns the SVG lines of one layer.
    private struct Canvas {
        /// The projection's center.
        let center: Coordinate
        /// The document's size, pixels.
        let width: Double
        let height: Double
        /// The projected meters shown across the width (a fifth of it sets the scale bar).
        let meters: Double
        /// Pixels per projected meter.
        let scale: Double
        /// The top left corner of the extent, projected meters.
        let minX: Double
        let minY: Double
        /// The horizontal shift, pixels, that centers an extent narrower than the width.
        let offsetX: Double

        /// The frame that fits the walk and the monitored places (a 1 km square around the
        /// center when there is neither), with a margin of 6 % of the larger side, taken as at
        /// least 200 m. The width shows at least 0.6 times the extent's height: a tall extent
        /// makes a tall document (at least 400 pixels high) with the extent centered across it.
        init(fitting record: PlanRecord, width: Double) {
            let center = SVGMap.center(of: record.walk.isEmpty ? record.places.map(\.coordinate) : record.walk)
            var focus = record.walk.map { Self.project($0, from: center) }
            for place in record.places where record.monitored[place.id] != nil {
                let p = Self.project(place.coordinate, from: center)
                focus += [(p.x - place.radiusMeters, p.y - place.radiusMeters), (p.x + place.radiusMeters, p.y + place.radiusMeters)]
            }
            if focus.isEmpty { focus = [(-500, -500), (500, 500)] }
            var minX = focus.map(\.x).min() ?? 0, maxX = focus.map(\.x).max() ?? 0
            var minY = focus.map(\.y).min() ?? 0, maxY = focus.map(\.y).max() ?? 0
            let span = max(maxX - minX, maxY - minY, 200)
            let pad = span * 0.06
            minX -= pad; maxX += pad; minY -= pad; maxY += pad
            let meters = max(maxX - minX, (maxY - minY) * 0.6)
            let scale = width / meters
            self.center = center
            self.width = width
            self.height = max(400, (maxY - minY) * scale)
            self.meters = meters
            self.scale = scale
            self.minX = minX
            self.minY = minY
            self.offsetX = (width - (maxX - minX) * scale) / 2
        }

        /// `c` in the azimuthal equidistant projection around `center`: meters east (x) and
        /// south (y, down as on screen) of it.
        static func project(_ c: Coordinate, from center: Coordinate) -> (x: Double, y: Double) {
            let d = center.distance(to: c)
            guard d > 0 else { return (0, 0) }
            let bearing = center.initialBearingDegrees(to: c) * Double.pi / 180
            return (d * sin(bearing), -d * cos(bearing))
        }

        /// `c` in pixels from the document's top left corner.
        func screen(_ c: Coordinate) -> (Double, Double) {
            let p = Self.project(c, from: center)
            return ((p.x - minX) * scale + offsetX, (p.y - minY) * scale)
        }

        /// A number as written in the document: one decimal.
        func f(_ v: Double) -> String { CSVWriter.decimal(v, decimals: 1) }

        /// A circle of `radius` meters around `center` as the points of a 48-gon, in pixels.
        func ring(_ center: Coordinate, _ radius: Double) -> String {
            (0..<48).map { i -> String in
                let (x, y) = screen(center.destination(bearingDegrees: 7.5 * Double(i), distanceMeters: radius))
                return "\(f(x)),\(f(y))"
            }.joined(separator: " ")
        }

        /// `s` escaped for XML text and attribute values.
        func escape(_ s: String) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(
                of: ">", with: "&gt;"
            )
            .replacingOccurrences(of: "\"", with: "&quot;")
        }

        /// The opening `svg` element and the paper.
        func background() -> [String] {
            [
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(f(width))\" height=\"\(f(height))\" viewBox=\"0 0 \(f(width)) \(f(height))\" font-family=\"sans-serif\" font-size=\"13\">",
                "<rect width=\"100%\" height=\"100%\" fill=\"#fbfbf8\"/>",
            ]
        }

        /// Each reselection's refresh circle (none of radius 0), dashed blue.
        func refreshCircles(_ reselections: [PlanRecord.Reselection]) -> [String] {
            var svg = ["<g fill=\"none\" stroke=\"#3b7dd8\" stroke-width=\"1.2\" stroke-dasharray=\"6 4\" opacity=\"0.7\">"]
            for r in reselections {
                if let refresh = r.refresh, refresh.radiusMeters > 0 {
                    svg.append(
                        "<polygon points=\"\(ring(refresh.center, refresh.radiusMeters))\"><title>\(escape(refresh.id)) at fix \(r.fix): \(f(refresh.radiusMeters)) m, \(r.guarantee.name)</title></polygon>"
                    )
                }
            }
            svg.append("</g>")
            return svg
        }

        /// The fences: never monitored in gray, monitored at some point in orange.
        func fences(_ places: [Place], monitored: [String: [ClosedRange<Int>]]) -> [String] {
            places.map { place in
                let monitored = monitored[place.id] != nil
                let style =
                    monitored
                    ? "fill=\"#f5a623\" fill-opacity=\"0.45\" stroke=\"#c77700\""
                    : "fill=\"#9a9a9a\" fill-opacity=\"0.18\" stroke=\"#8a8a8a\""
                if let footprint = place.footprint {
                    return
                        "<path d=\"\(outline(footprint))\" fill-rule=\"evenodd\" \(style) stroke-width=\"1\"><title>\(escape(place.name ?? place.id)) (\(escape(place.id)), footprint of \(footprint.vertexCount) vertices, \(f(footprint.areaSquareMeters)) m², registered by a circle of \(f(place.radiusMeters)) m)\(monitored ? ", monitored" : "")</title></path>"
                }
                return
                    "<polygon points=\"\(ring(place.coordinate, place.radiusMeters))\" \(style) stroke-width=\"1\"><title>\(escape(place.name ?? place.id)) (\(escape(place.id)), \(f(place.radiusMeters)) m)\(monitored ? ", monitored" : "")</title></polygon>"
            }
        }

        /// A footprint's rings as an SVG path, one closed subpath each (holes cut out by the
        /// even-odd rule); edges drawn straight between projected vertices, as they are at the
        /// map's scale.
        func outline(_ footprint: SphericalMultiPolygon) -> String {
            footprint.parts.flatMap { [$0.shell] + $0.holes }.map { ring in
                "M"
                    + ring.map { vertex in
                        let (x, y) = screen(Coordinate(vertex))
                        return "\(f(x)),\(f(y))"
                    }.joined(separator: " L") + " Z"
            }.joined(separator: " ")
        }

        /// The walk as a line, its start a green dot and its end a square.
        func walk(_ walk: [Coordinate]) -> [String] {
            let path = walk.map { c -> String in
                let (x, y) = screen(c); return "\(f(x)),\(f(y))"
            }.joined(separator: " ")
            var svg = ["<polyline points=\"\(path)\" fill=\"none\" stroke=\"#1f2d5a\" stroke-width=\"2\" stroke-linejoin=\"round\"/>"]
            if let first = walk.first, let last = walk.last {
                let (sx, sy) = screen(first), (ex, ey) = screen(last)
                svg.append(
                    "<circle cx=\"\(f(sx))\" cy=\"\(f(sy))\" r=\"6\" fill=\"#2e9e44\" stroke=\"white\" stroke-width=\"1.5\"><title>start</title></circle>"
                )
                svg.append(
                    "<rect x=\"\(f(ex - 5))\" y=\"\(f(ey - 5))\" width=\"10\" height=\"10\" fill=\"#1f2d5a\" stroke=\"white\" stroke-width=\"1.5\"><title>end</title></rect>"
                )
            }
            return svg
        }

        /// A dot per reselection: blue when exact, red when degraded or saturated.
        func reselectionPoints(_ reselections: [PlanRecord.Reselection]) -> [String] {
            reselections.map { r in
                let (x, y) = screen(r.position)
                let color = r.guarantee == .exact ? "#3b7dd8" : "#d0021b"
                return
                    "<circle cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"4.5\" fill=\"\(color)\" stroke=\"white\" stroke-width=\"1\"><title>reselect at fix \(r.fix): +\(r.started) −\(r.stopped), \(r.guarantee.name)</title></circle>"
            }
        }

        /// A red cross per miss.
        func misses(_ misses: [PlanRecord.Miss]) -> [String] {
            misses.map { miss in
                let (x, y) = screen(miss.position)
                return
                    "<path d=\"M\(f(x - 6)),\(f(y - 6)) L\(f(x + 6)),\(f(y + 6)) M\(f(x - 6)),\(f(y + 6)) L\(f(x + 6)),\(f(y - 6))\" stroke=\"#d0021b\" stroke-width=\"3\"><title>missed \(escape(miss.placeID))</title></path>"
            }
        }

        /// The place events: entries green triangles pointing up, exits purple ones pointing
        /// down; filled when decided in-app, hollow when the platform reported them.
        func placeEvents(_ marks: [PlanRecord.PlaceMark]) -> [String] {
            marks.map { mark in
                let (x, y) = screen(mark.position)
                let color = mark.entry ? "#2e9e44" : "#7b3fb0"
                let fill = mark.inApp ? "fill=\"\(color)\"" : "fill=\"white\""
                let shape =
                    mark.entry
                    ? "<path d=\"M\(f(x)),\(f(y - 6)) L\(f(x + 5)),\(f(y + 4)) L\(f(x - 5)),\(f(y + 4)) Z\""
                    : "<path d=\"M\(f(x)),\(f(y + 6)) L\(f(x + 5)),\(f(y - 4)) L\(f(x - 5)),\(f(y - 4)) Z\""
                return shape
                    + " \(fill) stroke=\"\(color)\" stroke-width=\"1.5\"><title>\(mark.entry ? "entry" : "exit") \(escape(mark.placeID)) (\(mark.inApp ? "in-app" : "platform"))</title></path>"
            }
        }

        /// The store visits: teal diamonds at the stay's mean, labelled above and to the right
        /// (on a white halo, over the walk) with the place they name ("none" when none of the
        /// places is likely enough).
        func visits(_ marks: [PlanRecord.VisitMark]) -> [String] {
            marks.map { mark in
                let (x, y) = screen(mark.position)
                let name = mark.placeID.map(escape) ?? "none"
                let minutes = Int(mark.arrivalSeconds / 60)
                return
                    "<g><path d=\"M\(f(x)),\(f(y - 8)) L\(f(x + 7)),\(f(y)) L\(f(x)),\(f(y + 8)) L\(f(x - 7)),\(f(y)) Z\" fill=\"#0b7a75\" stroke=\"white\" stroke-width=\"1.5\"/>"
                    + "<text x=\"\(f(x + 9))\" y=\"\(f(y - 9))\" fill=\"#0b7a75\" font-weight=\"bold\" stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\">\(name)</text>"
                    + "<title>visit at \(name), p \(CSVWriter.decimal(mark.probability, decimals: 2)), from \(minutes) min</title></g>"
            }
        }

        /// A scale bar at the bottom left: the round length (1, 2 or 5 times a power of ten)
        /// nearest below a fifth of the width, labeled in m or km.
        func scaleBar() -> [String] {
            let target = meters / 5
            let magnitude = pow(10, floor(log10(target)))
            let barMeters = [1.0, 2, 5, 10].map { $0 * magnitude }.last { $0 <= target } ?? magnitude
            let barPixels = barMeters * scale
            let barLabel =
                barMeters >= 1_000
                ? "\(CSVWriter.decimal(barMeters / 1_000, decimals: 1)) km" : "\(CSVWriter.decimal(barMeters, decimals: 0)) m"
            let by = height - 24
            return [
                "<g stroke=\"#222\" stroke-width=\"2\"><line x1=\"20\" y1=\"\(f(by))\" x2=\"\(f(20 + barPixels))\" y2=\"\(f(by))\"/>"
                    + "<line x1=\"20\" y1=\"\(f(by - 6))\" x2=\"20\" y2=\"\(f(by + 6))\"/><line x1=\"\(f(20 + barPixels))\" y1=\"\(f(by - 6))\" x2=\"\(f(20 + barPixels))\" y2=\"\(f(by + 6))\"/></g>",
                "<text x=\"\(f(20 + barPixels / 2))\" y=\"\(f(by - 10))\" text-anchor=\"middle\" fill=\"#222\">\(barLabel)</text>",
            ]
        }

        /// The north arrow at the top right, then a box at the top left with the title (escaped)
        /// and a symbol and label for each kind of mark.
        func legend(title: String) -> [String] {
            var svg = [
                "<text x=\"\(f(width - 24))\" y=\"28\" text-anchor=\"middle\" font-weight=\"bold\" fill=\"#222\">N</text><path d=\"M\(f(width - 24)),34 l-6,14 l6,-4 l6,4 z\" fill=\"#222\"/>",
                "<rect x=\"10\" y=\"10\" width=\"300\" height=\"210\" rx=\"6\" fill=\"white\" fill-opacity=\"0.9\" stroke=\"#bbb\"/>",
                "<text x=\"20\" y=\"30\" font-weight=\"bold\" fill=\"#222\">\(escape(title))</text>",
            ]
            for (i, (symbol, label)) in Self.legendEntries.enumerated() {
                svg.append(symbol + "<text x=\"44\" y=\"\(57 + 20 * i)\" fill=\"#222\">\(label)</text>")
            }
            return svg
        }

        /// The legend's rows, top to bottom: a symbol drawn at its row's height and its label.
        static let legendEntries: [(symbol: String, label: String)] = [
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
            ("<path d=\"M28,205 L34,211 L28,217 L22,211 Z\" fill=\"#0b7a75\"/>", "store visit (the place it names)"),
        ]
    }
}
