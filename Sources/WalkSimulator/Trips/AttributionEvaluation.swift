import FencePlanner
import FenceRules
import Geodesy
import SpatialIndex

/// Stop attribution (`StopAttribution`) over errand trips: at each stop of at least 2 minutes, and
/// at each decoy stop (whose right answer is "none of them"), the fixes of a burst taken after the
/// user has settled go to the posterior over the places nearby; the top answer is right or wrong,
/// and the probabilities are checked for calibration (of the answers given with p ≥ 0.9, at least
/// 90 % should be right).
public enum AttributionEvaluation {
    /// The burst: fixes from `settleSeconds` after the arrival, for `burstSeconds`.
    public static let settleSeconds = 60.0
    public static let burstSeconds = 60.0
    /// Places whose fence edge is within this of the burst's first fix are candidates, meters.
    public static let candidateReachMeters = 150.0

    /// What attribution did over the trips.
    public struct Result: Hashable, Sendable {
        /// Answers in one bin of probability, and how many were right.
        public struct Bin: Hashable, Sendable {
            public var answers = 0
            public var right = 0
        }

        public var stops = 0
        public var right = 0
        /// Stops at resolvable places (the fence's radius at least the burst's reported accuracy,
        /// the phone's position error there), and those answered right.
        public var resolvableStops = 0
        public var resolvableRight = 0
        /// The true place among the candidates with probability at least 0.05.
        public var amongCandidates = 0
        public var decoys = 0
        /// Decoys answered "none of them".
        public var decoysRight = 0
        /// By the top answer's probability, [0, 0.5), [0.5, 0.7), [0.7, 0.9), [0.9, 1]: answers
        /// and right answers (stops and decoys together).
        public var bins = [Bin](repeating: Bin(), count: 4)

        public init() {}

        public static let binLabels = ["p < 0.5", "0.5-0.7", "0.7-0.9", "p >= 0.9"]

        mutating func add(probability: Double, right isRight: Bool) {
            let bin = probability < 0.5 ? 0 : probability < 0.7 ? 1 : probability < 0.9 ? 2 : 3
            bins[bin].answers += 1
            if isRight { bins[bin].right += 1 }
        }
    }

    /// `attribution` over `trips` errand trips of `simulation`.
    public static func run(_ simulation: Simulation, trips: Int, attribution: StopAttribution = StopAttribution()) -> Result {
        var result = Result()
        for index in 0..<trips { score(simulation.trip(index), catalog: simulation.catalog, attribution: attribution, into: &result) }
        return result
    }

    static func score(_ trip: Trip, catalog: PlaceCatalog, attribution: StopAttribution, into result: inout Result) {
        var buffer = NeighborBuffer()
        func answer(from start: Double, to end: Double) -> (accuracyMeters: Double, posterior: [(id: String?, probability: Double)])? {
            let window = (start + settleSeconds)...min(end, start + settleSeconds + burstSeconds)
            let fixes = trip.walk.samples.filter { window.contains($0.timeSeconds) }.compactMap { sample in
                sample.fix.map {
                    StopAttribution.StopFix(coordinate: $0.coordinate, accuracyMeters: $0.accuracyMeters, timeSeconds: sample.timeSeconds)
                }
            }
            guard let first = fixes.first else { return nil }
            catalog.index.within(candidateReachMeters, of: UnitVector(first.coordinate), measuredTo: .edge, into: &buffer)
            let candidates = buffer.neighbors.map { neighbor in
                let place = catalog.places[neighbor.index]
                return StopAttribution.Candidate(
                    id: place.id, fence: CircularFence(center: place.coordinate, radiusMeters: place.radiusMeters))
            }
            let accuracy = fixes.map { $0.accuracyMeters ?? attribution.defaultAccuracyMeters }.reduce(0, +) / Double(fixes.count)
            return (accuracy, attribution.posterior(fixes: fixes, candidates: candidates))
        }
        for stop in trip.stops where stop.dwellSeconds >= StopOracle.minimumStopSeconds {
            guard let (accuracy, posterior) = answer(from: stop.arrivalSeconds, to: stop.departureSeconds), let top = posterior.first
            else {
                continue
            }
            let isRight = top.id == stop.placeID
            result.stops += 1
            if isRight { result.right += 1 }
            if let place = catalog[id: stop.placeID], place.radiusMeters >= accuracy {
                result.resolvableStops += 1
                if isRight { result.resolvableRight += 1 }
            }
            if posterior.contains(where: { $0.id == stop.placeID && $0.probability >= 0.05 }) { result.amongCandidates += 1 }
            result.add(probability: top.probability, right: isRight)
        }
        for decoy in trip.decoys where decoy.departureSeconds - decoy.arrivalSeconds >= settleSeconds + 10 {
            guard let (_, posterior) = answer(from: decoy.arrivalSeconds, to: decoy.departureSeconds), let top = posterior.first else {
                continue
            }
            result.decoys += 1
            if top.id == nil { result.decoysRight += 1 }
            result.add(probability: top.probability, right: top.id == nil)
        }
    }
}
