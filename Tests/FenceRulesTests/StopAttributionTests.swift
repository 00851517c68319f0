import FenceRules
import Foundation
import Geodesy
import Testing

@Suite struct StopAttributionTests {
    static let origin = Coordinate(validLatitude: 46.05, longitude: 14.51)

    static func at(east: Double, north: Double) -> Coordinate {
        let distance = (east * east + north * north).squareRoot()
        return origin.destination(bearingDegrees: atan2(east, north) * 180 / .pi, distanceMeters: distance)
    }

    static func fixes(
        around point: (east: Double, north: Double), count: Int, step: Double, sigma: Double, tau: Double, rng: inout SplitMix64
    )
        -> [StopAttribution.StopFix]
    {
        let rho = exp(-step / tau)
        var e = sigma * rng.nextGaussian(), n = sigma * rng.nextGaussian()
        return (0..<count).map { i in
            if i > 0 {
                e = rho * e + sigma * (1 - rho * rho).squareRoot() * rng.nextGaussian()
                n = rho * n + sigma * (1 - rho * rho).squareRoot() * rng.nextGaussian()
            }
            return StopAttribution.StopFix(
                coordinate: at(east: point.east + e, north: point.north + n), accuracyMeters: 1.51 * sigma, timeSeconds: Double(i) * step)
        }
    }

    /// Under its own model the posterior is calibrated: stops drawn from the model (a place by the
    /// prior, the user around its center, fixes with slowly changing errors, or "none" anywhere in
    /// its disc) are right as often as the top answer's probability says, bin by bin, within 4
    /// binomial standard errors. A posterior that took correlated fixes for independent ones
    /// would be over-confident and fail.
    @Test func theAnswersAreCalibratedUnderTheModel() {
        let attribution = StopAttribution()
        let places = [(0.0, 0.0, 40.0), (90.0, 10.0, 30.0), (-60.0, 70.0, 50.0), (20.0, -110.0, 25.0)]
        let candidates = places.enumerated().map { i, p in
            StopAttribution.Candidate(id: "p\(i)", fence: CircularFence(center: Self.at(east: p.0, north: p.1), radiusMeters: p.2))
        }
        var rng = SplitMix64(seed: 5)
        var bins = [(answers: Int, right: Int, expected: Double)](repeating: (0, 0, 0), count: 4)
        for _ in 0..<3_000 {
            var truth: String?
            var point: (east: Double, north: Double)
            if rng.nextUnit() < attribution.noneProbability {
                let r = attribution.noneRadiusMeters * rng.nextUnit().squareRoot(), a = rng.nextDouble(in: 0..<(2 * .pi))
                point = (r * sin(a), r * cos(a))
            } else {
                let k = rng.nextInt(below: places.count)
                truth = "p\(k)"
                point = (places[k].0 + places[k].2 / 2 * rng.nextGaussian(), places[k].1 + places[k].2 / 2 * rng.nextGaussian())
            }
            let stopFixes = Self.fixes(around: point, count: 60, step: 1, sigma: 30, tau: attribution.correlationSeconds, rng: &rng)
            guard let top = attribution.posterior(fixes: stopFixes, candidates: candidates).first else { continue }
            let bin = top.probability < 0.5 ? 0 : top.probability < 0.7 ? 1 : top.probability < 0.9 ? 2 : 3
            bins[bin].answers += 1
            bins[bin].expected += top.probability
            if top.id == truth { bins[bin].right += 1 }
        }
        for (i, bin) in bins.enumerated() where bin.answers >= 50 {
            let expected = bin.expected / Double(bin.answers)
            let observed = Double(bin.right) / Double(bin.answers)
            let error = (expected * (1 - expected) / Double(bin.answers)).squareRoot()
            #expect(
                abs(observed - expected) <= 4 * error + 0.01, "bin \(i): \(bin.answers) answers, \(observed) right, \(expected) expected")
        }
    }

    /// Sixty fixes a second apart are about one look when errors change over a minute; sixty an
    /// hour apart are sixty: the same offset from a place's center is far more telling then.
    @Test func correlatedFixesCountAsFewLooks() {
        let attribution = StopAttribution()
        let candidates = [
            StopAttribution.Candidate(id: "a", fence: CircularFence(center: Self.at(east: 0, north: 0), radiusMeters: 20)),
            StopAttribution.Candidate(id: "b", fence: CircularFence(center: Self.at(east: 60, north: 0), radiusMeters: 20)),
        ]
        func fixes(step: Double) -> [StopAttribution.StopFix] {
            (0..<60).map {
                StopAttribution.StopFix(coordinate: Self.at(east: 15, north: 0), accuracyMeters: 60, timeSeconds: Double($0) * step)
            }
        }
        let close = attribution.posterior(fixes: fixes(step: 1), candidates: candidates)
        let apart = attribution.posterior(fixes: fixes(step: 3_600), candidates: candidates)
        #expect(close.first?.id == "a" && apart.first?.id == "a")
        #expect((apart.first?.probability ?? 0) > (close.first?.probability ?? 1) + 0.2)
        #expect(abs(close.reduce(0) { $0 + $1.probability } - 1) < 1e-12)
    }

    /// Far from every candidate the answer is "none of them"; with no candidate, "none" is certain.
    @Test func farFromEveryPlaceIsNone() {
        let attribution = StopAttribution()
        let far = [StopAttribution.Candidate(id: "a", fence: CircularFence(center: Self.at(east: 300, north: 0), radiusMeters: 30))]
        let fixes = (0..<30).map { StopAttribution.StopFix(coordinate: Self.origin, accuracyMeters: 10, timeSeconds: Double($0)) }
        #expect(attribution.posterior(fixes: fixes, candidates: far).first?.id == nil)
        #expect(attribution.posterior(fixes: fixes, candidates: []).map(\.probability) == [1])
    }
}
