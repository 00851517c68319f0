import Dispatch
import FencePlanner
import Geodesy
import SyncService
import WalkSimulator

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Many devices updated concurrently over one shared catalog (`rotate bench --devices`): each
/// device walks its own synthetic walk; the devices are split among T tasks of a task group, for
/// T from 1 to `maxTasks`; the summary (updates, reselections, digest of every diff) must be the
/// same for every T.
public enum DeviceBenchmark {
    public struct Configuration: Sendable {
        public var places = 100_000
        public var devices = 100_000
        public var fixesPerDevice = 20
        public var stepMeters = 25.0
        public var repetitions = 3
        public var maxTasks = 2
        public var seed: UInt64 = 1
        public init() {}
    }

    public struct Run: Sendable {
        public var tasks: Int
        /// Seconds per whole run (every device, every fix).
        public var seconds: Measurement
        public var updatesPerSecond: Double
        package var summary: DeviceFleet.Summary
    }

    public struct Report: Sendable {
        public var configuration: Configuration
        public var runs: [Run]
        /// Whether every task count gave the same summary.
        public var consistent: Bool { Set(runs.map(\.summary)).count <= 1 }
        /// Updates per second with the most tasks over with one.
        public var scaling: Double {
            guard let first = runs.first, let last = runs.last else { return .nan }
            return last.updatesPerSecond / first.updatesPerSecond
        }
    }

    /// Processors online (at least 1).
    public static var availableCores: Int { Swift.max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    public static func run(_ configuration: Configuration, progress: (String) -> Void = { _ in }) throws -> Report {
        var rng = SplitMix64(seed: configuration.seed)
        let coordinates = SyntheticCoordinates.clustered(count: configuration.places, using: &rng)
        let catalog = try PlaceCatalog(places: coordinates.enumerated().map { Place(id: "p\($0)", coordinate: $1, radiusMeters: 100) })
        let rotation = RotationConfiguration()
        progress("generating \(configuration.devices) walks of \(configuration.fixesPerDevice) fixes")
        let fixes = WanderingDevices.fixes(
            catalog: catalog, devices: configuration.devices, fixesPerDevice: configuration.fixesPerDevice,
            stepMeters: configuration.stepMeters, seed: configuration.seed ^ 0xdef1ce)
        var runs: [Run] = []
        for tasks in 1...Swift.max(1, configuration.maxTasks) {
            progress("updating \(configuration.devices) devices from \(tasks) task(s), \(configuration.repetitions) repetitions")
            var samples: [Double] = []
            var summary = DeviceFleet.Summary()
            for _ in 0..<configuration.repetitions {
                samples.append(
                    Stopwatch.nanoseconds {
                        summary = waitFor {
                            (try? await DeviceFleet.update(
                                catalog: catalog, configuration: rotation, fixes: fixes,
                                fixesPerDevice: configuration.fixesPerDevice, tasks: tasks)) ?? DeviceFleet.Summary()
                        }
                    } / 1e9)
            }
            let seconds = Measurement(samples: samples)
            runs.append(Run(tasks: tasks, seconds: seconds, updatesPerSecond: Double(summary.updates) / seconds.median, summary: summary))
        }
        return Report(configuration: configuration, runs: runs)
    }
}

/// Runs `operation` on the concurrency pool and blocks the calling thread until it returns (for
/// synchronous command-line code; never call it from a task).
public func waitFor<T: Sendable>(_ operation: @escaping @Sendable () async -> T) -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        box.value = await operation()
        done.signal()
    }
    done.wait()
    // The semaphore orders the task's write before this read.
    return box.value!
}

private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}
