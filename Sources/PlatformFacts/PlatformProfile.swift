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
    /// How late and how far past a boundary the platform reports a crossing: the exit cushion,
    /// stay, latency distribution and position noise the refresh margin is made from.
    public var crossings: Crossings
    /// The location services an app can ask for in the background, with rate, accuracy and GNSS
    /// use (data only; see `LocationSource`).
    public var locationSources: [LocationSource]
    /// What location costs the battery (data only; see `Energy`).
    public var energy: Energy

    /// Describes a platform; nothing is validated here. By default crossings are reported at once
    /// (`Crossings.immediate(delaySeconds: 0)`), no location source is listed and energy is an
    /// iPhone's (`Energy.iOS`).
    public init(
        name: String, regionLimit: Int, recommendedMinRadiusMeters: Double, maxRegionRadiusMeters: Double,
        crossings: Crossings = .immediate(delaySeconds: 0),
        locationSources: [LocationSource] = [], energy: Energy = .iOS
    ) {
        self.name = name
        self.regionLimit = regionLimit
        self.recommendedMinRadiusMeters = recommendedMinRadiusMeters
        self.maxRegionRadiusMeters = maxRegionRadiusMeters
        self.crossings = crossings
        self.locationSources = locationSources
        self.energy = energy
    }

    /// iOS Core Location region monitoring (`CLMonitor`, `CLCircularRegion`).
    ///
    /// - 20 regions per app: "Core Location limits to 20 the number of regions that may be
    ///   simultaneously monitored by a single app" (Apple, *Monitoring the user's proximity to
    ///   geographic regions*; the same limit applies to `CLMonitor` conditions).
    /// - Crossings, stay and latency: `Crossings.iOS` and `LatencyDistribution.iOS` (the 20 s
    ///   stay past a cushion, delivery within seconds for 9 in 10 events and up to the legacy
    ///   guide's "3 to 5 minutes").
    /// - 100 m minimum: small circles are monitored poorly (the guide mentions radii "between 1 and
    ///   400 meters" working better on newer hardware); 400 km is the usual
    ///   `maximumRegionMonitoringDistance`.
    /// - Crossings, location sources and energy: `Crossings.iOS`, `LocationSource.iOS`,
    ///   `Energy.iOS`.
    public static let iOS = PlatformProfile(
        name: "iOS", regionLimit: 20, recommendedMinRadiusMeters: 100, maxRegionRadiusMeters: 400_000,
        crossings: .iOS, locationSources: LocationSource.iOS)

    /// Android geofencing (`GeofencingClient`).
    ///
    /// - 100 geofences: "You can have multiple active geofences, with a limit of 100 per app, per
    ///   device user" (Android Developers, *Create and monitor geofences*).
    /// - Crossings and latency: `Crossings.android` and `LatencyDistribution.android` (alerts
    ///   usually within two minutes, 2–3 minutes under background limits, up to about 6 minutes).
    /// - 100 m minimum: the page recommends "a minimum radius of 100 meters" (Wi-Fi accuracy,
    ///   power); there is no documented maximum, 400 km is used.
    /// - Crossings, location sources and energy: `Crossings.android`, `LocationSource.android`,
    ///   `Energy.android`.
    public static let android = PlatformProfile(
        name: "Android", regionLimit: 100, recommendedMinRadiusMeters: 100, maxRegionRadiusMeters: 400_000,
        crossings: .android, locationSources: LocationSource.android, energy: .android)

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
        assumption == .typical ? crossings.latency.p90Seconds : crossings.latency.maximumSeconds
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
        let wakeFixSeconds = locationSources.first { $0.kind == .wakeFix }?.timeToFixSeconds?.upperBound ?? 0
        return crossings.exitCushionMeters.upperBound + 2 * crossings.positionNoise.sigmaMeters
            + maxSpeedMetersPerSecond * (crossings.staySeconds + latencySeconds(latency) + wakeFixSeconds + fixIntervalSeconds)
    }
}
