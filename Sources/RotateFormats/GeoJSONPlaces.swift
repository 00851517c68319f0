import FencePlanner
import Foundation
import Geodesy
import RotateJSON

/// Places read from GeoJSON (RFC 7946): a FeatureCollection (or one Feature) whose features are
/// circles (a Point and a radius) or footprints (a Polygon or MultiPolygon, holes allowed).
///
/// - Ids: the feature's `id` (a string or a number), else `properties.id`; names:
///   `properties.name`; a Point's radius: `properties.radius_m`, else `properties.radius`
///   (meters), else `Options.defaultRadiusMeters`.
/// - Positions are [longitude, latitude] (a third number, the altitude, is ignored).
/// - A ring wound against RFC 7946's right-hand rule is reoriented, not rejected (the RFC asks
///   parsers not to reject it); the pieces of a MultiPolygon cut at the antimeridian are one
///   place (`SphericalMultiPolygon`).
/// - A feature that cannot be a place is rejected with its index in `features` (from 0) and the
///   reason: no id, a duplicate id, an unsupported geometry, a ring with fewer than 4 positions
///   or not closed, a ring that intersects itself or another, a hole outside its shell, a shape
///   not within a hemisphere, a coordinate out of range, a radius that is not a positive number.
///   Every other feature is read.
public enum GeoJSONPlaces {
    /// How to read.
    public struct Options: Sendable {
        /// A Point's radius when its properties give none, meters.
        public var defaultRadiusMeters: Double
        /// Stop at the first rejected feature.
        public var strict: Bool
        /// Ids starting with this are rejected (the refresh regions' prefix), when given.
        public var reservedIDPrefix: String?
        /// A footprint whose enclosing circle (what a platform registers) is wider than this,
        /// meters, is rejected: `PlaceCatalog`'s default `maxRegionRadiusMeters`, 400 km.
        public var maximumFootprintRadiusMeters: Double

        /// Reading options; see each property.
        public init(
            defaultRadiusMeters: Double = 100, strict: Bool = false, reservedIDPrefix: String? = nil,
            maximumFootprintRadiusMeters: Double = 400_000
        ) {
            self.defaultRadiusMeters = defaultRadiusMeters
            self.strict = strict
            self.reservedIDPrefix = reservedIDPrefix
            self.maximumFootprintRadiusMeters = maximumFootprintRadiusMeters
        }
    }

    /// A place's shape.
    public enum Shape: Hashable, Sendable {
        /// A circle: its center and radius, meters.
        case circle(center: Coordinate, radiusMeters: Double)
        /// A footprint of one or more polygons.
        case polygon(SphericalMultiPolygon)
    }

    /// One place read.
    public struct Feature: Hashable, Sendable {
        /// The feature's index in the collection, from 0.
        public var index: Int
        /// The place's id (the feature's `id`, else `properties.id`).
        public var id: String
        /// `properties.name`, when it is a string.
        public var name: String?
        /// The place's fence.
        public var shape: Shape

        /// The place: a circle, or a footprint registered by its enclosing circle.
        public var place: Place {
            switch shape {
            case .circle(let center, let radius): Place(id: id, coordinate: center, radiusMeters: radius, name: name)
            case .polygon(let footprint): Place(id: id, footprint: footprint, name: name)
            }
        }
    }

    /// A feature that is not a place, and why.
    public struct Rejected: Hashable, Sendable, CustomStringConvertible {
        /// The feature's index in the collection, from 0.
        public var index: Int
        /// Why it is not a place.
        public var reason: String

        /// `feature INDEX: reason`.
        public var description: String { "feature \(index): \(reason)" }
    }

    /// What a file held.
    public struct Result: Sendable {
        /// The places read, in the collection's order.
        public var features: [Feature] = []
        /// The features rejected, in the collection's order.
        public var rejected: [Rejected] = []
    }

    /// A file that is not a GeoJSON FeatureCollection or Feature at all, or (strict) the first
    /// feature rejected.
    public struct ReadError: Error, Hashable, Sendable, CustomStringConvertible {
        /// What is wrong, in words.
        public var description: String

        /// An error saying `description`.
        public init(description: String) {
            self.description = description
        }
    }

    /// Whether `bytes` look like GeoJSON rather than CSV: the first character that is not
    /// white space (after a byte-order mark) opens a JSON object.
    public static func looksLikeGeoJSON(_ bytes: some Collection<UInt8>) -> Bool {
        var rest = bytes[...]
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        return rest.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == UInt8(ascii: "{")
    }

    /// Why `head`, the first bytes of a text, cannot begin a GeoJSON object, if it cannot: its
    /// first character that is not white space (after a byte-order mark) is not `{`. Nil when it
    /// can, or when `head` holds only white space. A reader can refuse a large file from its
    /// first bytes.
    package static func failure(atStart head: [UInt8]) -> ReadError? {
        let start = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        guard let offset = head[start...].firstIndex(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }), head[offset] != UInt8(ascii: "{")
        else { return nil }
        let location = head.withUnsafeBufferPointer { StrictJSON.location(of: offset, in: $0) }
        return ReadError(
            description: "\(location): not a GeoJSON object: the text starts with \(StrictJSON.name(of: head[offset])), not '{'")
    }

    /// Reads the places of a GeoJSON text.
    ///
    /// The text is read by the project's one JSON reader (`StrictJSON`, as the sidecar reads its
    /// lines): RFC 8259's grammar and nothing more (no trailing comma, no comment, no NaN),
    /// strings of UTF-8, an object naming a key twice refused (readers differ on which one wins),
    /// nesting at most 64 deep. A text that does not read fails whole, with its line, column and
    /// byte. A FeatureCollection's features are read one at a time and dropped once converted,
    /// so reading takes the text and the places, not a tree of the whole file.
    ///
    /// - Throws: `ReadError` for a text that is not JSON, not a FeatureCollection or a Feature, or
    ///   (strict) the first feature rejected.
    public static func read(bytes: [UInt8], options: Options = Options()) throws(ReadError) -> Result {
        if let failure = failure(atStart: bytes) { throw failure }
        var result = Result()
        var firstIndexOfID: [String: Int] = [:]
        var firstRejected: Rejected?
        func add(_ element: JSONValue, index: Int) {
            guard firstRejected == nil || !options.strict else { return }
            do throws(FeatureError) {
                let feature = try Self.feature(element, index: index, options: options)
                if let first = firstIndexOfID[feature.id] {
                    throw FeatureError("duplicate id \"\(feature.id)\" (first at feature \(first))")
                }
                firstIndexOfID[feature.id] = index
                result.features.append(feature)
            } catch {
                let rejected = Rejected(index: index, reason: error.reason)
                if firstRejected == nil { firstRejected = rejected }
                result.rejected.append(rejected)
            }
        }
        let parsed: Swift.Result<(value: JSONValue, streamedCount: Int?), StrictJSON.Failure> = bytes.withUnsafeBufferPointer { all in
            // A UTF-8 byte-order mark before the text is skipped (RFC 8259 lets a reader ignore it).
            let text = all.starts(with: [0xEF, 0xBB, 0xBF]) ? UnsafeBufferPointer(rebasing: all[3...]) : all
            return Swift.Result { () throws(StrictJSON.Failure) in
                try StrictJSON.parse(bytes: text, streaming: "features") { index, element in add(element, index: index) }
            }.mapError { failure in
                // Offsets within the whole text, for the line and column.
                var within = failure
                within.offset += all.count - text.count
                return within
            }
        }
        let root: JSONValue, streamed: Int?
        switch parsed {
        case .success(let value): (root, streamed) = value
        case .failure(let failure):
            let description = bytes.withUnsafeBufferPointer { failure.description(in: $0) }
            throw ReadError(description: description)
        }
        guard case .object(let object) = root, case .string(let type)? = object["type"] else {
            throw ReadError(description: "not a GeoJSON object (no \"type\")")
        }
        switch type {
        case "FeatureCollection":
            guard streamed != nil else { throw ReadError(description: "a FeatureCollection needs a \"features\" array") }
        case "Feature":
            result = Result()
            firstRejected = nil
            firstIndexOfID = [:]
            add(root, index: 0)
        default: throw ReadError(description: "type \"\(type)\": places are a FeatureCollection or a Feature")
        }
        if options.strict, let firstRejected { throw ReadError(description: firstRejected.description) }
        return result
    }

    struct FeatureError: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    static func feature(_ element: JSONValue, index: Int, options: Options) throws(FeatureError) -> Feature {
        guard case .object(let object) = element, object["type"] == .string("Feature") else {
            throw FeatureError("not a Feature object")
        }
        var properties: [String: JSONValue] = [:]
        if case .object(let given)? = object["properties"] { properties = given }
        guard let given = Self.identifier(object["id"]) ?? Self.identifier(properties["id"]), !given.isEmpty else {
            throw FeatureError("no id (the feature's \"id\" or properties.id)")
        }
        // One spelling for canonically equal ids, as the catalog stores them.
        let id = Identifiers.canonical(given)
        guard id.utf8.count <= Identifiers.maximumBytes else {
            throw FeatureError("id is \(id.utf8.count) bytes long; at most \(Identifiers.maximumBytes)")
        }
        if let prefix = options.reservedIDPrefix, id.hasPrefix(prefix) {
            throw FeatureError("id \"\(id)\" starts with the reserved prefix \"\(prefix)\"")
        }
        var name: String?
        if case .string(let text)? = properties["name"] { name = text }
        guard case .object(let geometry)? = object["geometry"], case .string(let type)? = geometry["type"] else {
            throw FeatureError("no geometry")
        }
        let coordinates = geometry["coordinates"]
        let shape: Shape
        switch type {
        case "Point":
            let center = try Self.position(coordinates)
            let given = properties["radius_m"] ?? properties["radius"]
            let radius: Double
            if let given {
                guard case .number(let number) = given, number.isFinite, number > 0 else {
                    throw FeatureError("radius \(given.text.prefix(64)) is not a positive number of meters")
                }
                radius = number
            } else {
                radius = options.defaultRadiusMeters
            }
            shape = .circle(center: center, radiusMeters: radius)
        case "Polygon", "MultiPolygon":
            let footprint = try Self.footprint(type: type, coordinates: coordinates)
            let radius = footprint.cap.radiusMeters
            guard radius <= options.maximumFootprintRadiusMeters else {
                throw FeatureError(
                    "footprint \"\(id)\" is enclosed by no circle a platform registers: its enclosing circle's radius is \(TextFormat.grouped(radius)) m, more than \(TextFormat.grouped(options.maximumFootprintRadiusMeters)) m"
                )
            }
            shape = .polygon(footprint)
        default:
            throw FeatureError("geometry type \"\(type)\" is not a place (Point, Polygon or MultiPolygon)")
        }
        return Feature(index: index, id: id, name: name, shape: shape)
    }

    /// A footprint from a GeoJSON geometry object, a Polygon or a MultiPolygon, as
    /// `JSONSerialization` reads it (or as Swift literals: strings, numbers, arrays and
    /// dictionaries), validated as the reader validates a feature's.
    ///
    /// - Throws: `ReadError` with the reason a feature would be rejected for.
    public static func footprint(geometry: Any) throws(ReadError) -> SphericalMultiPolygon {
        guard let value = JSONValue(foundation: geometry) else { throw ReadError(description: "a geometry must be a JSON object") }
        return try footprint(json: value)
    }

    /// A footprint from a GeoJSON geometry object, a Polygon or a MultiPolygon, as `StrictJSON`
    /// reads it (what the sidecar's change sets carry), validated as the reader validates a
    /// feature's.
    ///
    /// - Throws: `ReadError` with the reason a feature would be rejected for.
    package static func footprint(json geometry: JSONValue) throws(ReadError) -> SphericalMultiPolygon {
        do throws(FeatureError) {
            guard case .object(let object) = geometry, case .string(let type)? = object["type"] else {
                throw FeatureError("a geometry needs a \"type\"")
            }
            guard type == "Polygon" || type == "MultiPolygon" else {
                throw FeatureError("geometry type \"\(type.prefix(64))\" is not a footprint (Polygon or MultiPolygon)")
            }
            return try footprint(type: type, coordinates: object["coordinates"])
        } catch {
            throw ReadError(description: error.reason)
        }
    }

    /// A Polygon's or MultiPolygon's coordinates as a footprint.
    static func footprint(type: String, coordinates: JSONValue?) throws(FeatureError) -> SphericalMultiPolygon {
        if type == "Polygon" { return SphericalMultiPolygon(try Self.polygon(coordinates)) }
        guard case .array(let parts)? = coordinates, !parts.isEmpty else { throw FeatureError("a MultiPolygon needs at least one polygon") }
        var polygons: [SphericalPolygon] = []
        for (i, part) in parts.enumerated() {
            do throws(FeatureError) {
                polygons.append(try Self.polygon(part))
            } catch {
                throw FeatureError("polygon \(i): \(error.reason)")
            }
        }
        do {
            return try SphericalMultiPolygon(parts: polygons)
        } catch {
            throw FeatureError(error.description)
        }
    }

    /// A Polygon's rings: each with at least 4 positions, the last equal to the first.
    static func polygon(_ value: JSONValue?) throws(FeatureError) -> SphericalPolygon {
        guard case .array(let rings)? = value, !rings.isEmpty else { throw FeatureError("a Polygon needs at least one ring") }
        var parsed: [[Coordinate]] = []
        for (i, ring) in rings.enumerated() {
            guard case .array(let positions) = ring else { throw FeatureError("ring \(i) is not an array of positions") }
            var coordinates: [Coordinate] = []
            coordinates.reserveCapacity(positions.count)
            for position in positions { coordinates.append(try Self.position(position)) }
            guard coordinates.count >= 4 else {
                throw FeatureError("ring \(i) has \(coordinates.count) positions; a ring needs at least 4")
            }
            guard coordinates.first == coordinates.last else {
                throw FeatureError("ring \(i) is not closed (its last position differs from its first)")
            }
            parsed.append(coordinates)
        }
        do {
            return try SphericalPolygon(shell: parsed[0], holes: Array(parsed.dropFirst()))
        } catch {
            throw FeatureError(error.description)
        }
    }

    /// A position [longitude, latitude] (an altitude after them is ignored).
    static func position(_ value: JSONValue?) throws(FeatureError) -> Coordinate {
        guard case .array(let array)? = value, array.count >= 2, case .number(let longitude) = array[0],
            case .number(let latitude) = array[1]
        else {
            throw FeatureError("a position must be [longitude, latitude]")
        }
        do {
            return try Coordinate(latitude: latitude, longitude: longitude)
        } catch {
            throw FeatureError("position [\(longitude), \(latitude)]: \(error)")
        }
    }

    /// An id: a string, or a number written as JSON writes it (an integer without a fraction).
    static func identifier(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let string): string
        case .number(let number) where number.isFinite: JSONValue.number(number).text
        default: nil
        }
    }
}

extension JSONValue {
    /// A value as `JSONSerialization` gives it (or as Swift literals): nil for anything JSON
    /// cannot hold. A Foundation boolean is a boolean, not the number 0 or 1.
    init?(foundation value: Any) {
        switch value {
        case let string as String: self = .string(string)
        case is NSNull: self = .null
        case let number as NSNumber:
            // Numbers and booleans both arrive as NSNumber; a boolean's type code is "c" (char).
            self = String(cString: number.objCType) == "c" ? .bool(number.boolValue) : .number(number.doubleValue)
        case let array as [Any]:
            var items: [JSONValue] = []
            for item in array {
                guard let read = JSONValue(foundation: item) else { return nil }
                items.append(read)
            }
            self = .array(items)
        case let object as [String: Any]:
            var fields: [String: JSONValue] = [:]
            for (key, item) in object {
                guard let read = JSONValue(foundation: item) else { return nil }
                fields[key] = read
            }
            self = .object(fields)
        default: return nil
        }
    }
}
