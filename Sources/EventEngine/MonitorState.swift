import FencePlanner
import Geodesy

/// The stored part of a `FenceMonitor`: the rotator's registrations, the places the engine is
/// deciding (inside, or near enough to enter) and the last fix, with a format version.
public struct MonitorState: Hashable, Sendable, Codable {
    /// The version this build writes and reads.
    public static let currentFormatVersion = 1

    /// The format version, `format_version` in JSON (always `currentFormatVersion`).
    public var formatVersion = MonitorState.currentFormatVersion
    /// What the platform holds.
    public var rotator = RotatorState()
    /// The places being decided, in the order they were first tracked.
    public var tracks: [PlaceTrack] = []
    /// The last fix the in-app rule used (its step starts the next fix's dwell distance).
    public var lastTrustedFix: Coordinate?
    /// That fix's time, seconds.
    public var lastTrustedFixSeconds: Double?
    /// Whether that fix was a continuous update (more are coming).
    public var lastTrustedFixContinuous = false
    /// The latest time of any input (a fix older than `Settings.maxFixAgeSeconds` before it is stale).
    public var lastInputSeconds: Double?
    /// The last fix's time, any trust: an earlier or equal one is out of order.
    public var lastFixSeconds: Double?
    /// The platform reported leaving the refresh region: the next usable fix reselects.
    public var refreshExitPending = false
    /// The platform lost its registrations: the next trusted fix enters the monitored places it
    /// is inside (no entry will come from the platform for them).
    public var resetPending = false
    /// The stay under way, when the engine reports visits (`FenceMonitor.Settings.visits`).
    public var stay: Stay?
    /// The last cue to look for a stop (a place entered), while visits are reported.
    public var cue: VisitCue?
    /// The battery budget's account, when the settings hold one (`VisitSettings.budget`); nil
    /// until the first input.
    public var energy: EnergyAccount?

    /// The state of a new monitor: nothing registered, nothing tracked, no input yet.
    public init() {}

    /// Whether this state differs from `stored` (the state last written back; nil: none yet) in
    /// a way worth writing back: its registrations, guarantee or catalog version, the places it
    /// is deciding, its pending flags, or its last fix and times while it decides places or
    /// receives a stream of fixes (a platform entry is judged against the last fix of a stream:
    /// `FenceMonitor.Settings.platformEntryVetoSeconds`).
    ///
    /// Every input changes the state (at least `lastInputSeconds`), but most reports of a device
    /// inside its refresh region and near no place change nothing else: an engine resumed from
    /// the state stored before them answers every later input in time order exactly as the
    /// uninterrupted engine does. The only difference: resumed, it accepts a report older than
    /// one it had already answered (its clock is the stored one). A battery budget's account is
    /// written back when what it gives up changes: resumed, the engine charges the time since
    /// as one span of the service then in force, which the inputs between did not change. The sidecar writes its database
    /// by this rule; a host that stores states writes back only when it holds.
    public func isWorthStoring(comparedTo stored: MonitorState?) -> Bool {
        guard let stored else { return true }
        if rotator != stored.rotator || tracks != stored.tracks || refreshExitPending != stored.refreshExitPending
            || resetPending != stored.resetPending || lastTrustedFixContinuous != stored.lastTrustedFixContinuous
            || formatVersion != stored.formatVersion || stay != stored.stay || cue != stored.cue
            || energy?.givenUp != stored.energy?.givenUp
        {
            return true
        }
        guard !tracks.isEmpty || lastTrustedFixContinuous else { return false }
        return lastTrustedFix != stored.lastTrustedFix || lastTrustedFixSeconds != stored.lastTrustedFixSeconds
            || lastInputSeconds != stored.lastInputSeconds || lastFixSeconds != stored.lastFixSeconds
    }

    private enum CodingKeys: String, CodingKey {
        case formatVersion = "format_version"
        case rotator, tracks
        case lastTrustedFix = "last_trusted_fix"
        case lastTrustedFixSeconds = "last_trusted_fix_t"
        case lastTrustedFixContinuous = "last_trusted_fix_continuous"
        case lastInputSeconds = "last_input_t"
        case lastFixSeconds = "last_fix_t"
        case refreshExitPending = "refresh_exit_pending"
        case resetPending = "reset_pending"
        case stay, cue, energy
    }

    /// Decodes and validates: this build's format version, unique track ids, finite times and
    /// non-negative dwell counters; anything else is `DecodingError.dataCorrupted`.
    ///
    /// - Throws: `DecodingError` when a required key is missing or mistyped, the rotator state or a
    ///   track does not decode, or a rule above is broken.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        formatVersion = try container.decode(Int.self, forKey: .formatVersion)
        guard formatVersion == Self.currentFormatVersion else {
            throw DecodingError.dataCorruptedError(
                forKey: .formatVersion, in: container,
                debugDescription: "unsupported monitor state version \(formatVersion) (this build reads \(Self.currentFormatVersion))")
        }
        rotator = try container.decode(RotatorState.self, forKey: .rotator)
        tracks = try container.decode([PlaceTrack].self, forKey: .tracks)
        lastTrustedFix = try container.decodeIfPresent(Coordinate.self, forKey: .lastTrustedFix)
        lastTrustedFixSeconds = try container.decodeIfPresent(Double.self, forKey: .lastTrustedFixSeconds)
        lastTrustedFixContinuous = try container.decodeIfPresent(Bool.self, forKey: .lastTrustedFixContinuous) ?? false
        lastInputSeconds = try container.decodeIfPresent(Double.self, forKey: .lastInputSeconds)
        lastFixSeconds = try container.decodeIfPresent(Double.self, forKey: .lastFixSeconds)
        refreshExitPending = try container.decode(Bool.self, forKey: .refreshExitPending)
        resetPending = try container.decodeIfPresent(Bool.self, forKey: .resetPending) ?? false
        stay = try container.decodeIfPresent(Stay.self, forKey: .stay)
        cue = try container.decodeIfPresent(VisitCue.self, forKey: .cue)
        energy = try container.decodeIfPresent(EnergyAccount.self, forKey: .energy)
        guard Set(tracks.map(\.id)).count == tracks.count else {
            throw DecodingError.dataCorruptedError(forKey: .tracks, in: container, debugDescription: "duplicate track ids")
        }
        for time in [lastTrustedFixSeconds, lastInputSeconds, lastFixSeconds] where time.map({ !$0.isFinite }) ?? false {
            throw DecodingError.dataCorruptedError(forKey: .lastInputSeconds, in: container, debugDescription: "a time is not finite")
        }
    }
}

/// One place the engine is deciding: what the host was told (inside or not) and the in-app
/// rule's evidence so far.
public struct PlaceTrack: Hashable, Sendable, Codable {
    /// The place's id.
    public var id: String
    /// The place's center when it was tracked (a redefined place ends its visit).
    public var center: Coordinate
    /// The place's radius in meters when it was tracked.
    public var radiusMeters: Double
    /// Whether the host was told the user is inside (an entry without its exit yet).
    public var inside = false
    /// The entry's time, while inside.
    public var enteredSeconds: Double?
    /// Whether this visit's dwell event was emitted.
    public var dwellReported = false
    /// Consecutive fixes contradicting `inside`, and the distance moved over them, meters.
    public var streak = 0
    /// The distance moved over the contradicting fixes of `streak`, meters.
    public var streakMeters = 0.0
    /// P(inside) at the last trusted fix that was evaluated, and that fix's time.
    public var lastProbability: Double?
    /// The time of the fix `lastProbability` was computed at, seconds.
    public var lastProbabilitySeconds: Double?

    /// Starts tracking a place: outside, no evidence yet.
    public init(id: String, center: Coordinate, radiusMeters: Double) {
        self.id = id
        self.center = center
        self.radiusMeters = radiusMeters
    }

    private enum CodingKeys: String, CodingKey {
        case id, center
        case radiusMeters = "radius_m"
        case inside
        case enteredSeconds = "entered_t"
        case dwellReported = "dwell_reported"
        case streak
        case streakMeters = "streak_m"
        case lastProbability = "last_p"
        case lastProbabilitySeconds = "last_p_t"
    }

    /// Decodes a track of a stored `MonitorState` (snake_case keys: `radius_m`, `entered_t`, `streak_m`,
    /// `last_p`, …) and validates it.
    ///
    /// - Throws: `DecodingError` when a key is missing or mistyped, and `DecodingError.dataCorrupted`
    ///   for an empty id, a radius not finite and > 0, a negative streak, or an entry time present
    ///   while outside (or missing while inside).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        center = try container.decode(Coordinate.self, forKey: .center)
        radiusMeters = try container.decode(Double.self, forKey: .radiusMeters)
        inside = try container.decode(Bool.self, forKey: .inside)
        enteredSeconds = try container.decodeIfPresent(Double.self, forKey: .enteredSeconds)
        dwellReported = try container.decode(Bool.self, forKey: .dwellReported)
        streak = try container.decode(Int.self, forKey: .streak)
        streakMeters = try container.decode(Double.self, forKey: .streakMeters)
        lastProbability = try container.decodeIfPresent(Double.self, forKey: .lastProbability)
        lastProbabilitySeconds = try container.decodeIfPresent(Double.self, forKey: .lastProbabilitySeconds)
        guard !id.isEmpty, radiusMeters.isFinite, radiusMeters > 0, streak >= 0, streakMeters.isFinite, streakMeters >= 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: .id, in: container, debugDescription: "a track needs an id, a radius > 0 and a non-negative streak")
        }
        guard inside == (enteredSeconds != nil) else {
            throw DecodingError.dataCorruptedError(
                forKey: .enteredSeconds, in: container, debugDescription: "an entry time exactly while inside")
        }
    }
}

/// A `MonitorState` bound to one catalog version, its registrations packed
/// (`PackedRotatorState`): what a service keeps per device between inputs.
public struct PackedMonitorState: Hashable, Sendable {
    /// The registrations, packed against one catalog version.
    public private(set) var rotator: PackedRotatorState
    /// The rest of the state; its `rotator` is empty.
    public private(set) var others: MonitorState

    init(rotator: PackedRotatorState, others: MonitorState) {
        self.rotator = rotator
        self.others = others
        self.others.rotator = RotatorState()
    }

    /// Packs a state, looking each monitored place up in `catalog` by id (its registrations are
    /// those of `catalog.planning`).
    public init(_ state: MonitorState, in catalog: PlaceCatalog) {
        self.init(rotator: PackedRotatorState(state.rotator, in: catalog.planning), others: state)
    }

    /// The state, with fences from `catalog` (its `planning` registrations).
    /// - Precondition: `catalog` is the version it was packed against.
    public func unpacked(in catalog: PlaceCatalog) -> MonitorState {
        var state = others
        state.rotator = rotator.unpacked(in: catalog.planning)
        return state
    }

    /// Takes every field of `state` but its registrations, which must be the packed ones (the
    /// input changed only the rest: no rotator to pack again).
    package mutating func replaceOthers(with state: MonitorState) {
        others = state
        others.rotator = RotatorState()
    }

    /// The same state, bound to `next` (see `PackedRotatorState.repacked`).
    public func repacked(from catalog: PlaceCatalog, to next: PlaceCatalog, positionMap map: [Int32]) -> PackedMonitorState {
        var result = self
        result.rotator = rotator.repacked(from: catalog.planning, to: next.planning, positionMap: map)
        return result
    }
}
