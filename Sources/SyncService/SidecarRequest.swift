import EventEngine
import FencePlanner
import Foundation
import Geodesy
import RotateFormats
import RotateJSON

/// The line protocol of `rotate serve --stdio`: one JSON object per input line, one per output
/// line. A location report is `{"device", "lat", "lon", "t", "accuracy_m"?, "source"?}`; a platform region
/// event is `{"device", "region", "event": "entry"|"exit", "t"}`; the platform's motion is
/// `{"device", "motion": "still"|"moving", "source"?: "activity"|"visit", "t"}`; a catalog change set is
/// `{"changes": [{"op": "add"|"remove"|"move"|"radius"|"transitions", "id", …}]}`. Anything
/// else — bad JSON, unknown or missing fields, wrong types, out-of-range values — is an error for
/// that line only.
public enum SidecarRequest: Equatable, Sendable {
    /// `source`: the location service that produced the fix, when the line says.
    /// `state`, in every device request: the device's stored state, sent by a host that keeps
    /// states itself (`rotate serve --stateless`).
    case report(device: String, fix: Fix, time: Double, source: FixSource? = nil, state: MonitorState? = nil)
    /// A platform region event of the device (a place's region or the refresh region).
    case region(device: String, RegionReport, state: MonitorState? = nil)
    /// The platform's word that the device became still or moved on.
    case motion(device: String, MotionReport, state: MonitorState? = nil)
    /// The identifiers the device reports registered with its platform now (after lost or
    /// partial diffs), at time `time`.
    case registered(device: String, ids: [String], time: Double, state: MonitorState? = nil)
    /// `time`: when the changes took effect, on the devices' scale, if the line says
    /// (what a catalog exit of a visit under way is stamped with).
    case changes([CatalogChange], time: Double? = nil)
    /// Forget the device's state: it starts over as new at its next input; the answer says what
    /// its platform should stop monitoring.
    case reset(device: String, state: MonitorState? = nil)

    /// A `registered` list holds at most this many identifiers (no platform allows more than
    /// 100 regions per app).
    public static let maximumRegisteredIDs = 1_000

    /// Identifiers (a device's, a region's, a place's in a change) longer than this many UTF-8
    /// bytes are refused: an answer echoes the device id, and no host needs ids this long. The
    /// same limit holds for place ids in a places file (`Identifiers.maximumBytes`).
    public static let maximumIDBytes = Identifiers.maximumBytes

    /// The times a line may carry (`t`), in seconds: one scale for all of a device's inputs,
    /// such as Unix time (1.7e9 in 2024). A time beyond 10^10 s (the year 2286 in Unix time) is
    /// a unit or clock error, such as milliseconds since 1970 (1.7e12), and is refused: taken, it
    /// would put the device's clock so far ahead that every later input of it looked stale.
    public static let timeRange: ClosedRange<Double> = 0...10_000_000_000

    /// Parses one input line.
    public static func parse(_ line: String) -> Result<SidecarRequest, SidecarLineError> {
        let value: JSONValue
        do {
            value = try StrictJSON.parse(line)
        } catch {
            switch error.kind {
            case .syntax, .loneSurrogate: return .failure(SidecarLineError("not valid JSON"))
            case .repeatedKey(let key): return .failure(SidecarLineError("repeated key '\(key.prefix(64))'"))
            case .tooDeep: return .failure(SidecarLineError("nested deeper than \(StrictJSON.maximumDepth)"))
            case .notUTF8: return .failure(SidecarLineError("not valid UTF-8"))
            }
        }
        guard case .object(let fields) = value else { return .failure(SidecarLineError("not a JSON object")) }
        do throws(SidecarLineError) {
            if fields["changes"] != nil {
                try only(fields, ["changes", "t"])
                guard case .array(let list)? = fields["changes"] else { throw SidecarLineError("'changes' must be an array") }
                var changes: [CatalogChange] = []
                for (index, item) in list.enumerated() { changes.append(try change(item, index: index)) }
                return .success(.changes(changes, time: fields["t"] == nil ? nil : try time(fields)))
            }
            if fields["reset"] != nil {
                try only(fields, ["device", "reset", "state"])
                let device = try identifier(fields, "device")
                guard fields["reset"] == .bool(true) else { throw SidecarLineError("'reset' must be true") }
                return .success(.reset(device: device, state: try state(fields)))
            }
            if fields["registered"] != nil {
                try only(fields, ["device", "registered", "t", "state"])
                let device = try identifier(fields, "device")
                guard case .array(let list)? = fields["registered"] else { throw SidecarLineError("'registered' must be an array") }
                guard list.count <= maximumRegisteredIDs else {
                    throw SidecarLineError("'registered' has \(list.count) identifiers; at most \(maximumRegisteredIDs)")
                }
                var ids: [String] = []
                for (index, item) in list.enumerated() {
                    guard case .string(let text) = item, case let id = Identifiers.canonical(text), Identifiers.problem(id) == nil else {
                        throw SidecarLineError("'registered' #\(index) must be a non-empty string of at most \(maximumIDBytes) bytes")
                    }
                    ids.append(id)
                }
                return .success(.registered(device: device, ids: ids, time: try time(fields), state: try state(fields)))
            }
            if fields["region"] != nil || fields["event"] != nil {
                try only(fields, ["device", "region", "event", "t", "state"])
                let device = try identifier(fields, "device")
                let region = try identifier(fields, "region")
                guard let kind = RegionReport.Kind(rawValue: try string(fields, "event")) else {
                    throw SidecarLineError("'event' must be entry or exit")
                }
                return .success(
                    .region(
                        device: device, RegionReport(regionID: region, kind: kind, timeSeconds: try time(fields)),
                        state: try state(fields)))
            }
            if fields["motion"] != nil {
                try only(fields, ["device", "motion", "source", "t", "state"])
                let device = try identifier(fields, "device")
                guard let kind = MotionReport.Kind(rawValue: try string(fields, "motion")) else {
                    throw SidecarLineError("'motion' must be still or moving")
                }
                var source = MotionReport.Source.activity
                if fields["source"] != nil {
                    guard let value = MotionReport.Source(rawValue: try string(fields, "source")) else {
                        throw SidecarLineError("'source' of a motion report must be activity or visit")
                    }
                    source = value
                }
                return .success(
                    .motion(device: device, MotionReport(kind, source: source, timeSeconds: try time(fields)), state: try state(fields)))
            }
            try only(fields, ["device", "lat", "lon", "t", "accuracy_m", "source", "state"])
            let device = try identifier(fields, "device")
            let coordinate = try position(fields)
            let time = try time(fields)
            var accuracy: Double?
            if let value = fields["accuracy_m"], value != .null {
                let meters = try number(fields, "accuracy_m")
                guard meters >= 0 else { throw SidecarLineError("'accuracy_m' must be >= 0") }
                accuracy = meters
            }
            var source: FixSource?
            if fields["source"] != nil {
                guard let value = FixSource(rawValue: try string(fields, "source")) else {
                    throw SidecarLineError("'source' must be continuous, significant_change, wake_fix or network")
                }
                source = value
            }
            return .success(
                .report(
                    device: device, fix: Fix(coordinate, accuracyMeters: accuracy), time: time, source: source, state: try state(fields)))
        } catch {
            return .failure(error)
        }
    }

    private static func change(_ value: JSONValue, index: Int) throws(SidecarLineError) -> CatalogChange {
        guard case .object(let fields) = value else { throw SidecarLineError("change #\(index) is not an object") }
        do throws(SidecarLineError) {
            let op = try string(fields, "op")
            let id = try identifier(fields, "id")
            switch op {
            case "add":
                let name = fields["name"] == nil ? nil : try string(fields, "name")
                let transitions = fields["transitions"] == nil ? Transitions.both : try self.transitions(fields)
                if let geometry = fields["geometry"] {
                    // A footprint: its GeoJSON Polygon or MultiPolygon, registered by its enclosing circle.
                    try only(fields, ["op", "id", "geometry", "name", "transitions"])
                    return .add(Place(id: id, footprint: try footprint(geometry), name: name, transitions: transitions))
                }
                try only(fields, ["op", "id", "lat", "lon", "radius_m", "name", "transitions"])
                let radius = try number(fields, "radius_m")
                return .add(Place(id: id, coordinate: try position(fields), radiusMeters: radius, name: name, transitions: transitions))
            case "remove":
                try only(fields, ["op", "id"])
                return .remove(id: id)
            case "move":
                try only(fields, ["op", "id", "lat", "lon"])
                return .move(id: id, to: try position(fields))
            case "radius":
                try only(fields, ["op", "id", "radius_m"])
                return .setRadius(id: id, meters: try number(fields, "radius_m"))
            case "transitions":
                try only(fields, ["op", "id", "transitions"])
                return .setTransitions(id: id, try transitions(fields))
            default:
                throw SidecarLineError("unknown op '\(op)' (add, remove, move, radius, transitions)")
            }
        } catch {
            throw SidecarLineError("change #\(index): \(error.reason)")
        }
    }

    /// Refuses a member not in `allowed` (the first such key in sorted order). A list, not a
    /// set: a handful of short keys compare faster than they hash.
    private static func only(_ fields: [String: JSONValue], _ allowed: [String]) throws(SidecarLineError) {
        guard fields.keys.contains(where: { !allowed.contains($0) }) else { return }
        if let unknown = fields.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw SidecarLineError("unknown field '\(unknown)'")
        }
    }

    private static func string(_ fields: [String: JSONValue], _ key: String) throws(SidecarLineError) -> String {
        guard let value = fields[key] else { throw SidecarLineError("missing '\(key)'") }
        guard case .string(let text) = value else { throw SidecarLineError("'\(key)' must be a string") }
        return text
    }

    /// The device state a line carries (`"state"`, the `MonitorState` JSON), if any.
    private static func state(_ fields: [String: JSONValue]) throws(SidecarLineError) -> MonitorState? {
        guard let value = fields["state"] else { return nil }
        guard case .object = value else { throw SidecarLineError("'state' must be an object") }
        do {
            return try JSONDecoder().decode(MonitorState.self, from: Data(value.text.utf8))
        } catch {
            throw SidecarLineError("'state' is not a device state: \(SidecarState.reason(error))")
        }
    }

    /// A non-empty string of at most `maximumIDBytes` bytes, in its canonical spelling
    /// (`Identifiers.canonical`: NFC), so that canonically equal ids are one device or place.
    private static func identifier(_ fields: [String: JSONValue], _ key: String) throws(SidecarLineError) -> String {
        let text = Identifiers.canonical(try string(fields, key))
        if let problem = Identifiers.problem(text) { throw SidecarLineError("'\(key)' \(problem)") }
        return text
    }

    private static func number(_ fields: [String: JSONValue], _ key: String) throws(SidecarLineError) -> Double {
        guard let value = fields[key] else { throw SidecarLineError("missing '\(key)'") }
        guard case .number(let number) = value else { throw SidecarLineError("'\(key)' must be a number") }
        guard number.isFinite else { throw SidecarLineError("'\(key)' must be finite") }
        return number
    }

    /// `t`, a number within `timeRange`.
    private static func time(_ fields: [String: JSONValue]) throws(SidecarLineError) -> Double {
        let t = try number(fields, "t")
        guard timeRange.contains(t) else {
            throw SidecarLineError(
                "'t' must be within 0...10000000000 seconds (\(t) is not: milliseconds or another clock?)")
        }
        return t
    }

    private static func position(_ fields: [String: JSONValue]) throws(SidecarLineError) -> Coordinate {
        let lat = try number(fields, "lat"), lon = try number(fields, "lon")
        do {
            return try Coordinate(latitude: lat, longitude: lon)
        } catch {
            throw SidecarLineError("\(error)")
        }
    }

    /// A footprint from a change's `geometry`, a GeoJSON Polygon or MultiPolygon.
    private static func footprint(_ geometry: JSONValue) throws(SidecarLineError) -> SphericalMultiPolygon {
        guard case .object = geometry else { throw SidecarLineError("'geometry' must be a GeoJSON Polygon or MultiPolygon object") }
        do {
            return try GeoJSONPlaces.footprint(json: geometry)
        } catch {
            throw SidecarLineError("'geometry': \(error.description)")
        }
    }

    private static func transitions(_ fields: [String: JSONValue]) throws(SidecarLineError) -> Transitions {
        let text = try string(fields, "transitions")
        guard let value = Transitions(rawValue: text) else { throw SidecarLineError("'transitions' must be entry, exit or both") }
        return value
    }
}

/// Why one input line was refused.
public struct SidecarLineError: Error, Equatable, Sendable {
    /// Why, in one line (the sidecar answers it as the line's error).
    public var reason: String
    /// Creates an error with its reason.
    public init(_ reason: String) { self.reason = reason }
}
