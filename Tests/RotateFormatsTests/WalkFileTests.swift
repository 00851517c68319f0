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
        let walk = try csv("time,latitude,longitude,horizontal_accuracy\n2020-12-18T06:15:50Z,45.1,13.7,5\n2020-12-18T06:15:52.5+00:00,45.2,13.8,\n")
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
        let walk = try gpx("""
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
        let walk = try gpx("""
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
        let walk = try gpx("<gpx><rte><rtept lat=\"1\" lon=\"2\"/><rtept lat=\"x\" lon=\"2\"/><rtept lon=\"2\"/><rtept lat=\"100\" lon=\"2\"/></rte></gpx>")
        #expect(walk.fixes.count == 1)
        #expect(walk.rejected.map(\.reason) == [
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
        for (gpxName, csvName) in [("korita-zbevnica.gpx", "walk-korita-zbevnica.csv"),
                                   ("cerknicko-jezero.gpx", "walk-cerknicko-jezero.csv"),
                                   ("around-visnjan-with-car.gpx", "walk-around-visnjan-with-car.csv")] {
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
    @Test func randomBytesNeverCrashTheWalkReaders() {
        var rng = SplitMix64(seed: 901)
        let gpxAlphabet = Array("<gpx trkpt wpt rtept lat=\"1.5\" lon='2' <time>2020-01-01T00:00:00Z</time> /> <!-- --> <![CDATA[ ]]>\n".utf8)
        let csvAlphabet = Array("t,lat,lon,accuracy_m\"\r\n 0123456789.-:TZe".utf8)
        let stem = FileManager.default.temporaryDirectory.appendingPathComponent("rotate-fuzz-\(UUID().uuidString)").path
        defer { for ext in [".gpx", ".csv"] { try? FileManager.default.removeItem(atPath: stem + ext) } }
        for round in 0..<1_500 {
            let alphabet = round % 2 == 0 ? gpxAlphabet : csvAlphabet
            var bytes = (0..<rng.nextInt(below: 120)).map { _ in
                rng.nextUnit() < 0.9 ? alphabet[rng.nextInt(below: alphabet.count)] : UInt8(truncatingIfNeeded: rng.next())
            }
            if round % 2 == 0 { bytes = Array("<gpx>".utf8) + bytes } else { bytes = Array("lat,lon\n".utf8) + bytes }
            let path = stem + (round % 2 == 0 ? ".gpx" : ".csv")
            guard (try? Data(bytes).write(to: URL(fileURLWithPath: path))) != nil else { continue }
            if let walk = try? WalkFile.read(path: path) {
                #expect(walk.fixes.count + walk.rejected.count == walk.rowsRead)
                #expect(zip(walk.fixes, walk.fixes.dropFirst()).allSatisfy { ($0.timestampSeconds ?? 0) <= ($1.timestampSeconds ?? 0) })
            }
        }
    }
}
