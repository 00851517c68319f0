import Geodesy

/// Inside whenever the fix is inside (distance ≤ radius). Flickers at the edge.
public struct NaiveRule: FenceRule {
    public let fence: CircularFence
    public private(set) var state = PresenceState.unknown
    private var gate = FixGate()

    public init(fence: CircularFence) {
        self.fence = fence
    }

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
    public let fence: CircularFence
    public var enterProbability: Double
    public var exitProbability: Double
    public var dwellFixes: Int
    /// Speed-adaptive dwell: the evidence may instead persist over this much movement (meters,
    /// measured along the fixes from the last fix that did not contradict). nil: fixes only.
    public var dwellMeters: Double?
    public var accuracyModel: AccuracyModel
    public var defaultSigmaMeters: Double
    public private(set) var state = PresenceState.unknown
    private var gate = FixGate()
    private var streak = 0
    private var streakMeters = 0.0
    private var streakDirection: PresenceState?
    private var previousPosition: Coordinate?

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

    public mutating func update(with fix: RuleFix) -> RuleOutcome {
        let position: Coordinate
        switch gate.admit(fix) {
        case .failure(let why): return RuleOutcome(event: nil, state: state, rejection: why)
        case .success(let p): position = p
        }
        let sigma = fix.accuracyMeters.map { accuracyModel.sigma(forAccuracyMeters: $0) } ?? defaultSigmaMeters
        let p = InsideProbability.value(
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
    public let fence: CircularFence
    public var enterMeters: Double
    public var exitMeters: Double
    public var trustedAccuracy: ClosedRange<Double>
    public var requireAccuracy: Bool
    public private(set) var state = PresenceState.unknown
    private var gate = FixGate()

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
