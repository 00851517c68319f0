import Foundation
import Geodesy

/// Which place a stop was at: the posterior probability of each candidate place, and of "none of
/// them", given the fixes taken during the stop.
///
/// The model, in a plane tangent at the fixes' mean:
/// - the user stands somewhere in the place, taken as a 2D Gaussian around its center with σ half
///   the fence's radius (the per-axis spread of a uniform disc);
/// - each fix is the user's position plus an error of σ = accuracy / 1.51 per axis (a reported
///   accuracy is the radius of 68 % confidence on both platforms, and a 2D Gaussian holds 68 % of
///   its mass within 1.51 σ);
/// - errors are correlated in time (Wi-Fi positions wander slowly: a first-order Gauss–Markov
///   process with `correlationSeconds`), so n fixes `dt` apart shrink the mean's variance by
///   (1 − ρ) n / (1 + ρ) with ρ = exp(−dt/τ), never below one fix's: sixty fixes a second apart
///   are about one independent look, not sixty;
/// - "none of them" (the shop next door that is not in the catalog, a bus stop) has prior
///   `noneProbability` and a density spread evenly over a disc of `noneRadiusMeters`; the
///   candidates share the rest of the prior equally.
public struct StopAttribution: Hashable, Sendable {
    /// A place the stop may have been at.
    public struct Candidate: Hashable, Sendable {
        public var id: String
        public var fence: CircularFence

        public init(id: String, fence: CircularFence) {
            self.id = id
            self.fence = fence
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
        // The fixes' mean in a plane tangent at the first fix, meters east and north.
        var east = 0.0
        var north = 0.0
        for fix in fixes {
            let distance = origin.distance(to: fix.coordinate)
            guard distance > 0 else { continue }
            let bearing = origin.initialBearingDegrees(to: fix.coordinate) * .pi / 180
            east += distance * sin(bearing)
            north += distance * cos(bearing)
        }
        let n = Double(fixes.count)
        let offset = (east * east + north * north).squareRoot() / n
        let mean = offset > 0 ? origin.destination(bearingDegrees: atan2(east, north) * 180 / .pi, distanceMeters: offset) : origin
        let sigma2 = fixes.map { pow(sigma(accuracyMeters: $0.accuracyMeters), 2) }.reduce(0, +) / n
        let span = (fixes.last?.timeSeconds ?? 0) - (fixes.first?.timeSeconds ?? 0)
        let variance = meanVariance(sigmaSquared: sigma2, count: fixes.count, spanSeconds: span)
        return posterior(mean: mean, meanVariance: variance, candidates: candidates)
    }

    /// The variance per axis of the mean of `count` fixes spread evenly over `spanSeconds`, each
    /// with variance `sigmaSquared` per axis and errors correlated over `correlationSeconds`:
    /// `sigmaSquared` · min(1, (1 + ρ) / ((1 − ρ) n)), ρ = exp(−dt/τ).
    public func meanVariance(sigmaSquared: Double, count: Int, spanSeconds: Double) -> Double {
        guard count > 1, spanSeconds > 0 else { return sigmaSquared }
        let rho = exp(-spanSeconds / Double(count - 1) / correlationSeconds)
        return sigmaSquared * min(1, (1 + rho) / ((1 - rho) * Double(count)))
    }

    /// The σ per axis of one fix's error from its reported accuracy (a 68 % radius), meters.
    public func sigma(accuracyMeters: Double?) -> Double { (accuracyMeters ?? defaultAccuracyMeters) / Self.radius68PerSigma }

    /// The 68 % radius of a position error of σ `sigma` per axis, meters (the inverse of `sigma`).
    public func accuracyMeters(sigma: Double) -> Double { sigma * Self.radius68PerSigma }

    /// The radius holding 68 % of a circular Gaussian error, in σ per axis: √(−2 ln 0.32), rounded
    /// (`AccuracyModel.percentile(0.68)` without the rounding).
    static let radius68PerSigma = 1.51

    /// The posterior given where the stop's fixes put the user on average (`mean`) and that
    /// mean's variance per axis (`meanVariance`, m²); with no mean, the prior.
    public func posterior(mean: Coordinate?, meanVariance: Double, candidates: [Candidate]) -> [(id: String?, probability: Double)] {
        let share = candidates.isEmpty ? 0 : (1 - noneProbability) / Double(candidates.count)
        let none = candidates.isEmpty ? 1 : noneProbability
        guard let mean else { return candidates.map { (Optional($0.id), share) } + [(nil, none)] }
        var weights: [(id: String?, weight: Double)] = candidates.map { candidate in
            let d2 = pow(mean.distance(to: candidate.fence.center), 2)
            let v = pow(candidate.fence.radiusMeters / 2, 2) + meanVariance
            return (candidate.id, share * exp(-d2 / (2 * v)) / (2 * .pi * v))
        }
        weights.append((nil, none / (.pi * noneRadiusMeters * noneRadiusMeters)))
        let total = weights.reduce(0) { $0 + $1.weight }
        return weights.map { ($0.id, $0.weight / total) }.sorted {
            $0.1 != $1.1 ? $0.1 > $1.1 : ($0.0 ?? "\u{10FFFF}") < ($1.0 ?? "\u{10FFFF}")
        }
    }
}
