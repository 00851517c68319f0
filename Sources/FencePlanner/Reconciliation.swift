/// What to change at the platform so that it holds exactly the planned registrations, computed
/// from the identifiers the device reports as registered (`FenceRotator.reconcile(registered:)`).
///
/// A device may fail to apply a diff: a registration error, a lost response, the app killed
/// half-way. Reconciling against what it reports converges whatever happened before: applied in
/// full, the platform holds the planned places and refresh region; applied twice, the second
/// application changes nothing; lost or partly applied, the next report yields what is still
/// missing. Apply in order: `stop` (all of them), then `refresh`, then `start`; the number of
/// registered regions never exceeds the planned count.
public struct Reconciliation: Hashable, Sendable {
    /// Reported identifiers that are not planned (places no longer selected, stale refresh regions,
    /// identifiers this catalog does not know), sorted: stop them.
    public var stop: [String]
    /// Planned places the device did not report: start them, nearest first.
    public var start: [Fence]
    /// The planned refresh region, to register again whatever the report said (registering an
    /// identifier again replaces it, which also re-arms a region whose exit was swallowed); nil
    /// when nothing is planned or the whole catalog is monitored.
    public var refresh: RefreshRegion?

    /// Creates a reconciliation from its three parts (`FenceRotator.reconcile(registered:)` computes one).
    public init(stop: [String], start: [Fence], refresh: RefreshRegion?) {
        self.stop = stop
        self.start = start
        self.refresh = refresh
    }

    /// Whether the report already matched the plan (only the refresh region is re-armed).
    public var isInSync: Bool { stop.isEmpty && start.isEmpty }
}

extension FenceRotator {
    /// The registrations to change so that the platform holds exactly `state`'s places and refresh
    /// region, given the identifiers the device reports as registered now (places and refresh
    /// regions alike, in any order; repeats are ignored).
    ///
    /// Only identifiers are compared: a place registered under a planned identifier is taken to
    /// be the planned definition (the device reports no definitions).
    public func reconcile(registered identifiers: some Sequence<String>) -> Reconciliation {
        let reported = Set(identifiers)
        var planned = Set(state.monitored.map(\.id))
        if let refresh = state.refresh { planned.insert(refresh.id) }
        return Reconciliation(
            stop: reported.subtracting(planned).sorted(),
            start: state.monitored.filter { !reported.contains($0.id) },
            refresh: state.refresh)
    }
}
