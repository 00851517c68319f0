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
    /// - Parameter previousPositions: the previous fences' positions in the catalog the selection
    ///   was made from, when the caller knows them (a rotator does): then kept places are found by
    ///   position, without comparing strings. They must be the positions of exactly those fences,
    ///   or −1 for a fence that is not in that catalog with its definition (it is stopped).
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
        let nextFences = selection.monitored.map(\.fence)
        // A fence is kept when the other side holds an identical definition. Selections hold a few
        // dozen fences: linear search is cheaper than hashing ids there; large ones use sets.
        let inNext: (Fence) -> Bool, inPrevious: (Fence) -> Bool
        if previous.count + nextFences.count <= 128 {
            inNext = { nextFences.contains($0) }
            inPrevious = { previous.contains($0) }
        } else {
            let previousSet = Set(previous), nextSet = Set(nextFences)
            inNext = { nextSet.contains($0) }
            inPrevious = { previousSet.contains($0) }
        }
        stop = previous.filter { !inNext($0) }
        let started = selection.monitored.filter { !inPrevious($0.fence) }
        start = started.map(\.fence)
        insideAtStart = started.filter(\.containsFix).map(\.fence.id)
        stopRefresh = previousRefresh?.id
        startRefresh = selection.refresh
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
    case stopRefresh(String)
    case stop(Fence)
    case startRefresh(RefreshRegion)
    case start(Fence)
}
