import FencePlanner
import RotateFormats
import SyncService

/// `rotate serve --stdio`: a line-protocol sidecar for services not written in Swift.
public enum ServeCommand: Subcommand {
    public static let name = "serve"
    public static let abstract =
        "Serve rotations and place events over stdin/stdout: JSON location reports, region events and catalog changes in, diffs and place events out."
    public static let discussion = """
        Reads one JSON object per line on stdin and writes one per line on stdout, in order:
          {"device":"d1","lat":45.81,"lon":15.97,"t":1700000000,"accuracy_m":8}
            -> {"line":1,"device":"d1","action":"update","guarantee":"exact","stop":[],"start_refresh":{...},"start":[...],...,
                "place_events":[...],"location":{"request":"significant_changes"}}
               or {"line":N,"device":"d1","action":"none",...} while the device stays inside its refresh region
          {"device":"d1","region":"shop7","event":"entry","t":1700000040}
            -> {"line":2,"device":"d1","action":"none","place_events":[{"place":"shop7","event":"entry",...}],"location":{...}}
        Each device has an event engine: one entry and one exit per visit, from the platform's region events or
        decided from the device's fixes, and the location service it should run (docs/sidecar.md).
          {"device":"d1","registered":["shop7","refresh-0"],"t":1700000050}
            -> {"line":3,"device":"d1","action":"reconcile","in_sync":false,"stop":[...],"start_refresh":{...},"start":[...],...}
        what to stop and start so that the platform holds exactly the device's plan, after lost or partial diffs.
          {"changes":[{"op":"add","id":"x","lat":45.8,"lon":15.9,"radius_m":120},{"op":"remove","id":"y"}]}
            -> {"line":N,"action":"catalog","catalog_version":1,"places":501,"affected":[{"device":"d1","action":"update",...}]}
        ops: add (id, lat, lon, radius_m, optional name and transitions), remove (id), move (id, lat, lon),
        radius (id, radius_m), transitions (id, transitions: entry, exit or both). "affected" lists the devices
        the change reached, each with what to push now: an update valid anywhere in its old refresh circle, or a
        request for one fix; the others are re-validated at their next report. A bad line (not JSON, unknown or
        missing fields, wrong types, out-of-range values, an unknown place, a repeated key, an id over 256 bytes,
        a line over 1 MiB) gets {"line":N,"error":"..."} and the stream goes on. With --state FILE, every device's state and the applied change sets are
        saved atomically (temporary file, fsync, rename) every --snapshot-every device inputs, at the end of
        input and on SIGTERM or SIGINT, and loaded at start; a corrupt state file stops the start (exit 1).
        With --stateless the process holds no device: each device line may carry "state" (what the device's
        previous answer returned) and every answer to a device ends with the new "state", so replicas behind a
        load balancer can serve any device while the host keeps the states (docs/sidecar.md, Scaling out).
        """
    public static let options: [OptionSpec] =
        Inputs.placeOptions + [
            OptionSpec("--stdio", help: "Serve on stdin/stdout (the only transport)."),
            OptionSpec("--state", value: "FILE", help: "Load device states from FILE at start and snapshot them to it."),
            OptionSpec(
                "--stateless",
                help:
                    "Hold no device: each device line may carry its \"state\" and every answer returns the new one (any replica serves any device)."
            ),
            OptionSpec("--snapshot-every", value: "N", help: "Device inputs (reports, region events) between snapshots.", default: "1000"),
            OptionSpec("--margin", value: "M", help: "Margin past the refresh edge, meters.", default: "0"),
        ] + Inputs.plannerOptions

    public static func run(_ arguments: Arguments, console: Console) throws(CommandError) {
        guard arguments.flag("--stdio") else { throw .usage("--stdio is required (the only transport)") }
        let statePath = arguments.string("--state")
        let stateless = arguments.flag("--stateless")
        if stateless && statePath != nil { throw .usage("--stateless keeps no state: it cannot be combined with --state") }
        let snapshotEvery = try arguments.int("--snapshot-every", default: 1_000, in: 1...100_000_000)
        let configuration = try Inputs.configuration(arguments, marginMeters: try arguments.double("--margin", default: 0, in: 0...100_000))
        guard let loaded = try Inputs.places(arguments, console: console) else { return }
        var server = Sidecar(catalog: loaded.catalog, configuration: configuration, stateless: stateless)
        if let statePath {
            do {
                if let state = try SidecarState.read(path: statePath) { try server.restore(state, from: statePath) }
            } catch {
                throw .failure("\(error)")
            }
            console.err("\(statePath): \(server.devices.count) devices, catalog version \(server.devices.catalog.version)")
        }
        Termination.install()
        var reader = StandardInputLines()
        var reports = 0
        func snapshot() throws(CommandError) {
            guard let statePath else { return }
            do {
                try server.state.write(path: statePath)
            } catch {
                throw .failure("\(error)")
            }
        }
        while let next = reader.next() {
            let outputs: [String]
            switch next.line {
            case .text(let text): outputs = server.handle(text, number: next.number)
            case .tooLong(let bytes):
                outputs = [
                    SidecarResponse.error(
                        line: next.number, "line is \(bytes) bytes long; at most \(reader.maximumBytes): skipped")
                ]
            }
            for output in outputs { console.out(output) }
            if server.lastWasReport {
                reports += 1
                if reports % snapshotEvery == 0 { try snapshot() }
            }
        }
        try snapshot()
        if Termination.requested { console.err(statePath == nil ? "rotate serve: terminated" : "rotate serve: terminated; state saved") }
    }
}
