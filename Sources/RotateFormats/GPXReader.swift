import FencePlanner
import Geodesy

/// Reads walks from GPX 1.0 and 1.1 files: track points (`trkpt`), else route points (`rtept`),
/// else waypoints (`wpt`, as in Xcode's simulated-location files), each with `lat`/`lon`
/// attributes and an optional `<time>`.
///
/// A small tolerant scanner, not a validating XML parser: namespaces and prefixes are ignored,
/// comments, CDATA, processing instructions and a DOCTYPE are skipped, and elements other than
/// points and their `<time>` are passed over. When some points have a time and others do not, the
/// untimed ones are rejected; when none has one, point i is at i seconds.
enum GPXReader {
    struct Point {
        var kind: String
        var line: Int
        var latitude: String?
        var longitude: String?
        var time: String?
    }

    static func read(bytes: [UInt8], strict: Bool) throws(WalkFileError) -> WalkFile {
        var points: [Point] = []
        var current: Point?
        var inTime = false
        var timeText: [UInt8] = []
        var sawGPX = false
        var line = 1
        var i = 0
        let n = bytes.count

        func find(_ pattern: [UInt8], from start: Int) -> Int? {
            guard !pattern.isEmpty, start <= n - pattern.count else { return nil }
            var j = start
            while j <= n - pattern.count {
                if bytes[j] == pattern[0] && Array(bytes[j..<(j + pattern.count)]) == pattern { return j }
                j += 1
            }
            return nil
        }
        func countLines(_ range: Range<Int>) -> Int { bytes[range].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) } }

        while i < n {
            let byte = bytes[i]
            if byte != 0x3C {  // text
                if byte == 0x0A { line += 1 }
                if inTime { timeText.append(byte) }
                i += 1
                continue
            }
            let tagLine = line
            if bytes[i...].starts(with: Array("<!--".utf8)) {
                guard let end = find(Array("-->".utf8), from: i + 4) else {
                    throw WalkFileError(line: tagLine, reason: .notGPX("unterminated comment"))
                }
                line += countLines(i..<end)
                i = end + 3
                continue
            }
            if bytes[i...].starts(with: Array("<![CDATA[".utf8)) {
                guard let end = find(Array("]]>".utf8), from: i + 9) else {
                    throw WalkFileError(line: tagLine, reason: .notGPX("unterminated CDATA"))
                }
                if inTime { timeText += bytes[(i + 9)..<end] }
                line += countLines(i..<end)
                i = end + 3
                continue
            }
            // A tag: find its end, honoring quoted attribute values.
            var j = i + 1
            var quote: UInt8 = 0
            while j < n {
                let b = bytes[j]
                if quote != 0 {
                    if b == quote { quote = 0 }
                } else if b == 0x22 || b == 0x27 {
                    quote = b
                } else if b == 0x3E {
                    break
                }
                j += 1
            }
            guard j < n else { throw WalkFileError(line: tagLine, reason: .notGPX("unterminated tag")) }
            line += countLines(i..<j)
            let inner = Array(bytes[(i + 1)..<j])
            i = j + 1
            guard let first = inner.first, first != 0x3F, first != 0x21 else { continue }  // <? ?> and <!DOCTYPE>
            let closing = first == 0x2F
            let selfClosing = inner.last == 0x2F
            let body = closing ? Array(inner.dropFirst()) : (selfClosing ? Array(inner.dropLast()) : inner)
            let nameEnd = body.firstIndex { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D } ?? body.count
            var name = String(decoding: body[0..<nameEnd], as: UTF8.self)
            if let colon = name.lastIndex(of: ":") { name = String(name[name.index(after: colon)...]) }
            name = name.lowercased()

            if closing {
                if name == "time", inTime {
                    inTime = false
                    current?.time = String(decoding: timeText, as: UTF8.self).trimmingASCIIWhitespace()
                } else if let point = current, name == point.kind {
                    points.append(point)
                    current = nil
                }
                continue
            }
            if name == "gpx" { sawGPX = true }
            if ["trkpt", "rtept", "wpt"].contains(name) {
                if let point = current { points.append(point) }  // an unclosed point ends at the next
                let attributes = parseAttributes(Array(body[nameEnd...]))
                let point = Point(kind: name, line: tagLine, latitude: attributes["lat"], longitude: attributes["lon"], time: nil)
                if selfClosing {
                    points.append(point)
                } else {
                    current = point
                }
            } else if name == "time", current != nil, !selfClosing {
                inTime = true
                timeText.removeAll()
            }
        }
        if let point = current { points.append(point) }
        guard sawGPX else { throw WalkFileError(line: 1, reason: bytes.isEmpty ? .emptyFile : .notGPX("no <gpx> element")) }

        let kind = ["trkpt", "rtept", "wpt"].first { k in points.contains { $0.kind == k } }
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

    /// `name="value"` pairs (single or double quotes; names lower-cased, prefixes dropped).
    static func parseAttributes(_ bytes: [UInt8]) -> [String: String] {
        var result: [String: String] = [:]
        var i = 0
        while i < bytes.count {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
            let nameStart = i
            while i < bytes.count, bytes[i] != 0x3D, bytes[i] != 0x20, bytes[i] != 0x09, bytes[i] != 0x0A, bytes[i] != 0x0D { i += 1 }
            var name = String(decoding: bytes[nameStart..<i], as: UTF8.self).lowercased()
            if let colon = name.lastIndex(of: ":") { name = String(name[name.index(after: colon)...]) }
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 { i += 1 }
            guard i < bytes.count, bytes[i] == 0x3D else { i += 1; continue }
            i += 1
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 { i += 1 }
            guard i < bytes.count, bytes[i] == 0x22 || bytes[i] == 0x27 else { continue }
            let quote = bytes[i]
            i += 1
            let valueStart = i
            while i < bytes.count, bytes[i] != quote { i += 1 }
            if !name.isEmpty { result[name] = String(decoding: bytes[valueStart..<min(i, bytes.count)], as: UTF8.self) }
            i += 1
        }
        return result
    }
}
