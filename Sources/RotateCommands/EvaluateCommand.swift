import FenceRules
import Geodesy
import RotateFormats
import RotateJSON
import WalkSimulator

/// `rotate evaluate`: fence decision rules over noisy walks past one fence.
public enum EvaluateCommand: Subcommand {
    public static let name = "evaluate"
    public static let abstract = "Evaluate the in-app fence rules (naive, confident, hysteresis, adaptive dwell) over noisy walks."
    public static let discussion = """
        For each walk, --runs seeded runs add Gaussian noise of --sigma per axis to a walk at
        --speed past a fence of --radius (fixes every --interval seconds, accuracy reported as sigma)
        and feed the same fixes to each rule. Prints the mean number of events (enter + exit) per
        run, the runs with exactly two, and the mean entry and exit latency against the true
        crossing, in fixes and in meters along the path (positive is late; only for walks that
        truly enter). Walks: skirting (95 m from the center of a 100 m fence, 420 m long),
        crossing (straight through the center), both, or a walk FILE (CSV or GPX; its positions are
        the true path; the fence is centered at --fence or at the walk's middle fix).
        --adaptive-dwell also compares adaptive dwell (20 m of movement or 3 fixes) with fixed dwell
        (3 fixes) on the crossing walk at 1.4 and 15 m/s. --still instead evaluates stillness rules
        (still once the fixes stay within a radius for a duration; "2x30s": a stay ends at two
        fixes beyond it 30 s apart, not at the first) over --runs errand trips on foot and by car
        (Wi-Fi fixes indoors, docs/design/stops.md; a fix every --interval seconds): the share of stops of at least 2
        and 5 minutes noticed during the stop, the latency after the arrival, the stills said
        while moving (per hour) and at decoy stops (bus stops, red lights, the shop next door).
        --attribution evaluates the posterior over the places near a stop ("none of them"
        included) from a 60 s burst of fixes a minute after the arrival: the share of stops at the
        right place (and at the resolvable places, whose fence is at least the fixes' reported
        accuracy), the true place among the candidates, decoys answered "none", and a
        reliability table (answers and the share right by the top answer's probability).
        """
    public static let options: [OptionSpec] = [
        OptionSpec("--rule", value: "naive|confident|hysteresis|adaptive|all", help: "Rules to evaluate.", default: "all"),
        OptionSpec("--walk", value: "skirting|crossing|both|FILE", help: "The walk.", default: "both"),
        OptionSpec("--runs", value: "N", help: "Runs per walk.", default: "100"),
        OptionSpec("--sigma", value: "M", help: "GPS noise per axis, meters.", default: "8"),
        OptionSpec("--speed", value: "M/S", help: "Walking speed (skirting and crossing walks).", default: "1.4"),
        OptionSpec("--interval", value: "S", help: "Seconds between fixes.", default: "1"),
        OptionSpec("--radius", value: "M", help: "Fence radius.", default: "100"),
        OptionSpec("--fence", value: "LAT,LON", help: "Fence center for a walk FILE.", computedDefault: "the walk's middle fix"),
        OptionSpec("--seed", value: "S", help: "Seed of the noise.", default: "1"),
        adaptiveDwell,
        .alias("--exercise", of: adaptiveDwell),
        OptionSpec("--still", help: "Evaluate stillness rules over --runs errand trips instead (radius x duration x anchor)."),
        OptionSpec("--attribution", help: "Evaluate stop attribution over --runs errand trips instead (right place, calibration)."),
    ]
    static let adaptiveDwell = OptionSpec("--adaptive-dwell", help: "Also compare fixed and adaptive dwell at 1.4 and 15 m/s.")

    public struct Options: Equatable, Sendable {
        var rules: [RuleEvaluation.Rule]
        /// The scenario every walk shares: runs, noise, speed, interval, radius and seed.
        var base: RuleEvaluation.Scenario
        /// `skirting`, `crossing`, `both`, or a walk file.
        var walk: String
        var fenceCenter: Coordinate?
        var adaptiveDwell: Bool
        var still = false
        var attribution = false
    }

    public static func parse(_ arguments: Arguments) throws(CommandError) -> Options {
        let ruleChoice = try arguments.choice("--rule", from: ["all"] + RuleEvaluation.Rule.allCases.map(\.rawValue))
        var base = RuleEvaluation.Scenario()
        base.runs = try arguments.int("--runs", in: 1...1_000_000)
        base.sigmaMeters = try arguments.double("--sigma", in: 0...10_000)
        base.speedMetersPerSecond = try arguments.double("--speed", in: 0.01...1_000)
        base.intervalSeconds = try arguments.double("--interval", in: 0.01...3_600)
        base.fence.radiusMeters = try arguments.double("--radius", in: 0.1...400_000)
        base.seed = try arguments.uint64("--seed")
        let walk = try arguments.text("--walk")
        // --fence places the fence for a walk file; the line walks ignore it.
        var fenceCenter: Coordinate?
        if let text = arguments.string("--fence"), !["skirting", "crossing", "both"].contains(walk) {
            fenceCenter = try GenerateCommand.coordinate(text, option: "--fence")
        }
        return Options(
            rules: RuleEvaluation.Rule(rawValue: ruleChoice).map { [$0] } ?? RuleEvaluation.Rule.allCases, base: base, walk: walk,
            fenceCenter: fenceCenter, adaptiveDwell: arguments.flag("--adaptive-dwell"), still: arguments.flag("--still"),
            attribution: arguments.flag("--attribution"))
    }

    /// The stillness rules compared: Radar's (70 m for 140 s from the first fix) among radii of
    /// 35–100 m and durations of 60–200 s, anchored on the first fix or on the mean of the fixes,
    /// each ended by the first fix beyond the radius; then 70 and 100 m from the first fix ended by
    /// two fixes beyond it 30 s apart (the event engine's stays).
    static let stillRules: [StillnessRule] =
        StillnessRule.Anchor.allCases.flatMap { anchor in
            [35.0, 50, 70, 100].flatMap { radius in
                [60.0, 100, 140, 200].map { StillnessRule(radiusMeters: radius, durationSeconds: $0, anchor: anchor) }
            }
        }
        + [70.0, 100].flatMap { radius in
            [60.0, 100, 140, 200].map {
                StillnessRule(radiusMeters: radius, durationSeconds: $0, anchor: .firstFix, leaving: .twoFixesThirtySeconds)
            }
        }

    /// `--still`: the rules over errand trips on foot and by car, one table each.
    static func runStill(_ options: Options, console: Console) throws(CommandError) {
        let interval = options.base.intervalSeconds
        console.out(
            "rotate evaluate --still: \(options.base.runs) errand trips each way, clustered places, a fix every "
                + "\(TextFormat.fixed(interval, decimals: 0)) s at most, seed \(options.base.seed)")
        for (travel, drivingShare) in [("walking", 0.0), ("driving", 1.0)] {
            var scenario = Simulation.Scenario()
            scenario.placeSet = .clustered
            scenario.walkKind = .errands
            scenario.seed = options.base.seed
            scenario.errands.drivingShare = drivingShare
            let simulation: Simulation
            do {
                simulation = try Simulation(scenario)
            } catch {
                throw .failure("cannot build the place set: \(error)")
            }
            let results = StillRuleEvaluation.run(simulation, trips: options.base.runs, rules: stillRules, intervalSeconds: interval)
            console.out("")
            console.out("\(travel): rule                  stops>=2min  stops>=5min  latency median, p90   false stills/h  decoy stills")
            for r in results { console.out(stillRow(r)) }
        }
    }

    /// `--attribution`: the posterior's answers over errand trips, by place set and travel.
    static func runAttribution(_ options: Options, console: Console) throws(CommandError) {
        console.out("rotate evaluate --attribution: \(options.base.runs) errand trips each, seed \(options.base.seed)")
        console.out(
            "set        travel   stops  right    resolvable: n, right  among candidates  decoys  none     "
                + AttributionEvaluation.Result.binLabels.map {
                    $0 + ": n, right"
                }.joined(separator: "   "))
        for set in [PlaceSetKind.uniform, .clustered, .dense] {
            for (travel, drivingShare) in [("walking", 0.0), ("driving", 1.0)] {
                var scenario = Simulation.Scenario()
                scenario.placeSet = set
                scenario.walkKind = .errands
                scenario.seed = options.base.seed
                scenario.errands.drivingShare = drivingShare
                let simulation: Simulation
                do {
                    simulation = try Simulation(scenario)
                } catch {
                    throw .failure("cannot build the place set: \(error)")
                }
                let r = AttributionEvaluation.run(simulation, trips: options.base.runs)
                console.out(attributionRow(set.rawValue, travel, r))
            }
        }
    }

    static func attributionRow(_ set: String, _ travel: String, _ r: AttributionEvaluation.Result) -> String {
        func pad(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(1, n - s.count)) }
        func share(_ part: Int, _ whole: Int) -> String {
            whole > 0 ? TextFormat.fixed(100 * Double(part) / Double(whole), decimals: 1) + " %" : "-"
        }
        let bins = r.bins.map { "\($0.answers), \(share($0.right, $0.answers))" }
        return pad(set, 11) + pad(travel, 9) + pad("\(r.stops)", 7) + pad(share(r.right, r.stops), 9)
            + pad("\(r.resolvableStops), \(share(r.resolvableRight, r.resolvableStops))", 22) + pad(share(r.amongCandidates, r.stops), 18)
            + pad("\(r.decoys)", 8) + pad(share(r.decoysRight, r.decoys), 9)
            + bins.map { pad($0, 19) }.joined()
    }

    static func stillRow(_ r: StillRuleEvaluation.Result) -> String {
        func pad(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(1, n - s.count)) }
        func share(_ value: Double?) -> String { value.map { TextFormat.fixed(100 * $0, decimals: 1) + " %" } ?? "-" }
        func seconds(_ value: Double?) -> String { value.map { TextFormat.fixed($0, decimals: 0) } ?? "-" }
        let leaving = r.rule.leaving == .firstFixBeyond ? "" : " 2x30s"
        let name = "\(Int(r.rule.radiusMeters)) m \(Int(r.rule.durationSeconds)) s \(r.rule.anchor.rawValue)\(leaving)"
        return "  " + pad(name, 28) + pad(share(r.recall2), 13) + pad(share(r.recall5), 13)
            + pad("\(seconds(r.latencySeconds(quantile: 0.5))), \(seconds(r.latencySeconds(quantile: 0.9))) s", 22)
            + pad(TextFormat.fixed(r.falseStillsPerHour, decimals: 2), 16) + "\(r.decoyStills)"
    }

    public static func run(_ options: Options, console: Console) throws(CommandError) {
        if options.still { return try runStill(options, console: console) }
        if options.attribution { return try runAttribution(options, console: console) }
        let base = options.base, rules = options.rules
        var walks: [(String, RuleEvaluation.Scenario)] = []
        switch options.walk {
        case "skirting", "crossing", "both":
            // The line walks scale with the radius: skirting passes at 95 % of it.
            for (name, offset) in [("skirting", 0.95 * base.fence.radiusMeters), ("crossing", 0.0)]
            where options.walk == "both" || options.walk == name {
                var scenario = base
                scenario.path = .line(offsetMeters: offset)
                walks.append((name, scenario))
            }
        default:
            let walk = try Inputs.walk(options.walk, strict: false, console: console)
            var scenario = base
            let points = walk.fixes.map(\.coordinate)
            scenario.path = .track(points)
            scenario.fence.center = options.fenceCenter ?? points[points.count / 2]
            walks.append((options.walk, scenario))
        }

        console.out(
            "rotate evaluate: \(base.runs) runs, sigma \(TextFormat.fixed(base.sigmaMeters, decimals: 1)) m per axis, "
                + "\(TextFormat.fixed(base.speedMetersPerSecond, decimals: 1)) m/s, a fix every \(TextFormat.fixed(base.intervalSeconds, decimals: 1)) s, "
                + "fence radius \(TextFormat.fixed(base.fence.radiusMeters, decimals: 0)) m, seed \(base.seed)")
        console.out("walk        rule         events/run  exactly 2  entered  entry late: fixes, m    exit late: fixes, m")
        for (name, scenario) in walks {
            for result in RuleEvaluation.run(scenario, rules: rules) { console.out(row(name, result)) }
        }
        if options.adaptiveDwell {
            console.out("")
            console.out("adaptive dwell (20 m or 3 fixes) against fixed dwell (3 fixes) on the crossing walk:")
            console.out("walk        rule         events/run  exactly 2  entered  entry late: fixes, m    exit late: fixes, m")
            for speed in [1.4, 15.0] {
                var scenario = base
                scenario.path = .crossing
                scenario.speedMetersPerSecond = speed
                for result in RuleEvaluation.run(scenario, rules: [.confident, .adaptive]) {
                    console.out(row("\(TextFormat.fixed(speed, decimals: 1)) m/s", result))
                }
            }
        }
    }

    static func row(_ walk: String, _ r: RuleEvaluation.Result) -> String {
        func pad(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(1, n - s.count)) }
        func latency(_ fixes: Double?, _ meters: Double?) -> String {
            guard let fixes, let meters else { return "-" }
            return "\(TextFormat.fixed(fixes, decimals: 2)), \(TextFormat.fixed(meters, decimals: 1))"
        }
        return pad(walk, 12) + pad(r.rule.rawValue, 13) + pad(TextFormat.fixed(r.meanTransitions, decimals: 2), 12)
            + pad("\(r.runsWithExactlyTwo)/\(r.runs)", 11) + pad("\(r.runsEntered)", 9)
            + pad(latency(r.entryLatencyFixes, r.entryLatencyMeters), 24) + latency(r.exitLatencyFixes, r.exitLatencyMeters)
    }
}
