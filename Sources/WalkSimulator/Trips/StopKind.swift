import Foundation
import Geodesy

/// The kinds of place an errand stops at, each with its dwell time from published visit figures.
public enum StopKind: String, Hashable, Sendable, CaseIterable, Codable {
    case fuel
    case coffee
    case grocery
    case dollarStore = "dollar-store"
    case mall

    /// How long a stop of this kind lasts.
    ///
    /// Visit-length figures are published as means or medians by foot-traffic analysts, never as
    /// distributions, so each kind's dwell is log-normal: its median from the figures below, its
    /// spread σ (of the logarithm) from a second published figure where there is one, and
    /// otherwise a stated guess.
    ///
    /// - Fuel: median 5 min — GasBuddy (2018): 52 % of convenience-store and gas-station visits
    ///   last under 5 minutes; σ 1.03 makes the mean 8.5 min, Placer.ai's "average visit of 8 to 9
    ///   minutes" at gas stations (2024; chain medians from Circle K's 8.9 to Sheetz's 11.5 min).
    ///   Range of the median: 5–11.5 min.
    /// - Coffee: median 6.5 min, σ 0.98 — Placer.ai (2024): Starbucks visits over 10 minutes fell
    ///   to about a third (from over 40 % in 2023); a log-normal with median 6.5 min has 33 % above
    ///   10 min at σ = ln(10 / 6.5) / 0.44 = 0.98.
    /// - Grocery and mass retail: median 31 min — Placer.ai (H1 2024): Walmart 31.8, Target about
    ///   28.5, Costco 37.3 min (range 27–37); σ 0.4 is not published (range 0.2–0.8).
    /// - Dollar store: median 16 min — Placer.ai: dollar stores 15–17 min; σ 0.4 not published.
    /// - Mall: median 75 min — "60 to 90 minutes" (a weak source: a trade-press figure without a
    ///   method); σ 0.3 not published.
    public var dwell: DwellDistribution {
        switch self {
        case .fuel: DwellDistribution(medianSeconds: 300, sigma: 1.03)
        case .coffee: DwellDistribution(medianSeconds: 390, sigma: 0.98)
        case .grocery: DwellDistribution(medianSeconds: 1_860, sigma: 0.4)
        case .dollarStore: DwellDistribution(medianSeconds: 960, sigma: 0.4)
        case .mall: DwellDistribution(medianSeconds: 4_500, sigma: 0.3)
        }
    }

    /// How far from the store's center a shopper moves while there, meters (at most half the
    /// fence's radius): seated at a café (3 m), between pump and till at a fuel station (5 m),
    /// along the aisles elsewhere (15 m). A stated choice; it decides whether the phone's motion
    /// classifier calls the shopper still (`MotionActivity`).
    public var browsingRadiusMeters: Double {
        switch self {
        case .coffee: 3
        case .fuel: 5
        case .grocery, .dollarStore, .mall: 15
        }
    }

    /// The mix of kinds an errand trip draws from, by how it travels: on foot a café, a dollar
    /// store, a grocery or a mall; by car also a fuel station. No published source gives this mix:
    /// it is a stated choice that puts every kind, short and long, in the scores.
    public static func mix(_ mode: TravelMode) -> [(kind: StopKind, weight: Double)] {
        switch mode {
        case .walking: [(.coffee, 0.4), (.dollarStore, 0.25), (.grocery, 0.25), (.mall, 0.1)]
        case .driving: [(.fuel, 0.3), (.grocery, 0.3), (.dollarStore, 0.15), (.coffee, 0.15), (.mall, 0.1)]
        }
    }

    /// A kind drawn from `mix(mode)`.
    public static func draw(_ mode: TravelMode, using rng: inout SplitMix64) -> StopKind {
        let mix = self.mix(mode)
        var u = rng.nextUnit() * mix.reduce(0) { $0 + $1.weight }
        for entry in mix {
            u -= entry.weight
            if u < 0 { return entry.kind }
        }
        return mix[mix.count - 1].kind
    }
}

/// A log-normal dwell time: `median × exp(σ·z)` for a standard normal z, clamped to
/// `minimumSeconds...maximumSeconds`.
public struct DwellDistribution: Hashable, Sendable {
    public var medianSeconds: Double
    /// Standard deviation of the dwell's natural logarithm.
    public var sigma: Double
    /// Shortest dwell drawn (a minute: parking and paying take that long), seconds.
    public var minimumSeconds: Double
    /// Longest dwell drawn, seconds.
    public var maximumSeconds: Double

    public init(medianSeconds: Double, sigma: Double, minimumSeconds: Double = 60, maximumSeconds: Double = 4 * 3_600) {
        precondition(medianSeconds > 0 && sigma >= 0 && minimumSeconds <= maximumSeconds, "dwell: median > 0, sigma >= 0, min <= max")
        self.medianSeconds = medianSeconds
        self.sigma = sigma
        self.minimumSeconds = minimumSeconds
        self.maximumSeconds = maximumSeconds
    }

    /// The mean of the unclamped distribution, `median × exp(σ² / 2)`.
    public var meanSeconds: Double { medianSeconds * exp(sigma * sigma / 2) }

    public func draw(using rng: inout SplitMix64) -> Double {
        min(maximumSeconds, max(minimumSeconds, medianSeconds * exp(sigma * rng.nextGaussian())))
    }
}
