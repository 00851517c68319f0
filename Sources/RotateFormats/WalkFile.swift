import FencePlanner
import Geodesy

/// A walk read from a file: fixes in time order, with the rows that were rejected.
public struct WalkFile: Sendable {
    /// The fixes, each with its `timestampSeconds` (seconds since the first fix).
    public var fixes: [Fix]
    /// Line of each fix in the file, in `fixes` order.
    public var lines: [Int]
    public var rejected: [RejectedRow]
    /// Points or rows read (accepted + rejected).
    public var rowsRead: Int { fixes.count + rejected.count }

    /// Reads a walk: GPX when the path ends in `.gpx` (any case) or the file starts with `<`,
    /// walk CSV otherwise.
    public static func read(path: String, strict: Bool = false) throws(WalkFileError) -> WalkFile {
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.contents(of: path)
        } catch {
            throw WalkFileError(line: 0, reason: .unreadable(error.reason))
        }
        let firstNonSpace = bytes.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }
            .first
        if path.lowercased().hasSuffix(".gpx") || firstNonSpace == 0x3C {
            return try GPXReader.read(bytes: bytes, strict: strict)
        }
        return try WalkCSV.read(bytes: bytes, strict: strict)
    }

    /// Reads GPX text already in memory (tests, fuzzing).
    public static func read(gpx bytes: [UInt8], strict: Bool = false) throws(WalkFileError) -> WalkFile {
        try GPXReader.read(bytes: bytes, strict: strict)
    }

    /// Rebases timestamps to the first fix and keeps them only while they do not go backwards.
    static func assemble(_ raw: [(fix: Fix, line: Int, fields: [String])], rejected: [RejectedRow], strict: Bool)
        throws(WalkFileError) -> WalkFile
    {
        var fixes: [Fix] = []
        var lines: [Int] = []
        var rejected = rejected
        var last = -Double.infinity
        let origin = raw.first?.fix.timestampSeconds ?? 0
        for entry in raw {
            var fix = entry.fix
            let t = (fix.timestampSeconds ?? 0) - origin
            if t < last {
                let error = WalkFileError(line: entry.line, reason: .stale(previousSeconds: last, seconds: t))
                if strict { throw error }
                rejected.append(RejectedRow(line: entry.line, reason: error.reason.description, fields: entry.fields))
                continue
            }
            last = t
            fix.timestampSeconds = t
            fixes.append(fix)
            lines.append(entry.line)
        }
        guard !fixes.isEmpty else { throw WalkFileError(line: 1, reason: .noValidPoints(rejected: rejected.count)) }
        rejected.sort { $0.line < $1.line }
        return WalkFile(fixes: fixes, lines: lines, rejected: rejected)
    }
}

/// Reads walk CSV (see `docs/formats.md`, "Walk CSV").
public enum WalkCSV {
    static let aliases: [String: [String]] = [
        "t": ["t", "time", "timestamp"],
        "lat": ["lat", "latitude", "y"],
        "lon": ["lon", "lng", "long", "longitude", "x"],
        "accuracy_m": ["accuracy_m", "accuracy", "horizontal_accuracy"],
    ]

    public static func read(bytes: [UInt8], strict: Bool = false) throws(WalkFileError) -> WalkFile {
        var records: [CSVScanner.Record] = []
        var scanner = CSVScanner()
        bytes.withUnsafeBufferPointer { buffer in scanner.feed(buffer) { records.append($0) } }
        scanner.finish { records.append($0) }
        guard let headerRecord = records.first else { throw WalkFileError(line: 1, reason: .emptyFile) }
        if let problem = headerRecord.problem { throw WalkFileError(line: headerRecord.line, reason: .malformed(CSVProblem(problem))) }
        let columns = CSVFile.columns(of: headerRecord.fields, aliases: aliases)
        for required in ["lat", "lon"] where columns[required] == nil {
            throw WalkFileError(line: headerRecord.line, reason: .missingColumn(required))
        }
        var raw: [(fix: Fix, line: Int, fields: [String])] = []
        var rejected: [RejectedRow] = []
        for (index, record) in records.dropFirst().enumerated() {
            do throws(WalkFileError) {
                raw.append(
                    (try parse(record, columns: columns, width: headerRecord.fields.count, rowIndex: index), record.line, record.fields))
            } catch {
                if strict { throw error }
                rejected.append(RejectedRow(line: record.line, reason: error.reason.description, fields: record.fields))
            }
        }
        return try WalkFile.assemble(raw, rejected: rejected, strict: strict)
    }

    static func parse(_ record: CSVScanner.Record, columns: [String: Int], width: Int, rowIndex: Int) throws(WalkFileError) -> Fix {
        let line = record.line
        if let problem = record.problem { throw WalkFileError(line: line, reason: .malformed(CSVProblem(problem))) }
        guard record.fields.count == width else {
            throw WalkFileError(line: line, reason: .wrongFieldCount(expected: width, found: record.fields.count))
        }
        func field(_ name: String) -> String? { columns[name].map { record.fields[$0].trimmingASCIIWhitespace() } }
        func number(_ name: String) throws(WalkFileError) -> Double {
            guard let text = field(name), !text.isEmpty else { throw WalkFileError(line: line, reason: .missingField(name)) }
            guard let value = DecimalText.double(text) else { throw WalkFileError(line: line, reason: .notANumber(name, text)) }
            guard value.isFinite else { throw WalkFileError(line: line, reason: .notFinite(name, text)) }
            return value
        }
        let coordinate: Coordinate
        do {
            coordinate = try Coordinate(latitude: try number("lat"), longitude: try number("lon"))
        } catch let error as WalkFileError {
            throw error
        } catch let error as CoordinateError {
            throw WalkFileError(line: line, reason: .outOfRange(error.description))
        } catch {
            throw WalkFileError(line: line, reason: .outOfRange("\(error)"))
        }
        var time = Double(rowIndex)
        if let text = field("t"), !text.isEmpty {
            if let seconds = DecimalText.double(text) {
                guard seconds.isFinite else { throw WalkFileError(line: line, reason: .notFinite("t", text)) }
                time = seconds
            } else if let seconds = ISO8601.seconds(text) {
                time = seconds
            } else {
                throw WalkFileError(line: line, reason: .badTime(text))
            }
        }
        var accuracy: Double?
        if let text = field("accuracy_m"), !text.isEmpty {
            let value = try number("accuracy_m")
            guard value >= 0 else { throw WalkFileError(line: line, reason: .negativeAccuracy(value)) }
            accuracy = value
            _ = text
        }
        return Fix(coordinate, accuracyMeters: accuracy, timestampSeconds: time)
    }
}

/// A bad walk file or point: the 1-based line and the reason.
public struct WalkFileError: Error, Equatable, Sendable, CustomStringConvertible {
    public var line: Int
    public var reason: Reason

    public init(line: Int, reason: Reason) {
        self.line = line
        self.reason = reason
    }

    public enum Reason: Equatable, Sendable, CustomStringConvertible {
        case unreadable(String)
        case emptyFile
        case missingColumn(String)
        case noValidPoints(rejected: Int)
        case malformed(CSVProblem)
        case wrongFieldCount(expected: Int, found: Int)
        case missingField(String)
        case notANumber(String, String)
        case notFinite(String, String)
        case outOfRange(String)
        case badTime(String)
        case negativeAccuracy(Double)
        case stale(previousSeconds: Double, seconds: Double)
        case notGPX(String)
        /// The XML parser stopped: the column where (as libxml2 counts: characters, CDATA in
        /// bytes) and what it found.
        case notWellFormedXML(column: Int, String)
        /// Well-formed XML that the reader does not take (see `XMLGuard`).
        case unsupportedXML(String)
        case missingAttribute(String)
        case untimedPoint

        public var description: String {
            switch self {
            case .unreadable(let why): RowProblemText.unreadable(why)
            case .emptyFile: "the file is empty"
            case .missingColumn(let column): RowProblemText.missingColumn(column, aliases: WalkCSV.aliases)
            case .noValidPoints(let rejected): "no valid points (\(rejected) rejected)"
            case .malformed(let problem): problem.description
            case .wrongFieldCount(let expected, let found): RowProblemText.wrongFieldCount(expected: expected, found: found)
            case .missingField(let column): RowProblemText.missingField(column)
            case .notANumber(let column, let text): RowProblemText.notANumber(column, text)
            case .notFinite(let column, let text): RowProblemText.notFinite(column, text)
            case .outOfRange(let why): why
            case .badTime(let text): "time is neither seconds nor ISO 8601: '\(text)'"
            case .negativeAccuracy(let value): "accuracy must be >= 0, got \(value)"
            case .stale(let previous, let seconds): "time goes backwards (\(seconds) s after \(previous) s): stale fix dropped"
            case .notGPX(let why): "not GPX: \(why)"
            case .notWellFormedXML(let column, let why): "not well-formed XML (column \(column)): \(why)"
            case .unsupportedXML(let what): "XML not read: \(what)"
            case .missingAttribute(let name): "point without a '\(name)' attribute"
            case .untimedPoint: "point without <time> in a track whose other points have one"
            }
        }
    }

    public var description: String { "\(line): \(reason)" }
}
