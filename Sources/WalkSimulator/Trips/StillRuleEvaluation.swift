import FenceRules
import Geodesy

/// Stillness rules (`StillnessRule`) over errand trips' fixes, against the trips' true stops:
/// how many stops each rule notices and how soon, and how often it calls a moving user still.
///
/// The delivered fixes of the trip (the continuous fixes an app would have with the receiver on:
/// GNSS outdoors, Wi-Fi positions indoors), every one or one per interval, go to the rule. A stop of at least 2 minutes is
/// noticed when the rule says still between its arrival and its departure; the latency is that
/// moment less the arrival. A "still" said outside every stop is false when it falls outside every
/// decoy too (the user was moving), and a decoy stop when it falls in one (a bus stop, a red
/// light, the shop next door: a real stop, at no place of the catalog, for attribution to reject).
public enum StillRuleEvaluation {
    /// What one rule did over the trips.
    public struct Result: Hashable, Sendable {
        public var rule: StillnessRule
        public var trips = 0
        public var hours = 0.0
        public var stops = 0
        public var noticed = 0
        public var longStops = 0
        public var longNoticed = 0
        public var latenciesSeconds: [Double] = []
        public var decoyStills = 0
        public var falseStills = 0

        public init(rule: StillnessRule) {
            self.rule = rule
        }

        public var recall2: Double? { stops > 0 ? Double(noticed) / Double(stops) : nil }
        public var recall5: Double? { longStops > 0 ? Double(longNoticed) / Double(longStops) : nil }
        public var falseStillsPerHour: Double { hours > 0 ? Double(falseStills) / hours : 0 }
        public func latencySeconds(quantile q: Double) -> Double? { nearestRank(latenciesSeconds, quantile: q) }
    }

    /// Each rule over `trips` errand trips of `simulation` (its walk kind is ignored), fed a fix
    /// every `intervalSeconds` at most (1: every fix; 20: a burst of network fixes).
    public static func run(_ simulation: Simulation, trips: Int, rules: [StillnessRule], intervalSeconds: Double = 1) -> [Result] {
        var results = rules.map(Result.init(rule:))
        for index in 0..<trips {
            let trip = simulation.trip(index)
            for r in results.indices { score(trip, intervalSeconds: intervalSeconds, into: &results[r]) }
        }
        return results
    }

    /// One trip through one rule.
    static func score(_ trip: Trip, intervalSeconds: Double = 1, into result: inout Result) {
        var rule = result.rule
        var stills: [Double] = []
        var next = -Double.infinity
        for sample in trip.walk.samples {
            guard let fix = sample.fix, sample.timeSeconds >= next else { continue }
            next = sample.timeSeconds + intervalSeconds
            guard case .stopped = rule.add(fix.coordinate, at: sample.timeSeconds) else { continue }
            stills.append(sample.timeSeconds)
        }
        result.trips += 1
        result.hours += (trip.walk.samples.last?.timeSeconds ?? 0) / 3_600
        for stop in trip.stops where stop.dwellSeconds >= StopOracle.minimumStopSeconds {
            let first = stills.first { (stop.arrivalSeconds...stop.departureSeconds).contains($0) }
            let long = stop.dwellSeconds >= StopOracle.longStopSeconds
            result.stops += 1
            if long { result.longStops += 1 }
            guard let first else { continue }
            result.noticed += 1
            if long { result.longNoticed += 1 }
            result.latenciesSeconds.append(first - stop.arrivalSeconds)
        }
        for time in stills where !trip.stops.contains(where: { ($0.arrivalSeconds...$0.departureSeconds).contains(time) }) {
            if trip.decoys.contains(where: { ($0.arrivalSeconds...$0.departureSeconds).contains(time) }) {
                result.decoyStills += 1
            } else {
                result.falseStills += 1
            }
        }
    }
}
