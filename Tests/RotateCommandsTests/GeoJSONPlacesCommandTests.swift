import Foundation
import Geodesy
import Testing

/// Commands reading places from GeoJSON: known by the extension or the first character, every
/// rejected feature reported with its index and reason, polygon edges in the outputs.
@Suite struct GeoJSONPlacesCommandTests {
    /// A hall (a rectangle with a courtyard hole), a kiosk circle, a reserved id and a bad ring.
    static let collection = """
        {"type":"FeatureCollection","features":[
        {"type":"Feature","id":"hall","properties":{"name":"Hall"},"geometry":{"type":"Polygon","coordinates":[
          [[24.940,60.170],[24.942,60.170],[24.942,60.171],[24.940,60.171],[24.940,60.170]],
          [[24.9405,60.1703],[24.9405,60.1707],[24.9415,60.1707],[24.9415,60.1703],[24.9405,60.1703]]]}},
        {"type":"Feature","properties":{"id":"kiosk","radius_m":20},"geometry":{"type":"Point","coordinates":[24.939,60.1695]}},
        {"type":"Feature","id":"refresh-3","properties":{},"geometry":{"type":"Point","coordinates":[24.939,60.1695]}},
        {"type":"Feature","id":"bad","properties":{},"geometry":{"type":"Polygon","coordinates":[[[24.94,60.17],[24.942,60.17],[24.94,60.17]]]}}
        ]}
        """

    func write(_ text: String, name: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rotate-geojson-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func monitored(_ out: String) throws -> [String: Double] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
        let list = try #require(object["monitored"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: list.map { ($0["id"] as? String ?? "", $0["edge_m"] as? Double ?? .nan) })
    }

    /// Inside the courtyard the hall is 22.2 m away (the hole's edge), inside its walls the edge
    /// is negative; the same file named .txt is still GeoJSON by its first character.
    @Test(arguments: ["places.geojson", "places.txt"])
    func selectGivesPolygonEdgesAndReportsEachRejectedFeature(name: String) throws {
        let path = try write(Self.collection, name: name)
        let rejects = path + ".rejects.csv"
        let courtyard = CapturingConsole.run(
            ["select", "--places", path, "--at", "60.1705,24.941", "--format", "json", "--rejects", rejects])
        #expect(courtyard.code == 0, "\(courtyard.err)")
        let edges = try monitored(courtyard.out)
        // 0.0002° of latitude to the courtyard's north and south walls: 22.24 m.
        #expect(abs((edges["hall"] ?? 0) - 22.24) < 0.05)
        #expect(Set(edges.keys) == ["hall", "kiosk"])
        #expect(courtyard.err.contains("\(path): feature 2: id \"refresh-3\" starts with the reserved prefix"))
        #expect(courtyard.err.contains("\(path): feature 3: ring 0 has 3 positions"))
        #expect(courtyard.err.contains("4 features read, 2 accepted, 2 rejected"))
        let rows = try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n")
        #expect(rows.first == "feature,reason" && rows.count == 3)

        // In the wing between the courtyard and the east wall: 0.00025° of longitude at 60.17°N
        // from the courtyard (13.9 m) and from the east wall; inside, so negative.
        let wing = CapturingConsole.run(["select", "--places", path, "--at", "60.1705,24.94175", "--format", "json"])
        #expect(wing.code == 0, "\(wing.err)")
        let wingEdge = try #require(try monitored(wing.out)["hall"])
        let quarterMilliDegree = 0.00025 * Double.pi / 180 * Earth.meanRadiusMeters * cos(60.1705 * Double.pi / 180)
        #expect(abs(wingEdge + quarterMilliDegree) < 0.05)
    }

    @Test func strictStopsAtTheFirstRejectedFeature() throws {
        let path = try write(Self.collection, name: "places.geojson")
        let result = CapturingConsole.run(["select", "--places", path, "--at", "60.1705,24.941", "--strict"])
        #expect(result.code == 1)
        #expect(result.err.contains("feature 2"))
    }

    @Test func aFileWithNoValidFeatureFailsAfterReportingEach() throws {
        let text = #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"a","geometry":null},{"type":"Feature"}]}"#
        let path = try write(text, name: "none.geojson")
        let result = CapturingConsole.run(["select", "--places", path, "--at", "60.1705,24.941"])
        #expect(result.code == 1)
        #expect(result.err.contains("feature 0:") && result.err.contains("feature 1:"))
        #expect(result.err.contains("no valid features"))
    }

    @Test func validateCountsFeatures() throws {
        let path = try write(Self.collection, name: "places.geojson")
        let result = CapturingConsole.run(["validate", "--places", path])
        #expect(result.code == 0, "\(result.err)")
        #expect(result.out.contains("features       4 read, 2 accepted, 2 rejected"))
    }

    /// A plan over footprints draws them as their polygons: in GeoJSON the hall with its
    /// courtyard as a hole, in the SVG map as an even-odd path.
    @Test func planOutputsDrawFootprints() throws {
        let places = try write(Self.collection, name: "places.geojson")
        let walk = try write(
            "t,lat,lon\n" + (0...120).map { "\($0),\(60.1695 + 0.00002 * Double($0)),24.941" }.joined(separator: "\n") + "\n",
            name: "walk.csv")
        let geoJSON = CapturingConsole.run(["plan", "--places", places, "--walk", walk, "--format", "geojson"])
        #expect(geoJSON.code == 0, "\(geoJSON.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(geoJSON.out.utf8)) as? [String: Any])
        let features = try #require(object["features"] as? [[String: Any]])
        let hall = try #require(features.first { ($0["properties"] as? [String: Any])?["id"] as? String == "hall" })
        #expect((hall["properties"] as? [String: Any])?["shape"] as? String == "footprint")
        let geometry = try #require(hall["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "Polygon")
        let rings = try #require(geometry["coordinates"] as? [[[Double]]])
        #expect(rings.count == 2 && rings.allSatisfy { $0.count == 5 && $0.first == $0.last })
        #expect(rings[0].contains([24.942, 60.171]) && rings[1].contains([24.9415, 60.1707]))
        let map = CapturingConsole.run(["plan", "--places", places, "--walk", walk, "--format", "svg"])
        #expect(map.code == 0, "\(map.err)")
        #expect(map.out.contains("fill-rule=\"evenodd\""))
        #expect(map.out.contains("Hall (hall, footprint of 8 vertices"))
    }

    /// Memory for reading GeoJSON is bounded by the file and the places, not a tree of the
    /// whole text (which took about 10 KB a feature), and a file that cannot be places is
    /// refused before it is read whole: each run below gets 400 MB of address space.
    /// - 60,000 point features (9.8 MB) are read whole and accepted;
    /// - 512 MB of zeros named .geojson stops at its first byte;
    /// - a 2 GiB file (sparse: '{' then nothing) is refused by its size, before it is read.
    @Test func readingIsBoundedByTheFileAndItsPlaces() throws {
        let features = (0..<60_000).map { i in
            #"{"type":"Feature","id":"p\#(i)","properties":{"radius_m":100,"name":"Place \#(i)"},"geometry":{"type":"Point","coordinates":[\#(Double(i % 3600) / 10 - 180),\#(Double(i / 3600) - 30)]}}"#
        }
        let many = try write(#"{"type":"FeatureCollection","features":["# + features.joined(separator: ",\n") + "]}", name: "many.geojson")
        let limit = "ulimit -v 400000"
        let read = try StateSafetyTests.run(["validate", "--places", many], shell: limit)
        #expect(read.code == 0, "\(read.err)")
        #expect(read.out.contains("features       60000 read, 60000 accepted, 0 rejected"), "\(read.out)")

        let directory = (many as NSString).deletingLastPathComponent
        let zeros = directory + "/zeros.geojson"
        #expect(FileManager.default.createFile(atPath: zeros, contents: nil))
        #expect(truncate(zeros, 512 << 20) == 0)
        let refused = try StateSafetyTests.run(["validate", "--places", zeros], shell: limit)
        #expect(refused.code == 1)
        #expect(
            refused.err.contains("\(zeros): line 1, column 1 (byte 0): not a GeoJSON object: the text starts with byte 0x0, not '{'"),
            "\(refused.err)")

        let large = directory + "/large.geojson"
        #expect(FileManager.default.createFile(atPath: large, contents: Data("{".utf8)))
        #expect(truncate(large, 2 << 30) == 0)
        let tooLarge = try StateSafetyTests.run(["validate", "--places", large], shell: limit)
        #expect(tooLarge.code == 1)
        #expect(tooLarge.err.contains("\(large): is larger than 1073741824 bytes (1024 MiB), the most read whole"), "\(tooLarge.err)")
    }

    /// A footprint wider than a platform registers is rejected alone, with its feature's index
    /// and id; the file's other places are read (the catalog, which would refuse it, never sees it).
    @Test func aFootprintTooWideIsRejectedAlone() throws {
        let text = """
            {"type":"FeatureCollection","features":[
            {"type":"Feature","id":"a","properties":{},"geometry":{"type":"Point","coordinates":[14.5,46.05]}},
            {"type":"Feature","id":"country","properties":{},"geometry":{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,10],[0,0]]]}},
            {"type":"Feature","id":"b","properties":{},"geometry":{"type":"Point","coordinates":[14.6,46.05]}}]}
            """
        let path = try write(text, name: "wide.geojson")
        let result = CapturingConsole.run(["validate", "--places", path])
        #expect(result.code == 0, "\(result.err)")
        #expect(
            result.err.contains("\(path): feature 1: footprint \"country\" is enclosed by no circle a platform registers"), "\(result.err)")
        #expect(result.out.contains("features       3 read, 2 accepted, 1 rejected"), "\(result.out)")
    }
}
