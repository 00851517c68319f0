import EventEngine
import FencePlanner

/// The line server behind `rotate serve --stdio`, without I/O: one input line in, the output
/// lines for it out, over a `DeviceRegistry`. The protocol and the state file are described in
/// docs/sidecar.md.
public struct Sidecar: Sendable {
    /// The devices and the current catalog.
    public private(set) var devices: DeviceRegistry
    /// The change set the last line applied, if it was one (what a state database records).
    public private(set) var lastAppliedChanges: [CatalogChange]?
    /// Whether the last line handled was a device's input, a location report or a region event
    /// (what snapshot counts count).
    public private(set) var lastWasReport = false

    /// Whether the host keeps the device states (`rotate serve --stateless`): each device line may
    /// carry its state, every answer to a device returns the new one, and nothing is held
    /// between lines, so any replica can serve any device.
    public let stateless: Bool

    /// The smallest refresh radius an answer tells a device to register: the platform's
    /// minimum (`RotationConfiguration.minRefreshRadiusMeters`).
    private var minimumRefreshMeters: Double { devices.configuration.minRefreshRadiusMeters }

    /// A sidecar over `catalog` holding no device yet; device states come from `restore(_:from:)`,
    /// `lookUp(in:)`, or (with `stateless`) the lines themselves.
    /// With `settings.visits` (`rotate serve --visits`) every device reports store visits and
    /// every answer to a device carries `visits` (protocol version 5).
    public init(
        catalog: PlaceCatalog, configuration: RotationConfiguration, stateless: Bool = false,
        settings: FenceMonitor.Settings = FenceMonitor.Settings()
    ) {
        devices = DeviceRegistry(catalog: catalog, configuration: configuration, settings: settings)
        self.stateless = stateless
    }

    /// Whether answers carry the devices' visits (`FenceMonitor.Settings.visits` is set).
    public var reportsVisits: Bool { devices.settings.visits != nil }

    /// Replays the change sets of a JSON state file (format 2, what the sidecar wrote before its
    /// state database) over the catalog and keeps the saved device states.
    ///
    /// - Throws: `StateFileError` (with `path`) when a change set does not parse or apply, or a
    ///   device's state cannot belong to the resulting catalog.
    public mutating func restore(_ state: SidecarState, from path: String) throws(StateFileError) {
        for (i, line) in state.changeLines.enumerated() {
            guard case .success(.changes(let changes, let time)) = SidecarRequest.parse(line) else {
                throw StateFileError(path: path, reason: "saved change set #\(i) is not a change set")
            }
            do {
                try devices.apply(changes, atSeconds: time)
            } catch {
                throw StateFileError(path: path, reason: "saved change set #\(i) does not apply: \(error)")
            }
        }
        do {
            try devices.restore(state.devices)
        } catch {
            throw StateFileError(path: path, reason: error.description)
        }
    }

    /// Looks devices up in `source` (a state database) on their first input.
    public mutating func lookUp(in source: any DeviceStateSource) {
        devices.lookUp(in: source)
    }

    /// The devices whose state changed since the last call.
    public mutating func takeChangedDevices() -> Set<String> {
        devices.takeChanged()
    }

    /// The output lines for input line `number` (none for a blank line).
    ///
    /// Never throws: a line that does not parse, a change set that does not apply and a device
    /// whose state cannot be used each answer with one error line naming `number`, and the
    /// sidecar goes on with the next line. Line numbers are the caller's (1-based in
    /// `rotate serve`) and are echoed in each answer.
    ///
    /// ```swift
    /// var sidecar = Sidecar(catalog: catalog, configuration: configuration)
    /// let report = #"{"device":"phone-42","lat":46.0511,"lon":14.5051,"t":1000,"accuracy_m":8}"#
    /// for line in sidecar.handle(report, number: 1) { print(line) }  // one JSON answer: operations, events, location
    /// let changes = #"{"changes":[{"op":"remove","id":"market"}],"t":2000}"#
    /// print(sidecar.handle(changes, number: 2))  // the new catalog version and each affected device's answer
    /// ```
    public mutating func handle(_ text: String, number: Int) -> [String] {
        lastWasReport = false
        lastAppliedChanges = nil
        if text.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) { return [] }
        switch SidecarRequest.parse(text) {
        case .failure(let error):
            return [SidecarResponse.error(line: number, error.reason)]
        case .success(.changes(let changes, let time)):
            let affected: [(device: String, output: MonitorOutput)]
            do {
                affected = try devices.apply(changes, atSeconds: time)
            } catch {
                return [SidecarResponse.error(line: number, error.description)]
            }
            lastAppliedChanges = changes
            return [
                SidecarResponse.catalog(
                    line: number, version: devices.catalog.version, places: devices.catalog.count, affected: affected,
                    minimumRefreshMeters: minimumRefreshMeters, visits: reportsVisits)
            ]
        case .success(.reset(let device, let state)):
            lastWasReport = true
            if state != nil && !stateless { return [SidecarResponse.error(line: number, "'state' is read only with --stateless")] }
            var forgotten: DeviceRegistry.Forgotten
            if stateless {
                forgotten = DeviceRegistry.Forgotten(
                    refresh: state?.rotator.refresh, monitored: state?.rotator.monitored ?? [], unknown: false, existed: state != nil)
            } else {
                forgotten = devices.reset(device)
            }
            return [SidecarResponse.reset(line: number, device: device, forgotten)]
        case .success(.report(let device, let fix, let time, let source, let state)):
            let timed = Fix(fix.coordinate, accuracyMeters: fix.accuracyMeters, timestampSeconds: time)
            // Without a source, the fix is what the engine last asked the device for: one of
            // its continuous updates, or else a single fix.
            return [
                deviceInput(device, state: state, line: number) { asked in
                    let fallback: FixSource =
                        switch asked {
                        case .continuous: .continuous
                        case .networkFixes: .network
                        case .none, .significantChanges, .oneFix: .wakeFix
                        }
                    return .fix(timed, source: source ?? fallback)
                }
            ]
        case .success(.registered(let device, let ids, let time, let state)):
            return [deviceInput(device, state: state, line: number) { _ in .registered(ids, atSeconds: time) }]
        case .success(.region(let device, let report, let state)):
            return [deviceInput(device, state: state, line: number) { _ in .region(report) }]
        case .success(.motion(let device, let report, let state)):
            return [deviceInput(device, state: state, line: number) { _ in .motion(report) }]
        }
    }

    /// One device's input, made from the location service its engine asks for; with
    /// `stateless`, resumed from the state the line carries (a device starts fresh without one)
    /// and answered with the new state.
    private mutating func deviceInput(
        _ device: String, state: MonitorState?, line number: Int, _ input: (LocationRequest) -> MonitorInput
    ) -> String {
        lastWasReport = true
        if state != nil && !stateless { return SidecarResponse.error(line: number, "'state' is read only with --stateless") }
        if stateless {
            devices.forget(device)
            if let state {
                do {
                    try devices.restore([device: state])
                } catch {
                    return SidecarResponse.error(line: number, "'state' cannot resume: \(error.reason)")
                }
            }
        }
        do {
            let output = try devices.handle(input, from: device)
            guard stateless else {
                return SidecarResponse.report(
                    line: number, device: device, output: output, minimumRefreshMeters: minimumRefreshMeters, visits: reportsVisits)
            }
            let state = devices.state(of: device)
            devices.forget(device)
            return SidecarResponse.report(
                line: number, device: device, output: output, state: state, minimumRefreshMeters: minimumRefreshMeters,
                visits: reportsVisits)
        } catch {
            if stateless { devices.forget(device) }
            return SidecarResponse.error(line: number, error.description)
        }
    }
}
