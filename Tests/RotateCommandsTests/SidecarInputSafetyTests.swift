import FencePlanner
import Foundation
import RotateTestSupport
import Testing

@testable import StateStore

/// `rotate serve` fed ids, bytes and times a host should not send, and a database with one
/// damaged device: each case is answered with a reason, wedges no device, and leaves the other
/// devices and the catalog as they should be, in memory and after a restart.
@Suite(.serialized) struct SidecarInputSafetyTests {
    static let places = StateSafetyTests.places

    /// The answers as JSON objects.
    static func answers(_ out: String) throws -> [[String: Any]] {
        try out.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    static func serve(_ state: String?, _ lines: [String]) throws -> (code: Int32, answers: [[String: Any]], err: String) {
        let result = try StateSafetyTests.run(
            ["serve", "--stdio", "--places", places] + (state.map { ["--state", $0] } ?? []), input: lines.joined(separator: "\n") + "\n")
        return (result.code, try answers(result.out), result.err)
    }

    static func report(_ device: String, t: Double, lat: Double = 46.0511) -> String {
        #"{"device":"\#(device)","lat":\#(lat),"lon":14.5051,"t":\#(t),"accuracy_m":8}"#
    }

    /// A place added as `café` (NFC) and removed as `cafe\u0301` (NFD) is gone from the database
    /// too; devices `é` and `e\u0301` are one device, in memory and after a restart, answered
    /// with the NFC spelling.
    @Test func canonicallyEqualIdsAreOneKeyEverywhere() throws {
        let directory = try StateSafetyTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("state.db").path
        let first = try Self.serve(
            state,
            [
                #"{"changes":[{"op":"add","id":"caf\u00e9","lat":46.0512,"lon":14.5052,"radius_m":50}]}"#,
                #"{"changes":[{"op":"remove","id":"cafe\u0301"}]}"#,
                Self.report("\u{e9}", t: 10),
                Self.report("e\u{301}", t: 11),
            ])
        #expect(first.code == 0)
        #expect(first.answers[1]["places"] as? Int == 500)
        #expect(first.answers[2]["action"] as? String == "update")
        #expect(first.answers[3]["action"] as? String == "none", "one device: the second report is inside its refresh region")
        for answer in first.answers[2...] { #expect((answer["device"] as? String).map { Array($0.utf8) } == Array("\u{e9}".utf8)) }
        let again = try Self.serve(state, [Self.report("e\u{301}", t: 12)])
        #expect(again.err.contains("1 devices restored") && again.err.contains("catalog version 2 (500 places)"), "\(again.err)")
        #expect(again.answers.first?["action"] as? String == "none", "the stored state was found: \(again.answers)")
    }

    /// A line that is not valid UTF-8 is refused with the offset of its first bad byte, instead
    /// of being read with replacement characters (which made `"\xffab"` and `"\xfeab"` one
    /// device); a byte order mark before the first line is skipped; a blank line over 1 MiB gets
    /// no answer, like any blank line.
    @Test func bytesThatAreNotTextAreRefusedAndABOMIsSkipped() throws {
        let url = try #require(BinaryTests.rotateURL)
        var input = Data([0xEF, 0xBB, 0xBF]) + Data((Self.report("a", t: 1) + "\n").utf8)
        for bad in [UInt8(0xFF), 0xFE] {
            input += Data(#"{"device":""#.utf8) + Data([bad]) + Data(#"ab","lat":46.05,"lon":14.5,"t":2}"#.utf8) + Data("\n".utf8)
        }
        input += Data(repeating: UInt8(ascii: " "), count: 1_100_000) + Data("\n".utf8)
        input += Data((Self.report("b", t: 3) + "\n").utf8)
        let directory = try StateSafetyTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("input")
        try input.write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "exec '\(url.path)' serve --stdio --places '\(Self.places)' < '\(file.path)'"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let answers = try Self.answers(text)
        #expect(answers.count == 4, "\(text)")
        #expect(answers[0]["line"] as? Int == 1 && answers[0]["action"] as? String == "update")
        #expect(answers[1]["error"] as? String == "not valid UTF-8 (byte 12 of the line)")
        #expect(answers[2]["error"] as? String == "not valid UTF-8 (byte 12 of the line)")
        #expect(answers[3]["line"] as? Int == 5 && answers[3]["device"] as? String == "b")
    }

    /// One device's stored state with one bit flipped (its refresh radius doubled) is refused
    /// for that device, with the reason, while other devices and change sets go on; `reset`
    /// forgets it (the plan is unknown: `stop_all`), and the device starts over.
    @Test func aDamagedDeviceStateStopsThatDeviceAlone() throws {
        let directory = try StateSafetyTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("state.db").path
        let seeded = try Self.serve(state, [Self.report("a", t: 1), Self.report("b", t: 1, lat: 46.06)])
        #expect(seeded.code == 0)
        // Double the refresh radius stored for `a`: one bit of the exponent.
        do {
            let connection = try SQLiteConnection(path: state, create: false)
            let select = try connection.prepare("SELECT state FROM devices WHERE id = 'a'")
            #expect(try select.step())
            var blob = select.withBlob(0) { Array($0) }
            select.reset()
            let catalog = try PlaceCatalog(places: try StateDatabase(path: state, synchronous: false).places())
            let stored = try blob.withUnsafeBytes { try MonitorStateCoding.decode($0, in: catalog, device: "a") }
            let radius = try #require(stored.rotator.refresh?.radiusMeters)
            let pattern = withUnsafeBytes(of: radius.bitPattern.littleEndian) { Array($0) }
            let at = try #require((0...(blob.count - 8)).first { Array(blob[$0..<($0 + 8)]) == pattern })
            blob[at + 6] ^= 0x10  // the lowest exponent bit: 929.31 m becomes 1858.62 m
            let update = try connection.prepare("UPDATE devices SET state = ?1 WHERE id = 'a'")
            update.bind(1, blob: blob)
            try update.run()
        }
        let result = try Self.serve(
            state,
            [
                #"{"changes":[]}"#, Self.report("a", t: 2), Self.report("b", t: 2, lat: 46.06), Self.report("a", t: 3),
                #"{"device":"a","reset":true}"#, Self.report("a", t: 4),
            ])
        #expect(result.code == 0)
        let reason = "device 'a': \(state): stored state does not read: checksum mismatch: the stored state is damaged"
        // The change set loads every stored state: the damaged one stops only its device.
        #expect(result.answers[0]["action"] as? String == "catalog" && result.answers[0]["catalog_version"] as? Int == 1)
        #expect(result.answers[1]["error"] as? String == reason)
        #expect(result.answers[2]["action"] as? String == "none")
        #expect(result.answers[3]["error"] as? String == reason)
        #expect(result.answers[4]["action"] as? String == "reset" && result.answers[4]["stop_all"] as? Bool == true)
        #expect(result.answers[5]["action"] as? String == "update" && result.answers[5]["stop_refresh"] == nil)
    }

    /// Times a host should not send: beyond 10^10 s (1e300, or milliseconds since 1970) is
    /// refused and leaves the device's clock as it was, so its next report still reselects; an
    /// exit stamped before its visit's entry is ignored with the reason; and `reset` answers with
    /// the regions to unregister.
    @Test func implausibleTimesAreRefusedAndCannotWedgeADevice() throws {
        let shop = #"{"device":"a","region":"shop192","event":"EVENT","t":TIME}"#
        func event(_ kind: String, _ t: String) -> String {
            shop.replacingOccurrences(of: "EVENT", with: kind).replacingOccurrences(of: "TIME", with: t)
        }
        let result = try Self.serve(
            nil,
            [
                Self.report("a", t: 1_000), event("entry", "1e300"), event("entry", "1700000000000"), event("entry", "1100"),
                event("exit", "1050"), Self.report("a", t: 1_200, lat: 46.5), #"{"device":"a","reset":true}"#,
                #"{"device":"zz","reset":true}"#, Self.report("a", t: 1_300, lat: 46.5),
            ])
        let a = result.answers
        #expect(a[1]["error"] as? String == "'t' must be within 0...10000000000 seconds (1e+300 is not: milliseconds or another clock?)")
        #expect((a[2]["error"] as? String)?.hasPrefix("'t' must be within 0...10000000000 seconds") == true)
        #expect((a[3]["place_events"] as? [[String: Any]])?.first?["event"] as? String == "entry")
        #expect(a[4]["ignored"] as? String == "exit at 1050.0 s is before the visit's entry at 1100.0 s")
        #expect(a[5]["action"] as? String == "update", "a report 50 km away reselects: \(a[5])")
        let refresh = try #require(a[5]["start_refresh"] as? [String: Any])
        #expect(a[6]["action"] as? String == "reset" && a[6]["stop_refresh"] as? String == refresh["id"] as? String)
        #expect((a[6]["stop"] as? [String])?.count == 17 && a[6]["stop_all"] as? Bool == false)
        #expect(a[7]["ignored"] as? String == "no device 'zz' is held or stored")
        // Forgotten, `a` starts over: its next report selects as a first report does.
        #expect(a[8]["action"] as? String == "update" && a[8]["stop_refresh"] == nil && (a[8]["stop"] as? [String])?.isEmpty == true)
    }

    /// Region events for devices never seen are ignored and create no device, in memory or in
    /// the database.
    @Test func ignoredLinesCreateNoDevice() throws {
        let directory = try StateSafetyTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("state.db").path
        let lines = (0..<50).map { #"{"device":"ghost\#($0)","region":"nowhere","event":"entry","t":5}"# }
        let result = try Self.serve(state, lines + [Self.report("real", t: 6)])
        #expect(result.answers.count == 51)
        #expect(result.answers.prefix(50).allSatisfy { ($0["ignored"] as? String)?.contains("is no place") == true })
        let probe = try Self.serve(state, [])
        #expect(probe.err.contains(": 1 devices restored"), "\(probe.err)")
    }

    /// A fix whose accuracy swallows the safe distance (5 km) is `saturated` with a refresh
    /// region registered at the platform's minimum (`--min-refresh`), never at 0 m, and the
    /// device is asked for continuous fixes.
    @Test func aRefreshRegionIsNeverBelowThePlatformMinimum() throws {
        let result = try Self.serve(nil, [#"{"device":"a","lat":46.0511,"lon":14.5051,"t":1,"accuracy_m":5000}"#])
        let answer = try #require(result.answers.first)
        #expect(answer["guarantee"] as? String == "saturated")
        let refresh = try #require(answer["start_refresh"] as? [String: Any])
        #expect((refresh["radius_m"] as? Double ?? 0) >= 100)
        #expect((answer["location"] as? [String: Any])?["request"] as? String == "continuous")
    }

    /// A change set's `t` stamps the exits of visits it ends (not the device's last input).
    @Test func aCatalogExitCarriesTheChangeSetsTime() throws {
        let result = try Self.serve(
            nil,
            [
                Self.report("a", t: 10), #"{"device":"a","region":"shop192","event":"entry","t":40}"#,
                #"{"changes":[{"op":"remove","id":"shop192"}],"t":400}"#, #"{"changes":[{"op":"remove","id":"shop193"}]}"#,
            ])
        let affected = try #require((result.answers[2]["affected"] as? [[String: Any]])?.first)
        let exit = try #require((affected["place_events"] as? [[String: Any]])?.first)
        #expect(exit["place"] as? String == "shop192" && exit["event"] as? String == "exit" && exit["t"] as? Double == 400)
        #expect(exit["evidence"] as? String == "catalog")
    }
}
