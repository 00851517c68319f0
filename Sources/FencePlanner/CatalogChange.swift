import Geodesy

/// One edit of a catalog (see `PlaceCatalog.applying(_:)`).
public enum CatalogChange: Hashable, Sendable {
    /// A new place (its id must not be in the catalog).
    case add(Place)
    /// The place with this id goes.
    case remove(id: String)
    /// The place with this id gets a new center.
    case move(id: String, to: Coordinate)
    /// The place with this id gets a new radius (clamped as the catalog clamps).
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
    case unknownID(String, index: Int)
    case duplicateID(String, index: Int)
    /// The resulting places do not make a catalog (an invalid radius, an empty id, …).
    case invalidCatalog(CatalogError)

    public var description: String {
        switch self {
        case .unknownID(let id, let index): "change #\(index): no place '\(id)' in the catalog"
        case .duplicateID(let id, let index): "change #\(index): a place '\(id)' is already in the catalog"
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
                refreshIdentifierPrefix: refreshIdentifierPrefix, version: version + 1)
        } catch {
            throw .invalidCatalog(error)
        }
    }
}
