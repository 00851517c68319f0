import Dispatch
import Foundation
import Geodesy
import RotateTestSupport
import StateStore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `rotate serve --state` killed with SIGKILL after a random number of answers and restarted from
/// what its database says it committed: under `--durability always` every answer printed before
/// the kill is in the database, under `batch` at most the last 2 × `--commit-every` device inputs
/// are lost (a commit in flight and the next filling), and either way the restarted sidecar, fed
/// the input from the first line it has not committed, answers exactly as one process that was
/// never killed.
@Suite(.serialized) struct DurableStateTests {
    static let places = DatasetPaths.path("shops-500.csv")

    /// A stream of devices walking among the bundled shops (in time order per device), with
    /// region events, registered lists, change sets and bad lines among them.
    static func workload(seed: UInt64, lines count: Int) -> [String] {
        var rng = SplitMix64(seed: seed)
        let start = Coordinate(validLatitude: 46.0511, longitude: 14.5051)
        var positions = (0..<30).map { _ in SyntheticCoordinates.uniformInSquare(around: start, sideMeters: 8_000, using: &rng) }
        var lines: [String] = []
        for i in 0..<count {
            let device = rng.nextInt(below: positions.count)
            let t = 1_000 + Double(i) * 7
            switch rng.nextInt(below: 100) {
            case 0..<3:
                lines.append(
                    ["not json", #"{"device":"x","lat":95,"lon":0,"t":1}"#, #"{"device":"x","device":"y","lat":1,"lon":0,"t":1}"#][i % 3])
            case 3:
                let id = "added\(i)"
                lines.append(
                    #"{"changes":[{"op":"add","id":"\#(id)","lat":\#(positions[device].latitude),"lon":\#(positions[device].longitude),"radius_m":90}]}"#
                )
            case 4..<8:
                let shop = String(format: "shop%03d", 1 + rng.nextInt(below: 500))
                lines.append(#"{"device":"d\#(device)","region":"\#(shop)","event":"\#(i % 2 == 0 ? "entry" : "exit")","t":\#(t)}"#)
            case 8..<10:
                lines.append(#"{"device":"d\#(device)","registered":["shop001"],"t":\#(t)}"#)
            default:
                positions[device] = positions[device].destination(
                    bearingDegrees: rng.nextDouble(in: 0..<360), distanceMeters: rng.nextDouble(in: 0..<400))
                let p = positions[device]
                lines.append(#"{"device":"d\#(device)","lat":\#(p.latitude),"lon":\#(p.longitude),"t":\#(t),"accuracy_m":15}"#)
            }
        }
        return lines
    }

    /// A sidecar process whose stdin is written and stdout and stderr read on their own threads;
    /// with `killAfter`, killed with SIGKILL as soon as that many answers have come out (a moment
    /// set by the count of answers, not by a clock, so the test does not depend on the machine's
    /// speed).
    final class Server: @unchecked Sendable {
        let process = Process()
        private let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        private let group = DispatchGroup()
        private var out = Data(), err = Data()

        init(_ extra: [String], input: [String], killAfter: Int? = nil) throws {
            let url = try #require(BinaryTests.rotateURL, "the rotate binary was not found beside the tests")
            process.executableURL = url
            process.arguments = ["serve", "--stdio", "--places", DurableStateTests.places] + extra
            process.standardInput = stdin
            process.standardOutput = stdout
            process.standardError = stderr
            signal(SIGPIPE, SIG_IGN)
            try process.run()
            let bytes = input.isEmpty ? [] : Array((input.joined(separator: "\n") + "\n").utf8)
            BinaryTests.feed(bytes, to: stdin, in: group)
            let pid = process.processIdentifier
            DispatchQueue.global().async(group: group) { [stdout] in
                var answers = 0
                while true {
                    let chunk = stdout.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    self.out += chunk
                    answers += chunk.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
                    if let killAfter, answers >= killAfter { kill(pid, SIGKILL) }
                }
            }
            DispatchQueue.global().async(group: group) { [stderr] in self.err = stderr.fileHandleForReading.readDataToEndOfFile() }
        }

        /// Waits for the process and its streams: the complete answer lines and stderr.
        func wait() -> (answers: [String], log: String) {
            process.waitUntilExit()
            group.wait()
            let text = String(decoding: out, as: UTF8.self)
            var answers = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            answers.removeLast()  // after the last newline: empty, or a line cut by the kill
            return (answers, String(decoding: err, as: UTF8.self))
        }
    }

    /// An answer without its line number (which restarts at 1 in each process).
    static func body(_ answer: String) -> String {
        answer.replacingOccurrences(of: #"^\{"line":[0-9]+,"#, with: "{", options: .regularExpression)
    }

    /// The input lines committed, from the restart's log line.
    static func committed(_ log: String) throws -> Int {
        let match = try #require(log.firstMatch(of: /([0-9]+) input lines committed/), "no commit count in: \(log)")
        return try #require(Int(match.1))
    }

    static func killAndRecover(durability: String, commitEvery: Int, salt: UInt64) throws {
        let seed = TestSeed.value(salt: salt)
        let lines = Self.workload(seed: seed, lines: 2_500)
        let reference = try Server([], input: lines).wait().answers
        #expect(reference.count == lines.count)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rotate-durable-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("state.db").path
        let options = ["--state", state, "--durability", durability, "--commit-every", String(commitEvery)]
        var rng = SplitMix64(seed: seed)
        var resume = 0, kills = 0
        for round in 0..<12 {
            let server = try Server(options, input: Array(lines[resume...]), killAfter: 100 + rng.nextInt(below: 300))
            let (answers, log) = server.wait()
            // Killed before it said anything, or it says it resumes where the last probe said.
            if log.contains("input lines committed") { #expect(try Self.committed(log) == resume, "round \(round): \(log)") }
            // What was printed is what one uninterrupted process answers to those lines.
            for (k, answer) in answers.enumerated() {
                #expect(
                    Self.body(answer) == Self.body(reference[resume + k]),
                    "round \(round), line \(resume + k + 1), \(TestSeed.replay(seed))")
                #expect(answer.hasPrefix(#"{"line":\#(k + 1),"#))
            }
            let finished = server.process.terminationReason == .exit
            if !finished { kills += 1 }
            // What the database committed, as the next start reports it.
            let probe = try Server(["--state", state], input: [])
            let (_, probeLog) = probe.wait()
            let committed = try Self.committed(probeLog)
            let printed = resume + answers.count
            #expect(committed <= lines.count)
            if durability == "always" {
                #expect(committed >= printed, "round \(round): answered through line \(printed) but committed \(committed)")
            } else {
                let lost = reference[min(committed, printed)..<printed].filter { Self.body($0).hasPrefix(#"{"device""#) }.count
                // One commit may be in flight (written by the writer thread, up to N inputs) while
                // the next N fill: a kill loses at most both.
                #expect(lost <= 2 * commitEvery, "round \(round): \(lost) answered device inputs lost")
            }
            resume = committed
            if finished {
                #expect(committed == lines.count, "it ended without committing everything")
                break
            }
        }
        // The rest, without a kill: exactly the uninterrupted answers.
        let last = try Server(options, input: Array(lines[resume...]))
        let (answers, log) = last.wait()
        #expect(last.process.terminationStatus == 0, "\(log)")
        #expect(answers.map(Self.body) == reference[resume...].map(Self.body), "\(TestSeed.replay(seed))")
        #expect(kills >= 3, "the sidecar was killed mid-stream only \(kills) times")
        #expect(log.contains("devices restored") || resume == 0)
    }

    @Test func sigkillUnderAlwaysLosesNoAnsweredLine() throws {
        try Self.killAndRecover(durability: "always", commitEvery: 10_000, salt: 0x414C_5741)
    }

    @Test func sigkillUnderBatchLosesAtMostOneBatch() throws {
        try Self.killAndRecover(durability: "batch", commitEvery: 40, salt: 0x4241_5443)
    }

    /// A database cut short or overwritten stops the start with exit 1 and the reason, and is
    /// left as it was.
    @Test func aTruncatedOrOverwrittenDatabaseStopsTheStart() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rotate-durable-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("state.db").path
        let (answers, _) = try Server(["--state", state], input: Self.workload(seed: 5, lines: 300)).wait()
        #expect(answers.count == 300)
        let good = try Data(contentsOf: URL(fileURLWithPath: state))
        #expect(good.count > 3 * 4_096)
        // Cut inside the second page, which holds live rows: a cut further on may take only free
        // pages (left by rewritten rows, never read), which leaves a sound database.
        for (name, bytes, reason) in [
            ("truncated", good.prefix(4_096 + 2_048), "corrupt"),
            ("overwritten", Data(repeating: 0x2A, count: 4_096) + good.dropFirst(4_096), "not a rotate state database"),
        ] {
            try bytes.write(to: URL(fileURLWithPath: state))
            let result = try BinaryTests.run(["serve", "--stdio", "--places", Self.places, "--state", state])
            #expect(result.code == 1, "\(name)")
            #expect(result.err.contains("\(state): \(reason)"), "\(name): \(result.err)")
            #expect(result.out.isEmpty)
            #expect(try Data(contentsOf: URL(fileURLWithPath: state)) == bytes, "\(name): the file was changed")
        }
    }
}
