import FencePlanner
import Geodesy

/// What an HTML replay shows (`HTMLReplay`): a path through time, the fences and when each was
/// monitored, the refresh regions in force, the app's state over time, and the marks along the
/// way (place events, visits, misses, the platform's events, stops). A plan's record makes one
/// (`init(_:)`); a replay on an emulated phone makes a fuller one.
///
/// Times are seconds on the walk's clock; the replay's slider starts at the first path point.
public struct ReplayScene: Sendable {
    /// A refresh region (or any trigger region) and when it was in force, [from, to).
    public struct Region: Hashable, Sendable {
        public var center: Coordinate
        public var radiusMeters: Double
        public var fromSeconds: Double
        public var toSeconds: Double

        public init(center: Coordinate, radiusMeters: Double, fromSeconds: Double, toSeconds: Double) {
            self.center = center
            self.radiusMeters = radiusMeters
            self.fromSeconds = fromSeconds
            self.toSeconds = toSeconds
        }
    }

    /// What the app had from `timeSeconds` on: its guarantee and, on a phone, the location
    /// service it asked for.
    public struct State: Hashable, Sendable {
        public var timeSeconds: Double
        public var guarantee: String
        /// The location service in force, in words; nil: the walk's fixes (a plan).
        public var service: String?

        public init(timeSeconds: Double, guarantee: String, service: String? = nil) {
            self.timeSeconds = timeSeconds
            self.guarantee = guarantee
            self.service = service
        }
    }

    /// Something that happened at a place (or at none), drawn where it happened.
    public struct Mark: Hashable, Sendable {
        public enum Kind: String, Hashable, Sendable, CaseIterable {
            /// The app's entry and exit (decided in-app or taken from the platform's event).
            case entry
            case exit
            /// A store visit the app reported.
            case visit
            /// A stay the app did not hear of (the oracles' miss, with its reason).
            case miss
            /// A true stop the app detected (a miss is marked `miss`).
            case stop
            /// The platform's entry and exit events, delivered to the app.
            case osEntry = "os-entry"
            case osExit = "os-exit"
            /// A trigger region's exit woke the app.
            case wake
        }

        public var kind: Kind
        public var timeSeconds: Double
        public var position: Coordinate
        /// The place's id, nil for none.
        public var placeID: String?
        /// What the mark says after its kind and place: its source, probability, reason, delay.
        public var detail: String
        /// For a platform event: when the platform decided it, and where the traveller was then
        /// (the delivery delay is drawn as a line from there to `position`).
        public var decidedSeconds: Double?
        public var decidedPosition: Coordinate?

        public init(
            kind: Kind, timeSeconds: Double, position: Coordinate, placeID: String?, detail: String, decidedSeconds: Double? = nil,
            decidedPosition: Coordinate? = nil
        ) {
            self.kind = kind
            self.timeSeconds = timeSeconds
            self.position = position
            self.placeID = placeID
            self.detail = detail
            self.decidedSeconds = decidedSeconds
            self.decidedPosition = decidedPosition
        }
    }

    /// A fix the app obtained, drawn as a dot with its accuracy.
    public struct AppFix: Hashable, Sendable {
        public var timeSeconds: Double
        public var position: Coordinate
        public var accuracyMeters: Double?
        /// How it came: `start`, `wake`, `continuous`, `periodic`, `significant-change`.
        public var source: String

        public init(timeSeconds: Double, position: Coordinate, accuracyMeters: Double?, source: String) {
            self.timeSeconds = timeSeconds
            self.position = position
            self.accuracyMeters = accuracyMeters
            self.source = source
        }
    }

    /// A registration call on the phone, listed in the replay's log.
    public struct Registration: Hashable, Sendable {
        public var timeSeconds: Double
        public var regionID: String
        /// `add` or `remove`.
        public var action: String
        /// `monitored`, `dropped`, `rejected` or `removed`.
        public var outcome: String
        /// A reboot that lost every registration is listed as action `reboot`.
        public init(timeSeconds: Double, regionID: String, action: String, outcome: String) {
            self.timeSeconds = timeSeconds
            self.regionID = regionID
            self.action = action
            self.outcome = outcome
        }
    }

    /// A circle the phone was asked to monitor in a place's stead: an approach region around a
    /// fence smaller than the platform resolves, or around a footprint. It is monitored when the
    /// place is (`monitored`, under the place's id).
    public struct RegisteredCircle: Hashable, Sendable {
        public var center: Coordinate
        public var radiusMeters: Double

        public init(center: Coordinate, radiusMeters: Double) {
            self.center = center
            self.radiusMeters = radiusMeters
        }
    }

    /// A plan's reselection, listed in the replay's data (`reselections`, as in version 1).
    public struct Reselection: Hashable, Sendable {
        public var timeSeconds: Double
        public var guarantee: String
        public var started: Int
        public var stopped: Int
        /// The refresh radius, meters (0: none).
        public var refreshRadiusMeters: Double

        public init(timeSeconds: Double, guarantee: String, started: Int, stopped: Int, refreshRadiusMeters: Double) {
            self.timeSeconds = timeSeconds
            self.guarantee = guarantee
            self.started = started
            self.stopped = stopped
            self.refreshRadiusMeters = refreshRadiusMeters
        }
    }

    /// The path drawn through time, one position per time.
    public var path: [Coordinate]
    public var times: [Double]
    /// What the path is, in words ("the walk's fixes", "the true path").
    public var pathName: String
    /// The fences to draw.
    public var places: [Place]
    /// Places in the catalog (`places` draws some of them).
    public var catalogCount: Int
    /// For each place id, the spans its fence was monitored, [from, to).
    public var monitored: [String: [Range<Double>]]
    public var refresh: [Region]
    /// The first state, then each change.
    public var states: [State]
    public var marks: [Mark]
    /// Fixes the app obtained (empty for a plan, whose path is its fixes).
    public var fixes: [AppFix] = []
    /// Registration calls (empty for a plan).
    public var registrations: [Registration] = []
    /// For each place registered by another circle than its fence, that circle (empty for a plan).
    public var registeredCircles: [String: RegisteredCircle] = [:]
    /// A plan's reselections (empty on a phone).
    public var reselections: [Reselection] = []
    /// Lines under the title: what ran, on what phone, and its score.
    public var summary: [String] = []

    public init(
        path: [Coordinate], times: [Double], pathName: String, places: [Place], catalogCount: Int, monitored: [String: [Range<Double>]],
        refresh: [Region], states: [State], marks: [Mark]
    ) {
        self.path = path
        self.times = times
        self.pathName = pathName
        self.places = places
        self.catalogCount = catalogCount
        self.monitored = monitored
        self.refresh = refresh
        self.states = states
        self.marks = marks
    }

    /// Each drawn place's name by id, its id when it has none.
    var placeNames: [String: String] {
        Dictionary(places.map { ($0.id, $0.name ?? $0.id) }, uniquingKeysWith: { first, _ in first })
    }
}

extension ReplayScene {
    /// The scene of a plan: its walk's fixes as the path, each place monitored from the fix that
    /// started it to the fix after the last that kept it, each refresh region from its
    /// reselection to the next, the guarantee of each reselection, the engine's entries, exits
    /// and visits, and the planner's misses ("not monitored": a planner could have avoided it;
    /// else "more fences than slots").
    public init(_ record: PlanRecord) {
        let times = record.times
        let end = (times.last ?? 0) + 1
        func time(ofFix fix: Int) -> Double { times.indices.contains(fix) ? times[fix] : end }
        var monitored: [String: [Range<Double>]] = [:]
        for (id, ranges) in record.monitored {
            monitored[id] = ranges.map { time(ofFix: $0.lowerBound)..<time(ofFix: $0.upperBound + 1) }
        }
        var refresh: [Region] = []
        for (i, reselection) in record.reselections.enumerated() {
            guard let region = reselection.refresh, region.radiusMeters > 0 else { continue }
            let to = i + 1 < record.reselections.count ? time(ofFix: record.reselections[i + 1].fix) : end
            refresh.append(
                Region(center: region.center, radiusMeters: region.radiusMeters, fromSeconds: time(ofFix: reselection.fix), toSeconds: to))
        }
        var marks: [Mark] = []
        for event in record.placeEvents {
            marks.append(
                Mark(
                    kind: event.entry ? .entry : .exit, timeSeconds: event.timeSeconds, position: event.position, placeID: event.placeID,
                    detail: event.inApp ? "in-app" : "platform"))
        }
        for visit in record.visits {
            marks.append(
                Mark(
                    kind: .visit, timeSeconds: visit.arrivalSeconds, position: visit.position, placeID: visit.placeID,
                    detail: "p " + CSVWriter.decimal(visit.probability, decimals: 2)))
        }
        for miss in record.misses {
            marks.append(
                Mark(
                    kind: .miss, timeSeconds: miss.timeSeconds, position: miss.position, placeID: miss.placeID,
                    detail: miss.avoidable ? "not monitored" : "more fences than slots"))
        }
        self.init(
            path: record.walk, times: times, pathName: "the walk's fixes", places: record.places, catalogCount: record.catalogCount,
            monitored: monitored, refresh: refresh,
            states: record.reselections.map { State(timeSeconds: time(ofFix: $0.fix), guarantee: $0.guarantee.name) }, marks: marks)
        reselections = record.reselections.map {
            Reselection(
                timeSeconds: time(ofFix: $0.fix), guarantee: $0.guarantee.name, started: $0.started, stopped: $0.stopped,
                refreshRadiusMeters: $0.refresh?.radiusMeters ?? 0)
        }
    }
}
