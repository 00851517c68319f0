import FencePlanner

/// The devices a service holds over one catalog, by device id: a rotator for each device that
/// reported since start, and the stored states of the others, resumed at their first report.
///
/// A device planned against an older catalog version is resumed from its state, which
/// re-validates it against the current version (`FenceRotator.init(catalog:configuration:state:)`),
/// so a catalog change reaches each device at its next report.
public struct DeviceRegistry: Sendable {
    public private(set) var catalog: PlaceCatalog
    public let configuration: RotationConfiguration
    private var rotators: [String: FenceRotator] = [:]
    /// States loaded but not yet resumed.
    private var dormant: [String: RotatorState] = [:]

    public init(catalog: PlaceCatalog, configuration: RotationConfiguration) {
        self.catalog = catalog
        self.configuration = configuration
    }

    /// Devices held, resident or stored.
    public var count: Int { rotators.count + dormant.count }

    /// Every device's current state.
    public var states: [String: RotatorState] {
        var states = dormant
        for (device, rotator) in rotators { states[device] = rotator.state }
        return states
    }

    /// Adds stored states (a device already held is replaced).
    ///
    /// - Throws: `DeviceError` naming the first device (in id order) whose state cannot belong to
    ///   the catalog and configuration; then nothing is added.
    public mutating func restore(_ states: [String: RotatorState]) throws(DeviceError) {
        for (device, state) in states.sorted(by: { $0.key < $1.key }) {
            do {
                _ = try FenceRotator(catalog: catalog, configuration: configuration, state: state)
            } catch {
                throw DeviceError(device: device, reason: "\(error)")
            }
        }
        for (device, state) in states {
            rotators[device] = nil
            dormant[device] = state
        }
    }

    /// Replaces the catalog by the next version; devices are re-validated at their next report.
    public mutating func apply(_ changes: [CatalogChange]) throws(CatalogChangeError) {
        catalog = try catalog.applying(changes)
    }

    /// Feeds one fix of `device` (a device not held yet starts fresh).
    ///
    /// - Returns: the reselection, or nil while the device stays inside its refresh region.
    /// - Throws: `DeviceError` when the configuration is invalid or a stored state cannot be resumed.
    public mutating func report(_ fix: Fix, from device: String) throws(DeviceError) -> RotationUpdate? {
        var rotator: FenceRotator
        do {
            if let existing = rotators[device], existing.catalog.version == catalog.version {
                rotator = existing
            } else if let saved = rotators[device]?.state ?? dormant[device] {
                rotator = try FenceRotator(catalog: catalog, configuration: configuration, state: saved)
                dormant[device] = nil
            } else {
                rotator = try FenceRotator(catalog: catalog, configuration: configuration)
            }
        } catch {
            throw DeviceError(device: device, reason: "\(error)")
        }
        let update = rotator.update(with: fix)
        rotators[device] = rotator
        return update
    }
}

/// A device whose state cannot be resumed or whose rotator cannot start.
public struct DeviceError: Error, Equatable, Sendable, CustomStringConvertible {
    public var device: String
    public var reason: String
    public var description: String { "device '\(device)': \(reason)" }

    public init(device: String, reason: String) {
        self.device = device
        self.reason = reason
    }
}
