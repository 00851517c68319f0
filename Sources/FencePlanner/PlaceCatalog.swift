import Geodesy
import SpatialIndex

/// An immutable, validated set of places with its spatial index, built once and shared by any
/// number of devices (it is a `Sendable` value; copies share storage).
///
/// Places are stored sorted by id, so "ties broken by index" in the index means "ties broken by
/// id" for the planner, whatever order the input came in.
public struct PlaceCatalog: Sendable {
    /// The places, sorted by id, radii clamped (a footprint's center and radius are its enclosing
    /// cap's).
    public let places: [Place]
    /// The index over `places` (same order), ranked by fence edge with the clamped radii.
    public let index: KDTree
    /// Each place's unit vector, in `places` order (exactly the vectors the index holds; a
    /// footprint's enclosing cap's center).
    public let vectors: [UnitVector]
    /// Each place's registration, in `places` order.
    public let fences: [Fence]
    /// Each place's fence radius (clamped), in `places` order.
    public let radiiMeters: [Double]
    /// Every radius that was clamped into the platform's range, in input order.
    public let clamps: [RadiusClamp]
    /// The prefix of refresh-region identifiers; no place id starts with it.
    public let refreshIdentifierPrefix: String
    /// The radius every place shares (after clamping), when they all share one: then the edge
    /// order of places is their center order.
    public let uniformRadiusMeters: Double?
    /// The catalog's version: 0 unless given, one more for each `applying(_:)`. Device states
    /// record the version they were planned against (see `FenceRotator`).
    public let version: Int
    /// The radius range radii were clamped into (kept to build the next version alike).
    public let minFenceRadiusMeters: Double, maxRegionRadiusMeters: Double
    /// The smallest region the platform resolves, when the catalog registers smaller places by
    /// an approach region (`planning`); nil: every place is registered by its own fence.
    public let approachRadiusMeters: Double?
    /// How much wider than its enclosing cap the circle registering a footprint is in `planning`,
    /// meters (0: the cap itself).
    public let footprintCushionMeters: Double
    /// The exact index over the places' fences, circles and footprints, when some place has a
    /// footprint (nil: `index` ranks every fence exactly). The planner ranks by it.
    public let footprintIndex: FootprintIndex?
    /// The catalog the planner registers: the same places in the same positions, each place
    /// smaller than `approachRadiusMeters` by a circle of that radius around its center (an
    /// approach region, which contains its fence), and each footprint, with an approach radius or
    /// a cushion, by the circle of its enclosing cap widened by `footprintCushionMeters` (and at
    /// least the approach radius); `self` when no place is registered so. Its index ranks by the
    /// approach regions' edges, so a refresh region planned on it keeps the device from every
    /// unmonitored approach region, and so from every unmonitored fence.
    public var planning: PlaceCatalog { approach?.catalog ?? self }
    private let approach: ApproachCatalog?

    private let positionsByID: [String: Int]

    /// Builds a catalog.
    ///
    /// Ids are stored in Unicode Normalization Form C (`Identifiers.canonical(_:)`), so two
    /// canonically equal spellings are one id (a duplicate).
    ///
    /// ```swift
    /// let places = [
    ///     Place(id: "library", coordinate: try Coordinate(latitude: 46.0503, longitude: 14.5038), radiusMeters: 80),
    ///     Place(id: "market", coordinate: try Coordinate(latitude: 46.0514, longitude: 14.5081), radiusMeters: 120),
    /// ]
    /// let catalog = try PlaceCatalog(places: places, minFenceRadiusMeters: 100)
    /// print(catalog.count, catalog.clamps.map(\.id))  // 2 ["library"]: 80 m raised to 100 m
    /// ```
    ///
    /// - Parameters:
    ///   - places: at least one place; ids unique and non-empty; radii finite and > 0.
    ///   - minFenceRadiusMeters: smaller radii are raised to this (and reported in `clamps`).
    ///   - maxRegionRadiusMeters: larger radii are lowered to this (and reported).
    ///   - refreshIdentifierPrefix: refresh regions are named `prefix + number`; a place id with
    ///     this prefix is rejected, so the two can never collide.
    ///   - version: the catalog's version number (see `applying(_:)`).
    ///   - approachRadiusMeters: places smaller than this are registered by a circle of this
    ///     radius around them (`planning`); finite, > 0 and at most `maxRegionRadiusMeters`.
    ///   - footprintCushionMeters: footprints are registered in `planning` by their enclosing
    ///     cap widened by this; finite and ≥ 0.
    /// - Throws: `CatalogError`: `.invalidRadiusRange` (also for an approach radius or cushion
    ///   out of range) or `.emptyRefreshPrefix` for bad arguments
    ///   (checked first), `.empty` for no places, else the first invalid place by input position
    ///   (`.emptyID`, `.longID`, `.duplicateID`, `.reservedID`, `.invalidRadius`,
    ///   `.footprintTooLarge`).
    /// - Complexity: O(n log n), plus O(v) for v footprint vertices.
    public init(
        places: [Place], minFenceRadiusMeters: Double = 1, maxRegionRadiusMeters: Double = 400_000,
        refreshIdentifierPrefix: String = "refresh-", version: Int = 0, approachRadiusMeters: Double? = nil,
        footprintCushionMeters: Double = 0
    ) throws(CatalogError) {
        guard minFenceRadiusMeters.isFinite, maxRegionRadiusMeters.isFinite, minFenceRadiusMeters > 0,
            minFenceRadiusMeters <= maxRegionRadiusMeters
        else {
            throw .invalidRadiusRange(min: minFenceRadiusMeters, max: maxRegionRadiusMeters)
        }
        if let approach = approachRadiusMeters, !(approach.isFinite && approach > 0 && approach <= maxRegionRadiusMeters) {
            throw .invalidRadiusRange(min: approach, max: maxRegionRadiusMeters)
        }
        guard footprintCushionMeters.isFinite, footprintCushionMeters >= 0, footprintCushionMeters <= maxRegionRadiusMeters else {
            throw .invalidRadiusRange(min: footprintCushionMeters, max: maxRegionRadiusMeters)
        }
        guard !refreshIdentifierPrefix.isEmpty else { throw .emptyRefreshPrefix }
        guard !places.isEmpty else { throw .empty }
        var clamps: [RadiusClamp] = []
        var seen: [String: Int] = [:]
        seen.reserveCapacity(places.count)
        var clamped = places
        for (position, var place) in places.enumerated() {
            // One spelling for canonically equal ids (Identifiers): what the database, the
            // platforms and the answers compare byte for byte.
            place.id = Identifiers.canonical(place.id)
            clamped[position].id = place.id
            guard !place.id.isEmpty else { throw .emptyID(position: position) }
            let bytes = place.id.utf8.count
            guard bytes <= Identifiers.maximumBytes else { throw .longID(place.id, position: position, bytes: bytes) }
            if let first = seen[place.id] { throw .duplicateID(place.id, firstPosition: first, position: position) }
            seen[place.id] = position
            if place.id.hasPrefix(refreshIdentifierPrefix) {
                throw .reservedID(place.id, position: position, prefix: refreshIdentifierPrefix)
            }
            if let footprint = place.footprint {
                // The registered circle is the footprint's enclosing cap, whatever was given.
                place.coordinate = Coordinate(footprint.cap.center)
                place.radiusMeters = footprint.cap.radiusMeters
                clamped[position] = place
                guard place.radiusMeters <= maxRegionRadiusMeters else {
                    throw .footprintTooLarge(place.id, position: position, radiusMeters: place.radiusMeters)
                }
            }
            guard place.radiusMeters.isFinite, place.radiusMeters > 0 else {
                throw .invalidRadius(place.id, position: position, radiusMeters: place.radiusMeters)
            }
            let radius = min(maxRegionRadiusMeters, max(minFenceRadiusMeters, place.radiusMeters))
            if radius != place.radiusMeters {
                clamps.append(RadiusClamp(id: place.id, position: position, requestedMeters: place.radiusMeters, clampedMeters: radius))
                clamped[position].radiusMeters = radius
            }
        }
        clamped.sort { $0.id < $1.id }
        self.places = clamped
        self.version = version
        self.minFenceRadiusMeters = minFenceRadiusMeters
        self.maxRegionRadiusMeters = maxRegionRadiusMeters
        self.clamps = clamps
        self.refreshIdentifierPrefix = refreshIdentifierPrefix
        let vectors = clamped.map { $0.footprint?.cap.center ?? UnitVector($0.coordinate) }
        self.vectors = vectors
        self.fences = clamped.map(\.fence)
        let firstRadius = clamped[0].radiusMeters
        self.uniformRadiusMeters = clamped.allSatisfy { $0.radiusMeters == firstRadius } ? firstRadius : nil
        self.radiiMeters = clamped.map(\.radiusMeters)
        self.index = KDTree(vectors: vectors, radiiMeters: radiiMeters)
        var positions: [String: Int] = [:]
        positions.reserveCapacity(clamped.count)
        for (i, place) in clamped.enumerated() { positions[place.id] = i }
        self.positionsByID = positions
        self.approachRadiusMeters = approachRadiusMeters
        self.footprintCushionMeters = footprintCushionMeters
        let hasFootprints = clamped.contains { $0.footprint != nil }
        self.footprintIndex =
            hasFootprints
            ? FootprintIndex(
                clamped.indices.map { i in
                    clamped[i].footprint.map { .footprint($0) } ?? .circle(center: vectors[i], radiusMeters: clamped[i].radiusMeters)
                }) : nil
        let registersFootprints = hasFootprints && (approachRadiusMeters != nil || footprintCushionMeters > 0)
        let registersSmall = approachRadiusMeters.map { approach in clamped.contains { $0.footprint == nil && $0.radiusMeters < approach } }
        if registersFootprints || registersSmall == true {
            // The planning places: circles only, each footprint by its widened cap.
            var registered = clamped
            for i in registered.indices where registered[i].footprint != nil {
                registered[i].footprint = nil
                registered[i].radiusMeters = min(
                    maxRegionRadiusMeters, max(approachRadiusMeters ?? 0, registered[i].radiusMeters + footprintCushionMeters))
            }
            self.approach = ApproachCatalog(
                catalog: try PlaceCatalog(
                    places: registered, minFenceRadiusMeters: max(minFenceRadiusMeters, approachRadiusMeters ?? 0),
                    maxRegionRadiusMeters: maxRegionRadiusMeters,
                    refreshIdentifierPrefix: refreshIdentifierPrefix, version: version))
        } else {
            self.approach = nil
        }
    }

    /// The same places, version and radius range with approach regions of `meters` (nil: none).
    ///
    /// - Throws: `CatalogError.invalidRadiusRange` for an approach radius that is not finite,
    ///   > 0 and at most `maxRegionRadiusMeters`.
    public func withApproachRadius(_ meters: Double?) throws(CatalogError) -> PlaceCatalog {
        try withApproach(radiusMeters: meters, footprintCushionMeters: footprintCushionMeters)
    }

    /// The same places, version and radius range with approach regions of `radiusMeters` (nil:
    /// none) and footprints registered by their enclosing cap widened by `footprintCushionMeters`.
    ///
    /// - Throws: `CatalogError.invalidRadiusRange` for an approach radius that is not finite,
    ///   > 0 and at most `maxRegionRadiusMeters`, or a cushion not finite and ≥ 0.
    public func withApproach(radiusMeters: Double?, footprintCushionMeters: Double) throws(CatalogError) -> PlaceCatalog {
        try PlaceCatalog(
            places: places, minFenceRadiusMeters: minFenceRadiusMeters, maxRegionRadiusMeters: maxRegionRadiusMeters,
            refreshIdentifierPrefix: refreshIdentifierPrefix, version: version, approachRadiusMeters: radiusMeters,
            footprintCushionMeters: footprintCushionMeters)
    }

    /// Whether the place at `position` is registered by an approach region (`planning`) rather
    /// than by its own fence, so that only a cue comes from the platform and the visit is decided
    /// in-app: every footprint, and every circle smaller than the approach radius.
    public func registersByApproach(_ position: Int) -> Bool {
        if places[position].footprint != nil { return true }
        guard let approach else { return false }
        return approach.catalog.radiiMeters[position] > radiiMeters[position]
    }

    /// Every place whose fence edge is within `meters` of `point`, exactly for footprints as for
    /// circles, nearest first (ties as `RankingKey`).
    public func placesWithin(_ meters: Double, of point: UnitVector) -> [Neighbor] {
        var buffer = NeighborBuffer()
        guard let footprintIndex else {
            index.within(meters, of: point, measuredTo: .edge, into: &buffer)
            return buffer.neighbors
        }
        var found: [Neighbor] = []
        footprintIndex.within(meters, of: point, into: &buffer, results: &found)
        return found
    }

    /// The signed distance from `point` to the fence edge of the place at `position`, meters,
    /// negative inside: exact for a footprint as for a circle.
    public func edgeDistanceMeters(of position: Int, to point: UnitVector) -> Double {
        let circle = RankingKey.edgeMeters(squaredChord: vectors[position].squaredChord(to: point), radiusMeters: radiiMeters[position])
        return footprintIndex?.edgeDistanceMeters(of: position, to: point, bound: circle) ?? circle
    }

    /// Number of places.
    public var count: Int { places.count }

    /// The position of the place with `id` in `places`, if any.
    public func position(of id: String) -> Int? { positionsByID[id] }

    /// The place with `id`, if any.
    public subscript(id id: String) -> Place? { positionsByID[id].map { places[$0] } }
}

/// The planning catalog of a catalog with approach regions, shared by its copies.
private final class ApproachCatalog: Sendable {
    let catalog: PlaceCatalog
    init(catalog: PlaceCatalog) { self.catalog = catalog }
}

/// A radius the catalog moved into the platform's range.
public struct RadiusClamp: Hashable, Sendable {
    /// The place's id (canonical form).
    public var id: String
    /// Position in the input array.
    public var position: Int
    /// The radius the input asked for, meters.
    public var requestedMeters: Double
    /// The radius the catalog uses: the requested one clamped into `minFenceRadiusMeters...maxRegionRadiusMeters`.
    public var clampedMeters: Double

    /// Records one clamp.
    public init(id: String, position: Int, requestedMeters: Double, clampedMeters: Double) {
        self.id = id
        self.position = position
        self.requestedMeters = requestedMeters
        self.clampedMeters = clampedMeters
    }
}

/// Why places do not make a catalog. Positions are 0-based indices into the input array.
public enum CatalogError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No places were given.
    case empty
    /// The place at `position` has an empty id.
    case emptyID(position: Int)
    /// An id longer than `Identifiers.maximumBytes` UTF-8 bytes.
    case longID(String, position: Int, bytes: Int)
    /// The id at `position` was already used at `firstPosition` (after canonicalization).
    case duplicateID(String, firstPosition: Int, position: Int)
    /// The id at `position` starts with the refresh-identifier `prefix`, which is reserved.
    case reservedID(String, position: Int, prefix: String)
    /// The place at `position` has a radius, in meters, that is not finite and > 0.
    case invalidRadius(String, position: Int, radiusMeters: Double)
    /// The clamp range in meters is unusable: not finite, `min` ≤ 0, or `min` > `max`.
    case invalidRadiusRange(min: Double, max: Double)
    /// The footprint at `position` is enclosed by no circle the platform accepts: its enclosing
    /// cap's radius, meters, exceeds `maxRegionRadiusMeters`.
    case footprintTooLarge(String, position: Int, radiusMeters: Double)
    /// The refresh-identifier prefix is empty (every id would start with it).
    case emptyRefreshPrefix

    /// One line naming the place (`#position`, 0-based) and the rule it breaks.
    public var description: String {
        switch self {
        case .empty: "the catalog has no places"
        case .emptyID(let position): "place #\(position) has an empty id"
        case .longID(let id, let position, let bytes):
            "place #\(position) id '\(id.prefix(32))…' is \(bytes) bytes long; at most \(Identifiers.maximumBytes)"
        case .duplicateID(let id, let first, let position): "duplicate id '\(id)' at place #\(position) (first at #\(first))"
        case .reservedID(let id, let position, let prefix): "place #\(position) id '\(id)' starts with the refresh prefix '\(prefix)'"
        case .invalidRadius(let id, let position, let radius): "place #\(position) '\(id)' has radius \(radius); it must be finite and > 0"
        case .invalidRadiusRange(let min, let max): "invalid radius range \(min)...\(max)"
        case .footprintTooLarge(let id, let position, let radius):
            "place #\(position) '\(id)' has a footprint whose enclosing circle's radius, \(Int(radius.rounded(.up))) m, exceeds the largest region's"
        case .emptyRefreshPrefix: "the refresh identifier prefix is empty"
        }
    }
}
