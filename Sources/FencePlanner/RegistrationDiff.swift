import Geodesy

/// What the host must change at the platform to go from the previous selection to a new one.
///
/// Only differences appear: a place kept with the same definition is in neither list; a place
/// whose center, radius or transitions changed is stopped and started again. Apply
/// `operations` in order — refresh region first, all stops before any start — and the number of
/// registered regions never exceeds `limit − headroom`, even in between.
public struct RegistrationDiff: Hashable, Sendable, Codable {
    /// Places to stop monitoring, in the previous selection's order.
    public var stop: [Fence]
    /// Places to start monitoring, nearest first.
    public var start: [Fence]
    /// The previous refresh region's identifier, to stop (nil if there was none).
    public var stopRefresh: String?
    /// The new refresh region, to start (nil when the whole catalog is monitored).
    public var startRefresh: RefreshRegion?
    /// Ids of started places whose fence already contains the fix: no crossing will fire for
    /// them, so the host must ask the platform for their state (or treat them as arrivals).
    public var insideAtStart: [String]

    /// The diff from `previous` fences and refresh region to `selection`.
    ///
    /// - Parameters:
    ///   - previous: the fences monitored until now, in the previous selection's order.
    ///   - previousPositions: the previous fences' positions in the catalog the selection was made
    ///     from, when the caller knows them (a rotator does): then kept places are found by
    ///     position, without comparing strings. They must be the positions of exactly those
    ///     fences, or −1 for a fence that is not in that catalog with its definition (it is stopped).
    ///   - previousRefresh: the refresh region monitored until now (nil if there was none).
    ///   - selection: the new selection.
    public init(from previous: [Fence], previousPositions: [Int]? = nil, previousRefresh: RefreshRegion?, to selection: Selection) {
        if let previousPositions, previousPositions.count == previous.count {
            // A few dozen positions on each side: plain loops, no intermediate arrays.
            let monitored = selection.monitored
            stop = []
            for (fence, position) in zip(previous, previousPositions) where !monitored.contains(where: { $0.position == position }) {
                stop.append(fence)
            }
            start = []
            insideAtStart = []
            for place in monitored where !previousPositions.contains(place.position) {
                start.append(place.fence)
                if place.containsFix { insideAtStart.append(place.fence.id) }
            }
            stopRefresh = previousRefresh?.id
            startRefresh = selection.refresh
            return
        }
        let changes = Self.changes(from: previous, to: selection.monitored.map(\.fence))
        stop = changes.stop
        start = changes.start.map { selection.monitored[$0].fence }
        insideAtStart = changes.start.filter { selection.monitored[$0].containsFix }.map { selection.monitored[$0].fence.id }
        stopRefresh = previousRefresh?.id
        startRefresh = selection.refresh
    }

    /// The one registration diff every host applies, to place fences and refresh regions alike:
    /// the regions of `previous` that `next` does not hold with an identical definition (to stop,
    /// in `previous`'s order), and the indices in `next` of the regions `previous` does not hold
    /// (to start, in `next`'s order). A region kept with the same definition is in neither.
    ///
    /// - Complexity: O(p × n) comparisons for p + n ≤ 128 regions (a few dozen: linear search
    ///   is cheaper than hashing there), O(p + n) hashes beyond.
    @inlinable package static func changes<Region: Hashable>(from previous: [Region], to next: [Region]) -> (stop: [Region], start: [Int]) {
        if previous.count + next.count <= 128 {
            return (previous.filter { !next.contains($0) }, next.indices.filter { !previous.contains(next[$0]) })
        }
        let previousSet = Set(previous), nextSet = Set(next)
        return (previous.filter { !nextSet.contains($0) }, next.indices.filter { !previousSet.contains(next[$0]) })
    }

    /// The platform calls in a safe order: stop the old refresh region, stop places, start the
    /// new refresh region, start places.
    public var operations: [RegistrationOperation] {
        var operations: [RegistrationOperation] = []
        if let stopRefresh { operations.append(.stopRefresh(stopRefresh)) }
        operations += stop.map(RegistrationOperation.stop)
        if let startRefresh { operations.append(.startRefresh(startRefresh)) }
        operations += start.map(RegistrationOperation.start)
        return operations
    }
}

/// One platform call of a `RegistrationDiff`.
public enum RegistrationOperation: Hashable, Sendable {
    /// Stop monitoring the refresh region with this identifier.
    case stopRefresh(String)
    /// Stop monitoring this place's region.
    case stop(Fence)
    /// Start monitoring this refresh region (register it at
    /// `RefreshRegion.registrationRadiusMeters(minimum:)`).
    case startRefresh(RefreshRegion)
    /// Start monitoring this place's region.
    case start(Fence)
}

/// The JSON form of an operation, with snake_case keys and an `op` tag:
/// `{"op":"stop_refresh","id":ID}`, `{"op":"stop","fence":FENCE}`,
/// `{"op":"start_refresh","region":REGION}`, `{"op":"start","fence":FENCE}`, where a fence is
/// `{"id","center":{"lat","lon"},"radius_m","transitions"}` and a refresh region
/// `{"id","center","radius_m"}` (docs/formats.md).
extension RegistrationOperation: Codable {
    private enum CodingKeys: String, CodingKey {
        case op, id, fence, region
    }

    /// Decodes one operation in the JSON form above.
    ///
    /// - Throws: `DecodingError` when `op` is missing or unknown, a key is missing, the refresh id is
    ///   empty, or the fence or region does not decode (see `Fence.init(from:)`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(String.self, forKey: .op) {
        case "stop_refresh":
            let id = try container.decode(String.self, forKey: .id)
            guard !id.isEmpty else {
                throw DecodingError.dataCorruptedError(forKey: .id, in: container, debugDescription: "empty refresh id")
            }
            self = .stopRefresh(id)
        case "stop": self = .stop(try container.decode(Fence.self, forKey: .fence))
        case "start_refresh": self = .startRefresh(try container.decode(RefreshRegion.self, forKey: .region))
        case "start": self = .start(try container.decode(Fence.self, forKey: .fence))
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: .op, in: container, debugDescription: "unknown operation '\(other)' (stop_refresh, stop, start_refresh, start)")
        }
    }

    /// Encodes the operation in the JSON form above.
    ///
    /// - Throws: whatever error the encoder throws; the standard JSON encoder does not fail here.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .stopRefresh(let id):
            try container.encode("stop_refresh", forKey: .op)
            try container.encode(id, forKey: .id)
        case .stop(let fence):
            try container.encode("stop", forKey: .op)
            try container.encode(fence, forKey: .fence)
        case .startRefresh(let region):
            try container.encode("start_refresh", forKey: .op)
            try container.encode(region, forKey: .region)
        case .start(let fence):
            try container.encode("start", forKey: .op)
            try container.encode(fence, forKey: .fence)
        }
    }
}

extension RegistrationOperation: CustomStringConvertible {
    /// One line a person reads: `stop refresh-3`, `stop shop7`,
    /// `start refresh-4 at 46.0500000, 14.5000000 r 815.3 m`,
    /// `start shop7 at 46.0500993, 14.5021906 r 100.0 m (both)`.
    public var description: String {
        switch self {
        case .stopRefresh(let id): "stop \(id)"
        case .stop(let fence): "stop \(fence.id)"
        case .startRefresh(let region): "start \(region.id) at \(Self.position(region.center)) r \(Self.meters(region.radiusMeters)) m"
        case .start(let fence):
            "start \(fence.id) at \(Self.position(fence.center)) r \(Self.meters(fence.radiusMeters)) m (\(fence.transitions.rawValue))"
        }
    }

    static func position(_ coordinate: Coordinate) -> String {
        "\(fixed(coordinate.latitude, 7)), \(fixed(coordinate.longitude, 7))"
    }

    static func meters(_ value: Double) -> String { fixed(value, 1) }

    /// `value` with `decimals` digits after the point, rounded half away from zero (no
    /// Foundation: the module does not import it).
    static func fixed(_ value: Double, _ decimals: Int) -> String {
        guard value.isFinite else { return "\(value)" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e15 else { return "\(value)" }
        let units = Int64(scaled)
        let whole = units / Int64(scale), fraction = units % Int64(scale)
        var digits = String(fraction)
        while digits.count < decimals { digits = "0" + digits }
        let sign = value < 0 && units != 0 ? "-" : ""
        return decimals == 0 ? "\(sign)\(whole)" : "\(sign)\(whole).\(digits)"
    }
}
