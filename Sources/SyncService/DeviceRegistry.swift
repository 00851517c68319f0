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

    public init(catalog: PlaceCatalog, configuration: RotationConfiguration, settings: FenceMonitor.Settings = FenceMonitor.Settings()) {
        self.catalog = catalog
        self.configuration = configuration
        self.settings = settings
    }

    /// Devices held, resident or stored.
    public var count: Int { monitors.count + dormant.count }

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
    /// - Returns: the affected devices in id order, each with its engine's output.
    /// - Throws: `CatalogChangeError` when the changes do not apply (nothing changes then).
    @discardableResult
    public mutating func apply(_ changes: [CatalogChange]) throws(CatalogChangeError) -> [(device: String, output: MonitorOutput)] {
        let next = try catalog.applying(changes)
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
        let output = monitor.handle(input(monitor.locationRequest()))
        monitors[device] = monitor
        return output
    }

    /// The device's state, if the device is held.
    public func state(of device: String) -> MonitorState? {
        monitors[device]?.state ?? dormant[device]
    }

    /// Drops the device (a host that keeps states itself holds none here).
    public mutating func forget(_ device: String) {
        monitors[device] = nil
        dormant[device] = nil
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
