import FencePlanner
import Geodesy
import PlatformEmulator
import PlatformFacts

/// Replays a strategy over a walk through an emulated phone, and scores what the app received
/// against the visits on the true path.
///
/// At every sample the true position is fed to the emulator (`RegionMonitorEmulator`), which
/// delivers region events by its platform's rules. An entry of a place fence is a received entry
/// (`VisitOracle`), or, for a strategy that decides its place events itself (rotate's event
/// engine), goes to the strategy, whose reported entries are received instead; an exit of a trigger region wakes the app, which obtains a fix (the first
/// sample's fix at least the platform's wake-fix time after the delivery) and hands it to the
/// strategy. Background fixes reach the strategy as it asks: every fix (continuous updates, the
/// GNSS receiver on), or significant changes (iOS: a fix once the device is 500 m from the last
/// one and 5 minutes have passed; Android: background updates every 15 to 30 minutes). Whatever
/// the strategy returns is registered by difference (`RegistrationDiff.changes`, the planner's own
/// diff): regions whose definition changed are removed, then the new ones added (places first,
/// then trigger regions), one call each.
public struct PlatformReplay: Sendable {
    /// The phone the walks are replayed on: its facts (region limit, crossings, location sources)
    /// and its emulated behavior.
    public var platform: EmulatedPlatform
    public var seed: UInt64
    /// Place fences an app can monitor here (the region limit less the host's headroom and the
    /// trigger region): a visit entered unmonitored while the true position is inside no more
    /// fences than this could have been caught, and counts as avoidable.
    public var placeSlots: Int
    /// The device reboots this often, seconds (nil: never): on a platform whose regions do not
    /// survive a reboot (Android) every registration is gone, and the strategy's host registers
    /// again (`MonitoringStrategy.platformReset(at:)`).
    public var rebootEverySeconds: Double?
    /// The error of a network fix (a Wi-Fi or cell position: periodic and significant-change
    /// updates, and a wake fix a strategy asks from the network) outdoors, where the walk's own
    /// fix is GNSS: a first-order Gauss–Markov process per walk, sampled when a network fix is
    /// made (indoors the walk's fix is already a Wi-Fi position). Wi-Fi's σ 36.5 m per axis
    /// (`PlatformProfile.PositionNoise.networkLocation`, range 0–78 m).
    public var networkFixNoise = PlatformProfile.PositionNoise.networkLocation
    /// The accuracy a network fix reports outdoors, meters: 65, what iOS reports for Wi-Fi
    /// positions (field reports: transistorsoft flutter_background_geolocation issues #399 and
    /// #510); range 40–100.
    public var networkFixAccuracyMeters = 65.0

    /// A replay on `platform` (`.iOS`, `.android`, `.ideal(delaySeconds:)`, or one with other
    /// cushions, latency or noise).
    public init(platform: EmulatedPlatform, seed: UInt64) {
        self.platform = platform
        self.seed = seed
        placeSlots = max(0, platform.profile.regionLimit - 3)
    }

    /// The visits on `walk`'s true path and those of the fences grown by the platform's largest
    /// cushion (the false-entry test), for `replay(_:walkIndex:strategy:catalog:visits:)`.
    /// `path` is the walk's converted path, made here when not given.
    public func visits(on walk: Walk, path: TruePath? = nil, catalog: PlaceCatalog) -> (true: [Visit], grown: [Visit]) {
        let cushion = max(platform.entryCushionMeters.upperBound, platform.crossings.exitCushionMeters.upperBound)
        return VisitOracle.visits(on: walk, path: path ?? TruePath(walk), catalog: catalog, grownByMeters: cushion)
    }

    /// Replays `strategy` over `walk` (the `walkIndex`-th of a run: it seeds the emulator);
    /// `path` is the walk's converted path, `visits` its visits (`visits(on:path:catalog:)`) and
    /// `lengthMeters` its length, each computed when not given.
    ///
    /// With `stops` (a trip's true stops, generated or labelled) the visits the strategy reported
    /// (`MonitoringStrategy.reportsVisits`), or else the received entries each as a visit, are
    /// scored against them and `decoys` by the stop oracle (`PlatformReplayReport.stops`).
    public func replay<Strategy: MonitoringStrategy>(
        _ walk: Walk, walkIndex: Int = 0, strategy: inout Strategy, catalog: PlaceCatalog, path given: TruePath? = nil,
        visits givenVisits: (true: [Visit], grown: [Visit])? = nil, lengthMeters: Double? = nil, stops: [TrueStop]? = nil,
        decoys: [DecoyStop] = []
    ) -> PlatformReplayReport {
        replay(
            walk, walkIndex: walkIndex, strategy: &strategy, catalog: catalog, path: given, visits: givenVisits, lengthMeters: lengthMeters,
            stops: stops, decoys: decoys, keepingTimeline: false
        ).report
    }

    /// Replays `strategy` over `walk` as `replay(_:walkIndex:strategy:catalog:path:visits:lengthMeters:stops:decoys:)`
    /// does, and keeps what happened on the phone: every registration, event, fix and report,
    /// and each visit's and stop's verdict with the reason for each miss (`ReplayTimeline`).
    public func timeline<Strategy: MonitoringStrategy>(
        _ walk: Walk, walkIndex: Int = 0, strategy: inout Strategy, catalog: PlaceCatalog, stops: [TrueStop]? = nil,
        decoys: [DecoyStop] = []
    ) -> ReplayTimeline {
        // A replay that keeps its timeline always returns one.
        replay(walk, walkIndex: walkIndex, strategy: &strategy, catalog: catalog, stops: stops, decoys: decoys, keepingTimeline: true)
            .timeline!
    }

    func replay<Strategy: MonitoringStrategy>(
        _ walk: Walk, walkIndex: Int, strategy: inout Strategy, catalog: PlaceCatalog, path given: TruePath? = nil,
        visits givenVisits: (true: [Visit], grown: [Visit])? = nil, lengthMeters: Double? = nil, stops: [TrueStop]?, decoys: [DecoyStop],
        keepingTimeline: Bool
    ) -> (report: PlatformReplayReport, timeline: ReplayTimeline?) {
        let path = given ?? TruePath(walk)
        var host = run(walk, walkIndex: walkIndex, strategy: &strategy, path: path, keepingTimeline: keepingTimeline)
        host.report.meters = lengthMeters ?? path.lengthMeters
        let (visits, nearVisits) = givenVisits ?? self.visits(on: walk, path: path, catalog: catalog)
        host.score(visits: visits, nearVisits: nearVisits)
        let reported = host.reportsVisits ? host.visitsReported : host.entries.map(ReportedVisit.init)
        if let stops {
            let monitored = host.monitoredIntervals
            host.report.stops = StopOracle.score(
                stops: stops, decoys: decoys, passages: visits, visits: reported,
                isResolvable: { StopOracle.resolvable($0, catalog: catalog, walk: walk) },
                wasMonitored: { stop in (monitored[stop.placeID] ?? []).contains { $0.contains(stop.arrivalSeconds) } },
                away: { StopOracle.away(from: $0, during: $1, walk: walk, catalog: catalog) },
                endSeconds: strategy.reportsDepartures ? walk.samples.last?.timeSeconds : nil)
            host.report.energyFloorJoules = PlatformReplayReport.stopFloorJoules(
                host.report.stops, seconds: host.report.seconds, energy: host.energy)
        }
        guard var timeline = host.timeline else { return (host.report, nil) }
        timeline.entries = host.entries
        timeline.exits = host.exits
        timeline.visits = host.visitsReported
        timeline.monitored = host.monitoredIntervals
        timeline.report = host.report
        timeline.judge(visits: visits)
        if let stops {
            timeline.judge(stops: stops, reported: reported) { StopOracle.away(from: $0, during: $1, walk: walk, catalog: catalog) }
        }
        return (host.report, timeline)
    }

    /// Runs `strategy` over `walk` on this phone and returns the host, unscored: what it counted
    /// and when each place was monitored (the missed-fence oracle scores the planner from it),
    /// and with `keepingTimeline` what happened.
    func run<Strategy: MonitoringStrategy>(
        _ walk: Walk, walkIndex: Int = 0, strategy: inout Strategy, path: TruePath, keepingTimeline: Bool = false
    ) -> ReplayHost<Strategy> {
        var host = ReplayHost(self, walk: walk, walkIndex: walkIndex, strategy: strategy)
        if keepingTimeline {
            host.timeline = ReplayTimeline(
                strategy: strategy.name, decidesPlaceEvents: strategy.decidesPlaceEvents,
                platformMinRadiusMeters: platform.profile.recommendedMinRadiusMeters)
        }
        defer { strategy = host.strategy }
        let samples = walk.samples
        for (i, sample) in samples.enumerated() {
            // A recording gap is time the replay cannot judge: nothing is charged across it.
            let next = i + 1 < samples.count && !walk.isGap(afterSample: i) ? samples[i + 1].timeSeconds : sample.timeSeconds
            host.step(i, sample, vector: path.vectors[i], nextTime: next)
        }
        host.finish(at: samples.last?.timeSeconds ?? 0)
        return host
    }
}

/// What a platform replay measured over one or more walks. Costs are physical counts, not
/// energy: wakeups (region events delivered plus background fixes the app processed),
/// registration calls (each add and each remove, trigger regions included), seconds with the GNSS
/// receiver on (continuous updates, and each wake fix's time to obtain outside them), fixes
/// requested.
public struct PlatformReplayReport: Hashable, Sendable {
    public var walks = 0
    public var meters = 0.0
    public var seconds = 0.0
    public var score = VisitScore()
    public var eventsDelivered = 0
    public var backgroundFixes = 0
    public var registrationCalls = 0
    /// Registrations the platform refused (Android past its limit).
    public var rejectedRegistrations = 0
    public var gnssOnSeconds = 0.0
    /// Seconds the traveller moved faster than `drivingSpeedMetersPerSecond` (true positions,
    /// sample to sample), and of those the seconds with continuous GNSS on: the receiver kept on
    /// for the fences a car passes.
    public var drivingSeconds = 0.0
    public var gnssDrivingSeconds = 0.0
    /// Faster than this is driving, m/s (29 km/h: above any walker or runner, below a car
    /// between lights at its cruising speed).
    public static let drivingSpeedMetersPerSecond = 8.0
    /// Seconds the strategy's guarantee was not exact (rotate `degraded` or `saturated`): where
    /// the platform's regions cannot protect the user, and the GNSS receiver is expected on.
    public var notExactSeconds = 0.0
    public var fixesRequested = 0
    /// Visits whose fence the OS was not monitoring at the true entry (not registered, removed, or
    /// silently dropped past the limit): no cushion or latency could have caught them.
    public var visitsEnteredUnmonitored = 0
    /// Of those, the visits whose true entry point was inside no more fences than `placeSlots`
    /// (visits under way at that moment, merged re-entries included), entered while the strategy
    /// had not declared saturation: the planner's own test of an avoidable miss, per visit.
    public var avoidableVisitsEnteredUnmonitored = 0
    /// The stop oracle's score of the entries received, on trips with stops.
    public var stops = StopScore()
    /// Background fixes that were network (Wi-Fi or cell) positions: significant changes and
    /// Android's background updates.
    public var networkFixes = 0
    /// Requests the app sent to a server (designs that send each update).
    public var serverRequests = 0
    /// Low-power signals that woke the app: motion-activity changes heard while suspended, and
    /// visits.
    public var signalWakeups = 0
    /// The energy of what was counted, J (`PlatformProfile.Energy`), and the battery it is a
    /// share of, mWh.
    public var energyJoules = 0.0
    /// Of `energyJoules`, the GNSS receiver's, J.
    public var energyGNSSJoules = 0.0
    public var batteryMilliwattHours = 0.0
    /// On trips with stops, the energy model's least energy to detect their stops
    /// (`stopFloorJoules(_:seconds:energy:)`), J.
    public var energyFloorJoules = 0.0

    public init() {}

    public var kilometers: Double { meters / 1_000 }
    public var wakeups: Int { eventsDelivered + backgroundFixes }
    public var wakeupsPerKilometer: Double { meters > 0 ? Double(wakeups) / kilometers : 0 }
    public var registrationCallsPerKilometer: Double { meters > 0 ? Double(registrationCalls) / kilometers : 0 }
    /// Share of the time at driving speed with continuous GNSS on (nil: never at that speed).
    public var gnssOnDrivingFraction: Double? { drivingSeconds > 0 ? min(1, gnssDrivingSeconds / drivingSeconds) : nil }
    /// Share of the walks' time with the GNSS receiver on.
    public var gnssOnFraction: Double { seconds > 0 ? min(1, gnssOnSeconds / seconds) : 0 }
    /// Energy per hour of trip, mWh (`energyJoules` over the trips' time).
    public var energyMilliwattHoursPerHour: Double { milliwattHoursPerHour(energyJoules) }
    /// The stop floor per hour of trip, mWh (`energyFloorJoules` over the trips' time); nil
    /// without a floor (no trip with stops).
    public var energyFloorMilliwattHoursPerHour: Double? { energyFloorJoules > 0 ? milliwattHoursPerHour(energyFloorJoules) : nil }
    /// `joules` spent over the trips' time, as mWh per hour (0 without time).
    public func milliwattHoursPerHour(_ joules: Double) -> Double { seconds > 0 ? joules / 3.6 / (seconds / 3_600) : 0 }
    /// The energy spent over the stop floor (nil without a floor: no trip with stops).
    public var energyOverFloor: Double? { energyFloorJoules > 0 ? energyJoules / energyFloorJoules : nil }

    /// The least energy a design needs to detect the stops of trips lasting `seconds` at
    /// `energy`'s costs, J: the OS's region monitoring for the whole time (every place's fence
    /// registered, which no platform allows: a floor, not a design), and to tell a stop from a
    /// pass-by one network position, with its wake-up, at each place the traveller enters, that
    /// is at each stop and each pass-by of `score`. No GNSS, no server. A design that spends no
    /// more than this cannot tell a stop from a walk-through at all.
    public static func stopFloorJoules(_ score: StopScore, seconds: Double, energy: PlatformProfile.Energy) -> Double {
        energy.energyJoules(gnssOnSeconds: 0, wakeups: 0, networkFixes: score.stops + score.passBys, serverRequests: 0, seconds: seconds)
    }

    /// Share of the battery an hour of trip takes.
    public var batterySharePerHour: Double { batteryMilliwattHours > 0 ? energyMilliwattHoursPerHour / batteryMilliwattHours : 0 }
    /// Share of the walks' time the guarantee was not exact.
    public var notExactFraction: Double { seconds > 0 ? min(1, notExactSeconds / seconds) : 0 }

    public mutating func merge(_ other: PlatformReplayReport) {
        walks += other.walks
        meters += other.meters
        seconds += other.seconds
        score.merge(other.score)
        eventsDelivered += other.eventsDelivered
        backgroundFixes += other.backgroundFixes
        registrationCalls += other.registrationCalls
        rejectedRegistrations += other.rejectedRegistrations
        gnssOnSeconds += other.gnssOnSeconds
        drivingSeconds += other.drivingSeconds
        gnssDrivingSeconds += other.gnssDrivingSeconds
        notExactSeconds += other.notExactSeconds
        fixesRequested += other.fixesRequested
        visitsEnteredUnmonitored += other.visitsEnteredUnmonitored
        avoidableVisitsEnteredUnmonitored += other.avoidableVisitsEnteredUnmonitored
        stops.merge(other.stops)
        networkFixes += other.networkFixes
        serverRequests += other.serverRequests
        signalWakeups += other.signalWakeups
        energyJoules += other.energyJoules
        energyGNSSJoules += other.energyGNSSJoules
        energyFloorJoules += other.energyFloorJoules
        batteryMilliwattHours = max(batteryMilliwattHours, other.batteryMilliwattHours)
    }
}
