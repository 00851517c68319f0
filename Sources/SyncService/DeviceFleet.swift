import FencePlanner
import Geodesy

/// Many devices' rotations over one shared catalog, updated concurrently: what a sync service
/// does with the location reports of its devices.
///
/// The catalog and its index are an immutable `Sendable` value that every task reads; each
/// device's `FenceRotator` is an independent value created, updated and owned by exactly one task.
/// Nothing is shared mutably, so the update path takes no lock, and the result does not depend
/// on how many tasks run (tested, and checked by `rotate bench --devices`).
package enum DeviceFleet {
    /// What a run of updates did, summed over its devices.
    package struct Summary: Sendable, Hashable {
        package var devices = 0
        /// Fixes fed (`FenceRotator.update(with:)` calls).
        package var updates = 0
        /// Updates that reselected.
        package var reselections = 0
        /// Places stopped plus places started, over all diffs.
        package var registrationChanges = 0
        /// A digest of every device's sequence of diffs and refresh radii (order of devices does
        /// not matter: per-device digests are added).
        package var checksum: UInt64 = 0

        package init() {}

        mutating func add(_ other: Summary) {
            devices += other.devices
            updates += other.updates
            reselections += other.reselections
            registrationChanges += other.registrationChanges
            checksum &+= other.checksum
        }
    }

    /// Feeds every device its fixes, devices split into `tasks` contiguous ranges run in a task
    /// group.
    ///
    /// - Parameters:
    ///   - fixes: device `d`'s fixes are `fixes[d * fixesPerDevice ..< (d + 1) * fixesPerDevice]`,
    ///     in order; their accuracies must be nil, or finite and ≥ 0, or the update skips them.
    ///   - tasks: how many tasks share the devices (at least 1; more than devices is capped).
    /// - Throws: `ConfigurationError` when the configuration is invalid.
    package static func update(
        catalog: PlaceCatalog, configuration: RotationConfiguration, fixes: [Fix], fixesPerDevice: Int,
        tasks: Int
    ) async throws(ConfigurationError) -> Summary {
        precondition(fixesPerDevice > 0 && fixes.count % fixesPerDevice == 0, "fixes must hold fixesPerDevice fixes per device")
        precondition(tasks >= 1, "at least one task")
        _ = try configuration.validated()
        let devices = fixes.count / fixesPerDevice
        let parts = Swift.max(1, Swift.min(tasks, devices))
        return await withTaskGroup(of: Summary.self) { group in
            for part in 0..<parts {
                let range = (devices * part / parts)..<(devices * (part + 1) / parts)
                group.addTask {
                    // Validated above: the rotators cannot fail to start.
                    guard
                        let summary = try? updateDevices(
                            range, catalog: catalog, configuration: configuration, fixes: fixes,
                            fixesPerDevice: fixesPerDevice)
                    else { return Summary() }
                    return summary
                }
            }
            var total = Summary()
            for await summary in group { total.add(summary) }
            return total
        }
    }

    /// The same work on the calling thread, one device after another (the reference).
    package static func updateSequentially(
        catalog: PlaceCatalog, configuration: RotationConfiguration, fixes: [Fix],
        fixesPerDevice: Int
    ) throws(ConfigurationError) -> Summary {
        precondition(fixesPerDevice > 0 && fixes.count % fixesPerDevice == 0, "fixes must hold fixesPerDevice fixes per device")
        return try updateDevices(
            0..<(fixes.count / fixesPerDevice), catalog: catalog, configuration: configuration, fixes: fixes,
            fixesPerDevice: fixesPerDevice)
    }

    /// Runs the devices of `range` round by round (every device's first fix, then every second
    /// one, …), as reports from many devices interleave at a service.
    static func updateDevices(
        _ range: Range<Int>, catalog: PlaceCatalog, configuration: RotationConfiguration, fixes: [Fix],
        fixesPerDevice: Int
    ) throws(ConfigurationError) -> Summary {
        var rotators: [FenceRotator] = []
        rotators.reserveCapacity(range.count)
        for _ in range { rotators.append(try FenceRotator(catalog: catalog, configuration: configuration)) }
        var digests = [UInt64](repeating: 0xcbf2_9ce4_8422_2325, count: range.count)
        var summary = Summary()
        summary.devices = range.count
        for round in 0..<fixesPerDevice {
            for (slot, device) in range.enumerated() {
                let fix = fixes[device * fixesPerDevice + round]
                summary.updates += 1
                guard let update = rotators[slot].update(with: fix) else { continue }
                summary.reselections += 1
                let changes = update.diff.stop.count + update.diff.start.count
                summary.registrationChanges += changes
                let radius = update.selection.refresh?.radiusMeters ?? -1
                digests[slot] = (digests[slot] ^ UInt64(changes) ^ radius.bitPattern) &* 0x0000_0100_0000_01b3
            }
        }
        for digest in digests { summary.checksum &+= digest }
        return summary
    }
}
