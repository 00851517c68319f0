import FencePlanner
import Geodesy

/// Synthetic location reports of many devices over one catalog, for service tests and
/// benchmarks: devices that wander from places of the catalog.
public enum WanderingDevices {
    /// Synthetic reports: each device starts at a random place (from `seed` and its number, so a
    /// device's walk does not depend on how many there are) and wanders, `stepMeters` between
    /// fixes, its bearing drifting by up to ±20° per step.
    public static func fixes(catalog: PlaceCatalog, devices: Int, fixesPerDevice: Int, stepMeters: Double, seed: UInt64) -> [Fix] {
        precondition(devices >= 0 && fixesPerDevice > 0, "devices >= 0, fixesPerDevice > 0")
        var fixes: [Fix] = []
        fixes.reserveCapacity(devices * fixesPerDevice)
        for device in 0..<devices {
            var rng = SplitMix64(seed: seed ^ (UInt64(device) &* 0x9e37_79b9_7f4a_7c15))
            var position = catalog.places[rng.nextInt(below: catalog.count)].coordinate
            var bearing = rng.nextDouble(in: 0..<360)
            for _ in 0..<fixesPerDevice {
                fixes.append(Fix(position))
                bearing += rng.nextDouble(in: -20..<20)
                position = position.destination(bearingDegrees: bearing, distanceMeters: stepMeters)
            }
        }
        return fixes
    }
}
