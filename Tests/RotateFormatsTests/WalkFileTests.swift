import FencePlanner
import Foundation
import Geodesy
import RotateFormats
import RotateTestSupport
import Testing

@Suite struct WalkFileTests {
    func csv(_ text: String, strict: Bool = false) throws(WalkFileError) -> WalkFile {
        try WalkCSV.read(bytes: Array(text.utf8), strict: strict)
    }

    @Test func csvWithSecondsISOTimesAndAccuracy() throws {
        let walk = try csv(
            "time,latitude,longitude,horizontal_accuracy\n2020-12-18T06:15:50Z,45.1,13.7,5\n2020-12-18T06:15:52.5+00:00,45.2,13.8,\n")
        #expect(walk.fixes.map(\.timestampSeconds) == [0, 2.5])
        #expect(walk.fixes[0].accuracyMeters == 5 && walk.fixes[1].accuracyMeters == nil)
        let plain = try csv("lat,lon\n1,2\n3,4\n5,6\n")
        #expect(plain.fixes.map(\.timestampSeconds) == [0, 1, 2])
    }

    static let badRows: [(row: String, reason: WalkFileError.Reason)] = [
        ("5,north,14", .notANumber("lat", "north")),
        ("5,45,", .missingField("lon")),
        ("5,45,14,extra", .wrongFieldCount(expected: 3, found: 4)),
        ("5,95,14", .outOfRange("latitude 95.0 is outside -90...90")),
        ("yesterday,45,14", .badTime("yesterday")),
        ("2020-13-01T00:00:00Z,45,14", .badTime("2020-13-01T00:00:00Z")),
        ("inf,45,14", .notFinite("t", "inf")),
        ("2,45,14", .stale(previousSeconds: 3, seconds: 2)),
        ("5,4\"5,14", .malformed(.quoteInUnquotedField)),
        ("5, \"45\",14", .malformed(.quoteInUnquotedField)),
        ("\"5\" ,45,14", .malformed(.textAfterClosingQuote)),
    ]

    @Test(arguments: badRows)
    func badWalkRowIsRejectedWithLineAndReason(row: String, reason: WalkFileError.Reason) throws {
        let text = "t,lat,lon\n0,45,14\n3,45.001,14\n" + row + "\n9,45.002,14\n"
        let walk = try csv(text)
        #expect(walk.rejected.map(\.line) == [4])
        #expect(walk.rejected.first?.reason == reason.description)
        #expect(walk.fixes.count == 3 && walk.rowsRead == 4)
        #expect(throws: WalkFileError(line: 4, reason: reason)) { try csv(text, strict: true) }
    }

    /// Times and numbers are read trimmed, quoted or not.
    @Test func quotedTimesAndNumbersAreReadTrimmed() throws {
        let walk = try csv("t,lat,lon\n\" 2020-12-18T06:15:50Z \",\" 45.1\",13.7\t\n\"2020-12-18T06:15:52Z\r\n\",45.2,\"\t13.8\"\n")
        #expect(walk.rejected.isEmpty)
        #expect(walk.fixes.map(\.timestampSeconds) == [0, 2])
        #expect(walk.fixes.map(\.coordinate.latitude) == [45.1, 45.2])
    }

    @Test func negativeAccuracyIsRejected() throws {
        let walk = try csv("lat,lon,accuracy_m\n1,2,-1\n1,2,3\n")
        #expect(walk.rejected.first?.reason == WalkFileError.Reason.negativeAccuracy(-1).description)
    }

    /// A walk file is read as it streams in: a 3 MiB record between good rows is a rejected row
    /// with its start line and length, and the fixes around it are all read.
    @Test func aRecordLongerThanOneMiBIsARejectedRowAndReadingGoesOn() throws {
        let long = "2," + String(repeating: "4", count: 3 << 20) + ",14"
        let text = "t,lat,lon\n1,45,14\n" + long + "\n3,45.1,14\n4,45.2,14\n"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rotate-long-\(UUID().uuidString).csv").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let walk = try WalkFile.read(path: path)
        #expect(walk.lines == [2, 4, 5])
        #expect(walk.fixes.map(\.timestampSeconds) == [0, 2, 3])
        let reason = WalkFileError.Reason.malformed(.recordTooLong(bytes: long.utf8.count))
        #expect(walk.rejected == [RejectedRow(line: 3, reason: reason.description, fields: [])])
    }

    @Test func fileLevelWalkErrors() {
        #expect(throws: WalkFileError(line: 1, reason: .emptyFile)) { try csv("") }
        #expect(throws: WalkFileError(line: 1, reason: .missingColumn("lon"))) { try csv("t,lat\n1,2\n") }
        #expect(
            throws: WalkFileError(
                line: 1,
                reason: .noValidPoints(rejected: [
                    RejectedRow(line: 2, reason: WalkFileError.Reason.notANumber("lat", "x").description, fields: ["x", "1"])
                ]))
        ) { try csv("lat,lon\nx,1\n") }
        #expect(throws: WalkFileError.self) { try WalkFile.read(path: "/nonexistent.gpx") }
    }

}

@Suite struct ISO8601Tests {
    @Test(arguments: [
        ("1970-01-01T00:00:00Z", 0.0), ("2010-10-03T09:36:30Z", 1_286_098_590), ("2000-02-29T12:00:00+02:00", 951_818_400),
        ("2020-12-18 06:15:50.25", 1_608_272_150.25), ("1969-12-31T23:59:59Z", -1),
    ])
    func parses(text: String, seconds: Double) throws {
        let csv = try WalkCSV.read(bytes: Array("t,lat,lon\n1970-01-01T00:00:00Z,0,0\n\(text),0,0\n".utf8))
        if seconds >= 0 {
            #expect(csv.fixes.last?.timestampSeconds == seconds)
        } else {
            #expect(csv.rejected.count == 1)
        }
    }
}

@Suite struct WalkFuzzTests {
    /// Random walk CSV, mostly text made of `a , " \r \n 1 . -` and digits (quotes, separators
    /// and line ends common) with valid rows between the runs, under a header with or without a
    /// time column (so that times go backwards and rows are dropped as stale): a read either
    /// fails as a whole or accounts for every data row an independent count finds (records after
    /// the header, `CSVRecordCount`), each accepted or rejected, and a walk with no valid point
    /// names that count as rejected. The accepted fixes' times never go backwards. A few rounds
    /// go through a file, as the command line reads it.
    @Test func randomCSVWalkRowsAreAllAcceptedOrRejected() throws {
        let seed = TestSeed.value(salt: 902)
        var rng = SplitMix64(seed: seed)
        let csvAlphabet = Array("a,,\"\r\n\n1.-0123456789".utf8)
        let byteAlphabet = Array("t,lat,lon,accuracy_m\"\r\n 0123456789.-:TZe".utf8)
        let lineEnds = ["\n", "\r\n", "\r", "\n\n"]
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rotate-fuzz-\(UUID().uuidString).csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        for round in 0..<2_000 {
            let headers = ["lat,lon\n", "t,lat,lon\n", "\u{FEFF}t,lat,lon,accuracy_m\r\n", "\nlat,lon\r\n"]
            let headerKind = rng.nextInt(below: headers.count)
            var bytes = Array(headers[headerKind].utf8)
            for _ in 0..<rng.nextInt(below: 8) {
                if rng.nextUnit() < 0.5 {
                    // A valid row for the header (a time column first when it has one).
                    let columns = [
                        String(rng.nextInt(below: 10)), "4\(rng.nextInt(below: 10)).5", "-1\(rng.nextInt(below: 10))",
                        "\(rng.nextInt(below: 9))",
                    ]
                    let row = (headerKind % 3 == 0 ? columns[1...2] : headerKind == 1 ? columns[0...2] : columns[0...3]).joined(
                        separator: ",")
                    bytes += Array((row + lineEnds[rng.nextInt(below: lineEnds.count)]).utf8)
                } else if round % 4 == 3 {
                    bytes += (0..<rng.nextInt(below: 20)).map { _ in
                        rng.nextUnit() < 0.9 ? byteAlphabet[rng.nextInt(below: byteAlphabet.count)] : UInt8(truncatingIfNeeded: rng.next())
                    }
                } else {
                    bytes += (0..<rng.nextInt(below: 20)).map { _ in csvAlphabet[rng.nextInt(below: csvAlphabet.count)] }
                }
            }
            let rows = CSVRecordCount.dataRows(in: bytes)
            let context = Comment(
                rawValue:
                    "round \(round), \(TestSeed.replay(seed)), \(rows) rows: \(String(decoding: bytes, as: UTF8.self).debugDescription)")
            let walk: WalkFile
            do {
                if round % 50 == 0 {
                    try Data(bytes).write(to: URL(fileURLWithPath: path))
                    walk = try WalkFile.read(path: path)
                } else {
                    walk = try WalkCSV.read(bytes: bytes)
                }
            } catch let error as WalkFileError {
                if case .noValidPoints(let rejected) = error.reason { #expect(rejected.count == rows, context) }
                continue
            }
            #expect(walk.fixes.count + walk.rejected.count == rows, context)
            #expect(
                zip(walk.fixes, walk.fixes.dropFirst()).allSatisfy { ($0.timestampSeconds ?? 0) <= ($1.timestampSeconds ?? 0) }, context)
        }
    }
}
