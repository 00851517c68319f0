import Foundation
import PlatformFacts
import RotateCommands
import RotateTestSupport
import Testing
import WalkSimulator

/// The command line in-process: dispatch, help, usage errors and exit codes.
@Suite struct RotateCommandLineTests {
    /// As with swift-argument-parser: `rotate`, `rotate help`, `--help` and `-h` print the
    /// top-level help on stdout and exit 0.
    @Test(arguments: [[], ["help"], ["--help"], ["-h"], ["help", "--help"]])
    func theTopLevelHelpExitsZero(arguments: [String]) {
        let result = CapturingConsole.run(arguments)
        #expect(result.code == 0)
        #expect(result.out == RotateCommandLine.help)
        #expect(result.out.contains("USAGE: rotate <command>"))
        #expect(result.err.isEmpty)
    }

    /// `rotate help COMMAND` prints what `rotate COMMAND --help` prints.
    @Test func helpCommandPrintsTheCommandsHelp() {
        for command in RotateCommandLine.subcommands {
            let result = CapturingConsole.run(["help", command.name])
            #expect(result.code == 0)
            #expect(result.out == command.help)
            #expect(result.out == CapturingConsole.run([command.name, "--help"]).out)
        }
        #expect(CapturingConsole.run(["help", "plan"]).out.hasPrefix("OVERVIEW: Plan the fences"))
        #expect(CapturingConsole.run(["help", "frobnicate"]).code == 2)
        #expect(CapturingConsole.run(["help", "plan", "extra"]).code == 2)
    }

    /// A command line missing required options names all of them in one error, with the usage
    /// line that shows them, and exits 2.
    @Test(arguments: [
        (["plan"], "missing --places and --walk", "rotate plan --places <file> --walk <file> [options]"),
        (["plan", "--walk", "w.csv"], "missing --places", "rotate plan --places <file> --walk <file> [options]"),
        (
            ["probability", "--radius", "1"], "missing --distance and --sigma",
            "rotate probability --distance <m> --radius <m> --sigma <m> [options]"
        ),
        (["serve"], "missing --stdio and --places", "rotate serve --stdio --places <file> [options]"),
        (["select", "--at", "1,2"], "missing --places", "rotate select --places <file> (--at <lat,lon> | --positions <file>) [options]"),
    ])
    func missingOptionsAreNamedAtOnce(arguments: [String], message: String, usage: String) {
        let result = CapturingConsole.run(arguments)
        #expect(result.code == 2)
        #expect(result.out.isEmpty)
        let name = arguments[0]
        #expect(result.err == "rotate \(name): error: \(message)\nUsage: \(usage); see 'rotate \(name) --help'.")
    }

    @Test func topLevelHelpListsEveryCommand() {
        let result = CapturingConsole.run(["--help"])
        #expect(result.code == 0)
        for command in RotateCommandLine.subcommands {
            #expect(result.out.contains(command.name))
        }
    }

    @Test func everyCommandHasHelpListingItsOptions() {
        for command in RotateCommandLine.subcommands {
            let result = CapturingConsole.run([command.name, "--help"])
            #expect(result.code == 0)
            for option in command.options where option.aliasOf == nil {
                #expect(result.out.contains(option.name), "\(command.name) \(option.name)")
            }
        }
    }

    @Test(arguments: [
        ["frobnicate"], ["bench", "--bogus"], ["bench", "--count", "many"], ["bench", "--by", "north"],
        ["bench", "--radius", "5", "--mixed-radii"], ["bench", "--repetitions", "0"], ["bench", "extra"],
    ])
    func usageErrorsExitWith2AndExplain(arguments: [String]) {
        let result = CapturingConsole.run(arguments)
        #expect(result.code == 2)
        #expect(result.err.contains("error:"))
        #expect(result.out.isEmpty)
    }

    @Test func benchJSONHasTheDocumentedKeysAndAgreesWithBruteForce() throws {
        let result = CapturingConsole.run(["bench", "--count", "3000", "--queries", "300", "--repetitions", "1", "--json", "--quiet"])
        #expect(result.code == 0, "\(result.err)")
        #expect(result.err.isEmpty)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        for key in ["n", "k", "queries", "build_ms", "ns_per_query", "baseline_ns_per_query", "speedup"] {
            #expect(object[key] is NSNumber, "missing \(key)")
        }
        #expect(object["n"] as? Int == 3000)
        #expect(object["k"] as? Int == 18)
        #expect(object["queries"] as? Int == 300)
        #expect(object["mismatches"] as? Int == 0)
        let perQuery = try #require(object["ns_per_query"] as? Double)
        let baseline = try #require(object["baseline_ns_per_query"] as? Double)
        let speedup = try #require(object["speedup"] as? Double)
        #expect(abs(speedup - baseline / perQuery) <= 0.05 * speedup + 0.1)
    }

    @Test func benchIsDeterministicForASeed() {
        let arguments = [
            "bench", "--count", "2000", "--queries", "200", "--repetitions", "1", "--json", "--quiet", "--mixed-radii", "--seed", "9",
        ]
        let checksum = { (text: String) in text.split(separator: ",").first { $0.hasPrefix("\"checksum\"") } }
        let first = CapturingConsole.run(arguments)
        let second = CapturingConsole.run(arguments)
        #expect(checksum(first.out) != nil)
        #expect(checksum(first.out) == checksum(second.out))
        let other = CapturingConsole.run(arguments.dropLast() + ["10"])
        #expect(checksum(first.out) != checksum(other.out))
    }

    /// Progress goes to stderr, and only when stderr is a terminal; results go to stdout either way.
    @Test(arguments: [false, true])
    func benchTableKeepsProgressOffStdout(errIsTerminal: Bool) {
        let result = CapturingConsole.run(
            ["bench", "--count", "1000", "--queries", "100", "--repetitions", "1", "--baseline-queries", "10"],
            errIsTerminal: errIsTerminal)
        #expect(result.code == 0)
        #expect(result.out.contains("speedup"))
        #expect(result.out.contains("brute force ran 10 queries"))
        #expect(!result.out.contains("building the index"))
        #expect(result.err.contains("building the index") == errIsTerminal, "\(result.err)")
    }

    /// On a terminal `plan` prints its summary; into a pipe or a file, the NDJSON trace.
    @Test(arguments: [false, true])
    func planWritesTheSummaryOnATerminalAndTheTraceElsewhere(outIsTerminal: Bool) throws {
        let arguments = ["plan", "--places", DatasetPaths.path("shops-500.csv"), "--walk", DatasetPaths.path("walk-6km.csv")]
        let result = CapturingConsole.run(arguments, outIsTerminal: outIsTerminal)
        #expect(result.code == 0, "\(result.err)")
        let first = try #require(result.out.split(separator: "\n").first)
        #expect(first.hasPrefix("rotate plan: ") == outIsTerminal, "\(first)")
        #expect(first.hasPrefix("{\"type\":\"config\"") == !outIsTerminal, "\(first)")
        let explicit = CapturingConsole.run(arguments + ["--format", "ndjson"], outIsTerminal: true)
        #expect(explicit.out.hasPrefix("{\"type\":\"config\""))
    }
}

@Suite struct PresetsCommandTests {
    @Test func printsOneRowPerPlatformLatencyAndTraveller() {
        let result = CapturingConsole.run(["presets", "--places", "300", "--positions", "50", "--side-km", "3"])
        #expect(result.code == 0, "\(result.err)")
        let rows = result.out.split(separator: "\n").filter { $0.hasPrefix("iOS") || $0.hasPrefix("Android") }
        #expect(rows.count == 8)
        // iOS: a 200 m exit cushion, twice the 36.5 m position error, and a 1.4 m/s walker covering
        // 1.4 × (20 s stay + 10 s latency p90 + 10 s wake fix + 1 s) = 57.4 m: 330.4 m.
        #expect(rows.first?.contains(" 330 ") == true)
    }

    @Test func rejectsNonsense() {
        #expect(CapturingConsole.run(["presets", "--places", "0"]).code == 2)
        #expect(CapturingConsole.run(["presets", "--side-km", "nan"]).code == 2)
    }
}

@Suite struct SimulateCommandTests {
    @Test func smallRunReportsAndPasses() throws {
        let result = CapturingConsole.run([
            "simulate", "--walks", "3", "--places-count", "400", "--region-km", "6",
            "--length-km", "2-3", "--kind", "mixed", "--json", "--quiet",
        ])
        #expect(result.code == 0, "\(result.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        #expect(object["walks"] as? Int == 3)
        #expect(object["avoidable_misses"] as? Int == 0)
        #expect((object["km"] as? Double ?? 0) >= 6)
        #expect((object["reselections"] as? Int ?? 0) >= 3)
        #expect(object["place_slots"] as? Int == 17)
    }

    /// With --platform the same walks are scored for visits: on the ideal phone every visit is
    /// detected; an emulated phone reports the visit figures under the documented keys.
    @Test(arguments: ["ideal", "ios", "android"])
    func platformRunsReportVisits(platform: String) throws {
        let result = CapturingConsole.run([
            "simulate", "--walks", "3", "--places-count", "400", "--region-km", "6",
            "--length-km", "2-3", "--platform", platform, "--json", "--quiet",
        ])
        #expect(result.code == 0, "\(result.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        for key in [
            "platform", "strategy", "visits", "visits_detected", "recall", "recall_30s", "recall_120s", "false_entries",
            "wakeups_per_km", "registration_calls_per_km", "gnss_on_fraction", "visit_misses", "avoidable_visit_misses",
        ] {
            #expect(object[key] != nil, "\(key)")
        }
        #expect(object["platform"] as? String == platform)
        let visits = object["visits"] as? Int ?? 0
        #expect(visits > 0)
        if platform == "ideal" {
            #expect(object["visits_detected"] as? Int == visits)
            #expect(object["avoidable_visit_misses"] as? Int == 0)
        }
    }

    /// The emulated iPhone is the default; `--platform none` runs the planner's check alone.
    @Test func theDefaultPlatformIsIOSAndNoneSkipsTheReplay() throws {
        func run(_ extra: [String]) throws -> [String: Any] {
            let result = CapturingConsole.run(
                ["simulate", "--walks", "1", "--places-count", "400", "--region-km", "6", "--length-km", "2", "--json", "--quiet"] + extra)
            #expect(result.code == 0, "\(result.err)")
            return try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        }
        #expect(try run([])["platform"] as? String == "ios")
        let none = try run(["--platform", "none"])
        #expect(none["platform"] == nil && none["visits"] == nil)
        #expect(none["misses"] as? Int == 0)
    }

    /// `--min-recall-120` fails the run when rotate's measured recall of visits of at least 120 s
    /// is below it, and passes at the measured value.
    @Test func minimumRecallIsACheck() throws {
        let base = ["simulate", "--set", "mixed", "--walks", "3", "--length-km", "3", "--quiet", "--seed", "4"]
        let measured = CapturingConsole.run(base + ["--json"])
        #expect(measured.code == 0, "\(measured.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(measured.out.utf8)) as? [String: Any])
        let recall = try #require(object["recall_120s"] as? Double)
        try #require(recall < 1)
        // The JSON rounds to 5 decimals: one unit of the last below the value printed passes.
        let passing = CapturingConsole.run(base + ["--min-recall-120", "\(recall - 1e-5)"])
        #expect(passing.code == 0, "\(passing.err)")
        let failing = CapturingConsole.run(base + ["--min-recall-120", "\(recall + 0.001)"])
        #expect(failing.code == 1)
        #expect(failing.err.contains("below --min-recall-120"))
    }

    /// `--min-stop-recall-5` and `--max-false-visits` fail the run when rotate's measured stop
    /// recall falls below, or its false visits per 100 pass-bys rise above, and pass at the
    /// measured values.
    @Test func stopGoalsAreChecks() throws {
        // Low-power walks over isolated places: stops missed and false visits (nothing confirms).
        let base = [
            "simulate", "--kind", "errands", "--set", "uniform", "--travel", "walking", "--visit-budget", "low-power", "--walks", "6",
            "--quiet", "--seed", "8",
        ]
        let measured = CapturingConsole.run(base + ["--json"])
        #expect(measured.code == 0, "\(measured.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(measured.out.utf8)) as? [String: Any])
        let recall = try #require(object["stop_recall_5min"] as? Double)
        let falseVisits = try #require(object["false_visits_per_100_pass_bys"] as? Double)
        try #require(recall > 0 && recall < 1 && falseVisits > 0)
        let passing = CapturingConsole.run(
            base + ["--min-stop-recall-5", "\(recall - 1e-5)", "--max-false-visits", "\(falseVisits + 0.01)"])
        #expect(passing.code == 0, "\(passing.err)")
        let lowRecall = CapturingConsole.run(base + ["--min-stop-recall-5", "\(recall + 0.001)"])
        #expect(lowRecall.code == 1)
        #expect(lowRecall.err.contains("below --min-stop-recall-5"))
        let manyFalse = CapturingConsole.run(base + ["--max-false-visits", "\(falseVisits - 0.01)"])
        #expect(manyFalse.code == 1)
        #expect(manyFalse.err.contains("above --max-false-visits"))
        // A budget in milliwatts below what the presets spend costs less battery.
        let balanced = CapturingConsole.run(base.map { $0 == "low-power" ? "balanced" : $0 } + ["--json"])
        let budgeted = CapturingConsole.run(base.map { $0 == "low-power" ? "2" : $0 } + ["--json"])
        #expect(balanced.code == 0 && budgeted.code == 0, "\(budgeted.err)")
        func energy(_ out: String) throws -> Double {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
            return try #require(object["energy_mwh_per_hour"] as? Double)
        }
        #expect(try energy(budgeted.out) < energy(balanced.out))
        // Without stops there is nothing to check: a usage error.
        #expect(CapturingConsole.run(["simulate", "--kind", "walk", "--walks", "1", "--min-stop-recall-5", "0.5"]).code == 2)
    }

    /// `--expect-reference-misses` passes where the reference designs enter unmonitored fences
    /// (clustered places) and fails where they cannot (a catalog that fits in the region limit).
    @Test func referenceDesignsMustShowTheirKnownMisses() {
        let check = ["--compare", "--expect-reference-misses", "--quiet", "--walks", "3", "--length-km", "3"]
        let clustered = CapturingConsole.run(["simulate", "--set", "clustered"] + check)
        #expect(clustered.code == 0, "\(clustered.err)")
        let tiny = CapturingConsole.run(["simulate", "--places-count", "8", "--region-km", "1"] + check)
        #expect(tiny.code == 1)
        #expect(tiny.err.contains("its known flaw did not show"))
    }

    /// --compare replays rotate and every reference design on the same walks: after the oracle's
    /// object, one JSON line per strategy, in the documented order, over the same kilometers;
    /// --bound appends every-place, which registers past iOS's limit and so enters no visit
    /// unmonitored.
    @Test(arguments: [false, true])
    func compareReplaysEveryStrategyOnTheSameWalks(bound: Bool) throws {
        let result = CapturingConsole.run(
            [
                "simulate", "--walks", "2", "--places-count", "400", "--region-km", "6",
                "--length-km", "2-3", "--platform", "ios", "--compare", "--json", "--quiet",
            ] + (bound ? ["--bound"] : []))
        #expect(result.code == 0, "\(result.err)")
        let lines = result.out.split(separator: "\n").map(String.init)
        let expected =
            ["rotate", "nearest19-floor50", "nearest18-significant-change", "fixed-trigger", "radar-responsive", "stationary-geofence"]
            + (bound ? ["every-place"] : [])
        #expect(lines.count == 1 + expected.count)
        let rows = try lines.dropFirst().map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(rows.map { $0["strategy"] as? String } == expected)
        #expect(Set(rows.map { $0["km"] as? Double }).count == 1)
        #expect(Set(rows.map { $0["visits"] as? Int }).count == 1)
        for row in rows { #expect(row["misses"] != nil && row["avoidable_misses"] != nil) }
        if bound {
            #expect(rows.last?["misses"] as? Int == 0)
            #expect(rows.last?["rejected_registrations"] as? Int == 0)
        }
    }

    /// The emulator's uncertain parameters are options: a longer latency shows in the latency
    /// reported (for a design that hears only the platform's entries), and a tiny cushion changes
    /// rotate's platform margin.
    @Test func emulatorParametersAreOptions() throws {
        func run(_ extra: [String], strategy: String = "nearest18-significant-change") throws -> [String: Any] {
            let result = CapturingConsole.run(
                [
                    "simulate", "--walks", "2", "--places-count", "400", "--region-km", "6", "--length-km", "2-3",
                    "--platform", "ios", "--json", "--quiet", "--strategy", strategy,
                ] + extra)
            #expect(result.code == 0, "\(result.err)")
            return try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        }
        let base = try run([])
        let slow = try run(["--latency-median", "100", "--latency-p90", "110", "--latency-max", "120"])
        #expect((slow["latency_median_s"] as? Double ?? 0) >= (base["latency_median_s"] as? Double ?? 0) + 60)
        let margin = try run(["--cushion", "10"], strategy: "rotate")["platform_margin_m"] as? Double ?? 0
        let baseMargin = try run([], strategy: "rotate")["platform_margin_m"] as? Double ?? 0
        #expect(margin < baseMargin - 150)
    }

    /// `--stops` labels a recorded walk: the stop counts are the file's rows of at least 2 and 5
    /// minutes at places of the catalog; a row naming no place, or unreadable, is reported with
    /// its line and not counted.
    @Test func labelledStopsAreTheStopsCounted() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rotate-stops-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let labels = directory.appendingPathComponent("stops.csv").path
        let rows = ["id,arrival,departure", "shop001,100,400", "shop002,1000,1200", "shop003,2000,2060", "nowhere,10,500", "shop004,x,3"]
        try (rows.joined(separator: "\n") + "\n").write(toFile: labels, atomically: true, encoding: .utf8)
        let result = CapturingConsole.run([
            "simulate", "--places", DatasetPaths.path("shops-500.csv"), "--walk", DatasetPaths.path("walk-6km.csv"),
            "--stops", labels, "--platform", "ios", "--json", "--quiet",
        ])
        #expect(result.code == 0, "\(result.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        #expect(object["stops_2min"] as? Int == 2)
        #expect(object["stops_5min"] as? Int == 1)
        #expect(result.err.contains("stops.csv:5: no place 'nowhere'"))
        #expect(result.err.contains("stops.csv:6: arrival is neither seconds nor an ISO 8601 time"))
        #expect(result.err.contains("5 stops read, 3 accepted, 2 rejected"))
        let noWalk = CapturingConsole.run(["simulate", "--stops", labels])
        #expect(noWalk.code == 2)
    }

    /// `--html FILE` writes the replay of the one strategy on the phone over a recorded walk:
    /// every miss marked says why (one of the oracles' reasons), the table names the file, and
    /// without a recorded walk, without a phone or with `--compare` it is a usage error.
    @Test func htmlReplaysOneStrategyOnAPhone() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rotate-html-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let page = directory.appendingPathComponent("replay.html").path
        let walk = ["--places", DatasetPaths.path("shops-500.csv"), "--walk", DatasetPaths.path("walk-6km.csv")]
        let result = CapturingConsole.run(
            ["simulate"] + walk + ["--platform", "android", "--strategy", "nearest19-floor50", "--html", page])
        #expect(result.code == 0, "\(result.err)")
        #expect(result.out.contains("replay     \(page)"))
        let text = try String(contentsOfFile: page, encoding: .utf8)
        #expect(text.contains("<title>nearest19-floor50 on Android: "))
        let block = try #require(text.components(separatedBy: "id=\"replay-data\">").last?.components(separatedBy: "</script>").first)
        let data = try #require(try JSONSerialization.jsonObject(with: Data(block.utf8)) as? [String: Any])
        let marks = try #require(data["marks"] as? [[Any]])
        let misses = marks.filter { $0[3] as? String == "miss" }
        #expect(!misses.isEmpty)
        let reasons = ["not monitored", "latency: ", "below the platform's resolution", "the phone's entry came in time", "reported at "]
        for miss in misses {
            let detail = miss[5] as? String ?? ""
            #expect(reasons.contains { detail.contains(": " + $0) }, "\(detail)")
        }
        #expect((data["registrations"] as? [Any])?.isEmpty == false)
        for wrong in [
            ["simulate", "--html", page], ["simulate"] + walk + ["--platform", "none", "--html", page],
            ["simulate"] + walk + ["--compare", "--html", page],
        ] {
            #expect(CapturingConsole.run(wrong).code == 2, "\(wrong)")
        }
    }

    /// Places smaller than the phone resolves are registered by approach regions: the page names
    /// each on its fence and draws it over the same spans, exactly for the places smaller than
    /// the approach radius. At the slider's end the fences shown as monitored are those the
    /// registration log leaves monitored.
    @Test func htmlDrawsApproachRegionsAndTheLastMoment() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rotate-approach-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // The bundled shops, every other one shrunk to 40 m (below iOS's 100 m).
        var rows = try String(contentsOfFile: DatasetPaths.path("shops-500.csv"), encoding: .utf8).split(separator: "\n").map(String.init)
        var small = Set<String>()
        for i in rows.indices.dropFirst() where i % 2 == 0 {
            var fields = rows[i].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            fields[fields.count - 1] = "40"
            small.insert(fields[0])
            rows[i] = fields.joined(separator: ",")
        }
        let places = directory.appendingPathComponent("shops.csv").path
        try (rows.joined(separator: "\n") + "\n").write(toFile: places, atomically: true, encoding: .utf8)
        let page = directory.appendingPathComponent("replay.html").path
        let result = CapturingConsole.run(
            ["simulate", "--places", places, "--walk", DatasetPaths.path("walk-6km.csv"), "--platform", "ios", "--html", page])
        #expect(result.code == 0, "\(result.err)")
        let text = try String(contentsOfFile: page, encoding: .utf8)

        func attributes(_ element: String) -> [String: String] {
            var out: [String: String] = [:]
            for part in element.components(separatedBy: "\" ").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                let pair = part.components(separatedBy: "=\"")
                if pair.count == 2 { out[pair[0]] = pair[1].replacingOccurrences(of: "\"", with: "") }
            }
            return out
        }
        func elements(_ kind: String) -> [[String: String]] {
            text.components(separatedBy: "class=\"\(kind)\" ").dropFirst().map { attributes(String($0.prefix { $0 != ">" })) }
        }
        let fences = elements("fence"), approaches = elements("approach")
        var approachOn: [String: String] = [:]
        for approach in approaches { approachOn[approach["data-id"] ?? ""] = approach["data-on"] }
        var registered = 0
        for fence in fences {
            let id = try #require(fence["data-id"])
            let on = fence["data-on"] ?? ""
            if small.contains(id), !on.isEmpty {
                registered += 1
                #expect(fence["data-registered"] == "circle of 100 m", "\(id)")
                #expect(approachOn[id] == on, "\(id)")
            } else if !small.contains(id) {
                #expect(fence["data-registered"] == nil && approachOn[id] == nil, "\(id): a 100 m fence is its own region")
            }
        }
        #expect(registered > 0)
        // A miss below resolution at a small place speaks of the circle registered, not the fence.
        #expect(!text.contains("(fence 40 m, the platform resolves"))

        // The last moment: the log's calls added up against the fences' spans at the end.
        let block = try #require(text.components(separatedBy: "id=\"replay-data\">").last?.components(separatedBy: "</script>").first)
        let data = try #require(try JSONSerialization.jsonObject(with: Data(block.utf8)) as? [String: Any])
        let duration = try #require(data["duration"] as? Double)
        var monitored = Set<String>()
        for call in try #require(data["registrations"] as? [[Any]]) {
            let id = call[1] as? String ?? "", action = call[2] as? String, outcome = call[3] as? String
            if action == "reboot" {
                monitored.removeAll()
            } else if action == "add" && outcome == "monitored" {
                monitored.insert(id)
            } else {
                monitored.remove(id)
            }
        }
        let drawn = Set(fences.compactMap { $0["data-id"] })
        let shownAtEnd = Set(
            fences.filter { fence in
                (fence["data-on"] ?? "").split(separator: ";").contains { span in
                    let bounds = span.split(separator: " ").compactMap { Double($0) }
                    return bounds.count == 2 && bounds[0] <= duration && duration < bounds[1]
                }
            }.compactMap { $0["data-id"] })
        #expect(!shownAtEnd.isEmpty)
        #expect(shownAtEnd == monitored.intersection(drawn))
    }

    /// Errand trips report the stop oracle's keys, and per kind of place stops that add up to
    /// the stops counted.
    @Test func errandsReportStopsByKind() throws {
        let result = CapturingConsole.run(["simulate", "--kind", "errands", "--walks", "6", "--json", "--quiet", "--seed", "2"])
        #expect(result.code == 0, "\(result.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        let stops = try #require(object["stops_2min"] as? Int)
        let byKind = try #require(object["stops_by_kind"] as? [String: [String: Any]])
        #expect(stops > 0)
        #expect(byKind.values.compactMap { $0["stops"] as? Int }.reduce(0, +) == stops)
        #expect(Set(byKind.keys).isSubset(of: StopKind.allCases.map(\.rawValue)))
        for key in ["stop_recall_2min", "stop_recall_5min", "false_visits", "pass_bys", "energy_mwh_per_hour"] {
            #expect(object[key] != nil, "\(key)")
        }
        // The energy's parts, priced at the iPhone's figures (PlatformProfile.Energy.iOS), add up
        // to the whole: GNSS, network positions with their wake-ups, event wake-ups, monitoring.
        let energy = PlatformProfile.Energy.iOS
        func number(_ key: String) throws -> Double { try #require(object[key] as? Double, "\(key)") }
        let parts =
            try number("gnss_mwh_per_hour")
            + (try number("network_fixes_per_hour") * (energy.networkFixJoules + energy.wakeupJoules)
                + number("event_wakeups_per_hour") * energy.wakeupJoules + number("server_requests_per_hour") * energy.serverRequestJoules)
            / 3.6 + energy.monitoringMilliwatts
        #expect(abs(parts - (try number("energy_mwh_per_hour"))) <= 0.2, "\(parts)")
    }

    @Test func anAvoidableMissExitsOne() {
        // Driving with no margin: the oracle finds misses and the command fails.
        let result = CapturingConsole.run([
            "simulate", "--walks", "2", "--places-count", "3000", "--region-km", "5",
            "--length-km", "4", "--kind", "drive", "--margin", "0", "--noise", "0", "--quiet",
        ])
        #expect(result.code == 1, "\(result.out)")
        #expect(result.err.contains("avoidable misses"))
    }

    @Test(arguments: [
        ["--kind", "hover"], ["--length-km", "5-2"], ["--length-km", "x"], ["--set", "sparse"],
        ["--limit", "2", "--headroom", "1"], ["--dropout", "1"], ["--platform", "symbian"], ["--platform", "none", "--compare"],
        ["--platform", "none", "--strategy", "rotate"], ["--platform", "ios", "--strategy", "nearest5"],
        ["--platform", "none", "--visit-budget", "low-power"], ["--visit-budget", "frugal"], ["--visit-budget", "0"],
        ["--visit-budget", "-5"], ["--visit-budget", "5000"], ["--visit-budget", "nan"],
        ["--min-recall-120", "2"], ["--expect-reference-misses"], ["--platform", "none", "--min-recall-120", "0.5"],
        ["--strategy", "fixed-trigger", "--min-recall-120", "0.5"], ["--platform", "ios", "--bound"],
        ["--platform", "ios", "--cushion", "200-60"], ["--platform", "ios", "--cushion", "x"],
        ["--platform", "ios", "--latency-median", "100", "--latency-p90", "50"], ["--platform", "ios", "--os-noise", "-1"],
    ])
    func badOptionsAreUsageErrors(extra: [String]) {
        #expect(CapturingConsole.run(["simulate", "--walks", "1"] + extra).code == 2)
    }
}

@Suite struct RuleCommandsTests {
    @Test func probabilityPrintsTheRiceCDF() throws {
        let text = CapturingConsole.run(["probability", "--distance", "100", "--radius", "100", "--sigma", "20"])
        #expect(text.code == 0)
        #expect(text.out == "0.459902")
        let json = CapturingConsole.run(["probability", "--distance", "674", "--radius", "100", "--sigma", "5", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        #expect(object["p_inside"] as? Double == 0)
        #expect(CapturingConsole.run(["probability", "--distance", "1"]).code == 2)
        #expect(CapturingConsole.run(["probability", "--distance", "-1", "--radius", "1", "--sigma", "1"]).code == 2)
    }

    @Test func evaluatePrintsARowPerWalkAndRule() {
        let result = CapturingConsole.run(["evaluate", "--runs", "5", "--adaptive-dwell"])
        #expect(result.code == 0, "\(result.err)")
        let rows = result.out.split(separator: "\n")
        #expect(rows.filter { $0.hasPrefix("skirting") }.count == 4)
        #expect(rows.filter { $0.hasPrefix("crossing") }.count == 4)
        #expect(rows.filter { $0.hasPrefix("15.0 m/s") }.count == 2)
        #expect(rows.contains { $0.hasPrefix("crossing    confident") && $0.contains("5/5") })
        #expect(CapturingConsole.run(["evaluate", "--rule", "psychic"]).code == 2)
        // The former name of the flag still works for one release, and is not shown in help.
        #expect(CapturingConsole.run(["evaluate", "--runs", "5", "--exercise"]).out == result.out)
        #expect(CapturingConsole.run(["evaluate", "--runs", "5", "--exercise", "--adaptive-dwell"]).code == 2)
        let help = CapturingConsole.run(["evaluate", "--help"]).out
        #expect(help.contains("--adaptive-dwell") && !help.contains("--exercise"))
    }
}
