import Foundation
import Geodesy
import RotateFormats
import RotateTestSupport
import Testing

/// `rotate simulate --walk W --stops FILE`, through the built binary: labels with any times
/// leave the command standing.
@Suite struct StopLabelsCommandTests {
    /// A scratch directory, removed by the caller.
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("rotate-labels-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Labels far past any clock (1e20 s and more), before the walk, or repeating a stop neither
    /// crash the replay page nor reach the figures: each is reported as `FILE:LINE: reason` and
    /// the run ends with exit 0, the page written.
    @Test func labelsPastAnyClockLeaveTheReplayStanding() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let labels = directory.appendingPathComponent("stops.csv").path
        try "id,arrival,departure\nshop001,100,400\nshop002,1e20,2e20\nshop003,1e300,1e301\nshop004,-300,-100\nshop001,100,400\n"
            .write(toFile: labels, atomically: true, encoding: .utf8)
        let page = directory.appendingPathComponent("replay.html").path
        let result = try BinaryTests.run([
            "simulate", "--places", DatasetPaths.path("shops-500.csv"), "--walk", DatasetPaths.path("walk-6km.csv"), "--stops", labels,
            "--platform", "ios", "--html", page, "--quiet",
        ])
        #expect(result.code == 0, "\(result.err)")
        #expect(FileManager.default.fileExists(atPath: page))
        for line in 3...5 { #expect(result.err.contains("stops.csv:\(line): the stop ("), "\(line): \(result.err)") }
        #expect(result.err.contains("stops.csv:6: repeats the stop of line 2"))
        #expect(result.err.contains("stops.csv: 5 stops read, 1 accepted, 4 rejected"))
        #expect(!result.out.contains("e+"), "no absurd figure: \(result.out)")
    }

    /// A walk 300 m west of shop001 (Datasets/shops-500.csv) at 1.5 m/s, 5 minutes at it (200 to
    /// 500 s), then 300 m east: `t` of each fix as `time` writes it, and the label of the stop.
    static func trip(time: (Double) -> String) -> (walk: String, labels: String) {
        let shop = Coordinate(validLatitude: 46.0732033, longitude: 14.5137286)
        var rows = ["t,lat,lon,accuracy_m"]
        for t in stride(from: 0.0, through: 900, by: 5) {
            let offset = t < 200 ? -300 + 1.5 * t : t < 500 ? 0 : 1.5 * (t - 500)
            let p = shop.destination(bearingDegrees: 90, distanceMeters: offset)
            rows.append("\(time(t)),\(p.latitude),\(p.longitude),10")
        }
        return (rows.joined(separator: "\n") + "\n", "id,arrival,departure\nshop001,\(time(200)),\(time(500))\n")
    }

    /// The stop oracle's figures of `simulate --json` for the trip on one clock.
    static func stopFigures(_ trip: (walk: String, labels: String), in directory: URL) throws -> [String: String] {
        let name = UUID().uuidString
        let walk = directory.appendingPathComponent("\(name).csv").path, labels = directory.appendingPathComponent("\(name)-stops.csv").path
        try trip.walk.write(toFile: walk, atomically: true, encoding: .utf8)
        try trip.labels.write(toFile: labels, atomically: true, encoding: .utf8)
        let result = try BinaryTests.run([
            "simulate", "--places", DatasetPaths.path("shops-500.csv"), "--walk", walk, "--stops", labels, "--platform", "ios", "--json",
            "--quiet",
        ])
        #expect(result.code == 0, "\(result.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        var figures: [String: String] = [:]
        for (key, value) in object where key.contains("stop") || key.contains("false_visits") || key.contains("visit_latency") {
            figures[key] = "\(value)"
        }
        return figures
    }

    /// The same trip with its walk and labels on the walk's clock from 0, in Unix seconds and in
    /// ISO 8601 times scores the same: the labels are put on the walk's clock. The stop is
    /// detected on the clock from 0, so a label left off the walk's clock would score otherwise.
    @Test func theSameTripScoresTheSameOnEveryClock() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let unix = 1_700_000_000.0
        let fromZero = try Self.stopFigures(Self.trip { CSVWriter.decimal($0) }, in: directory)
        #expect(fromZero["stops_5min"].flatMap(Double.init) == 1 && fromZero["stop_recall_5min"].flatMap(Double.init) == 1, "\(fromZero)")
        let unixSeconds = try Self.stopFigures(Self.trip { CSVWriter.decimal(unix + $0) }, in: directory)
        let iso = try Self.stopFigures(Self.trip { ISO8601.text(utcSeconds: Int(unix + $0)) }, in: directory)
        #expect(unixSeconds == fromZero)
        #expect(iso == fromZero)
    }
}
