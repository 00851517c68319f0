import FencePlanner
import Foundation

/// The plan trace of `rotate plan --format ndjson` (see `docs/formats.md`, "Plan trace"): a
/// `config` line, one `reselect` line per reselection, from version 2 one `place_event` line per
/// place event, and a `summary` line.
public struct PlanTrace: Equatable, Sendable {
    /// The version written by default; version 1 has no `place_event` lines.
    public static let currentVersion = 3

    /// The `config` line: the trace's version and the configuration the plan ran with.
    public struct Config: Equatable, Sendable {
        /// The trace format's version (1 or 2).
        public var version = PlanTrace.currentVersion
        /// The platform's region limit (`RotationConfiguration.limit`).
        public var limit: Int
        /// Slots left to the host app (`RotationConfiguration.headroom`).
        public var headroom: Int
        /// Places monitored at a time (`RotationConfiguration.placeSlots`).
        public var placeSlots: Int
        /// Places in the catalog.
        public var places: Int
        /// The places file's default radius, meters (`radius_m`).
        public var radiusMeters: Double
        /// The refresh margin, meters (`margin_m`).
        public var marginMeters: Double
        /// The smallest reliable refresh radius, meters (`min_refresh_radius_m`).
        public var minRefreshRadiusMeters: Double
    }

    /// A refresh region as a trace writes it.
    public struct Refresh: Equatable, Sendable {
        /// The region's identifier.
        public var id: String
        /// The center's latitude, degrees.
        public var lat: Double
        /// The center's longitude, degrees.
        public var lon: Double
        /// The radius, meters (`radius_m`).
        public var radiusMeters: Double
    }

    /// A `reselect` line: one reselection and its diff.
    public struct Reselect: Equatable, Sendable {
        /// 0-based index of the walk fix that triggered it.
        public var fix: Int
        /// The fix's latitude, degrees.
        public var lat: Double
        /// The fix's longitude, degrees.
        public var lon: Double
        /// Ids of the places started, nearest first.
        public var start: [String]
        /// Ids of the places stopped.
        public var stop: [String]
        /// Ids of started places whose fence already contains the fix (`inside_at_start`).
        public var insideAtStart: [String]
        /// Places monitored after the reselection.
        public var monitored: Int
        /// The new refresh region (nil when the whole catalog is monitored).
        public var refresh: Refresh?
        /// `exact`, `degraded` or `saturated`.
        public var guarantee: String
        /// `distance` when degraded or saturated (watch location updates, reselect after moving
        /// the refresh radius).
        public var fallback: String?
        /// With `saturated`: how many fences lie within the margin.
        public var overlapping: Int?
    }

    /// A place event of the event engine: entry, exit or dwell, at a walk fix (version 2).
    public struct PlaceEvent: Equatable, Sendable {
        /// 0-based index of the walk fix at which it was decided.
        public var fix: Int
        /// Its time, seconds (the fix's).
        public var t: Double
        /// The place's id.
        public var place: String
        /// `entry`, `exit` or `dwell`.
        public var event: String
        /// `app` (decided from fixes), `platform`, `catalog` or `time`.
        public var evidence: String
        /// P(inside) at the deciding fix, with `app` evidence.
        public var probability: Double?

        /// Creates a place-event line; nothing is validated here.
        public init(fix: Int, t: Double, place: String, event: String, evidence: String, probability: Double?) {
            self.fix = fix
            self.t = t
            self.place = place
            self.event = event
            self.evidence = evidence
            self.probability = probability
        }
    }

    /// A store visit of the event engine: an arrival or a departure, at a walk fix (version 3).
    public struct Visit: Equatable, Sendable {
        /// A place the visit may have been at, and its probability.
        public struct Candidate: Equatable, Sendable {
            public var place: String
            public var p: Double

            public init(place: String, p: Double) {
                self.place = place
                self.p = p
            }
        }

        /// 0-based index of the walk fix at which it was decided.
        public var fix: Int
        /// Its time, seconds (the fix's).
        public var t: Double
        /// `arrival` or `departure`.
        public var event: String
        /// The place it names; nil when "none of them" is more likely than 0.5.
        public var place: String?
        /// The places at least 2 % probable, most probable first.
        public var candidates: [Candidate]
        /// The probability that it was at none of the places (`none_p`).
        public var noneProbability: Double
        /// The mean of the stay's fixes.
        public var lat: Double
        public var lon: Double
        /// The 68 % radius of that mean's error, meters (`accuracy_m`).
        public var accuracyMeters: Double
        /// The stay's first fix, seconds (`arrival_t`).
        public var arrivalT: Double
        /// Departures only: the first fix that left the stay, seconds (`departure_t`).
        public var departureT: Double?
        /// The fixes the attribution used.
        public var fixes: Int

        /// Creates a visit line; nothing is validated here.
        public init(
            fix: Int, t: Double, event: String, place: String?, candidates: [Candidate], noneProbability: Double, lat: Double, lon: Double,
            accuracyMeters: Double, arrivalT: Double, departureT: Double?, fixes: Int
        ) {
            self.fix = fix
            self.t = t
            self.event = event
            self.place = place
            self.candidates = candidates
            self.noneProbability = noneProbability
            self.lat = lat
            self.lon = lon
            self.accuracyMeters = accuracyMeters
            self.arrivalT = arrivalT
            self.departureT = departureT
            self.fixes = fixes
        }
    }

    /// The `summary` line: totals over the walk.
    public struct Summary: Equatable, Sendable {
        /// Fixes in the walk.
        public var fixes: Int
        /// Reselections made.
        public var reselections: Int
        /// Places started over all reselections.
        public var starts: Int
        /// Places stopped over all reselections.
        public var stops: Int
        /// Fences the missed-fence oracle found missed.
        public var missed: Int
    }

    /// The `config` line.
    public var config: Config
    /// The `reselect` lines, in walk order.
    public var reselections: [Reselect]
    /// Written and read from version 2 on; empty in a version 1 trace.
    public var placeEvents: [PlaceEvent]
    /// Written and read from version 3 on; empty before.
    public var visits: [Visit]
    /// The `summary` line.
    public var summary: Summary

    /// Creates a trace from its lines.
    public init(config: Config, reselections: [Reselect], placeEvents: [PlaceEvent] = [], visits: [Visit] = [], summary: Summary) {
        self.config = config
        self.reselections = reselections
        self.placeEvents = placeEvents
        self.visits = visits
        self.summary = summary
    }

    /// The trace of a replay: its reselections in order, over a walk of `fixes` fixes, with
    /// `missed` missed fences; with `placeEvents` and `visits` (each in fix order) a version 3
    /// trace, with place events only version 2, without either version 1.
    public init(
        configuration: RotationConfiguration, places: Int, defaultRadiusMeters: Double, fixes: Int, updates: [RecordedUpdate],
        missed: Int, placeEvents: [PlaceEvent]? = nil, visits: [Visit]? = nil
    ) {
        self.placeEvents = placeEvents ?? []
        self.visits = placeEvents == nil ? [] : visits ?? []
        config = Config(
            version: placeEvents == nil ? 1 : visits == nil ? 2 : 3, limit: configuration.limit, headroom: configuration.headroom,
            placeSlots: configuration.placeSlots,
            places: places, radiusMeters: defaultRadiusMeters, marginMeters: configuration.marginMeters,
            minRefreshRadiusMeters: configuration.minRefreshRadiusMeters)
        reselections = updates.map { recorded in
            let selection = recorded.update.selection, diff = recorded.update.diff
            var fallback: String?
            var overlapping: Int?
            switch selection.guarantee {
            case .exact: break
            case .degraded: fallback = "distance"
            case .saturated(let count):
                fallback = "distance"
                overlapping = count
            }
            return Reselect(
                fix: recorded.sampleIndex, lat: selection.fix.coordinate.latitude, lon: selection.fix.coordinate.longitude,
                start: diff.start.map(\.id), stop: diff.stop.map(\.id), insideAtStart: diff.insideAtStart,
                monitored: selection.monitored.count,
                refresh: selection.refresh.map {
                    Refresh(id: $0.id, lat: $0.center.latitude, lon: $0.center.longitude, radiusMeters: $0.radiusMeters)
                },
                guarantee: selection.guarantee.name, fallback: fallback, overlapping: overlapping)
        }
        summary = Summary(
            fixes: fixes, reselections: updates.count, starts: updates.reduce(0) { $0 + $1.update.diff.start.count },
            stops: updates.reduce(0) { $0 + $1.update.diff.stop.count }, missed: missed)
    }

    /// The trace as NDJSON lines (keys in the spec's order; numbers in shortest round-trip form).
    public var ndjsonLines: [String] {
        var lines: [String] = []
        lines.append(
            "{\"type\":\"config\",\"version\":\(config.version),\"limit\":\(config.limit),\"headroom\":\(config.headroom),"
                + "\"place_slots\":\(config.placeSlots),\"places\":\(config.places),\"radius_m\":\(Self.number(config.radiusMeters)),"
                + "\"margin_m\":\(Self.number(config.marginMeters)),\"min_refresh_radius_m\":\(Self.number(config.minRefreshRadiusMeters))}"
        )
        // Place events and visits after the reselection of their fix, in fix order (a fix's
        // place events before its visits).
        var events: [(fix: Int, line: String)] = []
        if config.version >= 2 {
            for e in placeEvents {
                var line =
                    "{\"type\":\"place_event\",\"fix\":\(e.fix),\"t\":\(Self.number(e.t)),\"place\":\(JSONObject.quoted(e.place)),"
                    + "\"event\":\(JSONObject.quoted(e.event)),\"evidence\":\(JSONObject.quoted(e.evidence))"
                if let p = e.probability { line += ",\"p\":\(Self.number(p))" }
                events.append((e.fix, line + "}"))
            }
        }
        if config.version >= 3 {
            for v in visits { events.append((v.fix, Self.visitLine(v))) }
        }
        // Stable: equal fixes keep place events first.
        events = events.enumerated().sorted { ($0.element.fix, $0.offset) < ($1.element.fix, $1.offset) }.map(\.element)
        var nextEvent = 0
        func placeEventLines(before fix: Int) {
            while nextEvent < events.count, events[nextEvent].fix < fix {
                lines.append(events[nextEvent].line)
                nextEvent += 1
            }
        }
        for r in reselections {
            placeEventLines(before: r.fix)
            var line =
                "{\"type\":\"reselect\",\"fix\":\(r.fix),\"lat\":\(Self.number(r.lat)),\"lon\":\(Self.number(r.lon)),"
                + "\"start\":\(Self.strings(r.start)),\"stop\":\(Self.strings(r.stop)),\"inside_at_start\":\(Self.strings(r.insideAtStart)),"
                + "\"monitored\":\(r.monitored),\"refresh\":"
            if let refresh = r.refresh {
                line +=
                    "{\"id\":\(JSONObject.quoted(refresh.id)),\"lat\":\(Self.number(refresh.lat)),\"lon\":\(Self.number(refresh.lon)),"
                    + "\"radius_m\":\(Self.number(refresh.radiusMeters))}"
            } else {
                line += "null"
            }
            line += ",\"guarantee\":\(JSONObject.quoted(r.guarantee))"
            if let fallback = r.fallback { line += ",\"fallback\":\(JSONObject.quoted(fallback))" }
            if let overlapping = r.overlapping { line += ",\"overlapping\":\(overlapping)" }
            lines.append(line + "}")
        }
        placeEventLines(before: .max)
        lines.append(
            "{\"type\":\"summary\",\"fixes\":\(summary.fixes),\"reselections\":\(summary.reselections),"
                + "\"starts\":\(summary.starts),\"stops\":\(summary.stops),\"missed\":\(summary.missed)}")
        return lines
    }

    /// A `visit` line, keys in the spec's order.
    static func visitLine(_ v: Visit) -> String {
        var line = "{\"type\":\"visit\",\"fix\":\(v.fix),\"t\":\(Self.number(v.t)),\"event\":\(JSONObject.quoted(v.event))"
        if let place = v.place { line += ",\"place\":\(JSONObject.quoted(place))" }
        line +=
            ",\"candidates\":["
            + v.candidates.map { "{\"place\":\(JSONObject.quoted($0.place)),\"p\":\(Self.number($0.p))}" }.joined(separator: ",") + "]"
        line +=
            ",\"none_p\":\(Self.number(v.noneProbability)),\"lat\":\(Self.number(v.lat)),\"lon\":\(Self.number(v.lon)),"
            + "\"accuracy_m\":\(Self.number(v.accuracyMeters)),\"arrival_t\":\(Self.number(v.arrivalT))"
        if let departure = v.departureT { line += ",\"departure_t\":\(Self.number(departure))" }
        return line + ",\"fixes\":\(v.fixes)}"
    }

    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    static func strings(_ values: [String]) -> String { "[" + values.map(JSONObject.quoted).joined(separator: ",") + "]" }

    /// Reads a trace back from NDJSON text (numbers are parsed exactly, so a written trace reads
    /// back equal).
    ///
    /// Lines of a type this reader does not know are skipped (a later version may add types).
    /// Place ids are read as every reader of ids reads them (`Identifiers`): in NFC, at most 256
    /// bytes of UTF-8, not empty.
    ///
    /// - Throws: `PlanTraceError` with the 1-based line of the first line that is not a JSON
    ///   object, lacks a required key, has a wrong type or an id that is empty or too long, and
    ///   for a missing `config` or `summary`.
    public static func parse(_ text: String) throws(PlanTraceError) -> PlanTrace {
        var config: Config?
        var summary: Summary?
        var reselections: [Reselect] = []
        var placeEvents: [PlaceEvent] = []
        var visits: [Visit] = []
        let decoder = JSONDecoder()
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = offset + 1
            if rawLine.allSatisfy({ $0 == " " || $0 == "\r" }) { continue }
            let fields: TraceLine
            do {
                fields = try decoder.decode(TraceLine.self, from: Data(rawLine.utf8))
            } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
                throw PlanTraceError(line: line, reason: "wrong type at '\(context.codingPath.map(\.stringValue).joined(separator: "."))'")
            } catch let DecodingError.keyNotFound(key, _) {
                throw PlanTraceError(line: line, reason: "missing '\(key.stringValue)'")
            } catch {
                throw PlanTraceError(line: line, reason: "not a JSON object")
            }
            func need<T>(_ value: T?, _ key: String) throws(PlanTraceError) -> T {
                guard let value else { throw PlanTraceError(line: line, reason: "missing '\(key)'") }
                return value
            }
            func ids(_ values: [String]?, _ key: String) throws(PlanTraceError) -> [String] {
                var result: [String] = []
                for value in try need(values, key) { result.append(try id(value, key)) }
                return result
            }
            func id(_ value: String, _ key: String) throws(PlanTraceError) -> String {
                let canonical = Identifiers.canonical(value)
                if let problem = Identifiers.problem(canonical) { throw PlanTraceError(line: line, reason: "an id in '\(key)' \(problem)") }
                return canonical
            }
            switch fields.type {
            case "config":
                config = Config(
                    version: try need(fields.version, "version"), limit: try need(fields.limit, "limit"),
                    headroom: try need(fields.headroom, "headroom"), placeSlots: try need(fields.placeSlots, "place_slots"),
                    places: try need(fields.places, "places"), radiusMeters: try need(fields.radiusMeters, "radius_m"),
                    marginMeters: try need(fields.marginMeters, "margin_m"),
                    minRefreshRadiusMeters: try need(fields.minRefreshRadiusMeters, "min_refresh_radius_m"))
            case "reselect":
                guard let refreshField = fields.refresh else { throw PlanTraceError(line: line, reason: "missing 'refresh'") }
                var refresh: Refresh?
                if let field = refreshField {
                    refresh = Refresh(id: try id(field.id, "refresh"), lat: field.lat, lon: field.lon, radiusMeters: field.radiusMeters)
                }
                reselections.append(
                    Reselect(
                        fix: try need(fields.fix, "fix"), lat: try need(fields.lat, "lat"), lon: try need(fields.lon, "lon"),
                        start: try ids(fields.start, "start"), stop: try ids(fields.stop, "stop"),
                        insideAtStart: try ids(fields.insideAtStart, "inside_at_start"),
                        monitored: try need(fields.monitored, "monitored"),
                        refresh: refresh,
                        guarantee: try need(fields.guarantee, "guarantee"), fallback: fields.fallback, overlapping: fields.overlapping))
            case "summary":
                summary = Summary(
                    fixes: try need(fields.fixes, "fixes"), reselections: try need(fields.reselections, "reselections"),
                    starts: try need(fields.starts, "starts"), stops: try need(fields.stops, "stops"),
                    missed: try need(fields.missed, "missed"))
            case "place_event":
                placeEvents.append(
                    PlaceEvent(
                        fix: try need(fields.fix, "fix"), t: try need(fields.t, "t"),
                        place: try id(try need(fields.place, "place"), "place"),
                        event: try need(fields.event, "event"), evidence: try need(fields.evidence, "evidence"),
                        probability: fields.p))
            case "visit":
                var candidates: [Visit.Candidate] = []
                for candidate in try need(fields.candidates, "candidates") {
                    candidates.append(Visit.Candidate(place: try id(candidate.place, "candidates"), p: candidate.p))
                }
                visits.append(
                    Visit(
                        fix: try need(fields.fix, "fix"), t: try need(fields.t, "t"), event: try need(fields.event, "event"),
                        place: try fields.place.map { value throws(PlanTraceError) in try id(value, "place") }, candidates: candidates,
                        noneProbability: try need(fields.noneProbability, "none_p"), lat: try need(fields.lat, "lat"),
                        lon: try need(fields.lon, "lon"), accuracyMeters: try need(fields.accuracyMeters, "accuracy_m"),
                        arrivalT: try need(fields.arrivalT, "arrival_t"), departureT: fields.departureT,
                        fixes: try need(fields.fixes, "fixes")))
            default:
                continue
            }
        }
        guard let config else { throw PlanTraceError(line: 1, reason: "no config line") }
        guard let summary else { throw PlanTraceError(line: 1, reason: "no summary line") }
        return PlanTrace(config: config, reselections: reselections, placeEvents: placeEvents, visits: visits, summary: summary)
    }

    /// Any trace line: every key optional, checked per type by `parse`.
    private struct TraceLine: Decodable {
        struct RefreshLine: Decodable {
            var id: String
            var lat: Double
            var lon: Double
            var radiusMeters: Double

            enum CodingKeys: String, CodingKey {
                case id, lat, lon
                case radiusMeters = "radius_m"
            }
        }

        struct CandidateLine: Decodable {
            var place: String
            var p: Double
        }

        var type: String
        var version, limit, headroom, placeSlots, places: Int?
        var radiusMeters, marginMeters, minRefreshRadiusMeters: Double?
        var fix: Int?
        var lat, lon: Double?
        var start, stop, insideAtStart: [String]?
        var monitored: Int?
        /// nil: the key is missing; .some(nil): `null`.
        var refresh: RefreshLine??
        var guarantee, fallback: String?
        var overlapping: Int?
        var fixes, reselections, starts, stops, missed: Int?
        var t, p: Double?
        var place, event, evidence: String?
        var candidates: [CandidateLine]?
        var noneProbability, accuracyMeters, arrivalT, departureT: Double?

        enum CodingKeys: String, CodingKey {
            case type, version, limit, headroom, places, fix, lat, lon, t, p, place, event, evidence, candidates
            case noneProbability = "none_p"
            case accuracyMeters = "accuracy_m"
            case arrivalT = "arrival_t"
            case departureT = "departure_t"
            case start, stop, monitored, refresh, guarantee, fallback, overlapping, fixes, reselections, starts, stops, missed
            case placeSlots = "place_slots"
            case radiusMeters = "radius_m"
            case marginMeters = "margin_m"
            case minRefreshRadiusMeters = "min_refresh_radius_m"
            case insideAtStart = "inside_at_start"
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            type = try c.decode(String.self, forKey: .type)
            version = try c.decodeIfPresent(Int.self, forKey: .version)
            limit = try c.decodeIfPresent(Int.self, forKey: .limit)
            headroom = try c.decodeIfPresent(Int.self, forKey: .headroom)
            placeSlots = try c.decodeIfPresent(Int.self, forKey: .placeSlots)
            places = try c.decodeIfPresent(Int.self, forKey: .places)
            radiusMeters = try c.decodeIfPresent(Double.self, forKey: .radiusMeters)
            marginMeters = try c.decodeIfPresent(Double.self, forKey: .marginMeters)
            minRefreshRadiusMeters = try c.decodeIfPresent(Double.self, forKey: .minRefreshRadiusMeters)
            fix = try c.decodeIfPresent(Int.self, forKey: .fix)
            lat = try c.decodeIfPresent(Double.self, forKey: .lat)
            lon = try c.decodeIfPresent(Double.self, forKey: .lon)
            start = try c.decodeIfPresent([String].self, forKey: .start)
            stop = try c.decodeIfPresent([String].self, forKey: .stop)
            insideAtStart = try c.decodeIfPresent([String].self, forKey: .insideAtStart)
            monitored = try c.decodeIfPresent(Int.self, forKey: .monitored)
            if c.contains(.refresh) {
                refresh = .some(try c.decodeNil(forKey: .refresh) ? nil : try c.decode(RefreshLine.self, forKey: .refresh))
            }
            guarantee = try c.decodeIfPresent(String.self, forKey: .guarantee)
            fallback = try c.decodeIfPresent(String.self, forKey: .fallback)
            overlapping = try c.decodeIfPresent(Int.self, forKey: .overlapping)
            fixes = try c.decodeIfPresent(Int.self, forKey: .fixes)
            reselections = try c.decodeIfPresent(Int.self, forKey: .reselections)
            starts = try c.decodeIfPresent(Int.self, forKey: .starts)
            stops = try c.decodeIfPresent(Int.self, forKey: .stops)
            missed = try c.decodeIfPresent(Int.self, forKey: .missed)
            t = try c.decodeIfPresent(Double.self, forKey: .t)
            p = try c.decodeIfPresent(Double.self, forKey: .p)
            place = try c.decodeIfPresent(String.self, forKey: .place)
            event = try c.decodeIfPresent(String.self, forKey: .event)
            evidence = try c.decodeIfPresent(String.self, forKey: .evidence)
            candidates = try c.decodeIfPresent([CandidateLine].self, forKey: .candidates)
            noneProbability = try c.decodeIfPresent(Double.self, forKey: .noneProbability)
            accuracyMeters = try c.decodeIfPresent(Double.self, forKey: .accuracyMeters)
            arrivalT = try c.decodeIfPresent(Double.self, forKey: .arrivalT)
            departureT = try c.decodeIfPresent(Double.self, forKey: .departureT)
        }
    }
}

/// A plan trace that cannot be read.
public struct PlanTraceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// 1-based line of the problem (1 for a missing `config` or `summary` line).
    public var line: Int
    /// Why, in one line.
    public var reason: String
    /// `line: reason`.
    public var description: String { "\(line): \(reason)" }
}
