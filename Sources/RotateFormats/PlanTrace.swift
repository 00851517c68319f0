import FencePlanner
import Foundation
import WalkSimulator

/// The plan trace of `rotate plan --format ndjson` (see `spec/formats.md`, "Plan trace"): a
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

    /// The trace of a replay recorded with `recordUpdates: true`.
    public init(configuration: RotationConfiguration, places: Int, defaultRadiusMeters: Double, report: OracleReport) {
        config = Config(limit: configuration.limit, headroom: configuration.headroom, placeSlots: configuration.placeSlots,
                        places: places, radiusMeters: defaultRadiusMeters, marginMeters: configuration.marginMeters,
                        minRefreshRadiusMeters: configuration.minRefreshRadiusMeters)
        reselections = report.updates.map { recorded in
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
                refresh: selection.refresh.map { Refresh(id: $0.id, lat: $0.center.latitude, lon: $0.center.longitude, radiusMeters: $0.radiusMeters) },
                guarantee: selection.guarantee.name, fallback: fallback, overlapping: overlapping)
        }
        summary = Summary(fixes: report.fixes, reselections: report.reselections, starts: report.starts, stops: report.stops,
                          missed: report.misses.count)
    }

    /// The trace as NDJSON lines (keys in the spec's order; numbers in shortest round-trip form).
    public var ndjsonLines: [String] {
        var lines: [String] = []
        lines.append("{\"type\":\"config\",\"version\":\(config.version),\"limit\":\(config.limit),\"headroom\":\(config.headroom),"
            + "\"place_slots\":\(config.placeSlots),\"places\":\(config.places),\"radius_m\":\(Self.number(config.radiusMeters)),"
            + "\"margin_m\":\(Self.number(config.marginMeters)),\"min_refresh_radius_m\":\(Self.number(config.minRefreshRadiusMeters))}")
        for r in reselections {
            var line = "{\"type\":\"reselect\",\"fix\":\(r.fix),\"lat\":\(Self.number(r.lat)),\"lon\":\(Self.number(r.lon)),"
                + "\"start\":\(Self.strings(r.start)),\"stop\":\(Self.strings(r.stop)),\"inside_at_start\":\(Self.strings(r.insideAtStart)),"
                + "\"monitored\":\(r.monitored),\"refresh\":"
            if let refresh = r.refresh {
                line += "{\"id\":\(JSONObject.quoted(refresh.id)),\"lat\":\(Self.number(refresh.lat)),\"lon\":\(Self.number(refresh.lon)),"
                    + "\"radius_m\":\(Self.number(refresh.radiusMeters))}"
            } else {
                line += "null"
            }
            line += ",\"guarantee\":\(JSONObject.quoted(r.guarantee))"
            if let fallback = r.fallback { line += ",\"fallback\":\(JSONObject.quoted(fallback))" }
            if let overlapping = r.overlapping { line += ",\"overlapping\":\(overlapping)" }
            lines.append(line + "}")
        }
        lines.append("{\"type\":\"summary\",\"fixes\":\(summary.fixes),\"reselections\":\(summary.reselections),"
            + "\"starts\":\(summary.starts),\"stops\":\(summary.stops),\"missed\":\(summary.missed)}")
        return lines
    }

    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    static func strings(_ values: [String]) -> String { "[" + values.map(JSONObject.quoted).joined(separator: ",") + "]" }

    /// Reads a trace back from NDJSON text.
    ///
    /// - Throws: `PlanTraceError` with the 1-based line of the first line that is not valid JSON,
    ///   lacks a required key or has a wrong type, and for a missing `config` or `summary` line.
    public static func parse(_ text: String) throws(PlanTraceError) -> PlanTrace {
        var config: Config?
        var summary: Summary?
        var reselections: [Reselect] = []
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = offset + 1
            if rawLine.allSatisfy({ $0 == " " || $0 == "\r" }) { continue }
            guard let object = (try? JSONSerialization.jsonObject(with: Data(rawLine.utf8))) as? [String: Any] else {
                throw PlanTraceError(line: line, reason: "not a JSON object")
            }
            let fields = Fields(object: object, line: line)
            switch try fields.string("type") {
            case "config":
                config = Config(version: try fields.int("version"), limit: try fields.int("limit"), headroom: try fields.int("headroom"),
                                placeSlots: try fields.int("place_slots"), places: try fields.int("places"),
                                radiusMeters: try fields.double("radius_m"), marginMeters: try fields.double("margin_m"),
                                minRefreshRadiusMeters: try fields.double("min_refresh_radius_m"))
            case "reselect":
                var refresh: Refresh?
                if let inner = object["refresh"] as? [String: Any] {
                    let r = Fields(object: inner, line: line)
                    refresh = Refresh(id: try r.string("id"), lat: try r.double("lat"), lon: try r.double("lon"), radiusMeters: try r.double("radius_m"))
                } else if !(object["refresh"] is NSNull) {
                    throw PlanTraceError(line: line, reason: "'refresh' must be an object or null")
                }
                reselections.append(Reselect(
                    fix: try fields.int("fix"), lat: try fields.double("lat"), lon: try fields.double("lon"),
                    start: try fields.strings("start"), stop: try fields.strings("stop"), insideAtStart: try fields.strings("inside_at_start"),
                    monitored: try fields.int("monitored"), refresh: refresh, guarantee: try fields.string("guarantee"),
                    fallback: object["fallback"] as? String, overlapping: (object["overlapping"] as? NSNumber)?.intValue))
            case "summary":
                summary = Summary(fixes: try fields.int("fixes"), reselections: try fields.int("reselections"), starts: try fields.int("starts"),
                                  stops: try fields.int("stops"), missed: try fields.int("missed"))
            case let other:
                throw PlanTraceError(line: line, reason: "unknown type '\(other)'")
            }
        }
        guard let config else { throw PlanTraceError(line: 1, reason: "no config line") }
        guard let summary else { throw PlanTraceError(line: 1, reason: "no summary line") }
        return PlanTrace(config: config, reselections: reselections, summary: summary)
    }

    private struct Fields {
        let object: [String: Any]
        let line: Int

        func value(_ key: String) throws(PlanTraceError) -> Any {
            guard let value = object[key] else { throw PlanTraceError(line: line, reason: "missing '\(key)'") }
            return value
        }
        func string(_ key: String) throws(PlanTraceError) -> String {
            guard let text = try value(key) as? String else { throw PlanTraceError(line: line, reason: "'\(key)' must be a string") }
            return text
        }
        func int(_ key: String) throws(PlanTraceError) -> Int {
            guard let number = try value(key) as? NSNumber, let int = Int(exactly: number.doubleValue) else {
                throw PlanTraceError(line: line, reason: "'\(key)' must be a whole number")
            }
            return int
        }
        func double(_ key: String) throws(PlanTraceError) -> Double {
            guard let number = try value(key) as? NSNumber, !(try value(key) is Bool) else { throw PlanTraceError(line: line, reason: "'\(key)' must be a number") }
            return number.doubleValue
        }
        func strings(_ key: String) throws(PlanTraceError) -> [String] {
            guard let list = try value(key) as? [String] else { throw PlanTraceError(line: line, reason: "'\(key)' must be a list of strings") }
            return list
        }
    }
}

/// A plan trace that cannot be read.
public struct PlanTraceError: Error, Equatable, Sendable, CustomStringConvertible {
    public var line: Int
    public var reason: String
    public var description: String { "\(line): \(reason)" }
}
