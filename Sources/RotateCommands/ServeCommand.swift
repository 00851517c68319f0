import EventEngine
import FencePlanner
import RotateFormats
import StateStore
import SyncService

/// `rotate serve --stdio`: a line-protocol sidecar for services not written in Swift.
public enum ServeCommand: Subcommand {
    public static let name = "serve"
    public static let abstract =
        "Serve rotations and place events over stdin/stdout: JSON location reports, region events and catalog changes in, diffs and place events out."
    public static let discussion = """
        Reads one JSON object per line on stdin and writes one per line on stdout, in order
        (docs/sidecar.md has the whole protocol):

          {"device":"d1","lat":45.81,"lon":15.97,"t":1700000000,"accuracy_m":8}
            -> {"line":1,"device":"d1","action":"update","guarantee":"exact","stop":[],
                "start_refresh":{...},"start":[...],...,"place_events":[...],
                "location":{"request":"significant_changes"}}
               or {"line":N,"device":"d1","action":"none",...} while the device stays inside
               its refresh region
          {"device":"d1","region":"shop7","event":"entry","t":1700000040}
            -> {"line":2,"device":"d1","action":"none",
                "place_events":[{"place":"shop7","event":"entry",...}],"location":{...}}

        Each device has an event engine: one entry and one exit per visit, from the platform's
        region events or decided from the device's fixes, and the location service it should run.

          {"device":"d1","registered":["shop7","refresh-0"],"t":1700000050}
            -> {"line":3,"device":"d1","action":"reconcile","in_sync":false,"stop":[...],
                "start_refresh":{...},"start":[...],...}

        says what to stop and start so that the platform holds exactly the device's plan, after
        lost or partial diffs.

          {"device":"d1","reset":true}
            -> {"line":4,"device":"d1","action":"reset","stop_refresh":"refresh-0","stop":[...],
                "stop_all":false}

        forgets the device (it starts over at its next report) and says what to unregister.

          {"changes":[{"op":"add","id":"x","lat":45.8,"lon":15.9,"radius_m":120},
                      {"op":"remove","id":"y"}]}
            -> {"line":N,"action":"catalog","catalog_version":1,"places":501,
                "affected":[{"device":"d1","action":"update",...}]}

        ops: add (id, lat, lon, radius_m, optional name and transitions), remove (id), move (id,
        lat, lon), radius (id, radius_m), transitions (id, transitions: entry, exit or both).
        "affected" lists the devices the change reached, each with what to push now: an update
        valid anywhere in its old refresh circle, or a request for one fix; the others are
        re-validated at their next report.

        A bad line (not JSON, unknown or missing fields, wrong types, out-of-range values, an
        unknown place, a repeated key, an id over 256 bytes, a line over 1 MiB, bytes that are not
        UTF-8, a time "t" outside 0...1e10 s) gets {"line":N,"error":"..."} and the stream goes on.
        Ids are compared in Unicode NFC (canonically equal spellings are one id).

        With --state FILE, device states and the catalog's current version are kept in a SQLite
        database (WAL): each commit writes the devices that changed and the change sets applied.
        --durability always answers only after the line's commit is on disk (lines that arrive
        together share one); batch (the default) commits every --commit-every device inputs, every
        100 ms and whenever input pauses, and may lose what came after the last commit if the
        process dies; none writes only at a clean end (end of input, SIGTERM, SIGINT). At start the
        database's devices are restored (each read at its next input); stderr says how many and how
        many input lines were committed, so a host can resend the rest. A file that is not a rotate
        database, of another schema or corrupt stops the start (exit 1), and so does a database
        another process serves (FILE.lock); a device whose stored state is damaged is refused alone
        until reset. A commit that fails stops the sidecar (exit 1) and nothing after the last
        commit is answered. A JSON state file of an earlier version is migrated once (and kept as
        FILE.json).

        With --visits every device also reports store visits: each answer to a device carries
        "visits", the engine's arrivals and departures (a stay of 100 m for 100 s), each with the
        place as a posterior over the places near it and "none of them" (protocol version 5;
        without --visits the lines are version 4's). The engine then asks for "network_fixes" at
        times (a Wi-Fi or cell position every "interval_s", GNSS off). --visit-budget (which implies
        --visits) sets how much battery the engine's own location may cost: low-power, balanced (the
        default), responsive or passages (GNSS kept on to enter every fence passed where the regions
        cannot protect every place), or an average in mW. Under a number the engine gives up goals as
        its account runs short, and says so in "given_up". "location" says "source":"network" when a
        one_fix may come from Wi-Fi or cell (every preset but passages). --approach M (with --visits)
        registers each place smaller than M meters by a circle of M around it, an approach region
        the phone resolves: "start" operations then carry that radius, the platform's entry of it
        is no place event but a cue to look for a stop, and the fixes decide the place.

        With --stateless the process holds no device: each device line may carry "state" (what the
        device's previous answer returned) and every answer to a device ends with the new "state",
        so replicas behind a load balancer can serve any device while the host keeps the states
        (docs/sidecar.md, Scaling out).
        """
    public static let options: [OptionSpec] =
        [OptionSpec("--stdio", help: "Serve on stdin/stdout (the only transport).", required: true)] + Inputs.placeOptions + [
            OptionSpec(
                "--state", value: "FILE", help: "Keep device states and the catalog in the SQLite database FILE (created if missing)."),
            OptionSpec(
                "--durability", value: "always|batch|none", help: "When --state commits: before each answer, in batches, or at the end.",
                default: "batch"),
            commitEvery,
            OptionSpec(
                "--stateless",
                help:
                    "Hold no device: each device line may carry its \"state\" and every answer returns the new one (any replica serves any device)."
            ),
            .alias("--snapshot-every", of: commitEvery),
            OptionSpec(
                "--visits",
                help:
                    "Report store visits: every answer to a device carries \"visits\" (arrivals and departures, the place as a posterior; protocol version 5)."
            ),
            OptionSpec(
                "--visit-budget", value: VisitBudgetOption.valueName,
                help:
                    "Store visits within a battery budget (implies --visits, whose budget is otherwise balanced): a preset, or the average mW each device's own location may cost (protocol version 6: \"given_up\", one_fix \"source\")."
            ),
            OptionSpec(
                "--approach", value: "M",
                help:
                    "With --visits: register places smaller than M meters by a circle of M around them (an approach region the phone resolves; its entry cues a look for a stop, and the fixes decide the place); 0: every place by its own fence.",
                default: "0"),
            OptionSpec(
                "--footprint-cushion", value: "M",
                help:
                    "Register each polygon footprint by its enclosing circle widened by M meters (and at least --approach), so the phone notices the approach before the footprint; the fixes decide the visit.",
                default: "0"),
            OptionSpec("--margin", value: "M", help: "Margin past the refresh edge, meters.", default: "0"),
        ] + Inputs.plannerOptions
    static let commitEvery = OptionSpec(
        "--commit-every", value: "N", help: "With --durability batch: device inputs between commits at most.", default: "10000")

    public struct Options: Equatable, Sendable {
        var places: Inputs.PlaceOptions
        var statePath: String?
        var stateless: Bool
        var durability: Durability
        var commitEvery: Int
        var configuration: RotationConfiguration
        var visits: Bool
        /// The devices' battery budget when `--visit-budget` is given (nil: the defaults).
        var visitBudget: VisitBudgetOption?
        /// Places smaller than this are registered by an approach region (nil: none).
        var approachRadiusMeters: Double?
        /// Footprints are registered by their enclosing circle widened by this, meters.
        var footprintCushionMeters = 0.0
    }

    public static func parse(_ arguments: Arguments) throws(CommandError) -> Options {
        let statePath = arguments.string("--state")
        let stateless = arguments.flag("--stateless")
        if stateless && statePath != nil { throw .usage("--stateless keeps no state: it cannot be combined with --state") }
        let durability = try arguments.choice("--durability", of: Durability.self)
        if arguments.isGiven("--durability") && statePath == nil { throw .usage("--durability needs --state FILE") }
        let commitEvery = try arguments.int("--commit-every", in: 1...100_000_000)
        let margin = try arguments.double("--margin", in: 0...100_000)
        let visits = arguments.flag("--visits") || arguments.isGiven("--visit-budget")
        let approach = try arguments.double("--approach", in: 0...400_000)
        if approach > 0 && !visits { throw .usage("--approach needs --visits (its regions cue store visits)") }
        return Options(
            places: try Inputs.requiredPlaces(arguments), statePath: statePath, stateless: stateless,
            durability: durability, commitEvery: commitEvery,
            configuration: try Inputs.configuration(Inputs.configuration(arguments), marginMeters: margin),
            visits: visits, visitBudget: arguments.isGiven("--visit-budget") ? try VisitBudgetOption.parse(arguments) : nil,
            approachRadiusMeters: approach > 0 ? approach : nil,
            footprintCushionMeters: try arguments.double("--footprint-cushion", in: 0...400_000))
    }

    public static func run(_ options: Options, console: Console) throws(CommandError) {
        let loaded = try Inputs.places(options.places, console: console)
        var catalog = loaded.catalog
        if options.approachRadiusMeters != nil || options.footprintCushionMeters > 0 {
            do {
                catalog = try catalog.withApproach(
                    radiusMeters: options.approachRadiusMeters, footprintCushionMeters: options.footprintCushionMeters)
            } catch {
                throw .usage(
                    "--approach \(options.approachRadiusMeters ?? 0), --footprint-cushion \(options.footprintCushionMeters): \(error)")
            }
        }
        var settings = FenceMonitor.Settings()
        if options.visits { settings.visits = options.visitBudget?.settings(energy: .iOS) ?? VisitSettings() }
        var server: Sidecar
        var store: SidecarStore?
        if let statePath = options.statePath {
            do {
                (store, server) = try SidecarStore.open(
                    path: statePath, catalog: catalog, configuration: options.configuration, durability: options.durability,
                    settings: settings)
            } catch {
                throw .failure("\(error)")
            }
            if let store { console.err(store.summary) }
        } else {
            server = Sidecar(
                catalog: catalog, configuration: options.configuration, stateless: options.stateless, settings: settings)
        }
        Termination.install()
        try answer(&server, store: store, commitEvery: options.commitEvery, console: console)
        do {
            try store?.close()
        } catch {
            throw .failure("\(error)")
        }
        if Termination.requested {
            console.err(options.statePath == nil ? "rotate serve: terminated" : "rotate serve: terminated; state saved")
        }
    }

    /// Answers every line of stdin in order until its end (or SIGTERM, SIGINT), committing to
    /// `store` as its durability says, and commits what is left.
    static func answer(_ server: inout Sidecar, store: SidecarStore?, commitEvery: Int, console: Console) throws(CommandError) {
        var reader = StandardInputLines()
        var answers = AnswerBuffer()
        var lines = 0, inputsSinceCommit = 0
        let clock = ContinuousClock()
        var lastCommit = clock.now
        func commit(wait: Bool) throws(CommandError) {
            guard let store else { return }
            do {
                try store.commit(&server, linesHandled: lines, wait: wait)
            } catch {
                // A failed commit answers nothing more: the answers waiting in the buffer belong
                // to lines whose changes are not committed (under `always`, to this very commit),
                // and a host told of a plan the database does not hold would diverge from it
                // after a restart. The restart says which lines are committed.
                throw .failure("\(error); nothing after the last commit is answered (\(lines) lines read)")
            }
            inputsSinceCommit = 0
            lastCommit = clock.now
        }
        while let next = reader.next() {
            switch next.line {
            case .text(let text):
                for output in server.handle(text, number: next.number) { answers.append(output) }
                store?.recordChanges(of: server)
            case .tooLong(_, blank: true):
                break  // a blank line, however long, gets no answer
            case .tooLong(let bytes, blank: false):
                answers.append(
                    SidecarResponse.error(line: next.number, "line is \(bytes) bytes long; at most \(reader.maximumBytes): skipped"))
            case .invalidUTF8(let offset):
                answers.append(SidecarResponse.error(line: next.number, "not valid UTF-8 (byte \(offset + 1) of the line)"))
            }
            lines += 1
            if server.lastWasReport { inputsSinceCommit += 1 }
            let idle = reader.wouldWait(), pause = idle || answers.isFull
            switch store?.durability {
            case .always?:
                // Group commit: the lines read together are committed, then answered.
                if pause { try commit(wait: true) }
            case .batch?:
                if inputsSinceCommit >= commitEvery || (idle && inputsSinceCommit > 0)
                    || clock.now - lastCommit >= SidecarStore.commitInterval
                {
                    try commit(wait: false)
                }
            case .none?, nil:
                break
            }
            if pause { answers.write(to: console) }
        }
        try commit(wait: true)
        answers.write(to: console)
    }
}

/// Answer lines collected and written in one call (the sidecar writes them when its input
/// pauses, when 64 KiB are waiting, and, with `--durability always`, only after their commit).
private struct AnswerBuffer {
    private var text = ""

    var isFull: Bool { text.utf8.count >= 1 << 16 }

    mutating func append(_ line: String) {
        text += line
        text += "\n"
    }

    mutating func write(to console: Console) {
        guard !text.isEmpty else { return }
        text.removeLast()
        console.out(text)
        text.removeAll(keepingCapacity: true)
    }
}
