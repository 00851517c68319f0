import FencePlanner
import FenceRules
import Geodesy
import SpatialIndex

/// A stay under way: fixes within the still radius of its first one, summed so that the state
/// stays the same size however long the stay lasts. Each fix counts by the inverse of its error's
/// variance, so that a few GNSS fixes (σ 5 m) outweigh many Wi-Fi positions (σ 43 m): the mean
/// is the inverse-variance weighted mean, the best linear estimate of the user's position.
public struct Stay: Hashable, Sendable, Codable {
    /// The stay's first fix: the still rule's anchor.
    public var anchor: Coordinate
    /// The first fix's time, seconds (`start_t` in JSON).
    public var startSeconds: Double
    /// The last fix's time that stayed, seconds (`last_t`).
    public var lastSeconds: Double
    /// The sum of the stayed fixes' unit vectors, each weighted by 1 / its variance per axis
    /// (their weighted mean's direction), x (`sum_x`).
    public var sumX: Double
    /// Its y component (`sum_y`).
    public var sumY: Double
    /// Its z component (`sum_z`).
    public var sumZ: Double
    /// The fixes that stayed.
    public var count: Int
    /// The sum of their weights, 1 / each fix's error variance per axis, m⁻² (`sum_weight`):
    /// the weighted mean's variance per axis, were the errors independent, is its inverse.
    public var sumWeight: Double
    /// Consecutive fixes beyond the radius (of the first fix before the arrival, of the mean
    /// after it).
    public var outside = 0
    /// The first of those fixes' time, seconds (`first_outside_t`).
    public var firstOutsideSeconds: Double?
    /// The visit reported at the arrival; nil until the stay is long enough.
    public var arrival: StoreVisit?
    /// How fast the user left the stay before this one, m/s (`approach_mps`): when fixes beyond
    /// its radius ended it, the distance from where it stayed (the mean of its fixes) to this
    /// stay's first fix over the time since its last fix that stayed, so that a car that waited
    /// at a red light is seen driving at its first stay after the light (and one who drove off
    /// from a visit, at the stay after it); when precise fixes said the user walks on within the
    /// radius, the distance from the reference precise fix over the time since it. Nil for the
    /// first stay, and above
    /// `Stay.fastestApproachMetersPerSecond` (a position that jumped, not a traveller).
    public var approachSpeed: Double?
    /// Faster than this, m/s (250 km/h), a stay's approach is a position that jumped (a cell
    /// position kilometers off), not a traveller's speed.
    public static let fastestApproachMetersPerSecond = 70.0
    /// The reference precise fix (accuracy at most `VisitSettings.preciseAccuracyMeters`: GNSS
    /// under the sky), the stay's first, then each check's: a precise fix `motionSeconds` later
    /// is compared with it to tell a user standing from one walking (`precise`, `precise_t`,
    /// `precise_accuracy_m` in JSON).
    public var precise: Coordinate?
    /// Its time, seconds.
    public var preciseSeconds: Double?
    /// Its accuracy, meters.
    public var preciseAccuracyMeters: Double?
    /// Whether precise fixes have said the user stands (`moving` false once): the arrival no
    /// longer waits for them (`still_checked` in JSON).
    public var stillChecked = false
    /// When the stay's confirmation began (the first fix of its last
    /// `VisitSettings.confirmSeconds` before the arrival), seconds; nil before (`confirm_t`).
    public var confirmSince: Double?

    /// A stay beginning at one fix whose error has `variance` per axis, m² (> 0).
    public init(at coordinate: Coordinate, timeSeconds: Double, variance: Double) {
        anchor = coordinate
        startSeconds = timeSeconds
        lastSeconds = timeSeconds
        let vector = UnitVector(coordinate)
        let weight = StopAttribution.weight(variance: variance)
        sumX = weight * vector.x
        sumY = weight * vector.y
        sumZ = weight * vector.z
        count = 1
        sumWeight = weight
    }

    /// A stay beginning at `fix` after `previous`, which fixes beyond its radius ended (`left`)
    /// or precise fixes within it (see `approachSpeed`); `fix` is the precise reference when it
    /// is precise.
    init(
        at fix: Fix, accuracy: Double, variance: Double, timeSeconds: Double, after previous: Stay?, left: Bool = true,
        rules: VisitSettings
    ) {
        self.init(at: fix.coordinate, timeSeconds: timeSeconds, variance: variance)
        notePrecise(fix, accuracy: accuracy, at: timeSeconds, rules: rules)
        guard let previous else { return }
        let (from, since) =
            left
            ? (previous.mean, previous.lastSeconds)
            : (previous.precise ?? previous.anchor, previous.preciseSeconds ?? previous.startSeconds)
        guard timeSeconds > since else { return }
        let speed = fix.coordinate.distance(to: from) / (timeSeconds - since)
        if speed <= Self.fastestApproachMetersPerSecond { approachSpeed = speed }
    }

    /// Weights the stay's fixes alike, by 1 / their mean variance, from the unweighted sums of
    /// their unit vectors (`sumX`, `sumY`, `sumZ` as read) and `sumVariance`, the sum of their
    /// variances: the form stays had before fixes were weighted (`sum_variance` in JSON,
    /// `MonitorStateCoding` codec 3).
    public mutating func weighAlike(sumVariance: Double) {
        let weight = StopAttribution.weight(variance: sumVariance / Double(max(count, 1)))
        sumX *= weight
        sumY *= weight
        sumZ *= weight
        sumWeight = weight * Double(count)
    }

    /// The harmonic mean of the stayed fixes' variances per axis, m²: what one fix of the stay
    /// is worth (`count` fixes of this variance make the same weighted mean's variance).
    public var fixVariance: Double { Double(count) / sumWeight }

    /// The mean of the stayed fixes.
    public var mean: Coordinate { Coordinate(UnitVector(x: sumX, y: sumY, z: sumZ)) }

    mutating func include(_ vector: UnitVector, variance: Double, at time: Double) {
        let weight = StopAttribution.weight(variance: variance)
        sumX += weight * vector.x
        sumY += weight * vector.y
        sumZ += weight * vector.z
        count += 1
        sumWeight += weight
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
        case sumWeight = "sum_weight"
        case sumVariance = "sum_variance"
        case outside
        case firstOutsideSeconds = "first_outside_t"
        case arrival
        case approachSpeed = "approach_mps"
        case precise
        case preciseSeconds = "precise_t"
        case preciseAccuracyMeters = "precise_accuracy_m"
        case confirmSince = "confirm_t"
        case stillChecked = "still_checked"
    }

    /// Reads a stay; one written before fixes were weighted (`sum_variance`, the sums of unit
    /// vectors unweighted) is read with every fix weighted alike, by 1 / their mean variance.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        anchor = try container.decode(Coordinate.self, forKey: .anchor)
        startSeconds = try container.decode(Double.self, forKey: .startSeconds)
        lastSeconds = try container.decode(Double.self, forKey: .lastSeconds)
        sumX = try container.decode(Double.self, forKey: .sumX)
        sumY = try container.decode(Double.self, forKey: .sumY)
        sumZ = try container.decode(Double.self, forKey: .sumZ)
        count = try container.decode(Int.self, forKey: .count)
        if let weight = try container.decodeIfPresent(Double.self, forKey: .sumWeight) {
            sumWeight = weight
        } else {
            sumWeight = 0
            weighAlike(sumVariance: try container.decode(Double.self, forKey: .sumVariance))
        }
        outside = try container.decodeIfPresent(Int.self, forKey: .outside) ?? 0
        firstOutsideSeconds = try container.decodeIfPresent(Double.self, forKey: .firstOutsideSeconds)
        arrival = try container.decodeIfPresent(StoreVisit.self, forKey: .arrival)
        approachSpeed = try container.decodeIfPresent(Double.self, forKey: .approachSpeed)
        precise = try container.decodeIfPresent(Coordinate.self, forKey: .precise)
        preciseSeconds = try container.decodeIfPresent(Double.self, forKey: .preciseSeconds)
        preciseAccuracyMeters = try container.decodeIfPresent(Double.self, forKey: .preciseAccuracyMeters)
        confirmSince = try container.decodeIfPresent(Double.self, forKey: .confirmSince)
        stillChecked = try container.decodeIfPresent(Bool.self, forKey: .stillChecked) ?? false
    }

    /// Writes the stay (`sum_weight`, never the old `sum_variance`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(anchor, forKey: .anchor)
        try container.encode(startSeconds, forKey: .startSeconds)
        try container.encode(lastSeconds, forKey: .lastSeconds)
        try container.encode(sumX, forKey: .sumX)
        try container.encode(sumY, forKey: .sumY)
        try container.encode(sumZ, forKey: .sumZ)
        try container.encode(count, forKey: .count)
        try container.encode(sumWeight, forKey: .sumWeight)
        try container.encode(outside, forKey: .outside)
        try container.encodeIfPresent(firstOutsideSeconds, forKey: .firstOutsideSeconds)
        try container.encodeIfPresent(arrival, forKey: .arrival)
        try container.encodeIfPresent(approachSpeed, forKey: .approachSpeed)
        try container.encodeIfPresent(precise, forKey: .precise)
        try container.encodeIfPresent(preciseSeconds, forKey: .preciseSeconds)
        try container.encodeIfPresent(preciseAccuracyMeters, forKey: .preciseAccuracyMeters)
        try container.encodeIfPresent(confirmSince, forKey: .confirmSince)
        if stillChecked { try container.encode(true, forKey: .stillChecked) }
    }

    /// Whether precise fixes say the user is walking on: `fix` (accuracy `accuracy`) and the
    /// stay's reference precise fix, at least `rules.motionSeconds` apart, are farther apart than
    /// 1.5 times their accuracies together and `rules.motionSlackMeters` (a phone's accuracy is
    /// a 68 % radius; the factor keeps a user standing from looking like a walker one check in
    /// fifty). Nil when they cannot tell: `fix` is not precise, no reference is old enough yet,
    /// or the check is off (`motionSeconds` 0).
    func moving(_ fix: Fix, accuracy: Double, at time: Double, rules: VisitSettings) -> Bool? {
        guard rules.motionSeconds > 0, accuracy <= rules.preciseAccuracyMeters, let reference = precise, let since = preciseSeconds,
            time - since >= rules.motionSeconds
        else { return nil }
        let limit = 1.5 * (accuracy + (preciseAccuracyMeters ?? accuracy)) + rules.motionSlackMeters
        return fix.coordinate.distance(to: reference) > limit
    }

    /// Makes `fix` the reference for `moving` when it is precise and there is none.
    mutating func notePrecise(_ fix: Fix, accuracy: Double, at time: Double, rules: VisitSettings) {
        guard accuracy <= rules.preciseAccuracyMeters, precise == nil else { return }
        setReference(fix, accuracy: accuracy, at: time)
    }

    /// Makes `fix` the reference for `moving`.
    mutating func setReference(_ fix: Fix, accuracy: Double, at time: Double) {
        precise = fix.coordinate
        preciseSeconds = time
        preciseAccuracyMeters = accuracy
    }
}

extension FenceMonitor {
    /// The platform's word that the user became still or moved on: with no visit under way,
    /// "still" is a cue to look for a stop (a burst of network fixes, ended by the first fix far
    /// from every place: a user still at home costs one fix), unless a region entered already
    /// cues this stop. "Moving" changes nothing: as a cue to see a visit's departure sooner it
    /// cost 3 mWh per hour on Android over isolated places (shoppers' classifiers flip within
    /// stores) for no stop found (Benchmarks/RESULTS.md), and the visit's own fixes see the
    /// departure.
    mutating func handleMotion(_ report: MotionReport, into output: inout MonitorOutput) {
        guard settings.visits != nil else {
            output.ignored = "motion reports are used for store visits, which are off"
            return
        }
        guard report.kind == .still, state.stay?.arrival == nil else { return }
        if let cue = state.cue, cue.placeID != nil { return }
        state.cue = VisitCue(seconds: report.timeSeconds)
    }

    /// A cue that names no region (an in-app entry, the platform's motion) ends at a fix farther
    /// from every place's fence than 1.5 times its accuracy (a Wi-Fi position's error, σ 36.5 m
    /// per axis, stays within 1.5 × 65 m for 97 % of fixes): the user is not at a place.
    mutating func endCueFarFromPlaces(_ fix: Fix, rules: VisitSettings) {
        guard let cue = state.cue, cue.placeID == nil, cue.moves < rules.burstMoves, state.stay?.arrival == nil else { return }
        let reach = 1.5 * (fix.accuracyMeters ?? rules.attribution.defaultAccuracyMeters)
        if catalog.placesWithin(reach, of: UnitVector(fix.coordinate)).isEmpty { state.cue?.moves = rules.burstMoves }
    }

    /// Feeds a fix to the stay detector (`Settings.visits`): a stay long enough reports a
    /// visit's arrival, attributed over the places near it; fixes that leave the stay of a
    /// reported visit report its departure.
    mutating func observeStay(_ fix: Fix, at time: Double, into output: inout MonitorOutput) {
        guard let rules = settings.visits else { return }
        let accuracy = fix.accuracyMeters ?? rules.attribution.defaultAccuracyMeters
        guard accuracy <= rules.maxAccuracyMeters else { return }
        endCueFarFromPlaces(fix, rules: rules)
        let sigma = rules.attribution.sigma(accuracyMeters: accuracy)
        let variance = sigma * sigma
        let vector = UnitVector(fix.coordinate)
        guard var stay = state.stay else {
            state.stay = Stay(at: fix, accuracy: accuracy, variance: variance, timeSeconds: time, after: nil, rules: rules)
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
                    stay = Stay(
                        at: fix, accuracy: accuracy, variance: variance, timeSeconds: time, after: stay, rules: rules)
                    state.cue?.moves += 1
                }
                return
            }
            // Precise fixes (GNSS under the sky) tell a walker who waited at a crossing from a
            // user standing still: one that walks on is not staying, and a new stay begins here;
            // one standing makes this fix the next check's reference.
            switch stay.moving(fix, accuracy: accuracy, at: time, rules: rules) {
            case true?:
                stay = Stay(at: fix, accuracy: accuracy, variance: variance, timeSeconds: time, after: stay, left: false, rules: rules)
                return
            case false?:
                stay.setReference(fix, accuracy: accuracy, at: time)
                stay.stillChecked = true
            case nil: break
            }
            stay.include(vector, variance: variance, at: time)
            stay.notePrecise(fix, accuracy: accuracy, at: time, rules: rules)
            if stay.confirmSince == nil, rules.confirmSeconds > 0, time - stay.startSeconds >= rules.stillSeconds - rules.confirmSeconds {
                stay.confirmSince = time
            }
            if time - stay.startSeconds >= rules.stillSeconds {
                // Precise fixes that have not yet said whether the user stands postpone the arrival.
                if rules.motionSeconds > 0, accuracy <= rules.preciseAccuracyMeters, stay.precise != nil, !stay.stillChecked {
                    return
                }
                // So does a confirmation that began at this fix or less than `preciseWithinSeconds`
                // ago without a precise fix (sparse network fixes reach the stay's length at the
                // fix that begins it): GNSS has that long to place the stay and see a walker.
                if rules.confirmSeconds > 0, let since = stay.confirmSince, time - since < rules.preciseWithinSeconds,
                    (stay.preciseSeconds ?? -.infinity) < since, uncertain(stay, rules: rules)
                {
                    return
                }
                let visit = attribute(stay, rules: rules)
                // The platform says the user is near a place (its region entered, not left) and
                // the stay says none of them: the stay may hold the walk to the door from the
                // region's edge. It begins again here, as often as the cue allows moves.
                if visit.placeID == nil, let cue = state.cue, cue.placeID != nil, cue.moves < rules.burstMoves {
                    stay = Stay(at: fix, accuracy: accuracy, variance: variance, timeSeconds: time, after: nil, rules: rules)
                    state.cue?.moves += 1
                    return
                }
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
        // A visit that has lasted `settleSeconds` asks the fixes beyond it to span longer: a long
        // stay wanders, a user who left stays gone.
        let settled = stay.arrival.map { time - $0.arrivalSeconds >= rules.settleSeconds } ?? false
        let span = settled ? max(rules.departureSeconds, rules.settledDepartureSeconds) : rules.departureSeconds
        guard distance > rules.farDepartureFactor * radius || (stay.outside >= rules.departureFixes && time - firstOutside >= span)
        else { return }
        var visit = attribute(stay, rules: rules)
        visit.departureSeconds = firstOutside
        output.visits.append(VisitEvent(kind: .departure, visit: visit, timeSeconds: time))
        // A cue heard during the visit that names no place (the platform's exit of the visit's
        // place, its motion) asked for this departure: it is answered.
        if let cue = state.cue, cue.placeID == nil, let arrival = stay.arrival, cue.seconds >= arrival.arrivalSeconds { state.cue = nil }
        stay = Stay(at: fix, accuracy: accuracy, variance: variance, timeSeconds: time, after: stay, rules: rules)
    }

    /// Whether the stay's fixes leave its answer uncertain: neither a place nor "none of them" is
    /// at least `VisitSettings.confirmBelowProbability` probable.
    func uncertain(_ stay: Stay, rules: VisitSettings) -> Bool {
        let visit = attribute(stay, rules: rules)
        return max(visit.candidates.first?.probability ?? 0, visit.noneProbability) < rules.confirmBelowProbability
    }

    /// The visit a stay makes: its mean, that mean's accuracy, and the posterior over the places
    /// whose fence edge is within `candidateRadiusMeters` of it.
    func attribute(_ stay: Stay, rules: VisitSettings) -> StoreVisit {
        let mean = stay.mean
        let model = rules.attribution
        let variance = model.meanVariance(
            sigmaSquared: stay.fixVariance, count: stay.count, spanSeconds: stay.lastSeconds - stay.startSeconds)
        let nearby = catalog.placesWithin(rules.candidateRadiusMeters, of: UnitVector(mean))
        let candidates = nearby.map { neighbor in
            let fence = catalog.fences[neighbor.index]
            if let footprint = catalog.places[neighbor.index].footprint {
                return StopAttribution.Candidate(id: fence.id, footprint: footprint)
            }
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
