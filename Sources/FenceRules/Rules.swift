import Geodesy

/// Inside whenever the fix is inside (distance ≤ radius). Flickers at the edge.
public struct NaiveRule: FenceRule {
    /// The fence the rule watches.
    public let fence: CircularFence
    /// Where the rule believes the user is now (`unknown` before the first valid fix).
    public private(set) var state = PresenceState.unknown
    private var gate = FixGate()

    /// A rule for `fence` in the `unknown` state.
    public init(fence: CircularFence) {
        self.fence = fence
    }

    /// Feeds one fix: every valid, fresh fix decides (inside when its distance ≤ the radius),
    /// whatever its accuracy.
    public mutating func update(with fix: RuleFix) -> RuleOutcome {
        switch gate.admit(fix) {
        case .failure(let why): return RuleOutcome(event: nil, state: state, rejection: why)
        case .success(let position):
            let inside = position.distance(to: fence.center) <= fence.radiusMeters
            return move(to: inside ? .inside : .outside)
        }
    }

    private mutating func move(to next: PresenceState) -> RuleOutcome {
        let event = transitionEvent(from: state, to: next)
        state = next
        return RuleOutcome(event: event, state: state, rejection: nil)
    }
}

/// The event of a state change (nil when none is raised).
func transitionEvent(from old: PresenceState, to new: PresenceState) -> FenceEvent? {
    guard old != new else { return nil }
    switch new {
    case .inside: return .enter
    case .outside: return old == .inside ? .exit : nil
    case .unknown: return nil
    }
}

/// Enter only when P(inside) > `enterProbability`, leave only when P(inside) <
/// `exitProbability`, and only after the contradicting evidence held for `dwellFixes`
/// consecutive fixes (or, with `dwellMeters`, over that much movement, whichever comes first).
///
/// σ comes from each fix's accuracy through `accuracyModel`, or `defaultSigmaMeters` when a fix
/// has none. From unknown, `dwellFixes` fixes of clear evidence decide either way.
public struct ConfidentRule: FenceRule {
    /// The fence the rule watches (for a footprint, its enclosing circle).
    public let fence: CircularFence
    /// The footprint the rule watches instead of the circle, when given: P(inside) is then its
    /// Owen's T edge sum (`PolygonInsideProbability`).
    public var footprint: SphericalMultiPolygon?
    /// P(inside) a fix must exceed to count as evidence of being inside, `0...1`.
    public var enterProbability: Double
    /// P(inside) a fix must fall below to count as evidence of being outside, `0...1`, below
    /// `enterProbability`.
    public var exitProbability: Double
    /// Consecutive contradicting fixes needed to change state (≥ 1).
    public var dwellFixes: Int
    /// Speed-adaptive dwell: the evidence may instead persist over this much movement (meters,
    /// measured along the fixes from the last fix that did not contradict). nil: fixes only.
    public var dwellMeters: Double?
    /// How a fix's reported accuracy becomes σ.
    public var accuracyModel: AccuracyModel
    /// σ per axis, meters, for a fix that reports no accuracy.
    public var defaultSigmaMeters: Double
    /// Where the rule believes the user is now (`unknown` until the evidence has dwelt).
    public private(set) var state = PresenceState.unknown
    private var gate = FixGate()
    private var streak = 0
    private var streakMeters = 0.0
    private var streakDirection: PresenceState?
    private var previousPosition: Coordinate?

    /// A rule for `fence` in the `unknown` state.
    ///
    /// - Precondition: `dwellFixes` ≥ 1 and `exitProbability` < `enterProbability`.
    public init(
        fence: CircularFence, enterProbability: Double = 0.9, exitProbability: Double = 0.1, dwellFixes: Int = 3,
        dwellMeters: Double? = nil, accuracyModel: AccuracyModel = .oneSigma, defaultSigmaMeters: Double = 10
    ) {
        precondition(dwellFixes >= 1 && exitProbability < enterProbability, "dwell >= 1 and exit < enter")
        self.fence = fence
        self.enterProbability = enterProbability
        self.exitProbability = exitProbability
        self.dwellFixes = dwellFixes
        self.dwellMeters = dwellMeters
        self.accuracyModel = accuracyModel
        self.defaultSigmaMeters = defaultSigmaMeters
    }

    /// Speed-adaptive dwell: the contradicting evidence must persist over 20 m of movement or for 3
    /// fixes, whichever comes first, so a car is not carried most of the way through a 100 m fence
    /// before the rule reacts, while a walker keeps the 3-fix dwell.
    public static func adaptive(fence: CircularFence, dwellMeters: Double = 20, dwellFixes: Int = 3) -> ConfidentRule {
        ConfidentRule(fence: fence, dwellFixes: dwellFixes, dwellMeters: dwellMeters)
    }

    /// Feeds one fix: computes P(inside) (`InsideProbability.value`), counts it as evidence when
    /// it contradicts the state, and changes state once the evidence has dwelt; a fix that does
    /// not contradict resets the count. The outcome carries P(inside) for every accepted fix.
    public mutating func update(with fix: RuleFix) -> RuleOutcome {
        let position: Coordinate
        switch gate.admit(fix) {
        case .failure(let why): return RuleOutcome(event: nil, state: state, rejection: why)
        case .success(let p): position = p
        }
        let sigma = fix.accuracyMeters.map { accuracyModel.sigma(forAccuracyMeters: $0) } ?? defaultSigmaMeters
        let p =
            footprint.map { PolygonInsideProbability.value($0, fix: UnitVector(position), sigmaMeters: sigma) }
            ?? InsideProbability.value(
                distanceMeters: position.distance(to: fence.center), radiusMeters: fence.radiusMeters, sigmaMeters: sigma)
        let step = previousPosition.map { $0.distance(to: position) } ?? 0
        previousPosition = position
        // The evidence this fix gives, if it contradicts the current state.
        var evidence: PresenceState?
        if p > enterProbability && state != .inside { evidence = .inside }
        if p < exitProbability && state != .outside { evidence = .outside }
        guard let direction = evidence else {
            streak = 0
            streakMeters = 0
            streakDirection = nil
            return RuleOutcome(event: nil, state: state, rejection: nil, probabilityInside: p)
        }
        if streakDirection != direction {
            streak = 0
            streakMeters = 0
            streakDirection = direction
        }
        streak += 1
        streakMeters += step
        let dwelt = streak >= dwellFixes || (dwellMeters.map { streakMeters >= $0 } ?? false)
        guard dwelt else { return RuleOutcome(event: nil, state: state, rejection: nil, probabilityInside: p) }
        let event = transitionEvent(from: state, to: direction)
        state = direction
        streak = 0
        streakMeters = 0
        streakDirection = nil
        return RuleOutcome(event: event, state: state, rejection: nil, probabilityInside: p)
    }
}

/// Two thresholds, three states: unknown until the first trustworthy fix decides; enter at a
/// distance ≤ `enterMeters`, exit at ≥ `exitMeters` (both inclusive), keep the state in between.
/// Fixes whose accuracy lies outside `trustedAccuracy` (or is missing, when `requireAccuracy`)
/// do not change state.
public struct HysteresisRule: FenceRule {
    /// The fence the rule watches (only its center is used: the thresholds replace the radius).
    public let fence: CircularFence
    /// Center distance, meters, at or below which a fix means inside.
    public var enterMeters: Double
    /// Center distance, meters, at or above which a fix means outside (≥ `enterMeters`).
    public var exitMeters: Double
    /// Reported accuracies, meters, that may change the state.
    public var trustedAccuracy: ClosedRange<Double>
    /// Whether a fix without an accuracy is ignored (`FixRejection.accuracyGate(.nan)`).
    public var requireAccuracy: Bool
    /// Where the rule believes the user is now (`unknown` before the first deciding fix).
    public private(set) var state = PresenceState.unknown
    private var gate = FixGate()

    /// A rule for `fence` in the `unknown` state; distances and accuracies in meters.
    ///
    /// - Precondition: `enterMeters` ≤ `exitMeters`.
    public init(
        fence: CircularFence, enterMeters: Double = 80, exitMeters: Double = 120,
        trustedAccuracy: ClosedRange<Double> = 0...30, requireAccuracy: Bool = false
    ) {
        precondition(enterMeters <= exitMeters, "enter threshold must not exceed the exit threshold")
        self.fence = fence
        self.enterMeters = enterMeters
        self.exitMeters = exitMeters
        self.trustedAccuracy = trustedAccuracy
        self.requireAccuracy = requireAccuracy
    }

    /// Feeds one fix: a trusted fix at ≤ `enterMeters` means inside, at ≥ `exitMeters` outside,
    /// and in between keeps the state. A fix outside `trustedAccuracy` is rejected with
    /// `accuracyGate`, although its timestamp still counts as the last accepted one.
    public mutating func update(with fix: RuleFix) -> RuleOutcome {
        let position: Coordinate
        switch gate.admit(fix) {
        case .failure(let why): return RuleOutcome(event: nil, state: state, rejection: why)
        case .success(let p): position = p
        }
        if let accuracy = fix.accuracyMeters, !trustedAccuracy.contains(accuracy) {
            return RuleOutcome(event: nil, state: state, rejection: .accuracyGate(accuracy))
        }
        if fix.accuracyMeters == nil && requireAccuracy {
            return RuleOutcome(event: nil, state: state, rejection: .accuracyGate(.nan))
        }
        let distance = position.distance(to: fence.center)
        var next = state
        if distance <= enterMeters { next = .inside } else if distance >= exitMeters { next = .outside }
        let event = transitionEvent(from: state, to: next)
        state = next
        return RuleOutcome(event: event, state: state, rejection: nil)
    }
}
