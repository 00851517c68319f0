import FenceMonitor
import FencePlanner

/// The devices a service holds over one catalog, by device id: an event engine (`FenceMonitor`)
/// for each device that reported since start, and the stored states of the others, resumed at
/// their first input.
///
/// A device planned against an older catalog version is resumed from its state, which
/// re-validates it against the current version (`FenceRotator.init(catalog:configuration:state:)`),
/// so a catalog change reaches each device at its next input; a visit under way in a place the
/// change removed or redefined ends then.
public struct DeviceRegistry: Sendable {
    public private(set) var catalog: PlaceCatalog
    public let configuration: RotationConfiguration
    public let settings: FenceMonitor.Settings
    private var monitors: [String: FenceMonitor] = [:]
    /// States loaded but not yet resumed.
    private var dormant: [String: MonitorState] = [:]
    /// Where states of devices not held yet are looked up, on their first input (a database
    /// read lazily after a restart); all of them are loaded at the first catalog change.
    public private(set) var source: (any DeviceStateSource)?
    /// Devices whose state changed in a way worth storing since the last `takeChanged()`.
    private var changed: Set<String> = []

    public init(catalog: PlaceCatalog, configuration: RotationConfiguration, settings: FenceMonitor.Settings = FenceMonitor.Settings()) {
        self.catalog = catalog
        self.configuration = configuration
        self.settings = settings
    }

    /// Devices held, resident or stored (without those still in `source`).
    public var count: Int { monitors.count + dormant.count }

    /// Looks devices not held up in `source` from now on.
    public mutating func lookUp(in source: any DeviceStateSource) {
        self.source = source
    }

    /// The devices whose state changed in a way worth storing since the last call (see
    /// `isWorthStoring(_:after:)`; a catalog change or a restore always is), in no particular
    /// order; the set starts over empty.
    public mutating func takeChanged() -> Set<String> {
        defer { changed = [] }
        return changed
    }

    /// Loads every state `source` still holds (those not held already), and stops looking up.
    private mutating func loadSource() throws(DeviceError) {
        guard let source else { return }
        for (device, state) in try source.storedStates() where monitors[device] == nil && dormant[device] == nil {
            dormant[device] = state
        }
        self.source = nil
    }

    /// Every device's current state.
    public var states: [String: MonitorState] {
        var states = dormant
        for (device, monitor) in monitors { states[device] = monitor.state }
        return states
    }

    /// Adds stored states (a device already held is replaced).
    ///
    /// - Throws: `DeviceError` naming the first device (in id order) whose state cannot belong to
    ///   the catalog and configuration; then nothing is added.
    public mutating func restore(_ states: [String: MonitorState]) throws(DeviceError) {
        for (device, state) in states.sorted(by: { $0.key < $1.key }) {
            do {
                _ = try FenceMonitor(catalog: catalog, configuration: configuration, settings: settings, state: state)
            } catch {
                throw DeviceError(device: device, reason: "\(error)")
            }
        }
        for (device, state) in states {
            monitors[device] = nil
            dormant[device] = state
            changed.insert(device)
        }
    }

    /// Replaces the catalog by the next version and hands it to every device it affects, found
    /// with a `DeviceStateIndex` over the devices' rotator states: a device whose monitored place
    /// changed or went, or that a changed place now reaches, or without a refresh region. Each of
    /// them gets the engine's answer to the new catalog: a plan to push when one holds wherever
    /// the device may be, otherwise a request for one fix, and the exits of visits in places the
    /// change removed or redefined. The other devices are re-validated at their next input (and
    /// re-stamped with the new version).
    ///
    /// Every state still in `source` is loaded first (once).
    ///
    /// - Returns: the affected devices in id order, each with its engine's output.
    /// - Throws: `ChangeSetError` when the changes do not apply or a state in `source` does not
    ///   read (nothing changes then).
    @discardableResult
    public mutating func apply(_ changes: [CatalogChange]) throws(ChangeSetError) -> [(device: String, output: MonitorOutput)] {
        let next: PlaceCatalog
        do {
            next = try catalog.applying(changes)
        } catch {
            throw .changes(error)
        }
        do {
            try loadSource()
        } catch {
            throw .storedState(error)
        }
        let held = states.map { ($0.key, $0.value.rotator) }.sorted { $0.0 < $1.0 }
        let index = DeviceStateIndex(states: held, catalog: catalog, configuration: configuration)
        var answers: [(device: String, output: MonitorOutput)] = []
        for device in index.affectedDevices(by: changes, next: next) {
            var monitor: FenceMonitor
            if let resident = monitors[device] {
                monitor = resident
            } else if let saved = dormant[device],
                let resumed = try? FenceMonitor(catalog: catalog, configuration: configuration, settings: settings, state: saved)
            {
                monitor = resumed
                dormant[device] = nil
            } else {
                continue  // a state that cannot be resumed fails at the device's next input, with its reason
            }
            let output = monitor.handle(.catalog(next, atSeconds: monitor.state.lastInputSeconds ?? 0))
            monitors[device] = monitor
            changed.insert(device)
            answers.append((device, output))
        }
        catalog = next
        return answers
    }

    /// Hands one input of `device` to its engine (a device not held yet starts fresh).
    ///
    /// - Throws: `DeviceError` when the configuration is invalid or a stored state cannot be resumed.
    public mutating func handle(_ input: MonitorInput, from device: String) throws(DeviceError) -> MonitorOutput {
        try handle({ _ in input }, from: device)
    }

    /// `handle(_:from:)` with the input made from the location service the device's engine asks
    /// for now (`oneFix` for a device starting fresh): a fix that does not say its source counts
    /// as what was asked for.
    public mutating func handle(
        _ input: (LocationRequest) -> MonitorInput, from device: String
    ) throws(DeviceError) -> MonitorOutput {
        var monitor: FenceMonitor
        do {
            if monitors[device] == nil, dormant[device] == nil, let source, let stored = try source.storedState(of: device) {
                dormant[device] = stored
            }
            if let existing = monitors[device], existing.catalog.version == catalog.version {
                monitor = existing
            } else if let saved = monitors[device]?.state ?? dormant[device] {
                monitor = try FenceMonitor(catalog: catalog, configuration: configuration, settings: settings, state: saved)
                dormant[device] = nil
            } else {
                monitor = try FenceMonitor(catalog: catalog, configuration: configuration, settings: settings)
            }
        } catch {
            throw DeviceError(device: device, reason: "\(error)")
        }
        let before = monitor.state
        let output = monitor.handle(input(monitor.locationRequest()))
        if Self.isWorthStoring(monitor.state, after: before) { changed.insert(device) }
        monitors[device] = monitor
        return output
    }

    /// Whether `state` differs from `previous` in more than the time and place of the device's
    /// last fix: its registrations, guarantee or catalog version, the places it is deciding, its
    /// pending flags. While places are being decided the last fix counts too (it starts the next
    /// fix's dwell distance). A report that changes nothing else (most reports: the device is
    /// still inside its refresh region and near no place) need not be stored: resumed from the
    /// older state, the device gives the same answers to reports in order, and only refuses a
    /// report older than its last one from the stored time on.
    public static func isWorthStoring(_ state: MonitorState, after previous: MonitorState) -> Bool {
        if state.rotator != previous.rotator || state.tracks != previous.tracks || state.refreshExitPending != previous.refreshExitPending
            || state.resetPending != previous.resetPending || state.lastTrustedFixContinuous != previous.lastTrustedFixContinuous
            || state.formatVersion != previous.formatVersion
        {
            return true
        }
        guard !state.tracks.isEmpty else { return false }
        return state.lastTrustedFix != previous.lastTrustedFix || state.lastTrustedFixSeconds != previous.lastTrustedFixSeconds
            || state.lastInputSeconds != previous.lastInputSeconds || state.lastFixSeconds != previous.lastFixSeconds
    }

    /// The device's state, if the device is held.
    public func state(of device: String) -> MonitorState? {
        monitors[device]?.state ?? dormant[device]
    }

    /// Drops the device (a host that keeps states itself holds none here).
    public mutating func forget(_ device: String) {
        monitors[device] = nil
        dormant[device] = nil
        changed.remove(device)
    }

    /// The device's rotator (what its platform holds), if the device is held.
    public func rotatorState(of device: String) -> RotatorState? {
        monitors[device]?.rotator.state ?? dormant[device]?.rotator
    }
}

/// A device whose state cannot be resumed or whose engine cannot start.
public struct DeviceError: Error, Equatable, Sendable, CustomStringConvertible {
    public var device: String
    public var reason: String
    public var description: String { "device '\(device)': \(reason)" }

    public init(device: String, reason: String) {
        self.device = device
        self.reason = reason
    }
}

/// Where a `DeviceRegistry` finds the states of devices it does not hold yet (the sidecar's
/// state database).
public protocol DeviceStateSource: AnyObject, Sendable {
    /// The device's stored state; nil when none is stored.
    func storedState(of device: String) throws(DeviceError) -> MonitorState?
    /// Every stored state, by device id.
    func storedStates() throws(DeviceError) -> [String: MonitorState]
}

/// A change set a `DeviceRegistry` cannot apply.
public enum ChangeSetError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The changes do not apply to the catalog.
    case changes(CatalogChangeError)
    /// A stored state, loaded to find the devices the change affects, does not read.
    case storedState(DeviceError)

    public var description: String {
        switch self {
        case .changes(let error): error.description
        case .storedState(let error): error.description
        }
    }
}
