import PlatformFacts

/// A phone as the emulators play it: the platform's published facts (`profile`: its region
/// limit, how it reports crossings, its location sources) and the behavior only an emulator
/// needs (the entry cushion, what registrations beyond the limit, while inside or under a re-used
/// identifier do, and whether regions survive a reboot or an app update), each with its source.
public struct EmulatedPlatform: Hashable, Sendable {
    /// The platform's facts: the same value the planner's presets are made from.
    public var profile: PlatformProfile
    /// How deep inside the boundary the OS's estimate must be before an entry counts, meters
    /// (`0` is at the boundary). Each registration draws its cushion uniformly from this range.
    ///
    /// For a fence smaller than its cushion the depth is capped (see `entryDepthFraction`).
    public var entryCushionMeters: ClosedRange<Double>
    /// The entry depth is `min(entryCushion, entryDepthFraction × radius)`, `0...1`.
    ///
    /// An assumption, not a published rule: real phones do report entries into fences smaller
    /// than the cushion (Radius Networks' 2015 test used a 60 m fence), so a cushion can never
    /// require more depth than the fence has. With `0.5` the estimate must reach the inner half of
    /// a small fence's radius.
    public var entryDepthFraction: Double
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
    /// The motion-activity classifier an app can listen to.
    public var motionActivity: MotionActivity
    /// The delivery latency once the device has been still a while (Android), or nil when
    /// stillness does not change it (iOS, the ideal phone).
    public var stillLatency: StillLatency?
    /// Whether regions may ask for a dwell transition after a loitering delay (Android's
    /// `GEOFENCE_TRANSITION_DWELL`; iOS has none).
    public var supportsDwell: Bool
    /// Visit monitoring (iOS `CLVisit`), or nil where the platform has none (Android).
    public var visitMonitoring: VisitMonitoring?
    /// Doze (Android): once still this long, the OS makes no new network positions, or nil.
    public var doze: Doze?

    /// Android's Doze as region monitoring sees it: after `afterSeconds` within `radiusMeters`
    /// (screen off), "the system does not perform Wi-Fi scans" (Android Developers, *Optimize for
    /// Doze and App Standby*), so the OS's position estimate, made from Wi-Fi, stops changing
    /// until the device moves. About an hour still: the period is not published (range 30–90
    /// minutes); the screen is taken to be off at a stop.
    public struct Doze: Hashable, Sendable {
        public var afterSeconds: Double
        public var radiusMeters: Double

        public init(afterSeconds: Double, radiusMeters: Double) {
            precondition(afterSeconds >= 0 && radiusMeters >= 0, "doze: times and distances >= 0")
            self.afterSeconds = afterSeconds
            self.radiusMeters = radiusMeters
        }

        public static let android = Doze(afterSeconds: 3_600, radiusMeters: 20)
    }

    /// A latency that applies once the device has stayed within `radiusMeters` for `afterSeconds`.
    public struct StillLatency: Hashable, Sendable {
        public var afterSeconds: Double
        public var radiusMeters: Double
        public var latency: PlatformProfile.LatencyDistribution

        public init(afterSeconds: Double, radiusMeters: Double, latency: PlatformProfile.LatencyDistribution) {
            precondition(afterSeconds >= 0 && radiusMeters >= 0, "still latency: times and distances >= 0")
            self.afterSeconds = afterSeconds
            self.radiusMeters = radiusMeters
            self.latency = latency
        }

        /// Android: "If the device has been stationary for a significant period of time, the
        /// latency may increase (up to 6 minutes)" (Android Developers, *Create and monitor
        /// geofences*), against "usually less than 2 minutes" otherwise. Neither the period nor the
        /// spread is published: after 5 minutes within 20 m (range 1–60 minutes), latencies from
        /// 2 to 6 minutes, median 4, 90th percentile 5.6 (a stated spread over the published range).
        public static let android = StillLatency(
            afterSeconds: 300, radiusMeters: 20,
            latency: PlatformProfile.LatencyDistribution(minimumSeconds: 120, medianSeconds: 240, p90Seconds: 336, maximumSeconds: 360))
    }

    /// Describes an emulated phone.
    ///
    /// - Precondition: the entry cushion finite and ≥ 0 meters, `entryDepthFraction` in `0...1`.
    public init(
        profile: PlatformProfile, entryCushionMeters: ClosedRange<Double>, entryDepthFraction: Double, overLimit: OverLimit,
        insideAtRegistration: InsideAtRegistration, reusedIdentifier: ReusedIdentifier, regionsSurviveReboot: Bool,
        regionsSurviveAppUpdate: Bool, motionActivity: MotionActivity = .iOS, stillLatency: StillLatency? = nil,
        supportsDwell: Bool = false, visitMonitoring: VisitMonitoring? = nil, doze: Doze? = nil
    ) {
        precondition(entryCushionMeters.lowerBound >= 0 && entryCushionMeters.upperBound.isFinite, "entry cushion must be finite, >= 0")
        precondition((0...1).contains(entryDepthFraction), "entry depth fraction must be in 0...1")
        self.profile = profile
        self.entryCushionMeters = entryCushionMeters
        self.entryDepthFraction = entryDepthFraction
        self.overLimit = overLimit
        self.insideAtRegistration = insideAtRegistration
        self.reusedIdentifier = reusedIdentifier
        self.regionsSurviveReboot = regionsSurviveReboot
        self.regionsSurviveAppUpdate = regionsSurviveAppUpdate
        self.motionActivity = motionActivity
        self.stillLatency = stillLatency
        self.supportsDwell = supportsDwell
        self.visitMonitoring = visitMonitoring
        self.doze = doze
    }

    /// The crossing figures of `profile`, read and written in place.
    public var crossings: PlatformProfile.Crossings {
        get { profile.crossings }
        set { profile.crossings = newValue }
    }

    /// The idealized phone, kept to compare against the platform models: no region limit, no
    /// cushion, no stay, no position error, every event delivered `delaySeconds` after the first
    /// position past the boundary (an entry at or inside the radius, an exit strictly outside it),
    /// and the woken app's fix at once (iOS's location sources otherwise). Registration while
    /// inside reports the entry; identifiers replace; regions survive restarts.
    public static func ideal(delaySeconds: Double) -> EmulatedPlatform {
        var profile = PlatformProfile.iOS
        profile.name = "ideal"
        profile.regionLimit = .max
        profile.crossings = .immediate(delaySeconds: delaySeconds)
        for i in profile.locationSources.indices where profile.locationSources[i].kind == .wakeFix {
            profile.locationSources[i].timeToFixSeconds = 0...0
        }
        return EmulatedPlatform(
            profile: profile, entryCushionMeters: 0...0, entryDepthFraction: 1, overLimit: .silentlyUnmonitored,
            insideAtRegistration: .initialEnter(dropProbability: 0), reusedIdentifier: .replaces, regionsSurviveReboot: true,
            regionsSurviveAppUpdate: true, motionActivity: .ideal, supportsDwell: true, visitMonitoring: .ideal)
    }

    /// iOS (`PlatformProfile.iOS`), and:
    ///
    /// - Entry cushion 0 m: Apple publishes no distance. Field reports put entries at the
    ///   boundary: "It is normal for ENTER event to fire almost exactly at the edge of the
    ///   geofence" (transistorsoft/flutter_background_geolocation #953). Early entries come from
    ///   the position noise.
    /// - Entry depth fraction 0.5: an assumption (see `entryDepthFraction`); it matters only when
    ///   an entry cushion above half a radius is configured.
    /// - Over the 20-region limit: registrations are accepted without an error and not monitored
    ///   (klaviyo/klaviyo-swift-sdk PR #463: "it doesn't actually show any error out of the box if
    ///   you add too many"; owntracks/ios #718 and #400: regions beyond the limit are ignored).
    ///   Which ones iOS keeps is not documented; the emulator keeps the first ones registered.
    /// - Registration while inside: no entry event; the app must ask for the state
    ///   (`requestState(for:)`; "No entry event will be triggered if the app is launched within
    ///   the geo-fence", Plexure, *Geofence Explained*).
    /// - Re-used identifier: "If an existing region with the same identifier is already being
    ///   monitored by the app, the old region is replaced by the new one" (Apple,
    ///   `startMonitoring(for:desiredAccuracy:)`).
    /// - Reboot: "The system monitors your regions until you explicitly ask it to stop or until
    ///   the device reboots" (Apple, *Monitoring the user's proximity to geographic regions*).
    /// - App update: not documented; regions are assumed to survive it.
    /// - Visit monitoring: `VisitMonitoring.iOS`; no dwell transitions.
    public static let iOS = EmulatedPlatform(
        profile: .iOS, entryCushionMeters: 0...0, entryDepthFraction: 0.5, overLimit: .silentlyUnmonitored,
        insideAtRegistration: .noEvent, reusedIdentifier: .replaces, regionsSurviveReboot: false, regionsSurviveAppUpdate: true,
        visitMonitoring: .iOS)

    /// Android (`PlatformProfile.android`), and:
    ///
    /// - Entry cushion 21–32 m, drawn per registration, from the same overlap rule as the exit
    ///   cushion (`PlatformProfile.Crossings.android`): 85 % of the location circle inside puts
    ///   its center 0.58 `a` inside (75 %: 0.40 `a`), 21 to 32 m for `a` = 55 m.
    /// - Entry depth fraction 0.5: an assumption (see `entryDepthFraction`).
    /// - Over the 100-geofence limit: the add fails with `GEOFENCE_TOO_MANY_GEOFENCES` ("Your app
    ///   has registered more than 100 geofences", `GeofenceStatusCodes`, constant value 1001).
    /// - Registration while inside: `INITIAL_TRIGGER_ENTER` reports an entry, but Google Play
    ///   services "drops this unreliably — confirmed on-device: a fresh install standing inside a
    ///   business fence registered 6 fences but fired no ENTER" (customerio/customerio-android PR
    ///   #787). No rate is published: the drop probability is a parameter (`0...1`), 0.5 by
    ///   default, the middle of the unknown range.
    /// - Re-used identifier: the service "caches per-ID INSIDE/OUTSIDE state across same-ID
    ///   `addGeofences` calls … re-registering the same ID at a new center inherits that OUTSIDE
    ///   state, so the next EXIT can only fire when the user re-enters the OLD circle"
    ///   (customerio/customerio-android PR #717). Removing the id first gives a fresh state.
    /// - Still: latency grows once the device has been stationary a while (`StillLatency.android`);
    ///   after about an hour, Doze stops the Wi-Fi scans its positions come from (`Doze.android`).
    /// - DWELL: a region may ask for `GEOFENCE_TRANSITION_DWELL` after its loitering delay
    ///   (`Geofence.Builder.setLoiteringDelay`; the API's example uses 300,000 ms; Google
    ///   recommends DWELL over ENTER to cut alerts from driving past). A region registered while
    ///   inside reports DWELL at once with its initial entry (the default initial trigger,
    ///   `INITIAL_TRIGGER_ENTER | INITIAL_TRIGGER_DWELL`).
    /// - Reboot and app update remove every geofence; the app must re-register (Android
    ///   Developers, *Create and monitor geofences*, "Re-register geofences only when required";
    ///   customerio/customerio-android PR #795 re-registers after an app update).
    public static let android = EmulatedPlatform(
        profile: .android, entryCushionMeters: 21...32, entryDepthFraction: 0.5, overLimit: .error(code: 1001),
        insideAtRegistration: .initialEnter(dropProbability: 0.5), reusedIdentifier: .keepsState, regionsSurviveReboot: false,
        regionsSurviveAppUpdate: false, motionActivity: .android, stillLatency: .android, supportsDwell: true, doze: .android)

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
