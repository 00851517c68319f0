import Foundation
import RotateFormats
import RotateTestSupport
import Testing

/// The scanner's cap on a record's length (1 MiB as written): a longer record is handed out
/// without its fields, as a problem with its length and start line, and reading goes on.
@Suite struct CSVScannerTests {
    static let limit = 1_048_576

    /// A record of exactly the limit is kept; one byte more is skipped, whether its bytes arrive in
    /// one chunk, in many, or one at a time (the byte-at-a-time state machine), unquoted or
    /// quoted across lines, and the records after it keep their lines.
    @Test(arguments: [1, 65_536, Int.max])
    func recordsOverTheLimitAreSkippedWithTheirLength(chunkSize: Int) {
        let fits = String(repeating: "x", count: Self.limit - 2) + ",y"
        // Quoted, across five lines, with escaped quotes and commas inside: every byte counts.
        let quoted = "\"" + String(repeating: "a\"\",\n", count: 5) + String(repeating: "z", count: Self.limit - 28) + "\",q"
        let text = "h1,h2\n" + fits + "\n" + quoted + "\r\n" + "c,d\n" + String(repeating: "w", count: 3 * Self.limit) + "\nlast,1"
        let records = CSVFile.records(of: Array(text.utf8), chunkSize: min(chunkSize, text.utf8.count))
        #expect(records.map(\.line) == [1, 2, 3, 9, 10, 11])
        #expect(records[1].fields == [String(repeating: "x", count: Self.limit - 2), "y"] && records[1].problem == nil)
        #expect(records[2].fields.isEmpty)
        #expect(records[2].problem == .recordTooLong(bytes: Self.limit + 1))
        #expect(records[3].fields == ["c", "d"] && records[3].problem == nil)
        #expect(records[4].problem == .recordTooLong(bytes: 3 * Self.limit))
        #expect(records[5].fields == ["last", "1"] && records[5].problem == nil)
    }

    /// A quote left open with more than the limit after it is one long record (the rest of the
    /// file), reported by its length rather than as unterminated.
    @Test func anOpenQuoteLongerThanTheLimitIsALongRecord() {
        let text = "h\nok\n\"" + String(repeating: "v\n", count: Self.limit)
        let records = CSVFile.records(of: Array(text.utf8), chunkSize: 1 << 20)
        #expect(records.map(\.line) == [1, 2, 3])
        #expect(records[2].problem == .recordTooLong(bytes: 1 + 2 * Self.limit))
        #expect(CSVProblem.recordTooLong(bytes: 5_000_051).description == "record is 5000051 bytes long; at most 1048576: skipped")
    }
}
