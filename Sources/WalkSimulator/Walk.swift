import FencePlanner
import Geodesy
import PlatformFacts

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
    /// Consecutive samples further apart in time than this are a recording gap, seconds (nil:
    /// the walk has none). Nothing is known of the path across a gap: the oracles invent none
    /// (`DensifiedPath`: no fence is entered or left between the two samples, so a fence the
    /// user is inside on both sides holds one visit through the gap), and the margin a walk
    /// needs is measured on its steps that are not gaps (`longestStepMeters`).
    public var gapSeconds: Double?

    public init(samples: [Sample], kind: WalkKind, gapSeconds: Double? = nil) {
        self.samples = samples
        self.kind = kind
        self.gapSeconds = gapSeconds
    }

    /// A recorded walk as the oracle replays it: the fixes' positions stand for the true path, at
    /// their timestamps (0 when a fix has none); fixes more than `gapSeconds` apart are a
    /// recording gap (`Walk.recordingGapSeconds` unless given; nil: none).
    public init(recorded fixes: [Fix], gapSeconds: Double? = Walk.recordingGapSeconds) {
        self.init(
            samples: fixes.map { Sample(timeSeconds: $0.timestampSeconds ?? 0, truePosition: $0.coordinate, fix: $0) }, kind: .walk,
            gapSeconds: gapSeconds)
    }

    /// A recorded walk's default gap, seconds: 120. Recorders log every 1-5 s, and a phone that
    /// throttles a background app still gives a position about once a minute; real recordings
    /// stop for 5 minutes to hours indoors, with the phone in a bag or the app stopped
    /// (../shared/research/stops.md), and no walker's path over that long can be told from its
    /// ends.
    public static let recordingGapSeconds = 120.0

    /// Whether the step from sample `i` to sample `i + 1` is a recording gap (`gapSeconds`).
    public func isGap(afterSample i: Int) -> Bool {
        guard let gapSeconds, i + 1 < samples.count else { return false }
        return samples[i + 1].timeSeconds - samples[i].timeSeconds > gapSeconds
    }

    /// The recording gaps, each as the times of the samples around it, seconds.
    public var gaps: [ClosedRange<Double>] {
        samples.indices.dropLast().filter(isGap(afterSample:)).map { samples[$0].timeSeconds...samples[$0 + 1].timeSeconds }
    }

    /// Length of the true path in meters (great-circle steps between samples).
    public var lengthMeters: Double {
        zip(samples, samples.dropFirst()).reduce(0) { $0 + $1.0.truePosition.distance(to: $1.1.truePosition) }
    }

    /// The longest distance between two consecutive samples, meters, recording gaps left out.
    public var longestStepMeters: Double {
        samples.indices.dropLast().reduce(0) { longest, i in
            isGap(afterSample: i) ? longest : max(longest, samples[i].truePosition.distance(to: samples[i + 1].truePosition))
        }
    }

    /// The fastest speed between two consecutive samples with distinct times, m/s, recording
    /// gaps left out.
    public var fastestSpeedMetersPerSecond: Double {
        samples.indices.dropLast().reduce(0) { fastest, i in
            let dt = samples[i + 1].timeSeconds - samples[i].timeSeconds
            guard dt > 0, !isGap(afterSample: i) else { return fastest }
            return max(fastest, samples[i].truePosition.distance(to: samples[i + 1].truePosition) / dt)
        }
    }

    /// The margin a recorded walk needs when the planner is only checked at its samples: its
    /// longest step, plus the distance covered at its fastest speed during `delaySeconds`
    /// (recording gaps left out: after one the first fix reselects, as after a restart).
    public func requiredMarginMeters(delaySeconds: Double) -> Double {
        longestStepMeters + delaySeconds * fastestSpeedMetersPerSecond
    }

    /// A recording gap whose two ends lie within this of each other is a stay, meters: the
    /// independent stay detector's radius (trackintel's sliding staypoints, 100 m), whose stays
    /// run across such gaps. Recorders stop indoors, where GNSS is lost (a logger), where the
    /// phone stands still (duty-cycled trackers such as e-mission stop until a geofence exit) or
    /// where the OS throttles them (../shared/research/stops.md).
    public static let stillGapMeters = 100.0

    /// The walk with each still recording gap (its two ends within `withinMeters`) filled as a
    /// stay indoors, for a phone to answer there: a sample every `stepSeconds`, the true
    /// position moving straight from one end to the other, each fix a Wi-Fi position around it
    /// whose error per axis follows `noise` (a first-order Gauss–Markov process, one per gap,
    /// seeded by `seed` and the gap's start) and reports `accuracyMeters`. A phone asked for its
    /// position indoors gets one from Wi-Fi although the recorder logged none. A gap between
    /// ends farther apart stays a gap: nobody knows where the user went.
    public func fillingStillGaps(
        withinMeters: Double = Walk.stillGapMeters, stepSeconds: Double = 5, noise: PlatformProfile.PositionNoise,
        accuracyMeters: Double, seed: UInt64
    ) -> Walk {
        guard withinMeters > 0, stepSeconds > 0, gapSeconds != nil else { return self }
        var filled: [Sample] = []
        filled.reserveCapacity(samples.count)
        for i in samples.indices {
            filled.append(samples[i])
            guard isGap(afterSample: i) else { continue }
            let (from, to) = (samples[i], samples[i + 1])
            guard from.truePosition.distance(to: to.truePosition) <= withinMeters else { continue }
            var rng = SplitMix64(seed: seed ^ from.timeSeconds.bitPattern)
            var error = GaussMarkovError(sigmaMeters: noise.sigmaMeters, using: &rng)
            let span = to.timeSeconds - from.timeSeconds
            var time = from.timeSeconds + stepSeconds
            while time < to.timeSeconds - 1e-9 {
                let truth = from.truePosition.interpolated(to: to.truePosition, fraction: (time - from.timeSeconds) / span)
                let fix = Fix(error.applied(to: truth), accuracyMeters: accuracyMeters, timestampSeconds: time)
                filled.append(Sample(timeSeconds: time, truePosition: truth, fix: fix, indoors: true))
                error.advance(seconds: stepSeconds, noise: noise, using: &rng)
                time += stepSeconds
            }
        }
        return Walk(samples: filled, kind: kind, gapSeconds: gapSeconds)
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
