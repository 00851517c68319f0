import Foundation
import Geodesy
import PlatformFacts

/// A position error east and north, meters, that changes as `PlatformProfile.PositionNoise`
/// says: a first-order Gauss–Markov process, drawn afresh with σ per axis, then keeping a share
/// ρ = exp(−dt / correlation time) of itself and adding σ·√(1 − ρ²) of fresh noise. The network
/// fixes of the replay, the Wi-Fi fixes of errand trips indoors and those of a recording's still
/// gaps all err this way.
struct GaussMarkovError {
    var east: Double
    var north: Double

    /// A fresh error of `sigmaMeters` per axis (east drawn first, then north).
    init(sigmaMeters: Double, using rng: inout SplitMix64) {
        east = sigmaMeters * rng.nextGaussian()
        north = sigmaMeters * rng.nextGaussian()
    }

    /// The error `seconds` later under `noise`.
    mutating func advance(seconds: Double, noise: PlatformProfile.PositionNoise, using rng: inout SplitMix64) {
        let rho = exp(-seconds / noise.correlationSeconds)
        let fresh = noise.sigmaMeters * (1 - rho * rho).squareRoot()
        east = rho * east + fresh * rng.nextGaussian()
        north = rho * north + fresh * rng.nextGaussian()
    }

    /// `position` off by this error.
    func applied(to position: Coordinate) -> Coordinate {
        position.destination(bearingDegrees: atan2(east, north) * 180 / .pi, distanceMeters: (east * east + north * north).squareRoot())
    }
}
