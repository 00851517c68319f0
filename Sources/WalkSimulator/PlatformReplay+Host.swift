import FencePlanner
import Foundation
import Geodesy
import PlatformEmulator
import PlatformFacts

/// The app's host during one platform replay: it feeds the emulated phone, wakes the strategy
/// when the phone or a background fix says so, registers what the strategy returns by difference,
/// and keeps the counts of `PlatformReplayReport` and what the score needs (when each place was
/// monitored, when the strategy declared saturation).
struct ReplayHost<Strategy: MonitoringStrategy> {
    var strategy: Strategy
    var report = PlatformReplayReport()
    var emulator: RegionMonitorEmulator
    let placeSlots: Int
    let wakeSeed: UInt64
    let wakeFix: ClosedRange<Double>
    let significant: PlatformProfile.LocationSource?
    let rebootEverySeconds: Double?
    var nextReboot: Double?
    let energy: PlatformProfile.Energy
    /// The motion classifier, for a strategy that listens to it.
    var motion: MotionActivityClassifier?
    var lastPeriodic: Double?
    /// The previous sample's true position and time, for the true speed.
    var previousTrue: (vector: UnitVector, timeSeconds: Double)?
    /// Whether the traveller moves at driving speed now (`PlatformReplayReport.drivingSeconds`).
    var driving = false
    /// The network fixes' error now (east, north, meters) and when it was drawn, and its source.
    var networkError: (error: GaussMarkovError, timeSeconds: Double)?
    var networkRandom: SplitMix64
    let networkNoise: PlatformProfile.PositionNoise
    let networkAccuracy: Double

    /// What is registered and accepted, in registration order: the diff's previous side.
    var registeredPlaces: [Fence] = []
    var registeredTriggers: [RefreshRegion] = []
    /// The strategy's last regions, registered again after a reset when it names none.
    var lastRegions: MonitoredRegions?
    var entries: [ReceivedEntry] = []
    /// The exits a strategy that decides its place events reported.
    var exits: [ReceivedEntry] = []
    /// What happened, kept when a timeline is asked for (`PlatformReplay.timeline`).
    var timeline: ReplayTimeline?
    /// The visits a strategy that reports its own reported.
    var visitsReported: [ReportedVisit] = []
    var events: [RegionEvent] = []
    var wake: (id: String, dueSeconds: Double, fixSeconds: Double)?
    var lastBackground: (timeSeconds: Double, position: Coordinate)?
    var begun = false
    /// When each place fence became monitored by the OS (registered and not silently dropped),
    /// and the intervals it was monitored, to tell visits entered while unmonitored.
    var monitoredSince: [String: Double] = [:]
    var monitoredIntervals: [String: [ClosedRange<Double>]] = [:]
    /// The intervals the strategy had declared saturation, [since, until).
    var saturatedSince: Double?
    var saturatedIntervals: [Range<Double>] = []

    /// What the strategy asks for, read after each call to it (it changes only then).
    var asks: BackgroundFixes
    var declaresSaturation: Bool
    var exact: Bool
    let decidesPlaceEvents: Bool
    let reportsVisits: Bool

    init(_ replay: PlatformReplay, walk: Walk, walkIndex: Int, strategy: Strategy) {
        self.strategy = strategy
        report.walks = 1
        // The walk's time less its recording gaps (`Walk.gapSeconds`): where the phone was, and
        // whether it was on, nobody knows there, so energy per hour is over the time recorded. A
        // gap filled as a stay (`Walk.fillingStillGaps`) is recorded time.
        if let first = walk.samples.first, let last = walk.samples.last {
            report.seconds = last.timeSeconds - first.timeSeconds - walk.gaps.reduce(0) { $0 + $1.upperBound - $1.lowerBound }
        }
        let platform = replay.platform
        emulator = RegionMonitorEmulator(
            platform: platform, regionLimit: strategy.ignoresRegionLimit ? .max : platform.profile.regionLimit,
            seed: replay.seed &+ 0xA076_1D64_78BD_642F &* UInt64(walkIndex + 1))
        placeSlots = replay.placeSlots
        wakeSeed = replay.seed &+ 0xE703_7ED1_A0B4_28DB &* UInt64(walkIndex + 1)
        networkRandom = SplitMix64(seed: wakeSeed ^ 0x5EED_0F0F_57A7_1C00)
        networkNoise = replay.networkFixNoise
        networkAccuracy = replay.networkFixAccuracyMeters
        let sources = platform.profile.locationSources
        wakeFix = sources.first { $0.kind == .wakeFix }?.timeToFixSeconds ?? 0...0
        significant = sources.first { $0.kind == .significantChange } ?? sources.first { $0.kind == .backgroundUpdates }
        energy = platform.profile.energy
        motion = strategy.usesMotionActivity ? MotionActivityClassifier(platform.motionActivity) : nil
        rebootEverySeconds = replay.rebootEverySeconds
        nextReboot = replay.rebootEverySeconds.map { (walk.samples.first?.timeSeconds ?? 0) + $0 }
        asks = strategy.backgroundFixes
        declaresSaturation = strategy.declaresSaturation
        exact = strategy.guaranteeIsExact
        decidesPlaceEvents = strategy.decidesPlaceEvents
        reportsVisits = strategy.reportsVisits
    }

    /// One sample of the walk: a due reboot resets the phone, the phone advances to the true
    /// position, the first fix begins the strategy, the phone's events are delivered, a due wake hands the
    /// strategy its fix, and the background fixes the strategy asks for reach it.
    mutating func step(_ index: Int, _ sample: Walk.Sample, vector: UnitVector, nextTime: Double) {
        let time = sample.timeSeconds
        strategy.willHandleSample(index)
        // The phone knows where it is before the app first registers: a region registered then
        // has its state at once (a trigger asked for its state and outside reports its exit at
        // a later position, never to the fix it was planned from).
        if begun, let reboot = nextReboot, time >= reboot {
            nextReboot = reboot + (rebootEverySeconds ?? .infinity)
            self.reboot(at: time)
        }
        if let previous = previousTrue, time > previous.timeSeconds {
            let speed = Earth.meanRadiusMeters * previous.vector.angleRadians(to: vector) / (time - previous.timeSeconds)
            driving = speed > PlatformReplayReport.drivingSpeedMetersPerSecond
        }
        previousTrue = (vector, time)
        if driving { report.drivingSeconds += nextTime - time }
        events.removeAll(keepingCapacity: true)
        emulator.advance(to: vector, poleLongitudeRadians: sample.truePosition.longitudeRadians, at: time, into: &events)
        if !begun, let fix = sample.fix {
            begun = true
            report.fixesRequested += 1
            if strategy.usesVisitMonitoring { emulator.startMonitoringVisits() }
            timeline?.fixes.append(.init(fix: fix, source: .start, fromNetwork: false, timeSeconds: time))
            apply(strategy.begin(at: fix), at: time)
            lastBackground = (time, fix.coordinate)
            lastPeriodic = time
        }
        deliverEvents()
        if let due = wake, time >= due.dueSeconds, let sampleFix = sample.fix {
            wake = nil
            report.fixesRequested += 1
            // The receiver runs until the fix comes, unless continuous updates keep it on anyway;
            // indoors it finds no satellites and runs to its longest before the Wi-Fi position. A
            // network fix leaves it off.
            let fromNetwork = strategy.wakeFixFromNetwork && asks != .continuous
            let fix = fromNetwork ? networkFix(sample) ?? sampleFix : sampleFix
            if fromNetwork {
                report.networkFixes += 1
            } else if asks != .continuous {
                report.gnssOnSeconds += sample.indoors ? wakeFix.upperBound : due.fixSeconds
            }
            if strategy.sendsUpdatesToServer { report.serverRequests += 1 }
            timeline?.fixes.append(.init(fix: fix, source: .wake, fromNetwork: fromNetwork, timeSeconds: time))
            apply(strategy.triggerExited(due.id, at: fix), at: time)
        }
        guard begun else { return }
        motionActivity(sample, vector: vector)
        for visit in emulator.takeVisits() {
            report.signalWakeups += 1
            if sample.fix != nil, strategy.sendsUpdatesToServer { report.serverRequests += 1 }
            apply(strategy.visitReported(visit, fix: sample.fix), at: time)
        }
        backgroundFix(sample, nextTime: nextTime)
        if !exact { report.notExactSeconds += nextTime - time }
        if decidesPlaceEvents {
            entries += strategy.takeEntries()
            exits += strategy.takeExits()
        }
        if reportsVisits {
            visitsReported += strategy.takeVisits()
            for departure in strategy.takeDepartures() where visitsReported.indices.contains(departure.visit) {
                visitsReported[departure.visit].departureSeconds = departure.timeSeconds
            }
        }
        if declaresSaturation {
            if saturatedSince == nil { saturatedSince = time }
        } else if let since = saturatedSince {
            saturatedIntervals.append(since..<time)
            saturatedSince = nil
        }
    }

    /// The phone restarts; when every registration is gone, the host registers again from scratch.
    mutating func reboot(at time: Double) {
        emulator.reboot(at: time)
        timeline?.reboots.append(.init(timeSeconds: time, registrationsLost: emulator.registeredIDs.isEmpty))
        guard emulator.registeredIDs.isEmpty else { return }
        for (id, since) in monitoredSince { monitoredIntervals[id, default: []].append(since...time) }
        monitoredSince.removeAll()
        registeredPlaces.removeAll()
        registeredTriggers.removeAll()
        apply(strategy.platformReset(at: time) ?? lastRegions, at: time)
    }

    /// The fix a network request obtains at `sample`: indoors the sample's own (a Wi-Fi
    /// position); outdoors the true position off by the network error, which follows a
    /// first-order Gauss–Markov process between the fixes made (`PlatformReplay.networkFixNoise`).
    /// Nil where the sample has no fix. A recorded fix no more precise than a network fix (its
    /// accuracy at least `networkAccuracy`: a recorded day's Wi-Fi and cell positions) is one,
    /// and is the fix as recorded.
    mutating func networkFix(_ sample: Walk.Sample) -> Fix? {
        guard let fix = sample.fix else { return nil }
        let sigma = networkNoise.sigmaMeters
        guard !sample.indoors, sigma > 0, (fix.accuracyMeters ?? 0) < networkAccuracy else { return fix }
        let time = sample.timeSeconds
        var error: GaussMarkovError
        if let last = networkError {
            error = last.error
            error.advance(seconds: max(0, time - last.timeSeconds), noise: networkNoise, using: &networkRandom)
        } else {
            error = GaussMarkovError(sigmaMeters: sigma, using: &networkRandom)
        }
        networkError = (error, time)
        return Fix(error.applied(to: sample.truePosition), accuracyMeters: networkAccuracy, timestampSeconds: fix.timestampSeconds ?? time)
    }

    /// The events the phone delivered: a trigger's exit schedules the woken app's fix, a place
    /// event goes to a strategy that decides its own, or an entry is received.
    mutating func deliverEvents() {
        for event in events {
            // No strategy asks for dwell transitions yet.
            guard event.kind != .dwell else { continue }
            report.eventsDelivered += 1
            let isTrigger = registeredTriggers.contains { $0.id == event.regionID }
            timeline?.events.append(.init(event: event, isTrigger: isTrigger))
            if isTrigger {
                if event.kind == .exit, wake == nil {
                    // Keyed by the delivery time: the same wakeup takes as long under any strategy.
                    var random = SplitMix64(seed: wakeSeed ^ event.deliveredAtSeconds.bitPattern)
                    _ = random.next()
                    // A fixed time (the ideal phone's 0) is that time: the fix comes at the delivery.
                    let fixSeconds =
                        wakeFix.lowerBound == wakeFix.upperBound
                        ? wakeFix.lowerBound : random.nextDouble(in: wakeFix.lowerBound..<wakeFix.upperBound + 1e-9)
                    wake = (event.regionID, event.deliveredAtSeconds + fixSeconds, fixSeconds)
                }
            } else if decidesPlaceEvents {
                strategy.placeEvent(event.regionID, entered: event.kind == .enter, at: event.deliveredAtSeconds)
                // The event may change the location service the app asks for.
                apply(nil, at: event.deliveredAtSeconds)
            } else if event.kind == .enter {
                entries.append(ReceivedEntry(placeID: event.regionID, timeSeconds: event.deliveredAtSeconds))
            }
        }
    }

    /// A change the motion classifier reports now reaches the strategy when the app runs (it
    /// asks for continuous fixes) or the platform's transitions wake it.
    mutating func motionActivity(_ sample: Walk.Sample, vector: UnitVector) {
        guard var classifier = motion else { return }
        defer { motion = classifier }
        guard let still = classifier.advance(to: vector, at: sample.timeSeconds),
            asks == .continuous || classifier.model.wakesSuspendedApp
        else { return }
        if asks != .continuous { report.signalWakeups += 1 }
        if sample.fix != nil, strategy.sendsUpdatesToServer { report.serverRequests += 1 }
        apply(strategy.motionChanged(moving: !still, at: sample.timeSeconds, fix: sample.fix), at: sample.timeSeconds)
    }

    /// The background fix the strategy asks for at this sample, if any.
    mutating func backgroundFix(_ sample: Walk.Sample, nextTime: Double) {
        let time = sample.timeSeconds
        switch asks {
        case .none:
            break
        case .continuous:
            report.gnssOnSeconds += nextTime - time
            if driving { report.gnssDrivingSeconds += nextTime - time }
            if let fix = sample.fix {
                report.backgroundFixes += 1
                if strategy.sendsUpdatesToServer { report.serverRequests += 1 }
                timeline?.fixes.append(.init(fix: fix, source: .continuous, fromNetwork: false, timeSeconds: time))
                apply(strategy.received(fix), at: time)
            }
        case .periodic:
            guard sample.fix != nil, time - (lastPeriodic ?? -.infinity) >= strategy.periodicFixSeconds, let fix = networkFix(sample) else {
                break
            }
            lastPeriodic = time
            report.backgroundFixes += 1
            report.networkFixes += 1
            if strategy.sendsUpdatesToServer { report.serverRequests += 1 }
            timeline?.fixes.append(.init(fix: fix, source: .periodic, fromNetwork: true, timeSeconds: time))
            apply(strategy.received(fix), at: time)
        case .significantChange:
            guard let fix = sample.fix, let significant, let last = lastBackground else { break }
            // A move of the displacement after the shortest interval, or the longest interval
            // without one (iOS wakes the app at least every 15 minutes).
            let interval = significant.intervalSeconds ?? 0...(.infinity)
            let displacement = significant.minimumDisplacementMeters ?? 0
            let elapsed = time - last.timeSeconds
            if elapsed >= interval.upperBound
                || (elapsed >= interval.lowerBound && fix.coordinate.distance(to: last.position) >= displacement),
                let network = networkFix(sample)
            {
                // The OS measures the move by its own estimate; the app gets a network position.
                lastBackground = (time, fix.coordinate)
                report.backgroundFixes += 1
                report.networkFixes += 1
                if strategy.sendsUpdatesToServer { report.serverRequests += 1 }
                timeline?.fixes.append(.init(fix: network, source: .significantChange, fromNetwork: true, timeSeconds: time))
                apply(strategy.received(network), at: time)
            }
        }
    }

    /// Registers `regions` by difference from what is registered (`RegistrationDiff.changes`):
    /// removals first, then places, then triggers, each in the strategy's order. A region the
    /// platform refused is not registered, and is tried again at the next call.
    mutating func apply(_ regions: MonitoredRegions?, at time: Double) {
        asks = strategy.backgroundFixes
        declaresSaturation = strategy.declaresSaturation
        exact = strategy.guaranteeIsExact
        if timeline != nil, timeline?.states.last.map({ ($0.service, $0.exact, $0.saturated) != (asks, exact, declaresSaturation) }) ?? true
        {
            timeline?.states.append(.init(timeSeconds: time, service: asks, exact: exact, saturated: declaresSaturation))
        }
        guard let regions else { return }
        lastRegions = regions
        let triggers = RegistrationDiff.changes(from: registeredTriggers, to: regions.triggers)
        let places = RegistrationDiff.changes(from: registeredPlaces, to: regions.places)
        for trigger in triggers.stop { unregister(trigger.id, trigger.center, trigger.radiusMeters, isTrigger: true, at: time) }
        for fence in places.stop { unregister(fence.id, fence.center, fence.radiusMeters, isTrigger: false, at: time) }
        if !triggers.stop.isEmpty { registeredTriggers.removeAll { triggers.stop.contains($0) } }
        if !places.stop.isEmpty { registeredPlaces.removeAll { places.stop.contains($0) } }
        // Places first, then triggers: the order a host calls in.
        for index in places.start {
            let fence = regions.places[index]
            if register(fence.id, fence.center, fence.radiusMeters, isTrigger: false, at: time) {
                registeredPlaces.append(fence)
                if emulator.isMonitored(fence.id) { monitoredSince[fence.id] = time }
            }
        }
        for index in triggers.start {
            let trigger = regions.triggers[index]
            if register(trigger.id, trigger.center, trigger.radiusMeters, isTrigger: true, at: time, stateRequest: .exitIfOutside) {
                registeredTriggers.append(trigger)
            }
        }
    }

    mutating func register(
        _ id: String, _ center: Coordinate, _ radiusMeters: Double, isTrigger: Bool, at time: Double, stateRequest: StateRequest = .none
    ) -> Bool {
        report.registrationCalls += 1
        let result = emulator.register(id: id, center: center, radiusMeters: radiusMeters, at: time, stateRequest: stateRequest)
        if timeline != nil {
            let outcome: ReplayTimeline.Registration.Outcome =
                switch result {
                case .rejected: .rejected
                case .accepted, .silentlyDropped: emulator.isMonitored(id) ? .monitored : .dropped
                }
            timeline?.registrations.append(
                .init(
                    timeSeconds: time, regionID: id, isTrigger: isTrigger, center: center, radiusMeters: radiusMeters, action: .add,
                    outcome: outcome))
        }
        if case .rejected = result {
            report.rejectedRegistrations += 1
            return false
        }
        return true
    }

    mutating func unregister(_ id: String, _ center: Coordinate, _ radiusMeters: Double, isTrigger: Bool, at time: Double) {
        _ = emulator.unregister(id: id, at: time)
        timeline?.registrations.append(
            .init(
                timeSeconds: time, regionID: id, isTrigger: isTrigger, center: center, radiusMeters: radiusMeters, action: .remove,
                outcome: .removed))
        report.registrationCalls += 1
        if let since = monitoredSince.removeValue(forKey: id) { monitoredIntervals[id, default: []].append(since...time) }
    }

    /// Closes the intervals still open at the walk's end, and prices what was counted.
    mutating func finish(at end: Double) {
        if timeline != nil {
            let triggerIDs = Set(registeredTriggers.map(\.id))
            timeline?.undelivered = emulator.undeliveredEvents.map { .init(event: $0, isTrigger: triggerIDs.contains($0.regionID)) }
        }
        // Region events and motion transitions wake the app; continuous fixes reach an app kept
        // awake with the receiver (priced in its power), network fixes wake it each.
        report.energyJoules = energy.energyJoules(
            gnssOnSeconds: report.gnssOnSeconds, wakeups: report.eventsDelivered + report.signalWakeups, networkFixes: report.networkFixes,
            serverRequests: report.serverRequests, seconds: report.seconds)
        report.energyGNSSJoules = energy.gnssMilliwatts / 1_000 * report.gnssOnSeconds
        report.batteryMilliwattHours = energy.batteryMilliwattHours
        for (id, since) in monitoredSince { monitoredIntervals[id, default: []].append(since...max(since, end)) }
        monitoredSince.removeAll()
        if let since = saturatedSince { saturatedIntervals.append(since..<Double.infinity) }
        saturatedSince = nil
    }

    /// Scores the entries received against the true visits, and counts the visits entered while
    /// their fence was not monitored (avoidable when the true entry point was inside no more
    /// fences than `placeSlots` and the strategy had not declared saturation).
    mutating func score(visits: [Visit], nearVisits: [Visit]) {
        report.score = VisitOracle.score(visits: visits, nearVisits: nearVisits, entries: entries)
        for visit in visits where !(monitoredIntervals[visit.placeID] ?? []).contains(where: { $0.contains(visit.entrySeconds) }) {
            report.visitsEnteredUnmonitored += 1
            // Fences the true position is inside at this entry: the visits under way then.
            let inside = visits.filter { $0.entrySeconds <= visit.entrySeconds && visit.entrySeconds <= $0.exitSeconds }.count
            let saturated = saturatedIntervals.contains { $0.contains(visit.entrySeconds) }
            if inside <= placeSlots, !saturated { report.avoidableVisitsEnteredUnmonitored += 1 }
        }
    }
}
