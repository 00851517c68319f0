import FencePlanner

/// The strategies `rotate simulate` can replay: rotate, the reference designs, and the platform's
/// own bound (`every-place`).
public enum StrategyKind: String, Hashable, Sendable, CaseIterable {
    case rotate
    case nearest19Floor50 = "nearest19-floor50"
    case nearest18SignificantChange = "nearest18-significant-change"
    case fixedTrigger = "fixed-trigger"
    case everyPlace = "every-place"

    /// A fresh strategy of this kind: rotate with `configuration`, the reference designs with its
    /// region limit.
    public func make(catalog: PlaceCatalog, configuration: RotationConfiguration) throws(ConfigurationError) -> any MonitoringStrategy {
        switch self {
        case .rotate: try RotateStrategy(catalog: catalog, configuration: configuration)
        case .nearest19Floor50: NearestWithRefreshStrategy(catalog: catalog, regionLimit: configuration.limit)
        case .nearest18SignificantChange: NearestSignificantChangeStrategy(catalog: catalog, regionLimit: configuration.limit)
        case .fixedTrigger: FixedTriggerStrategy(catalog: catalog, regionLimit: configuration.limit)
        case .everyPlace: EveryPlaceStrategy(catalog: catalog)
        }
    }

    /// Whether this is one of the reference designs (what a developer would build instead of
    /// rotate, with their known flaws), not rotate or the platform's bound.
    public var isReferenceDesign: Bool {
        switch self {
        case .rotate, .everyPlace: false
        case .nearest19Floor50, .nearest18SignificantChange, .fixedTrigger: true
        }
    }
}
