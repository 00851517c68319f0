import FencePlanner
import Geodesy
import PlatformEmulator

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
/// the strategy returns is registered by difference: regions whose id or definition changed are
/// removed and added, one call each.
public struct PlatformReplay: Sendable {
    public var profile: PlatformProfile
    public var monitoring: PlatformProfile.RegionMonitoring
    public var seed: UInt64
    /// Place fences an app can monitor here (the region limit less the host's headroom and the
    /// trigger region): a visit entered unmonitored while the true position is inside no more
    /// fences than this could have been caught, and counts as avoidable.
    public var placeSlots: Int
    /// The device reboots this often, seconds (nil: never): on a platform whose regions do not
    /// survive a reboot (Android) every registration is gone, and the strategy's host registers
    /// again (`MonitoringStrategy.platformReset(at:)`).
    public var rebootEverySeconds: Double?

    /// A replay on `profile`'s phone, with its region monitoring replaced by `monitoring` when
    /// given (another cushion, latency or noise; or `.ideal(delaySeconds:)`).
    public init(profile: PlatformProfile, monitoring: PlatformProfile.RegionMonitoring? = nil, seed: UInt64) {
        self.profile = profile
        self.monitoring = monitoring ?? profile.regionMonitoring
        self.seed = seed
        placeSlots = max(0, profile.regionLimit - 3)
    }

    /// The ideal phone: no region limit, no cushion, no noise, a fixed delay, and the woken app's
    /// fix at once (the planner's own simulation, `Simulation.run`, models the same phone).
    public static func ideal(delaySeconds: Double, seed: UInt64) -> PlatformReplay {
        var profile = PlatformProfile.iOS
        profile.name = "ideal"
        profile.regionLimit = .max
        for i in profile.locationSources.indices where profile.locationSources[i].kind == .wakeFix {
            profile.locationSources[i].timeToFixSeconds = 0...0
        }
        return PlatformReplay(profile: profile, monitoring: .ideal(delaySeconds: delaySeconds), seed: seed)
    }

    func source(_ kind: PlatformProfile.LocationSource.Kind) -> PlatformProfile.LocationSource? {
        profile.locationSources.first { $0.kind == kind }
    }

    /// The visits on `walk`'s true path and those of the fences grown by the platform's largest
    /// cushion (the false-entry test), for `replay(_:walkIndex:strategy:catalog:visits:)`.
    /// `path` is the walk's converted path, made here when not given.
    public func visits(on walk: Walk, path: TruePath? = nil, catalog: PlaceCatalog) -> (true: [Visit], grown: [Visit]) {
        let cushion = max(monitoring.entryCushionMeters.upperBound, monitoring.exitCushionMeters.upperBound)
        return VisitOracle.visits(on: walk, path: path ?? TruePath(walk), catalog: catalog, grownByMeters: cushion)
    }

    /// Replays `strategy` over `walk` (the `walkIndex`-th of a run: it seeds the emulator);
    /// `path` is the walk's converted path, `visits` its visits (`visits(on:path:catalog:)`) and
    /// `lengthMeters` its length, each computed when not given.
    public func replay<Strategy: MonitoringStrategy>(
        _ walk: Walk, walkIndex: Int = 0, strategy: inout Strategy, catalog: PlaceCatalog, path given: TruePath? = nil,
        visits givenVisits: (true: [Visit], grown: [Visit])? = nil, lengthMeters: Double? = nil
    ) -> PlatformReplayReport {
        let path = given ?? TruePath(walk)
        var report = PlatformReplayReport()
        report.walks = 1
        report.meters = lengthMeters ?? path.lengthMeters
        if let first = walk.samples.first, let last = walk.samples.last { report.seconds = last.timeSeconds - first.timeSeconds }
        var emulator = RegionMonitorEmulator(
            monitoring: monitoring, regionLimit: strategy.ignoresRegionLimit ? .max : profile.regionLimit,
            seed: seed &+ 0xA076_1D64_78BD_642F &* UInt64(walkIndex + 1))
        let wakeSeed = seed &+ 0xE703_7ED1_A0B4_28DB &* UInt64(walkIndex + 1)
        let wakeFix = source(.wakeFix)?.timeToFixSeconds ?? 0...0
        let significant = source(.significantChange) ?? source(.backgroundUpdates)

        var registered: [String: (center: Coordinate, radiusMeters: Double)] = [:]
        var triggers: [String] = []  // one or two: a linear search beats hashing
        var entries: [ReceivedEntry] = []
        var events: [RegionEvent] = []
        var wake: (id: String, dueSeconds: Double, fixSeconds: Double)?
        var lastBackground: (timeSeconds: Double, position: Coordinate)?
        var begun = false
        // When each place fence became monitored by the OS (registered and not silently dropped),
        // and the intervals it was monitored, to tell visits entered while unmonitored.
        var monitoredSince: [String: Double] = [:]
        var monitoredIntervals: [String: [ClosedRange<Double>]] = [:]
        // The intervals the strategy had declared saturation, [since, until).
        var saturatedSince: Double?
        var saturatedIntervals: [Range<Double>] = []

        // What the strategy asks for, read after each call to it (it changes only then).
        var asks = strategy.backgroundFixes
        var declaresSaturation = strategy.declaresSaturation
        var exact = strategy.guaranteeIsExact
        let decidesPlaceEvents = strategy.decidesPlaceEvents

        var wanted: [String: (center: Coordinate, radiusMeters: Double)] = [:]
        var removals: [String] = []
        // The places last applied, when every one of them is registered: a reselection that keeps
        // them (a moving refresh circle) is then diffed by its triggers alone, with the same calls
        // the full diff below would make.
        var appliedPlaces: [Fence]?
        var appliedTriggers: [RefreshRegion] = []
        var lastRegions: MonitoredRegions?
        var nextReboot = rebootEverySeconds.map { (walk.samples.first?.timeSeconds ?? 0) + $0 }

        func register(_ id: String, _ center: Coordinate, _ radiusMeters: Double, at time: Double) -> Bool {
            report.registrationCalls += 1
            if case .rejected = emulator.register(id: id, center: center, radiusMeters: radiusMeters, at: time) {
                report.rejectedRegistrations += 1
                return false
            }
            registered[id] = (center, radiusMeters)
            if emulator.isMonitored(id) { monitoredSince[id] = time }
            return true
        }

        func unregister(_ id: String, at time: Double) {
            _ = emulator.unregister(id: id, at: time)
            registered[id] = nil
            report.registrationCalls += 1
            if let since = monitoredSince.removeValue(forKey: id) { monitoredIntervals[id, default: []].append(since...time) }
        }

        func apply(_ regions: MonitoredRegions?, at time: Double) {
            asks = strategy.backgroundFixes
            declaresSaturation = strategy.declaresSaturation
            exact = strategy.guaranteeIsExact
            guard let regions else { return }
            lastRegions = regions
            defer { appliedTriggers = regions.triggers }
            if let places = appliedPlaces, Self.samePlaces(places, regions.places) {
                let kept = { (old: RefreshRegion) in
                    regions.triggers.contains { $0.id == old.id && $0.center == old.center && $0.radiusMeters == old.radiusMeters }
                }
                for old in appliedTriggers.filter({ !kept($0) }).sorted(by: { $0.id < $1.id }) where registered[old.id] != nil {
                    unregister(old.id, at: time)
                }
                for trigger in regions.triggers where registered[trigger.id] == nil {
                    _ = register(trigger.id, trigger.center, trigger.radiusMeters, at: time)
                }
                triggers = regions.triggers.map(\.id)
                return
            }
            wanted.removeAll(keepingCapacity: true)
            for fence in regions.places { wanted[fence.id] = (fence.center, fence.radiusMeters) }
            for trigger in regions.triggers { wanted[trigger.id] = (trigger.center, trigger.radiusMeters) }
            removals.removeAll(keepingCapacity: true)
            for (id, old) in registered {
                if let new = wanted[id], new.center == old.center, new.radiusMeters == old.radiusMeters { continue }
                removals.append(id)
            }
            // In id order: the same calls whatever the dictionary's order.
            for id in removals.sorted() { unregister(id, at: time) }
            // Places first, then triggers, each in the strategy's order: the order a host calls in.
            var allPlacesRegistered = true
            for place in regions.places where registered[place.id] == nil {
                if !register(place.id, place.center, place.radiusMeters, at: time) { allPlacesRegistered = false }
            }
            for trigger in regions.triggers where registered[trigger.id] == nil {
                _ = register(trigger.id, trigger.center, trigger.radiusMeters, at: time)
            }
            appliedPlaces = allPlacesRegistered ? regions.places : nil
            triggers = regions.triggers.map(\.id)
        }

        for (i, sample) in walk.samples.enumerated() {
            let time = sample.timeSeconds
            let nextTime = i + 1 < walk.samples.count ? walk.samples[i + 1].timeSeconds : time
            if !begun, let fix = sample.fix {
                begun = true
                report.fixesRequested += 1
                apply(strategy.begin(at: fix), at: time)
                lastBackground = (time, fix.coordinate)
            }
            if begun, let reboot = nextReboot, time >= reboot {
                nextReboot = reboot + (rebootEverySeconds ?? .infinity)
                emulator.reboot(at: time)
                if emulator.registeredIDs.isEmpty {
                    // Every registration is gone: the host registers again from scratch.
                    for (id, since) in monitoredSince { monitoredIntervals[id, default: []].append(since...time) }
                    monitoredSince.removeAll()
                    registered.removeAll()
                    appliedPlaces = nil
                    appliedTriggers = []
                    let again = strategy.platformReset(at: time) ?? lastRegions
                    apply(again, at: time)
                }
            }
            events.removeAll(keepingCapacity: true)
            emulator.advance(
                to: path.vectors[i], poleLongitudeRadians: sample.truePosition.longitudeRadians, at: time, into: &events)
            for event in events {
                report.eventsDelivered += 1
                if triggers.contains(event.regionID) {
                    if event.kind == .exit, wake == nil {
                        // Keyed by the delivery time: the same wakeup takes as long under any strategy.
                        var random = SplitMix64(seed: wakeSeed ^ event.deliveredAtSeconds.bitPattern)
                        _ = random.next()
                        let fixSeconds = random.nextDouble(in: wakeFix.lowerBound..<wakeFix.upperBound + 1e-9)
                        wake = (event.regionID, event.deliveredAtSeconds + fixSeconds, fixSeconds)
                    }
                } else if decidesPlaceEvents {
                    strategy.placeEvent(event.regionID, entered: event.kind == .enter, at: event.deliveredAtSeconds)
                } else if event.kind == .enter {
                    entries.append(ReceivedEntry(placeID: event.regionID, timeSeconds: event.deliveredAtSeconds))
                }
            }
            if let due = wake, time >= due.dueSeconds, let fix = sample.fix {
                wake = nil
                report.fixesRequested += 1
                // The receiver runs until the fix comes, unless continuous updates keep it on anyway.
                if asks != .continuous { report.gnssOnSeconds += due.fixSeconds }
                apply(strategy.triggerExited(due.id, at: fix), at: time)
            }
            guard begun else { continue }
            defer {
                if !exact { report.notExactSeconds += nextTime - time }
                if decidesPlaceEvents { entries += strategy.takeEntries() }
                if declaresSaturation {
                    if saturatedSince == nil { saturatedSince = time }
                } else if let since = saturatedSince {
                    saturatedIntervals.append(since..<time)
                    saturatedSince = nil
                }
            }
            switch asks {
            case .none:
                break
            case .continuous:
                report.gnssOnSeconds += nextTime - time
                if let fix = sample.fix {
                    report.backgroundFixes += 1
                    apply(strategy.received(fix), at: time)
                }
            case .significantChange:
                guard let fix = sample.fix, let significant, let last = lastBackground else { break }
                let interval = significant.intervalSeconds?.lowerBound ?? 0
                let displacement = significant.minimumDisplacementMeters ?? 0
                if time - last.timeSeconds >= interval, fix.coordinate.distance(to: last.position) >= displacement {
                    lastBackground = (time, fix.coordinate)
                    report.backgroundFixes += 1
                    apply(strategy.received(fix), at: time)
                }
            }
        }
        let end = walk.samples.last?.timeSeconds ?? 0
        for (id, since) in monitoredSince { monitoredIntervals[id, default: []].append(since...max(since, end)) }
        if let since = saturatedSince { saturatedIntervals.append(since..<Double.infinity) }
        let (visits, nearVisits) = givenVisits ?? self.visits(on: walk, path: path, catalog: catalog)
        report.score = VisitOracle.score(visits: visits, nearVisits: nearVisits, entries: entries)
        for visit in visits where !(monitoredIntervals[visit.placeID] ?? []).contains(where: { $0.contains(visit.entrySeconds) }) {
            report.visitsEnteredUnmonitored += 1
            // Fences the true position is inside at this entry: the visits under way then.
            let inside = visits.filter { $0.entrySeconds <= visit.entrySeconds && visit.entrySeconds <= $0.exitSeconds }.count
            let saturated = saturatedIntervals.contains { $0.contains(visit.entrySeconds) }
            if inside <= placeSlots, !saturated { report.avoidableVisitsEnteredUnmonitored += 1 }
        }
        return report
    }
}

extension PlatformReplay {
    /// Whether `new` holds the same fences as `old`, in any order (a reselection usually keeps
    /// its places and reorders them by distance). Each fence of `new` is looked for by its
    /// center's latitude (one comparison of two numbers per candidate), and compared in full only
    /// there: no hashing.
    static func samePlaces(_ old: [Fence], _ new: [Fence]) -> Bool {
        guard old.count == new.count else { return false }
        return old.withUnsafeBufferPointer { old in
            new.allSatisfy { fence in
                let latitude = fence.center.latitude
                return old.contains { $0.center.latitude == latitude && $0 == fence }
            }
        }
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

    public init() {}

    public var kilometers: Double { meters / 1_000 }
    public var wakeups: Int { eventsDelivered + backgroundFixes }
    public var wakeupsPerKilometer: Double { meters > 0 ? Double(wakeups) / kilometers : 0 }
    public var registrationCallsPerKilometer: Double { meters > 0 ? Double(registrationCalls) / kilometers : 0 }
    /// Share of the walks' time with the GNSS receiver on.
    public var gnssOnFraction: Double { seconds > 0 ? min(1, gnssOnSeconds / seconds) : 0 }
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
        notExactSeconds += other.notExactSeconds
        fixesRequested += other.fixesRequested
        visitsEnteredUnmonitored += other.visitsEnteredUnmonitored
        avoidableVisitsEnteredUnmonitored += other.avoidableVisitsEnteredUnmonitored
    }
}
