import FencePlanner
import Foundation
import Geodesy
import RotateFormats
import RotateTestSupport
import Testing

@Suite struct PlacesCSVTests {
    func read(_ text: String, strict: Bool = false, radius: Double = 100) throws(PlacesCSVError) -> PlacesCSV.Result {
        try PlacesCSV.read(bytes: Array(text.utf8), options: .init(defaultRadiusMeters: radius, strict: strict))
    }

    @Test func readsQuotesEscapesNewlinesBOMAndCRLF() throws {
        let text =
            "\u{FEFF}ID,Latitude,LNG,radius,name,extra\r\n"
            + "a,45.5,15.25,150,\"Shop, \"\"the best\"\"\",x\r\n"
            + "b,-33.9,151.2,,\"two\nlines\",y\r\n"
            + "\r\n"
            + "c,0,180,20,plain,z"
        let result = try read(text)
        #expect(result.places.map(\.id) == ["a", "b", "c"])
        #expect(result.places[0].name == "Shop, \"the best\"")
        #expect(result.places[1].name == "two\nlines")
        #expect(result.places[0].radiusMeters == 150)
        #expect(result.places[1].radiusMeters == 100)
        #expect(result.lines == [2, 3, 6])
        #expect(result.rejected.isEmpty)
        #expect(result.rowsRead == 3)
    }

    /// Each bad row with the line and the reason it must be rejected for.
    static let badRows: [(row: String, reason: PlacesCSVError.Reason)] = [
        ("a,45,15,100,x,extra", .wrongFieldCount(expected: 5, found: 6)),
        ("a,45,15", .wrongFieldCount(expected: 5, found: 3)),
        (",45,15,100,x", .missingField("id")),
        ("  ,45,15,100,x", .missingField("id")),
        ("a,,15,100,x", .missingField("lat")),
        ("a,45,,100,x", .missingField("lon")),
        ("a,north,15,100,x", .notANumber("lat", "north")),
        ("a,45,east,100,x", .notANumber("lon", "east")),
        ("a,45,15,big,x", .notANumber("radius_m", "big")),
        ("a,45°,15,100,x", .notANumber("lat", "45°")),
        ("a,4 5,15,100,x", .notANumber("lat", "4 5")),
        ("a,nan,15,100,x", .notFinite("lat", "nan")),
        ("a,45,inf,100,x", .notFinite("lon", "inf")),
        ("a,1e400,15,100,x", .notFinite("lat", "1e400")),
        ("a,45,15,-inf,x", .notFinite("radius_m", "-inf")),
        ("a,90.5,15,100,x", .outOfRange("latitude 90.5 is outside -90...90")),
        ("a,-91,15,100,x", .outOfRange("latitude -91.0 is outside -90...90")),
        ("a,45,180.01,100,x", .outOfRange("longitude 180.01 is outside -180...180")),
        ("a,45,-360,100,x", .outOfRange("longitude -360.0 is outside -180...180")),
        ("a,45,15,0,x", .radiusNotPositive(0)),
        ("a,45,15,-5,x", .radiusNotPositive(-5)),
        ("dup,45,15,100,x", .duplicateID("dup", firstLine: 2)),
        ("a,\"45\"x,15,100,x", .malformed(.textAfterClosingQuote)),
        ("a,45,15,100,\"never closed", .malformed(.unterminatedQuote)),
        ("a,0x,15,100,x", .notANumber("lat", "0x")),
        ("a,45,15,1e999,x", .notFinite("radius_m", "1e999")),
        ("a,--45,15,100,x", .notANumber("lat", "--45")),
        ("a,45,15,100", .wrongFieldCount(expected: 5, found: 4)),
        ("a,45,15,+,x", .notANumber("radius_m", "+")),
        ("a,45,15,NaN,x", .notFinite("radius_m", "NaN")),
    ]

    @Test(arguments: badRows)
    func badRowIsRejectedWithLineAndReason(row: String, reason: PlacesCSVError.Reason) throws {
        let text = "id,lat,lon,radius_m,name\ndup,1,2,3,first\n" + row + "\nok,10,20,30,fine\n"
        let result = try read(text)
        #expect(result.rejected.count == 1)
        #expect(result.rejected.first?.line == 3)
        #expect(result.rejected.first?.reason == reason.description)
        if reason == .malformed(.unterminatedQuote) {
            // An open quote swallows the rest of the file into one record, as RFC 4180 reads it.
            #expect(result.places.map(\.id) == ["dup"])
            #expect(result.rowsRead == 2)
        } else {
            #expect(result.places.map(\.id) == ["dup", "ok"])
            #expect(result.rowsRead == 3)
        }
        // Strict mode throws the same line and reason.
        #expect(throws: PlacesCSVError(line: 3, reason: reason)) { try read(text, strict: true) }
    }

    @Test func invalidUTF8IsARejectedRow() throws {
        var bytes = Array("id,lat,lon\nok,1,2\n".utf8)
        bytes += [0x62, 0xFF, 0xFE, 0x2C, 0x31, 0x2C, 0x32, 0x0A]  // b\xFF\xFE,1,2
        let result = try PlacesCSV.read(bytes: bytes)
        #expect(result.rejected.map(\.line) == [3])
        #expect(result.rejected.first?.reason == PlacesCSVError.Reason.malformed(.invalidUTF8).description)
    }

    @Test(arguments: [
        ("", PlacesCSVError(line: 1, reason: .emptyFile)),
        ("\u{FEFF}", PlacesCSVError(line: 1, reason: .emptyFile)),
        ("name,lat,lon\nx,1,2\n", PlacesCSVError(line: 1, reason: .missingColumn("id"))),
        ("id,lon\na,1\n", PlacesCSVError(line: 1, reason: .missingColumn("lat"))),
        ("id,lat\na,1\n", PlacesCSVError(line: 1, reason: .missingColumn("lon"))),
        ("id,lat,lon\n", PlacesCSVError(line: 1, reason: .noValidRows(header: ["id", "lat", "lon"], rejected: []))),
    ])
    func fileLevelErrors(text: String, expected: PlacesCSVError) {
        #expect(throws: expected) { try read(text) }
    }

    /// Ids are compared by canonical equivalence, as the catalog compares them: a repeat written
    /// with other scalars is a rejected row with its line, never a failed catalog.
    @Test(arguments: [("\u{E9}", "e\u{301}"), ("\u{212B}", "\u{C5}"), ("A\u{30A}", "\u{C5}"), ("caf\u{E9}", "cafe\u{301}")])
    func canonicallyEquivalentIDsAreOneID(first: String, second: String) throws {
        let text = "id,lat,lon\n\(first),1,2\nplain,1,2\n\(second),3,4\n"
        let result = try PlacesCSV.read(bytes: Array(text.utf8))
        #expect(result.places.count == 2)
        #expect(result.rejected.map(\.line) == [4])
        #expect(result.rejected.first?.reason.hasPrefix("duplicate id") == true)
        #expect(throws: Never.self) { try PlaceCatalog(places: result.places) }
        // Different ids that merely look alike stay two (no compatibility folding: "ﬁ" is not "fi").
        let ligature = try PlacesCSV.read(bytes: Array("id,lat,lon\n\u{FB01},1,2\nfi,1,2\n".utf8))
        #expect(ligature.places.count == 2)
    }

    /// Ids are kept in NFC: the place read from a decomposed spelling carries the composed one,
    /// byte for byte, and a repeat in the other form is a duplicate.
    @Test func idsAreKeptInNFC() throws {
        let result = try read("id,lat,lon\ncafe\u{301},1,2\ncaf\u{E9},3,4\n")
        #expect(result.places.map { Array($0.id.utf8) } == [Array("caf\u{E9}".utf8)])
        #expect(result.rejected.map(\.line) == [3])
        #expect(result.rejected.first?.reason == PlacesCSVError.Reason.duplicateID("caf\u{E9}", firstLine: 2).description)
    }

    /// An id longer than `Identifiers.maximumBytes` UTF-8 bytes in NFC is a rejected row with its
    /// line; one of exactly that length is accepted, and so is a decomposed id whose NFC fits.
    @Test func idsLongerThanTheLimitAreRejectedRows() throws {
        let limit = Identifiers.maximumBytes
        let longest = String(repeating: "a", count: limit)
        // 129 "é" written decomposed are 387 bytes, composed 258; 128 composed are 256.
        let decomposedTooLong = String(repeating: "e\u{301}", count: 129)
        let decomposedFits = String(repeating: "e\u{301}", count: 128)
        let text =
            "id,lat,lon\n\(longest),1,2\n\(longest)b,1,2\n\"\(String(repeating: "x", count: 300))\",1,2\n"
            + "\(decomposedTooLong),1,2\n\(decomposedFits),1,2\n"
        let result = try read(text)
        #expect(result.places.map(\.id) == [longest, String(repeating: "\u{E9}", count: 128)])
        #expect(result.rejected.map(\.line) == [3, 4, 5])
        #expect(
            result.rejected.map(\.reason) == [limit + 1, 300, 258].map { PlacesCSVError.Reason.idTooLong(bytes: $0).description })
        #expect(result.rejected.first?.reason == "'id' is 257 bytes long; at most 256")
        #expect(throws: PlacesCSVError(line: 3, reason: .idTooLong(bytes: limit + 1))) { try read(text, strict: true) }
    }

    /// A record of 3 MiB (a quoted name across lines) between good rows of a file: the good rows
    /// are all accepted, with their lines, and the long one is a rejected row with its start line
    /// and length, its fields not kept.
    @Test func aRecordLongerThanOneMiBIsARejectedRowAndReadingGoesOn() throws {
        let breaks = 3 << 19
        let long = "big,46,14,\"" + String(repeating: "n\n", count: breaks) + "\""
        let text = "id,lat,lon,name\na,1,2,x\n" + long + "\nb,3,4,y\nc,5,6,z\n"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rotate-long-\(UUID().uuidString).csv").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try PlacesCSV.read(path: path)
        #expect(result.places.map(\.id) == ["a", "b", "c"])
        #expect(result.lines == [2, 4 + breaks, 5 + breaks])
        let reason = PlacesCSVError.Reason.malformed(.recordTooLong(bytes: long.utf8.count))
        #expect(result.rejected == [RejectedRow(line: 3, reason: reason.description, fields: [])])
        #expect(throws: PlacesCSVError(line: 3, reason: reason)) {
            try PlacesCSV.read(path: path, options: .init(strict: true))
        }
    }

    /// Reserved ids are rejected in line order with the rest: strict mode stops at the first bad
    /// row whichever kind it is, and a rejected row keeps all its fields.
    @Test func reservedIDsAreRejectedInLineOrder() throws {
        let text = "id,lat,lon,name\na,1,2,x\nrefresh-3,1,2,y\nb,north,2,z\nc,1,2,w\n"
        let options = PlacesCSV.Options(reservedIDPrefix: "refresh-")
        let lenient = try PlacesCSV.read(bytes: Array(text.utf8), options: options)
        #expect(lenient.places.map(\.id) == ["a", "c"])
        #expect(lenient.rejected.map(\.line) == [3, 4])
        #expect(lenient.rejected.first?.fields == ["refresh-3", "1", "2", "y"])
        #expect(lenient.rejected.first?.reason == "id 'refresh-3' starts with the reserved refresh prefix 'refresh-'")
        var strict = options
        strict.strict = true
        #expect(throws: PlacesCSVError(line: 3, reason: .reservedID("refresh-3", prefix: "refresh-"))) {
            try PlacesCSV.read(bytes: Array(text.utf8), options: strict)
        }
        // Without a reserved prefix such an id is an ordinary one.
        #expect(try PlacesCSV.read(bytes: Array(text.utf8)).places.count == 3)
    }

    /// A file whose every row is bad is an error that still carries each row, so none goes unreported.
    @Test func noValidRowsKeepsEveryRejectedRow() throws {
        do {
            _ = try read("id,lat,lon\nb,1,x\n\"a\",x,1\n")
            Issue.record("no error")
        } catch {
            guard case .noValidRows(let header, let rejected) = error.reason else { Issue.record("\(error)"); return }
            #expect(header == ["id", "lat", "lon"])
            #expect(rejected.map(\.line) == [2, 3])
            #expect(rejected.map(\.fields) == [["b", "1", "x"], ["a", "x", "1"]])
        }
    }

    @Test func radiusDefaultAndMultiLineRecordsKeepLineNumbers() throws {
        let result = try read("id,lat,lon,name\n\"a\",1,2,\"x\r\ny\r\nz\"\r\nb,3,4,w\n", radius: 250)
        #expect(result.lines == [2, 5])
        #expect(result.places.allSatisfy { $0.radiusMeters == 250 })
    }

    /// Hand-counted records for the independent counter the random tests lean on, each also
    /// counted by the scanner: line ends in every spelling, blank lines, quotes that open a field
    /// and quotes that do not, a byte order mark and a quote left open at the end.
    @Test(arguments: [
        ("", 0), ("a", 1), ("a\n", 1), ("a\r\nb", 2), ("a\rb\r", 2), ("a\n\rb", 2), ("\n\r\n\r", 0), (" \n", 1),
        (",", 1), ("\"a\nb\"\n", 1), ("\"a\r\n\"\"\n\"\r\nc", 2), ("a\"b\nc", 2), ("\"a\"x\"\nb", 2),
        ("x,\"a\nb\",\"\"\n", 1), ("\"open\nx\n", 1), ("\u{FEFF}", 0), ("\u{FEFF}\n\na", 1), ("a\n\n\nb\n\n", 2),
    ])
    func recordCountReferenceOnHandCountedText(text: String, records: Int) {
        let bytes = Array(text.utf8)
        #expect(CSVRecordCount.records(in: bytes) == records)
        #expect(CSVFile.records(of: bytes, chunkSize: max(1, bytes.count)).count == records)
    }

    /// Random input, read leniently and strictly: a read either fails as a whole or accounts for
    /// every data row an independent count finds (records after the header, `CSVRecordCount`),
    /// each accepted or rejected; a file with no valid row names that count as rejected; strict
    /// mode accepts a file only when the lenient read rejected nothing, with the same places.
    /// A third of the rounds are random bytes; the others are text made of `a , " \r \n 1 . -`
    /// and digits, where quotes, separators and line ends (blank lines included) are common, with
    /// valid rows (some of them repeats) between the runs in half of them, some with a byte order
    /// mark, blank lines before the header or CR LF line ends.
    @Test func randomInputRowsAreAllAcceptedOrRejected() throws {
        let seed = TestSeed.value(salt: 700)
        var rng = SplitMix64(seed: seed)
        let byteAlphabet = Array("id,lat,lon\"\r\n 0123456789.-eNAinf\u{FF}".utf8)
        let csvAlphabet = Array("a,,\"\r\n\n1.-0123456789".utf8)
        let lineEnds = ["\n", "\r\n", "\r", "\n\n"]
        for round in 0..<3_000 {
            var bytes: [UInt8]
            if round % 3 == 0 {
                bytes =
                    Array("id,lat,lon\n".utf8)
                    + (0..<rng.nextInt(below: 80)).map { _ in
                        rng.nextUnit() < 0.9 ? byteAlphabet[rng.nextInt(below: byteAlphabet.count)] : UInt8(truncatingIfNeeded: rng.next())
                    }
            } else {
                let prefix = [[], [0xEF, 0xBB, 0xBF], Array("\n\r\n".utf8)][rng.nextInt(below: 3)]
                let header = rng.nextUnit() < 0.5 ? "id,lat,lon\n" : "id,lat,lon\r\n"
                bytes = prefix + Array(header.utf8)
                for _ in 0..<rng.nextInt(below: 8) {
                    if round % 3 == 2 && rng.nextUnit() < 0.6 {
                        let row =
                            "a\(rng.nextInt(below: 8)),\(rng.nextInt(below: 90)).5,-\(rng.nextInt(below: 180))"
                            + lineEnds[rng.nextInt(below: lineEnds.count)]
                        bytes += Array(row.utf8)
                    } else {
                        bytes += (0..<rng.nextInt(below: 20)).map { _ in csvAlphabet[rng.nextInt(below: csvAlphabet.count)] }
                    }
                }
            }
            let rows = CSVRecordCount.dataRows(in: bytes)
            let context = Comment(
                rawValue:
                    "round \(round), \(TestSeed.replay(seed)), \(rows) rows: \(String(decoding: bytes, as: UTF8.self).debugDescription)")
            let lenient: PlacesCSV.Result
            do {
                lenient = try PlacesCSV.read(bytes: bytes)
            } catch {
                if case .noValidRows(_, let rejected) = error.reason { #expect(rejected.count == rows, context) }
                #expect(throws: PlacesCSVError.self, context) { try PlacesCSV.read(bytes: bytes, options: .init(strict: true)) }
                continue
            }
            #expect(lenient.places.count + lenient.rejected.count == rows, context)
            #expect(lenient.lines.count == lenient.places.count, context)
            if let strict = try? PlacesCSV.read(bytes: bytes, options: .init(strict: true)) {
                #expect(lenient.rejected.isEmpty && strict.places == lenient.places, context)
            } else {
                #expect(!lenient.rejected.isEmpty, context)
            }
        }
    }

    /// The scanner's fast paths (runs of ordinary bytes eight at a time, commas ending unquoted
    /// fields) against its byte-at-a-time state machine, the only path one-byte chunks take:
    /// the same records, lines and problems for random text heavy in quotes, separators, line
    /// ends, long runs and bytes that are not UTF-8, fed whole, a byte at a time and in chunks
    /// of every size from 2 to 17.
    @Test func scannerFastPathsMatchTheByteStateMachine() {
        var rng = SplitMix64(seed: TestSeed.value(salt: 701))
        let pieces: [[UInt8]] =
            [
                ",", "\"", "\"\"", "\r", "\n", "\r\n", " ", "\t", "a", "é", "0123456789", "Shop 1, somewhere",
                "-47.0023344", "abcdefghijklmnopqrstuvw",
            ].map { Array($0.utf8) } + [[0xFF], [0xEF, 0xBB, 0xBF], [0xC3]]
        for round in 0..<1_500 {
            var bytes: [UInt8] = round % 5 == 0 ? [0xEF, 0xBB, 0xBF] : []
            for _ in 0..<rng.nextInt(below: 40) { bytes += pieces[rng.nextInt(below: pieces.count)] }
            let whole = CSVFile.records(of: bytes, chunkSize: max(1, bytes.count))
            let reference = CSVFile.records(of: bytes, chunkSize: 1)
            #expect(
                whole.map(\.fields) == reference.map(\.fields) && whole.map(\.line) == reference.map(\.line)
                    && whole.map(\.problem) == reference.map(\.problem), "round \(round): \(bytes)")
            let size = 2 + round % 16
            let chunked = CSVFile.records(of: bytes, chunkSize: size)
            #expect(
                chunked.map(\.fields) == reference.map(\.fields) && chunked.map(\.line) == reference.map(\.line)
                    && chunked.map(\.problem) == reference.map(\.problem), "round \(round), chunks of \(size): \(bytes)")
        }
    }

    /// Repeated ids among hundreds of rows (ids are checked in batches, so repeats fall inside
    /// a batch, across batches and after other bad rows) against an obviously-correct reference:
    /// walk the rows in order, remember the first line of each id.
    @Test func repeatedIDsAcrossManyRowsMatchAReference() throws {
        let seed = TestSeed.value(salt: 701)
        var rng = SplitMixForSeeds(state: seed)
        for round in 0..<24 {
            // Every fourth round is long enough for a file read to size its id table from the
            // first rows (see `PlacesCSV.read(path:)`).
            let rows = round % 4 == 3 ? 300 + Int(rng.next() % 2_500) : 1 + Int(rng.next() % 700)
            let distinct = 1 + Int(rng.next() % UInt64(rows + 1))
            var text = "id,lat,lon,name\n"
            var expectedPlaces: [(id: String, line: Int)] = []
            var expectedRejected: [(line: Int, reason: String)] = []
            var firstLine: [String: Int] = [:]
            for row in 0..<rows {
                let line = row + 2
                let id = "p\(rng.next() % UInt64(distinct))"
                let bad = rng.next() % 10 == 0
                text += "\(id),\(bad ? "x" : "1.5"),2,name \(row)\n"
                if bad {
                    expectedRejected.append((line, PlacesCSVError.Reason.notANumber("lat", "x").description))
                } else if let first = firstLine[id] {
                    expectedRejected.append((line, PlacesCSVError.Reason.duplicateID(id, firstLine: first).description))
                } else {
                    firstLine[id] = line
                    expectedPlaces.append((id, line))
                }
            }
            let context = "round \(round), \(TestSeed.replay(seed))"
            guard !expectedPlaces.isEmpty else {
                #expect(throws: PlacesCSVError.self, Comment(rawValue: context)) { try read(text) }
                continue
            }
            let result = try read(text)
            // Read from a file too (sized from the file): the same outcome.
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("rotate-ids-\(UUID().uuidString).csv").path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            let fromFile = try PlacesCSV.read(path: path, options: .init(defaultRadiusMeters: 100))
            #expect(
                fromFile.places == result.places && fromFile.lines == result.lines && fromFile.rejected == result.rejected,
                Comment(rawValue: context))
            #expect(result.places.map(\.id) == expectedPlaces.map(\.id), Comment(rawValue: context))
            #expect(result.lines == expectedPlaces.map(\.line), Comment(rawValue: context))
            #expect(result.rejected.map(\.line) == expectedRejected.map(\.line), Comment(rawValue: context))
            #expect(result.rejected.map(\.reason) == expectedRejected.map(\.reason), Comment(rawValue: context))
            #expect(result.rowsRead == rows, Comment(rawValue: context))
            // A rejected repeat keeps its fields as read.
            if let repeatRow = result.rejected.first(where: { $0.reason.hasPrefix("duplicate") }) {
                #expect(repeatRow.fields == [repeatRow.fields[0], "1.5", "2", "name \(repeatRow.line - 2)"], Comment(rawValue: context))
            }
            // Strict mode stops at the first bad row, whatever kind it is.
            if let first = expectedRejected.first {
                do {
                    _ = try read(text, strict: true)
                    Issue.record("strict read accepted a bad file, \(context)")
                } catch {
                    #expect(error.line == first.line, Comment(rawValue: context))
                    #expect(error.reason.description == first.reason, Comment(rawValue: context))
                }
            }
        }
    }

    @Test func bundledCitiesReadCompletely() throws {
        let result = try PlacesCSV.read(path: DatasetPaths.path("cities1000.csv"))
        #expect(result.places.count == 170_391)
        #expect(result.rejected.isEmpty)
        #expect(result.places.first?.radiusMeters == 200)
        let airports = try PlacesCSV.read(path: DatasetPaths.path("airports.csv"))
        #expect(airports.places.count == 17_339)
        #expect(airports.places.contains { $0.id == "NZSP" && $0.coordinate.latitude == -90 })
    }

    @Test func missingFileIsAnError() {
        #expect(throws: PlacesCSVError.self) { try PlacesCSV.read(path: "/nonexistent/places.csv") }
        #expect(throws: PlacesCSVError.self) { try PlacesCSV.read(path: "/tmp") }
    }
}

@Suite struct NumberParsingTests {
    /// The byte-level number reader must give exactly `Double(String)`'s value for every spelling.
    @Test func fastPathEqualsDoubleInit() throws {
        var rng = SplitMix64(seed: TestSeed.value(salt: 1_500))
        var texts: [String] = [
            "0", "-0", "+5", "1.", ".5", "-.25", "00.50", "90", "-90", "89.999999999999999", "45.123456789012345",
            "1e1", "4.5E1", " 7 ", "12.3456789012345678", "0.0000000000000000000001", "-1.0000000000000002",
            // Digits whose mantissa wraps a UInt64 (2⁶⁴ and 2⁶⁵ would read as 0), leading
            // zeros, 15 and 16 significant digits.
            "18.446744073709551616", "-36.893488147419103232", "0000000000000000000012.5", "12.3456789012345",
            "12.34567890123456",
        ]
        for _ in 0..<3_000 {
            let digits = rng.nextInt(below: 18) + 1
            let whole = rng.nextInt(below: 90)
            var fraction = ""
            for _ in 0..<digits { fraction.append(Character(String(rng.nextInt(below: 10)))) }
            texts.append((rng.nextUnit() < 0.5 ? "-" : "") + "\(whole)." + fraction)
        }
        let csv = "id,lat,lon\n" + texts.enumerated().map { "p\($0),\($1),0" }.joined(separator: "\n") + "\n"
        let result = try PlacesCSV.read(bytes: Array(csv.utf8))
        #expect(result.rejected.isEmpty)
        for (place, text) in zip(result.places, texts) {
            let expected = try #require(Double(text.trimmingCharacters(in: .whitespaces)))
            #expect(
                place.coordinate.latitude.bitPattern == expected.bitPattern || (expected == 0 && place.coordinate.latitude == 0), "\(text)")
        }
    }

    /// Numbers are decimal text in every reader: hexadecimal is a rejected row with its line.
    @Test func readersRejectHexadecimalWithTheirLine() throws {
        let places = try PlacesCSV.read(bytes: Array("id,lat,lon,radius_m\na,0x10,1,100\nb,1,0x1p3,100\nc,1,2,0x64\nd,1,2,100\n".utf8))
        #expect(places.places.map(\.id) == ["d"])
        #expect(places.rejected.map(\.line) == [2, 3, 4])
        let walk = try WalkFile.read(
            gpx: Array(#"<gpx version="1.1"><trk><trkseg><trkpt lat="0x10" lon="1"/><trkpt lat="1" lon="2"/></trkseg></trk></gpx>"#.utf8))
        #expect(walk.fixes.count == 1 && walk.rejected.count == 1)
    }
}
