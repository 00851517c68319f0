import FencePlanner
import Foundation
import Geodesy
import RotateJSON

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
    ///
    /// Only the fences that reach into the frame are drawn, and the legend says how many of the
    /// record's places that is; it lists only the kinds of mark the map shows. The walk's start
    /// and end are drawn over everything else, and every place event, miss and visit is labelled
    /// with its place's name (its id when it has none), a label moved aside where it would cover
    /// another.
    public static func document(_ record: PlanRecord, title: String, width: Double = 1_000) -> String {
        let canvas = Canvas(fitting: record, width: width)
        let shown = record.places.filter(canvas.shows)
        let monitoredShown = shown.filter { record.monitored[$0.id] != nil }.count
        let names = record.placeNames
        // Drawn back to front: the refresh circles are the largest, so they go behind the rest.
        var svg = canvas.background()
        svg += canvas.refreshCircles(record.reselections)
        svg += canvas.fences(shown, monitored: record.monitored)
        svg += canvas.walkLine(record.walk)
        svg += canvas.reselectionPoints(record.reselections)
        svg += canvas.misses(record.misses)
        svg += canvas.placeEvents(record.placeEvents)
        svg += canvas.visits(record.visits)
        svg += canvas.walkEnds(record.walk)
        svg += canvas.labels(Label.all(record, names: names))
        svg += canvas.scaleBar()
        let kinds = Legend.kinds(of: record, shown: shown)
        svg += canvas.legend(
            title: title,
            counts:
                "\(TextFormat.grouped(shown.count)) of \(TextFormat.grouped(record.catalogCount)) places in view (\(TextFormat.grouped(monitoredShown)) monitored)",
            kinds: kinds)
        svg.append("</svg>")
        return svg.joined(separator: "\n")
    }

    /// A text drawn beside a mark: the place it names.
    struct Label {
        var text: String
        var position: Coordinate
        var color: String

        /// The labels of a record's misses, place events and visits, in that order.
        static func all(_ record: PlanRecord, names: [String: String]) -> [Label] {
            record.misses.map { Label(text: "missed " + (names[$0.placeID] ?? $0.placeID), position: $0.position, color: "#d0021b") }
                + record.placeEvents.map { mark in
                    Label(text: names[mark.placeID] ?? mark.placeID, position: mark.position, color: mark.entry ? "#2e9e44" : "#7b3fb0")
                }
                + record.visits.map { mark in
                    Label(text: mark.placeID.map { names[$0] ?? $0 } ?? "visit, no place", position: mark.position, color: "#0b7a75")
                }
        }
    }

    /// The kinds of mark a legend can list, in its order.
    enum Legend: CaseIterable {
        case monitoredFence, otherFence, walk, exactReselection, inexactReselection, refreshCircle, miss, entry, exit, visit

        /// The kinds a map of `record` shows, its fences in view being `shown`.
        static func kinds(of record: PlanRecord, shown: [Place]) -> [Legend] {
            allCases.filter { kind in
                switch kind {
                case .monitoredFence: shown.contains { record.monitored[$0.id] != nil }
                case .otherFence: shown.contains { record.monitored[$0.id] == nil }
                case .walk: !record.walk.isEmpty
                case .exactReselection: record.reselections.contains { $0.guarantee == .exact }
                case .inexactReselection: record.reselections.contains { $0.guarantee != .exact }
                case .refreshCircle: record.reselections.contains { ($0.refresh?.radiusMeters ?? 0) > 0 }
                case .miss: !record.misses.isEmpty
                case .entry: record.placeEvents.contains(where: \.entry)
                case .exit: record.placeEvents.contains { !$0.entry }
                case .visit: !record.visits.isEmpty
                }
            }
        }
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
    struct Canvas {
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
            self.init(fitting: record.walk, places: record.places, isMonitored: { record.monitored[$0] != nil }, width: width)
        }

        /// The frame that fits `walk` and the places of `places` whose id `isMonitored` accepts.
        init(fitting walk: [Coordinate], places: [Place], isMonitored: (String) -> Bool, width: Double) {
            let center = SVGMap.center(of: walk.isEmpty ? places.map(\.coordinate) : walk)
            var focus = walk.map { Self.project($0, from: center) }
            for place in places where isMonitored(place.id) {
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

        /// Whether `place`'s fence (its circle, or its footprint's registering circle, which
        /// holds it) reaches into the frame.
        func shows(_ place: Place) -> Bool {
            let p = Self.project(place.coordinate, from: center)
            let (left, right) = (minX - offsetX / scale, minX + (width - offsetX) / scale)
            let (top, bottom) = (minY, minY + height / scale)
            let dx = max(left - p.x, 0, p.x - right), dy = max(top - p.y, 0, p.y - bottom)
            return (dx * dx + dy * dy).squareRoot() <= place.radiusMeters
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

        /// The walk as a line.
        func walkLine(_ walk: [Coordinate]) -> [String] {
            let path = walk.map { c -> String in
                let (x, y) = screen(c); return "\(f(x)),\(f(y))"
            }.joined(separator: " ")
            return ["<polyline points=\"\(path)\" fill=\"none\" stroke=\"#1f2d5a\" stroke-width=\"2\" stroke-linejoin=\"round\"/>"]
        }

        /// The walk's start, a green dot, and its end, a dark square, each with its word beside
        /// it (left of the start, right of the end: both read where a loop ends where it began):
        /// drawn last, over the reselection and event marks that share their spot.
        func walkEnds(_ walk: [Coordinate]) -> [String] {
            guard let first = walk.first, let last = walk.last else { return [] }
            let (sx, sy) = screen(first), (ex, ey) = screen(last)
            return [
                "<g id=\"walk-start\"><circle cx=\"\(f(sx))\" cy=\"\(f(sy))\" r=\"8\" fill=\"#2e9e44\" stroke=\"white\" stroke-width=\"2\"/>"
                    + halo(x: sx - 12, y: sy + 4, anchor: "end", color: "#2e9e44", text: "start") + "<title>start</title></g>",
                "<g id=\"walk-end\"><rect x=\"\(f(ex - 7))\" y=\"\(f(ey - 7))\" width=\"14\" height=\"14\" fill=\"#1f2d5a\" stroke=\"white\" stroke-width=\"2\"/>"
                    + halo(x: ex + 12, y: ey + 4, anchor: "start", color: "#1f2d5a", text: "end") + "<title>end</title></g>",
            ]
        }

        /// Bold text on a white halo (readable over the walk and the fences).
        func halo(x: Double, y: Double, anchor: String, color: String, text: String) -> String {
            "<text x=\"\(f(x))\" y=\"\(f(y))\" text-anchor=\"\(anchor)\" fill=\"\(color)\" font-weight=\"bold\" stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\">\(escape(text))</text>"
        }

        /// The labels beside their marks, each at the first of four spots around its mark (right
        /// above, right below, left above, left below) that covers no label placed before; one
        /// that fits nowhere goes right above. A label repeating one placed within 40 pixels is
        /// left out (an entry and an exit at the same door).
        func labels(_ labels: [SVGMap.Label]) -> [String] {
            var placed: [(text: String, x: Double, y: Double, box: (Double, Double, Double, Double))] = []
            var svg = ["<g id=\"labels\" font-size=\"12\">"]
            for label in labels {
                let (x, y) = screen(label.position)
                if placed.contains(where: { $0.text == label.text && abs($0.x - x) < 40 && abs($0.y - y) < 40 }) { continue }
                let width = 7 * Double(label.text.count), height = 13.0
                let spots = [(x + 9, y - 9), (x + 9, y + 17), (x - 9 - width, y - 9), (x - 9 - width, y + 17)]
                func box(_ spot: (Double, Double)) -> (Double, Double, Double, Double) { (spot.0, spot.1 - height, spot.0 + width, spot.1) }
                func overlaps(_ a: (Double, Double, Double, Double), _ b: (Double, Double, Double, Double)) -> Bool {
                    a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
                }
                let spot = spots.first { spot in !placed.contains { overlaps($0.box, box(spot)) } } ?? spots[0]
                placed.append((label.text, x, y, box(spot)))
                svg.append(halo(x: spot.0, y: spot.1, anchor: "start", color: label.color, text: label.text))
            }
            svg.append("</g>")
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

        /// The store visits: teal diamonds at the stay's mean (labelled with `labels`).
        func visits(_ marks: [PlanRecord.VisitMark]) -> [String] {
            marks.map { mark in
                let (x, y) = screen(mark.position)
                let name = mark.placeID.map(escape) ?? "none"
                // Whole minutes in `Double`: a time read from a file may be past `Int`'s range.
                let minutes = TextFormat.fixed((mark.arrivalSeconds / 60).rounded(.towardZero), decimals: 0)
                return
                    "<g><path d=\"M\(f(x)),\(f(y - 8)) L\(f(x + 7)),\(f(y)) L\(f(x)),\(f(y + 8)) L\(f(x - 7)),\(f(y)) Z\" fill=\"#0b7a75\" stroke=\"white\" stroke-width=\"1.5\"/>"
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

        /// The north arrow at the top right, then a box at the top left with the title (escaped),
        /// the counts of places, and a symbol and label for each of `kinds`.
        func legend(title: String, counts: String, kinds: [SVGMap.Legend]) -> [String] {
            var svg = [
                "<text x=\"\(f(width - 24))\" y=\"28\" text-anchor=\"middle\" font-weight=\"bold\" fill=\"#222\">N</text><path d=\"M\(f(width - 24)),34 l-6,14 l6,-4 l6,4 z\" fill=\"#222\"/>",
                "<g id=\"legend\"><rect x=\"10\" y=\"10\" width=\"320\" height=\"\(58 + 20 * kinds.count)\" rx=\"6\" fill=\"white\" fill-opacity=\"0.9\" stroke=\"#bbb\"/>",
                "<text x=\"20\" y=\"30\" font-weight=\"bold\" fill=\"#222\">\(escape(title))</text>",
                "<text id=\"legend-counts\" x=\"20\" y=\"49\" fill=\"#555\">\(escape(counts))</text>",
            ]
            for (row, kind) in kinds.enumerated() {
                let y = 72 + 20 * row
                svg.append(
                    "<g class=\"legend-row\">" + Self.symbol(kind, y: y)
                        + "<text x=\"44\" y=\"\(y + 4)\" fill=\"#222\">\(Self.label(kind))</text></g>")
            }
            svg.append("</g>")
            return svg
        }

        /// A legend row's label.
        static func label(_ kind: SVGMap.Legend) -> String {
            switch kind {
            case .monitoredFence: "fence, monitored at some point"
            case .otherFence: "fence, never monitored"
            case .walk: "walk"
            case .exactReselection: "reselection, exact"
            case .inexactReselection: "reselection, degraded or saturated"
            case .refreshCircle: "refresh circle"
            case .miss: "missed fence"
            case .entry: "entry (filled: in-app; hollow: platform)"
            case .exit: "exit (filled: in-app; hollow: platform)"
            case .visit: "store visit (the place it names)"
            }
        }

        /// A legend row's symbol, centered on height `y`.
        static func symbol(_ kind: SVGMap.Legend, y: Int) -> String {
            switch kind {
            case .monitoredFence:
                "<polygon points=\"22,\(y - 5) 34,\(y - 5) 34,\(y + 5) 22,\(y + 5)\" fill=\"#f5a623\" fill-opacity=\"0.45\" stroke=\"#c77700\"/>"
            case .otherFence:
                "<polygon points=\"22,\(y - 5) 34,\(y - 5) 34,\(y + 5) 22,\(y + 5)\" fill=\"#9a9a9a\" fill-opacity=\"0.18\" stroke=\"#8a8a8a\"/>"
            case .walk: "<line x1=\"20\" y1=\"\(y)\" x2=\"36\" y2=\"\(y)\" stroke=\"#1f2d5a\" stroke-width=\"2\"/>"
            case .exactReselection: "<circle cx=\"28\" cy=\"\(y)\" r=\"4.5\" fill=\"#3b7dd8\"/>"
            case .inexactReselection: "<circle cx=\"28\" cy=\"\(y)\" r=\"4.5\" fill=\"#d0021b\"/>"
            case .refreshCircle: "<line x1=\"20\" y1=\"\(y)\" x2=\"36\" y2=\"\(y)\" stroke=\"#3b7dd8\" stroke-dasharray=\"6 4\"/>"
            case .miss: "<path d=\"M23,\(y - 5) L33,\(y + 5) M23,\(y + 5) L33,\(y - 5)\" stroke=\"#d0021b\" stroke-width=\"3\"/>"
            case .entry: "<path d=\"M28,\(y - 5) L33,\(y + 5) L23,\(y + 5) Z\" fill=\"#2e9e44\" stroke=\"#2e9e44\"/>"
            case .exit: "<path d=\"M28,\(y + 5) L33,\(y - 5) L23,\(y - 5) Z\" fill=\"#7b3fb0\" stroke=\"#7b3fb0\"/>"
            case .visit: "<path d=\"M28,\(y - 6) L34,\(y) L28,\(y + 6) L22,\(y) Z\" fill=\"#0b7a75\"/>"
            }
        }
    }
}
