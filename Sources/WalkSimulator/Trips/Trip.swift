import Geodesy

/// A trip with what truly happened on it: the walk (true path and fixes), the stops at places of
/// the catalog, and the stops near places that are not visits (negatives).
public struct Trip: Hashable, Sendable {
    public var walk: Walk
    /// How the traveller moved between stops.
    public var mode: TravelMode
    /// Every stop at a place of the catalog, in time order, short ones included (the stop oracle
    /// counts those of at least `StopOracle.minimumStopSeconds`).
    public var stops: [TrueStop]
    /// Stops that are not visits: a bus stop or a red light just outside a fence, a stop at a shop
    /// that is not in the catalog next to one that is.
    public var decoys: [DecoyStop]

    public init(walk: Walk, mode: TravelMode, stops: [TrueStop], decoys: [DecoyStop] = []) {
        self.walk = walk
        self.mode = mode
        self.stops = stops
        self.decoys = decoys
    }

    /// Whether the traveller is inside a building at `timeSeconds` (within a stop's indoor time).
    public func isIndoors(atSeconds timeSeconds: Double) -> Bool {
        stops.contains { $0.indoorSeconds?.contains(timeSeconds) ?? false }
    }
}

/// How a trip moves between stops.
public enum TravelMode: String, Hashable, Sendable, CaseIterable, Codable {
    case walking
    case driving
}

/// One stop at a place of the catalog: what a user would call a store visit.
public struct TrueStop: Hashable, Sendable {
    public var placeID: String
    /// The kind of place (sets the dwell time); nil for a labelled stop of a recorded trip.
    public var kind: StopKind?
    /// When the traveller stopped (parked, or reached the door on foot), seconds on the walk's clock.
    public var arrivalSeconds: Double
    /// When the traveller moved on, seconds.
    public var departureSeconds: Double
    /// When the traveller was inside the building, if at all (the phone then has no GNSS fix).
    public var indoorSeconds: ClosedRange<Double>?

    public init(
        placeID: String, kind: StopKind? = nil, arrivalSeconds: Double, departureSeconds: Double, indoorSeconds: ClosedRange<Double>? = nil
    ) {
        self.placeID = placeID
        self.kind = kind
        self.arrivalSeconds = arrivalSeconds
        self.departureSeconds = departureSeconds
        self.indoorSeconds = indoorSeconds
    }

    public var dwellSeconds: Double { departureSeconds - arrivalSeconds }
}

/// A stop that is not a visit to a place of the catalog, made near one.
public struct DecoyStop: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable, CaseIterable, Codable {
        /// Waiting for a bus on foot, just outside a shop's fence.
        case busStop = "bus-stop"
        /// Waiting at a red light in a car, just outside a fence (a fuel station's, say).
        case redLight = "red-light"
        /// A stop at a shop that is not in the catalog, next to one that is.
        case neighbourShop = "neighbour-shop"
    }

    public var kind: Kind
    /// The place of the catalog it is next to.
    public var nearPlaceID: String
    public var coordinate: Coordinate
    public var arrivalSeconds: Double
    public var departureSeconds: Double

    public init(kind: Kind, nearPlaceID: String, coordinate: Coordinate, arrivalSeconds: Double, departureSeconds: Double) {
        self.kind = kind
        self.nearPlaceID = nearPlaceID
        self.coordinate = coordinate
        self.arrivalSeconds = arrivalSeconds
        self.departureSeconds = departureSeconds
    }
}
