extension PlatformProfile {
    /// How a platform turns the device's movement into the region events an app receives: the
    /// parameters the platform emulators replay, each with its published source.
    ///
    /// A crossing is decided on the OS's own position estimate (`positionNoise`), only once that
    /// estimate is past the boundary by a cushion and has stayed there for `staySeconds`; the
    /// event then reaches the app after a delay drawn from `latency`. Where a figure is not
    /// published the doc comment of the preset says so, and the field is a range or a parameter
    /// that can be changed.
    public struct RegionMonitoring: Hashable, Sendable {
        /// How deep inside the boundary the OS's estimate must be before an entry counts, meters
        /// (`0` is at the boundary). Each registration draws its cushion uniformly from this range.
        ///
        /// For a fence smaller than its cushion the depth is capped (see `entryDepthFraction`).
        public var entryCushionMeters: ClosedRange<Double>
        /// How far outside the boundary the OS's estimate must be before an exit counts, meters.
        /// Each registration draws its cushion uniformly from this range. Not scaled with the
        /// fence: the OS needs the same evidence of having left a small fence as a large one.
        public var exitCushionMeters: ClosedRange<Double>
        /// The entry depth is `min(entryCushion, entryDepthFraction × radius)`, `0...1`.
        ///
        /// An assumption, not a published rule: real phones do report entries into fences smaller
        /// than the cushion (Radius Networks' 2015 test used a 60 m fence), so a cushion can never
        /// require more depth than the fence has. With `0.5` the estimate must reach the inner half
        /// of a small fence's radius.
        public var entryDepthFraction: Double
        /// Seconds the estimate must stay past the cushion before the OS decides a crossing
        /// (a brief return resets the count).
        public var staySeconds: Double
        /// Delay from the OS's decision to the app receiving the event.
        public var latency: LatencyDistribution
        /// The OS's own position error while it monitors regions in the background.
        public var positionNoise: PositionNoise
        /// What a registration beyond the platform's region limit does.
        public var overLimit: OverLimit
        /// What registering a region the device is already inside does.
        public var insideAtRegistration: InsideAtRegistration
        /// What registering an identifier that is already registered does.
        public var reusedIdentifier: ReusedIdentifier
        /// Whether registered regions are still monitored after the device restarts.
        public var regionsSurviveReboot: Bool
        /// Whether registered regions are still monitored after the app is updated.
        public var regionsSurviveAppUpdate: Bool

        /// Describes a platform's region monitoring.
        ///
        /// - Precondition: cushions finite and ≥ 0 meters, `entryDepthFraction` in `0...1`, `staySeconds`
        ///   finite and ≥ 0.
        public init(
            entryCushionMeters: ClosedRange<Double>, exitCushionMeters: ClosedRange<Double>, entryDepthFraction: Double,
            staySeconds: Double, latency: LatencyDistribution, positionNoise: PositionNoise, overLimit: OverLimit,
            insideAtRegistration: InsideAtRegistration, reusedIdentifier: ReusedIdentifier, regionsSurviveReboot: Bool,
            regionsSurviveAppUpdate: Bool
        ) {
            precondition(entryCushionMeters.lowerBound >= 0 && entryCushionMeters.upperBound.isFinite, "entry cushion must be finite, >= 0")
            precondition(exitCushionMeters.lowerBound >= 0 && exitCushionMeters.upperBound.isFinite, "exit cushion must be finite, >= 0")
            precondition((0...1).contains(entryDepthFraction), "entry depth fraction must be in 0...1")
            precondition(staySeconds >= 0 && staySeconds.isFinite, "stay must be finite, >= 0")
            self.entryCushionMeters = entryCushionMeters
            self.exitCushionMeters = exitCushionMeters
            self.entryDepthFraction = entryDepthFraction
            self.staySeconds = staySeconds
            self.latency = latency
            self.positionNoise = positionNoise
            self.overLimit = overLimit
            self.insideAtRegistration = insideAtRegistration
            self.reusedIdentifier = reusedIdentifier
            self.regionsSurviveReboot = regionsSurviveReboot
            self.regionsSurviveAppUpdate = regionsSurviveAppUpdate
        }

        /// The idealized phone the walk simulator has always assumed: no cushion, no stay, no
        /// position error, every event delivered `delaySeconds` after the first position past the
        /// boundary (an entry at or inside the radius, an exit strictly outside it). Registration
        /// while inside reports the entry; identifiers replace; regions survive restarts. Kept to
        /// compare against the platform models.
        public static func ideal(delaySeconds: Double) -> RegionMonitoring {
            RegionMonitoring(
                entryCushionMeters: 0...0, exitCushionMeters: 0...0, entryDepthFraction: 1, staySeconds: 0,
                latency: .constant(delaySeconds), positionNoise: .none, overLimit: .silentlyUnmonitored,
                insideAtRegistration: .initialEnter(dropProbability: 0), reusedIdentifier: .replaces,
                regionsSurviveReboot: true, regionsSurviveAppUpdate: true)
        }

        /// iOS Core Location region monitoring (`CLLocationManager`, `CLMonitor`).
        ///
        /// - Entry cushion 0 m: Apple publishes no distance. Field reports put entries at the
        ///   boundary: "It is normal for ENTER event to fire almost exactly at the edge of the
        ///   geofence" (transistorsoft/flutter_background_geolocation #953). Early entries come from
        ///   the position noise below.
        /// - Exit cushion 60–200 m, drawn per registration: Apple publishes no distance
        ///   (`startMonitoring(for:desiredAccuracy:)` describes its accuracy argument as "the distance
        ///   past the border … at which to generate notifications" without a default). Field reports:
        ///   exits 60–70 m outside on iOS 26.3.1 (transistorsoft/react-native-background-geolocation
        ///   #2597), 50–100 m on iOS 18.5 (same repository, #2353), "about 200 meters outside"
        ///   (transistorsoft/cordova-background-geolocation-lt #541).
        /// - Entry depth fraction 0.5: an assumption (see `entryDepthFraction`); it matters only
        ///   when an entry cushion above half a radius is configured.
        /// - Stay 20 s: a crossing is reported once the device has stayed past the boundary for at
        ///   least 20 seconds (Apple, *Monitoring the user's proximity to geographic regions*).
        /// - Latency, from the decision to delivery: `LatencyDistribution.iOS`.
        /// - Position noise: `PositionNoise.networkLocation` (region monitoring runs on Wi-Fi and
        ///   cell positions: "You don't really use GPS for Geofences", Radius Networks, *Geofence
        ///   Performance Testing on iOS*, 2015).
        /// - Over the 20-region limit: registrations are accepted without an error and not
        ///   monitored (klaviyo/klaviyo-swift-sdk PR #463: "it doesn't actually show any error out
        ///   of the box if you add too many"; owntracks/ios #718 and #400: regions beyond the limit
        ///   are ignored). Which ones iOS keeps is not documented; the emulator keeps the first ones
        ///   registered.
        /// - Registration while inside: no entry event; the app must ask for the state
        ///   (`requestState(for:)`; "No entry event will be triggered if the app is launched within
        ///   the geo-fence", Plexure, *Geofence Explained*).
        /// - Re-used identifier: "If an existing region with the same identifier is already being
        ///   monitored by the app, the old region is replaced by the new one" (Apple,
        ///   `startMonitoring(for:desiredAccuracy:)`).
        /// - Reboot: "The system monitors your regions until you explicitly ask it to stop or until
        ///   the device reboots" (Apple, *Monitoring the user's proximity to geographic regions*).
        /// - App update: not documented; regions are assumed to survive it.
        public static let iOS = RegionMonitoring(
            entryCushionMeters: 0...0, exitCushionMeters: 60...200, entryDepthFraction: 0.5, staySeconds: 20,
            latency: .iOS, positionNoise: .networkLocation, overLimit: .silentlyUnmonitored,
            insideAtRegistration: .noEvent, reusedIdentifier: .replaces, regionsSurviveReboot: false,
            regionsSurviveAppUpdate: true)

        /// Android geofencing (`GeofencingClient`, Google Play services).
        ///
        /// - Cushions 21–32 m for entry and exit, drawn per registration, derived from the published
        ///   overlap rule: "the geofence service calculates the overlapping ratio of the location
        ///   circle and the geofence circle and only generates the entrance alert when the ratio is
        ///   at least 85% for a bigger geofence or 75% for a smaller geofence. For an exit alert, the
        ///   ratio threshold used is 15% or 25%" (Android Developers, *Create and monitor
        ///   geofences*, troubleshooting, as quoted in Radius Networks' ProximityKit
        ///   `ProximityKitGeofenceNotifier` reference). For a location circle of radius `a` at a
        ///   straight boundary, 85 % inside puts its center 0.58 `a` inside (75 %: 0.40 `a`); `a` is
        ///   the 68 % radius of the position noise, 1.51 σ = 55 m for σ = 36.5 m, so 0.40 `a` to
        ///   0.58 `a` is 21 to 32 m. Exits mirror it outside.
        /// - Entry depth fraction 0.5: an assumption (see `entryDepthFraction`).
        /// - Stay 0 s: Android publishes no stay for enter and exit transitions (a dwell is a
        ///   separate transition type); the delay is all in the latency.
        /// - Latency: `LatencyDistribution.android`.
        /// - Position noise: `PositionNoise.networkLocation` ("On most devices, the geofence
        ///   service uses only network location for geofence triggering", same troubleshooting
        ///   section).
        /// - Over the 100-geofence limit: the add fails with `GEOFENCE_TOO_MANY_GEOFENCES` ("Your app
        ///   has registered more than 100 geofences", `GeofenceStatusCodes`, constant value 1001).
        /// - Registration while inside: `INITIAL_TRIGGER_ENTER` reports an entry, but Google Play
        ///   services "drops this unreliably — confirmed on-device: a fresh install standing inside
        ///   a business fence registered 6 fences but fired no ENTER" (customerio/customerio-android
        ///   PR #787). No rate is published: the drop probability is a parameter (`0...1`), 0.5 by
        ///   default, the middle of the unknown range.
        /// - Re-used identifier: the service "caches per-ID INSIDE/OUTSIDE state across same-ID
        ///   `addGeofences` calls … re-registering the same ID at a new center inherits that OUTSIDE
        ///   state, so the next EXIT can only fire when the user re-enters the OLD circle"
        ///   (customerio/customerio-android PR #717). Removing the id first gives a fresh state.
        /// - Reboot and app update remove every geofence; the app must re-register (Android
        ///   Developers, *Create and monitor geofences*, "Re-register geofences only when required";
        ///   customerio/customerio-android PR #795 re-registers after an app update).
        public static let android = RegionMonitoring(
            entryCushionMeters: 21...32, exitCushionMeters: 21...32, entryDepthFraction: 0.5, staySeconds: 0,
            latency: .android, positionNoise: .networkLocation, overLimit: .error(code: 1001),
            insideAtRegistration: .initialEnter(dropProbability: 0.5), reusedIdentifier: .keepsState,
            regionsSurviveReboot: false, regionsSurviveAppUpdate: false)
    }

    /// What a registration beyond the region limit does.
    public enum OverLimit: Hashable, Sendable {
        /// The call succeeds and the region is never monitored (iOS).
        case silentlyUnmonitored
        /// The call fails with the platform's status code and nothing is registered (Android:
        /// 1001, `GEOFENCE_TOO_MANY_GEOFENCES`).
        case error(code: Int)
    }

    /// What registering a region the device is already inside does.
    public enum InsideAtRegistration: Hashable, Sendable {
        /// No event: the OS records the state silently; the app must ask for it (iOS).
        case noEvent
        /// An entry is reported at registration, except that it is dropped with this probability
        /// (`0...1`) (Android's `INITIAL_TRIGGER_ENTER`).
        case initialEnter(dropProbability: Double)
    }

    /// What registering an identifier that is already registered does.
    public enum ReusedIdentifier: Hashable, Sendable {
        /// The new region replaces the old one with a fresh inside/outside state (iOS).
        case replaces
        /// The new geometry is stored, but the inside/outside state carries over and is evaluated
        /// against the old circle until the next transition there (Android): after an exit, the
        /// next exit from the new circle is swallowed until the device re-enters the old one.
        case keepsState
    }
}
