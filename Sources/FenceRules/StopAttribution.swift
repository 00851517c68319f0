import Foundation
import Geodesy

/// Which place a stop was at: the posterior probability of each candidate place, and of "none of
/// them", given the fixes taken during the stop.
///
/// The model, in a plane tangent at the fixes' mean:
/// - the user stands somewhere in the place: around its center (a 2D Gaussian with σ half the
///   fence's radius, the store the fence was drawn around) and never outside its fence (the
///   Gaussian cut off at the edge). The cut-off matters for a stay just outside a fence: 15 m
///   outside a 100 m fence, the mean known to 10 m, the place's density is a seventh of the
///   uncut Gaussian's, and "none of them" wins;
/// - each fix is the user's position plus an error of σ = accuracy / 1.51 per axis (a reported
///   accuracy is the radius of 68 % confidence on both platforms, and a 2D Gaussian holds 68 % of
///   its mass within 1.51 σ);
/// - errors are correlated in time (Wi-Fi positions wander slowly: a first-order Gauss–Markov
///   process with `correlationSeconds`), so the mean of n fixes `dt` apart has the variance of
///   an AR(1) process's mean, σ²/n² · Σᵢ Σⱼ ρ^|i−j| with ρ = exp(−dt/τ): sixty fixes a second
///   apart (τ = 60 s) are 1.4 independent looks, not sixty;
/// - "none of them" (the shop next door that is not in the catalog, a bus stop) has prior
///   `noneProbability` and a density spread evenly over a disc of `noneRadiusMeters`; the
///   candidates share the rest of the prior equally.
public struct StopAttribution: Hashable, Sendable {
    /// A place the stop may have been at.
    public struct Candidate: Hashable, Sendable {
        /// The place's id.
        public var id: String
        /// The place's circle (for a footprint, the circle registered for it).
        public var fence: CircularFence
        /// The place's footprint, nil for a circle: the user stands anywhere on it, evenly.
        public var footprint: SphericalMultiPolygon?

        /// A circular place.
        public init(id: String, fence: CircularFence) {
            self.id = id
            self.fence = fence
        }

        /// A place with a footprint; `fence` is its enclosing circle.
        public init(id: String, footprint: SphericalMultiPolygon) {
            self.init(id: id, fence: CircularFence(center: Coordinate(footprint.cap.center), radiusMeters: footprint.cap.radiusMeters))
            self.footprint = footprint
        }
    }

    /// One fix taken during the stop.
    public struct StopFix: Hashable, Sendable {
        public var coordinate: Coordinate
        /// The reported accuracy (68 % radius), meters; nil takes `defaultAccuracyMeters`.
        public var accuracyMeters: Double?
        public var timeSeconds: Double

        public init(coordinate: Coordinate, accuracyMeters: Double?, timeSeconds: Double) {
            self.coordinate = coordinate
            self.accuracyMeters = accuracyMeters
            self.timeSeconds = timeSeconds
        }
    }

    /// The correlation time of the fixes' error, seconds: 60 (not published; range 10–600).
    public var correlationSeconds = 60.0
    /// The prior probability that the stop was at none of the candidates: 0.2 (a stated choice).
    public var noneProbability = 0.2
    /// The radius over which a stop at none of them may be, meters: 150 (a stated choice).
    public var noneRadiusMeters = 150.0
    /// The accuracy taken for a fix that reports none, meters: 50 (Android: "assume about 50 m").
    public var defaultAccuracyMeters = 50.0

    public init() {}

    /// The posterior over `candidates` and "none of them" (id nil), most probable first (ties by
    /// id, none last), summing to 1; with no fix, the prior.
    public func posterior(fixes: [StopFix], candidates: [Candidate]) -> [(id: String?, probability: Double)] {
        guard let origin = fixes.first?.coordinate else { return posterior(mean: nil, meanVariance: 0, candidates: candidates) }
        // The fixes' mean in a plane tangent at the first fix, meters east and north, each fix
        // weighted by the inverse of its variance (the best linear estimate: a GNSS fix outweighs
        // a Wi-Fi position 60 to 1).
        var east = 0.0
        var north = 0.0
        var weights = 0.0
        for fix in fixes {
            let weight = Self.weight(variance: pow(sigma(accuracyMeters: fix.accuracyMeters), 2))
            weights += weight
            let distance = origin.distance(to: fix.coordinate)
            guard distance > 0 else { continue }
            let bearing = origin.initialBearingDegrees(to: fix.coordinate) * .pi / 180
            east += weight * distance * sin(bearing)
            north += weight * distance * cos(bearing)
        }
        let n = Double(fixes.count)
        let offset = (east * east + north * north).squareRoot() / weights
        let mean = offset > 0 ? origin.destination(bearingDegrees: atan2(east, north) * 180 / .pi, distanceMeters: offset) : origin
        // What one fix is worth: the harmonic mean of the variances.
        let sigma2 = n / weights
        let span = (fixes.last?.timeSeconds ?? 0) - (fixes.first?.timeSeconds ?? 0)
        let variance = meanVariance(sigmaSquared: sigma2, count: fixes.count, spanSeconds: span)
        return posterior(mean: mean, meanVariance: variance, candidates: candidates)
    }

    /// The variance per axis of the mean of `count` fixes spread evenly over `spanSeconds`, each
    /// with variance `sigmaSquared` per axis and errors correlated over `correlationSeconds`
    /// (ρ = exp(−dt/τ) between neighbours): exactly `sigmaSquared` / n² · Σᵢ Σⱼ ρ^|i−j|, that is
    /// `sigmaSquared` / n · (1 + 2ρ / (1 − ρ) − 2ρ (1 − ρⁿ) / (n (1 − ρ)²)).
    public func meanVariance(sigmaSquared: Double, count: Int, spanSeconds: Double) -> Double {
        guard count > 1, spanSeconds > 0 else { return sigmaSquared }
        let n = Double(count)
        let rho = exp(-spanSeconds / (n - 1) / correlationSeconds)
        let q = 1 - rho
        // Fixes so close that their errors are one: the sum's cancellation is worse than the answer.
        guard q > 1e-6 else { return sigmaSquared }
        let share = (1 + 2 * rho / q - 2 * rho * (1 - pow(rho, n)) / (n * q * q)) / n
        return sigmaSquared * min(1, max(share, 1 / n))
    }

    /// A fix's weight in a mean of fixes of different accuracy: 1 / its error's variance per
    /// axis, with the variance at least 1 cm² (a fix reporting an accuracy of 0 does not take the
    /// whole mean).
    public static func weight(variance: Double) -> Double { 1 / max(variance, 1e-4) }

    /// The σ per axis of one fix's error from its reported accuracy (a 68 % radius), meters.
    public func sigma(accuracyMeters: Double?) -> Double { (accuracyMeters ?? defaultAccuracyMeters) / Self.radius68PerSigma }

    /// The 68 % radius of a position error of σ `sigma` per axis, meters (the inverse of `sigma`).
    public func accuracyMeters(sigma: Double) -> Double { sigma * Self.radius68PerSigma }

    /// The radius holding 68 % of a circular Gaussian error, in σ per axis: √(−2 ln 0.32), rounded
    /// (`AccuracyModel.percentile(0.68)` without the rounding).
    static let radius68PerSigma = 1.51

    /// The density of the fixes' mean `distanceMeters` from a place's center, per m²: the user
    /// stands at a Gaussian of σ s = r / 2 around the center cut off at the fence's edge, and the
    /// mean is off by a Gaussian of `sigmaMeters` per axis. The product of the two Gaussians is
    /// the mean's Gaussian density N(d; s² + σ²) times a Gaussian over the user's position (at
    /// d · s² / (s² + σ²) from the center, σ' = sσ / √(s² + σ²)), so the cut-off integral is
    /// that density times the Rice probability (`InsideProbability`) of the disc under the
    /// second Gaussian, over the disc's share of the first, 1 − e⁻²; a place much smaller than σ
    /// (r below σ / 1000) is its center's Gaussian.
    static func density(distanceMeters d: Double, radiusMeters r: Double, sigmaMeters sigma: Double) -> Double {
        let s2 = r * r / 4
        let v = max(s2 + sigma * sigma, 1e-12)
        let gaussian = exp(-d * d / (2 * v)) / (2 * .pi * v)
        guard r >= sigma / 1000, r > 0 else { return gaussian }
        let inside = InsideProbability.value(
            distanceMeters: d * s2 / v, radiusMeters: r, sigmaMeters: (s2 * sigma * sigma / v).squareRoot())
        return gaussian * inside / Self.discShare
    }

    /// The density of the fixes' mean at `mean`, per m², for a place with a footprint: the user
    /// stands anywhere on it, evenly (a store's floor), and the mean is off by a Gaussian of
    /// `sigmaMeters` per axis, so the density is the footprint's P(inside) under a Gaussian
    /// centered on the mean (`PolygonInsideProbability`, exact) over its area; with no error to
    /// speak of (σ below a millimeter), 1 / area inside and 0 outside.
    static func density(mean: UnitVector, footprint: SphericalMultiPolygon, sigmaMeters sigma: Double) -> Double {
        let area = footprint.areaSquareMeters
        guard area > 0 else { return 0 }
        guard sigma >= 1e-3 else { return footprint.contains(mean) ? 1 / area : 0 }
        return PolygonInsideProbability.value(footprint, fix: mean, sigmaMeters: sigma) / area
    }

    /// The mass of a circular Gaussian of σ r / 2 within r of its center: 1 − e⁻².
    static let discShare = -expm1(-2.0)

    /// The posterior given where the stop's fixes put the user on average (`mean`) and that
    /// mean's variance per axis (`meanVariance`, m²); with no mean, the prior.
    public func posterior(mean: Coordinate?, meanVariance: Double, candidates: [Candidate]) -> [(id: String?, probability: Double)] {
        let share = candidates.isEmpty ? 0 : (1 - noneProbability) / Double(candidates.count)
        let none = candidates.isEmpty ? 1 : noneProbability
        guard let mean else { return candidates.map { (Optional($0.id), share) } + [(nil, none)] }
        let sigma = meanVariance.squareRoot()
        let meanVector = UnitVector(mean)
        var weights: [(id: String?, weight: Double)] = candidates.map { candidate in
            let density =
                if let footprint = candidate.footprint {
                    Self.density(mean: meanVector, footprint: footprint, sigmaMeters: sigma)
                } else {
                    Self.density(
                        distanceMeters: mean.distance(to: candidate.fence.center), radiusMeters: candidate.fence.radiusMeters,
                        sigmaMeters: sigma)
                }
            return (candidate.id, share * density)
        }
        weights.append((nil, none / (.pi * noneRadiusMeters * noneRadiusMeters)))
        let total = weights.reduce(0) { $0 + $1.weight }
        return weights.map { ($0.id, $0.weight / total) }.sorted {
            $0.1 != $1.1 ? $0.1 > $1.1 : ($0.0 ?? "\u{10FFFF}") < ($1.0 ?? "\u{10FFFF}")
        }
    }
}
