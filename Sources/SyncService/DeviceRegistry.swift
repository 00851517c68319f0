import EventEngine
import FencePlanner

/// The devices a service holds over one catalog, by device id: each device's event-engine state,
/// packed against the current catalog (`PackedMonitorState`, a few hundred bytes), and an engine
/// (`FenceMonitor`) made from it for each input: scratch buffers and caches belong to the input
/// being handled, not to the device.
///
/// A device planned against an older catalog version is resumed from its state, which
/// re-validates it against the current version (`FenceRotator.init(catalog:configuration:state:)`),
/// so a catalog change reaches each device at its next input; a visit under way in a place the
/// change removed or redefined ends then.
public struct DeviceRegistry: Sendable {
    /// The current catalog version (replaced by `apply(_:atSeconds:)`).
    public private(set) var catalog: PlaceCatalog
    /// The configuration every device is planned with (validated when a device's engine starts).
    public let configuration: RotationConfiguration
    /// The event engine's settings for every device.
    public let settings: FenceMonitor.Settings
    /// Every device held, its state packed against `catalog`.
    private var held = PackedStates()
    /// Where states of devices not held yet are looked up, on their first input (a database
    /// read lazily after a restart); all of them are loaded at the first catalog change.
    public private(set) var source: (any DeviceStateSource)?
    /// Devices whose state changed in a way worth storing since the last `takeChanged()`.
    private var changed: Set<String> = []
    /// The engine of the last input, kept as scratch for the next (its buffers and caches hold
    /// nothing of the device).
    private var worker: FenceMonitor?
    /// A device's state before its first input.
    private var freshState: PackedMonitorState
    /// Devices whose stored state does not read (damaged, or no longer resumable), with the
    /// reason: their inputs are refused with it until the host resets them (`reset(_:)`), while
    /// every other device goes on.
    public private(set) var unreadable: [String: String] = [:]

    /// A registry holding no device yet. Nothing is validated here: an invalid configuration makes
    /// every device's input fail with a `DeviceError`.
    public init(catalog: PlaceCatalog, configuration: RotationConfiguration, settings: FenceMonitor.Settings = FenceMonitor.Settings()) {
        self.catalog = catalog
        self.configuration = configuration
        self.settings = settings
        freshState = PackedMonitorState(MonitorState(), in: catalog)
    }

    /// Devices held (without those still only in `source`).
    public var count: Int { held.count }

    /// Every held device's current state.
    public var states: [String: MonitorState] {
        var states: [String: MonitorState] = [:]
        for (device, state) in held.all { states[device] = state.unpacked(in: catalog) }
        return states
    }

    /// Looks devices not held up in `source` from now on.
    public mutating func lookUp(in source: any DeviceStateSource) {
        self.source = source
    }

    /// The devices whose state changed in a way worth storing since the last call (see
    /// `MonitorState.isWorthStoring(comparedTo:)`; a catalog change or a restore always is), in no particular
    /// order; the set starts over empty.
    public mutating func takeChanged() -> Set<String> {
        defer { changed = [] }
        return changed
    }

    /// Loads every state `source` still holds (those not held already), and stops looking up.
    /// A state that does not read, or does not resume over the catalog, makes its device
    /// unreadable (`unreadable`) instead of failing the load: one damaged row stops one device.
    ///
    /// - Throws: `DeviceError` when the source itself cannot be read (nothing is loaded then).
    private mutating func loadSource() throws(DeviceError) {
        guard let source else { return }
        for (device, stored) in try source.storedStates(in: catalog) where held[device] == nil && unreadable[device] == nil {
            do {
                held[device] = try packed(try stored.get(), of: device)
            } catch {
                unreadable[device] = error.reason
            }
        }
        self.source = nil
    }

    /// A stored state packed against the catalog, once it is known to resume.
    private func packed(_ state: MonitorState, of device: String) throws(DeviceError) -> PackedMonitorState {
        do {
            _ = try FenceMonitor(catalog: catalog, configuration: configuration, settings: settings, state: state)
        } catch {
            throw DeviceError(device: device, reason: "\(error)")
        }
        return PackedMonitorState(state, in: catalog)
    }

    /// Adds stored states (a device already held is replaced).
    ///
    /// - Throws: `DeviceError` naming the first device (in id order) whose state cannot belong to
    ///   the catalog and configuration; then nothing is added.
    public mutating func restore(_ states: [String: MonitorState]) throws(DeviceError) {
        var packed: [(String, PackedMonitorState)] = []
        for (device, state) in states.sorted(by: { $0.key < $1.key }) { packed.append((device, try self.packed(state, of: device))) }
        for (device, state) in packed {
            held[device] = state
            changed.insert(device)
        }
    }

    /// Replaces the catalog by the next version and hands it to every device it affects, found
    /// with a `DeviceStateIndex` over the devices' packed rotator states: a device whose
    /// monitored place changed or went, or that a changed place now reaches, or without a refresh
    /// region. Each of them gets the engine's answer to the new catalog: a plan to push when one
    /// holds wherever the device may be, otherwise a request for one fix, and the exits of visits
    /// in places the change removed or redefined. The other devices are re-validated at their
    /// next input (and re-stamped with the new version); their packed states move to the new
    /// catalog's positions. Every state still in `source` is loaded first (once).
    ///
    /// A visit under way in a place the change removed or redefined ends with a `catalogChange`
    /// exit stamped `time`, when the change took effect on the devices' clock, and never before
    /// the device's last input (it was known to be inside until then); without `time`, at the
    /// device's last input: the last moment it was known inside, as the registry has no clock
    /// of its own on the devices' scale.
    ///
    /// ```swift
    /// var registry = DeviceRegistry(catalog: catalog, configuration: configuration)
    /// let changes: [CatalogChange] = [.remove(id: "market"), .setRadius(id: "library", meters: 150)]
    /// for (device, output) in try registry.apply(changes, atSeconds: 2_000) {
    ///     push(output.operations, to: device)  // or ask for one fix when output.location is .oneFix
    /// }
    /// print(registry.catalog.version)  // one more than before
    /// ```
    ///
    /// - Returns: the affected devices in id order, each with its engine's output.
    /// - Throws: `ChangeSetError` when the changes do not apply or the stored states cannot be
    ///   read at all (nothing changes then); a single state that does not read makes its device
    ///   unreadable (`unreadable`) and the change goes on.
    @discardableResult
    public mutating func apply(
        _ changes: [CatalogChange], atSeconds time: Double? = nil
    ) throws(ChangeSetError) -> [(device: String, output: MonitorOutput)] {
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
        let index = DeviceStateIndex(
            packedStates: held.all.lazy.map { ($0.0, $0.1.rotator) }, catalog: catalog.planning, configuration: configuration)
        var answers: [(device: String, output: MonitorOutput)] = []
        var handed: [String: PackedMonitorState] = [:]
        for device in index.affectedDevices(by: changes, next: next.planning).sorted() {
            guard let state = held[device],
                var monitor = try? FenceMonitor(catalog: catalog, configuration: configuration, settings: settings, packed: state)
            else { continue }  // a state that cannot be resumed fails at the device's next input, with its reason
            let last = monitor.state.lastInputSeconds
            let output = monitor.handle(.catalog(next, atSeconds: max(time ?? last ?? 0, last ?? -.infinity)))
            handed[device] = monitor.packedState
            changed.insert(device)
            answers.append((device, output))
        }
        let map = PackedRotatorState.positionMap(from: catalog.planning, to: next.planning)
        held.update { device, state in state = handed[device] ?? state.repacked(from: catalog, to: next, positionMap: map) }
        catalog = next
        freshState = PackedMonitorState(MonitorState(), in: catalog)
        worker = nil
        return answers
    }

    /// Hands one input of `device` to its engine (a device not held yet starts fresh).
    ///
    /// An input the engine ignores for a device not held yet creates no device.
    ///
    /// ```swift
    /// var registry = DeviceRegistry(catalog: catalog, configuration: configuration)
    /// let fix = Fix(try Coordinate(latitude: 46.0511, longitude: 14.5051), accuracyMeters: 8, timestampSeconds: 1_000)
    /// let output = try registry.handle(.fix(fix, source: .wakeFix), from: "phone-42")
    /// for operation in output.operations { print(operation) }  // what phone-42 registers, in order
    /// let toStore = registry.takeChanged()  // ["phone-42"]: a new device is worth storing
    /// ```
    ///
    /// - Throws: `DeviceError` naming the device when the configuration is invalid, its stored
    ///   state cannot be read from `source` or cannot be resumed, or its state was found unreadable
    ///   earlier (until `reset(_:)`).
    public mutating func handle(_ input: MonitorInput, from device: String) throws(DeviceError) -> MonitorOutput {
        try handle({ _ in input }, from: device)
    }

    /// `handle(_:from:)` with the input made from the location service the device's engine asks
    /// for now (`oneFix` for a device starting fresh): a fix that does not say its source counts
    /// as what was asked for.
    ///
    /// - Throws: `DeviceError`, as `handle(_:from:)` throws it.
    public mutating func handle(
        _ input: (LocationRequest) -> MonitorInput, from device: String
    ) throws(DeviceError) -> MonitorOutput {
        if !unreadable.isEmpty, let reason = unreadable[device] { throw DeviceError(device: device, reason: reason) }
        var slot = held.slot(of: device)
        if slot == nil, let source {
            do {
                if let stored = try source.storedState(of: device, in: catalog) {
                    slot = held.insert(try packed(stored, of: device), for: device)
                }
            } catch {
                unreadable[device] = error.reason
                throw error
            }
        }
        let storedVersion = slot.flatMap { held[$0].rotator.catalogVersion }
        // The engine of the last input, moved out (not copied) so that its buffers stay uniquely
        // referenced while this input uses them.
        var monitor: FenceMonitor
        do {
            if var scratch = worker.take(), scratch.catalog.version == catalog.version {
                if let slot { try scratch.resume(packed: held[slot]) } else { try scratch.resume(packed: freshState) }
                monitor = consume scratch
            } else if let slot {
                monitor = try FenceMonitor(catalog: catalog, configuration: configuration, settings: settings, packed: held[slot])
            } else {
                monitor = try FenceMonitor(catalog: catalog, configuration: configuration, settings: settings, packed: freshState)
            }
        } catch {
            throw DeviceError(device: device, reason: "\(error)")
        }
        let before = monitor.state
        let output = monitor.handle(input(monitor.locationRequest()))
        // An input ignored by a device not held yet creates nothing: a stream of region events
        // for unknown ids would otherwise fill the memory and the database with empty devices.
        if slot == nil, output.ignored != nil {
            worker = consume monitor
            return output
        }
        // A fresh device, and a state re-stamped when it resumed, are worth storing too.
        if slot == nil || monitor.state.isWorthStoring(comparedTo: before)
            || monitor.state.rotator.catalogVersion != storedVersion
        {
            changed.insert(device)
        }
        if let slot, monitor.state.rotator == before.rotator {
            held[slot].replaceOthers(with: monitor.state)
        } else if let slot {
            held[slot] = monitor.packedState
        } else {
            held.insert(monitor.packedState, for: device)
        }
        worker = consume monitor
        return output
    }

    /// The device's state, if the device is held.
    public func state(of device: String) -> MonitorState? {
        held[device]?.unpacked(in: catalog)
    }

    /// What a device held before `reset(_:)`: the regions its platform should stop monitoring.
    public struct Forgotten: Equatable, Sendable {
        /// The refresh region registered, if any.
        public var refresh: RefreshRegion?
        /// The places registered, in the plan's order.
        public var monitored: [Fence]
        /// Whether the device's stored state did not read, so what it registered is unknown:
        /// the host stops every region it registered for the device.
        public var unknown: Bool
        /// Whether the device was held or stored at all.
        public var existed: Bool
    }

    /// Forgets a device's state (the host's way out of a state it cannot use: a damaged stored
    /// state, a clock that ran ahead, a device reinstalled): the device starts over as new at its
    /// next input, and a stored state is replaced by a new device's at the next commit.
    ///
    /// - Returns: what the device had registered, for the host to unregister.
    public mutating func reset(_ device: String) -> Forgotten {
        var forgotten = Forgotten(refresh: nil, monitored: [], unknown: false, existed: true)
        if unreadable.removeValue(forKey: device) != nil {
            forgotten.unknown = true
        } else if let state = held[device] {
            let rotator = state.rotator.unpacked(in: catalog.planning)
            forgotten.refresh = rotator.refresh
            forgotten.monitored = rotator.monitored
        } else if let source {
            do {
                if let stored = try source.storedState(of: device, in: catalog) {
                    forgotten.refresh = stored.rotator.refresh
                    forgotten.monitored = stored.rotator.monitored
                } else {
                    forgotten.existed = false
                }
            } catch {
                forgotten.unknown = true
            }
        } else {
            forgotten.existed = false
        }
        if forgotten.existed {
            held[device] = freshState
            changed.insert(device)
        }
        return forgotten
    }

    /// Drops the device (a host that keeps states itself holds none here).
    public mutating func forget(_ device: String) {
        held[device] = nil
        changed.remove(device)
    }

    /// The device's state packed against `catalog`, if the device is held.
    public func packedState(of device: String) -> PackedMonitorState? {
        held[device]
    }

    /// The device's rotator (what its platform holds), if the device is held.
    public func rotatorState(of device: String) -> RotatorState? {
        held[device]?.rotator.unpacked(in: catalog.planning)
    }
}

/// A device whose state cannot be resumed or whose engine cannot start.
public struct DeviceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The device's id.
    public var device: String
    /// Why, in one line (the engine's error, or the stored state's decoding error).
    public var reason: String
    /// `device 'ID': reason`.
    public var description: String { "device '\(device)': \(reason)" }

    /// Creates an error for `device`.
    public init(device: String, reason: String) {
        self.device = device
        self.reason = reason
    }
}

/// Where a `DeviceRegistry` finds the states of devices it does not hold yet (the sidecar's
/// state database).
public protocol DeviceStateSource: AnyObject, Sendable {
    /// The device's stored state; nil when none is stored. `catalog` is the catalog's current
    /// version (what the states are stored against).
    ///
    /// - Throws: `DeviceError` naming the device when its stored state cannot be read or decoded.
    func storedState(of device: String, in catalog: PlaceCatalog) throws(DeviceError) -> MonitorState?
    /// Every stored state, by device id; a state that does not read is its device's error.
    ///
    /// - Throws: `DeviceError` when the states cannot be read at all (the store itself fails).
    func storedStates(in catalog: PlaceCatalog) throws(DeviceError) -> [String: Result<MonitorState, DeviceError>]
}

/// A change set a `DeviceRegistry` cannot apply.
public enum ChangeSetError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The changes do not apply to the catalog.
    case changes(CatalogChangeError)
    /// A stored state, loaded to find the devices the change affects, does not read.
    case storedState(DeviceError)

    /// The underlying error's description.
    public var description: String {
        switch self {
        case .changes(let error): error.description
        case .storedState(let error): error.description
        }
    }
}

/// Packed states by device id, stored side by side in one array (a dictionary holds only each
/// id's slot): a few hundred bytes a device, without a hash table's empty buckets of them.
struct PackedStates: Sendable {
    private var slots: [String: Int32] = [:]
    private var ids: [String] = []
    private var states: [PackedMonitorState] = []

    var count: Int { states.count }

    /// Every device and its state, in slot order.
    var all: Zip2Sequence<[String], [PackedMonitorState]> { zip(ids, states) }

    subscript(device: String) -> PackedMonitorState? {
        get { slots[device].map { states[Int($0)] } }
        set {
            if let slot = slots[device] {
                if let newValue {
                    states[Int(slot)] = newValue
                } else {
                    // The last slot moves into the freed one.
                    let last = states.count - 1
                    states.swapAt(Int(slot), last)
                    ids.swapAt(Int(slot), last)
                    slots[ids[Int(slot)]] = slot
                    states.removeLast()
                    ids.removeLast()
                    slots[device] = nil
                }
            } else if let newValue {
                insert(newValue, for: device)
            }
        }
    }

    /// The slot of a device held.
    func slot(of device: String) -> Int? {
        slots[device].map(Int.init)
    }

    /// The state in a slot (read and changed in place, not copied).
    subscript(slot: Int) -> PackedMonitorState {
        _read { yield states[slot] }
        _modify { yield &states[slot] }
    }

    /// Adds a device not held yet; returns its slot.
    @discardableResult
    mutating func insert(_ state: PackedMonitorState, for device: String) -> Int {
        precondition(states.count < Int(Int32.max), "too many devices")
        let slot = states.count
        slots[device] = Int32(slot)
        ids.append(device)
        states.append(state)
        return slot
    }

    /// Changes every state in place.
    mutating func update(_ body: (String, inout PackedMonitorState) -> Void) {
        for i in states.indices { body(ids[i], &states[i]) }
    }
}
