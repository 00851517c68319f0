import SpatialIndex

/// What the planner decides at one fix, by catalog position: the monitored places in ranking
/// order with their fence-edge distances, the refresh radius and the guarantee.
///
/// A `Selection` is this plus the places' registrations and the refresh region's identity. A
/// caller that reselects often (a rotation along a walk, a service holding many devices) can
/// decide into one reused value and diff positions with `PositionDiff`, copying no `Fence` and
/// allocating nothing once the arrays have grown.
public struct PlanDecision: Hashable, Sendable {
    /// Catalog positions of the monitored places, nearest fence edge first (ties: nearer center,
    /// then id).
    public internal(set) var positions: [Int] = []
    /// Fence-edge distance from the fix to each monitored place, in `positions` order (meters,
    /// negative inside).
    public internal(set) var edgesMeters: [Double] = []
    /// Fence-edge distance to the nearest place not monitored (nil when all are).
    public internal(set) var nextUnmonitoredEdgeMeters: Double?
    /// Radius of the refresh region centered on the fix (≥ 0), or nil when the whole catalog fits
    /// in the place slots.
    public internal(set) var refreshRadiusMeters: Double?
    /// How far the decision's promise holds (as `Selection.guarantee`).
    public internal(set) var guarantee: Guarantee = .exact
    /// Whether the fix was accurate enough to be trusted.
    public internal(set) var trustedFix = true

    /// An empty decision, to be filled by `RotationPlanner.decide(at:incumbentPositions:warmStart:into:)`.
    public init() {}

    /// Makes the monitored places `neighbors` (index = catalog position), in their order.
    ///
    /// One uniqueness check per array instead of one per appended element: this runs at every
    /// reselection, where a warm decision's own work is only a short re-ranking.
    mutating func setMonitored(_ neighbors: ArraySlice<Neighbor>) {
        let count = neighbors.count
        positions.resize(to: count, filler: 0)
        edgesMeters.resize(to: count, filler: 0)
        positions.withUnsafeMutableBufferPointer { positions in
            edgesMeters.withUnsafeMutableBufferPointer { edges in
                var i = 0
                for neighbor in neighbors {
                    positions[i] = neighbor.index
                    edges[i] = neighbor.distanceMeters
                    i += 1
                }
            }
        }
    }
}
