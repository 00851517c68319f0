import FenceRules
import Geodesy
import Testing

@Suite struct StillnessRuleTests {
    static let spot = Coordinate(validLatitude: 46.05, longitude: 14.51)

    static func at(_ meters: Double, bearing: Double = 90) -> Coordinate {
        spot.destination(bearingDegrees: bearing, distanceMeters: meters)
    }

    /// Still once every fix has stayed within the radius for the duration (dated from the stay's
    /// first fix), once; moving at the first fix beyond it.
    @Test(arguments: StillnessRule.Anchor.allCases)
    func stillAfterTheDurationMovingBeyondTheRadius(anchor: StillnessRule.Anchor) {
        var rule = StillnessRule(radiusMeters: 50, durationSeconds: 120, anchor: anchor)
        var changes: [(Double, StillnessRule.Change)] = []
        // Arriving on foot, then 5 minutes within 20 m of the spot, then walking away.
        for t in 0..<100 { if let c = rule.add(Self.at(400 - Double(t) * 4), at: Double(t)) { changes.append((Double(t), c)) } }
        for t in 100..<400 {
            if let c = rule.add(Self.at(Double(t % 7) * 3, bearing: Double(t * 37 % 360)), at: Double(t)) { changes.append((Double(t), c)) }
        }
        for t in 400..<500 { if let c = rule.add(Self.at(Double(t - 400) * 1.4), at: Double(t)) { changes.append((Double(t), c)) } }
        #expect(changes.count == 2)
        guard changes.count == 2 else { return }
        // The stay begins at the first fix within 50 m of where it settles: 4 m steps from 400 m
        // reach the spot's 50 m at t = 88 (48 m), the fix the first-fix anchor keeps.
        if case .stopped(let since) = changes[0].1 {
            #expect(changes[0].0 - since >= 120)
            #expect(changes[0].0 <= since + 121)
        } else {
            Issue.record("expected a stop first, got \(changes[0].1)")
        }
        if case .moved(let at) = changes[1].1 {
            // 1.4 m/s from the spot: beyond 50 m (plus the anchor's offset) within a minute.
            #expect(at > 400 && at < 460)
        } else {
            Issue.record("expected a move second, got \(changes[1].1)")
        }
        #expect(!rule.isStill)
    }

    /// A stray first fix 65 m off: anchored on it, the fix 10 m south of the stay is 75 m away
    /// and starts the stay again; the mean of fixes has moved toward the stay and keeps it.
    @Test func theMeanForgivesAStrayFirstFix() {
        var first = StillnessRule(radiusMeters: 70, durationSeconds: 60, anchor: .firstFix)
        var mean = StillnessRule(radiusMeters: 70, durationSeconds: 60, anchor: .meanOfFixes)
        var firstStopped: (Double, StillnessRule.Change)?, meanStopped: (Double, StillnessRule.Change)?
        for t in 0..<200 {
            let p = t == 0 ? Self.at(65, bearing: 0) : t % 2 == 1 ? Self.spot : Self.at(10, bearing: 180)
            if let c = first.add(p, at: Double(t)), firstStopped == nil { firstStopped = (Double(t), c) }
            if let c = mean.add(p, at: Double(t)), meanStopped == nil { meanStopped = (Double(t), c) }
        }
        #expect(firstStopped?.0 == 62 && firstStopped?.1 == .stopped(sinceSeconds: 2))
        #expect(meanStopped?.0 == 60 && meanStopped?.1 == .stopped(sinceSeconds: 0))
    }

    /// Ended by two fixes 30 s apart: a stray fix 120 m off during a stay neither ends it nor
    /// resets its start (the first-fix-beyond rule starts over there); the stay is not said still
    /// while the last fix is beyond the radius; a fix 350 m off ends it at once; leaving for good
    /// is dated from the first fix beyond.
    @Test func twoFixesThirtySecondsForgiveAStrayFix() {
        var radar = StillnessRule(radiusMeters: 100, durationSeconds: 100, anchor: .firstFix)
        var engine = StillnessRule(radiusMeters: 100, durationSeconds: 100, anchor: .firstFix, leaving: .twoFixesThirtySeconds)
        func feed(_ p: Coordinate, _ t: Double) -> (StillnessRule.Change?, StillnessRule.Change?) {
            (radar.add(p, at: t), engine.add(p, at: t))
        }
        // A fix every 20 s at the spot; the one at 80 s strays 120 m, the one at 100 s is back.
        var changes: [(Double, StillnessRule.Change?, StillnessRule.Change?)] = []
        for t in stride(from: 0.0, through: 200, by: 20) {
            let (a, b) = feed(t == 80 ? Self.at(120) : Self.spot, t)
            changes.append((t, a, b))
        }
        let engineFirst = changes.first { $0.2 != nil }
        #expect(engineFirst?.0 == 100 && engineFirst?.2 == .stopped(sinceSeconds: 0))
        // Started over at the stray (80 s), then again at 100 s, back within 100 m: still at 200.
        let radarFirst = changes.first { $0.1 != nil }
        #expect(radarFirst?.0 == 200 && radarFirst?.1 == .stopped(sinceSeconds: 100))
        // A stray while still: pending, not a move; two beyond, 20 s apart: still pending; 40 s: moved.
        #expect(engine.add(Self.at(150), at: 220) == nil && engine.isStill)
        #expect(engine.add(Self.at(160), at: 240) == nil && engine.isStill)
        #expect(engine.add(Self.at(170), at: 260) == .moved(atSeconds: 220) && !engine.isStill)
        // Far: one fix beyond three radii ends the stay at once.
        var far = StillnessRule(radiusMeters: 100, durationSeconds: 100, anchor: .firstFix, leaving: .twoFixesThirtySeconds)
        for t in stride(from: 0.0, through: 120, by: 20) { _ = far.add(Self.spot, at: t) }
        #expect(far.isStill)
        #expect(far.add(Self.at(350), at: 140) == .moved(atSeconds: 140))
    }
}
