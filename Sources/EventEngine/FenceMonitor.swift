import FencePlanner
import FenceRules
import Geodesy
import PlatformFacts
import SpatialIndex

/// One device's geofence event engine: platform region events and fixes in; place events
/// (one entry and one exit per visit), registration operations and the location service the app
/// needs out.
///
/// - **What the platform monitors** is the rotator's selection (`FenceRotator`): the nearest
///   places plus a refresh region, reselected on a fix outside it or on the fix after the
///   platform reports leaving it (while `degraded` or `saturated` its radius is the fallback
///   distance, so nearly every fix; under a stop-first visit preset at least
///   `VisitSettings.refreshFloorMeters`, with at most `VisitSettings.placesWhereNotExact` places).
/// - **Deciding in-app.** Every trusted fix is checked against the places within reach (fence
///   edge within `Settings.reachSigmas` σ), registered or not, by the confident rule (`ConfidentRule`'s
///   rule, kept here as Codable state): enter when P(inside) stays above `enterProbability`, leave
///   when it stays below `exitProbability`, each for `dwellFixes` fixes or `dwellMeters` of
///   movement, whichever comes first.
/// - **Merging.** A place's entry is emitted once, by whichever source decides first: a platform
///   entry for a place the app already entered is absorbed, and so is the app's decision for a
///   place the platform entered (the rule then needs contradicting evidence to leave). While the
///   engine asks for continuous fixes, a platform exit is absorbed when a fix at most
///   `platformOverrideSeconds` old puts the user inside; while fixes stream, a platform entry is
///   absorbed when one at most `platformEntryVetoSeconds` old puts the user clearly outside
///   (`platformEntryVetoProbability`): the rule decides there.
///   A place registered while the user is inside it (`insideAtStart`) is entered from a wake fix
///   or a significant change when P(inside) exceeds `enterProbability` (no further fix may come
///   soon; continuous fixes go through the rule); the platform's later state report is absorbed.
/// - **Untrusted fixes** (accuracy worse than the configuration's `maxTrustedAccuracyMeters`,
///   out of order, or older than `maxFixAgeSeconds` before the latest input) never produce an
///   exit: the rule ignores them, and the rotator never drops a fence the user may be inside.
///
/// A value type with no clock: the same inputs give the same outputs. Its `state` is `Codable`;
/// a monitor resumed from it (`init(catalog:configuration:settings:state:)`) answers as the
/// original would.
public struct FenceMonitor: Sendable {
    /// The in-app rule's parameters and what the platform offers.
    public struct Settings: Hashable, Sendable {
        /// P(inside) the evidence must exceed to enter a place, `0...1` (as `ConfidentRule.enterProbability`).
        public var enterProbability = 0.9
        /// P(inside) the evidence must fall below to leave a place, `0...1`, below `enterProbability`.
        public var exitProbability = 0.1
        /// Consecutive contradicting fixes before the in-app rule changes a place's state (≥ 1).
        public var dwellFixes = 3
        /// The evidence may instead persist over this much movement, meters (nil: fixes only,
        /// the published rule; 20 m keeps a car from being carried far through a fence before the
        /// rule reacts, `rotate evaluate --adaptive-dwell`).
        public var dwellMeters: Double?
        /// How a fix's reported accuracy becomes σ for P(inside).
        public var accuracyModel = AccuracyModel.oneSigma
        /// σ for a fix that reports no accuracy, meters.
        public var defaultSigmaMeters = 10.0
        /// Fences whose edge is farther than this many σ are outside without computing
        /// P(inside) (below 3·10⁻⁵ there).
        public var reachSigmas = 4.0
        /// The neighbourhood is queried this much wider than the reach and reused until the
        /// device has moved this far, meters.
        public var neighborhoodSlackMeters = 50.0
        /// While the engine asks for continuous fixes, a platform exit is absorbed when a fix this
        /// recent (seconds) put the user inside.
        public var platformOverrideSeconds = 30.0
        /// While fixes stream (asked for, or the last one was a continuous update), a platform
        /// entry is absorbed when a fix this recent (seconds) put the user clearly outside.
        public var platformEntryVetoSeconds = 5.0
        /// "Clearly outside": P(inside) below this at that fix (about 2.3 σ past the edge of a
        /// large fence). Stricter than `exitProbability`, so that a user walking along the edge
        /// inside a fence (fixes scattered across it, the rule never confident) keeps the
        /// platform's entry.
        public var platformEntryVetoProbability = 0.01
        /// A fix older than this before the latest input is stale, seconds.
        public var maxFixAgeSeconds = 60.0
        /// Places that report a dwell event after this many seconds inside (Android's loitering
        /// delay), by place id.
        public var dwellSeconds: [String: Double] = [:]
        /// What to ask for while `exact` with places unmonitored: a late refresh exit's backstop.
        public var exactBackstop = LocationRequest.significantChanges
        /// Store visits from stays of the fixes (`MonitorOutput.visits`); nil: none are reported.
        public var visits: VisitSettings?

        /// The defaults: the published confident rule (0.9 / 0.1, 3 fixes), a significant-change
        /// backstop, no dwell events.
        public init() {}

        /// The defaults, with the backstop the platform offers (significant changes or
        /// background updates; none when it has neither).
        public init(profile: PlatformProfile) {
            let kinds = Set(profile.locationSources.map(\.kind))
            exactBackstop = kinds.contains(.significantChange) || kinds.contains(.backgroundUpdates) ? .significantChanges : .none
        }
    }

    /// The rotation: what the platform holds and the next reselection.
    public internal(set) var rotator: FenceRotator
    /// The in-app rule's parameters and the platform's offer, fixed for the monitor's life.
    public let settings: Settings
    /// What to store between inputs (`Codable`); see `MonitorState.isWorthStoring(comparedTo:)`.
    public internal(set) var state: MonitorState
    /// Catalog positions of `state.tracks` (−1: not in this catalog), and their unit vectors.
    var trackPositions: [Int] = []
    var trackVectors: [UnitVector] = []
    /// The neighbourhood last queried: catalog positions with fence edges within `reach` of `center`.
    var neighborhood: [Int] = []
    var neighborhoodCenter: UnitVector?
    var neighborhoodReachMeters = 0.0
    var buffer = NeighborBuffer()
    /// Whether a fix the refresh region provably keeps away from every unmonitored place skips
    /// the index search (`nothingNewWithinReach`); off only to test that the answers are the same.
    var boundsNeighborhoodByRefresh = true

    /// The catalog version the monitor works with (replaced by a `.catalog` input): its places
    /// decide in-app and attribute visits; the rotator plans on its `planning` catalog, which
    /// registers places smaller than the platform resolves by approach regions.
    public internal(set) var catalog: PlaceCatalog

    /// A monitor with nothing registered: its first usable fix selects.
    ///
    /// ```swift
    /// let catalog = try PlaceCatalog(places: places)  // once, shared by every device
    /// let configuration = RotationConfiguration.preset(.android, maxSpeedMetersPerSecond: 1.4, fixIntervalSeconds: 5)
    /// var monitor = try FenceMonitor(catalog: catalog, configuration: configuration, settings: .init(profile: .android))
    /// print(monitor.locationRequest())  // oneFix: nothing is registered until the first fix
    /// ```
    ///
    /// - Throws: `ConfigurationError` when `configuration` is invalid (the first rule of
    ///   `RotationConfiguration.validated()` it breaks).
    public init(catalog: PlaceCatalog, configuration: RotationConfiguration, settings: Settings = Settings())
        throws(ConfigurationError)
    {
        rotator = try FenceRotator(catalog: catalog.planning, configuration: configuration)
        self.catalog = catalog
        self.settings = settings
        state = MonitorState()
    }

    /// A monitor resuming from a stored state (see `FenceRotator.init(catalog:configuration:state:)`
    /// for what makes a state foreign).
    ///
    /// The state may have been planned against another catalog version: it is re-validated, and
    /// places it tracks that are gone or redefined end their visits at the next input.
    ///
    /// - Throws: `RotatorStateError.invalidConfiguration` when `configuration` is invalid, and
    ///   `.foreign` when the state's registrations cannot belong to this catalog and configuration.
    public init(catalog: PlaceCatalog, configuration: RotationConfiguration, settings: Settings = Settings(), state: MonitorState)
        throws(RotatorStateError)
    {
        rotator = try FenceRotator(catalog: catalog.planning, configuration: configuration, state: state.rotator)
        self.catalog = catalog
        self.settings = settings
        self.state = state
        // A state re-stamped with this catalog's version (still holding after a change).
        self.state.rotator = rotator.state
        rebuildTrackPositions()
    }

    /// A monitor resuming from a packed state (no place looked up by id): as
    /// `init(catalog:configuration:settings:state:)` with the unpacked state.
    ///
    /// - Precondition: packed against `catalog`.
    /// - Throws: `RotatorStateError`, as `init(catalog:configuration:settings:state:)` throws it.
    public init(catalog: PlaceCatalog, configuration: RotationConfiguration, settings: Settings = Settings(), packed: PackedMonitorState)
        throws(RotatorStateError)
    {
        rotator = try FenceRotator(catalog: catalog.planning, configuration: configuration, packed: packed.rotator)
        self.catalog = catalog
        self.settings = settings
        state = packed.others
        state.rotator = rotator.state
        rebuildTrackPositions()
    }

    /// Resumes another packed state with this monitor's catalog, configuration, settings and
    /// scratch (buffers and caches any position may use): as
    /// `init(catalog:configuration:settings:packed:)`, without making the planner again.
    ///
    /// - Precondition: packed against the monitor's catalog.
    /// - Throws: `RotatorStateError.foreign` when the state cannot belong to the monitor's catalog
    ///   and configuration; the monitor is then unchanged.
    public mutating func resume(packed: PackedMonitorState) throws(RotatorStateError) {
        try rotator.resume(packed: packed.rotator)
        state = packed.others
        state.rotator = rotator.state
        rebuildTrackPositions()
    }

    /// The state, packed against the monitor's catalog.
    public var packedState: PackedMonitorState {
        PackedMonitorState(rotator: rotator.packedState, others: state)
    }

    mutating func rebuildTrackPositions() {
        trackPositions = state.tracks.map { track in
            catalog.position(of: track.id).flatMap {
                catalog.fences[$0].center == track.center && catalog.fences[$0].radiusMeters == track.radiusMeters ? $0 : nil
            } ?? -1
        }
        trackVectors = state.tracks.map { UnitVector($0.center) }
        neighborhoodCenter = nil
    }

    /// Handles one input and says what to do.
    ///
    /// Inputs come in time order, each with its own time (the engine has no clock). An input
    /// without a finite time changes nothing and says why in `MonitorOutput.ignored`; so does a
    /// fix that is out of order, too old or unusable, and a region event for an identifier that is
    /// neither the refresh region nor a place of the catalog.
    ///
    /// ```swift
    /// let here = try Coordinate(latitude: 46.0511, longitude: 14.5051)
    /// let output = monitor.handle(.fix(Fix(here, accuracyMeters: 8, timestampSeconds: 1_000), source: .wakeFix))
    /// for operation in output.operations { print(operation) }  // apply in this order
    /// for event in output.placeEvents { print(event.placeID, event.kind, event.evidence.name) }
    /// let report = RegionReport(regionID: "refresh-0", kind: .exit, timeSeconds: 1_300)
    /// print(monitor.handle(.region(report)).location)  // oneFix: the next fix reselects
    /// ```
    ///
    /// - Returns: the place events, the registration operations in their safe order, and the
    ///   location service to run from now on, with the guarantee in force.
    public mutating func handle(_ input: MonitorInput) -> MonitorOutput {
        var output = MonitorOutput()
        guard let time = input.timeSeconds, time.isFinite else {
            output.ignored = "the input has no finite time"
            return finish(output, at: state.lastInputSeconds ?? 0)
        }
        chargeBudget(until: time)
        let stopFirst = visitRules.flatMap { $0.passages ? nil : $0 }
        rotator.refreshFloorMeters = stopFirst?.refreshFloorMeters ?? 0
        rotator.placesWhereNotExact = stopFirst?.placesWhereNotExact
        // A state resumed over another catalog version may track places that are gone or were
        // redefined: their visits end now.
        if trackPositions.contains(-1) { endTracksNotInCatalog(at: time, into: &output) }
        switch input {
        case .fix(let fix, let source):
            handleFix(fix, source: source, at: time, into: &output)
        case .region(let report):
            handleRegion(report, into: &output)
        case .motion(let report):
            handleMotion(report, into: &output)
        case .platformReset:
            if let refresh = rotator.state.refresh { output.operations.append(.startRefresh(refresh)) }
            output.operations += rotator.state.monitored.map(RegistrationOperation.start)
            // The device may have left the refresh circle while nothing was registered, and a
            // region registered with the device already outside it never reports that exit: the
            // next fix reselects.
            if rotator.state.refresh != nil { state.refreshExitPending = true }
            // Events the platform had decided but not delivered are gone, and it reports no entry
            // for a region registered with the device inside: the next fix decides those places.
            state.resetPending = true
        case .registered(let identifiers, _):
            output.reconciliation = rotator.reconcile(registered: identifiers)
        case .catalog(let newCatalog, _):
            handleCatalog(newCatalog, at: time, into: &output)
        }
        if output.ignored == nil { state.lastInputSeconds = max(state.lastInputSeconds ?? time, time) }
        return finish(output, at: time)
    }

    /// Dwell events due at `time`, the events in a stable order, and the location request.
    private mutating func finish(_ output: MonitorOutput, at time: Double) -> MonitorOutput {
        var output = output
        if output.ignored == nil, !settings.dwellSeconds.isEmpty {
            for i in state.tracks.indices where state.tracks[i].inside && !state.tracks[i].dwellReported {
                guard let dwell = settings.dwellSeconds[state.tracks[i].id], let entered = state.tracks[i].enteredSeconds,
                    time - entered >= dwell
                else { continue }
                state.tracks[i].dwellReported = true
                output.placeEvents.append(
                    PlaceEvent(placeID: state.tracks[i].id, kind: .dwell, timeSeconds: time, evidence: .timeInside))
            }
        }
        state.rotator = rotator.state
        output.guarantee = rotator.state.guarantee
        output.location = locationRequest()
        output.oneFixFromNetwork = oneFixFromNetwork
        if output.location == .oneFix, output.ignored == nil, let budget = settings.visits?.budget, let account = state.energy {
            state.energy = budget.account(
                account, until: time, under: .none, oneOffJoules: budget.oneFixJoules(fromNetwork: output.oneFixFromNetwork))
        }
        output.givenUp = state.energy?.goalsGivenUp ?? []
        return output
    }

    /// Charges the battery budget's account (`VisitSettings.budget`) for the location service in
    /// force since its last charge, the one the previous output asked for; opens a full account
    /// at the first input.
    private mutating func chargeBudget(until time: Double) {
        guard let budget = settings.visits?.budget else { return }
        guard let account = state.energy else {
            state.energy = EnergyAccount(balanceJoules: budget.capacityJoules, seconds: time)
            return
        }
        state.energy = budget.account(account, until: time, under: locationRequest())
    }

    /// How many goals the battery budget gives up now (`VisitGoal.allCases`, in order; 0
    /// without a budget).
    var goalsGivenUp: Int { settings.visits?.budget == nil ? 0 : state.energy?.givenUp ?? 0 }

    /// The visit settings in force: `Settings.visits` less what the battery budget gives up
    /// (`passageEntries`: no GNSS for passages, one-off fixes from the network; `precision`: no
    /// GNSS confirmation; `latency`: network fixes four times rarer).
    var visitRules: VisitSettings? {
        guard var rules = settings.visits else { return nil }
        let givenUp = goalsGivenUp
        if givenUp >= 1 {
            rules.passages = false
            rules.networkWakeFix = true
        }
        if givenUp >= 2 { rules.confirmSeconds = 0 }
        if givenUp >= 3 {
            rules.burstIntervalSeconds *= 4
            rules.watchIntervalSeconds *= 4
            rules.visitIntervalSeconds *= 4
        }
        return rules
    }

    /// Whether the one-off fix the engine asks for (`LocationRequest.oneFix`) may come from
    /// Wi-Fi or cell (`VisitSettings.networkWakeFix`, or a budget that gave up `passageEntries`).
    public var oneFixFromNetwork: Bool { visitRules?.networkWakeFix ?? false }

    /// The least location service that keeps the guarantee (see `LocationRequest`), and, with
    /// `Settings.visits`, sees stops: network fixes in a burst after a cue (a place entered, the
    /// platform saying the user became still) until the stay is a visit or the user moves on,
    /// then every `watchIntervalSeconds` while inside a place without a visit; where the regions
    /// cannot protect every place and `VisitSettings.passages` is off, network fixes instead of
    /// GNSS.
    /// A battery budget (`VisitSettings.budget`) that gave up `stops` leaves only the one-off
    /// fixes and what needs no fix of the engine's own; one that gave up `reselection` also
    /// leaves the fix after a refresh exit to the backstop (significant changes).
    public func locationRequest() -> LocationRequest {
        let givenUp = goalsGivenUp
        let backstop = rotator.state.refresh == nil ? LocationRequest.none : settings.exactBackstop
        if rotator.state.reselections == 0 || rotator.mustReselect { return .oneFix }
        if state.refreshExitPending {
            return givenUp >= 5 && settings.exactBackstop == .significantChanges ? .significantChanges : .oneFix
        }
        let request = visitRequest()
        guard givenUp >= 4 else { return request }
        switch request {
        case .continuous, .networkFixes: return backstop
        case .none, .significantChanges, .oneFix: return request
        }
    }

    /// Whether the platform reported the entry of a place's approach region (`VisitCue.placeID`,
    /// a place `PlaceCatalog.registersByApproach`) and the last trusted fix lies within that region.
    func nearApproachedPlace() -> Bool {
        guard let id = state.cue?.placeID, let position = catalog.position(of: id), catalog.registersByApproach(position),
            let fix = state.lastTrustedFix
        else { return false }
        return catalog.planning.fences[position].center.distance(to: fix) <= catalog.planning.radiiMeters[position]
    }

    /// Whether a visit under way has lasted `settleSeconds` with no fix beyond it.
    func settled(_ rules: VisitSettings) -> Bool {
        guard let stay = state.stay, let visit = stay.arrival, stay.outside == 0 else { return false }
        return (state.lastInputSeconds ?? stay.lastSeconds) - visit.arrivalSeconds >= rules.settleSeconds
    }

    /// `locationRequest()` past its one-off fix, by the visit settings in force (`visitRules`).
    private func visitRequest() -> LocationRequest {
        let passages = visitRules?.passages ?? true
        // A place entered in-app that the platform does not monitor: only fixes can see its exit.
        let monitored = rotator.state.monitored
        let unmonitoredInside = state.tracks.contains { track in track.inside && !monitored.contains { $0.id == track.id } }
        let regions: LocationRequest =
            if unmonitoredInside {
                .continuous(distanceFilterMeters: 0)
            } else {
                switch rotator.state.guarantee {
                case .saturated?: .continuous(distanceFilterMeters: 0)
                case .degraded(let fallback)?: .continuous(distanceFilterMeters: fallback)
                case .exact?, nil: rotator.state.refresh == nil ? .none : settings.exactBackstop
                }
            }
        guard let rules = visitRules else { return regions }
        // The regions cannot protect every place (or the user is inside one they do not hold).
        let regionsAskForFixes = if case .continuous = regions { true } else { false }
        // A stay about to become a visit whose place its fixes leave uncertain: GNSS for its last
        // `confirmSeconds`, whose fixes (where the sky is in view) attribute it within meters and
        // tell a walker from a user standing; given up when no precise fix came within
        // `preciseWithinSeconds` (indoors). A stay far from every place, or deep inside a large
        // one, needs no confirmation.
        if rules.confirmSeconds > 0, let stay = state.stay, stay.arrival == nil, stay.count >= 2, let since = stay.confirmSince {
            let now = state.lastInputSeconds ?? stay.lastSeconds
            if (stay.preciseSeconds ?? -.infinity) >= since || (now - since < rules.preciseWithinSeconds && uncertain(stay, rules: rules)) {
                return .continuous(distanceFilterMeters: 0)
            }
        }
        // Driving (the last stay left faster than `drivingSpeedMetersPerSecond`, no stay since):
        // no GNSS for the fences passed; network fixes see the stop when the car parks.
        let driving =
            rules.drivingSpeedMetersPerSecond.map { limit in
                state.stay.map { $0.arrival == nil && ($0.approachSpeed ?? 0) > limit } ?? false
            } ?? false
        // At a visit (at a place or at none) that has lasted `settleSeconds` the user is still:
        // no GNSS for passages, a network fix every `visitIntervalSeconds` to see the departure;
        // a fix beyond the stay brings GNSS back at once. Before, GNSS stays on: a wait at a
        // crossing that became a visit ends within minutes, and the walker then passes fences.
        if regionsAskForFixes, settled(rules) { return .networkFixes(intervalSeconds: rules.visitIntervalSeconds) }
        if passages, !driving, regionsAskForFixes { return regions }
        // Near a place registered by its approach region (entered, per the platform, and the
        // last fix within it): only fixes can see a passage through the place's own fence, so
        // GNSS while a walker is there, until a visit has lasted `settleSeconds`.
        if passages, !driving, nearApproachedPlace(), !settled(rules) { return .continuous(distanceFilterMeters: 0) }
        let arrived = state.stay?.arrival != nil
        // A cue (a place entered, the platform's word that the user became still) looks for a
        // stop with a burst of network fixes.
        let settling = !arrived && (state.stay?.count ?? 0) >= 2
        if let cue = state.cue, cue.moves < rules.burstMoves,
            (state.lastInputSeconds ?? cue.seconds) - cue.seconds <= rules.burstSeconds
        {
            if passages || settling { return .networkFixes(intervalSeconds: rules.burstIntervalSeconds) }
            // Where the regions cannot protect every place the watch's fixes already look for
            // stops, and there a cue is mostly a walker crossing clustered fences.
            if regionsAskForFixes { return .networkFixes(intervalSeconds: max(rules.cueIntervalSeconds, rules.watchIntervalSeconds)) }
            return .networkFixes(intervalSeconds: rules.cueIntervalSeconds)
        }
        // Inside a place (entered, not exited: in-app, or by the platform's region) with no visit
        // naming a place yet: a slower watch, so that a stop that begins after the burst is still
        // seen (the walk from the fence's edge to the door, a return the platform never reported
        // because it never reported the exit); a burst again once two fixes stay.
        if state.stay?.arrival?.placeID == nil, state.cue?.placeID != nil || state.tracks.contains(where: \.inside) {
            return .networkFixes(intervalSeconds: settling ? rules.burstIntervalSeconds : rules.watchIntervalSeconds)
        }
        guard regionsAskForFixes || rules.watchesEverywhere else { return regions }
        if settling { return .networkFixes(intervalSeconds: rules.burstIntervalSeconds) }
        return .networkFixes(intervalSeconds: arrived ? rules.visitIntervalSeconds : rules.watchIntervalSeconds)
    }
}
