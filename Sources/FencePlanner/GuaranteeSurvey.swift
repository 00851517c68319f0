import Geodesy

/// How a catalog and configuration fare over many positions: the share of selections that are
/// exact, degraded or saturated, and the refresh radii they get. Answers "how often will this
/// preset degrade in this city?" before shipping it.
public struct GuaranteeSurvey: Hashable, Sendable {
    /// Number of positions surveyed (one selection each).
    public var positions = 0
    /// Selections whose guarantee is `exact`.
    public var exact = 0
    /// Selections whose guarantee is `degraded`.
    public var degraded = 0
    /// Selections whose guarantee is `saturated`.
    public var saturated = 0
    /// Refresh radii of all selections, sorted ascending (meters).
    public var refreshRadii: [Double] = []

    /// Selects at every position (a fresh selection each, no incumbents) and tallies.
    ///
    /// - Throws: `ConfigurationError` when `configuration` is invalid (see
    ///   `RotationConfiguration.validated()`).
    public init(catalog: PlaceCatalog, configuration: RotationConfiguration, positions: [Coordinate]) throws(ConfigurationError) {
        var planner = try RotationPlanner(catalog: catalog, configuration: configuration)
        for position in positions {
            let selection = planner.select(at: Fix(position), refreshID: catalog.refreshIdentifierPrefix + "0")
            self.positions += 1
            switch selection.guarantee {
            case .exact: exact += 1
            case .degraded: degraded += 1
            case .saturated: saturated += 1
            }
            if let refresh = selection.refresh { refreshRadii.append(refresh.radiusMeters) }
        }
        refreshRadii.sort()
    }

    /// Share of positions with `count` selections, 0...1.
    public func share(_ count: Int) -> Double { positions == 0 ? 0 : Double(count) / Double(positions) }

    /// The median refresh radius (nil when no selection had one).
    public var medianRefreshRadiusMeters: Double? {
        guard !refreshRadii.isEmpty else { return nil }
        let mid = refreshRadii.count / 2
        return refreshRadii.count % 2 == 1 ? refreshRadii[mid] : (refreshRadii[mid - 1] + refreshRadii[mid]) / 2
    }
}
