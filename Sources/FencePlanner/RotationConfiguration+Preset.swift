import PlatformFacts

extension RotationConfiguration {
    /// A configuration for a platform and a traveller: the platform's limit and region range, and
    /// the margin its region monitoring needs (`PlatformProfile.refreshExitMarginMeters`: the exit
    /// cushion, the position error, and `maxSpeed × (stay + latency + wake fix + fix interval)`).
    ///
    /// For anything else build a `RotationConfiguration` directly (a custom platform).
    public static func preset(
        _ platform: PlatformProfile, maxSpeedMetersPerSecond: Double, fixIntervalSeconds: Double,
        latency: PlatformProfile.Latency = .typical, headroom: Int = 2
    ) -> RotationConfiguration {
        RotationConfiguration(
            limit: platform.regionLimit, headroom: headroom,
            marginMeters: platform.refreshExitMarginMeters(
                maxSpeedMetersPerSecond: maxSpeedMetersPerSecond, fixIntervalSeconds: fixIntervalSeconds, latency: latency),
            minRefreshRadiusMeters: platform.recommendedMinRadiusMeters,
            maxRegionRadiusMeters: platform.maxRegionRadiusMeters)
    }
}
