// The product umbrella: `import RotateKit` brings in everything a service or an app links —
// geodesy, the index, the planner, the fence rules, the event engine, the file formats, the sync
// service and the state store — and none of the evaluation lab (`RotateLab`: platform emulators,
// walks, oracles, reference designs, replays, benchmarks). On a phone, `RotateEngine` is the
// smaller product: the engine and what it needs, without SQLite or the sidecar.
@_exported import EventEngine
@_exported import FencePlanner
@_exported import FenceRules
@_exported import Geodesy
@_exported import PlatformFacts
@_exported import RotateFormats
@_exported import RotateJSON
@_exported import SpatialIndex
@_exported import StateStore
@_exported import SyncService
