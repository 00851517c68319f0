// swift-tools-version:6.0
import PackageDescription

// Module layout (arrows point down only, see README "Layout"):
//   Geodesy
//   SpatialIndex    -> Geodesy, CPrefetch             (CPrefetch: one C header, the cache prefetch Swift lacks)
//   FencePlanner    -> SpatialIndex, Geodesy          (catalog, selection, diff, rotator)
//   FenceRules      -> Geodesy                        (P(inside), hysteresis and dwell rules)
//   SyncService     -> FencePlanner, ...               (many devices, concurrent updates)
//   WalkSimulator   -> FenceRules, FencePlanner, SpatialIndex, Geodesy (walks, oracle, evaluation)
//   RotateFormats   -> WalkSimulator, FencePlanner, ...   (CSV, GPX, NDJSON, GeoJSON, SVG)
//   BenchmarkKit    -> RotateFormats, SyncService, ... (timer, bench scenarios)
//   RotateCommands  -> BenchmarkKit, RotateFormats and the libraries below (CLI)
//   rotate, RotateBenchmarks -> libraries
let package = Package(
    name: "rotate",
    products: [
        .library(name: "Geodesy", targets: ["Geodesy"]),
        .library(name: "SpatialIndex", targets: ["SpatialIndex"]),
        .library(name: "FencePlanner", targets: ["FencePlanner"]),
        .library(name: "FenceRules", targets: ["FenceRules"]),
        .library(name: "SyncService", targets: ["SyncService"]),
        .library(name: "WalkSimulator", targets: ["WalkSimulator"]),
        .library(name: "RotateFormats", targets: ["RotateFormats"]),
        .executable(name: "rotate", targets: ["rotate"]),
        .executable(name: "RotateBenchmarks", targets: ["RotateBenchmarks"]),
    ],
    targets: [
        .target(name: "Geodesy"),
        .target(name: "CPrefetch"),
        .target(name: "SpatialIndex", dependencies: ["Geodesy", "CPrefetch"]),
        .target(name: "FencePlanner", dependencies: ["SpatialIndex", "Geodesy"]),
        .target(name: "FenceRules", dependencies: ["Geodesy"]),
        .target(name: "SyncService", dependencies: ["FencePlanner", "SpatialIndex", "Geodesy"]),
        .target(name: "WalkSimulator", dependencies: ["FenceRules", "FencePlanner", "SpatialIndex", "Geodesy"]),
        .target(name: "RotateFormats", dependencies: ["WalkSimulator", "FencePlanner", "SpatialIndex", "Geodesy"]),
        .target(name: "BenchmarkKit", dependencies: ["RotateFormats", "SyncService", "FenceRules", "FencePlanner", "SpatialIndex", "Geodesy"]),
        .target(name: "RotateCommands", dependencies: ["BenchmarkKit", "RotateFormats", "WalkSimulator", "FenceRules", "FencePlanner", "SpatialIndex", "Geodesy"]),
        .executableTarget(name: "rotate", dependencies: ["RotateCommands"]),
        .executableTarget(
            name: "RotateBenchmarks",
            dependencies: ["BenchmarkKit", "RotateFormats", "SpatialIndex", "Geodesy"],
            path: "Benchmarks/RotateBenchmarks",
            exclude: ["README.md"]
        ),
        .target(
            name: "RotateTestSupport",
            dependencies: ["FencePlanner", "SpatialIndex", "Geodesy"],
            path: "Tests/RotateTestSupport"
        ),
        .testTarget(name: "GeodesyTests", dependencies: ["Geodesy", "RotateTestSupport"]),
        .testTarget(name: "FencePlannerTests", dependencies: ["FencePlanner", "SpatialIndex", "Geodesy", "RotateTestSupport"]),
        .testTarget(
            name: "FenceRulesTests", dependencies: ["FenceRules", "Geodesy", "RotateTestSupport"],
            exclude: ["make_rice_reference.py"]
        ),
        .testTarget(name: "WalkSimulatorTests", dependencies: ["WalkSimulator", "FencePlanner", "Geodesy", "RotateTestSupport"]),
        .testTarget(name: "RotateFormatsTests", dependencies: ["RotateFormats", "WalkSimulator", "FencePlanner", "Geodesy", "RotateTestSupport"]),
        .testTarget(name: "BenchmarkKitTests", dependencies: ["BenchmarkKit", "RotateFormats"]),
        .testTarget(name: "SyncServiceTests", dependencies: ["SyncService", "FencePlanner", "Geodesy", "RotateTestSupport"]),
        .testTarget(name: "SpatialIndexTests", dependencies: ["SpatialIndex", "Geodesy", "RotateTestSupport"]),
        .testTarget(
            name: "RotateCommandsTests",
            dependencies: ["RotateCommands", "RotateFormats", "FencePlanner", "Geodesy", "RotateTestSupport", "rotate"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
