import FencePlanner
import Geodesy

/// A walk read from a file: fixes in time order, with the rows that were rejected.
public struct WalkFile: Sendable {
    /// The fixes, each with its `timestampSeconds` (seconds since the first fix).
    public var fixes: [Fix]
    /// Line of each fix in the file, in `fixes` order.
    public var lines: [Int]
    /// The rejected points or rows, in line order (empty in strict mode, which throws instead).
    public var rejected: [RejectedRow]
    /// Points or rows read (accepted + rejected).
    public var rowsRead: Int { fixes.count + rejected.count }
    /// The walk's clock: the first accepted fix's time as the file gives it, which every
    /// `timestampSeconds` is relative to. Seconds on the `t` column's own scale when it holds
    /// numbers, seconds since 1970-01-01T00:00:00Z for ISO 8601 times (and GPX), the row or
    /// point index for an untimed walk. Times read from another file on the same scale (stop
    /// labels) are put on the walk's clock by subtracting it.
    public var originSeconds: Double = 0

    /// Reads a walk: GPX when the path ends in `.gpx` (any case) or the file starts with `<`,
    /// walk CSV otherwise. GPX is read whole (the XML parser takes one document); walk CSV is
    /// streamed, so that its memory is its fixes and at most one record.
    ///
    /// Times are rebased to the first fix (which gets 0 s; its time as read is `originSeconds`);
    /// a CSV row without a time gets its 0-based row index in seconds. A fix whose time goes
    /// backwards is rejected as stale.
    ///
    /// ```swift
    /// let walk = try WalkFile.read(path: "morning.gpx")  // or a walk CSV: t,lat,lon,accuracy_m
    /// for row in walk.rejected { print("morning.gpx:\(row.line): \(row.reason)") }
    /// var rotator = try FenceRotator(catalog: catalog, configuration: configuration)
    /// for (i, fix) in walk.fixes.enumerated() {
    ///     if let update = rotator.update(with: fix) { print("fix \(i): \(update.diff.operations.count) operations") }
    /// }
    /// ```
    ///
    /// - Throws: `WalkFileError` with the 1-based line and the reason: the file cannot be read
    ///   (`unreadable`, line 0), is empty or has no `lat`/`lon` column, is not well-formed XML, not
    ///   GPX or XML the reader does not take, or has no valid point at all (`noValidPoints`); with
    ///   `strict`, also the first bad point or row.
    public static func read(path: String, strict: Bool = false) throws(WalkFileError) -> WalkFile {
        /// Leading bytes that do not decide the format: spaces, tabs, line ends and BOM bytes.
        func isLeading(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0xEF || b == 0xBB || b == 0xBF }
        var gpx = path.lowercased().hasSuffix(".gpx")
        var decided = gpx
        // The bytes read before the format is decided, and all of a GPX document.
        var kept: [UInt8] = []
        var csv = WalkCSV.Reader(strict: strict)
        var scanner = CSVScanner()
        do {
            try FileBytes.forEachChunk(of: path) { chunk in
                if decided && !gpx {
                    try scanner.feed(chunk) { try csv.take($0) }
                    return
                }
                kept.append(contentsOf: chunk)
                guard !decided, let first = kept.first(where: { !isLeading($0) }) else { return }
                decided = true
                gpx = first == 0x3C
                if !gpx {
                    try kept.withUnsafeBufferPointer { buffer in try scanner.feed(buffer) { try csv.take($0) } }
                    kept = []
                }
            }
            if gpx { return try GPXReader.read(bytes: kept, strict: strict) }
            // Nothing but leading bytes: read as CSV, as any other text.
            if !decided { try kept.withUnsafeBufferPointer { buffer in try scanner.feed(buffer) { try csv.take($0) } } }
            try scanner.finish { try csv.take($0) }
        } catch let error as WalkFileError {
            throw error
        } catch let error as FileReadError {
            throw WalkFileError(line: 0, reason: .unreadable(error.reason))
        } catch {
            throw WalkFileError(line: 0, reason: .unreadable("\(error)"))
        }
        return try csv.result()
    }

    /// Reads GPX text already in memory (tests, fuzzing).
    ///
    /// ```swift
    /// let gpx = Array(#"<gpx version="1.1"><trk><trkseg><trkpt lat="46.05" lon="14.50"/></trkseg></trk></gpx>"#.utf8)
    /// let walk = try WalkFile.read(gpx: gpx)
    /// print(walk.fixes.count)  // 1
    /// ```
    ///
    /// - Throws: `WalkFileError`, as `read(path:strict:)` throws it for a GPX file.
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
        rejected.sort { $0.line < $1.line }
        guard !fixes.isEmpty else { throw WalkFileError(line: 1, reason: .noValidPoints(rejected: rejected)) }
        return WalkFile(fixes: fixes, lines: lines, rejected: rejected, originSeconds: origin)
    }
}

/// Reads walk CSV (see `docs/formats.md`, "Walk CSV").
public enum WalkCSV {
    static let aliases: [String: [String]] = [
        "t": ["t", "time", "timestamp"],
        "lat": CSVFile.latitudeAliases,
        "lon": CSVFile.longitudeAliases,
        "accuracy_m": CSVFile.accuracyAliases,
    ]

    /// Reads walk CSV text already in memory: a header naming `lat` and `lon` (and optionally `t`,
    /// `accuracy_m`, or their aliases), then one fix per row; `t` is seconds or ISO 8601.
    ///
    /// ```swift
    /// let text = "t,lat,lon,accuracy_m\n0,46.0500,14.5000,8\n5,46.0504,14.5003,9\n"
    /// let walk = try WalkCSV.read(bytes: Array(text.utf8))
    /// print(walk.fixes.map(\.timestampSeconds))  // [Optional(0.0), Optional(5.0)]
    /// ```
    ///
    /// - Throws: `WalkFileError` with the 1-based line and the reason: no header row (`emptyFile`),
    ///   a malformed header or one without `lat` or `lon`, or no valid row at all
    ///   (`noValidPoints`); with `strict`, also the first bad row.
    public static func read(bytes: [UInt8], strict: Bool = false) throws(WalkFileError) -> WalkFile {
        var reader = Reader(strict: strict)
        var scanner = CSVScanner()
        do {
            try bytes.withUnsafeBufferPointer { buffer in try scanner.feed(buffer) { try reader.take($0) } }
            try scanner.finish { try reader.take($0) }
        } catch let error as WalkFileError {
            throw error
        } catch {
            throw WalkFileError(line: 0, reason: .unreadable("\(error)"))
        }
        return try reader.result()
    }

    /// Turns records into fixes, one at a time as the scanner hands them out.
    struct Reader {
        let strict: Bool
        var columns: [String: Int] = [:]
        /// The header's field count, once the header is read.
        var width: Int?
        var raw: [(fix: Fix, line: Int, fields: [String])] = []
        var rejected: [RejectedRow] = []
        /// Data records read so far (the 0-based index of the next one).
        var rowIndex = 0

        init(strict: Bool) { self.strict = strict }

        mutating func take(_ record: CSVScanner.Record) throws(WalkFileError) {
            guard let width else {
                if let problem = record.problem { throw WalkFileError(line: record.line, reason: .malformedHeader(CSVProblem(problem))) }
                columns = CSVFile.columns(of: record.fields, aliases: aliases)
                for required in ["lat", "lon"] where columns[required] == nil {
                    throw WalkFileError(line: record.line, reason: .missingColumn(required))
                }
                self.width = record.count
                return
            }
            defer { rowIndex += 1 }
            do throws(WalkFileError) {
                raw.append((try parse(record, columns: columns, width: width, rowIndex: rowIndex), record.line, record.fields))
            } catch {
                if strict { throw error }
                rejected.append(RejectedRow(line: record.line, reason: error.reason.description, fields: record.fields))
            }
        }

        func result() throws(WalkFileError) -> WalkFile {
            guard width != nil else { throw WalkFileError(line: 1, reason: .emptyFile) }
            return try WalkFile.assemble(raw, rejected: rejected, strict: strict)
        }
    }

    static func parse(_ record: CSVScanner.Record, columns: [String: Int], width: Int, rowIndex: Int) throws(WalkFileError) -> Fix {
        let line = record.line
        if let problem = record.problem { throw WalkFileError(line: line, reason: .malformed(CSVProblem(problem))) }
        guard record.count == width else {
            throw WalkFileError(line: line, reason: .wrongFieldCount(expected: width, found: record.count))
        }
        func field(_ name: String) -> String? { columns[name].map { record.field($0).trimmingASCIIWhitespace() } }
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
    /// 1-based line where the record or point starts; 0 when the file cannot be read, 1 for
    /// problems of the whole file.
    public var line: Int
    /// What is wrong.
    public var reason: Reason

    /// Creates an error at `line`.
    public init(line: Int, reason: Reason) {
        self.line = line
        self.reason = reason
    }

    /// What is wrong with a walk file, row or point.
    public enum Reason: Equatable, Sendable, CustomStringConvertible {
        /// The file cannot be opened or read: the system's reason.
        case unreadable(String)
        /// The file holds no header row (CSV), or nothing but white space (GPX).
        case emptyFile
        /// The CSV header has no column for this required field (`lat` or `lon`, or an alias).
        case missingColumn(String)
        /// Every point was rejected: the rejected points, in line order, so none goes unreported.
        case noValidPoints(rejected: [RejectedRow])
        /// The record's CSV syntax is broken.
        case malformed(CSVProblem)
        /// The header record's CSV syntax is broken, or it is too long: the read stops.
        case malformedHeader(CSVProblem)
        /// The row has another number of fields than the header.
        case wrongFieldCount(expected: Int, found: Int)
        /// The named field is empty.
        case missingField(String)
        /// The named field's text is not a decimal number: the column and the text.
        case notANumber(String, String)
        /// The named field is a number but NaN or infinite: the column and the text.
        case notFinite(String, String)
        /// The latitude or longitude is outside its range: the `CoordinateError` description.
        case outOfRange(String)
        /// The time is neither decimal seconds nor ISO 8601: the text.
        case badTime(String)
        /// The accuracy, meters, is negative.
        case negativeAccuracy(Double)
        /// The time goes backwards: seconds since the first fix, the previous kept fix's and this one's.
        case stale(previousSeconds: Double, seconds: Double)
        /// The document is XML but not GPX (no root element, or a root other than GPX 1.0 or 1.1 `<gpx>`): why.
        case notGPX(String)
        /// The XML parser stopped: the column where (as libxml2 counts: characters, CDATA in
        /// bytes) and what it found.
        case notWellFormedXML(column: Int, String)
        /// Well-formed XML that the reader does not take (see `XMLGuard`).
        case unsupportedXML(String)
        /// A GPX point lacks the named attribute (`lat` or `lon`).
        case missingAttribute(String)
        /// A GPX point has no `<time>` while other points of its track have one.
        case untimedPoint

        /// One line a person reads, for `path:line: reason` diagnostics.
        public var description: String {
            switch self {
            case .unreadable(let why): RowProblemText.unreadable(why)
            case .emptyFile: "the file is empty"
            case .missingColumn(let column): RowProblemText.missingColumn(column, aliases: WalkCSV.aliases)
            case .noValidPoints(let rejected): "no valid points (\(rejected.count) rejected)"
            case .malformed(let problem): problem.description
            case .malformedHeader(let problem): problem.headerDescription
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

    /// `line: reason` (a caller prefixes the path).
    public var description: String { "\(line): \(reason)" }
}
