// swift-tools-version:6.0
import PackageDescription

// Module layout (arrows point down only; README.md "Layout" draws the same graph):
//   Geodesy
//   CPrefetch                                          one C header: the cache prefetch Swift lacks
//   SpatialIndex    -> Geodesy, CPrefetch              k-d tree, brute-force reference
//   PlatformFacts                                      region limits, crossing figures, location sources
//   FencePlanner    -> SpatialIndex, PlatformFacts     catalog, selection, diff, rotator, presets
//   FenceRules      -> Geodesy                         P(inside), hysteresis and dwell rules
//   EventEngine     -> FencePlanner, FenceRules        the event engine (FenceMonitor): region events and fixes in, place events out
//   PlatformEmulator -> PlatformFacts                  iOS, Android and ideal phones, sourced behavior
//   WalkSimulator   -> PlatformEmulator, EventEngine   walks, oracles, platform replays, evaluation
//   RotateJSON                                         the JSON reader and writer, the one decimal number reader, number text
//   RotateFormats   -> FencePlanner, RotateJSON        CSV, GPX, NDJSON, GeoJSON, SVG, standard streams
//   SyncService     -> RotateFormats, EventEngine      devices, catalog changes (footprints in GeoJSON), the sidecar
//   CSQLite                                            the system SQLite library (Debian: libsqlite3-dev)
//   StateStore      -> SyncService, CSQLite            the sidecar's state database
//   BenchmarkKit    -> SyncService, WalkSimulator, …   stopwatch, bench scenarios
//   RotateCommands  -> BenchmarkKit, …                 the `rotate` subcommands
//   rotate, RotateBenchmarks -> RotateCommands, BenchmarkKit
// Products (umbrella modules that only re-export):
//   RotateKit       the product: Geodesy … EventEngine, RotateFormats, SyncService, StateStore
//   RotateEngine    on the phone: Geodesy, SpatialIndex, PlatformFacts, FencePlanner, FenceRules, EventEngine
//   RotateLab       the lab: PlatformEmulator, WalkSimulator, BenchmarkKit
let package = Package(
    name: "rotate",
    products: [
        // The product: what a service or an app links (README.md, "Products").
        .library(name: "RotateKit", targets: ["RotateKit"]),
        // On the phone: the event engine and what it needs, no SQLite store, sidecar or formats.
        .library(name: "RotateEngine", targets: ["RotateEngine"]),
        // The lab: platform emulators, walks, oracles, reference designs, replays, benchmarks.
        .library(name: "RotateLab", targets: ["RotateLab"]),
        .executable(name: "rotate", targets: ["rotate"]),
        .executable(name: "RotateBenchmarks", targets: ["RotateBenchmarks"]),
    ],
    targets: [
        .target(name: "Geodesy"),
        .target(name: "CPrefetch"),
        .target(name: "SpatialIndex", dependencies: ["Geodesy", "CPrefetch"]),
        .target(name: "PlatformFacts"),
        .target(name: "FencePlanner", dependencies: ["SpatialIndex", "PlatformFacts", "Geodesy"]),
        .target(name: "FenceRules", dependencies: ["Geodesy"]),
        .target(name: "EventEngine", dependencies: ["FencePlanner", "PlatformFacts", "FenceRules", "SpatialIndex", "Geodesy"]),
        .target(name: "PlatformEmulator", dependencies: ["PlatformFacts", "Geodesy"]),
        .target(
            name: "WalkSimulator",
            dependencies: ["PlatformEmulator", "EventEngine", "FenceRules", "FencePlanner", "PlatformFacts", "SpatialIndex", "Geodesy"]
        ),
        .target(name: "RotateJSON"),
        .target(name: "RotateFormats", dependencies: ["RotateJSON", "FencePlanner", "SpatialIndex", "Geodesy"]),
        .target(
            name: "SyncService", dependencies: ["RotateFormats", "RotateJSON", "EventEngine", "FencePlanner", "SpatialIndex", "Geodesy"]),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "StateStore", dependencies: ["SyncService", "CSQLite", "EventEngine", "FencePlanner", "Geodesy"]),
        .target(
            name: "RotateKit",
            dependencies: [
                "StateStore", "SyncService", "RotateFormats", "RotateJSON", "EventEngine", "FenceRules", "FencePlanner", "PlatformFacts",
                "SpatialIndex", "Geodesy",
            ]
        ),
        .target(
            name: "RotateEngine", dependencies: ["EventEngine", "FenceRules", "FencePlanner", "PlatformFacts", "SpatialIndex", "Geodesy"]),
        .target(
            name: "BenchmarkKit",
            dependencies: [
                "SyncService", "RotateFormats", "RotateJSON", "WalkSimulator", "EventEngine", "FenceRules", "FencePlanner", "SpatialIndex",
                "Geodesy",
            ]
        ),
        .target(name: "RotateLab", dependencies: ["BenchmarkKit", "PlatformEmulator", "WalkSimulator"]),
        .target(
            name: "RotateCommands",
            dependencies: [
                "BenchmarkKit", "StateStore", "SyncService", "RotateFormats", "RotateJSON", "WalkSimulator", "PlatformEmulator",
                "EventEngine",
                "FenceRules",
                "FencePlanner", "PlatformFacts", "SpatialIndex", "Geodesy",
            ]
        ),
        .executableTarget(name: "rotate", dependencies: ["RotateCommands"]),
        .executableTarget(
            name: "RotateBenchmarks",
            dependencies: ["BenchmarkKit", "RotateFormats", "RotateJSON", "SpatialIndex", "Geodesy"],
            path: "Benchmarks/RotateBenchmarks",
            exclude: ["README.md"]
        ),
        .target(
            name: "RotateTestSupport",
            dependencies: ["FencePlanner", "SpatialIndex", "Geodesy"],
            path: "Tests/RotateTestSupport"
        ),
        .testTarget(name: "GeodesyTests", dependencies: ["Geodesy", "RotateTestSupport"]),
        .testTarget(name: "SpatialIndexTests", dependencies: ["SpatialIndex", "Geodesy", "RotateFormats", "RotateTestSupport"]),
        .testTarget(
            name: "FencePlannerTests", dependencies: ["FencePlanner", "PlatformFacts", "SpatialIndex", "Geodesy", "RotateTestSupport"]),
        .testTarget(
            name: "FenceRulesTests",
            dependencies: ["FenceRules", "Geodesy", "RotateTestSupport"],
            exclude: ["make_rice_reference.py"]
        ),
        .testTarget(
            name: "EventEngineTests",
            dependencies: ["EventEngine", "FenceRules", "FencePlanner", "PlatformFacts", "Geodesy", "RotateTestSupport"]),
        .testTarget(
            name: "PlatformEmulatorTests",
            dependencies: ["PlatformEmulator", "PlatformFacts", "FencePlanner", "Geodesy", "RotateTestSupport"]),
        .testTarget(
            name: "WalkSimulatorTests",
            dependencies: [
                "WalkSimulator", "PlatformEmulator", "PlatformFacts", "FencePlanner", "FenceRules", "Geodesy", "RotateTestSupport",
            ]
        ),
        .testTarget(
            name: "RotateFormatsTests",
            dependencies: ["RotateFormats", "WalkSimulator", "FencePlanner", "Geodesy", "RotateTestSupport"],
            exclude: ["Conformance"]
        ),
        .testTarget(name: "RotateJSONTests", dependencies: ["RotateJSON", "Geodesy", "RotateTestSupport"]),
        .testTarget(
            name: "SyncServiceTests",
            dependencies: ["SyncService", "EventEngine", "RotateFormats", "WalkSimulator", "FencePlanner", "Geodesy", "RotateTestSupport"]
        ),
        .testTarget(
            name: "StateStoreTests",
            dependencies: ["StateStore", "SyncService", "EventEngine", "FencePlanner", "Geodesy", "RotateTestSupport"]
        ),
        .testTarget(name: "RotateKitTests", dependencies: ["RotateKit", "RotateEngine", "RotateLab", "RotateTestSupport"]),
        .testTarget(name: "BenchmarkKitTests", dependencies: ["BenchmarkKit", "RotateFormats"]),
        .testTarget(
            name: "RotateCommandsTests",
            dependencies: [
                "RotateCommands", "StateStore", "SyncService", "RotateFormats", "WalkSimulator", "FencePlanner", "Geodesy", "PlatformFacts",
                "RotateTestSupport", "rotate",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
