import Foundation
import RotateFormats
import RotateTestSupport
import Testing

/// Rows written by `CSVWriter` read back through the CSV scanner field for field, whatever the
/// fields hold (commas, quotes, CR, LF and CR LF, which Swift holds as one `Character`, and
/// leading or trailing spaces and tabs, which an unquoted field would lose).
@Suite struct CSVWriterTests {
    @Test func writtenRowsReadBackFieldForField() {
        let seed = TestSeed.value(salt: 5_300)
        var rng = SplitMixForSeeds(state: seed)
        let pieces = ["a", " ", "\t", ",", "\"", "\r\n", "\n", "\r", "é", "1", "\"\"", "", " a ", "\tb\t"]
        var rows: [[String]] = []
        for _ in 0..<300 {
            let width = 1 + Int(rng.next() % 4)
            rows.append(
                (0..<width).map { _ in (0..<Int(rng.next() % 5)).map { _ in pieces[Int(rng.next() % UInt64(pieces.count))] }.joined() })
        }
        // A row of one empty field is a blank line, which the scanner skips: give such rows a second field.
        rows = rows.map { $0 == [""] ? ["", "x"] : $0 }
        let text = rows.map(CSVWriter.row).joined(separator: "\r\n") + "\r\n"
        let records = CSVFile.records(of: Array(text.utf8), chunkSize: 1 << 16)
        #expect(records.map(\.fields) == rows, "\(TestSeed.replay(seed))")
        #expect(records.allSatisfy { $0.problem == nil })
    }

    /// A field holding a control character (C0, DEL, C1) or U+2028 or U+2029 is written between
    /// quotes, the character kept, and reads back as it was; plain text and other non-ASCII
    /// text stay unquoted.
    @Test func controlCharactersAreQuotedAndKept() {
        let values: [UInt32] = Array(0..<0x20) + [0x7F] + Array(0x80...0x9F) + [0x2028, 0x2029]
        let fields = values.compactMap(Unicode.Scalar.init).map { "a" + String(Character($0)) + "b" }
        #expect(fields.count == values.count)
        for field in fields {
            let written = CSVWriter.field(field)
            #expect(written.hasPrefix("\"") && written.hasSuffix("\""), "\(field.unicodeScalars.map { $0.value })")
        }
        let rows = fields.map { ["1", $0] }
        let text = rows.map(CSVWriter.row).joined(separator: "\n") + "\n"
        let records = CSVFile.records(of: Array(text.utf8), chunkSize: 5)
        #expect(records.map(\.fields) == rows)
        #expect(records.allSatisfy { $0.problem == nil })
        for plain in ["abc", "é ü", "\u{2027}x", "\u{A0}", "日本", "a b"] { #expect(CSVWriter.field(plain) == plain) }
    }

    /// A number written reads back as itself to the decimals asked for, at any magnitude: the
    /// trailing zeros dropped are those of a fraction, never an exponent's.
    @Test(arguments: [0.5, 46.0501234, 1_234.5, 2.5e15, 1e16, 2.5e20, 1.5e100, 1e300, -2.5e20])
    func decimalsReadBackAsTheNumber(value: Double) throws {
        for decimals in [0, 3, 7] {
            let text = CSVWriter.decimal(value, decimals: decimals)
            let back = try #require(Double(text), "\(text)")
            let tolerance = max(0.5 / pow(10, Double(decimals)), abs(value) * 1e-15)
            #expect(abs(back - value) <= tolerance, "\(value), \(decimals) decimals: \(text)")
        }
    }

    /// A rejects file read back with the places reader: one row for each rejected row, each with
    /// the fields written (`line`, `reason`, then the row's own, spaces, tabs, quotes and line
    /// breaks included), whether the second read rejects it again or accepts it.
    @Test func rejectsFilesReadBackRowForRow() throws {
        let text =
            "id,lat,lon,name\n\" a \",north,2,\" x \"\n\"b\t\",1,2,\"\tname\"\n\"b\t\",3,4,y\nc ,91,2,\"q,\"\"r\"\"\"\n"
            + "ab\"c,1,2,z\n\"d\" ,1,2,z\ne,1,2\n\"f\r\n\",x,2,\"m\rn\"\n\"\tg\",1,2, h\t\"\n"
        let first = try PlacesCSV.read(bytes: Array(text.utf8))
        #expect(first.places.map(\.id) == ["b\t"])
        #expect(first.rejected.count == 8)
        let written = first.rejected.map { [String($0.line), $0.reason] + $0.fields }
        let rejects = RejectsFile.lines(header: first.header, rejected: first.rejected).joined(separator: "\n") + "\n"
        #expect(CSVFile.records(of: Array(rejects.utf8), chunkSize: 7).dropFirst().map(\.fields) == written)
        let again = try PlacesCSV.read(bytes: Array(rejects.utf8))
        #expect(again.rowsRead == written.count)
        let rejectedAgain = again.rejected.map(\.fields)
        #expect(rejectedAgain.allSatisfy(written.contains))
        #expect(again.places.map(\.id) == written.filter { !rejectedAgain.contains($0) }.map { $0[2] })
    }
}
