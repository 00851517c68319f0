import FencePlanner
import RotateFormats

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `rotate serve --stdio`: a line-protocol sidecar for services not written in Swift.
public enum ServeCommand: Subcommand {
    public static let name = "serve"
    public static let abstract = "Serve rotations over stdin/stdout: JSON location reports and catalog changes in, diffs out."
    public static let discussion = """
        Reads one JSON object per line on stdin and writes one per line on stdout, in order:
          {"device":"d1","lat":45.81,"lon":15.97,"t":1700000000,"accuracy_m":8}
            -> {"line":1,"device":"d1","action":"update","guarantee":"exact","stop":[],"start_refresh":{...},"start":[...],...}
               or {"line":N,"device":"d1","action":"none"} while the device stays inside its refresh region
          {"changes":[{"op":"add","id":"x","lat":45.8,"lon":15.9,"radius_m":120},{"op":"remove","id":"y"}]}
            -> {"line":N,"action":"catalog","catalog_version":1,"places":501}
        ops: add (id, lat, lon, radius_m, optional name and transitions), remove (id), move (id, lat, lon),
        radius (id, radius_m), transitions (id, transitions: entry, exit or both). A device planned against
        an older catalog version is re-validated at its next report. A bad line (not JSON, unknown or
        missing fields, wrong types, out-of-range values, an unknown place) gets {"line":N,"error":"..."}
        and the stream goes on. With --state FILE, every device's state and the applied change sets are
        saved atomically (temporary file, fsync, rename) every --snapshot-every reports, at the end of
        input and on SIGTERM or SIGINT, and loaded at start; a corrupt state file stops the start (exit 1).
        """
    public static let options: [OptionSpec] = Inputs.placeOptions + [
        OptionSpec("--stdio", help: "Serve on stdin/stdout (the only transport)."),
        OptionSpec("--state", value: "FILE", help: "Load device states from FILE at start and snapshot them to it."),
        OptionSpec("--snapshot-every", value: "N", help: "Reports between snapshots.", default: "1000"),
        OptionSpec("--margin", value: "M", help: "Margin past the refresh edge, meters.", default: "0"),
    ] + Inputs.plannerOptions

    public static func run(_ arguments: Arguments, console: Console) throws(CommandError) {
        guard arguments.flag("--stdio") else { throw .usage("--stdio is required (the only transport)") }
        let statePath = arguments.string("--state")
        let snapshotEvery = try arguments.int("--snapshot-every", default: 1_000, in: 1...100_000_000)
        let configuration = try Inputs.configuration(arguments, marginMeters: try arguments.double("--margin", default: 0, in: 0...100_000))
        guard let loaded = try Inputs.places(arguments, console: console) else { return }
        var server = Server(catalog: loaded.catalog, configuration: configuration)
        if let statePath {
            do {
                if let state = try SidecarState.read(path: statePath) { try server.restore(state, from: statePath) }
            } catch {
                throw .failure("\(error)")
            }
            console.err("\(statePath): \(server.deviceCount) devices, catalog version \(server.catalog.version)")
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
        while let line = reader.next() {
            for output in server.handle(line.text, number: line.number) { console.out(output) }
            if server.lastWasReport {
                reports += 1
                if reports % snapshotEvery == 0 { try snapshot() }
            }
        }
        try snapshot()
        if Termination.requested { console.err("rotate serve: terminated; state saved") }
    }
}

/// The sidecar's state and line handling (no I/O).
struct Server {
    private(set) var catalog: PlaceCatalog
    let configuration: RotationConfiguration
    private var rotators: [String: FenceRotator] = [:]
    /// States loaded but not yet resumed (a device resumes at its first report).
    private var dormant: [String: RotatorState] = [:]
    private var changeLines: [String] = []
    private(set) var lastWasReport = false

    init(catalog: PlaceCatalog, configuration: RotationConfiguration) {
        self.catalog = catalog
        self.configuration = configuration
    }

    var deviceCount: Int { rotators.count + dormant.count }

    /// Replays the saved change sets and keeps the saved device states.
    mutating func restore(_ state: SidecarState, from path: String) throws(StateFileError) {
        for (i, line) in state.changeLines.enumerated() {
            guard case .success(.changes(let changes)) = SidecarRequest.parse(line) else {
                throw StateFileError(path: path, reason: "saved change set #\(i) is not a change set")
            }
            do {
                catalog = try catalog.applying(changes)
            } catch {
                throw StateFileError(path: path, reason: "saved change set #\(i) does not apply: \(error)")
            }
        }
        changeLines = state.changeLines
        for (device, saved) in state.devices {
            do {
                _ = try FenceRotator(catalog: catalog, configuration: configuration, state: saved)
            } catch {
                throw StateFileError(path: path, reason: "device '\(device)': \(error)")
            }
        }
        dormant = state.devices
    }

    /// Every device's current state and the change sets, to save.
    var state: SidecarState {
        var state = SidecarState()
        state.changeLines = changeLines
        state.devices = dormant
        for (device, rotator) in rotators { state.devices[device] = rotator.state }
        return state
    }

    /// The output lines for one input line.
    mutating func handle(_ text: String, number: Int) -> [String] {
        lastWasReport = false
        if text.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) { return [] }
        switch SidecarRequest.parse(text) {
        case .failure(let error):
            return [SidecarResponse.error(line: number, error.reason)]
        case .success(.changes(let changes)):
            do {
                catalog = try catalog.applying(changes)
            } catch {
                return [SidecarResponse.error(line: number, error.description)]
            }
            changeLines.append(text)
            return [SidecarResponse.catalog(line: number, version: catalog.version, places: catalog.count)]
        case .success(.report(let device, let fix, _)):
            lastWasReport = true
            var rotator: FenceRotator
            do {
                if let existing = rotators[device], existing.catalog.version == catalog.version {
                    rotator = existing
                } else if let saved = rotators[device]?.state ?? dormant[device] {
                    // Planned against another catalog version: resumed and re-validated.
                    rotator = try FenceRotator(catalog: catalog, configuration: configuration, state: saved)
                    dormant[device] = nil
                } else {
                    rotator = try FenceRotator(catalog: catalog, configuration: configuration)
                }
            } catch {
                return [SidecarResponse.error(line: number, "device '\(device)': \(error)")]
            }
            let update = rotator.update(with: fix)
            rotators[device] = rotator
            return [SidecarResponse.report(line: number, device: device, update: update)]
        }
    }
}

/// Lines of standard input, read with `poll(2)` and `read(2)` so that a wait for input notices
/// SIGTERM and SIGINT within 100 ms.
struct StandardInputLines {
    private var buffer: [UInt8] = []
    private var start = 0
    private var finished = false
    private var count = 0

    /// The next line (without its newline) and its 1-based number; nil at end of input or once
    /// termination was requested.
    mutating func next() -> (text: String, number: Int)? {
        while true {
            if Termination.requested { return nil }
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let text = String(decoding: buffer[start..<newline], as: UTF8.self)
                start = newline + 1
                count += 1
                return (text, count)
            }
            if finished {
                guard start < buffer.count else { return nil }
                let text = String(decoding: buffer[start...], as: UTF8.self)
                start = buffer.count
                count += 1
                return (text, count)
            }
            if start > 0 {
                buffer.removeFirst(start)
                start = 0
            }
            // Wait at most 100 ms at a time: a signal may be handled on another thread than this
            // one, and then it does not interrupt the wait; the flag is checked in between.
            var waiting = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiting, 1, 100)
            if ready == 0 || (ready < 0 && errno == EINTR) { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let got = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if got > 0 {
                buffer.append(contentsOf: chunk[0..<got])
            } else if got == 0 || errno != EINTR {
                finished = true
            }
        }
    }
}

/// SIGTERM and SIGINT set a flag instead of killing the process, so the sidecar saves its state
/// before it exits.
enum Termination {
    nonisolated(unsafe) static var flag: sig_atomic_t = 0

    static var requested: Bool { flag != 0 }

    static func install() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in Termination.flag = 1 }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0                      // no SA_RESTART: a blocked read returns EINTR
        sigaction(SIGTERM, &action, nil)
        sigaction(SIGINT, &action, nil)
        // A parent may have started us with these blocked (the mask is inherited): unblock them.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }
}
