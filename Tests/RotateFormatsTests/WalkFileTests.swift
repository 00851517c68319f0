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

    func gpx(_ text: String, strict: Bool = false) throws -> WalkFile {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rotate-\(UUID().uuidString).gpx").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try WalkFile.read(path: path, strict: strict)
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

    @Test func fileLevelWalkErrors() {
        #expect(throws: WalkFileError(line: 1, reason: .emptyFile)) { try csv("") }
        #expect(throws: WalkFileError(line: 1, reason: .missingColumn("lon"))) { try csv("t,lat\n1,2\n") }
        #expect(throws: WalkFileError(line: 1, reason: .noValidPoints(rejected: 1))) { try csv("lat,lon\nx,1\n") }
        #expect(throws: WalkFileError.self) { try WalkFile.read(path: "/nonexistent.gpx") }
    }

    @Test func gpx11TrackWithTimes() throws {
        let walk = try gpx(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1">
              <metadata><time>2001-01-01T00:00:00Z</time></metadata>
              <!-- a comment with <trkpt lat="0" lon="0"> inside -->
              <trk><trkseg>
                <trkpt lat="45.0" lon="14.0"><ele>3</ele><time>2010-10-03T09:36:30Z</time></trkpt>
                <trkpt lon='14.001' lat='45.001'><time>2010-10-03T09:36:40Z</time></trkpt>
                <trkpt lat="45.002" lon="14.002"><time>2010-10-03T09:36:35Z</time></trkpt>
                <trkpt lat="45.003" lon="14.003"/>
              </trkseg></trk>
              <wpt lat="1" lon="1"><time>2010-10-03T09:00:00Z</time></wpt>
            </gpx>
            """)
        #expect(walk.fixes.count == 2)
        #expect(walk.fixes.map(\.timestampSeconds) == [0, 10])
        #expect(walk.lines == [6, 7])
        #expect(walk.rejected.map(\.line) == [8, 9])
        #expect(walk.rejected[0].reason.contains("stale"))
        #expect(walk.rejected[1].reason == WalkFileError.Reason.untimedPoint.description)
    }

    @Test func gpxWaypointsWithoutTimesAsInXcode() throws {
        let walk = try gpx(
            """
            <?xml version="1.0"?>
            <gpx version="1.1" creator="Xcode">
                <wpt lat="37.331705" lon="-122.030237"><name>Cupertino</name></wpt>
                <wpt lat="37.332" lon="-122.03"></wpt>
                <wpt lat="37.333" lon="-122.029"/>
            </gpx>
            """)
        #expect(walk.fixes.count == 3)
        #expect(walk.fixes.map(\.timestampSeconds) == [0, 1, 2])
    }

    @Test func gpxRoutePointsAndBadPoints() throws {
        let walk = try gpx(
            "<gpx><rte><rtept lat=\"1\" lon=\"2\"/><rtept lat=\"x\" lon=\"2\"/><rtept lon=\"2\"/><rtept lat=\"100\" lon=\"2\"/></rte></gpx>"
        )
        #expect(walk.fixes.count == 1)
        #expect(
            walk.rejected.map(\.reason) == [
                WalkFileError.Reason.notANumber("lat", "x").description,
                WalkFileError.Reason.missingAttribute("lat").description,
                WalkFileError.Reason.outOfRange("latitude 100.0 is outside -90...90").description,
            ])
    }

    @Test func malformedGPXIsAnErrorWithALine() throws {
        #expect(throws: WalkFileError.self) { try gpx("<gpx>\n<trkpt lat=\"1\" lon=\"2\"\n") }
        #expect(throws: WalkFileError.self) { try gpx("<html><body>not gpx</body></html>") }
        #expect(throws: WalkFileError.self) { try gpx("<gpx>\n<!-- open comment\n<trkpt lat=\"1\" lon=\"2\"/></gpx>") }
    }

    @Test func bundledTracksReadAsTheirCSVConversions() throws {
        for (gpxName, csvName) in [
            ("korita-zbevnica.gpx", "walk-korita-zbevnica.csv"),
            ("cerknicko-jezero.gpx", "walk-cerknicko-jezero.csv"),
            ("around-visnjan-with-car.gpx", "walk-around-visnjan-with-car.csv"),
        ] {
            let fromGPX = try WalkFile.read(path: DatasetPaths.path(gpxName))
            let fromCSV = try WalkFile.read(path: DatasetPaths.path(csvName))
            #expect(fromGPX.fixes.count == fromCSV.fixes.count, "\(gpxName)")
            #expect(fromGPX.fixes.map(\.coordinate) == fromCSV.fixes.map(\.coordinate), "\(gpxName)")
            #expect(fromGPX.fixes.map(\.timestampSeconds) == fromCSV.fixes.map(\.timestampSeconds), "\(gpxName)")
        }
        // korita-zbevnica has a whole track without times: those points are rejected, not guessed.
        let korita = try WalkFile.read(path: DatasetPaths.path("korita-zbevnica.gpx"))
        #expect(korita.rejected.count == 358)
        #expect(korita.rowsRead == 871)
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
                if case .noValidPoints(let rejected) = error.reason { #expect(rejected == rows, context) }
                continue
            }
            #expect(walk.fixes.count + walk.rejected.count == rows, context)
            #expect(
                zip(walk.fixes, walk.fixes.dropFirst()).allSatisfy { ($0.timestampSeconds ?? 0) <= ($1.timestampSeconds ?? 0) }, context)
        }
    }

    /// Random GPX with a known number of track points — values drawn from digits, signs, dots,
    /// letters and times, some points untimed, some self-closing — among elements that are no
    /// track points (comments and CDATA holding point tags, `<ele>`, waypoints, which a track
    /// overrides): every track point is accepted or rejected, none is lost or invented, and a
    /// track with no valid point names them all as rejected. Times never go backwards.
    @Test func randomGPXTrackPointsAreAllAcceptedOrRejected() throws {
        let seed = TestSeed.value(salt: 903)
        var rng = SplitMix64(seed: seed)
        let valueAlphabet = Array("0123456789.-+eaxZ: ".utf8)
        let times = [
            "2020-01-01T00:00:00Z", "2020-01-01T00:00:05Z", "2020-01-01T00:00:03.5Z", "2020-01-01T00:01:00+01:00", "yesterday", "",
        ]
        let noise = [
            "<ele>3</ele>", "<!-- <trkpt lat=\"1\" lon=\"2\"/> -->", "<![CDATA[<trkpt lat=\"1\" lon=\"2\">]]>",
            "<wpt lat=\"1\" lon=\"2\"/>", "<trkseg>", "</trkseg>", "\n", " ", "<?xml version=\"1.0\"?>",
        ]
        func value() -> String {
            if rng.nextUnit() < 0.6 { return String(rng.nextDouble(in: -100..<100)) }
            return String(
                decoding: (0..<rng.nextInt(below: 6)).map { _ in valueAlphabet[rng.nextInt(below: valueAlphabet.count)] }, as: UTF8.self)
        }
        for round in 0..<400 {
            let points = rng.nextInt(below: 12)
            var text = "<gpx version=\"1.1\"><trk>"
            for _ in 0..<points {
                for _ in 0..<rng.nextInt(below: 3) { text += noise[rng.nextInt(below: noise.count)] }
                var attributes = ""
                if rng.nextUnit() < 0.95 { attributes += " lat=\"\(value())\"" }
                if rng.nextUnit() < 0.95 { attributes += " lon='\(value())'" }
                if rng.nextUnit() < 0.3 {
                    text += "<trkpt\(attributes)/>"
                } else {
                    let time = rng.nextUnit() < 0.8 ? "<time>\(times[rng.nextInt(below: times.count)])</time>" : ""
                    text += "<trkpt\(attributes)>\(noise[rng.nextInt(below: 2)])\(time)</trkpt>"
                }
            }
            text += "</trk></gpx>\n"
            let context = Comment(rawValue: "round \(round), \(TestSeed.replay(seed)), \(points) points: \(text)")
            let walk: WalkFile
            do {
                walk = try WalkFile.read(gpx: Array(text.utf8))
            } catch {
                #expect(error.reason == .noValidPoints(rejected: points), context)
                continue
            }
            #expect(walk.fixes.count + walk.rejected.count == points, context)
            #expect(
                zip(walk.fixes, walk.fixes.dropFirst()).allSatisfy { ($0.timestampSeconds ?? 0) <= ($1.timestampSeconds ?? 0) }, context)
        }
    }

    /// Random bytes heavy in GPX syntax, through the file reader: an answer or an error, never
    /// a crash or a hang, and accepted times never go backwards.
    @Test func randomBytesNeverCrashTheGPXReader() {
        var rng = SplitMix64(seed: TestSeed.value(salt: 901))
        let gpxAlphabet = Array(
            "<gpx trkpt wpt rtept lat=\"1.5\" lon='2' <time>2020-01-01T00:00:00Z</time> /> <!-- --> <![CDATA[ ]]>\n".utf8)
        for _ in 0..<500 {
            let bytes =
                Array("<gpx>".utf8)
                + (0..<rng.nextInt(below: 120)).map { _ in
                    rng.nextUnit() < 0.9 ? gpxAlphabet[rng.nextInt(below: gpxAlphabet.count)] : UInt8(truncatingIfNeeded: rng.next())
                }
            if let walk = try? WalkFile.read(gpx: bytes) {
                #expect(zip(walk.fixes, walk.fixes.dropFirst()).allSatisfy { ($0.timestampSeconds ?? 0) <= ($1.timestampSeconds ?? 0) })
            }
        }
    }
}
