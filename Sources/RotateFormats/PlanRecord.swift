import FencePlanner
import Geodesy
import SpatialIndex

/// What a plan did, in the shape maps need: the walk, the places worth drawing, when each was
/// monitored, every reselection's refresh region, and the misses.
public struct PlanRecord: Sendable {
    /// One reselection along the walk.
    public struct Reselection: Sendable {
        /// 0-based index of the walk fix it happened at.
        public var fix: Int
        /// Where: that fix's position.
        public var position: Coordinate
        /// The refresh region it registered (nil when the whole catalog was monitored).
        public var refresh: RefreshRegion?
        /// The selection's guarantee.
        public var guarantee: Guarantee
        /// Places it started monitoring.
        public var started: Int
        /// Places it stopped monitoring.
        public var stopped: Int
    }

    /// The walk's fix positions.
    public var walk: [Coordinate]
    /// Each walk position's time, seconds (its index when the walk has no clock).
    public var times: [Double]
    /// Places to draw: every place ever monitored, and every place whose fence edge lies within
    /// 500 m of a reselection point.
    public var places: [Place]
    /// How many places the catalog holds (`places` draws some of them).
    public var catalogCount: Int
    /// For each place id, the fix ranges during which it was monitored (inclusive).
    public var monitored: [String: [ClosedRange<Int>]]
    /// Every reselection, in walk order.
    public var reselections: [Reselection]
    /// Every miss, as the replay's oracle reported them.
    public var misses: [Miss]
    /// The event engine's entries and exits along the walk, where they were decided.
    public var placeEvents: [PlaceMark] = []
    /// The event engine's store visits (their arrivals), where the stay's fixes put them.
    public var visits: [VisitMark] = []

    /// A store visit drawn on the map.
    public struct VisitMark: Hashable, Sendable {
        /// The place it names; nil: none of the places.
        public var placeID: String?
        /// The probability of that place (of "none of them" without one).
        public var probability: Double
        /// The mean of the stay's fixes.
        public var position: Coordinate
        /// When the stay began, seconds.
        public var arrivalSeconds: Double

        /// Creates a mark.
        public init(placeID: String?, probability: Double, position: Coordinate, arrivalSeconds: Double) {
            self.placeID = placeID
            self.probability = probability
            self.position = position
            self.arrivalSeconds = arrivalSeconds
        }
    }

    /// An entry or exit drawn on the map.
    public struct PlaceMark: Hashable, Sendable {
        /// The place's id.
        public var placeID: String
        /// The fix where it was decided.
        public var position: Coordinate
        /// Whether it is an entry (else an exit).
        public var entry: Bool
        /// Decided in-app from fixes (else the platform's event).
        public var inApp: Bool
        /// When it was decided, seconds on the walk's clock.
        public var timeSeconds: Double

        /// Creates a mark.
        public init(placeID: String, position: Coordinate, entry: Bool, inApp: Bool, timeSeconds: Double = 0) {
            self.placeID = placeID
            self.position = position
            self.entry = entry
            self.inApp = inApp
            self.timeSeconds = timeSeconds
        }
    }

    /// A moment the user was inside a fence that was not monitored.
    public struct Miss: Hashable, Sendable {
        /// The place's id.
        public var placeID: String
        /// The first missed point.
        public var position: Coordinate
        /// Whether a planner could have avoided it (drawn and exported as such).
        public var avoidable: Bool
        /// When it began, seconds on the walk's clock.
        public var timeSeconds: Double

        /// Creates a miss.
        public init(placeID: String, position: Coordinate, avoidable: Bool, timeSeconds: Double = 0) {
            self.placeID = placeID
            self.position = position
            self.avoidable = avoidable
            self.timeSeconds = timeSeconds
        }
    }

    /// The record of a replay over `walk` (the path, one position per fix) with its reselections
    /// in order and its misses.
    public init(catalog: PlaceCatalog, walk: [Coordinate], updates: [RecordedUpdate], misses: [Miss]) {
        self.walk = walk
        self.misses = misses
        times = walk.indices.map(Double.init)
        catalogCount = catalog.count
        let lastFix = max(0, walk.count - 1)
        var since: [String: Int] = [:]
        var intervals: [String: [ClosedRange<Int>]] = [:]
        var reselections: [Reselection] = []
        var shown = Set<Int>()
        var buffer = NeighborBuffer()
        for recorded in updates {
            let fix = recorded.sampleIndex
            let diff = recorded.update.diff, selection = recorded.update.selection
            for fence in diff.stop {
                if let start = since.removeValue(forKey: fence.id) { intervals[fence.id, default: []].append(start...max(start, fix - 1)) }
            }
            for fence in diff.start { since[fence.id] = fix }
            for place in selection.monitored { shown.insert(place.position) }
            catalog.index.within(500, of: UnitVector(selection.fix.coordinate), measuredTo: .edge, into: &buffer)
            for neighbor in buffer.neighbors.prefix(2_000) { shown.insert(neighbor.index) }
            reselections.append(
                Reselection(
                    fix: fix, position: selection.fix.coordinate, refresh: selection.refresh,
                    guarantee: selection.guarantee, started: diff.start.count, stopped: diff.stop.count))
        }
        for (id, start) in since { intervals[id, default: []].append(start...max(start, lastFix)) }
        self.monitored = intervals
        self.reselections = reselections
        self.places = shown.sorted().map { catalog.places[$0] }
    }
}

extension PlanRecord {
    /// Each drawn place's name by id, its id when it has none: what the maps label marks with.
    var placeNames: [String: String] {
        Dictionary(places.map { ($0.id, $0.name ?? $0.id) }, uniquingKeysWith: { first, _ in first })
    }
}
