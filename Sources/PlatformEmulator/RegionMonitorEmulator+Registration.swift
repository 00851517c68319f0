import Geodesy
import PlatformFacts

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension RegionMonitorEmulator {
    /// Registers a circular region, as `startMonitoring(for:)` or `addGeofences` would.
    ///
    /// A new identifier beyond `regionLimit` monitored regions follows `platform.overLimit`:
    /// stored but not monitored (`.silentlyDropped`, iOS) or refused (`.rejected`, Android 1001).
    /// An identifier already registered follows `platform.reusedIdentifier`: a fresh region, or
    /// the old inside/outside state kept against the old circle until its next transition. A new
    /// region the OS's estimate is already inside (at or within the radius) follows
    /// `platform.insideAtRegistration`; with no estimate yet that is settled at the first
    /// `advance`. Events of a replaced region that were not yet delivered are dropped.
    ///
    /// With `stateRequest`, the app asks for the region's state at registration (`StateRequest`):
    /// a new region the estimate is outside of reports an exit, and, for `.current`, one it is
    /// inside of an entry where the platform reports none by itself (iOS), each with the
    /// platform's latency. Apps ask for the exit of the regions whose exit wakes them (a refresh
    /// region registered from a fix far off the device may not contain it).
    ///
    /// - Parameters:
    ///   - id: the region's identifier.
    ///   - center: the region's center.
    ///   - radiusMeters: finite, `>= 0`.
    ///   - timeSeconds: not earlier than any previous call.
    /// - Complexity: O(1) amortized, plus O(p) for p undelivered events when a region is replaced.
    @discardableResult
    public mutating func register(
        id: String, center: Coordinate, radiusMeters: Double, at timeSeconds: Double, stateRequest: StateRequest = .none,
        dwellAfterSeconds: Double? = nil
    ) -> RegistrationResult {
        precondition(dwellAfterSeconds.map { $0 >= 0 && $0.isFinite } ?? true, "loitering delay must be finite, >= 0")
        let dwell = platform.supportsDwell ? dwellAfterSeconds : nil
        precondition(radiusMeters >= 0 && radiusMeters.isFinite, "radius must be finite, >= 0")
        moveClock(to: timeSeconds)
        // Keyed by the definition: the same region registered again, by any app, gets the same
        // cushions.
        var cushions = keyedRandom(
            id, center.latitude.bitPattern, center.longitude.bitPattern, radiusMeters.bitPattern)
        let entryCushion = draw(platform.entryCushionMeters, using: &cushions)
        let exitCushion = draw(platform.crossings.exitCushionMeters, using: &cushions)
        let depth = min(entryCushion, platform.entryDepthFraction * radiusMeters)
        let geometry = (
            center: UnitVector(center), radiusChord2: Self.squaredChord(arcMeters: radiusMeters),
            entryChord2: Self.squaredChord(arcMeters: radiusMeters - depth),
            exitChord2: Self.squaredChord(arcMeters: radiusMeters + exitCushion)
        )

        if let index = indexByID[id], regions[index].monitored {
            switch platform.reusedIdentifier {
            case .keepsState:
                // The state machine stays on the old circle; the new one takes over after its next
                // transition (a state still unknown has nothing to keep).
                if regions[index].state == .unknown {
                    regions[index].center = geometry.center
                    regions[index].radiusChord2 = geometry.radiusChord2
                    regions[index].entryChord2 = geometry.entryChord2
                    regions[index].exitChord2 = geometry.exitChord2
                } else {
                    regions[index].successor = geometry
                }
                return .accepted
            case .replaces:
                dropPending(for: id)
                regions[index] = newRegion(id: id, monitored: true, geometry: geometry)
                regions[index].stateRequest = stateRequest
                regions[index].dwellAfterSeconds = dwell
                settleInitialState(at: index, timeSeconds: timeSeconds)
                return .accepted
            }
        }

        // A new identifier, or one stored without being monitored: it needs a free slot.
        let hasSlot = monitoredCount < regionLimit
        if !hasSlot, case .error(let code) = platform.overLimit { return .rejected(errorCode: code) }
        var region = newRegion(id: id, monitored: hasSlot, geometry: geometry)
        region.stateRequest = stateRequest
        region.dwellAfterSeconds = dwell
        if let index = indexByID[id] {
            regions[index] = region
        } else {
            indexByID[id] = regions.count
            regions.append(region)
        }
        guard hasSlot else { return .silentlyDropped }
        monitoredCount += 1
        settleInitialState(at: indexByID[id] ?? 0, timeSeconds: timeSeconds)
        return .accepted
    }

    /// Removes a region, as `stopMonitoring(for:)` or `removeGeofences` would; its undelivered
    /// events are dropped and, on Android, its kept state with it.
    ///
    /// - Returns: whether `id` was registered.
    /// - Complexity: O(1) amortized plus O(p) for p undelivered events.
    @discardableResult
    public mutating func unregister(id: String, at timeSeconds: Double) -> Bool {
        moveClock(to: timeSeconds)
        guard let index = indexByID.removeValue(forKey: id) else { return false }
        if regions[index].monitored { monitoredCount -= 1 }
        let last = regions.count - 1
        if index != last {
            regions.swapAt(index, last)
            indexByID[regions[index].id] = index
        }
        regions.removeLast()
        dropPending(for: id)
        return true
    }

    /// The device restarts: unless `platform.regionsSurviveReboot`, every region and every
    /// undelivered event is gone and the app must register again.
    public mutating func reboot(at timeSeconds: Double) {
        moveClock(to: timeSeconds)
        if !platform.regionsSurviveReboot { removeAll() }
    }

    /// The app is updated: unless `platform.regionsSurviveAppUpdate`, every region and every
    /// undelivered event is gone.
    public mutating func updateApp(at timeSeconds: Double) {
        moveClock(to: timeSeconds)
        if !platform.regionsSurviveAppUpdate { removeAll() }
    }

    // MARK: - Internals

    mutating func moveClock(to timeSeconds: Double) {
        precondition(timeSeconds.isFinite, "time must be finite")
        precondition(timeSeconds >= lastTimeSeconds, "calls must come in time order: \(timeSeconds) s after \(lastTimeSeconds) s")
        lastTimeSeconds = timeSeconds
    }

    mutating func removeAll() {
        regions.removeAll(keepingCapacity: true)
        indexByID.removeAll(keepingCapacity: true)
        pending.removeAll(keepingCapacity: true)
        monitoredCount = 0
    }

    func draw(_ range: ClosedRange<Double>, using random: inout SplitMix64) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * random.nextUnit()
    }

    /// A stream keyed by the seed, `id` and up to three more words (FNV-1a over the bytes, then
    /// SplitMix64's finalizer through the first draw).
    func keyedRandom(_ id: String, _ a: UInt64, _ b: UInt64 = 0, _ c: UInt64 = 0) -> SplitMix64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ seed
        for byte in id.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        hash = (hash ^ a) &* 0x0000_0100_0000_01B3
        hash = (hash ^ b) &* 0x0000_0100_0000_01B3
        hash = (hash ^ c) &* 0x0000_0100_0000_01B3
        var random = SplitMix64(seed: hash)
        random.state = random.next()
        return random
    }

    func newRegion(
        id: String, monitored: Bool, geometry: (center: UnitVector, radiusChord2: Double, entryChord2: Double, exitChord2: Double)
    ) -> _Region {
        _Region(
            id: id, monitored: monitored, center: geometry.center, radiusChord2: geometry.radiusChord2, entryChord2: geometry.entryChord2,
            exitChord2: geometry.exitChord2, successor: nil, state: .unknown, candidateSinceSeconds: .nan)
    }

    /// The state of a new region from the current estimate (at or within the plain radius is
    /// inside), with the platform's initial entry if any, or the exit the app asked for when
    /// outside. Without an estimate it stays unknown.
    mutating func settleInitialState(at index: Int, timeSeconds: Double) {
        guard let estimate else { return }
        let inside = estimate.squaredChord(to: regions[index].center) <= regions[index].radiusChord2
        regions[index].state = inside ? .inside : .outside
        switch (regions[index].stateRequest, inside, platform.insideAtRegistration) {
        case (.exitIfOutside, false, _), (.current, false, _): decide(.exit, regionID: regions[index].id, at: timeSeconds)
        case (.current, true, .noEvent): decide(.enter, regionID: regions[index].id, at: timeSeconds)
        default: break
        }
        guard inside, case .initialEnter(let dropProbability) = platform.insideAtRegistration else { return }
        var random = keyedRandom(regions[index].id, 1, timeSeconds.bitPattern)
        let dropped = random.nextUnit() < dropProbability
        if !dropped { decide(.enter, regionID: regions[index].id, at: timeSeconds) }
        // Android's default initial trigger reports DWELL at once too (`INITIAL_TRIGGER_DWELL`).
        if !dropped, regions[index].dwellAfterSeconds != nil { regions[index].dwellDueSeconds = timeSeconds }
    }

    /// Queues an event decided now, delivered after a drawn latency.
    mutating func decide(_ kind: RegionEvent.Kind, regionID: String, at timeSeconds: Double) {
        var random = keyedRandom(regionID, kind == .enter ? 2 : kind == .exit ? 3 : 4, timeSeconds.bitPattern)
        let latency = isStill(at: timeSeconds) ? platform.stillLatency?.latency ?? platform.crossings.latency : platform.crossings.latency
        let delivered = timeSeconds + latency.quantile(random.nextUnit())
        let item = _Pending(
            event: RegionEvent(kind: kind, regionID: regionID, decidedAtSeconds: timeSeconds, deliveredAtSeconds: delivered),
            sequence: sequence)
        sequence += 1
        // Sorted insertion from the back: the new item goes after every item due no later.
        var position = pending.count
        while position > 0, pending[position - 1].event.deliveredAtSeconds > delivered { position -= 1 }
        pending.insert(item, at: position)
    }

    /// Whether the device has stayed within the still radius long enough for the platform's
    /// still latency (never without one).
    func isStill(at timeSeconds: Double) -> Bool {
        guard let still = platform.stillLatency, stillAnchor != nil else { return false }
        return timeSeconds - stillSinceSeconds >= still.afterSeconds
    }

    mutating func dropPending(for id: String) {
        pending.removeAll { $0.event.regionID == id }
    }

    /// Squared chord, in Earth radii squared, of a great-circle arc of `arcMeters` (negative arcs
    /// count as 0, arcs beyond half the circumference as the antipode).
    static func squaredChord(arcMeters: Double) -> Double {
        let angle = min(max(arcMeters, 0), Earth.halfCircumferenceMeters) / Earth.meanRadiusMeters
        let chord = 2 * sin(angle / 2)
        return chord * chord
    }
}

/// What an app asks of a region's state when it registers it.
public enum StateRequest: Hashable, Sendable {
    /// Nothing: only crossings from then on (and the platform's own initial entry, if any).
    case none
    /// An exit when the device is outside (Android `INITIAL_TRIGGER_EXIT`; an iOS app acting only
    /// on an outside answer to `requestState(for:)`).
    case exitIfOutside
    /// The state either way (iOS `requestState(for:)` answered by
    /// `locationManager(_:didDetermineState:for:)`): an exit outside, an entry inside.
    case current
}
