import FencePlanner
import Foundation
import Geodesy

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

        /// Reading options; see each property.
        public init(defaultRadiusMeters: Double = 100, strict: Bool = false, reservedIDPrefix: String? = nil) {
            self.defaultRadiusMeters = defaultRadiusMeters
            self.strict = strict
            self.reservedIDPrefix = reservedIDPrefix
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

    /// Reads the places of a GeoJSON text.
    public static func read(bytes: [UInt8], options: Options = Options()) throws(ReadError) -> Result {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: Data(bytes), options: [])
        } catch {
            throw ReadError(description: "not JSON: \(error.localizedDescription)")
        }
        guard let object = root as? [String: Any], let type = object["type"] as? String else {
            throw ReadError(description: "not a GeoJSON object (no \"type\")")
        }
        let features: [Any]
        switch type {
        case "FeatureCollection":
            guard let list = object["features"] as? [Any] else {
                throw ReadError(description: "a FeatureCollection needs a \"features\" array")
            }
            features = list
        case "Feature": features = [object]
        default: throw ReadError(description: "type \"\(type)\": places are a FeatureCollection or a Feature")
        }
        var result = Result()
        var firstIndexOfID: [String: Int] = [:]
        for (index, element) in features.enumerated() {
            do throws(FeatureError) {
                let feature = try Self.feature(element, index: index, options: options)
                if let first = firstIndexOfID[feature.id] {
                    throw FeatureError("duplicate id \"\(feature.id)\" (first at feature \(first))")
                }
                firstIndexOfID[feature.id] = index
                result.features.append(feature)
            } catch {
                let rejected = Rejected(index: index, reason: error.reason)
                if options.strict { throw ReadError(description: rejected.description) }
                result.rejected.append(rejected)
            }
        }
        return result
    }

    struct FeatureError: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    static func feature(_ element: Any, index: Int, options: Options) throws(FeatureError) -> Feature {
        guard let object = element as? [String: Any], object["type"] as? String == "Feature" else {
            throw FeatureError("not a Feature object")
        }
        let properties = object["properties"] as? [String: Any] ?? [:]
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
        let name = properties["name"] as? String
        guard let geometry = object["geometry"] as? [String: Any], let type = geometry["type"] as? String else {
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
                guard let number = Self.number(given), number.isFinite, number > 0 else {
                    throw FeatureError("radius \(given) is not a positive number of meters")
                }
                radius = number
            } else {
                radius = options.defaultRadiusMeters
            }
            shape = .circle(center: center, radiusMeters: radius)
        case "Polygon", "MultiPolygon":
            shape = .polygon(try Self.footprint(type: type, coordinates: coordinates))
        default:
            throw FeatureError("geometry type \"\(type)\" is not a place (Point, Polygon or MultiPolygon)")
        }
        return Feature(index: index, id: id, name: name, shape: shape)
    }

    /// A footprint from a GeoJSON geometry object, a Polygon or a MultiPolygon, as
    /// `JSONSerialization` reads it (what the sidecar's change sets carry), validated as the
    /// reader validates a feature's.
    ///
    /// - Throws: `ReadError` with the reason a feature would be rejected for.
    public static func footprint(geometry: Any) throws(ReadError) -> SphericalMultiPolygon {
        do throws(FeatureError) {
            guard let object = geometry as? [String: Any], let type = object["type"] as? String else {
                throw FeatureError("a geometry needs a \"type\"")
            }
            guard type == "Polygon" || type == "MultiPolygon" else {
                throw FeatureError("geometry type \"\(type)\" is not a footprint (Polygon or MultiPolygon)")
            }
            return try footprint(type: type, coordinates: object["coordinates"])
        } catch {
            throw ReadError(description: error.reason)
        }
    }

    /// A Polygon's or MultiPolygon's coordinates as a footprint.
    static func footprint(type: String, coordinates: Any?) throws(FeatureError) -> SphericalMultiPolygon {
        if type == "Polygon" { return SphericalMultiPolygon(try Self.polygon(coordinates)) }
        guard let parts = coordinates as? [Any], !parts.isEmpty else { throw FeatureError("a MultiPolygon needs at least one polygon") }
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
    static func polygon(_ value: Any?) throws(FeatureError) -> SphericalPolygon {
        guard let rings = value as? [Any], !rings.isEmpty else { throw FeatureError("a Polygon needs at least one ring") }
        var parsed: [[Coordinate]] = []
        for (i, ring) in rings.enumerated() {
            guard let positions = ring as? [Any] else { throw FeatureError("ring \(i) is not an array of positions") }
            var coordinates: [Coordinate] = []
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
    static func position(_ value: Any?) throws(FeatureError) -> Coordinate {
        guard let array = value as? [Any], array.count >= 2, let longitude = Self.number(array[0]), let latitude = Self.number(array[1])
        else {
            throw FeatureError("a position must be [longitude, latitude]")
        }
        do {
            return try Coordinate(latitude: latitude, longitude: longitude)
        } catch {
            throw FeatureError("position [\(longitude), \(latitude)]: \(error)")
        }
    }

    static func number(_ value: Any) -> Double? {
        // JSONSerialization gives numbers and booleans both as NSNumber; a boolean's type code
        // is "c" (char), a number's never is.
        guard let number = value as? NSNumber, String(cString: number.objCType) != "c" else { return nil }
        return number.doubleValue
    }

    static func identifier(_ value: Any?) -> String? {
        switch value {
        case let string as String: string
        case let number as NSNumber where String(cString: number.objCType) != "c": number.stringValue
        default: nil
        }
    }
}
