import Geodesy

/// What to monitor at one fix: the places, the refresh region, and how far the promise holds.
public struct Selection: Hashable, Sendable, Codable {
    /// The fix the selection was made at (the refresh region's center).
    public var fix: Fix
    /// The monitored places, nearest fence edge first (ties: nearer center, then id).
    public var monitored: [MonitoredPlace]
    /// The refresh region, or nil when the whole catalog fits in the place slots.
    public var refresh: RefreshRegion?
    /// Whether leaving the refresh region is guaranteed to happen before any unmonitored fence
    /// can be reached.
    public var guarantee: Guarantee
    /// Fence-edge distance from the fix to the nearest place not monitored (nil when all are).
    public var nextUnmonitoredEdgeMeters: Double?
    /// Whether the fix was accurate enough to be trusted (see
    /// `RotationConfiguration.maxTrustedAccuracyMeters`).
    public var trustedFix: Bool

    /// Creates a selection from its parts; nothing is validated here
    /// (`RotationPlanner.select(at:incumbents:refreshID:warmStart:incumbentPositions:)` computes one).
    public init(
        fix: Fix, monitored: [MonitoredPlace], refresh: RefreshRegion?, guarantee: Guarantee,
        nextUnmonitoredEdgeMeters: Double?, trustedFix: Bool
    ) {
        self.fix = fix
        self.monitored = monitored
        self.refresh = refresh
        self.guarantee = guarantee
        self.nextUnmonitoredEdgeMeters = nextUnmonitoredEdgeMeters
        self.trustedFix = trustedFix
    }

    /// The monitored fence definitions, in `monitored` order.
    public var fences: [Fence] { monitored.map(\.fence) }
}

/// One monitored place in a selection.
public struct MonitoredPlace: Hashable, Sendable, Codable {
    /// The place's position in `PlaceCatalog.places`.
    public var position: Int
    /// Its registration.
    public var fence: Fence
    /// Center distance minus radius from the fix, meters; negative inside the fence.
    public var edgeDistanceMeters: Double

    /// Creates a monitored place from its catalog position, registration and edge distance in meters.
    public init(position: Int, fence: Fence, edgeDistanceMeters: Double) {
        self.position = position
        self.fence = fence
        self.edgeDistanceMeters = edgeDistanceMeters
    }

    /// Whether the fix lies inside the fence (edge distance ≤ 0).
    public var containsFix: Bool { edgeDistanceMeters <= 0 }
}

/// The region around the user whose exit tells the app to reselect.
public struct RefreshRegion: Hashable, Sendable, Codable {
    /// A fresh identifier at every reselection (platforms keep inside/outside state per
    /// identifier; reusing one at a new center can swallow the next exit).
    public var id: String
    /// The region's center: the fix the selection was made at.
    public var center: Coordinate
    /// Meters; 0 or more. Below `minRefreshRadiusMeters` the selection is not `exact`.
    public var radiusMeters: Double

    private enum CodingKeys: String, CodingKey {
        case id, center
        case radiusMeters = "radius_m"
    }

    /// Creates a refresh region; nothing is validated here (decoding checks the id and radius).
    public init(id: String, center: Coordinate, radiusMeters: Double) {
        self.id = id
        self.center = center
        self.radiusMeters = radiusMeters
    }

    /// The radius to register the region with on a platform whose smallest reliable region is
    /// `minimum` meters (`RotationConfiguration.minRefreshRadiusMeters`): never less. A smaller
    /// radius (a `degraded` or `saturated` selection, or a fix whose accuracy swallows the
    /// safe distance, down to 0 m) is not monitored reliably, and Android refuses a radius of 0
    /// (`Geofence.Builder.setCircularRegion`); registered at the minimum, the region is a
    /// backstop, and the engine, which asks such a device for continuous fixes, reselects from
    /// the fixes at `radiusMeters`.
    public func registrationRadiusMeters(minimum: Double) -> Double {
        max(radiusMeters, minimum)
    }

    /// Decodes `{"id","center":{"lat","lon"},"radius_m"}` (docs/formats.md).
    ///
    /// - Throws: `DecodingError` when a key is missing or mistyped or the center is not a valid
    ///   coordinate, and `DecodingError.dataCorrupted` for an empty id or a radius that is not finite
    ///   and ≥ 0.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        center = try container.decode(Coordinate.self, forKey: .center)
        radiusMeters = try container.decode(Double.self, forKey: .radiusMeters)
        guard !id.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .id, in: container, debugDescription: "empty refresh id")
        }
        guard radiusMeters.isFinite, radiusMeters >= 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: .radiusMeters, in: container, debugDescription: "refresh radius must be finite and >= 0")
        }
    }

    /// Whether `coordinate` lies inside (or on) the region.
    public func contains(_ coordinate: Coordinate) -> Bool {
        center.distance(to: coordinate) <= radiusMeters
    }
}

/// How far a selection's promise holds.
///
/// Coded as a tagged object with snake_case keys: `{"kind":"exact"}`,
/// `{"kind":"degraded","fallback_distance_m":D}`, `{"kind":"saturated","overlapping":N}`. The
/// coding of rotator states of format version 1 (`{"exact":{}}`,
/// `{"degraded":{"fallbackDistanceMeters":D}}`, `{"saturated":{"overlapping":N}}`) is still read.
public enum Guarantee: Hashable, Sendable, Codable {
    /// Every unmonitored fence stays out of reach until the app learns the user left the refresh
    /// region (margin included); or the whole catalog is monitored.
    case exact
    /// The safe refresh radius is smaller than the platform monitors reliably. The host must fall
    /// back to location updates and reselect after moving `fallbackDistanceMeters` (the safe
    /// radius, possibly 0) from the selection's fix.
    case degraded(fallbackDistanceMeters: Double)
    /// More fences than place slots lie within the margin of the user: no selection can be
    /// exact. `overlapping` counts them. The host falls back as for `degraded`.
    case saturated(overlapping: Int)

    /// The trace spelling: `exact`, `degraded` or `saturated`.
    public var name: String {
        switch self {
        case .exact: "exact"
        case .degraded: "degraded"
        case .saturated: "saturated"
        }
    }

    private enum CodingKeys: String, CodingKey {
        case kind
        case fallbackDistanceMeters = "fallback_distance_m"
        case overlapping
    }

    /// The format-version-1 coding: the case name as the key of an object of its values.
    private enum LegacyKeys: String, CodingKey {
        case exact, degraded, saturated
        case fallbackDistanceMeters, overlapping
    }

    /// Decodes the tagged form above, or the format-version-1 form.
    ///
    /// - Throws: `DecodingError` when `kind` is unknown, a case's value is missing or mistyped, or
    ///   the object is neither form.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if container.contains(.kind) {
            switch try container.decode(String.self, forKey: .kind) {
            case "exact": self = .exact
            case "degraded": self = .degraded(fallbackDistanceMeters: try container.decode(Double.self, forKey: .fallbackDistanceMeters))
            case "saturated": self = .saturated(overlapping: try container.decode(Int.self, forKey: .overlapping))
            case let other:
                throw DecodingError.dataCorruptedError(
                    forKey: .kind, in: container, debugDescription: "unknown guarantee '\(other)' (exact, degraded, saturated)")
            }
            return
        }
        let legacy = try decoder.container(keyedBy: LegacyKeys.self)
        guard legacy.allKeys.count == 1, let key = legacy.allKeys.first else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "a guarantee needs its 'kind'"))
        }
        switch key {
        case .exact: self = .exact
        case .degraded:
            let values = try legacy.nestedContainer(keyedBy: LegacyKeys.self, forKey: .degraded)
            self = .degraded(fallbackDistanceMeters: try values.decode(Double.self, forKey: .fallbackDistanceMeters))
        case .saturated:
            let values = try legacy.nestedContainer(keyedBy: LegacyKeys.self, forKey: .saturated)
            self = .saturated(overlapping: try values.decode(Int.self, forKey: .overlapping))
        default:
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "a guarantee needs its 'kind'"))
        }
    }

    /// Encodes the tagged form above (never the version-1 form).
    ///
    /// - Throws: whatever error the encoder throws; the standard JSON encoder does not fail here.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .kind)
        switch self {
        case .exact: break
        case .degraded(let meters): try container.encode(meters, forKey: .fallbackDistanceMeters)
        case .saturated(let overlapping): try container.encode(overlapping, forKey: .overlapping)
        }
    }
}
