import Geodesy
import PlatformFacts

/// A phone's region monitoring, emulated: the app registers and removes circular regions, the
/// true device position is fed in time order, and the emulator returns the `enter` and `exit`
/// events the app would receive, when it would receive them.
///
/// One value type serves every model; the behavior comes from an `EmulatedPlatform` (`.iOS`,
/// `.android`, or `.ideal(delaySeconds:)`): its profile's crossing figures and region limit, and
/// its registration behavior. The rules, applied at every `advance`:
/// - The OS decides on its own estimate: the true position plus a slowly varying 2D Gaussian
///   error (`crossings.positionNoise`).
/// - Outside a region, an entry counts once the estimate is within `radius − depth`, with
///   `depth = min(entryCushion, entryDepthFraction × radius)`; inside, an exit counts once the
///   estimate is farther than `radius + exitCushion`. Each registration draws its two cushions
///   from the platform's ranges.
/// - The condition must hold at every position fed for `crossings.staySeconds`; a position that
///   breaks it resets the count. The crossing is decided at the first position at least the stay
///   after the first one that met it, and delivered a latency drawn from `crossings.latency` later.
/// - Registrations beyond the limit, registrations while inside, re-used identifiers, reboots and
///   app updates follow the platform's `overLimit`, `insideAtRegistration`, `reusedIdentifier`,
///   `regionsSurviveReboot` and `regionsSurviveAppUpdate`.
///
/// Randomness is seeded and keyed, so that two apps replayed on the same phone and path differ
/// only where what they register differs (common random numbers): the OS's position error is one
/// stream of its own, fed once per `advance`, whatever is registered; a region's cushions are
/// drawn from the seed and the region's definition (id, center, radius), so the same region
/// registered at another moment gets the same cushions; a latency or a dropped initial entry is
/// drawn from the seed, the region id, the event kind and the decision time. The same seed and
/// the same calls give the same events.
///
/// - Complexity: `advance` is O(m + p) for m registered regions and p events awaiting delivery,
///   with one squared chord per monitored region and a fixed number of transcendental functions
///   per call; it allocates nothing once the pending buffer and the caller's event buffer have
///   grown to their working size. `register` and `unregister` are O(1) amortized plus O(p).
public struct RegionMonitorEmulator: Sendable {
    /// The phone this emulator plays.
    public let platform: EmulatedPlatform
    /// Regions monitored at once; registrations beyond follow `platform.overLimit`.
    public let regionLimit: Int

    /// The seed every keyed draw starts from.
    let seed: UInt64
    /// The OS's position error, one stream drawn only by `advance`.
    var noiseRandom: SplitMix64
    var regions: [_Region] = []
    var indexByID: [String: Int] = [:]
    /// Decided events not yet delivered, sorted by delivery time, then decision order.
    var pending: [_Pending] = []
    var sequence = 0
    var monitoredCount = 0
    var lastTimeSeconds = -Double.infinity
    /// The OS's current position estimate, nil before the first `advance`.
    var estimate: UnitVector?
    var noiseEastMeters = 0.0
    var noiseNorthMeters = 0.0
    var noiseTimeSeconds: Double?
    /// The last step between positions and the share of the error it keeps, exp(−step/τ).
    var noiseStepSeconds = Double.nan
    var noiseKeep = 0.0
    /// Where the device last moved to (beyond `StillLatency.radiusMeters`), and when.
    var stillAnchor: UnitVector?
    var stillSinceSeconds = 0.0
    /// Visit monitoring, once started.
    var visits: VisitTracker?

    /// An emulator of `platform`, monitoring up to `regionLimit` regions at once (by default the
    /// platform's own limit, `platform.profile.regionLimit`).
    ///
    /// - Precondition: `regionLimit >= 0`.
    public init(platform: EmulatedPlatform, regionLimit: Int? = nil, seed: UInt64) {
        let regionLimit = regionLimit ?? platform.profile.regionLimit
        precondition(regionLimit >= 0, "region limit must be >= 0")
        self.platform = platform
        self.regionLimit = regionLimit
        self.seed = seed
        self.noiseRandom = SplitMix64(seed: seed ^ 0x6A09_E667_F3BC_C908)
        pending.reserveCapacity(16)
    }

    /// Identifiers the app has registered and not removed (monitored or silently dropped), in
    /// storage order.
    public var registeredIDs: [String] { regions.map(\.id) }

    /// Whether the OS actually monitors `id` (false for a silently dropped or unknown id).
    public func isMonitored(_ id: String) -> Bool {
        guard let index = indexByID[id] else { return false }
        return regions[index].monitored
    }

    /// Events decided but not yet delivered.
    package var undeliveredEventCount: Int { pending.count }

    /// The events decided but not yet delivered, by delivery time: what a trip that ends now
    /// never hears.
    public var undeliveredEvents: [RegionEvent] { pending.map(\.event) }
}

/// One registered region. Storage of `RegionMonitorEmulator`, hands off.
@usableFromInline
struct _Region: Sendable {
    enum State: Sendable {
        /// No position yet: decided at the first `advance`, as at registration.
        case unknown
        case inside
        case outside
    }

    var id: String
    var monitored: Bool
    /// The geometry the inside/outside state is evaluated against.
    var center: UnitVector
    /// Squared chord of the plain radius (state at registration), of `radius − depth` (entry)
    /// and of `radius + exitCushion` (exit).
    var radiusChord2: Double
    var entryChord2: Double
    var exitChord2: Double
    /// A geometry registered under the same id while the old state was kept (Android): it takes
    /// over after the next transition against the old one.
    var successor: (center: UnitVector, radiusChord2: Double, entryChord2: Double, exitChord2: Double)?
    var state: State
    /// Time of the first position in the current run that meets the crossing condition; NaN when
    /// none.
    var candidateSinceSeconds: Double
    /// What the app asked of the state at registration.
    var stateRequest = StateRequest.none
    /// The loitering delay of a region that asked for dwell transitions, seconds.
    var dwellAfterSeconds: Double?
    /// When the dwell transition is due (inside since then less the delay); NaN when none is.
    var dwellDueSeconds = Double.nan
}

/// An event awaiting delivery. Hands off.
@usableFromInline
struct _Pending: Sendable {
    var event: RegionEvent
    var sequence: Int
}
