import EventEngine
import FencePlanner

/// The strategies `rotate simulate` can replay: rotate, the reference designs, and the platform's
/// own bound (`every-place`).
public enum StrategyKind: String, Hashable, Sendable, CaseIterable {
    case rotate
    case nearest19Floor50 = "nearest19-floor50"
    case nearest18SignificantChange = "nearest18-significant-change"
    case fixedTrigger = "fixed-trigger"
    case radarResponsive = "radar-responsive"
    case stationaryGeofence = "stationary-geofence"
    case everyPlace = "every-place"

    /// A fresh strategy of this kind: rotate with `configuration`, the reference designs with its
    /// region limit.
    public func make(
        catalog: PlaceCatalog, configuration: RotationConfiguration, visitBudget: VisitBudget = .balanced
    ) throws(ConfigurationError) -> any MonitoringStrategy {
        switch self {
        case .rotate:
            try RotateStrategy(catalog: catalog, configuration: configuration, settings: Self.rotateSettings(visitBudget))
        case .nearest19Floor50: NearestWithRefreshStrategy(catalog: catalog, regionLimit: configuration.limit)
        case .nearest18SignificantChange: NearestSignificantChangeStrategy(catalog: catalog, regionLimit: configuration.limit)
        case .fixedTrigger: FixedTriggerStrategy(catalog: catalog, regionLimit: configuration.limit)
        case .radarResponsive: RadarResponsiveStrategy(catalog: catalog)
        case .stationaryGeofence: StationaryGeofenceStrategy(catalog: catalog, regionLimit: configuration.limit)
        case .everyPlace: EveryPlaceStrategy(catalog: catalog)
        }
    }

    /// rotate's engine settings in the lab: the defaults, with store visits reported within
    /// `budget`.
    static func rotateSettings(_ budget: VisitBudget = .balanced) -> FenceMonitor.Settings {
        var settings = FenceMonitor.Settings()
        settings.visits = VisitSettings(budget: budget)
        return settings
    }

    /// Whether this design's known flaw is entering fences it is not monitoring (the three
    /// nearest-places designs); the designs modelled on SDKs' stop behaviour pay in battery or
    /// in late, coarse updates instead, and register no place fences (`radar-responsive`) or
    /// keep GNSS on while moving (`stationary-geofence`).
    public var flawIsUnmonitoredFences: Bool {
        switch self {
        case .nearest19Floor50, .nearest18SignificantChange, .fixedTrigger: true
        case .rotate, .everyPlace, .radarResponsive, .stationaryGeofence: false
        }
    }

    /// Whether this is one of the reference designs (what a developer would build instead of
    /// rotate, with their known flaws), not rotate or the platform's bound.
    public var isReferenceDesign: Bool {
        switch self {
        case .rotate, .everyPlace: false
        case .nearest19Floor50, .nearest18SignificantChange, .fixedTrigger, .radarResponsive, .stationaryGeofence: true
        }
    }
}
