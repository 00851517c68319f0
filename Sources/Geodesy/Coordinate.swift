#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A validated position on the sphere: latitude and longitude in degrees.
///
/// Construction checks that both values are finite, that the latitude lies in `-90...90` and the
/// longitude in `-180...180`. The longitudes -180 and 180 name the same meridian; a longitude of
/// exactly -180 is stored as 180 so that both spellings give the same coordinate, the same unit
/// vector and a distance of exactly 0 between them.
///
/// At a pole every longitude names the same point; distances and unit vectors agree (up to
/// rounding of `cos(90°)`), but the stored longitude is kept as given.
public struct Coordinate: Hashable, Sendable, CustomStringConvertible {
    /// Latitude in degrees, `-90...90`, positive north.
    public let latitude: Double
    /// Longitude in degrees, `-180 < longitude ≤ 180`, positive east.
    public let longitude: Double

    /// Creates a coordinate, validating both values.
    ///
    /// - Parameters:
    ///   - latitude: degrees, finite, in `-90...90`.
    ///   - longitude: degrees, finite, in `-180...180` (-180 is stored as 180).
    /// - Throws: `CoordinateError` naming the first rule that failed (latitude checked first).
    public init(latitude: Double, longitude: Double) throws(CoordinateError) {
        guard latitude.isFinite else { throw .latitudeNotFinite }
        guard longitude.isFinite else { throw .longitudeNotFinite }
        guard (-90.0...90.0).contains(latitude) else { throw .latitudeOutOfRange(latitude) }
        guard (-180.0...180.0).contains(longitude) else { throw .longitudeOutOfRange(longitude) }
        self.latitude = latitude
        self.longitude = longitude == -180 ? 180 : longitude
    }

    /// Creates a coordinate from values the caller has already validated or computed.
    ///
    /// Out-of-range values are a programming error and trap; use the throwing initializer for input.
    @inlinable
    public init(validLatitude latitude: Double, longitude: Double) {
        precondition(latitude.isFinite && (-90.0...90.0).contains(latitude), "latitude \(latitude) out of -90...90")
        precondition(longitude.isFinite && (-180.0...180.0).contains(longitude), "longitude \(longitude) out of -180...180")
        self.latitude = latitude
        self.longitude = longitude == -180 ? 180 : longitude
    }

    /// Latitude in radians.
    @inlinable public var latitudeRadians: Double { latitude * (Double.pi / 180) }
    /// Longitude in radians.
    @inlinable public var longitudeRadians: Double { longitude * (Double.pi / 180) }

    /// The coordinate as `(latitude, longitude)` in degrees, for example `(48.8584, 2.2945)`.
    public var description: String { "(\(latitude), \(longitude))" }
}

/// Why a latitude/longitude pair is not a valid `Coordinate`.
public enum CoordinateError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The latitude is NaN or infinite.
    case latitudeNotFinite
    /// The longitude is NaN or infinite.
    case longitudeNotFinite
    /// The latitude, in degrees, is finite but outside `-90...90`.
    case latitudeOutOfRange(Double)
    /// The longitude, in degrees, is finite but outside `-180...180`.
    case longitudeOutOfRange(Double)

    /// A one-line English reason naming the value and its allowed range, for diagnostics.
    public var description: String {
        switch self {
        case .latitudeNotFinite: "latitude is not a finite number"
        case .longitudeNotFinite: "longitude is not a finite number"
        case .latitudeOutOfRange(let value): "latitude \(value) is outside -90...90"
        case .longitudeOutOfRange(let value): "longitude \(value) is outside -180...180"
        }
    }
}

extension Coordinate: Codable {
    private enum CodingKeys: String, CodingKey {
        case latitude = "lat"
        case longitude = "lon"
    }

    /// Decodes `{"lat": …, "lon": …}`, validating like `init(latitude:longitude:)`: an invalid
    /// value is a `DecodingError.dataCorrupted`, never a trap.
    ///
    /// - Throws: `DecodingError` when a key is missing or not a number, and
    ///   `DecodingError.dataCorrupted` when the pair is not a valid coordinate (the reason is the
    ///   `CoordinateError` description).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let latitude = try container.decode(Double.self, forKey: .latitude)
        let longitude = try container.decode(Double.self, forKey: .longitude)
        do {
            try self.init(latitude: latitude, longitude: longitude)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    /// Encodes the coordinate as `{"lat": …, "lon": …}` in degrees (the wire form of docs/formats.md).
    ///
    /// - Throws: whatever error the encoder throws; encoding two finite doubles does not fail
    ///   with the standard JSON encoder.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(latitude, forKey: .latitude)
        try container.encode(longitude, forKey: .longitude)
    }
}
