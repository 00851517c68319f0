import FenceMonitor
import FencePlanner

/// The line server behind `rotate serve --stdio`, without I/O: one input line in, the output
/// lines for it out, over a `DeviceRegistry`. The protocol and the state file are described in
/// docs/sidecar.md.
public struct Sidecar: Sendable {
    public private(set) var devices: DeviceRegistry
    /// The input lines that changed the catalog, in order, saved with the states.
    private var changeLines: [String] = []
    /// Whether the last line handled was a device's input, a location report or a region event
    /// (what snapshot counts count).
    public private(set) var lastWasReport = false

    public init(catalog: PlaceCatalog, configuration: RotationConfiguration) {
        devices = DeviceRegistry(catalog: catalog, configuration: configuration)
    }

    /// Replays the saved change sets over the catalog and keeps the saved device states.
    ///
    /// - Throws: `StateFileError` (with `path`) when a change set does not parse or apply, or a
    ///   device's state cannot belong to the resulting catalog.
    public mutating func restore(_ state: SidecarState, from path: String) throws(StateFileError) {
        for (i, line) in state.changeLines.enumerated() {
            guard case .success(.changes(let changes)) = SidecarRequest.parse(line) else {
                throw StateFileError(path: path, reason: "saved change set #\(i) is not a change set")
            }
            do {
                try devices.apply(changes)
            } catch {
                throw StateFileError(path: path, reason: "saved change set #\(i) does not apply: \(error)")
            }
        }
        do {
            try devices.restore(state.devices)
        } catch {
            throw StateFileError(path: path, reason: error.description)
        }
        changeLines = state.changeLines
    }

    /// Every device's current state and the change sets, to save.
    public var state: SidecarState {
        var state = SidecarState()
        state.changeLines = changeLines
        state.devices = devices.states
        return state
    }

    /// The output lines for input line `number` (none for a blank line).
    public mutating func handle(_ text: String, number: Int) -> [String] {
        lastWasReport = false
        if text.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) { return [] }
        switch SidecarRequest.parse(text) {
        case .failure(let error):
            return [SidecarResponse.error(line: number, error.reason)]
        case .success(.changes(let changes)):
            let affected: [(device: String, output: MonitorOutput)]
            do {
                affected = try devices.apply(changes)
            } catch {
                return [SidecarResponse.error(line: number, error.description)]
            }
            changeLines.append(text)
            return [
                SidecarResponse.catalog(line: number, version: devices.catalog.version, places: devices.catalog.count, affected: affected)
            ]
        case .success(.report(let device, let fix, let time, let source)):
            lastWasReport = true
            let timed = Fix(fix.coordinate, accuracyMeters: fix.accuracyMeters, timestampSeconds: time)
            do {
                // Without a source, the fix is what the engine last asked the device for: one of
                // its continuous updates, or else a single fix.
                let output = try devices.handle(
                    { asked in
                        let fallback: FixSource = if case .continuous = asked { .continuous } else { .wakeFix }
                        return .fix(timed, source: source ?? fallback)
                    }, from: device)
                return [SidecarResponse.report(line: number, device: device, output: output)]
            } catch {
                return [SidecarResponse.error(line: number, error.description)]
            }
        case .success(.registered(let device, let ids, let time)):
            lastWasReport = true
            do {
                let output = try devices.handle(.registered(ids, atSeconds: time), from: device)
                return [SidecarResponse.report(line: number, device: device, output: output)]
            } catch {
                return [SidecarResponse.error(line: number, error.description)]
            }
        case .success(.region(let device, let report)):
            lastWasReport = true
            do {
                let output = try devices.handle(.region(report), from: device)
                return [SidecarResponse.report(line: number, device: device, output: output)]
            } catch {
                return [SidecarResponse.error(line: number, error.description)]
            }
        }
    }
}
