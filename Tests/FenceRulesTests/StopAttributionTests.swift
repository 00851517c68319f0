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
    /// prior, the user around its center and inside its fence, fixes with slowly changing errors, or "none" anywhere in
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
                // Around the center (σ = r / 2), never outside the fence.
                repeat {
                    point = (places[k].2 / 2 * rng.nextGaussian(), places[k].2 / 2 * rng.nextGaussian())
                } while point.east * point.east + point.north * point.north > places[k].2 * places[k].2
                point = (places[k].0 + point.east, places[k].1 + point.north)
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

    /// One place's density, read back from the posterior of a lone candidate, equals a brute-force
    /// integral over a 400 × 400 grid of the user's position (a Gaussian of σ r / 2 around the
    /// center, cut off at the edge and renormalized) times the mean's Gaussian error around it:
    /// inside, at the edge, outside, for places smaller and larger than the error.
    @Test(arguments: [
        (20.0, 10.0, 5.0), (60.0, 100.0, 10.0), (115.0, 100.0, 10.0), (130.0, 100.0, 30.0), (40.0, 15.0, 40.0), (0.0, 50.0, 2.0),
        (75.0, 50.0, 0.5),
    ])
    func aPlacesDensityIsTheCutOffGaussianConvolvedWithTheError(distance: Double, radius: Double, sigma: Double) {
        let attribution = StopAttribution()
        let candidate = StopAttribution.Candidate(id: "a", fence: CircularFence(center: Self.origin, radiusMeters: radius))
        let mean = Self.at(east: distance, north: 0)
        let p =
            attribution.posterior(mean: mean, meanVariance: sigma * sigma, candidates: [candidate]).first { $0.id == "a" }?.probability ?? 0
        // p = f (1 − π0) / (f (1 − π0) + π0 / (π R²)), so f = p π0 / ((1 − p)(1 − π0) π R²).
        let none = attribution.noneProbability
        let noneDensity = none / (.pi * attribution.noneRadiusMeters * attribution.noneRadiusMeters)
        let density = p * noneDensity / ((1 - p) * (1 - none))
        let s = radius / 2
        let steps = 400
        let h = 2 * radius / Double(steps)
        var mass = 0.0, integral = 0.0
        for i in 0..<steps {
            for j in 0..<steps {
                let x = -radius + (Double(i) + 0.5) * h, y = -radius + (Double(j) + 0.5) * h
                guard x * x + y * y <= radius * radius else { continue }
                let place = exp(-(x * x + y * y) / (2 * s * s)) / (2 * .pi * s * s) * h * h
                let dx = distance - x
                mass += place
                integral += place * exp(-(dx * dx + y * y) / (2 * sigma * sigma)) / (2 * .pi * sigma * sigma)
            }
        }
        let expected = integral / mass
        #expect(abs(density - expected) <= 0.01 * expected + 1e-12, "density \(density), grid \(expected)")
    }

    /// The mean's variance equals the brute-force double sum σ²/n² · Σᵢ Σⱼ ρ^|i−j| of an AR(1)
    /// process's mean, from one fix (σ²) to fixes hours apart (σ²/n).
    @Test(arguments: [(2, 1.0), (60, 1.0), (60, 20.0), (13, 600.0), (200, 0.01), (30, 36_000.0)])
    func theMeansVarianceIsTheDoubleSum(count: Int, stepSeconds: Double) {
        let attribution = StopAttribution()
        let rho = exp(-stepSeconds / attribution.correlationSeconds)
        var sum = 0.0
        for i in 0..<count { for j in 0..<count { sum += pow(rho, Double(abs(i - j))) } }
        let expected = 9.0 * sum / Double(count * count)
        let variance = attribution.meanVariance(sigmaSquared: 9, count: count, spanSeconds: stepSeconds * Double(count - 1))
        #expect(abs(variance - expected) <= 1e-6 * expected, "\(variance) vs \(expected)")
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

/// Attribution to footprints: the user stands anywhere on the footprint, evenly.
@Suite struct FootprintAttributionTests {
    static let corner = Coordinate(validLatitude: 60.17, longitude: 24.94)

    /// The point `east` and `north` meters from the corner.
    static func at(_ east: Double, _ north: Double) -> Coordinate {
        corner.destination(bearingDegrees: 90, distanceMeters: east).destination(bearingDegrees: 0, distanceMeters: north)
    }

    static func rectangle(_ east: Double, _ north: Double, _ width: Double, _ height: Double) throws -> SphericalMultiPolygon {
        SphericalMultiPolygon(
            try SphericalPolygon(shell: [
                at(east, north), at(east + width, north), at(east + width, north + height), at(east, north + height),
            ]))
    }

    /// Two shops sharing a wall, 20 m wide each, a stay's mean 6 m inside the west one, known to
    /// σ 3 m: the footprints give the west shop nearly everything (the east one holds Q(2) of the
    /// mean's error, 2.3 %); their enclosing circles, which overlap, split it.
    @Test func adjacentShopsAreToldApart() throws {
        let west = try Self.rectangle(0, 0, 20, 30), east = try Self.rectangle(20, 0, 20, 30)
        let model = StopAttribution()
        let mean = Self.at(14, 15)
        let byFootprint = model.posterior(
            mean: mean, meanVariance: 9,
            candidates: [.init(id: "west", footprint: west), .init(id: "east", footprint: east)])
        #expect(byFootprint.first?.id == "west")
        let west68 = byFootprint.first { $0.id == "west" }?.probability ?? 0
        let east68 = byFootprint.first { $0.id == "east" }?.probability ?? 1
        #expect(west68 > 0.95 && east68 < 0.03, "\(byFootprint)")
        let byCircle = model.posterior(
            mean: mean, meanVariance: 9,
            candidates: [
                .init(id: "west", fence: .init(center: Coordinate(west.cap.center), radiusMeters: west.cap.radiusMeters)),
                .init(id: "east", fence: .init(center: Coordinate(east.cap.center), radiusMeters: east.cap.radiusMeters)),
            ])
        let westByCircle = byCircle.first { $0.id == "west" }?.probability ?? 0
        #expect(westByCircle < west68 - 0.15, "circles: \(byCircle)")
    }

    /// The footprint's density against the brute force: the mean of the Gaussian density at the
    /// mean over points drawn evenly on the footprint, which is the integral it stands for (an
    /// L-shaped shop with a hole, means inside, on the edge, in the hole and outside).
    @Test(arguments: [(10.0, 10.0, 4.0), (35.0, 25.0, 6.0), (13.0, 28.0, 2.0), (70.0, 10.0, 12.0)])
    func densityIsTheMeanOfTheGaussianOverTheFootprint(east: Double, north: Double, sigma: Double) throws {
        let shell = [Self.at(0, 0), Self.at(60, 0), Self.at(60, 20), Self.at(30, 20), Self.at(30, 50), Self.at(0, 50)]
        let hole = [Self.at(10, 25), Self.at(10, 31), Self.at(16, 31), Self.at(16, 25)]
        let footprint = SphericalMultiPolygon(try SphericalPolygon(shell: shell, holes: [hole]))
        let mean = Self.at(east, north)
        let model = StopAttribution()
        // The posterior against "none of them" (a known density) gives the candidate's density.
        let posterior = model.posterior(mean: mean, meanVariance: sigma * sigma, candidates: [.init(id: "shop", footprint: footprint)])
        let noneDensity = model.noneProbability / (.pi * model.noneRadiusMeters * model.noneRadiusMeters)
        let pShop = posterior.first { $0.id == "shop" }?.probability ?? 0
        let density = pShop / (1 - pShop) * noneDensity / (1 - model.noneProbability)
        // Brute force: points drawn evenly over the 60 × 50 m box, kept on the footprint; the
        // mean of the Gaussian's density at them is the density of the stay's mean.
        var rng = SplitMix64(seed: 0xF007)
        var sum = 0.0, squares = 0.0, kept = 0
        let meanVector = UnitVector(mean)
        while kept < 200_000 {
            let point = Self.at(rng.nextDouble(in: 0..<60), rng.nextDouble(in: 0..<50))
            guard footprint.contains(UnitVector(point)) else { continue }
            kept += 1
            let d = Earth.meanRadiusMeters * meanVector.angleRadians(to: UnitVector(point))
            let g = exp(-d * d / (2 * sigma * sigma)) / (2 * .pi * sigma * sigma)
            sum += g
            squares += g * g
        }
        let estimate = sum / Double(kept)
        let standardError = ((squares / Double(kept) - estimate * estimate) / Double(kept)).squareRoot()
        #expect(abs(density - estimate) <= 5 * standardError + 1e-12, "\(density) vs \(estimate)")
    }
}
