import FencePlanner
import FenceRules
import Geodesy
import SpatialIndex

/// A stay under way: fixes within the still radius of its first one, summed so that the state
/// stays the same size however long the stay lasts.
public struct Stay: Hashable, Sendable, Codable {
    /// The stay's first fix: the still rule's anchor.
    public var anchor: Coordinate
    /// The first fix's time, seconds (`start_t` in JSON).
    public var startSeconds: Double
    /// The last fix's time that stayed, seconds (`last_t`).
    public var lastSeconds: Double
    /// The sum of the stayed fixes' unit vectors (their mean's direction), x (`sum_x`).
    public var sumX: Double
    /// Its y component (`sum_y`).
    public var sumY: Double
    /// Its z component (`sum_z`).
    public var sumZ: Double
    /// The fixes that stayed.
    public var count: Int
    /// The sum of their error variances per axis, m² (`sum_variance`).
    public var sumVariance: Double
    /// Consecutive fixes beyond the radius (of the first fix before the arrival, of the mean
    /// after it).
    public var outside = 0
    /// The first of those fixes' time, seconds (`first_outside_t`).
    public var firstOutsideSeconds: Double?
    /// The visit reported at the arrival; nil until the stay is long enough.
    public var arrival: StoreVisit?
    /// How fast the user left the stay before this one: the distance from its first fix to this
    /// stay's first fix over the time between them, m/s (`approach_mps`); nil for the first stay
    /// and after a visit.
    public var approachSpeed: Double?

    /// A stay beginning at one fix.
    public init(at coordinate: Coordinate, timeSeconds: Double, variance: Double) {
        anchor = coordinate
        startSeconds = timeSeconds
        lastSeconds = timeSeconds
        let vector = UnitVector(coordinate)
        sumX = vector.x
        sumY = vector.y
        sumZ = vector.z
        count = 1
        sumVariance = variance
    }

    /// The mean of the stayed fixes.
    public var mean: Coordinate { Coordinate(UnitVector(x: sumX, y: sumY, z: sumZ)) }

    mutating func include(_ vector: UnitVector, variance: Double, at time: Double) {
        sumX += vector.x
        sumY += vector.y
        sumZ += vector.z
        count += 1
        sumVariance += variance
        lastSeconds = time
        outside = 0
        firstOutsideSeconds = nil
    }

    private enum CodingKeys: String, CodingKey {
        case anchor
        case startSeconds = "start_t"
        case lastSeconds = "last_t"
        case sumX = "sum_x"
        case sumY = "sum_y"
        case sumZ = "sum_z"
        case count
        case sumVariance = "sum_variance"
        case outside
        case firstOutsideSeconds = "first_outside_t"
        case arrival
        case approachSpeed = "approach_mps"
    }
}

extension FenceMonitor {
    /// Feeds a fix to the stay detector (`Settings.visits`): a stay long enough reports a
    /// visit's arrival, attributed over the places near it; fixes that leave the stay of a
    /// reported visit report its departure.
    mutating func observeStay(_ fix: Fix, at time: Double, into output: inout MonitorOutput) {
        guard let rules = settings.visits else { return }
        let accuracy = fix.accuracyMeters ?? rules.attribution.defaultAccuracyMeters
        guard accuracy <= rules.maxAccuracyMeters else { return }
        let sigma = rules.attribution.sigma(accuracyMeters: accuracy)
        let variance = sigma * sigma
        let vector = UnitVector(fix.coordinate)
        guard var stay = state.stay else {
            state.stay = Stay(at: fix.coordinate, timeSeconds: time, variance: variance)
            return
        }
        defer { state.stay = stay }
        let radius = rules.stillRadiusMeters
        guard stay.arrival != nil else {
            let distance = Self.meters(vector, UnitVector(stay.anchor))
            guard distance <= radius else {
                // A stray fix (a Wi-Fi position indoors, 50-65 m off) does not end a stay; leaving
                // does, by the departure's rule. The arrival waits for a fix inside again.
                stay.outside += 1
                let firstOutside = stay.firstOutsideSeconds ?? time
                stay.firstOutsideSeconds = firstOutside
                if distance > rules.farDepartureFactor * radius
                    || (stay.outside >= rules.departureFixes && time - firstOutside >= rules.departureSeconds)
                {
                    let elapsed = time - stay.startSeconds
                    stay = Stay(at: fix.coordinate, timeSeconds: time, variance: variance)
                    stay.approachSpeed = elapsed > 0 ? distance / elapsed : nil
                    state.cue?.moves += 1
                }
                return
            }
            stay.include(vector, variance: variance, at: time)
            if time - stay.startSeconds >= rules.stillSeconds {
                let visit = attribute(stay, rules: rules)
                stay.arrival = visit
                // A visit at a place answers the cue; one at none of them ends its burst only:
                // the platform's region may still hold the stop to come.
                if visit.placeID != nil { state.cue = nil } else { state.cue?.moves = rules.burstMoves }
                output.visits.append(VisitEvent(kind: .arrival, visit: visit, timeSeconds: time))
            }
            return
        }
        let distance = Self.meters(vector, UnitVector(stay.mean))
        guard distance > radius else {
            stay.include(vector, variance: variance, at: time)
            // The user is still at the visit: a cue heard during it is answered (at a place).
            if let cue = state.cue, cue.seconds <= time, stay.arrival?.placeID != nil { state.cue = nil }
            return
        }
        stay.outside += 1
        let firstOutside = stay.firstOutsideSeconds ?? time
        stay.firstOutsideSeconds = firstOutside
        guard
            distance > rules.farDepartureFactor * radius
                || (stay.outside >= rules.departureFixes && time - firstOutside >= rules.departureSeconds)
        else { return }
        var visit = attribute(stay, rules: rules)
        visit.departureSeconds = firstOutside
        output.visits.append(VisitEvent(kind: .departure, visit: visit, timeSeconds: time))
        stay = Stay(at: fix.coordinate, timeSeconds: time, variance: variance)
    }

    /// The visit a stay makes: its mean, that mean's accuracy, and the posterior over the places
    /// whose fence edge is within `candidateRadiusMeters` of it.
    func attribute(_ stay: Stay, rules: VisitSettings) -> StoreVisit {
        let mean = stay.mean
        let model = rules.attribution
        let variance = model.meanVariance(
            sigmaSquared: stay.sumVariance / Double(stay.count), count: stay.count, spanSeconds: stay.lastSeconds - stay.startSeconds)
        let nearby = catalog.index.within(rules.candidateRadiusMeters, of: mean, measuredTo: .edge)
        let candidates = nearby.map { neighbor in
            let fence = catalog.fences[neighbor.index]
            return StopAttribution.Candidate(id: fence.id, fence: CircularFence(center: fence.center, radiusMeters: fence.radiusMeters))
        }
        let posterior = model.posterior(mean: mean, meanVariance: variance, candidates: candidates)
        let none = posterior.first { $0.id == nil }?.probability ?? 0
        // The most probable places until they and "none of them" hold `candidateMass` of the
        // probability (a credible set), each at least `minimumCandidateProbability`.
        var listed: [StoreVisit.Candidate] = []
        var held = none
        for entry in posterior {
            guard let id = entry.id else { continue }
            guard held < rules.candidateMass, entry.probability >= rules.minimumCandidateProbability else { break }
            listed.append(StoreVisit.Candidate(placeID: id, probability: entry.probability))
            held += entry.probability
        }
        let top = posterior.lazy.compactMap(\.id).first
        return StoreVisit(
            placeID: none <= rules.maximumNoneProbability ? top : nil, candidates: listed, noneProbability: none, coordinate: mean,
            horizontalAccuracyMeters: model.accuracyMeters(sigma: variance.squareRoot()), arrivalSeconds: stay.startSeconds,
            fixes: stay.count)
    }
}
