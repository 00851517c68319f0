import FencePlanner

/// What the oracle replays: anything that, fed fixes, decides what is monitored. `FenceRotator`
/// is the real one; tests plug in deliberately flawed ones to show the oracle catches them.
public protocol FenceRotating {
    /// Feeds a fix; an update when it reselects (see `FenceRotator.update(with:)`).
    mutating func update(with fix: Fix) -> RotationUpdate?
    /// Reselects now (the platform reported a refresh exit).
    mutating func reselect(at fix: Fix) -> RotationUpdate
    /// The registered refresh region, if any.
    var currentRefresh: RefreshRegion? { get }
    /// Whether a selection was made yet.
    var hasSelection: Bool { get }
}

extension FenceRotator: FenceRotating {
    public var currentRefresh: RefreshRegion? { state.refresh }
    public var hasSelection: Bool { state.reselections > 0 }
}
