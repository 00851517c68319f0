import FencePlanner
import Foundation
import Geodesy

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads walks from GPX 1.0 and 1.1 files with the toolchain's XML parser (`XMLParser`: libxml2
/// on Linux), namespaces processed.
///
/// The document must be well-formed XML (any encoding XML allows: UTF-8, UTF-16 with its byte
/// order mark, or one named in the declaration; character references and internal DTD entities
/// are expanded; external entities are never loaded), and its root must be `gpx` in the GPX 1.0
/// or 1.1 namespace, or in no namespace (Xcode writes its simulated-location files so). Only
/// elements in the root's namespace, at their place in the GPX schema, are read: track points
/// (`gpx/trk/trkseg/trkpt`, every track and segment in file order), else route points
/// (`gpx/rte/rtept`), else waypoints (`gpx/wpt`), each with `lat`/`lon` attributes and an optional
/// `<time>` child; everything else (another namespace's elements, `<extensions>`, metadata) is
/// passed over. When some points have a time and others do not, the untimed ones are rejected;
/// when none has one, point i is at i seconds.
enum GPXReader {
    /// The namespaces of GPX 1.0 and 1.1 (topografix.com), and no namespace.
    static let namespaces: Set<String> = ["http://www.topografix.com/GPX/1/0", "http://www.topografix.com/GPX/1/1", ""]

    struct Point {
        var kind: Kind
        var line: Int
        var latitude: String?
        var longitude: String?
        var time: String?
    }

    enum Kind: Int, CaseIterable {
        case trackPoint, routePoint, waypoint
    }

    static func read(bytes: [UInt8], strict: Bool) throws(WalkFileError) -> WalkFile {
        guard bytes.contains(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }) else {
            throw WalkFileError(line: 1, reason: .emptyFile)
        }
        let points = try collectPoints(bytes)
        let kind = Kind.allCases.first { k in points.contains { $0.kind == k } }
        let chosen = points.filter { $0.kind == kind }
        let anyTimed = chosen.contains { $0.time != nil }
        var raw: [(fix: Fix, line: Int, fields: [String])] = []
        var rejected: [RejectedRow] = []
        for (index, point) in chosen.enumerated() {
            let fields = [point.latitude ?? "", point.longitude ?? "", point.time ?? ""]
            do throws(WalkFileError) {
                raw.append((try fix(point, index: index, timed: anyTimed), point.line, fields))
            } catch {
                if strict { throw error }
                rejected.append(RejectedRow(line: point.line, reason: error.reason.description, fields: fields))
            }
        }
        return try WalkFile.assemble(raw, rejected: rejected, strict: strict)
    }

    /// Every point of every kind, in document order, or the first error of the document.
    static func collectPoints(_ bytes: [UInt8]) throws(WalkFileError) -> [Point] {
        // Fed as a stream, in chunks: given the whole document at once, libxml2 stops with an
        // internal error past its 10,000,000-byte lookahead limit (XML_MAX_LOOKUP_LIMIT).
        let parser = XMLParser(stream: InputStream(data: Data(try XMLGuard.prepare(bytes))))
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = false
        parser.shouldResolveExternalEntities = false
        let collector = PointCollector()
        parser.delegate = collector
        let finished = parser.parse()
        if let error = collector.error { throw error }
        if let (error, line, column) = collector.firstError {
            throw collector.wellFormednessError(error, line: line, column: column, in: bytes)
        }
        // libxml2 can end a push parse with success while it has recorded an error (a document
        // cut short, or content after the root): the parser's error decides, not the result.
        if let error = parser.parserError ?? (finished ? nil : PointCollector.unknownFailure) {
            throw collector.wellFormednessError(error, line: parser.lineNumber, column: parser.columnNumber, in: bytes)
        }
        guard collector.sawRoot else { throw WalkFileError(line: 1, reason: .notGPX("no root element")) }
        return collector.points
    }

    static func fix(_ point: Point, index: Int, timed: Bool) throws(WalkFileError) -> Fix {
        func number(_ name: String, _ text: String?) throws(WalkFileError) -> Double {
            guard let text = text?.trimmingASCIIWhitespace() else { throw WalkFileError(line: point.line, reason: .missingAttribute(name)) }
            guard let value = DecimalText.double(text) else { throw WalkFileError(line: point.line, reason: .notANumber(name, text)) }
            guard value.isFinite else { throw WalkFileError(line: point.line, reason: .notFinite(name, text)) }
            return value
        }
        let latitude = try number("lat", point.latitude)
        let longitude = try number("lon", point.longitude)
        let coordinate: Coordinate
        do {
            coordinate = try Coordinate(latitude: latitude, longitude: longitude)
        } catch {
            throw WalkFileError(line: point.line, reason: .outOfRange(error.description))
        }
        var time = Double(index)
        if timed {
            guard let text = point.time else { throw WalkFileError(line: point.line, reason: .untimedPoint) }
            guard let seconds = ISO8601.seconds(text) else { throw WalkFileError(line: point.line, reason: .badTime(text)) }
            time = seconds
        }
        return Fix(coordinate, timestampSeconds: time)
    }
}

/// The parser's delegate: follows the element path and keeps the points.
///
/// Lines are the parser's: the line on which a point's start tag ends (its only line, for the
/// one-line tags GPS loggers and editors write).
private final class PointCollector: NSObject, XMLParserDelegate {
    /// Where an open element sits in the GPX schema; `other` covers everything not read (and all
    /// that is inside it).
    enum Frame {
        case gpx, track, segment, route, point, time, other
    }

    static let unknownFailure = NSError(domain: XMLParser.errorDomain, code: XMLParser.ErrorCode.internalError.rawValue)

    var points: [GPXReader.Point] = []
    var error: WalkFileError?
    var sawRoot = false
    /// The parser's first error and where it stopped.
    var firstError: (error: any Error, line: Int, column: Int)?
    private var namespace = ""
    private var frames: [Frame] = []
    /// The open elements' qualified names and lines (for messages about unclosed elements).
    private var open: [(name: String, line: Int)] = []
    private var current: GPXReader.Point?
    private var timeText = ""

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        let uri = namespaceURI ?? ""
        let line = parser.lineNumber
        open.append((qualifiedName ?? elementName, line))
        guard sawRoot else {
            sawRoot = true
            guard elementName == "gpx", GPXReader.namespaces.contains(uri) else {
                let inNamespace = uri.isEmpty ? "" : " in namespace \(uri)"
                fail(
                    WalkFileError(
                        line: line, reason: .notGPX("the root element is <\(qualifiedName ?? elementName)>\(inNamespace), not <gpx>")),
                    parser)
                return
            }
            namespace = uri
            frames.append(.gpx)
            return
        }
        let frame: Frame
        if uri != namespace {
            frame = .other
        } else {
            switch (frames.last ?? .other, elementName) {
            case (.gpx, "trk"): frame = .track
            case (.gpx, "rte"): frame = .route
            case (.track, "trkseg"): frame = .segment
            case (.gpx, "wpt"), (.segment, "trkpt"), (.route, "rtept"):
                frame = .point
                let kind: GPXReader.Kind = elementName == "trkpt" ? .trackPoint : elementName == "rtept" ? .routePoint : .waypoint
                current = GPXReader.Point(kind: kind, line: line, latitude: attributes["lat"], longitude: attributes["lon"], time: nil)
            case (.point, "time") where current?.time == nil:
                frame = .time
                timeText = ""
            default: frame = .other
            }
        }
        frames.append(frame)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        open.removeLast()
        switch frames.popLast() {
        case .time: current?.time = timeText.trimmingASCIIWhitespace()
        case .point:
            if let point = current { points.append(point) }
            current = nil
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if frames.last == .time { timeText += string }
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        if frames.last == .time { timeText += String(decoding: block, as: UTF8.self) }
    }

    /// The first error stops the parse: libxml2 would go on recovering and report elements with
    /// names it could not decode, which `XMLParser` is not safe to receive.
    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        if firstError == nil { firstError = (parseError, parser.lineNumber, parser.columnNumber) }
        parser.abortParsing()
    }

    /// External entities are never loaded (no file or network access from a document).
    func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? { nil }

    private func fail(_ error: WalkFileError, _ parser: XMLParser) {
        if self.error == nil { self.error = error }
        parser.abortParsing()
    }

    /// The parser's error as a file error: the line and column where the parser stopped and what
    /// it found, in words. The error's code is libxml2's (`xmlParserErrors` in `xmlerror.h`),
    /// which `XMLParser` passes on as it is.
    func wellFormednessError(_ error: any Error, line: Int, column: Int, in bytes: [UInt8]) -> WalkFileError {
        let code = (error as NSError).code
        // A file cut inside a tag draws whatever error the tag's grammar expected next; it shows
        // as a last byte other than '>' (trailing whitespace aside) on the line the parser stopped.
        let lastContent = bytes.lastIndex { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }
        let cutInsideATag =
            lastContent.map { last in bytes[last] != 0x3E && 1 + bytes[...last].count(where: { $0 == 0x0A }) == line } ?? false
        let what: String
        switch code {
        case _ where cutInsideATag && ![5, 45, 63, 86].contains(code):
            what = "the file ends inside a tag" + (open.last.map { " within <\($0.name)> (line \($0.line))" } ?? "")
        case 4, 5, 77, 85, 86:  // document empty, document end, tag not finished, not well balanced, extra content
            if let innermost = open.last {
                what = "the file ends before <\(innermost.name)> (line \(innermost.line)) is closed"
            } else if sawRoot {
                what = "content after the root element"
            } else {
                what = "no root element"
            }
        case 76: what = open.last.map { "an end tag that does not match <\($0.name)> (line \($0.line))" } ?? "a mismatched end tag"
        case 42, 203: what = "an attribute given twice in one tag"
        case 39, 40, 41, 84: what = "an attribute without a quoted value"
        case 38: what = "'<' in an attribute value"
        case 22, 23: what = "a raw '&' (write &amp;) or an entity reference without ';'"
        case 26, 27, 28: what = "an undefined entity"
        case 29: what = "an external entity (never loaded)"
        case 89: what = "an entity that refers to itself"
        case 6, 7, 8: what = "an invalid character reference"
        case 9, 31, 32, 79, 81: what = "a character or encoding that XML does not allow"
        case 45: what = "a comment that is not closed"
        case 63: what = "a CDATA section that is not closed"
        case 73: what = "a tag without its '>'"
        case 64: what = "an XML declaration or a name starting with 'xml' out of place"
        case 65: what = "a space missing (between attributes, or after a name)"
        case 110: what = "a name longer than 50000 characters (an element's, an attribute's or an entity's)"
        case 201: what = "an undeclared namespace prefix"
        case 200...299: what = "a namespace declaration or prefix that XML namespaces do not allow (libxml2 error \(code))"
        default: what = "markup that is not well-formed (libxml2 error \(code))"
        }
        return WalkFileError(line: max(1, line), reason: .notWellFormedXML(column: max(1, column), what))
    }
}
