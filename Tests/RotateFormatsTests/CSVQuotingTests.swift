import RotateFormats
import RotateTestSupport
import Testing

/// Quoting as the places reader applies it (docs/formats.md, "CSV as rotate reads it"): a quoted
/// field is kept exactly as written, an unquoted one is trimmed of spaces and tabs, numbers are
/// read trimmed either way, and a quote anywhere but around a whole field makes the row a
/// rejected one.
@Suite struct CSVQuotingTests {
    /// A rejected row: its start line and its reason.
    struct Rejection: Sendable, Equatable {
        var line: Int
        var reason: PlacesCSVError.Reason
    }

    /// Data rows after the header `id,lat,lon` (line 1), the ids accepted with their lines, and
    /// the rows rejected.
    struct Case: Sendable, CustomTestStringConvertible {
        var rule: String
        var rows: String
        var ids: [String]
        var lines: [Int]
        var rejected: [Rejection] = []
        var testDescription: String { rule }
    }

    static let cases: [Case] = [
        Case(rule: "a quoted id keeps its spaces", rows: "\" a \",1,2\na,3,4\n", ids: [" a ", "a"], lines: [2, 3]),
        Case(rule: "a quoted id keeps its CR LF", rows: "\"b\r\n\",1,2\nb,3,4\n", ids: ["b\r\n", "b"], lines: [2, 4]),
        Case(rule: "a quoted id keeps its tab and LF", rows: "\"\tc\n\",1,2\nc,3,4\n", ids: ["\tc\n", "c"], lines: [2, 4]),
        Case(
            rule: "an unquoted id is trimmed of spaces and tabs, a quoted one is not", rows: " d\t ,1,2\n\" d\",3,4\n",
            ids: ["d", " d"], lines: [2, 3]),
        Case(
            rule: "a quoted number is read trimmed", rows: "\" e \",\" 1.5 \",\"\t2\r\n\"\ne,3,4\n", ids: [" e ", "e"],
            lines: [2, 4]),
        Case(
            rule: "a lone CR ends a record, a quoted one is content", rows: "\"h\r\",1,2\rh,3,4\r\rok,5,6",
            ids: ["h\r", "h", "ok"], lines: [2, 4, 6]),
        Case(
            rule: "a quote inside an unquoted id", rows: "ab\"c,1,2\nok,3,4\n", ids: ["ok"], lines: [3],
            rejected: [Rejection(line: 2, reason: .malformed(.quoteInUnquotedField))]),
        Case(
            rule: "a quote ending an unquoted number", rows: "f,1\",2\nok,3,4\n", ids: ["ok"], lines: [3],
            rejected: [Rejection(line: 2, reason: .malformed(.quoteInUnquotedField))]),
        Case(
            rule: "a doubled quote inside an unquoted id", rows: "ok,1,2\ng\"\"h,3,4\n", ids: ["ok"], lines: [2],
            rejected: [Rejection(line: 3, reason: .malformed(.quoteInUnquotedField))]),
        Case(
            rule: "spaces before an opening quote", rows: "  \"a\",1,2\nok,3,4\n", ids: ["ok"], lines: [3],
            rejected: [Rejection(line: 2, reason: .malformed(.quoteInUnquotedField))]),
        Case(
            rule: "a space after a closing quote", rows: "\"a\" ,1,2\nok,3,4\n", ids: ["ok"], lines: [3],
            rejected: [Rejection(line: 2, reason: .malformed(.textAfterClosingQuote))]),
        Case(
            rule: "a tab after a closing quote, before a line end", rows: "ok,3,4\nb,1,\"2\"\t\n", ids: ["ok"], lines: [2],
            rejected: [Rejection(line: 3, reason: .malformed(.textAfterClosingQuote))]),
        Case(
            rule: "a space after a closing quote, at the end of the file", rows: "ok,3,4\nb,1,\"2\" ", ids: ["ok"],
            lines: [2], rejected: [Rejection(line: 3, reason: .malformed(.textAfterClosingQuote))]),
    ]

    /// Each case read leniently (the ids, lines and rejections listed) and strictly (the first
    /// rejection thrown, or the same places).
    @Test(arguments: cases)
    func quotingRule(_ example: Case) throws {
        let bytes = Array(("id,lat,lon\n" + example.rows).utf8)
        let result = try PlacesCSV.read(bytes: bytes)
        #expect(result.places.map(\.id) == example.ids)
        #expect(result.lines == example.lines)
        let expected = example.rejected.map { RejectedRow(line: $0.line, reason: $0.reason.description, fields: []) }
        #expect(result.rejected.map { RejectedRow(line: $0.line, reason: $0.reason, fields: []) } == expected)
        if let first = example.rejected.first {
            #expect(throws: PlacesCSVError(line: first.line, reason: first.reason)) {
                try PlacesCSV.read(bytes: bytes, options: .init(strict: true))
            }
        } else {
            #expect(try PlacesCSV.read(bytes: bytes, options: .init(strict: true)).places == result.places)
        }
    }

    /// Numbers mean the same quoted or not, whatever whitespace surrounds them.
    @Test func quotedNumbersReadAsUnquotedOnes() throws {
        let result = try PlacesCSV.read(bytes: Array("id,lat,lon,radius_m\na,\" 1.5\t\",\"\r\n-2 \",\" \"\n".utf8))
        #expect(result.places.map(\.coordinate.latitude) == [1.5])
        #expect(result.places.map(\.coordinate.longitude) == [-2])
        #expect(result.places.map(\.radiusMeters) == [100])
    }

    /// The writer quotes every field a reader would otherwise change.
    @Test(arguments: [
        ("plain", "plain"), ("a b", "a b"), ("", ""), (" a", "\" a\""), ("a ", "\"a \""), ("\ta", "\"\ta\""),
        ("a\t", "\"a\t\""), ("a,b", "\"a,b\""), ("a\"b", "\"a\"\"b\""), ("a\r\nb", "\"a\r\nb\""), ("é", "é"),
    ])
    func writerQuotesWhatAReaderWouldChange(field: String, written: String) {
        #expect(CSVWriter.field(field) == written)
    }

    /// The scanner against `reference` on seeded random text of `a`, space, tab, `"`, `,`, CR,
    /// LF and `é` (and runs of them long enough for the eight-byte scan), fed whole, a byte at a
    /// time and in chunks of a random size: the same records, start lines and problems, and the
    /// same fields wherever the record has no problem.
    @Test func scannerEqualsAnRFC4180Reference() {
        let seed = TestSeed.value(salt: 5_400)
        var rng = SplitMixForSeeds(state: seed)
        let alphabet = ["a", " ", "\t", "\"", "\"", ",", "\r", "\n", "é", "aaaa aaaa\té"]
        for round in 0..<3_000 {
            let text = (0..<Int(rng.next() % 40)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }.joined()
            let expected = Self.reference(text)
            let bytes = Array(text.utf8)
            for chunkSize in [max(1, bytes.count), 1, 1 + Int(rng.next() % 9)] {
                let records = CSVFile.records(of: bytes, chunkSize: chunkSize)
                let context = Comment(
                    rawValue: "round \(round), chunks of \(chunkSize), \(TestSeed.replay(seed)): \(text.debugDescription)")
                #expect(records.map(\.line) == expected.map(\.line), context)
                #expect(records.map(\.problem) == expected.map(\.problem), context)
                #expect(
                    zip(records, expected).allSatisfy { $0.problem != nil || $0.fields == $1.fields }
                        && records.count == expected.count, context)
            }
        }
    }

    /// RFC 4180 records, slowly and plainly: a field that starts with a quote runs to the quote
    /// that is not doubled and keeps everything between; anything but a comma or a line end
    /// after it is text after a closing quote. Any other field runs to a comma or a line end, is
    /// trimmed of spaces and tabs, and may not hold a quote. LF, CR LF and CR end a record; a line
    /// with nothing on it is no record. Lines are counted from 1 at every LF, CR LF and CR, quoted
    /// ones included.
    static func reference(_ text: String) -> [(line: Int, fields: [String], problem: CSVProblem?)] {
        let s = Array(text.unicodeScalars)
        var i = 0
        var line = 1
        var records: [(line: Int, fields: [String], problem: CSVProblem?)] = []
        func isLineEnd(_ k: Int) -> Bool { k < s.count && (s[k] == "\r" || s[k] == "\n") }
        /// Steps over the line end at `i`, counting it.
        func skipLineEnd() {
            i += s[i] == "\r" && i + 1 < s.count && s[i + 1] == "\n" ? 2 : 1
            line += 1
        }
        while i < s.count {
            if isLineEnd(i) {
                skipLineEnd()
                continue
            }
            let start = line
            var fields: [String] = []
            var problem: CSVProblem?
            while true {
                var field = String.UnicodeScalarView()
                if s[safe: i] == "\"" {
                    i += 1
                    var closed = false
                    while i < s.count {
                        if s[i] == "\"" {
                            if s[safe: i + 1] == "\"" {
                                field.append("\"")
                                i += 2
                                continue
                            }
                            i += 1
                            closed = true
                            break
                        }
                        if s[i] == "\r" || (s[i] == "\n" && s[i - 1] != "\r") { line += 1 }
                        field.append(s[i])
                        i += 1
                    }
                    if !closed { problem = problem ?? .unterminatedQuote }
                    while i < s.count && s[i] != "," && !isLineEnd(i) {
                        problem = problem ?? .textAfterClosingQuote
                        i += 1
                    }
                    fields.append(String(field))
                } else {
                    while i < s.count && s[i] != "," && !isLineEnd(i) {
                        if s[i] == "\"" { problem = problem ?? .quoteInUnquotedField }
                        field.append(s[i])
                        i += 1
                    }
                    var trimmed = Substring(String(field))
                    while trimmed.first == " " || trimmed.first == "\t" { trimmed.removeFirst() }
                    while trimmed.last == " " || trimmed.last == "\t" { trimmed.removeLast() }
                    fields.append(String(trimmed))
                }
                if s[safe: i] == "," {
                    i += 1
                    continue
                }
                if isLineEnd(i) { skipLineEnd() }
                break
            }
            records.append((start, fields, problem))
        }
        return records
    }

    /// Hand-checked records for the reference itself.
    @Test(arguments: [
        ("", [] as [[String]]), ("\n\r\n\r", []), ("a", [["a"]]), (" a\t,\" b \"\r\nc", [["a", " b "], ["c"]]),
        ("\"x\"\"y\",\n", [["x\"y", ""]]), ("\"l\r\nm\"\rn", [["l\r\nm"], ["n"]]), (" \n", [[""]]),
    ])
    func referenceOnHandCheckedText(text: String, fields: [[String]]) {
        #expect(Self.reference(text).map(\.fields) == fields)
        #expect(Self.reference(text).allSatisfy { $0.problem == nil })
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
