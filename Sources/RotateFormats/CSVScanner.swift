/// A streaming RFC 4180 scanner over bytes: feed it chunks, it hands out records.
///
/// A field that starts with `"` is quoted: it may hold commas, `""` (an escaped quote) and line
/// breaks, and its content is kept exactly as written. Any other field is unquoted: it is trimmed
/// of spaces and tabs at both ends and may not hold a quote (so ` "a"`, with a space before the
/// quote, is an unquoted field with quotes in it). `\n`, `\r\n` and a lone `\r` end records; a
/// UTF-8 byte order mark at the very start is skipped. Each record carries the 1-based line on
/// which it starts (a `\r\n` counts as one break). Malformed input — a quote left open at the end,
/// anything but a comma or a line end after a closing quote, a quote inside an unquoted field,
/// bytes that are not UTF-8 — is reported per record (its bytes kept in the field), never trapped
/// on. A record longer than `maximumRecordBytes` is not kept: its bytes are counted and dropped
/// as they arrive, and it is handed out without fields, as a problem with its length, so that
/// one long record (a quote left open, a huge field) costs at most that much memory.
struct CSVScanner {
    /// The longest record kept, in bytes as written (quotes, separators and line breaks inside
    /// quotes included; the line end after it not): 1 MiB, as the sidecar caps a line.
    static let maximumRecordBytes = 1_048_576

    /// One record: its fields' bytes back to back with each field's end offset, the line it
    /// starts on, and why it is malformed, if it is. Fields become strings only when asked for,
    /// so a reader pays only for the columns it uses.
    struct Record {
        var line: Int
        var bytes: [UInt8]
        var ends: [Int]
        var problem: Problem?
        /// Whether any of its bytes is 0x80 or above: else every field is ASCII.
        var nonASCII = true

        var count: Int { ends.count }

        func range(_ i: Int) -> Range<Int> { (i == 0 ? 0 : ends[i - 1])..<ends[i] }

        /// Field `i` as a string (invalid UTF-8 repaired; the record's `problem` says so).
        func field(_ i: Int) -> String { String(decoding: bytes[range(i)], as: UTF8.self) }

        /// Every field as a string.
        var fields: [String] { (0..<count).map(field) }

        /// Field `i` without leading and trailing spaces, tabs and line ends: the text of a
        /// number field, quoted or not.
        func trimmedField(_ i: Int) -> String {
            var r = range(i)
            while r.lowerBound < r.upperBound, Self.isSpace(bytes[r.lowerBound]) { r = (r.lowerBound + 1)..<r.upperBound }
            while r.lowerBound < r.upperBound, Self.isSpace(bytes[r.upperBound - 1]) { r = r.lowerBound..<(r.upperBound - 1) }
            return String(decoding: bytes[r], as: UTF8.self)
        }

        @inline(__always) static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A }

        /// Field `i` trimmed (quoted or not), as a number read by `DecimalText` (the one number
        /// reader: correctly rounded, fast for the short decimals the formats hold); nil when it
        /// is not a number (`nan`, `inf` and `infinity` read as not finite).
        func number(_ i: Int) -> Double? {
            var r = range(i)
            while r.lowerBound < r.upperBound, Self.isSpace(bytes[r.lowerBound]) { r = (r.lowerBound + 1)..<r.upperBound }
            while r.lowerBound < r.upperBound, Self.isSpace(bytes[r.upperBound - 1]) { r = r.lowerBound..<(r.upperBound - 1) }
            guard !r.isEmpty else { return nil }
            let read = bytes.withUnsafeBufferPointer { buffer -> Double? in
                let field = UnsafeBufferPointer(rebasing: buffer[r])
                guard let scan = DecimalText.scan(field, from: 0), scan.end == field.count else { return nil }
                return scan.value
            }
            return read ?? DecimalText.double(bytes[r])
        }
    }

    enum Problem: Equatable {
        case unterminatedQuote
        /// Anything but a comma or a line end after a closing quote (spaces and tabs included).
        case textAfterClosingQuote
        /// A quote in a field that does not start with one (`ab"c`, ` "a"`).
        case quoteInUnquotedField
        case invalidUTF8
        /// Longer than `maximumRecordBytes`: the record's length as written.
        case recordTooLong(bytes: Int)
    }

    private enum State {
        case fieldStart, unquoted, quoted, quoteInQuoted, afterClosingQuote
    }

    private var state = State.fieldStart
    private var bytes: [UInt8] = []
    private var ends: [Int] = []
    /// Whether the record in progress has a byte ≥ 0x80 (then its fields are checked as UTF-8).
    private var nonASCII = false
    private var problem: Problem?
    private var line = 1
    private var recordLine = 1
    private var pendingCR = false
    private var atStart = true
    private var bomMatched = 0
    private var recordHasContent = false
    /// Bytes of the record in progress as written so far (its line end excluded).
    private var recordLength = 0
    /// Whether the record in progress passed `maximumRecordBytes`: then its bytes are dropped.
    private var overLimit = false

    init() {
        bytes.reserveCapacity(256)
        ends.reserveCapacity(16)
    }

    /// Scans `bytes`, calling `emit` for every completed record.
    mutating func feed(_ input: UnsafeBufferPointer<UInt8>, emit: (Record) throws -> Void) rethrows {
        var i = 0
        let count = input.count
        while i < count {
            let byte = input[i]
            if atStart {
                i += 1
                try startInput(byte, emit: emit)
                continue
            }
            // Fast path: a run of ordinary bytes inside a field is copied at once (the per-byte
            // state machine only sees separators, quotes and line ends).
            if !pendingCR && (state == .fieldStart || state == .unquoted || state == .quoted) && Self.isOrdinary(byte) {
                i = copyRun(input, from: i)
                continue
            }
            try consume(byte, emit: emit)
            i += 1
        }
    }

    /// Takes one of the input's first bytes: skips a UTF-8 BOM (EF BB BF) at the very
    /// beginning, matched a byte at a time across chunks; at the first byte that does not match,
    /// replays the bytes taken and consumes it, and the input has started.
    @inline(never) private mutating func startInput(_ byte: UInt8, emit: (Record) throws -> Void) rethrows {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        if byte == bom[bomMatched] {
            bomMatched += 1
            if bomMatched == 3 { atStart = false }
            return
        }
        atStart = false
        if bomMatched > 0 {
            // Not a BOM after all: replay the bytes taken.
            let taken = Array(bom.prefix(bomMatched))
            bomMatched = 0
            for b in taken { try consume(b, emit: emit) }
        }
        try consume(byte, emit: emit)
    }

    /// Appends the run of ordinary bytes that starts at `start` to the field in progress (a field
    /// it starts becomes unquoted) and, when a comma right after it ends an unquoted field, ends
    /// the field there; returns the offset in `input` where scanning resumes.
    @inline(__always) private mutating func copyRun(_ input: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        let (end, high) = Self.ordinaryRun(in: input, from: start)
        // Whether the run starts the field with a byte above a space: then, if a comma ends
        // the field right after the run and the run's last byte is above a space too, the
        // field needs no trimming.
        let cleanStart = state == .fieldStart && input[start] > 0x20
        if state == .fieldStart { state = .unquoted }
        recordHasContent = true
        if high { nonASCII = true }
        countBytes(end - start)
        if !overLimit { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: input[start..<end])) }
        // The usual end of an unquoted field, a comma, handled here (what `consume`
        // would do) rather than through the general state machine.
        guard state == .unquoted && end < input.count && input[end] == 0x2C else { return end }
        countBytes(1)
        if overLimit {
            // Nothing of the record is kept.
        } else if cleanStart && input[end - 1] > 0x20 {
            ends.append(bytes.count)
        } else {
            endUnquotedField()
        }
        state = .fieldStart
        return end + 1
    }

    /// The end of the run of ordinary bytes (see `isOrdinary`) that starts at `start` with an
    /// ordinary byte, and whether any of its bytes is 0x80 or above.
    @inline(__always) private static func ordinaryRun(in input: UnsafeBufferPointer<UInt8>, from start: Int) -> (end: Int, high: Bool) {
        let count = input.count
        var j = start + 1
        var high = input[start] >= 0x80
        // Eight bytes at a time while none of them ends the run (see `specials`).
        // SAFETY: every load reads `input[j..<j + 8]` with `j + 8 <= count`.
        let base = UnsafeRawPointer(input.baseAddress!)
        while j + 8 <= count {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: j, as: UInt64.self))
            let found = Self.specials(word)
            if found != 0 {
                // Bytes before the first special one: the lowest flagged byte is exact.
                let before = found.trailingZeroBitCount >> 3
                let kept = before == 0 ? 0 : word & (UInt64.max >> (64 - 8 * before))
                if kept & 0x8080_8080_8080_8080 != 0 { high = true }
                j += before
                break
            }
            if word & 0x8080_8080_8080_8080 != 0 { high = true }
            j += 8
        }
        while j < count {
            let b = input[j]
            if !Self.isOrdinary(b) { break }
            if b >= 0x80 { high = true }
            j += 1
        }
        return (j, high)
    }

    /// Not a comma, quote, CR or LF.
    @inline(__always) static func isOrdinary(_ b: UInt8) -> Bool { b != 0x2C && b != 0x22 && b != 0x0D && b != 0x0A }

    /// The bytes of `word` (little-endian: byte 0 lowest) that are a comma, quote, CR or LF,
    /// flagged by their top bit; exact up to the first such byte (the classic zero-byte test:
    /// `(x − 0x01…) & ~x & 0x80…` flags every zero byte of `x`, and can flag a byte above a zero
    /// one through the borrow, never below it), so the lowest flag is the first special byte.
    @inline(__always) static func specials(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func zeroBytes(_ x: UInt64) -> UInt64 { (x &- ones) & ~x & highs }
        return zeroBytes(word ^ (ones &* 0x2C)) | zeroBytes(word ^ (ones &* 0x22))
            | zeroBytes(word ^ (ones &* 0x0D)) | zeroBytes(word ^ (ones &* 0x0A))
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
            endField(unquoted: state == .unquoted)
            try emitRecord(emit)
        }
    }

    private mutating func consume(_ byte: UInt8, emit: (Record) throws -> Void) rethrows {
        let quote: UInt8 = 0x22, comma: UInt8 = 0x2C, lf: UInt8 = 0x0A, cr: UInt8 = 0x0D
        let afterCR = pendingCR
        pendingCR = false
        switch state {
        case .quoted:
            countBytes(1)
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
                append(byte)
            }
            return
        case .quoteInQuoted:
            if byte == quote {
                countBytes(1)
                append(quote)
                state = .quoted
                return
            }
            state = .afterClosingQuote
        default:
            break
        }
        if afterCR && byte == lf { return }  // \r\n outside quotes: the \r ended the record
        if byte != lf && byte != cr { countBytes(1) }
        switch byte {
        case comma:
            recordHasContent = true
            endField(unquoted: state == .unquoted)
            state = .fieldStart
        case lf, cr:
            if byte == cr { pendingCR = true }
            line += 1
            if recordHasContent || !ends.isEmpty || bytes.count > (ends.last ?? 0) {
                endField(unquoted: state == .unquoted)
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
                // Kept in the field, so that the rejected row shows what was written.
                problem = problem ?? .textAfterClosingQuote
            } else {
                if byte == quote { problem = problem ?? .quoteInUnquotedField }
                state = .unquoted
            }
            append(byte)
        }
    }

    @inline(__always) private mutating func append(_ byte: UInt8) {
        if overLimit { return }
        if byte >= 0x80 { nonASCII = true }
        bytes.append(byte)
    }

    /// Adds `n` bytes as written to the record in progress; past `maximumRecordBytes` its bytes
    /// are dropped, and so is what follows of it.
    @inline(__always) private mutating func countBytes(_ n: Int) {
        recordLength += n
        if recordLength > Self.maximumRecordBytes && !overLimit { dropRecord() }
    }

    @inline(never) private mutating func dropRecord() {
        overLimit = true
        // Its storage goes too: a record just under the limit leaves at most that much behind.
        bytes = []
        ends = []
        bytes.reserveCapacity(256)
        ends.reserveCapacity(16)
    }

    /// Ends the field in progress; an unquoted one is first trimmed of spaces and tabs.
    @inline(__always) private mutating func endField(unquoted: Bool) {
        if overLimit { return }
        if unquoted {
            endUnquotedField()
        } else {
            ends.append(bytes.count)
        }
    }

    /// Ends an unquoted field, trimmed of spaces and tabs (checked only when its first or last
    /// byte is at most a space, which is rare).
    private mutating func endUnquotedField() {
        let start = ends.last ?? 0
        if bytes.count > start && (bytes[start] <= 0x20 || bytes[bytes.count - 1] <= 0x20) { trimField(from: start) }
        ends.append(bytes.count)
    }

    /// Drops the spaces and tabs at both ends of the field that starts at `start` (the slow path,
    /// out of line).
    @inline(never) private mutating func trimField(from start: Int) {
        while bytes.count > start, Self.isBlank(bytes[bytes.count - 1]) { bytes.removeLast() }
        var first = start
        while first < bytes.count, Self.isBlank(bytes[first]) { first += 1 }
        bytes.removeSubrange(start..<first)
    }

    /// A space or a tab.
    @inline(__always) static func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }

    private mutating func emitRecord(_ emit: (Record) throws -> Void) rethrows {
        if overLimit { problem = .recordTooLong(bytes: recordLength) }
        if nonASCII && problem == nil {
            var start = 0
            for end in ends {
                if String(validating: bytes[start..<end], as: UTF8.self) == nil {
                    problem = .invalidUTF8
                    break
                }
                start = end
            }
        }
        let record = Record(line: recordLine, bytes: bytes, ends: ends, problem: problem, nonASCII: nonASCII)
        try emit(record)
        bytes.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        nonASCII = false
        problem = nil
        recordHasContent = false
        recordLength = 0
        overLimit = false
        state = .fieldStart
    }
}

/// One CSV record as read: the line it starts on, its fields (an unquoted one trimmed of spaces
/// and tabs, a quoted one as written), and a syntax problem if any.
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

    /// The records of `bytes` fed to the scanner `chunkSize` bytes at a time (for tests: the
    /// scanner's fast paths must agree with its byte-at-a-time state machine, the only path a
    /// one-byte chunk takes, at every chunk boundary).
    package static func records(of bytes: [UInt8], chunkSize: Int) -> [CSVRecord] {
        precondition(chunkSize >= 1, "chunk size must be >= 1")
        var scanner = CSVScanner()
        var records: [CSVRecord] = []
        func emit(_ record: CSVScanner.Record) {
            records.append(CSVRecord(line: record.line, fields: record.fields, problem: record.problem.map(CSVProblem.init)))
        }
        bytes.withUnsafeBufferPointer { all in
            var start = 0
            while start < all.count {
                let end = min(all.count, start + chunkSize)
                scanner.feed(UnsafeBufferPointer(rebasing: all[start..<end]), emit: emit)
                start = end
            }
        }
        scanner.finish(emit: emit)
        return records
    }

    /// The header spellings every reader accepts for a latitude column (case-insensitive).
    public static let latitudeAliases = ["lat", "latitude", "y"]
    /// The header spellings every reader accepts for a longitude column (case-insensitive).
    public static let longitudeAliases = ["lon", "lng", "long", "longitude", "x"]
    /// The header spellings every reader accepts for a horizontal accuracy column, meters.
    public static let accuracyAliases = ["accuracy_m", "accuracy", "horizontal_accuracy"]

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
