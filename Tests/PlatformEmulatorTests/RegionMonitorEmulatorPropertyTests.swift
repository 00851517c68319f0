import FencePlanner
import Geodesy
import PlatformEmulator
import PlatformFacts
import RotateTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct RegionMonitorEmulatorPropertyTests {
    /// Latencies drawn through the emulator: n regions registered while inside, each reporting an
    /// initial entry, delivered `latency` after registration.
    func latencies(_ distribution: PlatformProfile.LatencyDistribution, n: Int, seed: UInt64) -> [Double] {
        var rules = exactRules(latency: distribution, insideAtRegistration: .initialEnter(dropProbability: 0))
        rules.crossings.positionNoise = .none
        var phone = RegionMonitorEmulator(platform: rules, regionLimit: .max, seed: seed)
        _ = phone.advance(to: center, at: 0)
        for i in 0..<n { phone.register(id: "f\(i)", center: center, radiusMeters: 100, at: 0) }
        let events = phone.advance(to: center, at: distribution.maximumSeconds + 1)
        return events.map { $0.deliveredAtSeconds - $0.decidedAtSeconds }
    }

    /// The sample's share at or below the median and the 90th percentile, and its maximum, match
    /// the parameters.
    ///
    /// Tolerance: the share of n independent samples at or below a true p-quantile is binomial,
    /// with standard deviation √(p(1 − p)/n); 4 of those (0.014 at the median, 0.0085 at the 90th
    /// percentile for n = 20,000) fail a correct sampler with probability below 1e-4 for any seed.
    /// The sample maximum never exceeds the maximum and, with probability 1 − e⁻¹⁰, exceeds the
    /// (1 − 10/n) quantile.
    @Test(arguments: [("iOS", PlatformProfile.LatencyDistribution.iOS), ("Android", .android)])
    func latencyQuantilesMatchTheParameters(platform: String, distribution: PlatformProfile.LatencyDistribution) {
        let n = 20_000
        let seed = TestSeed.value(salt: 21)
        let samples = latencies(distribution, n: n, seed: seed)
        #expect(samples.count == n)
        let atOrBelowMedian = Double(samples.filter { $0 <= distribution.medianSeconds }.count) / Double(n)
        let atOrBelowP90 = Double(samples.filter { $0 <= distribution.p90Seconds }.count) / Double(n)
        let tolerance50 = 4 * (0.25 / Double(n)).squareRoot()
        let tolerance90 = 4 * (0.09 / Double(n)).squareRoot()
        #expect(
            abs(atOrBelowMedian - 0.5) < tolerance50, "\(platform): \(atOrBelowMedian) at or below the median, \(TestSeed.replay(seed))")
        #expect(abs(atOrBelowP90 - 0.9) < tolerance90, "\(platform): \(atOrBelowP90) at or below p90, \(TestSeed.replay(seed))")
        let largest = samples.max() ?? 0
        #expect(largest <= distribution.maximumSeconds)
        #expect(largest >= distribution.quantile(1 - 10 / Double(n)), "\(platform): max \(largest), \(TestSeed.replay(seed))")
        #expect((samples.min() ?? -1) >= distribution.minimumSeconds)
    }

    /// A noisy walk back and forth through three fences, on the full iOS preset.
    func noisyWalk(seed: UInt64, rules: EmulatedPlatform = EmulatedPlatform.iOS) -> [RegionEvent] {
        var phone = RegionMonitorEmulator(platform: rules, regionLimit: 20, seed: seed)
        var events: [RegionEvent] = []
        for (i, meters) in [0.0, 600, 1_200].enumerated() {
            phone.register(id: "f\(i)", center: east(meters), radiusMeters: 150, at: 0)
        }
        for t in 0..<4_000 {
            let phase = Double(t % 2_000)
            let meters = phase < 1_000 ? -400 + 2 * phase : 1_600 - 2 * (phase - 1_000)
            phone.advance(to: east(meters), at: Double(t), into: &events)
        }
        return events
    }

    @Test func sameSeedSameEventsOtherSeedOtherLatencies() {
        let seed = TestSeed.value(salt: 31)
        let first = noisyWalk(seed: seed)
        #expect(!first.isEmpty)
        #expect(first == noisyWalk(seed: seed), "\(TestSeed.replay(seed))")
        #expect(first != noisyWalk(seed: seed &+ 1))

        // Without noise and with fixed cushions the decisions do not depend on the seed; the
        // latencies do.
        var rules = EmulatedPlatform.iOS
        rules.crossings.positionNoise = .none
        rules.crossings.exitCushionMeters = 100...100
        let a = noisyWalk(seed: seed, rules: rules)
        let b = noisyWalk(seed: seed &+ 1, rules: rules)
        #expect(a.count == b.count && !a.isEmpty)
        #expect(a.map(\.decidedAtSeconds).sorted() == b.map(\.decidedAtSeconds).sorted())
        #expect(a.map(\.deliveredAtSeconds) != b.map(\.deliveredAtSeconds))
    }

    /// Common random numbers: a second app on the same phone (same seed, same path) that also
    /// registers, replaces and removes far-away regions, at other moments, hears exactly the same
    /// events for the three fences both monitor. Draws keyed by call order would shift every
    /// cushion, latency and noise sample after the first extra call.
    @Test func extraRegistrationsDoNotChangeTheEventsOfSharedFences() {
        let seed = TestSeed.value(salt: 37)
        for rules in [EmulatedPlatform.iOS, EmulatedPlatform.android] {
            var plain = RegionMonitorEmulator(platform: rules, regionLimit: 100, seed: seed)
            var busy = RegionMonitorEmulator(platform: rules, regionLimit: 100, seed: seed)
            var plainEvents: [RegionEvent] = []
            var busyEvents: [RegionEvent] = []
            for (i, meters) in [0.0, 600, 1_200].enumerated() {
                plain.register(id: "f\(i)", center: east(meters), radiusMeters: 150, at: 0)
            }
            for t in 0..<4_000 {
                if t % 97 == 0 { busy.register(id: "decoy\(t % 5)", center: east(20_000 + Double(t)), radiusMeters: 80, at: Double(t)) }
                if t % 131 == 0 { busy.unregister(id: "decoy\((t / 131) % 5)", at: Double(t)) }
                if t == 3 {
                    for (i, meters) in [0.0, 600, 1_200].enumerated() {
                        busy.register(id: "f\(i)", center: east(meters), radiusMeters: 150, at: 3)
                    }
                }
                let phase = Double(t % 2_000)
                let meters = phase < 1_000 ? -400 + 2 * phase : 1_600 - 2 * (phase - 1_000)
                plain.advance(to: east(meters), at: Double(t), into: &plainEvents)
                busy.advance(to: east(meters), at: Double(t), into: &busyEvents)
            }
            let shared = busyEvents.filter { $0.regionID.hasPrefix("f") }
            #expect(plainEvents.count > 4, "\(TestSeed.replay(seed))")
            #expect(shared == plainEvents, "\(TestSeed.replay(seed))")
        }
    }

    /// For straight great-circle walks through one fence with no noise and no latency, the entry
    /// and exit times equal those computed from the geometry: the estimate must first be within
    /// `radius − depth` (depth = min(entry cushion, fraction × radius)), then farther than
    /// `radius + exit cushion`, each held at every 1 s position for the stay.
    ///
    /// The reference solves the spherical right triangle between the fence center, the closest
    /// point of the walk and a point at distance d: cos d = cos x · cos h, written as
    /// sin²(h/2) = (sin²(d/2) − sin²(x/2)) / cos x to keep precision at meter scale.
    @Test func straightWalksCrossWhenTheGeometrySays() {
        var draws = SplitMixForSeeds(state: TestSeed.value(salt: 41))
        let earth = Earth.meanRadiusMeters
        var checked = 0, crossed = 0
        for trial in 0..<400 {
            let radius = draws.uniform(20, 300)
            let entryCushion = draws.uniform(0, 1) < 0.3 ? 0 : draws.uniform(0, radius * 1.5)
            let fraction = draws.uniform(0, 1)
            let exitCushion = draws.uniform(0, 200)
            let stay = Double(Int(draws.uniform(0, 30)))
            let speed = draws.uniform(1, 30)
            let fenceCenter = Coordinate(validLatitude: draws.uniform(-70, 70), longitude: draws.uniform(-180, 180))
            // Start 400 m plus the cushion out, heading to pass the center within 1.1 radii.
            let startDistance = radius + exitCushion + 400
            let start = fenceCenter.destination(bearingDegrees: draws.uniform(0, 360), distanceMeters: startDistance)
            let offsetDegrees = asin(draws.uniform(-1.1, 1.1) * radius / startDistance) * 180 / Double.pi
            let heading = start.initialBearingDegrees(to: fenceCenter) + offsetDegrees

            // Reference geometry.
            let d13 = start.distance(to: fenceCenter) / earth
            let angle = (start.initialBearingDegrees(to: fenceCenter) - heading) * Double.pi / 180
            let cross = asin(sin(d13) * sin(angle))
            func halfChord(_ a: Double, _ b: Double) -> Double {  // h with cos a = cos b · cos h
                let s = (pow(sin(a / 2), 2) - pow(sin(b / 2), 2)) / cos(b)
                return 2 * asin(s.squareRoot())
            }
            let along = halfChord(d13, cross) * earth * (cos(angle) >= 0 ? 1 : -1)
            let depth = min(entryCushion, fraction * radius)
            let entryRadius = radius - depth
            let exitRadius = radius + exitCushion
            var expected: [RegionEvent] = []
            var ambiguous = false
            func firstSecond(after meters: Double) -> Double {
                let t = meters / speed
                if abs(t - t.rounded()) < 1e-6 { ambiguous = true }
                return t.rounded(.up)
            }
            if abs(cross * earth) < entryRadius {
                let h = halfChord(entryRadius / earth, cross) * earth
                let enterFirst = firstSecond(after: along - h)
                let leaveEntryCircle = (along + h) / speed
                if abs(leaveEntryCircle - (enterFirst + stay)) < 1e-6 { ambiguous = true }
                if enterFirst + stay <= leaveEntryCircle {
                    expected.append(
                        RegionEvent(kind: .enter, regionID: "f", decidedAtSeconds: enterFirst + stay, deliveredAtSeconds: enterFirst + stay)
                    )
                    let hOut = halfChord(exitRadius / earth, cross) * earth
                    let exitFirst = firstSecond(after: along + hOut)
                    expected.append(
                        RegionEvent(kind: .exit, regionID: "f", decidedAtSeconds: exitFirst + stay, deliveredAtSeconds: exitFirst + stay))
                }
            }
            if ambiguous { continue }

            let rules = exactRules(
                entryCushion: entryCushion...entryCushion, exitCushion: exitCushion...exitCushion, entryDepthFraction: fraction, stay: stay)
            var phone = RegionMonitorEmulator(platform: rules, regionLimit: 20, seed: UInt64(trial))
            phone.register(id: "f", center: fenceCenter, radiusMeters: radius, at: 0)
            var events: [RegionEvent] = []
            let seconds = Int(((along + startDistance) / speed).rounded(.up) + stay + 5)
            for t in 0...seconds {
                phone.advance(
                    to: start.destination(bearingDegrees: heading, distanceMeters: speed * Double(t)), at: Double(t), into: &events)
            }
            #expect(
                events == expected,
                "trial \(trial): radius \(radius), cushions \(entryCushion)/\(exitCushion), fraction \(fraction), stay \(stay), speed \(speed), \(TestSeed.replay(TestSeed.value(salt: 41)))"
            )
            checked += 1
            if !expected.isEmpty { crossed += 1 }
        }
        #expect(checked > 350)
        #expect(
            crossed > 100, "a quarter or more of the walks enter and leave (the others pass too fast for the stay or outside the cushion)")
    }
}
