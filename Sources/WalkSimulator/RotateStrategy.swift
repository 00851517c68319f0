import FencePlanner

/// rotate's planner as a `MonitoringStrategy`: the rotator's selection (monitored places and the
/// refresh region) is what the phone monitors.
///
/// While the selection is `exact` the app relies on the refresh region's exit, and also asks for
/// significant-change updates (iOS; Android's background updates): the margin covers the
/// platform's 90th-percentile latency, not its tail (iOS up to 5 minutes, a walker's 540 m), and
/// a significant change that finds the device already outside the refresh circle reselects
/// (`FenceRotator.update(with:)`) before the late exit arrives. These updates use no GNSS. While
/// it is `degraded` or `saturated` no refresh circle protects every unmonitored fence, so the app
/// asks for continuous updates and reselects as it moves. With the whole catalog monitored it asks
/// for nothing.
public struct RotateStrategy: MonitoringStrategy {
    public private(set) var rotator: FenceRotator

    public init(catalog: PlaceCatalog, configuration: RotationConfiguration) throws(ConfigurationError) {
        rotator = try FenceRotator(catalog: catalog, configuration: configuration)
    }

    public var name: String { "rotate" }

    public var backgroundFixes: BackgroundFixes {
        guard let guarantee = rotator.state.guarantee else { return .continuous }
        guard guarantee == .exact else { return .continuous }
        // With the whole catalog monitored there is nothing to reselect.
        return rotator.state.refresh == nil ? .none : .significantChange
    }

    public var declaresSaturation: Bool {
        if case .saturated = rotator.state.guarantee { return true }
        return false
    }

    public mutating func begin(at fix: Fix) -> MonitoredRegions {
        guard let update = rotator.update(with: fix) else { return Self.regions(of: rotator.state) }
        return Self.regions(of: update.selection)
    }

    public mutating func triggerExited(_ id: String, at fix: Fix) -> MonitoredRegions? {
        Self.regions(of: rotator.reselect(at: fix).selection)
    }

    public mutating func received(_ fix: Fix) -> MonitoredRegions? {
        rotator.update(with: fix).map { Self.regions(of: $0.selection) }
    }

    static func regions(of selection: Selection) -> MonitoredRegions {
        MonitoredRegions(places: selection.fences, triggers: selection.refresh.map { [$0] } ?? [])
    }

    static func regions(of state: RotatorState) -> MonitoredRegions {
        MonitoredRegions(places: state.monitored, triggers: state.refresh.map { [$0] } ?? [])
    }
}
