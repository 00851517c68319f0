import Foundation
import RotateFormats
import Testing

/// gpxpy 1.6.2's GPX test files (`Conformance/gpxpy/`) read by rotate and compared, point by point,
/// with `Conformance/gpxpy-expectations.json`: the points gpxpy parses, the lines of their start
/// tags from Python's expat, and docs/formats.md's rules applied to them
/// (`make_gpxpy_expectations.py`).
///
/// Tolerances: coordinates within 1e-12 degrees (the JSON holds the shortest decimal of each
/// double, so they are normally equal bit for bit); rebased times within 1e-6 s (gpxpy truncates
/// fractions of a second to microseconds, rotate keeps every digit).
@Suite struct GPXConformanceTests {
    struct Point: Decodable, Sendable {
        var lat: Double
        var lon: Double
        var line: Int
        /// Seconds since 1970 as gpxpy read them, or nil for a point without a time.
        var time: Double?
        /// The rebased time of an accepted fix.
        var t: Double?
        /// Why rotate rejects the point: `untimed`, `stale`, `out_of_range` or `bad_time`.
        var rejected: String?
    }

    struct FileExpectation: Decodable, Sendable {
        var kind: String?
        var points: [Point]
    }

    struct Expectations: Decodable, Sendable {
        var files: [String: FileExpectation]
        var gpxpy: String
    }

    static let coordinateTolerance = 1e-12
    static let timeToleranceSeconds = 1e-6

    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Conformance")
    static let filesDirectory = directory.appendingPathComponent("gpxpy")

    /// The bundled `.gpx` files, by name.
    static let bundledFiles: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: filesDirectory.path)) ?? []
        return names.filter { $0.hasSuffix(".gpx") }.sorted()
    }()

    /// Files today's reader reads differently from the expectations, with how. Each case runs
    /// under `withKnownIssue`, which fails once the reader agrees, so the entry must then go.
    static let knownDisagreements: [String: String] = [:]

    static func expectations() throws -> Expectations {
        let data = try Data(contentsOf: directory.appendingPathComponent("gpxpy-expectations.json"))
        return try JSONDecoder().decode(Expectations.self, from: data)
    }

    @Test func everyBundledFileHasExpectations() throws {
        let expected = try Self.expectations()
        #expect(expected.gpxpy == "1.6.2")
        #expect(!Self.bundledFiles.isEmpty)
        #expect(Self.bundledFiles == expected.files.keys.sorted())
    }

    @Test(arguments: bundledFiles)
    func fileReadsAsGPXPyExpects(name: String) throws {
        let expectation = try #require(try Self.expectations().files[name], "no expectations for \(name)")
        if let why = Self.knownDisagreements[name] {
            withKnownIssue(Comment(rawValue: why)) { try Self.check(name, expectation) }
        } else {
            try Self.check(name, expectation)
        }
    }

    static func check(_ name: String, _ expectation: FileExpectation) throws {
        let path = filesDirectory.appendingPathComponent(name).path
        let accepted = expectation.points.filter { $0.t != nil }
        let rejected = expectation.points.filter { $0.rejected != nil }
        #expect(accepted.count + rejected.count == expectation.points.count, "\(name): a point neither accepted nor rejected")
        guard !accepted.isEmpty else {
            do {
                _ = try WalkFile.read(path: path)
                Issue.record("\(name): no error")
            } catch {
                guard case .noValidPoints(let rows) = error.reason else { Issue.record("\(name): \(error)"); return }
                #expect(error.line == 1 && rows.count == rejected.count, "\(name): \(error)")
            }
            return
        }
        let walk = try WalkFile.read(path: path)

        #expect(walk.fixes.count == accepted.count, "\(name): fixes")
        #expect(walk.lines.count == walk.fixes.count, "\(name): one line per fix")
        var mismatches: [String] = []
        for (index, (fix, point)) in zip(walk.fixes, accepted).enumerated() {
            let line = index < walk.lines.count ? walk.lines[index] : -1
            var problems: [String] = []
            if abs(fix.coordinate.latitude - point.lat) > coordinateTolerance { problems.append("lat \(fix.coordinate.latitude)") }
            if abs(fix.coordinate.longitude - point.lon) > coordinateTolerance { problems.append("lon \(fix.coordinate.longitude)") }
            let timeAgrees = fix.timestampSeconds.flatMap { t in point.t.map { abs(t - $0) <= timeToleranceSeconds } } ?? false
            if !timeAgrees { problems.append("t \(fix.timestampSeconds.map { "\($0)" } ?? "nil")") }
            if line != point.line { problems.append("line \(line)") }
            if !problems.isEmpty {
                mismatches.append(
                    "fix \(index): read \(problems.joined(separator: ", ")); expected line \(point.line), "
                        + "(\(point.lat), \(point.lon)), t \(point.t ?? .nan)")
            }
        }
        #expect(mismatches.isEmpty, "\(name): \(mismatches.count) fixes differ, first: \(mismatches.prefix(5))")

        let expectedRejected = rejected.map { "\($0.line) \($0.rejected ?? "")" }.sorted()
        let readRejected = walk.rejected.map { "\($0.line) \(reasonKind($0.reason))" }.sorted()
        #expect(readRejected == expectedRejected, "\(name): rejected points (line and reason)")
    }

    /// The expectations' name for a reason rotate reports.
    static func reasonKind(_ reason: String) -> String {
        if reason == WalkFileError.Reason.untimedPoint.description { return "untimed" }
        if reason.hasPrefix("time goes backwards") { return "stale" }
        if reason.hasPrefix("time is neither") { return "bad_time" }
        if reason.hasPrefix("latitude ") || reason.hasPrefix("longitude ") { return "out_of_range" }
        return reason
    }
}
