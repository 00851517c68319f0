import FencePlanner
import Foundation
import Geodesy
import RotateFormats
import RotateTestSupport
import StateStore
import SyncService
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `rotate serve --stdio` as a service sees it: a process fed lines on stdin, answering on stdout,
/// killed and restarted.
@Suite(.serialized) struct ServeTests {
    static let places = DatasetPaths.path("shops-500.csv")

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("rotate-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A started sidecar with its pipes.
    struct Sidecar {
        let process: Process
        let input: FileHandle
        let output: FileHandle

        init(_ extra: [String]) throws {
            let url = try #require(BinaryTests.rotateURL, "the rotate binary was not found beside the tests")
            process = Process()
            process.executableURL = url
            process.arguments = ["serve", "--stdio", "--places", ServeTests.places] + extra
            let stdin = Pipe(), stdout = Pipe()
            process.standardInput = stdin
            process.standardOutput = stdout
            process.standardError = FileHandle.nullDevice
            try process.run()
            input = stdin.fileHandleForWriting
            output = stdout.fileHandleForReading
        }

        func send(_ lines: [String]) {
            input.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        }

        /// Ends the input, waits for the process, and returns its exit status and every answer.
        func finish() throws -> (status: Int32, answers: [[String: Any]]) {
            try input.close()
            let text = String(decoding: output.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            let answers = try text.split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            return (process.terminationStatus, answers)
        }
    }

    static func report(_ device: String, _ i: Int) -> String {
        // Positions around Ljubljana's shops, a few hundred meters apart.
        let lat = 46.0 + Double(i % 37) * 0.002, lon = 14.5 + Double(i % 23) * 0.003
        return #"{"device":"\#(device)","lat":\#(lat),"lon":\#(lon),"t":\#(i)}"#
    }

    /// Input a sidecar must not take: a 5 MB line (skipped, its length reported, memory not spent
    /// on it), an id past 256 bytes, a key given twice, a report older than the device's last one
    /// (it does not move the device), and each answered in order while the stream goes on; the
    /// same at the end of input without a newline.
    @Test func oversizedRepeatedAndStaleInputIsRefusedAndTheStreamGoesOn() throws {
        let sidecar = try Sidecar([])
        let huge = #"{"device":""# + String(repeating: "x", count: 5_000_000) + #"","lat":46,"lon":14.5,"t":1}"#
        let lines = [
            Self.report("a", 100), huge, #"{"device":""# + String(repeating: "é", count: 129) + #"","lat":46,"lon":14.5,"t":1}"#,
            #"{"device":"a","device":"b","lat":46,"lon":14.5,"t":101}"#,
            #"{"device":"a","lat":46.2,"lon":14.9,"t":50}"#, Self.report("a", 100 + 37 * 5),
        ]
        sidecar.send(lines)
        sidecar.input.write(Data(String(repeating: "y", count: 2_000_000).utf8))
        let (status, answers) = try sidecar.finish()
        #expect(status == 0)
        #expect(answers.map { $0["line"] as? Int } == Array(1...lines.count + 1))
        #expect(answers[1]["error"] as? String == "line is \(huge.utf8.count) bytes long; at most 1048576: skipped")
        #expect(answers[2]["error"] as? String == "'device' is 258 bytes long; at most 256")
        #expect(answers[3]["error"] as? String == "repeated key 'device'")
        #expect((answers[4]["ignored"] as? String)?.contains("not after the last fix") == true)
        #expect(answers[4]["action"] as? String == "none")
        // The stale report moved nothing: the next report at the first position keeps the regions.
        #expect(answers[5]["action"] as? String == "none")
        #expect(answers[6]["error"] as? String == "line is 2000000 bytes long; at most 1048576: skipped")
    }

    @Test func everyLineIsAnsweredInOrderAndBadLinesDoNotStopTheStream() throws {
        let sidecar = try Sidecar([])
        let lines = [
            Self.report("a", 1), "not json", Self.report("a", 1), #"{"device":"b","lat":200,"lon":0,"t":1}"#,
            #"{"changes":[{"op":"add","id":"new","lat":46.0,"lon":14.5,"radius_m":80}]}"#, #"{"changes":[{"op":"remove","id":"missing"}]}"#,
            Self.report("b", 5), #"{"device":"a","lat":46.0,"lon":14.5,"t":9,"extra":1}"#,
        ]
        sidecar.send(lines)
        let (status, answers) = try sidecar.finish()
        #expect(status == 0)
        #expect(answers.count == lines.count)
        #expect(answers.map { $0["line"] as? Int } == Array(1...lines.count))
        #expect(answers[0]["action"] as? String == "update" && answers[2]["action"] as? String == "none")
        #expect(answers[1]["error"] as? String == "not valid JSON")
        #expect((answers[3]["error"] as? String)?.contains("latitude") == true)
        #expect(answers[4]["action"] as? String == "catalog" && answers[4]["catalog_version"] as? Int == 1)
        #expect(answers[4]["affected"] is [Any])
        #expect((answers[5]["error"] as? String)?.contains("no place 'missing'") == true)
        #expect(answers[6]["action"] as? String == "update")
        #expect(answers[7]["error"] as? String == "unknown field 'extra'")
    }

    /// A change set adds a footprint as a GeoJSON Polygon with a courtyard: the device whose
    /// refresh circle it reaches is affected, and its next report starts the footprint's circle;
    /// a bad ring, a
    /// footprint with a center, and a new radius for a footprint are refused with the reason.
    @Test func aChangeSetAddsAFootprint() throws {
        let sidecar = try Sidecar([])
        // A 160 m square around the device's first position, a 40 m courtyard in it.
        let (lat, lon) = (46.0, 14.5)
        let d = 0.00072, h = 0.00018, e = 0.00104, k = 0.00026
        let shell =
            "[[\(lon - e),\(lat - d)],[\(lon + e),\(lat - d)],[\(lon + e),\(lat + d)],[\(lon - e),\(lat + d)],[\(lon - e),\(lat - d)]]"
        let hole =
            "[[\(lon - k),\(lat - h)],[\(lon - k),\(lat + h)],[\(lon + k),\(lat + h)],[\(lon + k),\(lat - h)],[\(lon - k),\(lat - h)]]"
        let lines = [
            Self.report("a", 0),
            #"{"changes":[{"op":"add","id":"hall","name":"Hall","geometry":{"type":"Polygon","coordinates":[\#(shell),\#(hole)]}}]}"#,
            #"{"changes":[{"op":"add","id":"bad","geometry":{"type":"Polygon","coordinates":[[[14.5,46.0],[14.6,46.0],[14.5,46.0]]]}}]}"#,
            #"{"changes":[{"op":"add","id":"mixed","lat":46,"lon":14.5,"geometry":{"type":"Polygon","coordinates":[\#(shell)]}}]}"#,
            #"{"changes":[{"op":"radius","id":"hall","radius_m":30}]}"#,
            #"{"device":"a","lat":46.0001,"lon":14.5001,"t":5}"#,
            // A number past the double range is a position that is not finite, said in the
            // reader's words, not a JSON library's.
            #"{"changes":[{"op":"add","id":"far","geometry":{"type":"Polygon","coordinates":[[[14.5,46.0],[1e400,46.0],[14.5,46.1],[14.5,46.0]]]}}]}"#,
        ]
        sidecar.send(lines)
        let (status, answers) = try sidecar.finish()
        #expect(status == 0)
        #expect(answers.count == lines.count)
        #expect(answers[1]["action"] as? String == "catalog", "\(answers[1])")
        let affected = answers[1]["affected"] as? [[String: Any]] ?? []
        #expect(affected.contains { $0["device"] as? String == "a" }, "\(answers[1])")
        #expect((answers[2]["error"] as? String)?.contains("'geometry': ring 0 has 3 positions") == true, "\(answers[2])")
        #expect((answers[3]["error"] as? String)?.contains("unknown field 'lat'") == true, "\(answers[3])")
        #expect((answers[4]["error"] as? String)?.contains("has a footprint") == true, "\(answers[4])")
        // The device's next report plans against the new catalog: the hall's circle starts.
        let started = (answers[5]["start"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(started.contains("hall"), "\(answers[5])")
        #expect(
            answers[6]["error"] as? String == "change #0: 'geometry': position [inf, 46.0]: longitude is not a finite number",
            "\(answers[6])")
    }

    /// The vertex limit holds for change sets: a ring of one vertex more than a ring may have is
    /// refused with the count and the limit; a footprint whose hole touches its shell at one
    /// vertex is added.
    @Test func aChangeSetFootprintIsBoundedAndMayTouch() throws {
        let sidecar = try Sidecar([])
        let n = SphericalPolygon.maximumRingVertices + 1
        let large = (0...n).map { i in
            let angle = 2 * Double.pi * Double(i % n) / Double(n)
            return "[\(14.5 + 0.002 * cos(angle)),\(46.0 + 0.0014 * sin(angle))]"
        }
        // A 160 m square; a triangular courtyard with a corner on the square's south-west corner.
        let (lat, lon, d, e) = (46.0, 14.5, 0.00072, 0.00104)
        let shell =
            "[[\(lon - e),\(lat - d)],[\(lon + e),\(lat - d)],[\(lon + e),\(lat + d)],[\(lon - e),\(lat + d)],[\(lon - e),\(lat - d)]]"
        let hole = "[[\(lon - e),\(lat - d)],[\(lon - e / 2),\(lat)],[\(lon),\(lat - d / 2)],[\(lon - e),\(lat - d)]]"
        let lines = [
            #"{"changes":[{"op":"add","id":"large","geometry":{"type":"Polygon","coordinates":[[\#(large.joined(separator: ","))]]}}]}"#,
            #"{"changes":[{"op":"add","id":"hall","geometry":{"type":"Polygon","coordinates":[\#(shell),\#(hole)]}}]}"#,
        ]
        sidecar.send(lines)
        let (status, answers) = try sidecar.finish()
        #expect(status == 0)
        #expect(answers.count == lines.count)
        let limit = SphericalPolygon.maximumRingVertices
        #expect(
            (answers[0]["error"] as? String)?.contains("ring 0 has \(n) vertices; a ring may have at most \(limit)") == true,
            "\(answers[0])")
        #expect(answers[1]["action"] as? String == "catalog", "\(answers[1])")
    }

    @Test func sigtermSavesTheStateAndExitsZero() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("state.db").path
        let sidecar = try Sidecar(["--state", state, "--durability", "none"])
        sidecar.send((0..<20).map { Self.report("d\($0)", $0) })
        // Wait for all 20 answers, then ask it to stop while it waits for more input.
        var received = 0
        while received < 20 {
            let data = sidecar.output.availableData
            guard !data.isEmpty else { break }
            received += data.filter { $0 == UInt8(ascii: "\n") }.count
        }
        kill(sidecar.process.processIdentifier, SIGTERM)
        sidecar.process.waitUntilExit()
        #expect(sidecar.process.terminationReason == .exit && sidecar.process.terminationStatus == 0)
        // With --durability none, the state is written at the clean end only.
        let saved = try StateDatabase(path: state, synchronous: false)
        #expect(try saved.deviceCount() == 20 && saved.inputLines() == 20)
        let catalog = try PlaceCatalog(places: try PlacesCSV.read(path: Self.places).places, refreshIdentifierPrefix: "refresh-")
        for d in 0..<20 { #expect(try saved.storedState(of: "d\(d)", in: catalog)?.rotator.reselections == 1) }
    }
}

extension ServeTests {
    @Test func aCorruptStateFileStopsTheStart() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("state.json").path
        try Data(#"{"format_version":1,"change_lines":[],"devices":{"a":"#.utf8).write(to: URL(fileURLWithPath: state))
        let result = try BinaryTests.run(["serve", "--stdio", "--places", Self.places, "--state", state])
        #expect(result.code == 1)
        #expect(result.err.contains("\(state): corrupt"))
        #expect(result.out.isEmpty)
        // The file is left as it was for the operator to look at.
        #expect(try String(contentsOfFile: state, encoding: .utf8).hasPrefix(#"{"format_version":1"#))
    }

    /// `--visit-budget` implies `--visits` (every answer carries `visits`); a budget too small for
    /// what the engine asks (four regions cannot protect 500 shops: GNSS on foot) says in
    /// `given_up` what it gives up; a value that is neither a preset nor a number of milliwatts
    /// is a usage error.
    @Test func aVisitBudgetIsServed() throws {
        let sidecar = try Sidecar(["--visit-budget", "0.01", "--limit", "4"])
        let here = (lat: 46.0511, lon: 14.5051)
        sidecar.send(
            (0..<20).map { i in
                #"{"device":"d","lat":\#(here.lat + Double(i) * 0.001),"lon":\#(here.lon),"t":\#(i * 30),"accuracy_m":10,"source":"continuous"}"#
            })
        let (status, answers) = try sidecar.finish()
        #expect(status == 0)
        #expect(answers.count == 20 && answers.allSatisfy { $0["visits"] is [Any] })
        #expect(answers.contains { ($0["given_up"] as? [String])?.first == "passage_entries" })
        for bad in ["frugal", "0", "-1"] {
            #expect(try BinaryTests.run(["serve", "--stdio", "--places", Self.places, "--visit-budget", bad]).code == 2)
        }
    }
}
