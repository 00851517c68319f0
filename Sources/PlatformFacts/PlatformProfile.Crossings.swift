extension PlatformProfile {
    /// How late and how far past a boundary a platform reports that a device left a region: the
    /// published figures the refresh margin is made from (`PlatformProfile.refreshExitMarginMeters`),
    /// each with its source.
    ///
    /// A crossing is decided on the OS's own position estimate (`positionNoise`), only once that
    /// estimate is past the boundary by a cushion and has stayed there for `staySeconds`; the event
    /// then reaches the app after a delay drawn from `latency`. Where a figure is not published the
    /// doc comment of the preset says so, and the field is a range or a parameter that can be
    /// changed. How a platform treats registrations (its limit, regions registered while inside,
    /// re-used identifiers, reboots) is the emulator's (`EmulatedPlatform` in the lab).
    public struct Crossings: Hashable, Sendable {
        /// How far outside the boundary the OS's estimate must be before an exit counts, meters.
        /// An emulator draws each registration's cushion uniformly from this range; the margin uses
        /// its upper bound. Not scaled with the fence: the OS needs the same evidence of having
        /// left a small fence as a large one.
        public var exitCushionMeters: ClosedRange<Double>
        /// Seconds the estimate must stay past the cushion before the OS decides a crossing (a
        /// brief return resets the count).
        public var staySeconds: Double
        /// Delay from the OS's decision to the app receiving the event.
        public var latency: LatencyDistribution
        /// The OS's own position error while it monitors regions in the background.
        public var positionNoise: PositionNoise

        /// Describes how a platform reports crossings.
        ///
        /// - Precondition: the cushion finite and ≥ 0 meters, `staySeconds` finite and ≥ 0.
        public init(
            exitCushionMeters: ClosedRange<Double>, staySeconds: Double, latency: LatencyDistribution, positionNoise: PositionNoise
        ) {
            precondition(exitCushionMeters.lowerBound >= 0 && exitCushionMeters.upperBound.isFinite, "exit cushion must be finite, >= 0")
            precondition(staySeconds >= 0 && staySeconds.isFinite, "stay must be finite, >= 0")
            self.exitCushionMeters = exitCushionMeters
            self.staySeconds = staySeconds
            self.latency = latency
            self.positionNoise = positionNoise
        }

        /// Crossings reported at the first position past the boundary, `delaySeconds` later, with
        /// no position error: the idealized phone.
        public static func immediate(delaySeconds: Double) -> Crossings {
            Crossings(exitCushionMeters: 0...0, staySeconds: 0, latency: .constant(delaySeconds), positionNoise: .none)
        }

        /// iOS Core Location region monitoring (`CLLocationManager`, `CLMonitor`).
        ///
        /// - Exit cushion 60–200 m: Apple publishes no distance (`startMonitoring(for:desiredAccuracy:)`
        ///   describes its accuracy argument as "the distance past the border … at which to generate
        ///   notifications" without a default). Field reports: exits 60–70 m outside on iOS 26.3.1
        ///   (transistorsoft/react-native-background-geolocation #2597), 50–100 m on iOS 18.5 (same
        ///   repository, #2353), "about 200 meters outside" (transistorsoft/cordova-background-geolocation-lt
        ///   #541).
        /// - Stay 20 s: a crossing is reported once the device has stayed past the boundary for at
        ///   least 20 seconds (Apple, *Monitoring the user's proximity to geographic regions*).
        /// - Latency, from the decision to delivery: `LatencyDistribution.iOS`.
        /// - Position noise: `PositionNoise.networkLocation` (region monitoring runs on Wi-Fi and
        ///   cell positions: "You don't really use GPS for Geofences", Radius Networks, *Geofence
        ///   Performance Testing on iOS*, 2015).
        public static let iOS = Crossings(exitCushionMeters: 60...200, staySeconds: 20, latency: .iOS, positionNoise: .networkLocation)

        /// Android geofencing (`GeofencingClient`, Google Play services).
        ///
        /// - Exit cushion 21–32 m, derived from the published overlap rule: "the geofence service
        ///   calculates the overlapping ratio of the location circle and the geofence circle and
        ///   only generates the entrance alert when the ratio is at least 85% for a bigger geofence
        ///   or 75% for a smaller geofence. For an exit alert, the ratio threshold used is 15% or
        ///   25%" (Android Developers, *Create and monitor geofences*, troubleshooting, as quoted in
        ///   Radius Networks' ProximityKit `ProximityKitGeofenceNotifier` reference). For a location
        ///   circle of radius `a` at a straight boundary, 15 % inside puts its center 0.58 `a`
        ///   outside (25 %: 0.40 `a`); `a` is the 68 % radius of the position noise, 1.51 σ = 55 m
        ///   for σ = 36.5 m, so 0.40 `a` to 0.58 `a` is 21 to 32 m.
        /// - Stay 0 s: Android publishes no stay for enter and exit transitions (a dwell is a
        ///   separate transition type); the delay is all in the latency.
        /// - Latency: `LatencyDistribution.android`.
        /// - Position noise: `PositionNoise.networkLocation` ("On most devices, the geofence
        ///   service uses only network location for geofence triggering", same troubleshooting
        ///   section).
        public static let android = Crossings(
            exitCushionMeters: 21...32, staySeconds: 0, latency: .android, positionNoise: .networkLocation)
    }
}
