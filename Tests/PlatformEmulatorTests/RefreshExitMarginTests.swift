import FencePlanner
import Geodesy
import PlatformEmulator
import PlatformFacts
import RotateTestSupport
import Testing

/// The refresh margin the platform profiles derive, against the emulator it describes: a
/// traveller leaving a refresh circle at full speed is, when the woken app has its fix, no farther
/// past the circle than the margin in at least 90 % of departures (the margin takes the latency's
/// 90th percentile), and the margin is not loose (the median departure uses most of it).
@Suite struct RefreshExitMarginTests {
    @Test(arguments: [("iOS", 1.8), ("iOS", 30.0), ("Android", 1.8), ("Android", 30.0)])
    func theMarginCoversNineInTenDepartures(platform: String, speed: Double) throws {
        let emulated: EmulatedPlatform = platform == "iOS" ? .iOS : .android
        let profile = emulated.profile
        let margin = profile.refreshExitMarginMeters(maxSpeedMetersPerSecond: speed, fixIntervalSeconds: 1)
        let wakeFixSeconds = profile.locationSources.first { $0.kind == .wakeFix }?.timeToFixSeconds?.upperBound ?? 0
        let center = Coordinate(validLatitude: 46.05, longitude: 14.51)
        let radius = 300.0
        var overshoots: [Double] = []
        for seed in 0..<200 {
            var phone = RegionMonitorEmulator(platform: emulated, seed: UInt64(seed))
            _ = phone.register(id: "refresh", center: center, radiusMeters: radius, at: 0)
            var events: [RegionEvent] = []
            var t = 0.0
            // Inside for a minute, then straight out at `speed`, one position a second, until the exit
            // arrives (Android may deliver the initial entry first).
            while t < 60 {
                phone.advance(to: center, at: t, into: &events)
                t += 1
            }
            events.removeAll()
            var distance = 0.0
            while !events.contains(where: { $0.kind == .exit }), t < 4_000 {
                phone.advance(to: center.destination(bearingDegrees: 90, distanceMeters: distance), at: t, into: &events)
                t += 1
                distance += speed
            }
            let exit = try #require(events.first { $0.kind == .exit }, "no exit, seed \(seed)")
            let departure = 60.0
            let atFix = (exit.deliveredAtSeconds + wakeFixSeconds + 1 - departure) * speed
            overshoots.append(atFix - radius)
        }
        overshoots.sort()
        let covered = overshoots.filter { $0 <= margin }.count
        #expect(covered >= 180, "\(platform) at \(speed) m/s: margin \(margin) m covers \(covered) of 200")
        #expect(overshoots[100] >= 0.3 * margin, "median overshoot \(overshoots[100]) m of a \(margin) m margin")
    }
}
