import BenchmarkKit
import EventEngine
import FencePlanner
import Geodesy
import PlatformEmulator
import PlatformFacts
import RotateFormats
import RotateJSON
import WalkSimulator

/// `rotate simulate`: replay many seeded walks through the planner and the missed-fence oracle.
public enum SimulateCommand: Subcommand {
    public static let name = "simulate"
    public static let abstract = "Replay seeded walks through the planner and count missed fences (exit 1 on an avoidable miss)."
    public static let discussion = """
        Builds a synthetic place set in a square region, generates --walks seeded walks of the given
        kind (places are the waypoints, so walks pass where places are), feeds each walk's noisy
        fixes to a FenceRotator and checks the true path, densified to 1 m, against every fence.
        The margin defaults to max speed x (longest fix gap + --delay) + 5 x --noise (walking tops
        out at 1.8 m/s, driving at 30 m/s). With --places FILE the places come from a CSV; with
        --walk FILE one recorded walk (CSV or GPX, its positions taken as the true path) is replayed,
        with a margin of its longest step plus --delay times its fastest speed. A miss is avoidable when the true point was inside no
        more fences than there are place slots and the planner had not declared the selection
        saturated; the command exits 1 if it finds one, or an unavoidable miss outside a saturated
        state. The same walks are then replayed through an emulated phone (--platform, default ios;
        ideal: a fixed --delay; ios, android: the platform's cushion, stay, latency, noise and
        limits, docs/design/emulators.md; none: skip) and the entries it would report are scored
        against the visits on the true path. Those figures are reported; --min-recall-120,
        --min-stop-recall-5, --max-false-visits and --expect-reference-misses turn them into
        checks (exit 1). Strategies: rotate (its event engine);
        the reference designs nearest19-floor50, nearest18-significant-change and fixed-trigger
        (docs/design/simulator.md), radar-responsive and stationary-geofence (modelled on Radar's and
        transistorsoft's SDKs, docs/design/stops.md); every-place, the platform's own bound (every
        place near the walk registered, past the limit). Walk kinds: walk, drive, mixed (half each),
        straight, back-and-forth (grazing a fence edge), commute, dateline (region on the 180th
        meridian), pole (over the north pole), diagonal (a straight line through the region's center
        at 45 degrees), errands (home to 1-4 stores and back with store stops, scored by the stop
        oracle too; --stops FILE labels a recorded --walk). Every replay reports its energy per hour.
        --html FILE (with --walk) writes the replay of one strategy on the phone to watch in a
        browser: what the phone monitored, its events and their delay, the app's fixes, entries
        and visits, and each miss with its reason (docs/formats.md, "HTML replay").
        """
    public static let options: [OptionSpec] = [
        OptionSpec("--set", value: "uniform|clustered|dense|mixed", help: "Synthetic place set.", default: "uniform"),
        OptionSpec("--places-count", value: "N", help: "Places in the set.", default: "2000"),
        OptionSpec("--region-km", value: "KM", help: "Side of the square region.", default: "30"),
        OptionSpec("--walks", value: "N", help: "Walks to replay.", default: "100"),
        OptionSpec("--kind", value: "KIND", help: "Walk kind (see below).", default: "walk"),
        OptionSpec("--length-km", value: "MIN-MAX", help: "Walk length in km, one value or a range.", default: "5-50"),
        OptionSpec("--speed", value: "M/S", help: "One speed for every walk.", computedDefault: "1.0-1.8 walking, 15-30 driving"),
        OptionSpec("--interval", value: "S", help: "Seconds between fixes.", default: "1"),
        OptionSpec("--noise", value: "M", help: "GPS noise per axis, meters (also the reported accuracy).", default: "5"),
        OptionSpec("--dropout", value: "P", help: "Probability a fix is dropped (at most 3 in a row).", default: "0"),
        OptionSpec("--indoor-share", value: "P", help: "With --kind errands: share of stops spent indoors (Wi-Fi fixes).", default: "0.8"),
        OptionSpec(
            "--recording-quirks",
            help:
                "With --kind errands: trips with real days' quirks, each with chance 0.3: a phone silent indoors at a stop, a long stay wandering within 100 m, a stop next door to the last (100-200 m), a minute lingering in a fence on foot."
        ),
        OptionSpec(
            "--travel", value: "walking|driving|both", help: "With --kind errands: how trips travel (both: half each).", default: "both"),
        OptionSpec("--delay", value: "S", help: "Platform delay reporting a refresh exit, seconds.", default: "0"),
        OptionSpec(
            "--limit", value: "N",
            help: "Regions the platform allows (on --platform ios or android, the replay takes the platform's own limit unless given).",
            default: "20"),
        OptionSpec("--headroom", value: "N", help: "Slots left to the host app.", default: "2"),
        OptionSpec("--stickiness", value: "M", help: "Incumbent advantage, meters.", default: "0"),
        OptionSpec("--margin", value: "M", help: "Override the derived margin, meters."),
        OptionSpec("--seed", value: "S", help: "Seed of places and walks.", default: "1"),
        OptionSpec("--places", value: "FILE", help: "Use a places CSV instead of a synthetic set (with --radius, --strict)."),
        OptionSpec("--radius", value: "M", help: "Fence radius for --places rows without one.", default: "100"),
        OptionSpec("--strict", help: "Fail on the first bad row of --places or --walk."),
        OptionSpec("--walk", value: "FILE", help: "Replay this walk (CSV or GPX) once instead of generated walks."),
        OptionSpec("--gap", value: "S", help: "With --walk: fixes more than S seconds apart are a recording gap.", default: "120"),
        OptionSpec(
            "--gap-stay", value: "M",
            help:
                "With --walk: a recording gap whose ends are within M meters is a stay indoors, where a phone asked gives Wi-Fi positions (0: no position in any gap).",
            default: "100"),
        OptionSpec(
            "--stops", value: "FILE",
            help:
                "With --walk and a platform: the walk's true stops (CSV: id,arrival,departure; times as the walk's t writes them, put on the walk's clock), scored by the stop oracle."
        ),
        OptionSpec(
            "--platform", value: "none|ideal|ios|android",
            help:
                "Also replay the walks through an emulated phone and score the visits the app would hear of (recall, latency, costs); none: only the planner's check.",
            default: "ios"),
        OptionSpec(
            "--strategy", value: "NAME", help: "With --platform: what the app monitors (rotate or a reference design, below).",
            default: "rotate"),
        OptionSpec(
            "--visit-budget", value: VisitBudgetOption.valueName,
            help:
                "With --platform: rotate's battery budget for store visits: a stop-first preset (low-power, balanced, responsive), passages (GNSS to enter every fence passed), or the average mW its own location may cost (passages, giving up goals as the budget runs short).",
            default: "balanced"),
        OptionSpec(
            "--approach", value: "M",
            help:
                "With --platform: rotate registers places smaller than M meters by a circle of M around them (an approach region the platform resolves), confirming and attributing the stop in-app; 0: every place by its own fence.",
            computedDefault: "the platform's smallest reliable region (ios, android: 100; ideal: 0)"),
        OptionSpec(
            "--footprint-cushion", value: "M",
            help:
                "With --platform: rotate registers each polygon footprint by its enclosing circle widened by M meters (and at least --approach), so the platform notices the approach before the footprint; in-app fixes decide the visit.",
            computedDefault: "the platform's least exit cushion (ios: 60, android: 21; ideal: 0)"),
        OptionSpec(
            "--compare", help: "With --platform: replay rotate and every reference design on the same walks, one row (or JSON line) each."),
        OptionSpec(
            "--bound",
            help:
                "With --compare: also replay every-place, the platform itself with every place near the walk registered (no limit): what any design hearing only the platform's events could detect."
        ),
        OptionSpec(
            "--cushion", value: "MIN-MAX", help: "With --platform ios|android: the exit cushion range, meters.",
            computedDefault: "the platform's"),
        OptionSpec(
            "--latency-median", value: "S", help: "With --platform ios|android: delivery latency median, seconds.",
            computedDefault: "the platform's"),
        OptionSpec(
            "--latency-p90", value: "S", help: "With --platform ios|android: delivery latency 90th percentile, seconds.",
            computedDefault: "the platform's"),
        OptionSpec(
            "--latency-max", value: "S", help: "With --platform ios|android: longest delivery latency, seconds.",
            computedDefault: "the platform's"),
        OptionSpec(
            "--os-noise", value: "M", help: "With --platform ios|android: the OS's position error per axis, meters.",
            computedDefault: "the platform's"),
        OptionSpec(
            "--reboot-every", value: "S",
            help: "With --platform: the device reboots every S seconds (Android loses its registrations; the host registers again)."),
        OptionSpec(
            "--min-recall-120", value: "R",
            help: "Exit 1 if rotate's recall of visits of at least 120 s on the platform is below R (0...1)."),
        OptionSpec(
            "--min-stop-recall-5", value: "R",
            help: "With stops (errands, --stops): exit 1 if rotate's recall of stops of at least 5 minutes is below R (0...1)."),
        OptionSpec(
            "--max-false-visits", value: "F",
            help: "With stops (errands, --stops): exit 1 if rotate's false visits per 100 pass-bys exceed F."),
        OptionSpec(
            "--expect-reference-misses",
            help: "With --compare: exit 1 if a nearest-places reference design shows no visit entered while its fence was unmonitored."),
        OptionSpec(
            "--trips-out", value: "DIR",
            help:
                "With --kind errands and a platform: write the places, and each trip's fixes, true stops and rotate's visits, to DIR (for an outside stay detector)."
        ),
        OptionSpec(
            "--html", value: "FILE",
            help:
                "With --walk and a platform: also write a replay of the strategy on the phone to FILE, one self-contained HTML page with a time slider (open it in a browser)."
        ),
        OptionSpec("--json", help: "Print one JSON object instead of the table."),
        OptionSpec("--quiet", help: "No progress on stderr (shown only when stderr is a terminal)."),
    ]

    public struct Options: Equatable, Sendable {
        var scenario: Simulation.Scenario
        var places: Inputs.PlaceOptions?
        var walkPath: String?
        var gapSeconds: Double
        /// A recording gap whose ends are this close is a stay indoors (`Walk.fillingStillGaps`), meters; 0: none.
        var gapStayMeters: Double
        var stopsPath: String?
        var strict: Bool
        /// Nil with `--platform none`.
        var platform: Platform?
        var compare: Bool
        var minimumRecall120: Double?
        /// Rotate's stop checks: recall of stops of at least 5 minutes, false visits per 100
        /// pass-bys.
        var minimumStopRecall5: Double?
        var maximumFalseVisits: Double?
        var expectReferenceMisses: Bool
        /// `--html FILE`: the replay page of the one strategy on the recorded walk.
        var htmlPath: String?
        var tripsOut: String?
        var json: Bool
        var quiet: Bool

        /// The emulated phone the walks are replayed on, and what the app monitors there.
        struct Platform: Equatable, Sendable {
            /// `ideal`, `ios` or `android`.
            var name: String
            var strategies: [StrategyKind]
            var rebootEverySeconds: Double?
            /// On ios and android: the emulated phone with the options' overrides.
            var emulated: EmulatedPlatform?
            /// On ios and android: the region limit rotate takes there (`--limit`, else the
            /// platform's).
            var regionLimit: Int?
        }
    }

    public static func parse(_ arguments: Arguments) throws(CommandError) -> Options {
        let scenario = try scenario(arguments)
        let platformName = try arguments.choice("--platform", from: ["none", "ideal", "ios", "android"])
        let strategy = try arguments.choice("--strategy", of: StrategyKind.self)
        let compare = arguments.flag("--compare"), bound = arguments.flag("--bound")
        if bound, !compare {
            throw .usage("--bound needs --compare (alone: --strategy every-place)")
        }
        let strategies = compare ? StrategyKind.allCases.filter { $0 != .everyPlace || bound } : [strategy]
        let minimumRecall120 = try arguments.doubleIfGiven("--min-recall-120", in: 0...1)
        let minimumStopRecall5 = try arguments.doubleIfGiven("--min-stop-recall-5", in: 0...1)
        let maximumFalseVisits = try arguments.doubleIfGiven("--max-false-visits", in: 0...10_000)
        let expectReferenceMisses = arguments.flag("--expect-reference-misses")
        if platformName == "none",
            compare || arguments.isGiven("--strategy") || minimumRecall120 != nil || expectReferenceMisses
                || arguments.isGiven("--reboot-every") || arguments.isGiven("--visit-budget") || arguments.isGiven("--approach")
                || arguments.isGiven("--footprint-cushion")
        {
            throw .usage(
                "--strategy, --compare, --min-recall-120, --expect-reference-misses, --reboot-every, --visit-budget, --approach and --footprint-cushion need a platform (not --platform none)"
            )
        }
        if expectReferenceMisses, !compare {
            throw .usage("--expect-reference-misses needs --compare")
        }
        if minimumRecall120 != nil, !strategies.contains(.rotate) {
            throw .usage("--min-recall-120 checks rotate: use it with --strategy rotate or --compare")
        }
        if minimumStopRecall5 != nil || maximumFalseVisits != nil {
            guard platformName != "none", strategies.contains(.rotate) else {
                throw .usage(
                    "--min-stop-recall-5 and --max-false-visits check rotate on a platform: use them with --strategy rotate or --compare")
            }
            guard scenario.walkKind == .errands || arguments.isGiven("--stops") else {
                throw .usage("--min-stop-recall-5 and --max-false-visits need stops: --kind errands, or --walk with --stops")
            }
        }
        let tripsOut = arguments.string("--trips-out")
        if tripsOut != nil {
            guard scenario.walkKind == .errands, !arguments.isGiven("--walk"), platformName != "none" else {
                throw .usage("--trips-out writes generated errand trips: give --kind errands and a platform, without --walk")
            }
        }
        let htmlPath = arguments.string("--html")
        if htmlPath != nil {
            guard arguments.isGiven("--walk"), platformName != "none", !compare else {
                throw .usage(
                    "--html replays one strategy on a phone over a recorded walk: give --walk FILE and a platform, without --compare")
            }
        }
        let platform =
            platformName == "none" ? nil : try self.platform(platformName, strategies: strategies, scenario: scenario, arguments)
        return Options(
            scenario: scenario, places: try Inputs.PlaceOptions(arguments), walkPath: arguments.string("--walk"),
            gapSeconds: try arguments.double("--gap", in: 0.001...1e9),
            gapStayMeters: try arguments.double("--gap-stay", in: 0...100_000),
            stopsPath: try stopsPath(arguments, platformName: platformName),
            strict: arguments.flag("--strict"), platform: platform, compare: compare, minimumRecall120: minimumRecall120,
            minimumStopRecall5: minimumStopRecall5, maximumFalseVisits: maximumFalseVisits,
            expectReferenceMisses: expectReferenceMisses, htmlPath: htmlPath, tripsOut: tripsOut, json: arguments.flag("--json"),
            quiet: arguments.flag("--quiet"))
    }

    /// What the header calls `count` walks of `kind` (nil: mixed), with the count.
    static func walksText(_ count: Int, _ kind: WalkKind?) -> String {
        let one = count == 1
        let noun: String =
            switch kind {
            case nil: one ? "mixed walk" : "mixed walks"
            case .walk: one ? "walk on foot" : "walks on foot"
            case .drive: one ? "drive" : "drives"
            case .commute: one ? "commute" : "commutes"
            case .errands: one ? "errand trip" : "errand trips"
            case .dateLine: one ? "walk across the date line" : "walks across the date line"
            case .pole: one ? "walk around a pole" : "walks around a pole"
            case let kind?: "\(kind.rawValue) " + (one ? "walk" : "walks")
            }
        return "\(TextFormat.grouped(count)) \(noun)"
    }

    /// The place set, walks, fixes and planner options.
    /// `--stops FILE`, which labels a recorded walk replayed on a phone.
    static func stopsPath(_ arguments: Arguments, platformName: String) throws(CommandError) -> String? {
        guard let path = arguments.string("--stops") else { return nil }
        guard arguments.isGiven("--walk") else { throw .usage("--stops labels a recorded walk: give it with --walk FILE") }
        guard platformName != "none" else { throw .usage("--stops is scored on a phone: not with --platform none") }
        return path
    }

    static func scenario(_ arguments: Arguments) throws(CommandError) -> Simulation.Scenario {
        var scenario = Simulation.Scenario()
        scenario.placeSet = try arguments.choice("--set", of: PlaceSetKind.self)
        scenario.placeCount = try arguments.int("--places-count", in: 1...5_000_000)
        scenario.regionSideMeters = try arguments.double("--region-km", in: 0.1...5_000) * 1_000
        scenario.walks = try arguments.int("--walks", in: 1...1_000_000)
        let kind = try arguments.choice("--kind", from: ["mixed"] + WalkKind.allCases.map(\.rawValue))
        scenario.walkKind = WalkKind(rawValue: kind)
        scenario.lengthMeters = try lengthRange(arguments.text("--length-km"))
        scenario.fixes = FixModel(
            intervalSeconds: try arguments.double("--interval", in: 0.01...3_600),
            noiseSigmaMeters: try arguments.double("--noise", in: 0...1_000),
            dropoutProbability: try arguments.double("--dropout", in: 0...0.9))
        scenario.speedMetersPerSecond = try arguments.doubleIfGiven("--speed", in: 0.01...1_000)
        scenario.errands.indoorShare = try arguments.double("--indoor-share", in: 0...1)
        if arguments.flag("--recording-quirks") {
            guard scenario.walkKind == .errands else { throw .usage("--recording-quirks shapes errand trips: give --kind errands") }
            scenario.errands = scenario.errands.withRecordingQuirks()
        }
        switch try arguments.choice("--travel", from: ["walking", "driving", "both"]) {
        case "walking": scenario.errands.drivingShare = 0
        case "driving": scenario.errands.drivingShare = 1
        default: scenario.errands.drivingShare = 0.5
        }
        scenario.platformDelaySeconds = try arguments.double("--delay", in: 0...86_400)
        switch try VisitBudgetOption.parse(arguments) {
        case .preset(let preset): scenario.visitBudget = preset
        case .milliwatts(let milliwatts): scenario.visitBudgetMilliwatts = milliwatts
        }
        // By default the smallest region the phone resolves (both platforms' guides: 100 m); the
        // ideal phone resolves every fence.
        let phone = try arguments.choice("--platform", from: ["none", "ideal", "ios", "android"])
        let resolved: Double? =
            switch phone {
            case "ios": PlatformProfile.iOS.recommendedMinRadiusMeters
            case "android": PlatformProfile.android.recommendedMinRadiusMeters
            default: nil
            }
        let approach = try arguments.doubleIfGiven("--approach", in: 0...400_000) ?? resolved ?? 0
        scenario.approachRadiusMeters = approach > 0 ? approach : nil
        // By default the least distance past a boundary the phone needs before it decides a
        // crossing (its exit cushion's lower bound): the approach region of a footprint reaches
        // that far beyond the footprint's enclosing circle.
        let cushion: Double =
            switch phone {
            case "ios": PlatformProfile.iOS.crossings.exitCushionMeters.lowerBound
            case "android": PlatformProfile.android.crossings.exitCushionMeters.lowerBound
            default: 0
            }
        scenario.footprintCushionMeters = try arguments.doubleIfGiven("--footprint-cushion", in: 0...400_000) ?? cushion
        scenario.configuration.limit = try arguments.int("--limit", in: 1...10_000)
        scenario.configuration.headroom = try arguments.int("--headroom", in: 0...10_000)
        scenario.configuration.stickinessMeters = try arguments.double("--stickiness", in: 0...100_000)
        scenario.marginOverrideMeters = try arguments.doubleIfGiven("--margin", in: 0...1_000_000)
        scenario.seed = try arguments.uint64("--seed")
        return scenario
    }

    /// The emulated phone named `name` (not `none`), with the emulator options.
    static func platform(
        _ name: String, strategies: [StrategyKind], scenario: Simulation.Scenario, _ arguments: Arguments
    ) throws(CommandError) -> Options.Platform {
        var platform = Options.Platform(
            name: name, strategies: strategies, rebootEverySeconds: try arguments.doubleIfGiven("--reboot-every", in: 60...10_000_000))
        if name != "ideal" {
            var emulated: EmulatedPlatform = name == "android" ? .android : .iOS
            emulated.crossings = try crossings(emulated.crossings, arguments)
            platform.emulated = emulated
            platform.regionLimit = arguments.isGiven("--limit") ? scenario.configuration.limit : emulated.profile.regionLimit
        }
        return platform
    }

    public static func run(_ options: Options, console: Console) throws(CommandError) {
        let (simulation, fileWalk, walkFile) = try simulation(options, console: console)
        let platform = try platformRun(options.platform, simulation: simulation, fileWalk: fileWalk)
        let outcome = try replay(simulation, on: platform, fileWalk: fileWalk, walkFile: walkFile, options, console: console)
        if let htmlPath = options.htmlPath, let fileWalk, let platform, let name = options.platform?.name {
            try writeReplay(to: htmlPath, walk: fileWalk, outcome: outcome, platform: platform, platformName: name, options: options)
        }
        if let directory = options.tripsOut, let platform {
            try writeTrips(to: directory, simulation: simulation, platform: platform)
        }
        if options.json {
            printJSON(outcome, options, console: console)
        } else {
            printTable(outcome, options, console: console)
        }
        try check(outcome, options)
    }

    /// The simulation over the places file or the synthetic set, and the recorded walk if one
    /// is given (as a walk and as read, with its clock): one walk, its margin (unless
    /// `--margin`) from its own steps, synthetic places around it.
    static func simulation(_ options: Options, console: Console) throws(CommandError) -> (Simulation, Walk?, WalkFile?) {
        var scenario = options.scenario
        var catalog: PlaceCatalog?
        if let places = options.places {
            catalog = try Inputs.places(places, console: console).catalog
            if let catalog { scenario.placeCount = catalog.count }
        }
        var fileWalk: Walk?
        var walkFile: WalkFile?
        if let walkPath = options.walkPath {
            let file = try Inputs.walk(walkPath, strict: options.strict, console: console)
            let walk = Walk(recorded: file.fixes, gapSeconds: options.gapSeconds).fillingStillGaps(
                withinMeters: options.gapStayMeters, noise: scenario.errands.indoorNoise,
                accuracyMeters: scenario.errands.indoorAccuracyMeters, seed: scenario.seed)
            fileWalk = walk
            walkFile = file
            scenario.walks = 1
            if scenario.marginOverrideMeters == nil {
                scenario.marginOverrideMeters = walk.requiredMarginMeters(delaySeconds: scenario.platformDelaySeconds)
            }
            if catalog == nil {
                // Synthetic places around the recorded walk.
                scenario.regionCenter = walk.samples[walk.samples.count / 2].truePosition
            }
        }
        do {
            return (try Simulation(scenario, catalog: catalog), fileWalk, walkFile)
        } catch let error as ConfigurationError {
            throw .usage("\(error)")
        } catch {
            throw .failure("cannot build the place set: \(error)")
        }
    }

    /// The replay on the emulated phone, with rotate set as the platform's preset would set it:
    /// its region limit, and a margin covering what the platform does before the woken app has
    /// its fix. Nil without a platform.
    static func platformRun(
        _ platform: Options.Platform?, simulation: Simulation, fileWalk: Walk?
    ) throws(CommandError) -> Simulation.PlatformRun? {
        guard let platform else { return nil }
        let scenario = simulation.scenario
        var configuration = simulation.configuration
        var replay = PlatformReplay(platform: platform.emulated ?? .ideal(delaySeconds: scenario.platformDelaySeconds), seed: scenario.seed)
        if let seconds = platform.rebootEverySeconds { replay.rebootEverySeconds = seconds }
        if let emulated = platform.emulated, let limit = platform.regionLimit {
            configuration.limit = limit
            configuration.marginMeters =
                scenario.marginOverrideMeters
                ?? emulated.profile.refreshExitMarginMeters(
                    maxSpeedMetersPerSecond: fileWalk?.fastestSpeedMetersPerSecond ?? scenario.maxSpeedMetersPerSecond,
                    fixIntervalSeconds: scenario.fixes.maxGapSeconds) + scenario.fixes.noiseAllowanceMeters
        }
        replay.placeSlots = configuration.placeSlots
        return Simulation.PlatformRun(replay: replay, configuration: try Inputs.validated(configuration), strategies: platform.strategies)
    }

    /// What a run found: the planner check's report, and each strategy's on the platform.
    struct Outcome {
        var simulation: Simulation
        var report: OracleReport
        var platform: Simulation.PlatformRun?
        var platformReports: [(strategy: StrategyKind, report: PlatformReplayReport)]
        /// The recorded walk's labelled stops (`--stops`).
        var stops: [TrueStop]? = nil
    }

    /// The walks through the planner check and, with a platform, through the emulated phone.
    static func replay(
        _ simulation: Simulation, on platform: Simulation.PlatformRun?, fileWalk: Walk?, walkFile: WalkFile?, _ options: Options,
        console: Console
    ) throws(CommandError) -> Outcome {
        var outcome = Outcome(simulation: simulation, report: OracleReport(), platform: platform, platformReports: [])
        let showProgress = !options.quiet && console.errIsTerminal
        do {
            if let fileWalk {
                outcome.report = try simulation.replay(fileWalk)
                if let platform {
                    let stops = try options.stopsPath.map { (path: String) throws(CommandError) in
                        try Inputs.stops(path, walk: walkFile, catalog: simulation.catalog, strict: options.strict, console: console)
                    }
                    outcome.stops = stops
                    outcome.platformReports = try simulation.runOnPlatform(
                        platform.replay, configuration: platform.configuration, strategies: platform.strategies, walk: fileWalk,
                        stops: stops)
                }
            } else {
                (outcome.report, outcome.platformReports) = try simulation.run(onPlatform: platform) { done, total in
                    if showProgress && (done == total || done % max(1, total / 10) == 0) {
                        console.err("rotate simulate: \(done)/\(total) walks" + (options.platform.map { " (and on \($0.name))" } ?? ""))
                    }
                }
            }
        } catch let error as CommandError {
            throw error
        } catch {
            throw .failure("\(error)")
        }
        return outcome
    }

    /// The report as one JSON object, then with `--compare` one JSON line per strategy.
    static func printJSON(_ outcome: Outcome, _ options: Options, console: Console) {
        let report = outcome.report, scenario = outcome.simulation.scenario, config = outcome.simulation.configuration
        var object = JSONObject()
        object.add("walks", report.walks)
        object.add("km", report.kilometers, decimals: 3)
        object.add("fixes", report.fixes)
        object.add("reselections", report.reselections)
        object.add("reselections_per_km", report.perKilometer(report.reselections))
        object.add("starts", report.starts)
        object.add("stops", report.stops)
        object.add("churn_per_km", report.perKilometer(report.churn))
        object.add("misses", report.misses.count)
        object.add("avoidable_misses", report.avoidableMisses)
        object.add("unavoidable_misses", report.unavoidableMisses)
        object.add("saturated_within_slots_misses", report.saturatedButWithinSlots)
        object.add("degraded_share", report.degradedShare, decimals: 5)
        object.add("saturated_share", report.saturatedShare, decimals: 5)
        object.add("max_slots_used", report.maxSlotsUsed)
        object.add("place_slots", config.placeSlots)
        object.add("margin_m", config.marginMeters)
        object.add("set", scenario.placeSet.rawValue)
        object.add("places", scenario.placeCount)
        object.add("kind", scenario.walkKind?.rawValue ?? "mixed")
        object.add("stickiness_m", config.stickinessMeters)
        object.add("seed", scenario.seed)
        guard let name = options.platform?.name, let margin = outcome.platform?.configuration.marginMeters else {
            console.out(object.text)
            return
        }
        if !options.compare, let only = outcome.platformReports.first {
            // `misses` and `avoidable_misses` are the planner check's here; the visits' are
            // `visit_misses` and `avoidable_visit_misses`.
            addPlatformFigures(only, platform: name, margin: margin, missesKeyPrefix: "visit_", to: &object)
            object.add("not_exact_fraction", only.report.notExactFraction, decimals: 5)
            addResolvableFigures(only.report.stops, to: &object)
            addEnergyFigures(only.report, to: &object)
        }
        console.out(object.text)
        guard options.compare else { return }
        for entry in outcome.platformReports {
            var row = JSONObject()
            addPlatformFigures(entry, platform: name, margin: margin, to: &row)
            row.add("km", entry.report.kilometers, decimals: 3)
            row.add("walks", entry.report.walks)
            row.add("not_exact_fraction", entry.report.notExactFraction, decimals: 5)
            addResolvableFigures(entry.report.stops, to: &row)
            addEnergyFigures(entry.report, to: &row)
            console.out(row.text)
        }
    }

    /// The report as a table, then the platform's figures for each strategy.
    static func printTable(_ outcome: Outcome, _ options: Options, console: Console) {
        let report = outcome.report, scenario = outcome.simulation.scenario, config = outcome.simulation.configuration
        // Places from a file are described by the file, not by the generator's settings.
        let placesText =
            options.places.map { "\(TextFormat.grouped(outcome.simulation.catalog.count)) places of \($0.path), " }
            ?? "\(TextFormat.grouped(scenario.placeCount)) \(scenario.placeSet.rawValue) places in a \(TextFormat.fixed(scenario.regionSideMeters / 1_000, decimals: 1)) km square, "
        let walksText =
            options.walkPath.map { "the walk of \($0)" }
            ?? Self.walksText(report.walks, scenario.walkKind)
        console.out(
            "rotate simulate: \(walksText) over \(placesText)"
                + "limit \(config.limit), headroom \(config.headroom) (\(config.placeSlots) place slots), "
                + "margin \(TextFormat.fixed(config.marginMeters, decimals: 1)) m, stickiness \(TextFormat.fixed(config.stickinessMeters, decimals: 0)) m, seed \(scenario.seed)"
        )
        console.out("walks      \(TextFormat.grouped(report.walks))")
        console.out("distance   \(TextFormat.fixed(report.kilometers, decimals: 1)) km, \(TextFormat.grouped(report.fixes)) fixes")
        console.out(
            "reselect   \(TextFormat.grouped(report.reselections)) (\(TextFormat.fixed(report.perKilometer(report.reselections), decimals: 2)) per km)"
        )
        console.out(
            "churn      \(TextFormat.grouped(report.churn)) starts + stops (\(TextFormat.fixed(report.perKilometer(report.churn), decimals: 2)) per km)"
        )
        console.out(
            "misses     \(report.misses.count): \(report.avoidableMisses) avoidable, \(report.unavoidableMisses) unavoidable "
                + "(\(report.saturatedButWithinSlots) of them in saturated states at points inside no more fences than slots)")
        console.out(
            "states     \(TextFormat.fixed(100 * report.degradedShare, decimals: 2)) % of fixes degraded, "
                + "\(TextFormat.fixed(100 * report.saturatedShare, decimals: 2)) % saturated")
        console.out("slots      at most \(report.maxSlotsUsed) of \(config.limit - config.headroom) used")
        if let name = options.platform?.name, let platformConfiguration = outcome.platform?.configuration {
            console.out(
                "platform   \(name), rotate's margin \(TextFormat.fixed(platformConfiguration.marginMeters, decimals: 1)) m, "
                    + "limit \(platformConfiguration.limit)")
            for entry in outcome.platformReports { printPlatformFigures(entry, console: console) }
        }
        if let htmlPath = options.htmlPath { console.out("replay     \(htmlPath)") }
    }

    /// The pass criteria: no avoidable miss and no unavoidable one outside saturated states, and
    /// with the platform checks, rotate's recall and the reference designs' known misses.
    static func check(_ outcome: Outcome, _ options: Options) throws(CommandError) {
        let report = outcome.report
        var failures: [String] = []
        if report.avoidableMisses > 0 || report.unavoidableOutsideSaturation > 0 {
            failures.append(
                "\(report.avoidableMisses) avoidable misses, \(report.unavoidableOutsideSaturation) unavoidable misses outside saturated states"
            )
        }
        if let minimumRecall120 = options.minimumRecall120,
            let rotate = outcome.platformReports.first(where: { $0.strategy == .rotate })?.report,
            rotate.score.recall120 < minimumRecall120
        {
            failures.append(
                "rotate's recall of visits >= 120 s is \(TextFormat.fixed(rotate.score.recall120, decimals: 4)), "
                    + "below --min-recall-120 \(TextFormat.fixed(minimumRecall120, decimals: 4))")
        }
        let rotateStops = outcome.platformReports.first(where: { $0.strategy == .rotate })?.report.stops
        if let minimum = options.minimumStopRecall5, let stops = rotateStops {
            let recall = stops.recall5 ?? 0
            if recall < minimum {
                failures.append(
                    "rotate's recall of stops >= 5 min is \(TextFormat.fixed(recall, decimals: 4)), "
                        + "below --min-stop-recall-5 \(TextFormat.fixed(minimum, decimals: 4))")
            }
        }
        if let maximum = options.maximumFalseVisits, let stops = rotateStops, let rate = stops.falseVisitsPer100PassBys, rate > maximum {
            failures.append(
                "rotate's false visits per 100 pass-bys are \(TextFormat.fixed(rate, decimals: 2)), "
                    + "above --max-false-visits \(TextFormat.fixed(maximum, decimals: 2))")
        }
        if options.expectReferenceMisses {
            for entry in outcome.platformReports where entry.strategy.flawIsUnmonitoredFences && entry.report.visitsEnteredUnmonitored == 0
            {
                failures.append("\(entry.strategy.rawValue) entered no fence while it was unmonitored: its known flaw did not show")
            }
        }
        if !failures.isEmpty { throw .failure(failures.joined(separator: "; ")) }
    }

    /// `crossings` with the uncertain parameters the options override.
    static func crossings(
        _ crossings: PlatformProfile.Crossings, _ arguments: Arguments
    ) throws(CommandError) -> PlatformProfile.Crossings {
        var crossings = crossings
        if let text = arguments.string("--cushion") {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { DecimalText.double(String($0)) }
            guard (1...2).contains(parts.count), let low = parts.first ?? nil, let high = parts.last ?? nil, low.isFinite, high.isFinite,
                low >= 0, low <= high, high <= 10_000
            else {
                throw .usage("option '--cushion' needs meters or a range like 60-200 (0...10000), got '\(text)'")
            }
            crossings.exitCushionMeters = low...high
        }
        let latency = crossings.latency
        let median = try arguments.doubleIfGiven("--latency-median", in: 0...86_400) ?? latency.medianSeconds
        let p90 = try arguments.doubleIfGiven("--latency-p90", in: 0...86_400) ?? max(latency.p90Seconds, median)
        let maximum = try arguments.doubleIfGiven("--latency-max", in: 0...86_400) ?? max(latency.maximumSeconds, p90)
        guard median <= p90, p90 <= maximum else {
            throw .usage("latencies must be ordered: --latency-median \(median) <= --latency-p90 \(p90) <= --latency-max \(maximum)")
        }
        crossings.latency = PlatformProfile.LatencyDistribution(
            minimumSeconds: min(latency.minimumSeconds, median), medianSeconds: median, p90Seconds: p90, maximumSeconds: maximum)
        let sigma = try arguments.doubleIfGiven("--os-noise", in: 0...10_000) ?? crossings.positionNoise.sigmaMeters
        crossings.positionNoise = PlatformProfile.PositionNoise(
            sigmaMeters: sigma, correlationSeconds: crossings.positionNoise.correlationSeconds)
        return crossings
    }

    /// The platform replay's figures for one strategy under the documented JSON keys.
    static func addPlatformFigures(
        _ entry: (strategy: StrategyKind, report: PlatformReplayReport), platform: String, margin: Double, missesKeyPrefix: String = "",
        to object: inout JSONObject
    ) {
        let (strategy, visits) = entry
        object.add("platform", platform)
        object.add("strategy", strategy.rawValue)
        object.add("visits", visits.score.visits)
        object.add("visits_detected", visits.score.detected)
        object.add("recall", visits.score.recall, decimals: 5)
        object.add("recall_30s", visits.score.recall30, decimals: 5)
        object.add("recall_120s", visits.score.recall120, decimals: 5)
        object.add("visits_30s", visits.score.visits30)
        object.add("visits_120s", visits.score.visits120)
        object.add("false_entries", visits.score.falseEntries)
        object.add("\(missesKeyPrefix)misses", visits.visitsEnteredUnmonitored)
        object.add(missesKeyPrefix.isEmpty ? "avoidable_misses" : "avoidable_visit_misses", visits.avoidableVisitsEnteredUnmonitored)
        if let median = visits.score.latencySeconds(quantile: 0.5) { object.add("latency_median_s", median, decimals: 1) }
        if let p90 = visits.score.latencySeconds(quantile: 0.9) { object.add("latency_p90_s", p90, decimals: 1) }
        object.add("wakeups_per_km", visits.wakeupsPerKilometer, decimals: 3)
        object.add("registration_calls_per_km", visits.registrationCallsPerKilometer, decimals: 3)
        object.add("rejected_registrations", visits.rejectedRegistrations)
        object.add("gnss_on_fraction", visits.gnssOnFraction, decimals: 5)
        object.add("energy_mwh_per_hour", visits.energyMilliwattHoursPerHour, decimals: 1)
        object.add("battery_share_per_hour", visits.batterySharePerHour, decimals: 5)
        if strategy == .rotate { object.add("platform_margin_m", margin) }
        addStopFigures(visits.stops, countKey: missesKeyPrefix.isEmpty ? "stops" : "stops_2min", to: &object)
    }

    /// The stop oracle's figures at resolvable places (`StopOracle`, `StopScore.resolvable`),
    /// after every other key.
    static func addResolvableFigures(_ score: StopScore, to object: inout JSONObject) {
        object.add("resolvable_stops", score.resolvable.stops)
        object.add("resolvable_stops_5min", score.resolvable.longStops)
        object.add("stop_recall_2min_resolvable", score.resolvable.recall2, decimals: 5)
        object.add("stop_recall_5min_resolvable", score.resolvable.recall5, decimals: 5)
        object.add("misattributed_visits_resolvable", score.misattributedAtResolvable)
    }

    /// Where the energy went, per hour of trip, after every other key: the GNSS receiver's share
    /// (mWh), network positions, wake-ups by region events and low-power signals, and server
    /// requests (counts); and the share of the time at driving speed with GNSS kept on.
    static func addEnergyFigures(_ report: PlatformReplayReport, to object: inout JSONObject) {
        let hours = report.seconds / 3_600
        func perHour(_ count: Int) -> Double? { hours > 0 ? Double(count) / hours : nil }
        object.add("gnss_mwh_per_hour", hours > 0 ? report.milliwattHoursPerHour(report.energyGNSSJoules) : nil, decimals: 1)
        object.add("network_fixes_per_hour", perHour(report.networkFixes), decimals: 1)
        object.add("event_wakeups_per_hour", perHour(report.eventsDelivered + report.signalWakeups), decimals: 1)
        object.add("server_requests_per_hour", perHour(report.serverRequests), decimals: 1)
        object.add("gnss_on_fraction_driving", report.gnssOnDrivingFraction, decimals: 5)
        object.add("energy_floor_mwh_per_hour", report.energyFloorMilliwattHoursPerHour, decimals: 1)
        object.add("energy_over_floor", report.energyOverFloor, decimals: 2)
        let unmonitored = report.stops.unmonitoredAtArrival
        object.add("stops_unmonitored_at_arrival", unmonitored.stops)
        object.add("stops_5min_unmonitored_at_arrival", unmonitored.longStops)
        object.add("stop_recall_2min_unmonitored_at_arrival", unmonitored.recall2, decimals: 5)
        object.add("stop_recall_5min_unmonitored_at_arrival", unmonitored.recall5, decimals: 5)
        object.add("visits_left_open", report.stops.visitsLeftOpen.map(Double.init), decimals: 0)
    }

    /// The stop oracle's figures (`StopOracle`); `countKey` names the count of stops of at least
    /// 2 minutes (`stops`, or `stops_2min` where `stops` is the planner's).
    static func addStopFigures(_ score: StopScore, countKey: String, to object: inout JSONObject) {
        object.add(countKey, score.stops)
        object.add("stops_5min", score.longStops)
        object.add("stop_recall_2min", score.recall2, decimals: 5)
        object.add("stop_recall_5min", score.recall5, decimals: 5)
        object.add("stop_candidate_recall_5min", score.candidateRecall5, decimals: 5)
        object.add("misattributed_visits", score.misattributedVisits)
        object.add("false_visits", score.falseVisits)
        object.add("duplicate_visits", score.duplicateVisits)
        object.add("pass_bys", score.passBys)
        object.add("false_visits_per_100_pass_bys", score.falseVisitsPer100PassBys, decimals: 2)
        object.add("visit_latency_median_s", score.latencySeconds(quantile: 0.5), decimals: 1)
        object.add("visit_latency_p90_s", score.latencySeconds(quantile: 0.9), decimals: 1)
        let kinds = StopKind.allCases.compactMap { kind in score.byKind[kind].map { (kind, $0) } }
        guard !kinds.isEmpty else { return }
        object.add("stops_by_kind") { byKind in
            for (kind, counts) in kinds {
                byKind.add(kind.rawValue) { row in
                    row.add("stops", counts.stops)
                    row.add("stops_5min", counts.longStops)
                    row.add("recall_2min", counts.stops > 0 ? Double(counts.detected) / Double(counts.stops) : nil, decimals: 5)
                    row.add("recall_5min", counts.longStops > 0 ? Double(counts.longDetected) / Double(counts.longStops) : nil, decimals: 5)
                }
            }
        }
    }

    /// The platform replay's figures for one strategy, as lines.
    static func printPlatformFigures(_ entry: (strategy: StrategyKind, report: PlatformReplayReport), console: Console) {
        let (strategy, visits) = entry
        let score = visits.score
        func percent(_ share: Double) -> String { TextFormat.fixed(100 * share, decimals: 1) + " %" }
        func seconds(_ value: Double?) -> String { value.map { TextFormat.fixed($0, decimals: 1) + " s" } ?? "-" }
        console.out(
            "\(strategy.rawValue): \(TextFormat.grouped(score.detected)) of \(TextFormat.grouped(score.visits)) visits detected "
                + "(recall \(percent(score.recall)); \(percent(score.recall30)) of visits >= 30 s, \(percent(score.recall120)) of >= 120 s), "
                + "\(TextFormat.grouped(score.falseEntries)) false entries, "
                + "\(TextFormat.grouped(visits.visitsEnteredUnmonitored)) entered while not monitored "
                + "(\(TextFormat.grouped(visits.avoidableVisitsEnteredUnmonitored)) avoidable)")
        console.out(
            "  latency median \(seconds(score.latencySeconds(quantile: 0.5))), p90 \(seconds(score.latencySeconds(quantile: 0.9))), "
                + "max \(seconds(score.latencySeconds(quantile: 1))); "
                + "\(TextFormat.fixed(visits.wakeupsPerKilometer, decimals: 2)) wakeups per km, "
                + "\(TextFormat.fixed(visits.registrationCallsPerKilometer, decimals: 2)) registration calls per km"
                + (visits.rejectedRegistrations > 0 ? " (\(visits.rejectedRegistrations) refused)" : "")
                + ", GNSS on \(percent(visits.gnssOnFraction)) of the time"
                + ", \(TextFormat.fixed(visits.energyMilliwattHoursPerHour, decimals: 0)) mWh per hour (\(TextFormat.fixed(100 * visits.batterySharePerHour, decimals: 2)) % of the battery)"
                + (strategy == .rotate ? " (not exact \(percent(visits.notExactFraction)))" : "")
                + (strategy == .everyPlace ? " (the bound: registers past the limit and follows the device with fixes)" : ""))
        let stops = visits.stops
        guard stops.stops > 0 || stops.passBys > 0 else { return }
        func share(_ value: Double?) -> String { value.map(percent) ?? "-" }
        console.out(
            "  stops: \(share(stops.recall2)) of \(TextFormat.grouped(stops.stops)) stops >= 2 min detected, "
                + "\(share(stops.recall5)) of \(TextFormat.grouped(stops.longStops)) >= 5 min; "
                + "\(TextFormat.grouped(stops.misattributedVisits)) misattributed, \(TextFormat.grouped(stops.falseVisits)) false visits "
                + "in \(TextFormat.grouped(stops.passBys)) pass-bys, \(TextFormat.grouped(stops.duplicateVisits)) duplicates; "
                + "visit latency median \(seconds(stops.latencySeconds(quantile: 0.5))), p90 \(seconds(stops.latencySeconds(quantile: 0.9)))"
                + (visits.energyOverFloor.map { over in
                    "; energy \(TextFormat.fixed(over, decimals: 1))x the stop floor of "
                        + "\(TextFormat.fixed(visits.energyFloorMilliwattHoursPerHour ?? 0, decimals: 1)) mWh per hour"
                } ?? "")
        )
        let resolvable = stops.resolvable
        console.out(
            "  at resolvable places (fence at least the phone's error there): \(share(resolvable.recall2)) of "
                + "\(TextFormat.grouped(resolvable.stops)) stops >= 2 min, \(share(resolvable.recall5)) of "
                + "\(TextFormat.grouped(resolvable.longStops)) >= 5 min, \(TextFormat.grouped(stops.misattributedAtResolvable)) misattributed"
        )
        let unmonitored = stops.unmonitoredAtArrival
        console.out(
            "  at places not monitored at the arrival: \(share(unmonitored.recall2)) of \(TextFormat.grouped(unmonitored.stops)) stops "
                + ">= 2 min, \(share(unmonitored.recall5)) of \(TextFormat.grouped(unmonitored.longStops)) >= 5 min"
        )
        let kinds = StopKind.allCases.compactMap { kind in stops.byKind[kind].map { (kind, $0) } }
        guard !kinds.isEmpty else { return }
        console.out(
            "  by kind, at 5 min: "
                + kinds.map { kind, counts in
                    "\(kind.rawValue) \(counts.longStops > 0 ? percent(Double(counts.longDetected) / Double(counts.longStops)) : "-") of \(counts.longStops)"
                }.joined(separator: ", "))
    }

    /// "12" or "5-50" (km) as a range in meters.
    static func lengthRange(_ text: String) throws(CommandError) -> ClosedRange<Double> {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Double($0) }
        guard (1...2).contains(parts.count), let low = parts.first ?? nil, let high = parts.last ?? nil,
            low.isFinite, high.isFinite, low > 0, low <= high, high <= 40_000
        else {
            throw .usage("option '--length-km' needs a length or a range like 5-50 (km, > 0), got '\(text)'")
        }
        return (low * 1_000)...(high * 1_000)
    }
}
