import FencePlanner

/// The planner alone as a `MonitoringStrategy`, for the missed-fence oracle: a rotator
/// (`FenceRotator`, or a deliberately flawed `FenceRotating`) decides what the phone monitors,
/// and every reselection is recorded with the walk sample it happened at.
///
/// While the selection is `exact` the app relies on the refresh region's exit and asks for no
/// fixes; the woken app's fix reselects. While `degraded` or `saturated`, or before a first
/// selection, it asks for every fix and hands each to the rotator (`update(with:)`), which
/// reselects when the fix leaves the refresh circle or the fallback distance.
struct PlannerStrategy<Rotator: FenceRotating>: MonitoringStrategy {
    var rotator: Rotator
    /// Every reselection, with the sample it happened at.
    private(set) var updates: [RecordedUpdate] = []
    private var sampleIndex = 0
    private var guarantee: Guarantee?

    init(rotator: Rotator) {
        self.rotator = rotator
    }

    var name: String { "planner" }

    var backgroundFixes: BackgroundFixes { guarantee == .exact ? .none : .continuous }

    var declaresSaturation: Bool {
        if case .saturated = guarantee { return true }
        return false
    }

    var guaranteeIsExact: Bool { guarantee == .exact }

    mutating func willHandleSample(_ index: Int) {
        sampleIndex = index
    }

    mutating func begin(at fix: Fix) -> MonitoredRegions {
        record(rotator.update(with: fix)) ?? MonitoredRegions(places: [], triggers: [])
    }

    mutating func triggerExited(_ id: String, at fix: Fix) -> MonitoredRegions? {
        record(rotator.reselect(at: fix))
    }

    mutating func received(_ fix: Fix) -> MonitoredRegions? {
        record(rotator.update(with: fix))
    }

    private mutating func record(_ update: RotationUpdate?) -> MonitoredRegions? {
        guard let update else { return nil }
        updates.append(RecordedUpdate(sampleIndex: sampleIndex, update: update))
        guarantee = update.selection.guarantee
        return MonitoredRegions(places: update.selection.fences, triggers: update.selection.refresh.map { [$0] } ?? [])
    }
}
