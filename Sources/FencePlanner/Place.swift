import Geodesy

/// One place the host app may want to geofence: a circle, or a polygon footprint.
///
/// A footprint is registered with the platform by the circle that covers it (`coordinate` and
/// `radiusMeters` are its enclosing cap, which the catalog recomputes from the footprint), and
/// whether the device is inside is decided in-app from fixes, never from that circle.
public struct Place: Hashable, Sendable, Codable {
    /// Unique, non-empty identifier within a catalog (also the platform region identifier).
    public var id: String
    /// The fence center (for a footprint, its enclosing cap's center).
    public var coordinate: Coordinate
    /// Fence radius in meters (finite, > 0); the catalog clamps it to the platform's range. For a
    /// footprint, its enclosing cap's radius: the circle registered with the platform.
    public var radiusMeters: Double
    /// The place's polygon footprint, nil for a circular fence.
    public var footprint: SphericalMultiPolygon?
    /// Free text carried through (not used for planning).
    public var name: String?
    /// Which crossings the host wants reported.
    public var transitions: Transitions

    /// Creates a place; nothing is validated here (`PlaceCatalog` checks ids and radii and clamps the
    /// radius).
    public init(id: String, coordinate: Coordinate, radiusMeters: Double, name: String? = nil, transitions: Transitions = .both) {
        self.id = id
        self.coordinate = coordinate
        self.radiusMeters = radiusMeters
        self.name = name
        self.transitions = transitions
    }

    /// A place with a polygon footprint, registered by the circle that covers it: its enclosing
    /// cap (`SphericalMultiPolygon.cap`) gives `coordinate` and `radiusMeters`.
    public init(id: String, footprint: SphericalMultiPolygon, name: String? = nil, transitions: Transitions = .both) {
        self.init(
            id: id, coordinate: Coordinate(footprint.cap.center), radiusMeters: footprint.cap.radiusMeters, name: name,
            transitions: transitions)
        self.footprint = footprint
    }

    /// The platform registration for this place.
    public var fence: Fence { Fence(id: id, center: coordinate, radiusMeters: radiusMeters, transitions: transitions) }
}

/// Which fence crossings the host app wants the platform to report.
public enum Transitions: String, Hashable, Sendable, Codable, CaseIterable {
    /// Only entering the fence (raw value and JSON `"entry"`).
    case entry
    /// Only leaving the fence (`"exit"`).
    case exit
    /// Entering and leaving (`"both"`, the default).
    case both
}

/// A region as registered with the platform: what `RegistrationDiff` compares.
///
/// Two fences are the same registration only if every field is equal: a place whose center,
/// radius or transitions changed must be stopped and started again.
public struct Fence: Hashable, Sendable, Codable {
    /// The region identifier: the place's id.
    public var id: String
    /// The region's center.
    public var center: Coordinate
    /// The region's radius in meters (the catalog's clamped radius).
    public var radiusMeters: Double
    /// The crossings the platform is asked to report.
    public var transitions: Transitions

    /// Creates a registration; nothing is validated here (decoding checks the id and radius).
    public init(id: String, center: Coordinate, radiusMeters: Double, transitions: Transitions) {
        self.id = id
        self.center = center
        self.radiusMeters = radiusMeters
        self.transitions = transitions
    }

    private enum CodingKeys: String, CodingKey {
        case id, center
        case radiusMeters = "radius_m"
        case transitions
    }

    /// Decodes `{"id","center":{"lat","lon"},"radius_m","transitions"}` (docs/formats.md) and
    /// validates: a non-empty id and a finite radius > 0.
    ///
    /// - Throws: `DecodingError` when a key is missing or mistyped or the center is not a valid
    ///   coordinate, and `DecodingError.dataCorrupted` for an empty id or a radius that is not finite
    ///   and > 0.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        center = try container.decode(Coordinate.self, forKey: .center)
        radiusMeters = try container.decode(Double.self, forKey: .radiusMeters)
        transitions = try container.decode(Transitions.self, forKey: .transitions)
        guard !id.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .id, in: container, debugDescription: "empty fence id")
        }
        guard radiusMeters.isFinite, radiusMeters > 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: .radiusMeters, in: container, debugDescription: "fence radius must be finite and > 0")
        }
    }
}
