import Foundation
import Geodesy
import RotateTestSupport
import Testing

/// The sidecar scaled out, as a service would run it: replicas that hold no state (the host
/// sends each device's state with its line), and partitions that each hold the devices whose id
/// hashes to them. Both answer as one process does.
@Suite(.serialized) struct ScaleOutTests {
    /// A sidecar process asked one line at a time.
    final class Process1 {
        let sidecar: ServeTests.Sidecar
        private var buffer: [UInt8] = []

        init(_ extra: [String]) throws { sidecar = try ServeTests.Sidecar(extra) }

        /// Sends `line` and returns its answer as a JSON object.
        func ask(_ line: String) throws -> [String: Any] {
            sidecar.send([line])
            while !buffer.contains(UInt8(ascii: "\n")) {
                let chunk = sidecar.output.availableData
                guard !chunk.isEmpty else { throw CocoaError(.fileReadUnknown) }
                buffer += chunk
            }
            let end = buffer.firstIndex(of: UInt8(ascii: "\n"))!
            let answer = Data(buffer[..<end])
            buffer.removeFirst(end + 1)
            return try #require(try JSONSerialization.jsonObject(with: answer) as? [String: Any])
        }

        func close() throws {
            try sidecar.input.close()
            sidecar.process.waitUntilExit()
        }
    }

    /// An answer without what differs between processes: its line number and the state.
    static func comparable(_ answer: [String: Any]) -> NSDictionary {
        var answer = answer
        answer["line"] = nil
        answer["state"] = nil
        return answer as NSDictionary
    }

    /// Device lines: reports along short walks, a platform entry, and a registered list, for 12
    /// devices interleaved.
    static func lines(devices: Int, rounds: Int, seed: UInt64) -> [(device: String, line: (String?) -> String)] {
        var rng = SplitMix64(seed: seed)
        var result: [(device: String, line: (String?) -> String)] = []
        for round in 0..<rounds {
            for d in 0..<devices {
                let device = "dev-\(d)"
                let north: Double = Double(d % 4) * 0.01 + Double(round) * 0.0008
                let east: Double = Double(d / 4) * 0.015
                let lat: Double = 46.03 + north + rng.nextDouble(in: 0..<0.0002)
                let lon: Double = 14.48 + east + rng.nextDouble(in: 0..<0.0002)
                let t = round * 30 + 1
                let body: String =
                    switch round {
                    case 5: #""region":"shop192","event":"entry","t":\#(t)"#
                    case 9: #""registered":["shop192","refresh-0"],"t":\#(t)"#
                    default: #""lat":\#(lat),"lon":\#(lon),"t":\#(t),"accuracy_m":8"#
                    }
                result.append((device, { state in #"{"device":"\#(device)",\#(body)"# + (state.map { #","state":\#($0)"# } ?? "") + "}" }))
            }
        }
        return result
    }

    /// Four stateless replicas, each line sent to one at random with the state the host stored
    /// from the device's last answer, answer every line as one process that holds the devices.
    @Test func statelessReplicasAnswerAsOneProcess() throws {
        var rng = SplitMix64(seed: TestSeed.value(salt: 2_901))
        let one = try Process1([])
        let replicas = try (0..<4).map { _ in try Process1(["--stateless"]) }
        var states: [String: String] = [:]
        var compared = 0
        for (device, line) in Self.lines(devices: 12, rounds: 12, seed: 7) {
            let expected = try one.ask(line(nil))
            let answer = try replicas[rng.nextInt(below: replicas.count)].ask(line(states[device]))
            #expect(expected["state"] == nil)
            let state = try #require(answer["state"], "a stateless answer carries the state: \(answer)")
            states[device] = String(decoding: try JSONSerialization.data(withJSONObject: state, options: [.sortedKeys]), as: UTF8.self)
            #expect(Self.comparable(answer) == Self.comparable(expected), "\(device): \(answer) vs \(expected)")
            compared += 1
        }
        #expect(compared == 144)
        // A change set goes to every replica: each builds the same next version.
        let change = #"{"changes":[{"op":"add","id":"new","lat":46.05,"lon":14.5,"radius_m":80}]}"#
        for replica in replicas { #expect(try replica.ask(change)["catalog_version"] as? Int == 1) }
        // A state that does not parse is refused, and the replica goes on.
        #expect(
            (try replicas[0].ask(#"{"device":"x","lat":46,"lon":14.5,"t":1,"state":{"format_version":9}}"#)["error"] as? String)?.contains(
                "'state'") == true)
        for process in [one] + replicas { try process.close() }
    }

    /// Four partitions, devices split by a hash of their id, each with its own state file, answer
    /// every device line as one process, and a change set sent to all of them reaches the same
    /// devices in all, with the same answers.
    @Test func partitionsAnswerAsOneProcess() throws {
        let directory = try ServeTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let one = try Process1([])
        let partitions = try (0..<4).map { p in try Process1(["--state", directory.appendingPathComponent("part-\(p).db").path]) }
        func partition(_ device: String) -> Int { device.utf8.reduce(0) { ($0 &* 31 &+ Int($1)) & 0xFFFF } % partitions.count }
        for (device, line) in Self.lines(devices: 12, rounds: 8, seed: 9) {
            let expected = try one.ask(line(nil))
            let answer = try partitions[partition(device)].ask(line(nil))
            #expect(Self.comparable(answer) == Self.comparable(expected), "\(device)")
        }
        // Places added near the walks and a monitored shop removed: some devices get pushes or
        // requests for a fix.
        let change =
            #"{"changes":[{"op":"remove","id":"shop192"},{"op":"add","id":"near","lat":46.035,"lon":14.49,"radius_m":60}]}"#
        let expected = try one.ask(change)
        let affected = try #require(expected["affected"] as? [[String: Any]])
        #expect(!affected.isEmpty)
        var union: [[String: Any]] = []
        for process in partitions { union += try #require(try process.ask(change)["affected"] as? [[String: Any]]) }
        union.sort { ($0["device"] as? String ?? "") < ($1["device"] as? String ?? "") }
        #expect(union.map { $0 as NSDictionary } == affected.map { $0 as NSDictionary })
        for process in [one] + partitions { try process.close() }
    }
}
