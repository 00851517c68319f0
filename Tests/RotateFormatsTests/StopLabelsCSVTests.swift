import Foundation
import RotateFormats
import Testing

@Suite struct StopLabelsCSVTests {
    func read(_ text: String, strict: Bool = false) throws(StopLabelsError) -> StopLabelsCSV.File {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stops-\(UUID().uuidString).csv").path
        try? text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try StopLabelsCSV.read(path: path, strict: strict)
    }

    /// Columns in any order, aliases, extra columns ignored, seconds or ISO 8601 times; each bad
    /// row rejected with its line and reason, the good ones kept in order.
    @Test func rowsAreReadOrRejectedWithTheirLine() throws {
        let file = try read(
            "note,departure,place,arrival\n"
                + "a,400,shop1,100\n"
                + "b,2026-12-05T10:05:00Z,shop2,2026-12-05T10:00:00Z\n"
                + "c,5,,1\n"
                + "d,1,shop3,2\n"
                + "e,nan,shop4,1\n"
                + "f,1\n")
        #expect(file.stops.map(\.placeID) == ["shop1", "shop2"])
        #expect(file.stops.map(\.line) == [2, 3])
        #expect(file.stops[1].departureSeconds - file.stops[1].arrivalSeconds == 300)
        #expect(file.rejected.map(\.line) == [4, 5, 6, 7])
        #expect(file.rejected[0].reason == "missing id")
        #expect(file.rejected[1].reason.contains("before arrival"))
        #expect(file.rejected[2].reason.contains("not finite"))
        #expect(file.rejected[3].reason.contains("expected 4 fields"))
    }

    @Test func aHeaderWithoutAColumnOrNoHeaderIsAnError() {
        #expect(throws: StopLabelsError(line: 1, reason: "the header has no departure column")) { try read("id,arrival\nx,1\n") }
        #expect(throws: StopLabelsError(line: 1, reason: "the file is empty (no header row)")) { try read("") }
        #expect(throws: StopLabelsError.self) { try read("id,arrival,departure\nx,5,1\n", strict: true) }
    }
}
