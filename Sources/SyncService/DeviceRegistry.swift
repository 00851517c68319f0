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

    /// Replaces the catalog by the next version; devices are re-validated at their next input.
    public mutating func apply(_ changes: [CatalogChange]) throws(CatalogChangeError) {
        catalog = try catalog.applying(changes)
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
