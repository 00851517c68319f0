import FencePlanner

/// The strategies `rotate simulate` can replay: rotate and the reference designs.
public enum StrategyKind: String, Hashable, Sendable, CaseIterable {
    case rotate
    case nearest19Floor50 = "nearest19-floor50"
    case nearest18SignificantChange = "nearest18-significant-change"
    case fixedTrigger = "fixed-trigger"

    /// A fresh strategy of this kind: rotate with `configuration`, the reference designs with its
    /// region limit.
    public func make(catalog: PlaceCatalog, configuration: RotationConfiguration) throws(ConfigurationError) -> any MonitoringStrategy {
        switch self {
        case .rotate: try RotateStrategy(catalog: catalog, configuration: configuration)
        case .nearest19Floor50: NearestWithRefreshStrategy(catalog: catalog, regionLimit: configuration.limit)
        case .nearest18SignificantChange: NearestSignificantChangeStrategy(catalog: catalog, regionLimit: configuration.limit)
        case .fixedTrigger: FixedTriggerStrategy(catalog: catalog, regionLimit: configuration.limit)
        }
    }
}
