import EventEngine
import FencePlanner
import PlatformFacts

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

    /// A fresh strategy of this kind: rotate with `configuration` and its visits within
    /// `visitBudget`, or an average of `budgetMilliwatts` charged at `energy`'s costs; the
    /// reference designs with its region limit.
    public func make(
        catalog: PlaceCatalog, configuration: RotationConfiguration, visitBudget: VisitBudget = .balanced,
        budgetMilliwatts: Double? = nil, energy: PlatformProfile.Energy = .iOS
    ) throws(ConfigurationError) -> any MonitoringStrategy {
        switch self {
        case .rotate:
            var settings = Self.rotateSettings(visitBudget)
            if let budgetMilliwatts { settings.visits = VisitSettings(budgetMilliwatts: budgetMilliwatts, energy: energy) }
            return try RotateStrategy(catalog: catalog, configuration: configuration, settings: settings)
        case .nearest19Floor50: return NearestWithRefreshStrategy(catalog: catalog, regionLimit: configuration.limit)
        case .nearest18SignificantChange: return NearestSignificantChangeStrategy(catalog: catalog, regionLimit: configuration.limit)
        case .fixedTrigger: return FixedTriggerStrategy(catalog: catalog, regionLimit: configuration.limit)
        case .radarResponsive: return RadarResponsiveStrategy(catalog: catalog)
        case .stationaryGeofence: return StationaryGeofenceStrategy(catalog: catalog, regionLimit: configuration.limit)
        case .everyPlace: return EveryPlaceStrategy(catalog: catalog)
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
