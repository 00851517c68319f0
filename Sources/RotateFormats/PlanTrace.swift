import FencePlanner
import Foundation

/// The plan trace of `rotate plan --format ndjson` (see `docs/formats.md`, "Plan trace"): a
/// `config` line, one `reselect` line per reselection, and a `summary` line.
public struct PlanTrace: Equatable, Sendable {
    public struct Config: Equatable, Sendable {
        public var version = 1
        public var limit: Int
        public var headroom: Int
        public var placeSlots: Int
        public var places: Int
        public var radiusMeters: Double
        public var marginMeters: Double
        public var minRefreshRadiusMeters: Double
    }

    public struct Refresh: Equatable, Sendable {
        public var id: String
        public var lat: Double
        public var lon: Double
        public var radiusMeters: Double
    }

    public struct Reselect: Equatable, Sendable {
        /// 0-based index of the walk fix that triggered it.
        public var fix: Int
        public var lat: Double
        public var lon: Double
        public var start: [String]
        public var stop: [String]
        public var insideAtStart: [String]
        public var monitored: Int
        public var refresh: Refresh?
        /// `exact`, `degraded` or `saturated`.
        public var guarantee: String
        /// `distance` when degraded or saturated (watch location updates, reselect after moving
        /// the refresh radius).
        public var fallback: String?
        /// With `saturated`: how many fences lie within the margin.
        public var overlapping: Int?
    }

    public struct Summary: Equatable, Sendable {
        public var fixes: Int
        public var reselections: Int
        public var starts: Int
        public var stops: Int
        public var missed: Int
    }

    public var config: Config
    public var reselections: [Reselect]
    public var summary: Summary

    public init(config: Config, reselections: [Reselect], summary: Summary) {
        self.config = config
        self.reselections = reselections
        self.summary = summary
    }

    /// The trace of a replay: its reselections in order, over a walk of `fixes` fixes, with
    /// `missed` missed fences.
    public init(
        configuration: RotationConfiguration, places: Int, defaultRadiusMeters: Double, fixes: Int, updates: [RecordedUpdate],
        missed: Int
    ) {
        config = Config(
            limit: configuration.limit, headroom: configuration.headroom, placeSlots: configuration.placeSlots,
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
        for r in reselections {
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
        lines.append(
            "{\"type\":\"summary\",\"fixes\":\(summary.fixes),\"reselections\":\(summary.reselections),"
                + "\"starts\":\(summary.starts),\"stops\":\(summary.stops),\"missed\":\(summary.missed)}")
        return lines
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
    /// - Throws: `PlanTraceError` with the 1-based line of the first line that is not a JSON
    ///   object, lacks a required key or has a wrong type, and for a missing `config` or `summary`.
    public static func parse(_ text: String) throws(PlanTraceError) -> PlanTrace {
        var config: Config?
        var summary: Summary?
        var reselections: [Reselect] = []
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
                reselections.append(
                    Reselect(
                        fix: try need(fields.fix, "fix"), lat: try need(fields.lat, "lat"), lon: try need(fields.lon, "lon"),
                        start: try need(fields.start, "start"), stop: try need(fields.stop, "stop"),
                        insideAtStart: try need(fields.insideAtStart, "inside_at_start"),
                        monitored: try need(fields.monitored, "monitored"),
                        refresh: refreshField.map { Refresh(id: $0.id, lat: $0.lat, lon: $0.lon, radiusMeters: $0.radiusMeters) },
                        guarantee: try need(fields.guarantee, "guarantee"), fallback: fields.fallback, overlapping: fields.overlapping))
            case "summary":
                summary = Summary(
                    fixes: try need(fields.fixes, "fixes"), reselections: try need(fields.reselections, "reselections"),
                    starts: try need(fields.starts, "starts"), stops: try need(fields.stops, "stops"),
                    missed: try need(fields.missed, "missed"))
            case let other:
                throw PlanTraceError(line: line, reason: "unknown type '\(other)'")
            }
        }
        guard let config else { throw PlanTraceError(line: 1, reason: "no config line") }
        guard let summary else { throw PlanTraceError(line: 1, reason: "no summary line") }
        return PlanTrace(config: config, reselections: reselections, summary: summary)
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

        enum CodingKeys: String, CodingKey {
            case type, version, limit, headroom, places, fix, lat, lon
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
        }
    }
}

/// A plan trace that cannot be read.
public struct PlanTraceError: Error, Equatable, Sendable, CustomStringConvertible {
    public var line: Int
    public var reason: String
    public var description: String { "\(line): \(reason)" }
}
