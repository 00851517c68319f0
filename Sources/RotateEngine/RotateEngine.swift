// What an app links on the phone: `import RotateEngine` brings in the event engine
// (`FenceMonitor`) and what it needs — geodesy, the index, the platform facts, the planner,
// the fence rules — and nothing else: no SQLite store, no sidecar, no file formats, no command
// line. These modules use only the standard library, Foundation and the C math library, so
// that they can build for iOS and Android as well as Linux (`.ci/check-engine-imports` checks
// their imports; CI builds on Linux only).
@_exported import EventEngine
@_exported import FencePlanner
@_exported import FenceRules
@_exported import Geodesy
@_exported import PlatformFacts
@_exported import SpatialIndex
