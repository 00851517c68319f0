import EventEngine
import FencePlanner
import Geodesy
import RotateFormats
import RotateJSON
import WalkSimulator

/// `rotate plan`: replay a walk through a FenceRotator, check it with the missed-fence oracle and
/// write the plan.
public enum PlanCommand: Subcommand {
    public static let name = "plan"
    public static let abstract = "Plan the fences to monitor along a walk, check it for missed fences, and write the plan."
    public static let discussion = """
        Reads the places and the walk (walk CSV, or GPX 1.0/1.1 track, route or waypoints), feeds
        every fix to a FenceRotator and checks the recorded path, densified to 1 m, against every
        fence (the recorded positions stand for the true path). Fixes more than --gap seconds apart
        are a recording gap: no path is assumed across it (no fence is entered or left between its
        two fixes). The margin defaults to the longest step between two fixes of the walk, gaps
        left out, plus --delay times the fastest speed, so that checking at fixes covers what
        happens between them.

        The event engine (FenceMonitor) runs over the same fixes, each a continuous update, and
        decides the place events in-app and the store visits (a stay of 100 m for 100 s, the place
        as a posterior over the places near it): they go into the trace and onto the map.

        Formats: ndjson is the plan trace of docs/formats.md (a config line, one reselect line per
        reselection with its diff, one place_event line per entry or exit, one visit line per store
        visit's arrival or departure, a summary line with the oracle's misses; --trace-version 2
        writes the trace without visits, 1 without place events either); csv is one row per
        reselection; geojson is a FeatureCollection of fences, refresh circles, reselection points,
        misses and the walk; svg is a map; summary is a short table (the default when stdout is a
        terminal, ndjson otherwise). --map FILE.svg writes the map as well, whatever the format.
        Exit 1 if the oracle found an avoidable miss.
        """
    public static let options: [OptionSpec] =
        Inputs.placeOptions + [
            OptionSpec("--walk", value: "FILE", help: "Walk CSV (t, lat, lon, accuracy_m) or GPX file.", required: true),
            OptionSpec(
                "--margin", value: "M", help: "Margin past the refresh edge, meters.", computedDefault: "longest walk step + delay x speed"),
            OptionSpec("--delay", value: "S", help: "Platform delay reporting a refresh exit, seconds.", default: "0"),
            OptionSpec("--gap", value: "S", help: "Fixes more than S seconds apart are a recording gap.", default: "120"),
        ] + Inputs.plannerOptions + [
            OptionSpec(
                "--format", value: "ndjson|csv|geojson|svg|summary", help: "What to write.",
                computedDefault: "summary on a terminal, else ndjson"),
            OptionSpec("--out", value: "FILE", help: "Write the plan to FILE instead of stdout."),
            OptionSpec("--map", value: "FILE", help: "Also write an SVG map to FILE."),
            OptionSpec(
                "--html", value: "FILE",
                help: "Also write a replay to FILE: one self-contained HTML page with a time slider (open it in a browser)."),
            OptionSpec(
                "--trace-version", value: "1|2|3", help: "Plan trace version to write (2: no visit lines; 1: no place_event lines either).",
                default: "\(PlanTrace.currentVersion)"),
        ]

    public struct Options: Equatable, Sendable {
        var places: Inputs.PlaceOptions
        var walkPath: String
        var gapSeconds: Double
        /// Nil: the walk's longest step plus the delay times its fastest speed.
        var marginMeters: Double?
        var delaySeconds: Double
        /// The planner options, with a margin of 0.
        var planner: RotationConfiguration
        /// Nil: summary on a terminal without `--out`, else ndjson.
        var format: String?
        var out: String?
        var mapPath: String?
        var htmlPath: String?
        var traceVersion: Int
    }

    public static func parse(_ arguments: Arguments) throws(CommandError) -> Options {
        Options(
            places: try Inputs.requiredPlaces(arguments), walkPath: try arguments.text("--walk"),
            gapSeconds: try arguments.double("--gap", in: 0.001...1e9),
            marginMeters: try arguments.doubleIfGiven("--margin", in: 0...1_000_000),
            delaySeconds: try arguments.double("--delay", in: 0...86_400),
            planner: try Inputs.configuration(arguments),
            format: try arguments.choiceIfGiven("--format", from: ["ndjson", "csv", "geojson", "svg", "summary"]),
            out: arguments.string("--out"), mapPath: arguments.string("--map"), htmlPath: arguments.string("--html"),
            traceVersion: try arguments.int("--trace-version", in: 1...PlanTrace.currentVersion))
    }

    public static func run(_ options: Options, console: Console) throws(CommandError) {
        let places = try Inputs.places(options.places, console: console)
        let walkFile = try Inputs.walk(options.walkPath, strict: options.places.strict, console: console)
        let walk = Walk(recorded: walkFile.fixes, gapSeconds: options.gapSeconds)
        let configuration = try Inputs.configuration(
            options.planner, marginMeters: options.marginMeters ?? walk.requiredMarginMeters(delaySeconds: options.delaySeconds))
        var rotator: FenceRotator
        do {
            rotator = try FenceRotator(catalog: places.catalog, configuration: configuration)
        } catch {
            throw .usage("\(error)")
        }
        let report = MissedFenceOracle.replay(
            walk, rotator: &rotator, catalog: places.catalog, placeSlots: configuration.placeSlots,
            platformDelaySeconds: options.delaySeconds, recordUpdates: true)
        let (events, visits) = try engineEvents(walkFile.fixes, catalog: places.catalog, configuration: configuration)
        let trace = PlanTrace(
            configuration: configuration, places: places.catalog.count, defaultRadiusMeters: places.defaultRadiusMeters,
            fixes: report.fixes, updates: report.updates, missed: report.misses.count,
            placeEvents: options.traceVersion >= 2 ? events.map(\.line) : nil, visits: options.traceVersion >= 3 ? visits.map(\.line) : nil)
        var record = PlanRecord(
            catalog: places.catalog, walk: walk.samples.map(\.truePosition), updates: report.updates,
            misses: report.misses.map {
                PlanRecord.Miss(placeID: $0.placeID, position: $0.position, avoidable: $0.avoidable, timeSeconds: $0.timeSeconds)
            })
        // The engine's clock: the fixes' times when every fix has one, else their indices.
        if walkFile.fixes.allSatisfy({ $0.timestampSeconds != nil }) {
            record.times = walk.samples.map(\.timeSeconds)
        } else {
            for (i, miss) in record.misses.enumerated() {
                let nearest = record.walk.indices.min {
                    record.walk[$0].distance(to: miss.position) < record.walk[$1].distance(to: miss.position)
                }
                record.misses[i].timeSeconds = Double(nearest ?? 0)
            }
        }
        record.placeEvents = events.compactMap(\.mark)
        record.visits = visits.compactMap(\.mark)
        let title =
            "rotate plan: \(TextFormat.fixed(report.kilometers, decimals: 1)) km, "
            + "\(report.reselections) reselections, \(report.misses.count) misses"

        let out = options.out
        switch options.format ?? (console.outIsTerminal && out == nil ? "summary" : "ndjson") {
        case "ndjson":
            try TextOutput.emit(trace.ndjsonLines, out: out, console: console)
        case "csv":
            try TextOutput.emit(csvLines(trace), out: out, console: console)
        case "geojson":
            try TextOutput.emit([GeoJSONWriter.document(record)], out: out, console: console)
        case "svg":
            try TextOutput.emit([SVGMap.document(record, title: title)], out: out, console: console)
        default:
            try TextOutput.emit(
                summaryLines(
                    places: places, walkPath: options.walkPath, report: report, configuration: configuration,
                    placeEvents: events.map(\.line), visits: visits.map(\.line), mapPath: options.mapPath, htmlPath: options.htmlPath,
                    gaps: walk.gaps),
                out: out, console: console)
        }
        if let htmlPath = options.htmlPath {
            try TextOutput.write([HTMLReplay.document(record, title: title)], to: htmlPath)
        }
        if let mapPath = options.mapPath {
            try TextOutput.write([SVGMap.document(record, title: title)], to: mapPath)
        }
        if report.avoidableMisses > 0 {
            throw .failure("\(report.avoidableMisses) avoidable missed fences (see the plan's misses)")
        }
    }

    /// The event engine over the walk's fixes, each a continuous update (a fix's time, or its
    /// index when the walk has no times), with store visits on: the place events and the visits
    /// as trace lines and map marks (arrivals only on the map).
    static func engineEvents(
        _ fixes: [Fix], catalog: PlaceCatalog, configuration: RotationConfiguration
    ) throws(CommandError) -> (
        placeEvents: [(line: PlanTrace.PlaceEvent, mark: PlanRecord.PlaceMark?)],
        visits: [(line: PlanTrace.Visit, mark: PlanRecord.VisitMark?)]
    ) {
        var monitor: FenceMonitor
        var settings = FenceMonitor.Settings()
        settings.visits = VisitSettings()
        do {
            monitor = try FenceMonitor(catalog: catalog, configuration: configuration, settings: settings)
        } catch {
            throw .usage("\(error)")
        }
        let timed = fixes.allSatisfy { $0.timestampSeconds != nil }
        var events: [(line: PlanTrace.PlaceEvent, mark: PlanRecord.PlaceMark?)] = []
        var visits: [(line: PlanTrace.Visit, mark: PlanRecord.VisitMark?)] = []
        for (i, fix) in fixes.enumerated() {
            let time = timed ? fix.timestampSeconds ?? 0 : Double(i)
            let input = Fix(fix.coordinate, accuracyMeters: fix.accuracyMeters, timestampSeconds: time)
            let output = monitor.handle(.fix(input, source: .continuous))
            for event in output.visits {
                let visit = event.visit
                let line = PlanTrace.Visit(
                    fix: i, t: time, event: event.kind.rawValue, place: visit.placeID,
                    candidates: visit.candidates.map { PlanTrace.Visit.Candidate(place: $0.placeID, p: $0.probability) },
                    noneProbability: visit.noneProbability, lat: visit.coordinate.latitude, lon: visit.coordinate.longitude,
                    accuracyMeters: visit.horizontalAccuracyMeters, arrivalT: visit.arrivalSeconds, departureT: visit.departureSeconds,
                    fixes: visit.fixes)
                let probability = visit.candidates.first { $0.placeID == visit.placeID }?.probability ?? visit.noneProbability
                let mark =
                    event.kind == .arrival
                    ? PlanRecord.VisitMark(
                        placeID: visit.placeID, probability: probability, position: visit.coordinate, arrivalSeconds: visit.arrivalSeconds)
                    : nil
                visits.append((line, mark))
            }
            for event in output.placeEvents {
                var probability: Double?
                if case .fixes(let p) = event.evidence { probability = p }
                let line = PlanTrace.PlaceEvent(
                    fix: i, t: time, place: event.placeID, event: event.kind.rawValue, evidence: event.evidence.name,
                    probability: probability)
                let mark =
                    event.kind == .dwell
                    ? nil
                    : PlanRecord.PlaceMark(
                        placeID: event.placeID, position: fix.coordinate, entry: event.kind == .entry, inApp: probability != nil,
                        timeSeconds: time)
                events.append((line, mark))
            }
        }
        return (events, visits)
    }

    static func csvLines(_ trace: PlanTrace) -> [String] {
        var lines = [
            CSVWriter.row([
                "fix", "lat", "lon", "guarantee", "monitored", "refresh_id", "refresh_lat", "refresh_lon", "refresh_radius_m",
                "start", "stop", "inside_at_start", "overlapping",
            ])
        ]
        for r in trace.reselections {
            lines.append(
                CSVWriter.row([
                    String(r.fix), CSVWriter.decimal(r.lat), CSVWriter.decimal(r.lon), r.guarantee, String(r.monitored),
                    r.refresh?.id ?? "", r.refresh.map { CSVWriter.decimal($0.lat) } ?? "",
                    r.refresh.map { CSVWriter.decimal($0.lon) } ?? "",
                    r.refresh.map { CSVWriter.decimal($0.radiusMeters, decimals: 3) } ?? "",
                    r.start.joined(separator: ";"), r.stop.joined(separator: ";"), r.insideAtStart.joined(separator: ";"),
                    r.overlapping.map(String.init) ?? "",
                ]))
        }
        return lines
    }

    /// ", 2 recording gaps (longest 106 min)", or nothing for a walk without one.
    static func gapsText(_ gaps: [ClosedRange<Double>]) -> String {
        guard let longest = gaps.map({ $0.upperBound - $0.lowerBound }).max() else { return "" }
        let count = gaps.count == 1 ? "1 recording gap" : "\(TextFormat.grouped(gaps.count)) recording gaps"
        return ", \(count) (longest \(TextFormat.fixed(longest / 60, decimals: 0)) min)"
    }

    static func summaryLines(
        places: Inputs.LoadedPlaces, walkPath: String, report: OracleReport,
        configuration: RotationConfiguration, placeEvents: [PlanTrace.PlaceEvent], visits: [PlanTrace.Visit], mapPath: String?,
        htmlPath: String? = nil, gaps: [ClosedRange<Double>] = []
    ) -> [String] {
        var exact = 0, degraded = 0, saturated = 0
        for recorded in report.updates {
            switch recorded.update.selection.guarantee {
            case .exact: exact += 1
            case .degraded: degraded += 1
            case .saturated: saturated += 1
            }
        }
        var lines = [
            "rotate plan: \(TextFormat.grouped(places.catalog.count)) places (\(places.path)), walk of \(TextFormat.grouped(report.fixes)) fixes, "
                + "\(TextFormat.fixed(report.kilometers, decimals: 2)) km\(Self.gapsText(gaps)) (\(walkPath))",
            "slots          limit \(configuration.limit), headroom \(configuration.headroom): \(configuration.placeSlots) places + 1 refresh region",
            "margin         \(TextFormat.fixed(configuration.marginMeters, decimals: 1)) m; refresh radius at least \(TextFormat.fixed(configuration.minRefreshRadiusMeters, decimals: 0)) m for exact",
            "reselections   \(report.reselections) (\(TextFormat.fixed(report.perKilometer(report.reselections), decimals: 2)) per km): "
                + "\(exact) exact, \(degraded) degraded, \(saturated) saturated",
            "registrations  \(report.starts) starts, \(report.stops) stops (\(TextFormat.fixed(report.perKilometer(report.churn), decimals: 1)) per km), at most \(report.maxSlotsUsed) regions at once",
            "misses         \(report.misses.count) (\(report.avoidableMisses) avoidable)",
            "place events   \(placeEvents.filter { $0.event == "entry" }.count) entries, \(placeEvents.filter { $0.event == "exit" }.count) exits (decided in-app from the walk's fixes)",
            "visits         \(visits.filter { $0.event == "arrival" }.count) (stays of 100 m for 100 s), "
                + "\(visits.filter { $0.event == "arrival" && $0.place != nil }.count) naming a place",
        ]
        if let mapPath { lines.append("map            \(mapPath)") }
        if let htmlPath { lines.append("replay         \(htmlPath)") }
        return lines
    }
}
