import Foundation
import RotateFormats
import Testing

@Suite struct StopLabelsCSVTests {
    func read(_ text: String, walk: WalkFile? = nil, strict: Bool = false) throws(StopLabelsError) -> StopLabelsCSV.File {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stops-\(UUID().uuidString).csv").path
        try? text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try StopLabelsCSV.read(path: path, walk: walk, strict: strict)
    }

    /// A walk CSV of `times` (its `t` column as written), one fix a row.
    static func walk(_ times: [String]) throws -> WalkFile {
        let rows = times.enumerated().map { "\($1),46.05,\(14.5 + 0.0001 * Double($0))" }
        return try WalkCSV.read(bytes: Array((["t,lat,lon"] + rows).joined(separator: "\n").utf8))
    }

    /// One trip on three clocks (seconds from 0, Unix seconds, ISO 8601 times, the labels
    /// written as the walk's `t` is): the labels land at the same seconds of the walk's clock,
    /// the clock its fixes are on.
    @Test func labelsArePutOnTheWalksClock() throws {
        let unix = 1_700_000_000.0  // 2023-11-14T22:13:20Z
        let offsets = [0.0, 100, 200, 500, 900]
        let clocks: [(String, (Double) -> String)] = [
            ("from 0", { CSVWriter.decimal($0) }), ("Unix", { CSVWriter.decimal(unix + $0) }),
            ("ISO 8601", { ISO8601.text(utcSeconds: Int(unix + $0)) }),
        ]
        for (name, text) in clocks {
            let walk = try Self.walk(offsets.map(text))
            #expect(walk.fixes.map(\.timestampSeconds) == offsets, "\(name)")
            let file = try read("id,arrival,departure\nshop1,\(text(200)),\(text(500))\nshop2,\(text(0)),\(text(100))\n", walk: walk)
            #expect(file.rejected.isEmpty, "\(name): \(file.rejected)")
            #expect(file.stops.map(\.arrivalSeconds) == [200, 0], "\(name)")
            #expect(file.stops.map(\.departureSeconds) == [500, 100], "\(name)")
        }
    }

    /// A walk whose first row is rejected starts its clock at the first accepted fix: an untimed
    /// walk's row index, a timed walk's time; labels move with it.
    @Test func theClockStartsAtTheFirstAcceptedFix() throws {
        let untimed = try WalkCSV.read(bytes: Array("lat,lon\n95,14.5\n46.05,14.5\n46.05,14.51\n46.05,14.52\n".utf8))
        #expect(untimed.originSeconds == 1 && untimed.fixes.map(\.timestampSeconds) == [0, 1, 2])
        let timed = try WalkCSV.read(bytes: Array("t,lat,lon\n5,95,14.5\n10,46.05,14.5\n20,46.05,14.51\n".utf8))
        #expect(timed.originSeconds == 10)
        let file = try read("id,arrival,departure\nshop1,12,20\n", walk: timed)
        #expect(file.stops.map(\.arrivalSeconds) == [2] && file.stops.map(\.departureSeconds) == [10])
        #expect(try read("id,arrival,departure\nshop1,12,20\n").stops.map(\.arrivalSeconds) == [12], "without a walk, as written")
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

    /// On a walk of 0 to 900 s: a stop reaching outside it (before its first fix, after its
    /// last, at 1e300 s) and one repeating an accepted stop of the same place (the same times, or
    /// overlapping) are rejected with their line; stops that only touch, the same times at
    /// another place, and stops within the walk's ends are kept.
    @Test func labelsOutsideTheWalkOrRepeatingAStopAreRejected() throws {
        let walk = try Self.walk(["1000", "1100", "1900"])
        let rows = [
            "id,arrival,departure",
            "a,1200,1500",  // 2: kept (200 to 500 s)
            "a,999,1100",  // 3: starts before the walk
            "b,1800,1901",  // 4: ends after it
            "b,1e300,1e300",  // 5: far past it
            "a,1200,1500",  // 6: line 2 again
            "a,1400,1600",  // 7: overlaps line 2
            "a,1100,1200",  // 8: touches line 2: kept
            "c,1200,1500",  // 9: line 2's times at another place: kept
            "a,1000,1000",  // 10: at the walk's first fix, of no length: kept
            "a,1000,1000",  // 11: line 10 again
            "a,1000,1050",  // 12: shares line 10's arrival, which has no length: kept
            "a,1040,1060",  // 13: overlaps line 12
            "d,1900,1900",  // 14: at the walk's last fix: kept
            "a,1000,1000",  // 15: line 10 again, line 12 between them in arrival order
        ]
        let file = try read(rows.joined(separator: "\n") + "\n", walk: walk)
        #expect(file.stops.map(\.line) == [2, 8, 9, 10, 12, 14])
        #expect(file.stops.map(\.arrivalSeconds) == [200, 100, 200, 0, 0, 900])
        #expect(file.rejected.map(\.line) == [3, 4, 5, 6, 7, 11, 13, 15])
        for row in file.rejected.prefix(3) { #expect(row.reason.contains("is outside the walk (0 to 900 s)"), "\(row)") }
        #expect(file.rejected[2].reason.contains("1e+300"))
        let repeated = [2, 2, 10, 12, 10].map { "repeats the stop of line \($0) at 'a'" }
        for (row, reason) in zip(file.rejected.dropFirst(3), repeated) { #expect(row.reason.contains(reason), "\(row)") }
        #expect(throws: StopLabelsError(line: 3, reason: file.rejected[0].reason)) {
            try read(rows.joined(separator: "\n") + "\n", walk: walk, strict: true)
        }
        // Without a walk any time is taken; a repeated stop is still one, and line 3, kept now
        // (999 to 1100), overlaps lines 10 to 15 at 'a'.
        let unclocked = try read(rows.joined(separator: "\n") + "\n")
        #expect(unclocked.rejected.map(\.line) == [6, 7, 10, 11, 12, 13, 15])
        #expect(unclocked.stops.last?.arrivalSeconds == 1_900, "as written")
    }

    @Test func aHeaderWithoutAColumnOrNoHeaderIsAnError() {
        #expect(throws: StopLabelsError(line: 1, reason: "the header has no departure column")) { try read("id,arrival\nx,1\n") }
        #expect(throws: StopLabelsError(line: 1, reason: "the file is empty (no header row)")) { try read("") }
        #expect(throws: StopLabelsError.self) { try read("id,arrival,departure\nx,5,1\n", strict: true) }
    }
}
