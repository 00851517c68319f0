/// What a platform allows and how quickly it reports crossings: the published figures behind the
/// configuration presets.
public struct PlatformProfile: Hashable, Sendable {
    /// A display name, `"iOS"` or `"Android"` for the built-in profiles.
    public var name: String
    /// Regions one app may monitor at a time.
    public var regionLimit: Int
    /// Smallest fence radius the platform's guidance recommends, meters.
    public var recommendedMinRadiusMeters: Double
    /// Largest region radius accepted, meters.
    public var maxRegionRadiusMeters: Double
    /// How the platform decides and delivers region events: cushions, stay, latency distribution,
    /// position noise, over-limit, inside-at-registration, re-used identifier and reboot behavior
    /// (what the platform emulators replay; see `RegionMonitoring`).
    public var regionMonitoring: RegionMonitoring
    /// The location services an app can ask for in the background, with rate, accuracy and GNSS
    /// use (data only; see `LocationSource`).
    public var locationSources: [LocationSource]

    /// Describes a platform; nothing is validated here. The default region monitoring is the ideal
    /// phone (`RegionMonitoring.ideal(delaySeconds: 0)`), with no location sources.
    public init(
        name: String, regionLimit: Int, recommendedMinRadiusMeters: Double, maxRegionRadiusMeters: Double,
        regionMonitoring: RegionMonitoring = .ideal(delaySeconds: 0),
        locationSources: [LocationSource] = []
    ) {
        self.name = name
        self.regionLimit = regionLimit
        self.recommendedMinRadiusMeters = recommendedMinRadiusMeters
        self.maxRegionRadiusMeters = maxRegionRadiusMeters
        self.regionMonitoring = regionMonitoring
        self.locationSources = locationSources
    }

    /// iOS Core Location region monitoring (`CLMonitor`, `CLCircularRegion`).
    ///
    /// - 20 regions per app: "Core Location limits to 20 the number of regions that may be
    ///   simultaneously monitored by a single app" (Apple, *Monitoring the user's proximity to
    ///   geographic regions*; the same limit applies to `CLMonitor` conditions).
    /// - Crossings, stay and latency: `RegionMonitoring.iOS` and `LatencyDistribution.iOS` (the 20 s
    ///   stay past a cushion, delivery within seconds for 9 in 10 events and up to the legacy
    ///   guide's "3 to 5 minutes").
    /// - 100 m minimum: small circles are monitored poorly (the guide mentions radii "between 1 and
    ///   400 meters" working better on newer hardware); 400 km is the usual
    ///   `maximumRegionMonitoringDistance`.
    /// - Region monitoring and location sources: `RegionMonitoring.iOS`, `LocationSource.iOS`.
    public static let iOS = PlatformProfile(
        name: "iOS", regionLimit: 20, recommendedMinRadiusMeters: 100, maxRegionRadiusMeters: 400_000,
        regionMonitoring: .iOS, locationSources: LocationSource.iOS)

    /// Android geofencing (`GeofencingClient`).
    ///
    /// - 100 geofences: "You can have multiple active geofences, with a limit of 100 per app, per
    ///   device user" (Android Developers, *Create and monitor geofences*).
    /// - Crossings and latency: `RegionMonitoring.android` and `LatencyDistribution.android` (alerts
    ///   usually within two minutes, 2–3 minutes under background limits, up to about 6 minutes).
    /// - 100 m minimum: the page recommends "a minimum radius of 100 meters" (Wi-Fi accuracy,
    ///   power); there is no documented maximum, 400 km is used.
    /// - Region monitoring and location sources: `RegionMonitoring.android`, `LocationSource.android`.
    public static let android = PlatformProfile(
        name: "Android", regionLimit: 100, recommendedMinRadiusMeters: 100, maxRegionRadiusMeters: 400_000,
        regionMonitoring: .android, locationSources: LocationSource.android)

    /// Which delivery latency a preset assumes: the 90th percentile of the platform's latency
    /// distribution (9 in 10 events arrive sooner), or its longest.
    public enum Latency: String, Sendable, CaseIterable {
        /// The 90th percentile of the delivery latency (`LatencyDistribution.p90Seconds`).
        case typical
        /// The longest delivery latency (`LatencyDistribution.maximumSeconds`).
        case cautious
    }

    /// The delivery latency a preset assumes, seconds after the OS decides (the stay comes first).
    public func latencySeconds(_ assumption: Latency) -> Double {
        assumption == .typical ? regionMonitoring.latency.p90Seconds : regionMonitoring.latency.maximumSeconds
    }
}

extension PlatformProfile {
    /// How far past a refresh circle a traveller can be when the app, woken by its exit, has its
    /// fix, meters: the largest exit cushion, two standard deviations of the OS's position error
    /// (the estimate lagging inside), and the distance covered at `maxSpeed` during the stay, the
    /// delivery latency `latency` assumes (its 90th percentile, or its longest), the wake fix's
    /// longest time to obtain and one fix interval.
    public func refreshExitMarginMeters(
        maxSpeedMetersPerSecond: Double, fixIntervalSeconds: Double, latency: Latency = .typical
    ) -> Double {
        let monitoring = regionMonitoring
        let wakeFixSeconds = locationSources.first { $0.kind == .wakeFix }?.timeToFixSeconds?.upperBound ?? 0
        return monitoring.exitCushionMeters.upperBound + 2 * monitoring.positionNoise.sigmaMeters
            + maxSpeedMetersPerSecond * (monitoring.staySeconds + latencySeconds(latency) + wakeFixSeconds + fixIntervalSeconds)
    }
}

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
