import FencePlanner
import Geodesy
import SpatialIndex

/// One stay inside one fence on the true path: what a user would call a visit.
public struct Visit: Hashable, Sendable {
    public var placeID: String
    /// When the true path first came inside the fence, seconds since the walk started.
    public var entrySeconds: Double
    /// When it was last inside before leaving (or the walk's end), seconds.
    public var exitSeconds: Double

    public init(placeID: String, entrySeconds: Double, exitSeconds: Double) {
        self.placeID = placeID
        self.entrySeconds = entrySeconds
        self.exitSeconds = exitSeconds
    }

    public var dwellSeconds: Double { exitSeconds - entrySeconds }
}

/// An entry the app received for a place, from the platform or from its own evaluation, seconds
/// since the walk started.
public struct ReceivedEntry: Hashable, Sendable {
    public var placeID: String
    public var timeSeconds: Double

    public init(placeID: String, timeSeconds: Double) {
        self.placeID = placeID
        self.timeSeconds = timeSeconds
    }
}

/// The visits on a walk's true path, and how many of them the entries an app received detect.
///
/// The true path is densified as `MissedFenceOracle` densifies it (`DensifiedPath`: points at
/// most `MissedFenceOracle.checkSpacingMeters` apart along the great circle between samples) and
/// every checked point is tested against every fence near it (through the index). A visit runs
/// from the first checked point inside a fence to the last one before the path leaves it; a
/// re-entry within `mergeGapSeconds` of the last exit continues the same visit.
public enum VisitOracle {
    /// Re-entries this soon after an exit are one visit (a path wobbling on the boundary), seconds.
    public static let mergeGapSeconds = 30.0
    /// An entry received this long before a visit's true entry still detects it, seconds.
    public static let earlyToleranceSeconds = 30.0
    /// An entry received this long after a visit ends still detects it, seconds.
    public static let lateToleranceSeconds = 60.0

    /// Every visit on the walk's true path, ordered by entry time (ties by place id).
    ///
    /// - Parameter extraRadiusMeters: grows every fence by this much (the false-entry test uses
    ///   the radius plus the platform's crossing cushion).
    /// - Complexity: O(checked points × fences near each), one index query per 50 m of path.
    public static func visits(on walk: Walk, catalog: PlaceCatalog, extraRadiusMeters: Double = 0) -> [Visit] {
        visits(on: walk, catalog: catalog, grownByMeters: extraRadiusMeters).grown
    }

    /// The visits of the fences as they are and of the fences grown by `grownByMeters`, from one
    /// pass over the path (one distance per checked point and nearby fence serves both).
    public static func visits(on walk: Walk, catalog: PlaceCatalog, grownByMeters extra: Double) -> (true: [Visit], grown: [Visit]) {
        visits(on: walk, path: TruePath(walk), catalog: catalog, grownByMeters: extra)
    }

    /// `visits(on:catalog:grownByMeters:)` over the walk's path converted already.
    public static func visits(
        on walk: Walk, path: TruePath, catalog: PlaceCatalog, grownByMeters extra: Double
    ) -> (true: [Visit], grown: [Visit]) {
        var exact = Tracker()
        var grown = Tracker()
        var buffer = NeighborBuffer()
        var candidates: [(index: Int, slot: Int, exact: Double, grown: Double, footprint: SphericalMultiPolygon?)] = []
        // Each fence met gets a slot (the trackers' storage) and the squared chords of its radius
        // and grown radius, once: a checked point is compared with a fence by one squared chord,
        // no trigonometry and no hashing.
        var slots: [Int: (slot: Int, exact: Double, grown: Double)] = [:]
        var checkedPoint = 0
        let samples = walk.samples
        // The fences near a stretch of up to `stretchMeters` of path, found by one index query
        // around its first sample, serve every step of it.
        let stretchMeters = 50.0
        var stretchStart = -1
        var stretchEnd = -1
        let densified = DensifiedPath(walk, path: path, spacingMeters: MissedFenceOracle.checkSpacingMeters)
        for i in samples.indices {
            if i >= stretchEnd {
                stretchStart = i
                var covered = 0.0
                stretchEnd = i + 1
                while stretchEnd < samples.count, covered < stretchMeters {
                    covered += path.stepMeters[stretchEnd - 1]
                    stretchEnd += 1
                }
                // The last sample of the stretch steps on to the next one: its step is covered too.
                if stretchEnd < samples.count {
                    covered += path.stepMeters[stretchEnd - 1]
                }
                catalog.index.within(covered + extra + 0.001, of: path.vectors[stretchStart], measuredTo: .edge, into: &buffer)
                candidates.removeAll(keepingCapacity: true)
                for neighbor in buffer.neighbors {
                    let index = neighbor.index
                    if slots[index] == nil {
                        let radius = catalog.places[index].radiusMeters
                        slots[index] = (
                            slots.count, GreatCircle.squaredChord(arcMeters: radius), GreatCircle.squaredChord(arcMeters: radius + extra)
                        )
                        exact.addSlot(id: catalog.places[index].id)
                        grown.addSlot(id: catalog.places[index].id)
                    }
                    if let known = slots[index] {
                        candidates.append((index, known.slot, known.exact, known.grown, catalog.places[index].footprint))
                    }
                }
            }
            densified.forEachPoint(ofStep: i) { vector, time in
                checkedPoint += 1
                for candidate in candidates {
                    // A footprint's enclosing circle, grown, first; then its polygon.
                    let chord2 = vector.squaredChord(to: catalog.vectors[candidate.index])
                    guard chord2 <= candidate.grown else { continue }
                    if let footprint = candidate.footprint {
                        let edge = footprint.signedDistanceMeters(to: vector)
                        guard edge <= extra else { continue }
                        grown.inside(candidate.slot, at: time, point: checkedPoint)
                        if edge <= 0 { exact.inside(candidate.slot, at: time, point: checkedPoint) }
                        continue
                    }
                    grown.inside(candidate.slot, at: time, point: checkedPoint)
                    if chord2 <= candidate.exact { exact.inside(candidate.slot, at: time, point: checkedPoint) }
                }
            }
        }
        return (exact.finished(), grown.finished())
    }

    /// The visits in progress and closed, for one set of fences, by slot.
    struct Tracker {
        var ids: [String] = []
        var open: [Visit?] = []  // slot -> visit in progress (last inside point so far)
        var lastInsidePoint: [Int] = []
        var closed: [Visit] = []

        /// A fence met for the first time takes the next slot.
        mutating func addSlot(id: String) {
            ids.append(id)
            open.append(nil)
            lastInsidePoint.append(-2)
        }

        /// Checked point number `point`, at `time`, is inside the fence in `slot`.
        mutating func inside(_ slot: Int, at time: Double, point: Int) {
            if var visit = open[slot], lastInsidePoint[slot] == point - 1 || time - visit.exitSeconds <= mergeGapSeconds {
                visit.exitSeconds = time  // still inside, or back inside soon enough: the same visit
                open[slot] = visit
            } else {
                if let visit = open[slot] { closed.append(visit) }
                open[slot] = Visit(placeID: ids[slot], entrySeconds: time, exitSeconds: time)
            }
            lastInsidePoint[slot] = point
        }

        func finished() -> [Visit] {
            (closed + open.compactMap { $0 }).sorted { ($0.entrySeconds, $0.placeID) < ($1.entrySeconds, $1.placeID) }
        }
    }

    /// Which visits the received entries detect: a visit is detected by the first entry for its
    /// place received between `earlyToleranceSeconds` before its true entry and
    /// `lateToleranceSeconds` after it ends; each entry detects at most one visit (the earliest
    /// undetected one whose window holds it). An entry that falls in no window of `nearVisits`
    /// (the visits of fences grown by the platform's cushion) is a false entry.
    public static func score(visits: [Visit], nearVisits: [Visit], entries: [ReceivedEntry]) -> VisitScore {
        var score = VisitScore()
        let detected = detections(visits: visits, entries: entries)
        var nearByPlace: [String: [Visit]] = [:]
        for visit in nearVisits { nearByPlace[visit.placeID, default: []].append(visit) }
        score.falseEntries =
            entries.filter { entry in
                !(nearByPlace[entry.placeID] ?? []).contains { window($0).contains(entry.timeSeconds) }
            }.count
        for (visit, time) in zip(visits, detected) {
            score.add(dwellSeconds: visit.dwellSeconds, latencySeconds: time.map { $0 - visit.entrySeconds })
        }
        return score
    }

    /// For each visit, when the entry that detects it came (`score`'s rule), or nil.
    static func detections(visits: [Visit], entries: [ReceivedEntry]) -> [Double?] {
        var byPlace: [String: [Int]] = [:]
        for (i, visit) in visits.enumerated() { byPlace[visit.placeID, default: []].append(i) }
        var detected = [Double?](repeating: nil, count: visits.count)
        for entry in entries.sorted(by: { ($0.timeSeconds, $0.placeID) < ($1.timeSeconds, $1.placeID) }) {
            guard
                let match = byPlace[entry.placeID]?.first(where: { i in
                    detected[i] == nil && window(visits[i]).contains(entry.timeSeconds)
                })
            else { continue }
            detected[match] = entry.timeSeconds
        }
        return detected
    }

    static func window(_ visit: Visit) -> ClosedRange<Double> {
        (visit.entrySeconds - earlyToleranceSeconds)...(visit.exitSeconds + lateToleranceSeconds)
    }
}

/// Visits and their detection, summed over walks.
public struct VisitScore: Hashable, Sendable {
    public var visits = 0
    public var detected = 0
    /// Visits of at least 30 s and of at least 120 s (a drive past a shop is not a visit), and how
    /// many of each were detected.
    public var visits30 = 0
    public var detected30 = 0
    public var visits120 = 0
    public var detected120 = 0
    /// Time from each detected visit's true entry to the entry received, seconds (negative when
    /// the entry came early), in no particular order.
    public var latenciesSeconds: [Double] = []
    public var falseEntries = 0

    public init() {}

    mutating func add(dwellSeconds: Double, latencySeconds: Double?) {
        visits += 1
        if dwellSeconds >= 30 { visits30 += 1 }
        if dwellSeconds >= 120 { visits120 += 1 }
        guard let latencySeconds else { return }
        detected += 1
        if dwellSeconds >= 30 { detected30 += 1 }
        if dwellSeconds >= 120 { detected120 += 1 }
        latenciesSeconds.append(latencySeconds)
    }

    /// Detected share of all visits, of visits of at least 30 s and of at least 120 s (1 when there
    /// are none).
    public var recall: Double { Self.share(detected, of: visits) }
    public var recall30: Double { Self.share(detected30, of: visits30) }
    public var recall120: Double { Self.share(detected120, of: visits120) }

    static func share(_ part: Int, of whole: Int) -> Double { whole > 0 ? Double(part) / Double(whole) : 1 }

    /// The latency at quantile `q` (0...1, nearest rank), nil when nothing was detected.
    public func latencySeconds(quantile q: Double) -> Double? { nearestRank(latenciesSeconds, quantile: q) }

    public mutating func merge(_ other: VisitScore) {
        visits += other.visits
        detected += other.detected
        visits30 += other.visits30
        detected30 += other.detected30
        visits120 += other.visits120
        detected120 += other.detected120
        latenciesSeconds += other.latenciesSeconds
        falseEntries += other.falseEntries
    }
}

/// The `q` quantile of `values` by nearest rank (the smallest value with at least a share `q` of
/// the values at or below it); nil when there are none.
func nearestRank(_ values: [Double], quantile q: Double) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, max(0, Int((q * Double(sorted.count)).rounded(.up)) - 1))]
}
