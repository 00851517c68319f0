/// A streaming RFC 4180 scanner over bytes: feed it chunks, it hands out records.
///
/// Quoted fields may hold commas, `""` (an escaped quote) and line breaks; `\n` and `\r\n` end
/// records (a lone `\r` too); a UTF-8 byte order mark at the very start is skipped. Each record
/// carries the 1-based line on which it starts (a `\r\n` counts as one break). Malformed input —
/// a quote left open at the end, text after a closing quote, bytes that are not UTF-8 — is reported
/// per record, never trapped on.
struct CSVScanner {
    /// One record: its fields, the line it starts on, or why it is malformed.
    struct Record {
        var line: Int
        var fields: [String]
        var problem: Problem?
    }

    enum Problem: Equatable {
        case unterminatedQuote
        case textAfterClosingQuote
        case invalidUTF8
    }

    private enum State {
        case fieldStart, unquoted, quoted, quoteInQuoted, afterClosingQuote
    }

    private var state = State.fieldStart
    private var field: [UInt8] = []
    private var fields: [String] = []
    private var problem: Problem?
    private var line = 1
    private var recordLine = 1
    private var pendingCR = false
    private var atStart = true
    private var bomMatched = 0
    private var recordHasContent = false

    init() {
        field.reserveCapacity(64)
    }

    /// Scans `bytes`, calling `emit` for every completed record.
    mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>, emit: (Record) throws -> Void) rethrows {
        for byte in bytes {
            if atStart {
                // Skip a UTF-8 BOM (EF BB BF) at the very beginning.
                let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
                if byte == bom[bomMatched] {
                    bomMatched += 1
                    if bomMatched == 3 { atStart = false }
                    continue
                }
                atStart = false
                if bomMatched > 0 {
                    // Not a BOM after all: replay the bytes taken.
                    let taken = Array(bom.prefix(bomMatched))
                    bomMatched = 0
                    for b in taken { try consume(b, emit: emit) }
                }
            }
            try consume(byte, emit: emit)
        }
    }

    /// Ends the input, emitting the last record if it has content.
    mutating func finish(emit: (Record) throws -> Void) rethrows {
        if atStart && bomMatched > 0 {
            atStart = false
            let taken = Array([UInt8]([0xEF, 0xBB, 0xBF]).prefix(bomMatched))
            for b in taken { try consume(b, emit: emit) }
        }
        if state == .quoted {
            problem = problem ?? .unterminatedQuote
        }
        if recordHasContent || state == .quoted {
            endField()
            try emitRecord(emit)
        }
    }

    private mutating func consume(_ byte: UInt8, emit: (Record) throws -> Void) rethrows {
        let quote: UInt8 = 0x22, comma: UInt8 = 0x2C, lf: UInt8 = 0x0A, cr: UInt8 = 0x0D
        let afterCR = pendingCR
        pendingCR = false
        switch state {
        case .quoted:
            if byte == quote {
                state = .quoteInQuoted
            } else {
                // A line break inside quotes is content; \r\n still counts as one line.
                if byte == cr {
                    line += 1
                    pendingCR = true
                } else if byte == lf && !afterCR {
                    line += 1
                }
                field.append(byte)
            }
            return
        case .quoteInQuoted:
            if byte == quote {
                field.append(quote)
                state = .quoted
                return
            }
            state = .afterClosingQuote
        default:
            break
        }
        if afterCR && byte == lf { return }  // \r\n outside quotes: the \r ended the record
        switch byte {
        case comma:
            recordHasContent = true
            endField()
            state = .fieldStart
        case lf, cr:
            if byte == cr { pendingCR = true }
            line += 1
            if recordHasContent || !fields.isEmpty || !field.isEmpty {
                endField()
                try emitRecord(emit)
            }
            recordLine = line
            state = .fieldStart
        case quote where state == .fieldStart:
            recordHasContent = true
            state = .quoted
        default:
            recordHasContent = true
            if state == .afterClosingQuote {
                if byte != 0x20 && byte != 0x09 { problem = problem ?? .textAfterClosingQuote }
                return
            }
            state = .unquoted
            field.append(byte)
        }
    }

    private mutating func endField() {
        if field.allSatisfy({ $0 < 0x80 }) {
            // ASCII needs no validation (the common case, and much faster).
            fields.append(String(decoding: field, as: UTF8.self))
        } else if let text = String(validating: field, as: UTF8.self) {
            fields.append(text)
        } else {
            problem = problem ?? .invalidUTF8
            fields.append(String(decoding: field, as: UTF8.self))
        }
        field.removeAll(keepingCapacity: true)
    }

    private mutating func emitRecord(_ emit: (Record) throws -> Void) rethrows {
        let record = Record(line: recordLine, fields: fields, problem: problem)
        fields.removeAll(keepingCapacity: true)
        problem = nil
        recordHasContent = false
        state = .fieldStart
        try emit(record)
    }
}

/// One CSV record as read: the line it starts on, its fields, and a syntax problem if any.
public struct CSVRecord: Sendable {
    public var line: Int
    public var fields: [String]
    public var problem: CSVProblem?
}

/// Streams the records of any CSV file (RFC 4180, as `PlacesCSV` reads it).
public enum CSVFile {
    /// Calls `body` for every record of the file at `path` (`-` for standard input), header
    /// included, as the file is read.
    public static func forEachRecord(path: String, _ body: (CSVRecord) throws -> Void) throws {
        var scanner = CSVScanner()
        func emit(_ record: CSVScanner.Record) throws {
            try body(CSVRecord(line: record.line, fields: record.fields, problem: record.problem.map(CSVProblem.init)))
        }
        try FileBytes.forEachChunk(of: path) { chunk in try scanner.feed(chunk, emit: emit) }
        try scanner.finish(emit: emit)
    }

    /// The column of each canonical name found in `header` (case-insensitive, trimmed), using
    /// `aliases` (canonical name -> accepted spellings).
    public static func columns(of header: [String], aliases: [String: [String]]) -> [String: Int] {
        let names = header.map { $0.trimmingASCIIWhitespace().lowercased() }
        var columns: [String: Int] = [:]
        for (canonical, accepted) in aliases {
            if let position = names.firstIndex(where: { accepted.contains($0) }) { columns[canonical] = position }
        }
        return columns
    }

    /// A field trimmed of spaces, tabs and line ends.
    public static func trimmed(_ field: String) -> String { field.trimmingASCIIWhitespace() }
}
