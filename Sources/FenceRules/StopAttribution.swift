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
        let share = candidates.isEmpty ? 0 : (1 - noneProbability) / Double(candidates.count)
        guard let origin = fixes.first?.coordinate else {
            return (candidates.map { (Optional($0.id), share) } + [(nil, candidates.isEmpty ? 1 : noneProbability)])
        }
        // Offsets in a plane tangent at the first fix, meters east and north.
        func offset(_ c: Coordinate) -> (east: Double, north: Double) {
            let distance = origin.distance(to: c)
            guard distance > 0 else { return (0, 0) }
            let bearing = origin.initialBearingDegrees(to: c) * .pi / 180
            return (distance * sin(bearing), distance * cos(bearing))
        }
        let points = fixes.map { offset($0.coordinate) }
        let mean = (
            east: points.map(\.east).reduce(0, +) / Double(points.count), north: points.map(\.north).reduce(0, +) / Double(points.count)
        )
        let sigma2 = fixes.map { pow(($0.accuracyMeters ?? defaultAccuracyMeters) / 1.51, 2) }.reduce(0, +) / Double(fixes.count)
        let span = (fixes.last?.timeSeconds ?? 0) - (fixes.first?.timeSeconds ?? 0)
        let step = fixes.count > 1 ? span / Double(fixes.count - 1) : 0
        let rho = step > 0 ? exp(-step / correlationSeconds) : 1
        let meanVariance = sigma2 * min(1, (1 + rho) / ((1 - rho) * Double(fixes.count)))
        var weights: [(id: String?, weight: Double)] = candidates.map { candidate in
            let c = offset(candidate.fence.center)
            let d2 = pow(c.east - mean.east, 2) + pow(c.north - mean.north, 2)
            let v = pow(candidate.fence.radiusMeters / 2, 2) + meanVariance
            return (candidate.id, share * exp(-d2 / (2 * v)) / (2 * .pi * v))
        }
        weights.append((nil, (candidates.isEmpty ? 1 : noneProbability) / (.pi * noneRadiusMeters * noneRadiusMeters)))
        let total = weights.reduce(0) { $0 + $1.weight }
        return weights.map { ($0.id, $0.weight / total) }.sorted {
            $0.1 != $1.1 ? $0.1 > $1.1 : ($0.0 ?? "\u{10FFFF}") < ($1.0 ?? "\u{10FFFF}")
        }
    }
}
