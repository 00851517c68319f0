import FencePlanner
import Foundation
import Geodesy
import RotateTestSupport
import Testing

/// The README's "Embedding" flow: one shared catalog, per-device state stored as JSON between
/// location reports, many devices interleaved.
@Suite struct EmbeddingTests {
    @Test func storedStatesServeInterleavedDevicesLikeLiveRotators() throws {
        let catalog = PlannerFixtures.catalog(count: 1_000, sideMeters: 12_000, radii: 60...250, seed: 51)
        let configuration = RotationConfiguration.preset(.iOS, maxSpeedMetersPerSecond: 1.4, fixIntervalSeconds: 5)
        let walks = (0..<5).map { device in
            PlannerFixtures.walk(
                count: 150, from: Coordinate(validLatitude: 45.8, longitude: 15.97), maxStepMeters: 120, seed: 60 + UInt64(device))
        }
        var stored: [Int: Data] = [:]
        var live = try walks.indices.map { _ in try FenceRotator(catalog: catalog, configuration: configuration) }
        var updates = 0
        for step in 0..<150 {
            for device in walks.indices {
                let fix = walks[device][step]
                var rotator =
                    try stored[device].map {
                        try FenceRotator(
                            catalog: catalog, configuration: configuration, state: JSONDecoder().decode(RotatorState.self, from: $0))
                    } ?? FenceRotator(catalog: catalog, configuration: configuration)
                let update = rotator.update(with: fix)
                stored[device] = try JSONEncoder().encode(rotator.state)
                #expect(update == live[device].update(with: fix), "device \(device) step \(step)")
                if update != nil { updates += 1 }
            }
        }
        #expect(updates > 10)
    }
}
