import FencePlanner
import Geodesy

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads places CSV files (see `docs/formats.md`, "Places CSV").
///
/// RFC 4180, UTF-8 with an optional BOM, `\n` or `\r\n`; a header row naming the columns
/// (`id`, `lat`, `lon` required; `radius_m` and `name` optional; aliases accepted,
/// case-insensitive; other columns ignored). Streaming: the file is scanned in chunks.
/// Lenient by default: every bad row is rejected with its line and reason and the rest are kept
/// (`accepted + rejected = rows read`); strict mode throws at the first bad row. Blank lines are
/// skipped and not counted as rows. Ids are kept in NFC (`Identifiers.canonical`), at most
/// `Identifiers.maximumBytes` bytes of UTF-8 in that form; a record longer than 1 MiB is a
/// rejected row whose bytes are never held (`CSVScanner`).
public enum PlacesCSV {
    /// How to read: the default radius, strictness and a reserved id prefix.
    public struct Options: Sendable {
        /// Radius for rows without one (no `radius_m` column, or an empty field), meters.
        public var defaultRadiusMeters: Double = 100
        /// Throw at the first bad row instead of rejecting it.
        public var strict = false
        /// Ids starting with this are rejected rows (the planner's refresh regions use it).
        public var reservedIDPrefix: String?
        /// Creates options; the defaults read leniently with a 100 m default radius and no reserved prefix.
        public init(defaultRadiusMeters: Double = 100, strict: Bool = false, reservedIDPrefix: String? = nil) {
            self.defaultRadiusMeters = defaultRadiusMeters
            self.strict = strict
            self.reservedIDPrefix = reservedIDPrefix
        }
    }

    /// What a read produced.
    public struct Result: Sendable {
        /// The accepted places, in file order (ids in NFC; radii as read, not clamped: the
        /// catalog clamps them).
        public var places: [Place]
        /// Line of each accepted place, in `places` order.
        public var lines: [Int]
        /// The rejected rows, in line order (empty in strict mode, which throws instead).
        public var rejected: [RejectedRow]
        /// The header's fields as written.
        public var header: [String]
        /// Data rows read (accepted + rejected).
        public var rowsRead: Int { places.count + rejected.count }
    }

    static let aliases: [String: [String]] = [
        "id": ["id", "identifier", "place_id"],
        "lat": CSVFile.latitudeAliases,
        "lon": CSVFile.longitudeAliases,
        "radius_m": ["radius_m", "radius"],
        "name": ["name"],
    ]

    /// Reads the file at `path` (`-` for standard input).
    ///
    /// ```swift
    /// let file = try PlacesCSV.read(path: "places.csv", options: .init(defaultRadiusMeters: 150))
    /// for row in file.rejected { print("places.csv:\(row.line): \(row.reason)") }  // lenient: bad rows reported, not fatal
    /// let catalog = try PlaceCatalog(places: file.places)
    /// print("\(file.rowsRead) rows read, \(file.places.count) accepted, \(file.rejected.count) rejected")
    /// ```
    ///
    /// - Throws: `PlacesCSVError` with the 1-based line and the reason: the file cannot be read
    ///   (`unreadable`, line 0), has no header row (`emptyFile`), a malformed header or one without
    ///   `id`, `lat` or `lon` (`malformed`, `missingColumn`), or no valid row at all
    ///   (`noValidRows`, listing them); with `options.strict`, also the first bad row.
    public static func read(path: String, options: Options = Options()) throws(PlacesCSVError) -> Result {
        var reader = Reader(options: options)
        // Size the lists from the file size (rows are rarely under 24 bytes), and the id table
        // from the rows' measured length once a few hundred are read, so neither regrows.
        var info = stat()
        if path != "-", stat(path, &info) == 0, info.st_size > 0 {
            reader.reserve(rows: min(Int(info.st_size) / 24, 20_000_000))
            reader.fileBytes = Int(info.st_size)
        }
        var scanner = CSVScanner()
        do {
            try FileBytes.forEachChunk(of: path) { chunk in
                try scanner.feed(chunk) { try reader.take($0) }
            }
            try scanner.finish { try reader.take($0) }
        } catch let error as PlacesCSVError {
            throw error
        } catch let error as FileReadError {
            throw PlacesCSVError(line: 0, reason: .unreadable(error.reason))
        } catch {
            throw PlacesCSVError(line: 0, reason: .unreadable("\(error)"))
        }
        return try reader.result()
    }

    /// Reads CSV text already in memory (tests, stdin).
    ///
    /// - Throws: `PlacesCSVError`, as `read(path:options:)` throws it (without `unreadable`).
    public static func read(bytes: [UInt8], options: Options = Options()) throws(PlacesCSVError) -> Result {
        var reader = Reader(options: options)
        var scanner = CSVScanner()
        do {
            try bytes.withUnsafeBufferPointer { buffer in try scanner.feed(buffer) { try reader.take($0) } }
            try scanner.finish { try reader.take($0) }
        } catch let error as PlacesCSVError {
            throw error
        } catch {
            throw PlacesCSVError(line: 0, reason: .unreadable("\(error)"))
        }
        return try reader.result()
    }

    /// Turns records into places.
    private struct Reader {
        let options: Options
        var header: [String]?
        var columns: [String: Int] = [:] {
            didSet {
                idColumn = columns["id"]; latColumn = columns["lat"]; lonColumn = columns["lon"]
                radiusColumn = columns["radius_m"]; nameColumn = columns["name"]
            }
        }
        var idColumn: Int?, latColumn: Int?, lonColumn: Int?, radiusColumn: Int?, nameColumn: Int?
        var places: [Place] = []
        var lines: [Int] = []
        var rejected: [RejectedRow] = []
        /// Every checked id, by its position in `places`.
        var ids = IDTable()
        /// Places appended but not yet checked for a repeated id (the last `pendingHashes.count`
        /// of `places`), with their ids' hashes and their records' bytes, kept until the check in
        /// case they must be rejected after all.
        var pendingHashes: [UInt64] = []
        var pendingBytes: [UInt8] = []
        /// Per pending record: its field ends (relative to its own bytes) in `pendingEnds`, from
        /// `pendingFieldStarts[j]` to `pendingFieldStarts[j + 1]` (or the end).
        var pendingEnds: [Int] = []
        var pendingFieldStarts: [Int] = []
        static let batch = 64
        /// The file's size, when known: sizes the id table (see `take`).
        var fileBytes: Int?
        /// Bytes of the data rows read so far.
        var rowBytes = 0
        static let rowsBeforeSizing = 256

        init(options: Options) {
            self.options = options
        }

        mutating func reserve(rows: Int) {
            places.reserveCapacity(rows)
            lines.reserveCapacity(rows)
        }

        mutating func take(_ record: CSVScanner.Record) throws(PlacesCSVError) {
            guard header != nil else {
                try readHeader(record)
                return
            }
            do throws(PlacesCSVError) {
                let place = try parse(record)
                places.append(place)
                lines.append(record.line)
                pendingHashes.append(IDTable.hash(place.id))
                pendingBytes.append(contentsOf: record.bytes[0..<(record.ends.last ?? 0)])
                pendingFieldStarts.append(pendingEnds.count)
                pendingEnds.append(contentsOf: record.ends)
                rowBytes += (record.ends.last ?? 0) + 1
                if places.count == Self.rowsBeforeSizing, let fileBytes {
                    // Rows like these fill the file about this many times (+25 %).
                    let rows = fileBytes / max(1, rowBytes / Self.rowsBeforeSizing)
                    ids.reserve(capacity: min(rows + rows / 4, 50_000_000)) { [places] in places[$0].id }
                }
                if pendingHashes.count == Self.batch { try checkPendingIDs() }
            } catch {
                // Earlier rows come first: settle their ids before this row's verdict (so
                // rejections stay in line order, and strict mode throws the first bad row).
                try checkPendingIDs()
                if options.strict { throw error }
                rejected.append(RejectedRow(line: record.line, reason: error.reason.description, fields: record.fields))
            }
        }

        /// Checks the pending places' ids against every earlier one, in row order, and rejects
        /// the repeats (strict mode: throws at the first).
        mutating func checkPendingIDs() throws(PlacesCSVError) {
            let count = pendingHashes.count
            guard count > 0 else { return }
            for hash in pendingHashes { ids.touch(hash) }
            let first = places.count - count
            // Repeats leave the list as they are found; the others move down over them, and each
            // enters the table at its final position.
            var kept = first
            var recordStart = 0
            for j in 0..<count {
                let position = first + j
                let ends = pendingEnds[pendingFieldStarts[j]..<(j + 1 < count ? pendingFieldStarts[j + 1] : pendingEnds.count)]
                defer { recordStart += ends.last ?? 0 }
                let id = places[position].id
                if let earlier = ids.insertIfAbsent(id, hash: pendingHashes[j], position: kept, ids: { [places] in places[$0].id }) {
                    let line = lines[position]
                    let error = PlacesCSVError(line: line, reason: .duplicateID(id, firstLine: lines[earlier]))
                    if options.strict { throw error }
                    let record = CSVScanner.Record(
                        line: line, bytes: Array(pendingBytes[recordStart..<(recordStart + (ends.last ?? 0))]),
                        ends: Array(ends), problem: nil)
                    rejected.append(RejectedRow(line: line, reason: error.reason.description, fields: record.fields))
                } else {
                    if kept != position {
                        places[kept] = places[position]
                        lines[kept] = lines[position]
                    }
                    kept += 1
                }
            }
            places.removeLast(places.count - kept)
            lines.removeLast(lines.count - kept)
            pendingHashes.removeAll(keepingCapacity: true)
            pendingBytes.removeAll(keepingCapacity: true)
            pendingEnds.removeAll(keepingCapacity: true)
            pendingFieldStarts.removeAll(keepingCapacity: true)
        }

        mutating func readHeader(_ record: CSVScanner.Record) throws(PlacesCSVError) {
            if let problem = record.problem { throw PlacesCSVError(line: record.line, reason: .malformedHeader(CSVProblem(problem))) }
            columns = CSVFile.columns(of: record.fields, aliases: PlacesCSV.aliases)
            for required in ["id", "lat", "lon"] where columns[required] == nil {
                throw PlacesCSVError(line: record.line, reason: .missingColumn(required))
            }
            header = record.fields
        }

        func parse(_ record: CSVScanner.Record) throws(PlacesCSVError) -> Place {
            let line = record.line
            if let problem = record.problem { throw PlacesCSVError(line: line, reason: .malformed(CSVProblem(problem))) }
            guard let header, record.count == header.count else {
                throw PlacesCSVError(line: line, reason: .wrongFieldCount(expected: header?.count ?? 0, found: record.count))
            }
            // Unquoted fields come trimmed from the scanner; a quoted id is kept as written. Ids
            // are kept in NFC, so that two spellings of one id are one id (and a repeat) here and
            // wherever ids are compared as bytes; the length limit applies to that form.
            guard let written = idColumn.map({ record.field($0) }), !written.isEmpty else {
                throw PlacesCSVError(line: line, reason: .missingField("id"))
            }
            let id = record.nonASCII ? Identifiers.canonical(written) : written
            let idBytes = id.utf8.count
            if idBytes > Identifiers.maximumBytes { throw PlacesCSVError(line: line, reason: .idTooLong(bytes: idBytes)) }
            if let prefix = options.reservedIDPrefix, id.hasPrefix(prefix) {
                throw PlacesCSVError(line: line, reason: .reservedID(id, prefix: prefix))
            }
            let latitude = try number("lat", latColumn, record)
            let longitude = try number("lon", lonColumn, record)
            let coordinate: Coordinate
            do {
                coordinate = try Coordinate(latitude: latitude, longitude: longitude)
            } catch {
                throw PlacesCSVError(line: line, reason: .outOfRange(error.description))
            }
            var radius = options.defaultRadiusMeters
            if let column = radiusColumn, !record.range(column).allSatisfy({ CSVScanner.Record.isSpace(record.bytes[$0]) }) {
                radius = try number("radius_m", column, record)
                guard radius > 0 else { throw PlacesCSVError(line: line, reason: .radiusNotPositive(radius)) }
            }
            let name = nameColumn.map { record.field($0) }
            return Place(id: id, coordinate: coordinate, radiusMeters: radius, name: name?.isEmpty == true ? nil : name)
        }

        func number(_ column: String, _ index: Int?, _ record: CSVScanner.Record) throws(PlacesCSVError) -> Double {
            let line = record.line
            guard let index else { throw PlacesCSVError(line: line, reason: .missingField(column)) }
            guard let value = record.number(index) else {
                let text = record.trimmedField(index)
                throw PlacesCSVError(line: line, reason: text.isEmpty ? .missingField(column) : .notANumber(column, text))
            }
            guard value.isFinite else { throw PlacesCSVError(line: line, reason: .notFinite(column, record.trimmedField(index))) }
            return value
        }

        mutating func result() throws(PlacesCSVError) -> Result {
            guard let header else { throw PlacesCSVError(line: 1, reason: .emptyFile) }
            try checkPendingIDs()
            guard !places.isEmpty else {
                throw PlacesCSVError(line: 1, reason: .noValidRows(header: header, rejected: rejected.sorted { $0.line < $1.line }))
            }
            return Result(places: places, lines: lines, rejected: rejected, header: header)
        }
    }
}

/// A row a reader rejected: where, why, and what it said.
public struct RejectedRow: Hashable, Sendable {
    /// 1-based line where the record starts.
    public var line: Int
    /// Why, in one line (the reason's description).
    public var reason: String
    /// The record's fields as read.
    public var fields: [String]

    /// Creates a rejected row.
    public init(line: Int, reason: String, fields: [String]) {
        self.line = line
        self.reason = reason
        self.fields = fields
    }
}

/// A bad places file or row: the 1-based line (record start) and the reason.
public struct PlacesCSVError: Error, Equatable, Sendable, CustomStringConvertible {
    /// 1-based line where the record starts (CR LF is one line break); 0 when the file cannot be
    /// read, 1 for problems of the whole file.
    public var line: Int
    /// What is wrong.
    public var reason: Reason

    /// Creates an error at `line`.
    public init(line: Int, reason: Reason) {
        self.line = line
        self.reason = reason
    }

    /// What is wrong with a places file or row.
    public enum Reason: Equatable, Sendable, CustomStringConvertible {
        /// The file cannot be opened or read: the system's reason.
        case unreadable(String)
        /// The file has no header row.
        case emptyFile
        /// The header has no column for this required field (`id`, `lat` or `lon`, or an alias).
        case missingColumn(String)
        /// Every row was rejected: the rows, in line order, so none goes unreported.
        case noValidRows(header: [String], rejected: [RejectedRow])
        /// The record's CSV syntax is broken.
        case malformed(CSVProblem)
        /// The header record's CSV syntax is broken, or it is too long: the read stops.
        case malformedHeader(CSVProblem)
        /// The row has another number of fields than the header.
        case wrongFieldCount(expected: Int, found: Int)
        /// The named field is empty (or its column is absent).
        case missingField(String)
        /// The named field's text is not a decimal number: the column and the text.
        case notANumber(String, String)
        /// The named field is a number but NaN or infinite (`nan`, `inf`, `1e400`): the column and the text.
        case notFinite(String, String)
        /// The latitude or longitude is outside its range: the `CoordinateError` description.
        case outOfRange(String)
        /// The radius, meters, is 0 or negative.
        case radiusNotPositive(Double)
        /// The id (in NFC) was already read on `firstLine`.
        case duplicateID(String, firstLine: Int)
        /// The id (in NFC) is longer than `Identifiers.maximumBytes` UTF-8 bytes.
        case idTooLong(bytes: Int)
        /// The id starts with `Options.reservedIDPrefix`.
        case reservedID(String, prefix: String)

        /// One line a person reads, for `path:line: reason` diagnostics.
        public var description: String {
            switch self {
            case .unreadable(let why): RowProblemText.unreadable(why)
            case .emptyFile: "the file is empty (no header row)"
            case .missingColumn(let column): RowProblemText.missingColumn(column, aliases: PlacesCSV.aliases)
            case .noValidRows(_, let rejected): "no valid rows (\(rejected.count) rejected)"
            case .malformed(let problem): problem.description
            case .malformedHeader(let problem): problem.headerDescription
            case .wrongFieldCount(let expected, let found): RowProblemText.wrongFieldCount(expected: expected, found: found)
            case .missingField(let column): RowProblemText.missingField(column)
            case .notANumber(let column, let text): RowProblemText.notANumber(column, text)
            case .notFinite(let column, let text): RowProblemText.notFinite(column, text)
            case .outOfRange(let why): why
            case .radiusNotPositive(let radius): "radius must be > 0, got \(radius)"
            case .duplicateID(let id, let first): "duplicate id '\(id)' (first on line \(first))"
            case .idTooLong(let bytes): "'id' is \(bytes) bytes long; at most \(Identifiers.maximumBytes)"
            case .reservedID(let id, let prefix): "id '\(id)' starts with the reserved refresh prefix '\(prefix)'"
            }
        }
    }

    /// `line: reason` (a caller prefixes the path).
    public var description: String { "\(line): \(reason)" }
}

/// What is wrong with a CSV record's syntax.
public enum CSVProblem: Equatable, Sendable, CustomStringConvertible {
    /// A quoted field runs to the end of the file.
    case unterminatedQuote
    /// Anything but a comma or a line end after a closing quote, spaces and tabs included.
    case textAfterClosingQuote
    /// The record's bytes are not valid UTF-8.
    case invalidUTF8
    /// A quote in a field that does not start with one (`ab"c`; ` "a"`, a space before the quote).
    case quoteInUnquotedField
    /// A record longer than 1 MiB as written (`CSVScanner.maximumRecordBytes`): its length. Its
    /// fields are not kept.
    case recordTooLong(bytes: Int)

    init(_ problem: CSVScanner.Problem) {
        switch problem {
        case .unterminatedQuote: self = .unterminatedQuote
        case .textAfterClosingQuote: self = .textAfterClosingQuote
        case .invalidUTF8: self = .invalidUTF8
        case .quoteInUnquotedField: self = .quoteInUnquotedField
        case .recordTooLong(let bytes): self = .recordTooLong(bytes: bytes)
        }
    }

    /// One line a person reads, with what to do about it.
    public var description: String {
        switch self {
        case .unterminatedQuote: "unterminated quote (a quoted field runs to the end of the file)"
        case .textAfterClosingQuote: "text after a closing quote (only a comma or a line end may follow it)"
        case .invalidUTF8: "not valid UTF-8"
        case .quoteInUnquotedField: "a quote inside an unquoted field (quote the whole field and double its quotes)"
        case .recordTooLong(let bytes): "record is \(bytes) bytes long; at most \(CSVScanner.maximumRecordBytes): skipped"
        }
    }

    /// The problem of a header record, which is not skipped but stops the read: `the header
    /// record is N bytes long; at most 1048576`, or `the header is not read: ` and the reason.
    package var headerDescription: String {
        switch self {
        case .recordTooLong(let bytes): "the header record is \(bytes) bytes long; at most \(CSVScanner.maximumRecordBytes)"
        default: "the header is not read: \(description)"
        }
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs, CR and LF.
    func trimmingASCIIWhitespace() -> String {
        let isSpaceByte: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
        if let first = utf8.first, let last = utf8.last, !isSpaceByte(first), !isSpaceByte(last) { return self }
        // CR LF is one `Character`, equal to neither "\r" nor "\n".
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}

/// The wording of the row and file problems the places and walk readers share, in one place so
/// that both formats report them alike.
enum RowProblemText {
    static func unreadable(_ why: String) -> String { "cannot read the file: \(why)" }
    static func missingColumn(_ column: String, aliases: [String: [String]]) -> String {
        "the header has no '\(column)' column (\(aliases[column]?.joined(separator: ", ") ?? column) are accepted)"
    }
    static func wrongFieldCount(expected: Int, found: Int) -> String { "wrong field count: \(found) fields, the header has \(expected)" }
    static func missingField(_ column: String) -> String { "missing field '\(column)'" }
    static func notANumber(_ column: String, _ text: String) -> String { "'\(column)' is not a number: '\(text)'" }
    static func notFinite(_ column: String, _ text: String) -> String { "'\(column)' is not finite: '\(text)'" }
}
