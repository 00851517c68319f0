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
}
