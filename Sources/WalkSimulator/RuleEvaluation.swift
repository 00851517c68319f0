import FenceRules
import Geodesy

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Fence rules over noisy walks past one fence: how often each rule changes its mind, and how
/// late it enters and leaves against the true crossing.
public enum RuleEvaluation {
    /// The rules evaluated.
    public enum Rule: String, Hashable, Sendable, CaseIterable {
        /// Inside whenever the fix is inside.
        case naive
        /// P(inside) > 0.9 to enter, < 0.1 to leave, 3 fixes of dwell.
        case confident
        /// Enter at ≤ 80 % of the radius, exit at ≥ 120 %, accuracy gate 0…30 m.
        case hysteresis
        /// Confident, with dwell over 20 m of movement or 3 fixes, whichever comes first.
        case adaptive

        public func make(_ fence: CircularFence) -> any FenceRule {
            switch self {
            case .naive: NaiveRule(fence: fence)
            case .confident: ConfidentRule(fence: fence)
            case .hysteresis: HysteresisRule(fence: fence, enterMeters: 0.8 * fence.radiusMeters, exitMeters: 1.2 * fence.radiusMeters)
            case .adaptive: ConfidentRule.adaptive(fence: fence)
            }
        }
    }

    /// The walk past the fence.
    public enum Path: Hashable, Sendable {
        /// A straight line at `offset` meters from the center (95 m: just inside a 100 m fence's
        /// edge), from 210 m before the closest point to 210 m after it (the walks of the evaluation
        /// published in “Region Monitoring and Geofencing”).
        case line(offsetMeters: Double)
        /// A recorded track (its positions are the true path).
        case track([Coordinate])

        public static let skirting = Path.line(offsetMeters: 95)
        public static let crossing = Path.line(offsetMeters: 0)
    }

    public struct Scenario: Hashable, Sendable {
        public var path: Path = .crossing
        public var runs = 100
        public var sigmaMeters = 8.0
        public var speedMetersPerSecond = 1.4
        public var intervalSeconds = 1.0
        public var fence = CircularFence(center: Coordinate(validLatitude: 46.05, longitude: 14.51), radiusMeters: 100)
        public var seed: UInt64 = 1

        public init() {}

        /// The true positions at each fix.
        public func truePositions() -> [Coordinate] {
            switch path {
            case .track(let points): return points
            case .line(let offset):
                let step = speedMetersPerSecond * intervalSeconds
                let count = Int((420 / step).rounded(.down))
                return (0..<count).map { i in
                    let x = -210 + step * Double(i)
                    let distance = (x * x + offset * offset).squareRoot()
                    return fence.center.destination(bearingDegrees: atan2(x, offset) * 180 / Double.pi, distanceMeters: distance)
                }
            }
        }
    }

    /// One rule over all runs of a scenario.
    public struct Result: Hashable, Sendable {
        public var rule: Rule
        public var runs: Int
        /// Events (enter + exit) per run, averaged.
        public var meanTransitions: Double
        /// Runs with exactly two events (one enter, one exit).
        public var runsWithExactlyTwo: Int
        /// Runs in which the rule said inside at some fix.
        public var runsEntered: Int
        /// Mean entry and exit latency against the true path (fixes; positive is late), over the
        /// runs that entered, and the same in meters along the path. nil when the true path never
        /// enters the fence or no run entered.
        public var entryLatencyFixes: Double?
        public var exitLatencyFixes: Double?
        public var entryLatencyMeters: Double?
        public var exitLatencyMeters: Double?
    }

    public static func run(_ scenario: Scenario, rules: [Rule] = Rule.allCases) -> [Result] {
        let truth = scenario.truePositions()
        let fence = scenario.fence
        let trulyInside = truth.map { $0.distance(to: fence.center) <= fence.radiusMeters }
        let truthFirst = trulyInside.firstIndex(of: true), truthLast = trulyInside.lastIndex(of: true)
        // Distance along the path up to each fix.
        var along = [0.0]
        for (a, b) in zip(truth, truth.dropFirst()) { along.append(along[along.count - 1] + a.distance(to: b)) }
        // The same noisy fixes for every rule in a run; each run's generator is seeded by the next
        // output of a generator seeded with the scenario seed (independent, non-overlapping streams).
        var seeder = SplitMix64(seed: scenario.seed)
        let runs = (0..<scenario.runs).map { _ -> [RuleFix] in
            var rng = SplitMix64(seed: seeder.next())
            return truth.enumerated().map { i, position in
                let noisy =
                    scenario.sigmaMeters > 0
                    ? SyntheticCoordinates.gaussian(around: position, sigmaMeters: scenario.sigmaMeters, using: &rng) : position
                return RuleFix(noisy, accuracyMeters: scenario.sigmaMeters, timestampSeconds: Double(i) * scenario.intervalSeconds)
            }
        }
        return rules.map { kind in
            var transitions = 0, exactlyTwo = 0, entered = 0
            var entryFixes = 0.0, exitFixes = 0.0, entryMeters = 0.0, exitMeters = 0.0, latencyRuns = 0
            for fixes in runs {
                var rule = kind.make(fence)
                var events = 0
                var first: Int?, last: Int?
                for (i, fix) in fixes.enumerated() {
                    let outcome = rule.update(with: fix)
                    if outcome.event != nil { events += 1 }
                    if outcome.state == .inside {
                        first = first ?? i
                        last = i
                    }
                }
                transitions += events
                if events == 2 { exactlyTwo += 1 }
                if let first, let last {
                    entered += 1
                    if let truthFirst, let truthLast {
                        latencyRuns += 1
                        entryFixes += Double(first - truthFirst)
                        exitFixes += Double(last - truthLast)
                        entryMeters += along[first] - along[truthFirst]
                        exitMeters += along[last] - along[truthLast]
                    }
                }
            }
            let n = Double(max(1, latencyRuns))
            return Result(
                rule: kind, runs: scenario.runs, meanTransitions: Double(transitions) / Double(max(1, scenario.runs)),
                runsWithExactlyTwo: exactlyTwo, runsEntered: entered,
                entryLatencyFixes: latencyRuns > 0 ? entryFixes / n : nil, exitLatencyFixes: latencyRuns > 0 ? exitFixes / n : nil,
                entryLatencyMeters: latencyRuns > 0 ? entryMeters / n : nil, exitLatencyMeters: latencyRuns > 0 ? exitMeters / n : nil)
        }
    }
}
