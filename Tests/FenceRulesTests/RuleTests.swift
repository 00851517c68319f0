import FenceRules
import Foundation
import Geodesy
import Testing

@Suite struct RuleTests {
    let center = Coordinate(validLatitude: 46.05, longitude: 14.51)
    var fence: CircularFence { CircularFence(center: center, radiusMeters: 100) }

    /// A fix `meters` from the center (north), with accuracy and a time.
    func fix(_ meters: Double, accuracy: Double? = 1, t: Double? = nil, bearing: Double = 0) -> RuleFix {
        RuleFix(center.destination(bearingDegrees: bearing, distanceMeters: meters), accuracyMeters: accuracy, timestampSeconds: t)
    }

    func events<R: FenceRule>(_ rule: inout R, _ distances: [Double], accuracy: Double? = 1) -> [FenceEvent?] {
        distances.enumerated().map { i, d in rule.update(with: fix(d, accuracy: accuracy, t: Double(i))).event }
    }

    @Test func naiveFlipsAtTheEdgeInclusive() {
        // The radius is the computed distance of the edge fix, so that fix is exactly on the edge.
        let edge = center.destination(bearingDegrees: 0, distanceMeters: 100)
        var rule = NaiveRule(fence: CircularFence(center: center, radiusMeters: center.distance(to: edge)))
        #expect(rule.state == .unknown)
        let got = events(&rule, [150, 100, 100.01, 99.99, 30])
        #expect(got == [nil, .enter, .exit, .enter, nil])
        #expect(rule.state == .inside)
    }

    @Test func anArrivalFromUnknownIsAnEnter() {
        var rule = NaiveRule(fence: fence)
        #expect(rule.update(with: fix(10, t: 0)).event == .enter)
    }

    @Test func hysteresisThresholdsAreInclusiveAndTheMiddleKeepsState() {
        // Thresholds set to the computed distances of the 80 m and 120 m fixes: exactly on them.
        let enter = center.distance(to: center.destination(bearingDegrees: 0, distanceMeters: 80))
        let exit = center.distance(to: center.destination(bearingDegrees: 0, distanceMeters: 120))
        var rule = HysteresisRule(fence: fence, enterMeters: enter, exitMeters: exit)
        let got = events(&rule, [100, 119.99, 80.0001, 80, 119.99, 100, 120, 80.01, 119])
        #expect(got == [nil, nil, nil, .enter, nil, nil, .exit, nil, nil])
        #expect(rule.state == .outside)
    }

    @Test func hysteresisIgnoresFixesOutsideTheAccuracyGate() {
        var rule = HysteresisRule(fence: fence)
        #expect(rule.update(with: fix(10, accuracy: 30.01, t: 0)).rejection == .accuracyGate(30.01))
        #expect(rule.state == .unknown)
        #expect(rule.update(with: fix(10, accuracy: 30, t: 1)).event == .enter)
        #expect(rule.update(with: fix(500, accuracy: 31, t: 2)).rejection != nil)
        #expect(rule.state == .inside)
        #expect(rule.update(with: fix(500, accuracy: 0, t: 3)).event == .exit)
        #expect(rule.update(with: fix(10, accuracy: nil, t: 4)).event == .enter)
        var strict = HysteresisRule(fence: fence, requireAccuracy: true)
        #expect(strict.update(with: fix(10, accuracy: nil, t: 0)).rejection != nil)
    }

    @Test func confidentNeedsThreeConsecutiveFixesOfEvidence() {
        var rule = ConfidentRule(fence: fence)
        // σ = 1 m: 50 m is certainly inside, 100 m is 46 % (no evidence), 200 m certainly outside.
        let got = events(&rule, [200, 200, 200, 50, 50, 100, 50, 50, 50, 200, 200, 50, 200, 200, 200])
        #expect(got == [nil, nil, nil, nil, nil, nil, nil, nil, .enter, nil, nil, nil, nil, nil, .exit])
        #expect(rule.state == .outside)
    }

    @Test func confidentThresholdsAreStrict() {
        // P(inside) exactly at a threshold is not evidence: find d with P = 0.9 exactly is not
        // possible in floating point, so check the comparison through the outcome's probability.
        var rule = ConfidentRule(fence: fence, enterProbability: 0.9, exitProbability: 0.1, dwellFixes: 1)
        let outcome = rule.update(with: fix(100, accuracy: 20, t: 0))
        #expect(abs((outcome.probabilityInside ?? 0) - 0.4599) < 1e-4)
        #expect(outcome.event == nil && rule.state == .unknown)
        var edge = ConfidentRule(fence: fence, enterProbability: 0.45990161322628164579, exitProbability: 0.1, dwellFixes: 1)
        #expect(edge.update(with: fix(100, accuracy: 20, t: 0)).event == nil, "p equal to the threshold is not > it")
    }

    @Test func adaptiveDwellCountsMovementFromTheLastNonContradictingFix() {
        // Fixes 15 m apart moving into the fence: the second contradicting fix has covered 30 m.
        var fixed = ConfidentRule(fence: fence)
        var adaptive = ConfidentRule.adaptive(fence: fence)
        let path: [Double] = [160, 145, 130, 115, 100, 85, 70, 55, 40, 25]
        let a = events(&fixed, path), b = events(&adaptive, path)
        // σ = 1 m: evidence (p > 0.9) starts at 85 m (index 5). Fixed dwell: 3 fixes, index 7.
        // Adaptive: index 5 is 15 m from the last non-contradicting fix, index 6 is 30 m: enters there.
        #expect(a.firstIndex(of: .enter) == 7)
        #expect(b.firstIndex(of: .enter) == 6)
        // At walking steps (1.4 m) the 3-fix dwell comes first.
        var slow = ConfidentRule.adaptive(fence: fence)
        let walk = (0..<20).map { 110 - 1.4 * Double($0) }
        let c = events(&slow, walk)
        var slowFixed = ConfidentRule(fence: fence)
        #expect(c == events(&slowFixed, walk))
    }

    @Test(arguments: [
        (RuleFix(latitude: .nan, longitude: 14, accuracyMeters: 5, timestampSeconds: 10), FixRejection.notFinite),
        (RuleFix(latitude: 46, longitude: .infinity, accuracyMeters: 5, timestampSeconds: 10), .notFinite),
        (RuleFix(latitude: 46, longitude: 14, accuracyMeters: .nan, timestampSeconds: 10), .notFinite),
        (RuleFix(latitude: 46, longitude: 14, accuracyMeters: 5, timestampSeconds: .infinity), .notFinite),
        (RuleFix(latitude: 91, longitude: 14, accuracyMeters: 5, timestampSeconds: 10), .latitudeOutOfRange(91)),
        (RuleFix(latitude: 46, longitude: -181, accuracyMeters: 5, timestampSeconds: 10), .longitudeOutOfRange(-181)),
        (RuleFix(latitude: 46, longitude: 14, accuracyMeters: -1, timestampSeconds: 10), .negativeAccuracy(-1)),
        (RuleFix(latitude: 46, longitude: 14, accuracyMeters: 5, timestampSeconds: 5), .stale(lastSeconds: 5, seconds: 5)),
        (RuleFix(latitude: 46, longitude: 14, accuracyMeters: 5, timestampSeconds: 4), .stale(lastSeconds: 5, seconds: 4)),
    ])
    func badFixesAreRejectedByEveryRuleWithoutChangingState(bad: RuleFix, reason: FixRejection) {
        var rules: [any FenceRule] = [
            NaiveRule(fence: fence), ConfidentRule(fence: fence, dwellFixes: 1), HysteresisRule(fence: fence),
            ConfidentRule.adaptive(fence: fence),
        ]
        for i in rules.indices {
            _ = rules[i].update(with: fix(10, accuracy: 5, t: 5))
            let before = rules[i].state
            let outcome = rules[i].update(with: bad)
            #expect(outcome.rejection == reason, "\(type(of: rules[i]))")
            #expect(outcome.event == nil)
            #expect(rules[i].state == before)
            // A later valid fix still works.
            let next = rules[i].update(with: fix(500, accuracy: 5, t: 20))
            #expect(next.rejection == nil)
        }
    }

    @Test func accuracyModels() {
        #expect(AccuracyModel.oneSigma.sigma(forAccuracyMeters: 10) == 10)
        // 68 % of a 2D Gaussian lies within 1.5096 σ.
        #expect(abs(AccuracyModel.percentile(0.68).sigma(forAccuracyMeters: 15.096) - 10) < 0.001)
        #expect(abs(AccuracyModel.percentile(1 - exp(-0.5)).sigma(forAccuracyMeters: 10) - 10) < 1e-12)
    }
}
