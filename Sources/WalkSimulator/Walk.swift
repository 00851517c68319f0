import FencePlanner
import Geodesy

/// A walk: where the user truly was at each fix time, and what the phone reported.
public struct Walk: Hashable, Sendable {
    /// One fix time.
    public struct Sample: Hashable, Sendable {
        /// Seconds since the walk started.
        public var timeSeconds: Double
        /// Where the user truly was.
        public var truePosition: Coordinate
        /// What the phone reported, or nil when the fix was dropped.
        public var fix: Fix?
        /// Whether the user was inside a building (no GNSS fix: the fix is a Wi-Fi position).
        public var indoors: Bool

        public init(timeSeconds: Double, truePosition: Coordinate, fix: Fix?, indoors: Bool = false) {
            self.timeSeconds = timeSeconds
            self.truePosition = truePosition
            self.fix = fix
            self.indoors = indoors
        }
    }

    public var samples: [Sample]
    /// The walk's kind, for reports.
    public var kind: WalkKind

    public init(samples: [Sample], kind: WalkKind) {
        self.samples = samples
        self.kind = kind
    }

    /// A recorded walk as the oracle replays it: the fixes' positions stand for the true path, at
    /// their timestamps (0 when a fix has none).
    public init(recorded fixes: [Fix]) {
        self.init(samples: fixes.map { Sample(timeSeconds: $0.timestampSeconds ?? 0, truePosition: $0.coordinate, fix: $0) }, kind: .walk)
    }

    /// Length of the true path in meters (great-circle steps between samples).
    public var lengthMeters: Double {
        zip(samples, samples.dropFirst()).reduce(0) { $0 + $1.0.truePosition.distance(to: $1.1.truePosition) }
    }

    /// The longest distance between two consecutive samples, meters.
    public var longestStepMeters: Double {
        zip(samples, samples.dropFirst()).reduce(0) { max($0, $1.0.truePosition.distance(to: $1.1.truePosition)) }
    }

    /// The fastest speed between two consecutive samples with distinct times, m/s.
    public var fastestSpeedMetersPerSecond: Double {
        zip(samples, samples.dropFirst()).reduce(0) { fastest, pair in
            let dt = pair.1.timeSeconds - pair.0.timeSeconds
            return dt > 0 ? max(fastest, pair.0.truePosition.distance(to: pair.1.truePosition) / dt) : fastest
        }
    }

    /// The margin a recorded walk needs when the planner is only checked at its samples: its
    /// longest step, plus the distance covered at its fastest speed during `delaySeconds`.
    public func requiredMarginMeters(delaySeconds: Double) -> Double {
        longestStepMeters + delaySeconds * fastestSpeedMetersPerSecond
    }

    /// Fixes delivered (not dropped).
    public var deliveredFixes: Int { samples.reduce(0) { $0 + ($1.fix == nil ? 0 : 1) } }
}

/// The kinds of walk the generator makes.
public enum WalkKind: String, Hashable, Sendable, CaseIterable, Codable {
    /// One straight great-circle line from a random place, random bearing.
    case straight
    /// A straight line through the region's center at bearing 45° (the reference scenario's walk:
    /// 6 km diagonally across a 10 km square of 500 shops).
    case diagonal
    /// Random waypoints across the region (places chosen as waypoints), on foot.
    case walk
    /// Random waypoints at driving speed.
    case drive
    /// Back and forth along a line that grazes a fence edge.
    case backAndForth = "back-and-forth"
    /// Home to work and back, twice.
    case commute
    /// Across the ±180° meridian several times.
    case dateLine = "dateline"
    /// Over the north pole.
    case pole
    /// Errands: home to 1–4 places of the catalog and back, on foot or by car, with stops
    /// (`ErrandGenerator`).
    case errands
}

/// How the phone reports positions along a path.
public struct FixModel: Hashable, Sendable, Codable {
    /// Seconds between fixes.
    public var intervalSeconds: Double = 1
    /// GPS error per axis (Gaussian), meters; also the reported accuracy.
    public var noiseSigmaMeters: Double = 0
    /// Probability that a fix is dropped.
    public var dropoutProbability: Double = 0
    /// At most this many fixes in a row are dropped.
    public var maxConsecutiveDropouts: Int = 3

    public init(intervalSeconds: Double = 1, noiseSigmaMeters: Double = 0, dropoutProbability: Double = 0, maxConsecutiveDropouts: Int = 3)
    {
        self.intervalSeconds = intervalSeconds
        self.noiseSigmaMeters = noiseSigmaMeters
        self.dropoutProbability = dropoutProbability
        self.maxConsecutiveDropouts = maxConsecutiveDropouts
    }

    /// The longest time between two delivered fixes, seconds.
    public var maxGapSeconds: Double {
        intervalSeconds * Double(1 + (dropoutProbability > 0 ? maxConsecutiveDropouts : 0))
    }

    /// A distance the reported position is off by with probability below about 4·10⁻⁶ per fix
    /// (5 σ of the Rayleigh-distributed 2D error).
    public var noiseAllowanceMeters: Double { 5 * noiseSigmaMeters }

    /// The margin the planner needs for a user moving at up to `maxSpeedMetersPerSecond` whose
    /// app hears of a refresh exit up to `delaySeconds` after the next fix: the distance covered
    /// in the longest fix gap plus the delay, plus the noise allowance.
    public func requiredMarginMeters(maxSpeedMetersPerSecond: Double, delaySeconds: Double) -> Double {
        RotationConfiguration.margin(
            maxSpeedMetersPerSecond: maxSpeedMetersPerSecond, latencySeconds: delaySeconds,
            fixIntervalSeconds: maxGapSeconds) + noiseAllowanceMeters
    }
}
