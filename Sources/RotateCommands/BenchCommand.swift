import BenchmarkKit
import Geodesy
import RotateFormats
import RotateJSON
import SpatialIndex

/// `rotate bench`: reselection-style query throughput of the k-d tree against brute force.
public enum BenchCommand: Subcommand {
    public static let name = "bench"
    public static let abstract = "Measure nearest-place queries (the planner's reselection) against brute force."
    public static let discussion = """
        Builds the index over synthetic clustered places (200 towns of about 20 km, from --seed), then
        times --queries queries near random places asking for the --k nearest by fence edge (17 place
        slots plus the next place, which sizes the refresh circle). The same queries answered by brute
        force (compute every distance, sort) are timed in the same run; at large N the baseline runs
        fewer queries, and says so. Every baseline query is also checked: the tree must return exactly
        what brute force returns, or the command exits 1. Figures are medians over --repetitions runs
        after a warm-up. Build with -c release: debug figures mean nothing.
        """
    public static let options: [OptionSpec] = [
        OptionSpec("--count", value: "N", help: "Synthetic places to index.", default: "100000"),
        OptionSpec("--places", value: "FILE", help: "Index the places of a CSV instead (their radii; --radius for rows without)."),
        OptionSpec("--positions", value: "FILE", help: "Query these positions (CSV with lat, lon) instead of generated ones."),
        OptionSpec(
            "--queries", value: "Q",
            help: "Queries per repetition (with --walk-reselection and --engine, fixes; with --probability, evaluations).",
            default: "100000",
            defaultsWhenGiven: [
                ("--walk-reselection", "20000"), ("--engine", "20000"), ("--probability", "200000"), ("--footprints", "20000"),
            ]),
        OptionSpec("--seed", value: "S", help: "Seed of places and queries.", default: "1"),
        OptionSpec("--k", value: "K", help: "Neighbors per query.", default: "18"),
        OptionSpec("--by", value: "edge|center", help: "Rank by fence edge or by center.", default: "edge"),
        OptionSpec("--radius", value: "M", help: "Fence radius of every place, meters.", default: "100"),
        OptionSpec("--mixed-radii", help: "Random radii from 20 m to 5 km instead of --radius (also replaces a --places file's radii)."),
        OptionSpec(
            "--repetitions", value: "R", help: "Timed repetitions (the median is reported).", default: "5",
            defaultsWhenGiven: [("--devices", "3")]),
        OptionSpec(
            "--baseline-queries", value: "B", help: "Brute-force queries per repetition.",
            computedDefault: "about 10M / N (--footprints: 5)"),
        OptionSpec("--leaf-size", value: "L", help: "Points per k-d tree leaf.", default: "\(KDTree.defaultLeafSize)"),
        OptionSpec("--write-neighbors", value: "FILE", help: "Write the first 1,000 queries' neighbor indices (CSV) for outside checks."),
        OptionSpec("--walk-reselection", help: "Time whole reselections along a walk (fixes 15 m apart), cold and warm-started."),
        OptionSpec("--probability", help: "Time P(inside) evaluations instead (the fence rules' hot path)."),
        OptionSpec(
            "--footprints",
            help:
                "Time the k nearest by exact edge over --count polygon footprints (4-64 vertices) against the k nearest circles over as many places; checks --baseline-queries answers against every footprint's exact distance."
        ),
        OptionSpec(
            "--engine",
            help:
                "Time the event engine per fix (planner and in-app decisions) against the planner alone, on a walk (--count places, --queries fixes)."
        ),
        OptionSpec(
            "--devices", value: "N",
            help: "Update N devices concurrently instead, each on its own walk (--count places, --fixes per device).",
            defaultsWhenGiven: [("--catalog-update", "1000000")]),
        OptionSpec(
            "--threads", value: "T", help: "With --devices: tasks to share the devices; runs 1 to T and reports the scaling.",
            computedDefault: "all cores"),
        OptionSpec(
            "--catalog-update",
            help:
                "Apply --changes catalog changes to --devices stored device states: affected devices against replanning all."
        ),
        OptionSpec("--changes", value: "C", help: "With --catalog-update: changes in the set.", default: "1000"),
        OptionSpec("--fixes", value: "F", help: "With --devices: fixes per device.", default: "20"),
        OptionSpec("--step", value: "M", help: "With --devices: meters between a device's fixes.", default: "25"),
        OptionSpec("--json", help: "Print one JSON object instead of the table."),
        OptionSpec("--quiet", help: "No progress lines on stderr (shown only when stderr is a terminal)."),
        OptionSpec("--strict", help: "With --places: fail on the first bad row."),
        OptionSpec("--rejects", value: "FILE", help: "With --places: write rejected rows as CSV."),
    ]

    /// Query positions from a CSV with lat and lon columns (a bad row is an error: benchmarks
    /// need exactly the positions asked for).
    static func positions(_ path: String) throws(CommandError) -> [UnitVector] {
        var columns: [String: Int]?
        var result: [UnitVector] = []
        do {
            try CSVFile.forEachRecord(path: path) { record in
                if let problem = record.problem { throw CommandError.failure("\(path):\(record.line): \(problem)") }
                guard let found = columns else {
                    columns = CSVFile.columns(
                        of: record.fields, aliases: ["lat": CSVFile.latitudeAliases, "lon": CSVFile.longitudeAliases])
                    guard columns?["lat"] != nil, columns?["lon"] != nil else {
                        throw CommandError.failure("\(path):\(record.line): the header needs lat and lon")
                    }
                    return
                }
                guard let latColumn = found["lat"], let lonColumn = found["lon"], latColumn < record.fields.count,
                    lonColumn < record.fields.count,
                    let lat = DecimalText.double(CSVFile.trimmed(record.fields[latColumn])),
                    let lon = DecimalText.double(CSVFile.trimmed(record.fields[lonColumn])),
                    let c = try? Coordinate(latitude: lat, longitude: lon)
                else {
                    throw CommandError.failure("\(path):\(record.line): not a valid position")
                }
                result.append(UnitVector(c))
            }
        } catch let error as CommandError {
            throw error
        } catch {
            throw .failure("\(path): \(error)")
        }
        guard !result.isEmpty else { throw .failure("\(path): no positions") }
        return result
    }

    public struct Options: Equatable, Sendable {
        /// What is timed; the first of `--catalog-update`, `--devices`, `--walk-reselection`,
        /// `--engine` and `--probability` given chooses, else nearest-place queries.
        enum Mode: Equatable, Sendable {
            case reselection(Reselection)
            case walkReselection(Sizes, mixedRadii: Bool)
            case engine(Sizes)
            case probability(Sizes)
            case footprints(Sizes, k: Int, checked: Int)
            case devices(Devices)
            case catalogUpdate(CatalogUpdate)
        }
        var mode: Mode
        var json: Bool
        var quiet: Bool
    }

    /// Places, queries (fixes, evaluations), repetitions and seed of the simpler benchmarks.
    struct Sizes: Equatable, Sendable {
        var places: Int
        var queries: Int
        var repetitions: Int
        var seed: UInt64
    }

    /// Nearest-place queries over synthetic places or a places file.
    struct Reselection: Equatable, Sendable {
        var configuration: ReselectionBenchmark.Configuration
        var places: Inputs.PlaceOptions?
        var mixedRadii: Bool
        var positionsPath: String?
        var writeNeighborsPath: String?
    }

    /// `DeviceBenchmark.Configuration`'s values.
    struct Devices: Equatable, Sendable {
        var devices: Int
        var places: Int
        var fixesPerDevice: Int
        var stepMeters: Double
        var repetitions: Int
        var maxTasks: Int
        var seed: UInt64
    }

    /// `CatalogUpdateBenchmark.Configuration`'s values.
    struct CatalogUpdate: Equatable, Sendable {
        var devices: Int
        var places: Int
        var changes: Int
        var seed: UInt64
    }

    public static func parse(_ arguments: Arguments) throws(CommandError) -> Options {
        let mode: Options.Mode
        if arguments.flag("--catalog-update") {
            mode = .catalogUpdate(
                CatalogUpdate(
                    devices: try arguments.int("--devices", in: 1...20_000_000), places: try arguments.int("--count", in: 100...50_000_000),
                    changes: try arguments.int("--changes", in: 1...1_000_000), seed: try arguments.uint64("--seed")))
        } else if arguments.isGiven("--devices") {
            mode = .devices(
                Devices(
                    devices: try arguments.int("--devices", in: 1...10_000_000), places: try arguments.int("--count", in: 100...50_000_000),
                    fixesPerDevice: try arguments.int("--fixes", in: 1...100_000),
                    stepMeters: try arguments.double("--step", in: 0.1...100_000),
                    repetitions: try arguments.int("--repetitions", in: 1...1_000),
                    maxTasks: try arguments.intIfGiven("--threads", in: 1...1_024) ?? DeviceBenchmark.availableCores,
                    seed: try arguments.uint64("--seed")))
        } else if arguments.flag("--walk-reselection") {
            mode = .walkReselection(try walkSizes(arguments), mixedRadii: arguments.flag("--mixed-radii"))
        } else if arguments.flag("--engine") {
            mode = .engine(try walkSizes(arguments))
        } else if arguments.flag("--footprints") {
            mode = .footprints(
                Sizes(
                    places: try arguments.int("--count", in: 1...20_000_000), queries: try arguments.int("--queries", in: 1...10_000_000),
                    repetitions: try arguments.int("--repetitions", in: 1...1_000), seed: try arguments.uint64("--seed")),
                k: try arguments.int("--k", in: 1...10_000), checked: try arguments.intIfGiven("--baseline-queries", in: 0...1_000_000) ?? 5
            )
        } else if arguments.flag("--probability") {
            let repetitions = try arguments.int("--repetitions", in: 1...1_000)
            let evaluations = try arguments.int("--queries", in: 1...100_000_000)
            mode = .probability(Sizes(places: 0, queries: evaluations, repetitions: repetitions, seed: try arguments.uint64("--seed")))
        } else {
            mode = .reselection(try reselection(arguments))
        }
        return Options(mode: mode, json: arguments.flag("--json"), quiet: arguments.flag("--quiet"))
    }

    /// Places, fixes along the walk, repetitions and seed of `--walk-reselection` and `--engine`.
    static func walkSizes(_ arguments: Arguments) throws(CommandError) -> Sizes {
        Sizes(
            places: try arguments.int("--count", in: 1_000...50_000_000), queries: try arguments.int("--queries", in: 10...10_000_000),
            repetitions: try arguments.int("--repetitions", in: 1...1_000), seed: try arguments.uint64("--seed"))
    }

    static func reselection(_ arguments: Arguments) throws(CommandError) -> Reselection {
        var configuration = ReselectionBenchmark.Configuration()
        configuration.count = try arguments.int("--count", in: 0...50_000_000)
        configuration.queries = try arguments.int("--queries", in: 1...100_000_000)
        configuration.seed = try arguments.uint64("--seed")
        configuration.k = try arguments.int("--k", in: 0...100_000)
        configuration.target = try arguments.choice("--by", from: ["edge", "center"]) == "edge" ? .edge : .center
        let radius = try arguments.double("--radius", in: 0.001...400_000)
        let mixedRadii = arguments.flag("--mixed-radii")
        if mixedRadii {
            guard !arguments.isGiven("--radius") else {
                throw .usage("--radius and --mixed-radii exclude each other")
            }
            configuration.radiusMeters = nil
        } else {
            configuration.radiusMeters = radius
        }
        configuration.repetitions = try arguments.int("--repetitions", in: 1...1_000)
        configuration.baselineQueries = try arguments.intIfGiven("--baseline-queries", in: 1...100_000_000)
        configuration.leafSize = try arguments.int("--leaf-size", in: 1...4_096)
        return Reselection(
            configuration: configuration, places: try Inputs.PlaceOptions(arguments), mixedRadii: mixedRadii,
            positionsPath: arguments.string("--positions"), writeNeighborsPath: arguments.string("--write-neighbors"))
    }

    public static func run(_ options: Options, console: Console) throws(CommandError) {
        let progress = progress(quiet: options.quiet, console)
        switch options.mode {
        case .reselection(let reselection):
            try runReselection(reselection, json: options.json, progress: progress, console: console)
        case .walkReselection(let sizes, let mixedRadii):
            try runWalkReselection(sizes, mixedRadii: mixedRadii, json: options.json, console: console)
        case .engine(let sizes):
            try runEngine(sizes, json: options.json, console: console)
        case .probability(let sizes):
            runProbability(sizes, json: options.json, console: console)
        case .footprints(let sizes, let k, let checked):
            try runFootprints(sizes, k: k, checked: checked, json: options.json, progress: progress, console: console)
        case .devices(let devices):
            try runDevices(devices, json: options.json, progress: progress, console: console)
        case .catalogUpdate(let update):
            try runCatalogUpdate(update, json: options.json, progress: progress, console: console)
        }
    }

    /// Where a benchmark's progress lines go: stderr as `rotate bench: …`, only when stderr is a
    /// terminal and `--quiet` is absent.
    static func progress(quiet: Bool, _ console: Console) -> (String) -> Void {
        let show = !quiet && console.errIsTerminal
        return { line in if show { console.err("rotate bench: " + line) } }
    }

    /// Nearest-place queries: the k-d tree against brute force.
    static func runReselection(
        _ options: Reselection, json: Bool, progress: @escaping (String) -> Void, console: Console
    ) throws(CommandError) {
        var configuration = options.configuration
        var benchmark = ReselectionBenchmark(configuration: configuration)
        var source =
            "clustered places (seed \(configuration.seed), "
            + (configuration.radiusMeters.map { "radius \(TextFormat.fixed($0, decimals: 0)) m" } ?? "radii 20 m to 5 km") + ")"
        if let places = options.places {
            let loaded = try Inputs.places(places, console: console)
            configuration.count = loaded.catalog.count
            // File order (not the catalog's id order), so result indices are row numbers.
            let filePlaces = loaded.places
            var radii = filePlaces.map(\.radiusMeters)
            if options.mixedRadii {
                // Replace the file's radii with seeded random ones (20 m to 5 km).
                var rng = SplitMix64(seed: configuration.seed)
                radii = radii.map { _ in rng.nextDouble(in: 20..<5_000) }
            }
            configuration.radiusMeters = nil
            benchmark = ReselectionBenchmark(configuration: configuration, places: filePlaces.map(\.coordinate), radiiMeters: radii)
            source = "places from \(places.path)" + (options.mixedRadii ? " with radii 20 m to 5 km" : "")
        }
        if let path = options.positionsPath {
            let queries = try positions(path)
            configuration.queries = queries.count
            benchmark = ReselectionBenchmark(
                configuration: configuration, places: benchmark.places, radiiMeters: benchmark.radiiMeters,
                queries: queries)
        }
        let report = benchmark.run(progress: progress)
        if let path = options.writeNeighborsPath {
            let tree = KDTree(coordinates: benchmark.places, radiiMeters: benchmark.radiiMeters, leafSize: configuration.leafSize)
            var buffer = NeighborBuffer()
            let lines = benchmark.queryPoints().prefix(1_000).map { query -> String in
                tree.nearest(configuration.k, to: query, measuredTo: configuration.target, into: &buffer)
                return buffer.neighbors.map { String($0.index) }.joined(separator: ",")
            }
            try TextOutput.write(Array(lines), to: path)
        }
        if json {
            console.out(
                report.json(
                    seed: configuration.seed, radiusMeters: configuration.radiusMeters,
                    source: options.places?.path ?? "synthetic-clustered"))
        } else {
            report.lines(describing: source).forEach(console.out)
        }
        if report.mismatches > 0 {
            throw .failure("the k-d tree disagreed with brute force on \(report.mismatches) queries")
        }
    }
}

extension BenchCommand {
    /// `rotate bench --walk-reselection`: whole reselections along a walk, cold and warm-started.
    static func runWalkReselection(_ sizes: Sizes, mixedRadii: Bool, json: Bool, console: Console) throws(CommandError) {
        let report: WalkReselectionBenchmark.Report
        do {
            report = try WalkReselectionBenchmark.run(
                places: sizes.places, fixes: sizes.queries, repetitions: sizes.repetitions, seed: sizes.seed, mixedRadii: mixedRadii)
        } catch {
            throw .failure("\(error)")
        }
        if json {
            var object = JSONObject()
            object.add("n", report.places)
            object.add("reselections", report.reselections)
            object.add("cold_ns_per_reselection", report.cold.median, decimals: 1)
            object.add("warm_ns_per_reselection", report.warm.median, decimals: 1)
            object.add("speedup", report.speedup, decimals: 2)
            object.add("cold_selection_ns_per_reselection", report.coldSelection.median, decimals: 1)
            object.add("warm_selection_ns_per_reselection", report.warmSelection.median, decimals: 1)
            object.add("selection_speedup", report.selectionSpeedup, decimals: 2)
            object.add("mismatches", report.mismatches)
            console.out(object.text)
        } else {
            console.out(
                "rotate bench --walk-reselection: \(TextFormat.grouped(report.places)) clustered places, "
                    + "\(TextFormat.grouped(report.reselections)) reselections 15 m apart (selection, refresh radius, diff) x \(sizes.repetitions)"
            )
            func line(_ label: String, _ m: Measurement) -> String {
                label
                    + "\(TextFormat.grouped(m.median)) ns/reselection median (min \(TextFormat.grouped(m.min)), max \(TextFormat.grouped(m.max)))"
            }
            console.out("by position (decide + PositionDiff)")
            console.out(line("  cold         ", report.cold))
            console.out(line("  warm         ", report.warm))
            console.out("  speedup      \(TextFormat.fixed(report.speedup, decimals: 2))x")
            console.out("full (select + RegistrationDiff)")
            console.out(line("  cold         ", report.coldSelection))
            console.out(line("  warm         ", report.warmSelection))
            console.out("  speedup      \(TextFormat.fixed(report.selectionSpeedup, decimals: 2))x")
            console.out(
                "selections identical (warm, cold, both paths): \(report.mismatches == 0 ? "yes" : "NO (\(report.mismatches))")")
        }
        if report.mismatches > 0 { throw .failure("warm and cold reselections differ at \(report.mismatches) fixes") }
    }

    /// `rotate bench --probability`: P(inside) evaluations near the edge and anywhere.
    static func runProbability(_ sizes: Sizes, json: Bool, console: Console) {
        let report = ProbabilityBenchmark.run(evaluations: sizes.queries, repetitions: sizes.repetitions, seed: sizes.seed)
        let time = report.nanosecondsPerEvaluation
        if json {
            var object = JSONObject()
            object.add("evaluations", report.evaluations)
            object.add("repetitions", sizes.repetitions)
            object.add("ns_per_evaluation", time.median, decimals: 1)
            object.add("ns_per_evaluation_min", time.min, decimals: 1)
            object.add("ns_per_evaluation_max", time.max, decimals: 1)
            object.add("ns_per_evaluation_anywhere", report.nanosecondsPerEvaluationAnywhere.median, decimals: 1)
            object.add("checksum", report.checksum, decimals: 6)
            console.out(object.text)
        } else {
            console.out(
                "rotate bench --probability: \(TextFormat.grouped(report.evaluations)) evaluations x \(sizes.repetitions) repetitions "
                    + "(R 1 m to 5 km, sigma 0.5 to 200 m)")
            console.out(
                "near the edge  \(TextFormat.fixed(time.median, decimals: 1)) ns/evaluation median (min \(TextFormat.fixed(time.min, decimals: 1)), "
                    + "max \(TextFormat.fixed(time.max, decimals: 1))), d within 6 sigma of R")
            let anywhere = report.nanosecondsPerEvaluationAnywhere
            console.out(
                "anywhere       \(TextFormat.fixed(anywhere.median, decimals: 1)) ns/evaluation median (min \(TextFormat.fixed(anywhere.min, decimals: 1)), "
                    + "max \(TextFormat.fixed(anywhere.max, decimals: 1))), d 0 to 10 km; checksum \(TextFormat.fixed(report.checksum, decimals: 6))"
            )
        }
    }
}

extension BenchCommand {
    /// `rotate bench --footprints`: exact k nearest over polygon footprints against circles.
    static func runFootprints(
        _ sizes: Sizes, k: Int, checked: Int, json: Bool, progress: @escaping (String) -> Void, console: Console
    ) throws(CommandError) {
        var configuration = FootprintBenchmark.Configuration()
        configuration.count = sizes.places
        configuration.queries = sizes.queries
        configuration.repetitions = sizes.repetitions
        configuration.seed = sizes.seed
        configuration.k = k
        configuration.checkedQueries = checked
        let report: FootprintBenchmark.Report
        do {
            report = try FootprintBenchmark.run(configuration, progress: progress)
        } catch {
            throw .failure("footprints could not be made: \(error)")
        }
        if json {
            var object = JSONObject()
            object.add("footprints", report.count)
            object.add("vertices", report.vertices)
            object.add("k", k)
            object.add("queries", sizes.queries)
            object.add("repetitions", sizes.repetitions)
            object.add("footprints_build_s", report.footprintsBuildSeconds, decimals: 3)
            object.add("tree_build_s", report.treeBuildSeconds, decimals: 3)
            object.add("ns_per_footprint_query", report.footprintQuery.median, decimals: 1)
            object.add("ns_per_circle_query", report.circleQuery.median, decimals: 1)
            object.add("ratio", report.ratio, decimals: 3)
            object.add("bytes_per_vertex", report.bytesPerVertex, decimals: 1)
            object.add("checked", report.checked)
            object.add("mismatches", report.mismatches)
            console.out(object.text)
        } else {
            console.out(
                "rotate bench --footprints: \(TextFormat.grouped(report.count)) footprints, \(TextFormat.grouped(report.vertices)) vertices, "
                    + "k = \(k), \(TextFormat.grouped(sizes.queries)) queries x \(sizes.repetitions) repetitions")
            console.out(
                "build: footprints \(TextFormat.fixed(report.footprintsBuildSeconds, decimals: 2)) s (every ring validated), "
                    + "tree \(TextFormat.fixed(report.treeBuildSeconds, decimals: 2)) s; \(TextFormat.fixed(report.bytesPerVertex, decimals: 1)) bytes per vertex"
            )
            console.out(
                "exact by footprint edge  \(TextFormat.fixed(report.footprintQuery.median, decimals: 1)) ns/query median "
                    + "(min \(TextFormat.fixed(report.footprintQuery.min, decimals: 1)), max \(TextFormat.fixed(report.footprintQuery.max, decimals: 1)))"
            )
            console.out(
                "circles by edge          \(TextFormat.fixed(report.circleQuery.median, decimals: 1)) ns/query median "
                    + "(min \(TextFormat.fixed(report.circleQuery.min, decimals: 1)), max \(TextFormat.fixed(report.circleQuery.max, decimals: 1))); "
                    + "ratio \(TextFormat.fixed(report.ratio, decimals: 2))")
            console.out("answers checked against every footprint's exact distance: \(report.checked), mismatches \(report.mismatches)")
        }
        if report.mismatches > 0 {
            throw .failure("\(report.mismatches) of \(report.checked) answers differ from every footprint's exact distance")
        }
    }

    /// `rotate bench --devices N`: concurrent updates of many devices, 1 to T tasks.
    static func runDevices(_ options: Devices, json: Bool, progress: @escaping (String) -> Void, console: Console) throws(CommandError) {
        var configuration = DeviceBenchmark.Configuration()
        configuration.devices = options.devices
        configuration.places = options.places
        configuration.fixesPerDevice = options.fixesPerDevice
        configuration.stepMeters = options.stepMeters
        configuration.repetitions = options.repetitions
        configuration.maxTasks = options.maxTasks
        configuration.seed = options.seed
        let report: DeviceBenchmark.Report
        do {
            report = try DeviceBenchmark.run(configuration, progress: progress)
        } catch {
            throw .failure("\(error)")
        }
        if json {
            var object = JSONObject()
            object.add("devices", configuration.devices)
            object.add("places", configuration.places)
            object.add("fixes_per_device", configuration.fixesPerDevice)
            object.add("updates", report.runs.first?.summary.updates ?? 0)
            object.add("reselections", report.runs.first?.summary.reselections ?? 0)
            for run in report.runs {
                object.add("updates_per_second_\(run.tasks)", run.updatesPerSecond, decimals: 0)
                object.add("seconds_\(run.tasks)", run.seconds.median, decimals: 4)
            }
            object.add("scaling", report.scaling, decimals: 2)
            object.add("consistent", report.consistent ? 1 : 0)
            console.out(object.text)
        } else {
            let first = report.runs[0].summary
            console.out(
                "rotate bench --devices: \(TextFormat.grouped(configuration.devices)) devices x \(configuration.fixesPerDevice) fixes "
                    + "\(TextFormat.fixed(configuration.stepMeters, decimals: 0)) m apart over \(TextFormat.grouped(configuration.places)) clustered places; "
                    + "\(TextFormat.grouped(first.reselections)) reselections, \(TextFormat.grouped(first.registrationChanges)) registrations changed"
            )
            for run in report.runs {
                console.out(
                    "\(run.tasks) task\(run.tasks == 1 ? " " : "s")  \(TextFormat.grouped(run.updatesPerSecond)) updates/s "
                        + "(\(TextFormat.fixed(run.seconds.median, decimals: 3)) s median of \(configuration.repetitions), "
                        + "x\(TextFormat.fixed(run.updatesPerSecond / report.runs[0].updatesPerSecond, decimals: 2)) of 1 task)")
            }
            console.out("same result from every task count: \(report.consistent ? "yes" : "NO")")
        }
        if !report.consistent { throw .failure("device updates differ between task counts") }
    }
}

extension BenchCommand {
    /// `rotate bench --catalog-update`: the devices a change set affects, found through the index
    /// over their refresh circles, against replanning every device.
    static func runCatalogUpdate(
        _ options: CatalogUpdate, json: Bool, progress: @escaping (String) -> Void, console: Console
    ) throws(CommandError) {
        var configuration = CatalogUpdateBenchmark.Configuration()
        configuration.devices = options.devices
        configuration.places = options.places
        configuration.changes = options.changes
        configuration.seed = options.seed
        let report: CatalogUpdateBenchmark.Report
        do {
            report = try CatalogUpdateBenchmark.run(configuration, progress: progress)
        } catch {
            throw .failure("\(error)")
        }
        if json {
            var object = JSONObject()
            object.add("devices", configuration.devices)
            object.add("places", configuration.places)
            object.add("changes", configuration.changes)
            object.add("affected", report.affected)
            object.add("apply_ms", report.applyMilliseconds, decimals: 1)
            object.add("index_ms", report.indexMilliseconds, decimals: 1)
            object.add("packed_index_ms", report.packedIndexMilliseconds, decimals: 1)
            object.add("query_ms", report.queryMilliseconds, decimals: 2)
            object.add("replan_affected_ms", report.replanAffectedMilliseconds, decimals: 1)
            object.add("replan_everyone_ms", report.replanEveryoneMilliseconds, decimals: 1)
            object.add("speedup", report.speedup, decimals: 1)
            object.add("mismatches", report.mismatches)
            console.out(object.text)
        } else {
            console.out(
                "rotate bench --catalog-update: \(TextFormat.grouped(configuration.changes)) changes to \(TextFormat.grouped(configuration.places)) "
                    + "clustered places, \(TextFormat.grouped(configuration.devices)) stored device states (one run)")
            console.out("affected devices      \(TextFormat.grouped(report.affected))")
            console.out("new catalog version   \(TextFormat.fixed(report.applyMilliseconds, decimals: 1)) ms (rebuilt with its index)")
            console.out(
                "index the states      \(TextFormat.fixed(report.indexMilliseconds, decimals: 1)) ms (once; reused for every change set)")
            console.out(
                "index packed states   \(TextFormat.fixed(report.packedIndexMilliseconds, decimals: 1)) ms (as a registry holds them: no id lookups)"
            )
            console.out("find affected         \(TextFormat.fixed(report.queryMilliseconds, decimals: 2)) ms")
            console.out("replan the affected   \(TextFormat.fixed(report.replanAffectedMilliseconds, decimals: 1)) ms")
            console.out(
                "replan everyone       \(TextFormat.fixed(report.replanEveryoneMilliseconds, decimals: 1)) ms "
                    + "(\(TextFormat.fixed(report.speedup, decimals: 1))x find + replan the affected)")
            console.out(
                "checked against every device (first \(TextFormat.grouped(Swift.min(configuration.checkedDevices, configuration.devices)))): "
                    + (report.mismatches == 0 ? "identical" : "\(report.mismatches) MISMATCHES"))
        }
        if report.mismatches > 0 { throw .failure("the index and the brute-force check disagree on \(report.mismatches) devices") }
    }
}

extension BenchCommand {
    /// `rotate bench --engine`: the event engine per fix against the planner alone.
    static func runEngine(_ sizes: Sizes, json: Bool, console: Console) throws(CommandError) {
        let report: EngineBenchmark.Report
        do {
            report = try EngineBenchmark.run(
                places: sizes.places, fixes: sizes.queries, repetitions: sizes.repetitions, seed: sizes.seed)
        } catch {
            throw .failure("\(error)")
        }
        if json {
            var object = JSONObject()
            object.add("n", report.places)
            object.add("fixes", report.fixes)
            object.add("planner_ns_per_fix", report.planner.median, decimals: 1)
            object.add("engine_ns_per_fix", report.engine.median, decimals: 1)
            object.add("in_app_ns_per_fix", report.inAppNanosecondsPerFix, decimals: 1)
            object.add("entries", report.entries)
            object.add("exits", report.exits)
            object.add("same_registrations", report.sameRegistrations ? 1 : 0)
            console.out(object.text)
        } else {
            console.out(
                "rotate bench --engine: \(TextFormat.grouped(report.places)) clustered places (100 m fences), "
                    + "a walk of \(TextFormat.grouped(report.fixes)) fixes 1.4 m apart (5 m noise) x \(sizes.repetitions); 17 place slots")
            func line(_ label: String, _ m: Measurement) -> String {
                label + "\(TextFormat.grouped(m.median)) ns/fix median (min \(TextFormat.grouped(m.min)), max \(TextFormat.grouped(m.max)))"
            }
            console.out(line("planner alone (FenceRotator.update)  ", report.planner))
            console.out(line("engine (FenceMonitor.handle)         ", report.engine))
            console.out(
                "in-app decisions                     \(TextFormat.grouped(report.inAppNanosecondsPerFix)) ns/fix (medians' difference)")
            console.out("place events                         \(report.entries) entries, \(report.exits) exits")
            console.out("same registrations                   \(report.sameRegistrations ? "yes" : "NO")")
        }
        if !report.sameRegistrations { throw .failure("the engine's registrations differ from the planner's") }
    }
}
