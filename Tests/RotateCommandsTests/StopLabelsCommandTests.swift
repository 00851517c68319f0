import Foundation
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

    /// Labels far past any clock (1e20 s and more) do not crash the replay page: the run ends
    /// with exit 0 and writes the page.
    @Test func labelsPastAnyClockLeaveTheReplayStanding() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let labels = directory.appendingPathComponent("stops.csv").path
        try "id,arrival,departure\nshop001,100,400\nshop002,1e20,2e20\nshop003,1e300,1e301\n".write(
            toFile: labels, atomically: true, encoding: .utf8)
        let page = directory.appendingPathComponent("replay.html").path
        let result = try BinaryTests.run([
            "simulate", "--places", DatasetPaths.path("shops-500.csv"), "--walk", DatasetPaths.path("walk-6km.csv"), "--stops", labels,
            "--platform", "ios", "--html", page, "--quiet",
        ])
        #expect(result.code == 0, "\(result.err)")
        #expect(FileManager.default.fileExists(atPath: page))
    }
}
