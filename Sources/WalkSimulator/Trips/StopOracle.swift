import FencePlanner
import Geodesy

/// A visit an app reported: the place it names (nil: none of them, the stop's place not known),
/// the candidates it weighed (the named place first), and when it was reported, seconds on the
/// walk's clock. A design that names one place has that place as its only candidate; until apps
/// report visits, each entry counts as one.
public struct ReportedVisit: Hashable, Sendable {
    public var placeID: String?
    public var candidates: [String]
    public var timeSeconds: Double
    /// When the app reported the visit's departure (nil: not, or not yet).
    public var departureSeconds: Double?

    public init(placeID: String?, candidates: [String]? = nil, timeSeconds: Double, departureSeconds: Double? = nil) {
        self.placeID = placeID
        self.candidates = candidates ?? placeID.map { [$0] } ?? []
        self.timeSeconds = timeSeconds
        self.departureSeconds = departureSeconds
    }

    /// An entry the app received, as a visit naming that one place.
    public init(_ entry: ReceivedEntry) {
        self.init(placeID: entry.placeID, timeSeconds: entry.timeSeconds)
    }
}

/// What users buy, scored: the stops on a trip (at least `minimumStopSeconds` at a place), which
/// of them the visits an app reported detect, at the right place, and the visits that are wrong.
///
/// - A stop is **detected** by the first visit naming its place reported between
///   `earlyToleranceSeconds` before its arrival and `lateToleranceSeconds` after its departure
///   (each visit detects at most one stop this way, the earliest stop first); its latency is
///   that visit's time less the arrival. Failing that, by a visit **still open** at the
///   arrival: the last visit reported before the window, if it names the place, with no
///   departure reported before the arrival (less `earlyToleranceSeconds`) and no fix between its
///   report and the arrival that shows the user away from the place (`awayMeters` beyond its
///   fence; a stay split by a recording gap or by the labeller is one visit), latency 0. It is a
///   **candidate** detection when a visit in that window has the place among its candidates.
/// - A visit that detects nothing is **misattributed** when it comes during a stop (between its
///   arrival and departure) and names another place; a **duplicate** when it names the place of
///   a stop whose window holds it; otherwise **false** (a pass-by, a stop shorter than
///   `minimumStopSeconds`, a bus stop or a red light near a fence, the shop next door). A visit
///   that names no place claims none: it can only be a candidate detection.
/// - **Pass-bys** are the occasions for a false visit: passages through a fence (the true
///   path's visits, `VisitOracle`) that overlap no stop at that place, and the decoy stops.
/// - A stop is at a **resolvable** place when the place's fence is at least as large as the
///   position error the phone has there and no other fence comes within that error
///   (`isResolvable`; `resolvable(_:catalog:walk:)` says it from the fixes of a walk): there a
///   design can be asked to name the place, elsewhere (a 20 m shop under 60 m of Wi-Fi error, two
///   overlapping fences) only to list it among its candidates. The score counts those
///   stops, their detections and the visits that name another place during them apart.
public enum StopOracle {
    /// A stop shorter than this is not a stop a user would call a visit, seconds.
    public static let minimumStopSeconds = 120.0
    /// The long stops, reported apart (`StopScore.recall5`), seconds.
    public static let longStopSeconds = 300.0
    /// A visit this long before the arrival still detects the stop, seconds.
    public static let earlyToleranceSeconds = 30.0
    /// A visit this long after the departure still detects the stop, seconds.
    public static let lateToleranceSeconds = 120.0
    /// A visit's departure reported this long after the user left is late: the visit was left
    /// open (`StopScore.visitsLeftOpen`), seconds.
    public static let openToleranceSeconds = 600.0
    /// A fix farther than this beyond a place's fence (or its accuracy, if larger) shows the user
    /// away from it, meters: the independent stay detector's radius (trackintel's sliding
    /// staypoints, 100 m), beyond an indoor Wi-Fi fix's 50-65 m error.
    public static let awayMeters = 100.0

    /// Scores `visits` against the trip's `stops` (any length; the short ones are not counted),
    /// `decoys` and `passages` (the true path's visits to every fence); `wasMonitored` says
    /// whether a stop's place was among the fences the OS monitored at its arrival (the stops
    /// at places that were not are counted apart, `StopScore.unmonitoredAtArrival`).
    public static func score(
        stops: [TrueStop], decoys: [DecoyStop], passages: [Visit], visits: [ReportedVisit],
        isResolvable: (TrueStop) -> Bool = { _ in true }, wasMonitored: (TrueStop) -> Bool = { _ in true },
        away: (String, ClosedRange<Double>) -> Bool = { _, _ in true }, endSeconds: Double? = nil
    ) -> StopScore {
        var score = StopScore()
        let (counted, reported, matches) = match(stops: stops, visits: visits, away: away)
        var used = [Bool](repeating: false, count: reported.count)
        for match in matches { if let match { used[match] = true } }
        // A visit that detected stops is left open when its departure came more than
        // `openToleranceSeconds` after the last of them ended, or never while the trip went on
        // that long.
        if let endSeconds {
            score.visitsLeftOpen = 0
            var lastDeparture: [Int: Double] = [:]
            for (stop, match) in zip(counted, matches) {
                if let match { lastDeparture[match] = max(lastDeparture[match] ?? -.infinity, stop.departureSeconds) }
            }
            for (visit, left) in lastDeparture {
                let due = left + openToleranceSeconds
                if reported[visit].departureSeconds.map({ $0 > due }) ?? (endSeconds > due) { score.visitsLeftOpen? += 1 }
            }
        }
        let resolvable = counted.map(isResolvable)
        for (index, stop) in counted.enumerated() {
            let window = window(stop)
            let long = stop.dwellSeconds >= longStopSeconds
            let match = matches[index]
            let candidate = reported.contains { window.contains($0.timeSeconds) && $0.candidates.contains(stop.placeID) }
            score.add(
                kind: stop.kind, long: long, detected: match != nil, candidate: candidate,
                latencySeconds: match.map {
                    reported[$0].timeSeconds < window.lowerBound ? 0 : reported[$0].timeSeconds - stop.arrivalSeconds
                })
            if resolvable[index] { score.resolvable.add(long: long, detected: match != nil) }
            if !wasMonitored(stop) { score.unmonitoredAtArrival.add(long: long, detected: match != nil) }
        }
        for (i, visit) in reported.enumerated() where !used[i] && visit.placeID != nil {
            let time = visit.timeSeconds
            if let index = counted.firstIndex(where: {
                $0.placeID != visit.placeID && ($0.arrivalSeconds...$0.departureSeconds).contains(time)
            }) {
                score.misattributedVisits += 1
                if resolvable[index] { score.misattributedAtResolvable += 1 }
            } else if counted.contains(where: {
                $0.placeID == visit.placeID
                    && (($0.arrivalSeconds - earlyToleranceSeconds)...($0.departureSeconds + lateToleranceSeconds)).contains(time)
            }) {
                score.duplicateVisits += 1
            } else {
                score.falseVisits += 1
            }
        }
        score.passBys =
            decoys.count
            + passages.filter { passage in
                !counted.contains {
                    $0.placeID == passage.placeID && $0.arrivalSeconds <= passage.exitSeconds && passage.entrySeconds <= $0.departureSeconds
                }
            }.count
        return score
    }

    /// The span in which a visit naming `stop`'s place detects it.
    static func window(_ stop: TrueStop) -> ClosedRange<Double> {
        (stop.arrivalSeconds - earlyToleranceSeconds)...(stop.departureSeconds + lateToleranceSeconds)
    }

    /// The counted stops in arrival order, the visits in time order, and for each stop the index
    /// of the visit that detects it (`score`'s rule: the first unused visit naming its place in
    /// its window), or nil.
    static func match(stops: [TrueStop], visits: [ReportedVisit], away: (String, ClosedRange<Double>) -> Bool = { _, _ in true }) -> (
        stops: [TrueStop], visits: [ReportedVisit], matches: [Int?]
    ) {
        let counted = stops.filter { $0.dwellSeconds >= minimumStopSeconds }.sorted { $0.arrivalSeconds < $1.arrivalSeconds }
        let reported = visits.enumerated().sorted { ($0.element.timeSeconds, $0.offset) < ($1.element.timeSeconds, $1.offset) }.map(
            \.element)
        var used = [Bool](repeating: false, count: reported.count)
        let matches = counted.map { stop -> Int? in
            let window = window(stop)
            let match = reported.indices.first {
                !used[$0] && reported[$0].placeID == stop.placeID && window.contains(reported[$0].timeSeconds)
            }
            if let match {
                used[match] = true
                return match
            }
            // A visit still open at the arrival, which may have detected the stop before.
            let carried = reported.indices.last { reported[$0].timeSeconds < window.lowerBound }
            guard let carried, reported[carried].placeID == stop.placeID,
                (reported[carried].departureSeconds ?? .infinity) >= stop.arrivalSeconds - earlyToleranceSeconds,
                !away(stop.placeID, reported[carried].timeSeconds...stop.arrivalSeconds)
            else { return nil }
            used[carried] = true
            return carried
        }
        return (counted, reported, matches)
    }

    /// Whether a fix of `walk` within `span` shows the user away from place `id` of `catalog`:
    /// farther than `awayMeters` (or the fix's accuracy, if larger) beyond its fence. A place the
    /// catalog does not hold is away.
    public static func away(from id: String, during span: ClosedRange<Double>, walk: Walk, catalog: PlaceCatalog) -> Bool {
        guard let place = catalog[id: id] else { return true }
        return walk.samples.contains { sample in
            guard span.contains(sample.timeSeconds), let fix = sample.fix else { return false }
            let edge =
                place.footprint?.signedDistanceMeters(to: UnitVector(fix.coordinate))
                ?? fix.coordinate.distance(to: place.coordinate) - place.radiusMeters
            return edge > max(awayMeters, fix.accuracyMeters ?? 0)
        }
    }

    /// Each counted stop (arrival order) with the time of the visit that detects it, or nil.
    static func detections(stops: [TrueStop], visits: [ReportedVisit], away: (String, ClosedRange<Double>) -> Bool = { _, _ in true })
        -> [(stop: TrueStop, detectedSeconds: Double?)]
    {
        let (counted, reported, matches) = match(stops: stops, visits: visits, away: away)
        return zip(counted, matches).map { ($0, $1.map { reported[$0].timeSeconds }) }
    }

    /// Whether `stop`'s place is resolvable on `walk`: the position error the phone has there
    /// (the median accuracy the walk's fixes report during the stop: GNSS's few meters under the
    /// sky, Wi-Fi's 50-65 m indoors, the best it can tell) is at most the place's radius (a
    /// footprint's: the radius of a circle of its area), and
    /// no other fence of `catalog` comes within that error of where the user stood (the true
    /// position halfway through the stop): overlapping fences cannot be told apart there however
    /// precise the fixes. A stop without a fix with an accuracy, or at a place `catalog` does not
    /// hold, is not.
    public static func resolvable(_ stop: TrueStop, catalog: PlaceCatalog, walk: Walk) -> Bool {
        guard let place = catalog[id: stop.placeID] else { return false }
        let during = walk.samples.filter { (stop.arrivalSeconds...stop.departureSeconds).contains($0.timeSeconds) }
        let accuracies = during.compactMap { $0.fix?.accuracyMeters }.sorted()
        guard !accuracies.isEmpty else { return false }
        let error = accuracies[accuracies.count / 2]
        // A footprint's size is the radius of the circle of its area.
        let size = place.footprint.map { ($0.areaSquareMeters / .pi).squareRoot() } ?? place.radiusMeters
        guard size >= error else { return false }
        let position = during[during.count / 2].truePosition
        return catalog.placesWithin(error, of: UnitVector(position)).allSatisfy { catalog.places[$0.index].id == place.id }
    }
}

/// The stop oracle's counts over one or more trips.
public struct StopScore: Hashable, Sendable {
    /// Stops of at least `StopOracle.minimumStopSeconds`, and those detected.
    public var stops = 0
    public var detected = 0
    /// Stops of at least `StopOracle.longStopSeconds`, those detected, and those with the place
    /// among a visit's candidates.
    public var longStops = 0
    public var longDetected = 0
    public var longCandidateDetected = 0
    public var misattributedVisits = 0
    public var duplicateVisits = 0
    public var falseVisits = 0
    /// Visits that detected a stop whose departure the app reported more than
    /// `StopOracle.openToleranceSeconds` after the user left, or not at all (counted only for
    /// apps that report departures; nil for the others).
    public var visitsLeftOpen: Int?
    public var passBys = 0
    /// Each detected stop's latency (visit time less arrival), seconds.
    public var latenciesSeconds: [Double] = []
    /// Stops, long stops and their detections by kind of place (generated trips).
    public var byKind: [StopKind: KindCounts] = [:]
    /// The stops at resolvable places (`StopOracle`) and their detections.
    public var resolvable = KindCounts()
    /// Visits naming another place during a stop at a resolvable place.
    public var misattributedAtResolvable = 0
    /// The stops at places whose fence the OS was not monitoring when the user arrived (not
    /// among the selected places, or dropped past the limit), and their detections: what a
    /// design finds only by noticing the stop itself.
    public var unmonitoredAtArrival = KindCounts()

    /// One kind's counts (or the resolvable places', or the unmonitored ones').
    public struct KindCounts: Hashable, Sendable {
        public var stops = 0
        public var detected = 0
        public var longStops = 0
        public var longDetected = 0

        public init() {}

        /// Share of these stops detected at the right place; nil without any.
        public var recall2: Double? { stops > 0 ? Double(detected) / Double(stops) : nil }
        /// Share of the long ones detected at the right place; nil without any.
        public var recall5: Double? { longStops > 0 ? Double(longDetected) / Double(longStops) : nil }

        mutating func add(long: Bool, detected found: Bool) {
            stops += 1
            if found { detected += 1 }
            if long {
                longStops += 1
                if found { longDetected += 1 }
            }
        }

        public mutating func merge(_ other: KindCounts) {
            stops += other.stops
            detected += other.detected
            longStops += other.longStops
            longDetected += other.longDetected
        }
    }

    public init() {}

    mutating func add(kind: StopKind?, long: Bool, detected found: Bool, candidate: Bool, latencySeconds: Double?) {
        stops += 1
        if found { detected += 1 }
        if long {
            longStops += 1
            if found { longDetected += 1 }
            if candidate || found { longCandidateDetected += 1 }
        }
        if let latencySeconds { latenciesSeconds.append(latencySeconds) }
        guard let kind else { return }
        byKind[kind, default: KindCounts()].add(long: long, detected: found)
    }

    /// Share of the stops detected at the right place; nil without stops.
    public var recall2: Double? { stops > 0 ? Double(detected) / Double(stops) : nil }
    /// Share of the long stops detected at the right place; nil without long stops.
    public var recall5: Double? { longStops > 0 ? Double(longDetected) / Double(longStops) : nil }
    /// Share of the long stops whose place was among a visit's candidates; nil without long stops.
    public var candidateRecall5: Double? { longStops > 0 ? Double(longCandidateDetected) / Double(longStops) : nil }
    /// False visits per 100 pass-bys; nil without pass-bys.
    public var falseVisitsPer100PassBys: Double? { passBys > 0 ? 100 * Double(falseVisits) / Double(passBys) : nil }

    /// The `q` quantile of the detected stops' latencies (nearest rank), seconds; nil when none
    /// was detected.
    public func latencySeconds(quantile q: Double) -> Double? { nearestRank(latenciesSeconds, quantile: q) }

    public mutating func merge(_ other: StopScore) {
        stops += other.stops
        detected += other.detected
        longStops += other.longStops
        longDetected += other.longDetected
        longCandidateDetected += other.longCandidateDetected
        misattributedVisits += other.misattributedVisits
        duplicateVisits += other.duplicateVisits
        falseVisits += other.falseVisits
        if let open = other.visitsLeftOpen { visitsLeftOpen = (visitsLeftOpen ?? 0) + open }
        passBys += other.passBys
        latenciesSeconds += other.latenciesSeconds
        resolvable.merge(other.resolvable)
        misattributedAtResolvable += other.misattributedAtResolvable
        unmonitoredAtArrival.merge(other.unmonitoredAtArrival)
        for (kind, counts) in other.byKind { byKind[kind, default: KindCounts()].merge(counts) }
    }
}
