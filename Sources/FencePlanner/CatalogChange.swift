import Geodesy

/// One edit of a catalog (see `PlaceCatalog.applying(_:)`).
public enum CatalogChange: Hashable, Sendable {
    /// A new place (its id must not be in the catalog).
    case add(Place)
    /// The place with this id goes.
    case remove(id: String)
    /// The place with this id gets a new center (a circle only: a footprint is replaced by
    /// `remove` and `add`).
    case move(id: String, to: Coordinate)
    /// The place with this id gets a new radius (clamped as the catalog clamps; a circle only).
    case setRadius(id: String, meters: Double)
    /// The place with this id reports other crossings.
    case setTransitions(id: String, Transitions)

    /// The id of the place the change is about.
    public var id: String {
        switch self {
        case .add(let place): place.id
        case .remove(let id), .move(let id, _), .setRadius(let id, _), .setTransitions(let id, _): id
        }
    }
}

/// Why a change set does not apply. `index` is the change's position in the set.
public enum CatalogChangeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The change at position `index` (0-based) names a place id the catalog does not hold at that
    /// point (never added, or removed by an earlier change of the set).
    case unknownID(String, index: Int)
    /// The `add` at position `index` (0-based) names an id the catalog already holds at that point.
    case duplicateID(String, index: Int)
    /// The `move` or `setRadius` at position `index` (0-based) names a place with a footprint,
    /// whose center and radius follow from its polygon.
    case footprintReshaped(String, index: Int)
    /// The resulting places do not make a catalog (an invalid radius, an empty id, …).
    case invalidCatalog(CatalogError)

    /// One line naming the change's position and id, for example `change #2: no place 'shop9' in the catalog`.
    public var description: String {
        switch self {
        case .unknownID(let id, let index): "change #\(index): no place '\(id)' in the catalog"
        case .duplicateID(let id, let index): "change #\(index): a place '\(id)' is already in the catalog"
        case .footprintReshaped(let id, let index):
            "change #\(index): '\(id)' has a footprint; its center and radius follow from the polygon (remove it and add the new shape)"
        case .invalidCatalog(let error): "the changed catalog is invalid: \(error)"
        }
    }
}

extension PlaceCatalog {
    /// The next version: this catalog's places with `changes` applied in order, as a new catalog
    /// with `version + 1` (same radius range and refresh prefix).
    ///
    /// `self` is an immutable value and stays valid: readers of this version go on using it while
    /// the next one is built, and each device moves over when it is next planned (see
    /// `FenceRotator.init(catalog:configuration:state:)`).
    ///
    /// Changes apply in order, so a set may remove a place and add it back, or move a place it
    /// added; the new catalog stores added ids in NFC, as `init(places:)` does.
    ///
    /// - Throws: `CatalogChangeError.unknownID` when a change other than `add` names an id not in the
    ///   catalog at that point, `.duplicateID` when an `add` names one that is,
    ///   `.footprintReshaped` for a `move` or `setRadius` of a footprint, and
    ///   `.invalidCatalog` when the resulting places do not make a catalog (for example every place
    ///   removed, or an id over `Identifiers.maximumBytes`). Nothing is applied on a throw.
    /// - Complexity: O((n + c) log n) for n places and c changes (the index is rebuilt).
    public func applying(_ changes: [CatalogChange]) throws(CatalogChangeError) -> PlaceCatalog {
        var list = places
        var positions: [String: Int] = [:]
        positions.reserveCapacity(list.count + changes.count)
        for (i, place) in list.enumerated() { positions[place.id] = i }
        var removed = Set<Int>()
        for (index, change) in changes.enumerated() {
            if case .add(let place) = change {
                guard positions[place.id] == nil else { throw .duplicateID(place.id, index: index) }
                positions[place.id] = list.count
                list.append(place)
                continue
            }
            guard let position = positions[change.id] else { throw .unknownID(change.id, index: index) }
            switch change {
            case .move, .setRadius: if list[position].footprint != nil { throw .footprintReshaped(change.id, index: index) }
            default: break
            }
            switch change {
            case .add: break
            case .remove:
                removed.insert(position)
                positions[change.id] = nil
            case .move(_, let coordinate): list[position].coordinate = coordinate
            case .setRadius(_, let meters): list[position].radiusMeters = meters
            case .setTransitions(_, let transitions): list[position].transitions = transitions
            }
        }
        let kept = removed.isEmpty ? list : list.enumerated().filter { !removed.contains($0.offset) }.map(\.element)
        do {
            return try PlaceCatalog(
                places: kept, minFenceRadiusMeters: minFenceRadiusMeters, maxRegionRadiusMeters: maxRegionRadiusMeters,
                refreshIdentifierPrefix: refreshIdentifierPrefix, version: version + 1, approachRadiusMeters: approachRadiusMeters,
                footprintCushionMeters: footprintCushionMeters)
        } catch {
            throw .invalidCatalog(error)
        }
    }
}

/// The JSON form of a change, the sidecar's change-set item (docs/sidecar.md): an `op` tag and
/// snake_case keys. `{"op":"add","id","lat","lon","radius_m","name"?,"transitions"?}` (transitions
/// default to `both`), `{"op":"remove","id"}`, `{"op":"move","id","lat","lon"}`,
/// `{"op":"radius","id","radius_m"}`, `{"op":"transitions","id","transitions"}`. Decoding
/// refuses an empty id, an invalid position and a radius that is not finite and positive.
extension CatalogChange: Codable {
    private enum CodingKeys: String, CodingKey {
        case op, id, lat, lon
        case radiusMeters = "radius_m"
        case name, transitions
    }

    /// Decodes one change-set item in the JSON form above.
    ///
    /// - Throws: `DecodingError` when `op` or `id` is missing, `op` is unknown, the id is empty, the
    ///   position is not a valid coordinate, or the radius is not finite and > 0.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let op = try container.decode(String.self, forKey: .op)
        let id = try container.decode(String.self, forKey: .id)
        guard !id.isEmpty else { throw DecodingError.dataCorruptedError(forKey: .id, in: container, debugDescription: "empty place id") }
        func position() throws -> Coordinate {
            let lat = try container.decode(Double.self, forKey: .lat), lon = try container.decode(Double.self, forKey: .lon)
            do {
                return try Coordinate(latitude: lat, longitude: lon)
            } catch {
                throw DecodingError.dataCorruptedError(forKey: .lat, in: container, debugDescription: "\(error)")
            }
        }
        func radius() throws -> Double {
            let meters = try container.decode(Double.self, forKey: .radiusMeters)
            guard meters.isFinite, meters > 0 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .radiusMeters, in: container, debugDescription: "radius must be finite and > 0")
            }
            return meters
        }
        switch op {
        case "add":
            let transitions = try container.decodeIfPresent(Transitions.self, forKey: .transitions) ?? .both
            let name = try container.decodeIfPresent(String.self, forKey: .name)
            self = .add(Place(id: id, coordinate: try position(), radiusMeters: try radius(), name: name, transitions: transitions))
        case "remove": self = .remove(id: id)
        case "move": self = .move(id: id, to: try position())
        case "radius": self = .setRadius(id: id, meters: try radius())
        case "transitions": self = .setTransitions(id: id, try container.decode(Transitions.self, forKey: .transitions))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .op, in: container, debugDescription: "unknown op '\(op)' (add, remove, move, radius, transitions)")
        }
    }

    /// Encodes the change in the JSON form above (an `add` always writes its transitions).
    ///
    /// - Throws: whatever error the encoder throws; the standard JSON encoder does not fail here.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        switch self {
        case .add(let place):
            try container.encode("add", forKey: .op)
            try container.encode(place.coordinate.latitude, forKey: .lat)
            try container.encode(place.coordinate.longitude, forKey: .lon)
            try container.encode(place.radiusMeters, forKey: .radiusMeters)
            try container.encodeIfPresent(place.name, forKey: .name)
            try container.encode(place.transitions, forKey: .transitions)
        case .remove:
            try container.encode("remove", forKey: .op)
        case .move(_, let coordinate):
            try container.encode("move", forKey: .op)
            try container.encode(coordinate.latitude, forKey: .lat)
            try container.encode(coordinate.longitude, forKey: .lon)
        case .setRadius(_, let meters):
            try container.encode("radius", forKey: .op)
            try container.encode(meters, forKey: .radiusMeters)
        case .setTransitions(_, let transitions):
            try container.encode("transitions", forKey: .op)
            try container.encode(transitions, forKey: .transitions)
        }
    }
}

extension CatalogChange: CustomStringConvertible {
    /// One line a person reads: `add shop9 at 46.0500000, 14.5000000 r 80.0 m (both)`,
    /// `remove shop9`, `move shop9 to 46.0500000, 14.5000000`, `radius shop9 120.0 m`,
    /// `transitions shop9 entry`.
    public var description: String {
        switch self {
        case .add(let place):
            "add \(place.id) at \(RegistrationOperation.position(place.coordinate)) r "
                + "\(RegistrationOperation.meters(place.radiusMeters)) m (\(place.transitions.rawValue))"
        case .remove(let id): "remove \(id)"
        case .move(let id, let to): "move \(id) to \(RegistrationOperation.position(to))"
        case .setRadius(let id, let meters): "radius \(id) \(RegistrationOperation.meters(meters)) m"
        case .setTransitions(let id, let transitions): "transitions \(id) \(transitions.rawValue)"
        }
    }
}
