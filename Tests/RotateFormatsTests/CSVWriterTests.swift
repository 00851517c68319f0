import RotateFormats
import RotateTestSupport
import Testing

/// Rows written by `CSVWriter` read back through the CSV scanner field for field, whatever the
/// fields hold (commas, quotes, CR, LF and CR LF, which Swift holds as one `Character`).
@Suite struct CSVWriterTests {
    @Test func writtenRowsReadBackFieldForField() {
        let seed = TestSeed.value(salt: 5_300)
        var rng = SplitMixForSeeds(state: seed)
        let pieces = ["a", " ", ",", "\"", "\r\n", "\n", "\r", "é", "1", "\"\"", ""]
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
}
