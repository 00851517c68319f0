// The umbrella module: `import RotateKit` brings in every public library of the package, so a
// package that depends on the `RotateKit` product needs no other import.
@_exported import FenceMonitor
@_exported import FencePlanner
@_exported import FenceRules
@_exported import Geodesy
@_exported import PlatformEmulator
@_exported import RotateFormats
@_exported import SpatialIndex
@_exported import StateStore
@_exported import SyncService
@_exported import WalkSimulator
