// The evaluation lab, a product of its own and never part of `RotateKit`: `import RotateLab`
// brings in the platform emulators (iOS, Android and the ideal phone, with sourced parameters),
// walks, oracles, the reference designs and platform replays, and the benchmark scenarios.
@_exported import BenchmarkKit
@_exported import PlatformEmulator
@_exported import PlatformFacts
@_exported import WalkSimulator
