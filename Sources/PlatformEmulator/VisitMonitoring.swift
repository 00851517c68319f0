import Geodesy
import PlatformFacts

/// iOS visit monitoring (`CLLocationManager.startMonitoringVisits()`, `CLVisit`): an arrival once
/// the device has stayed within `radiusMeters` for `arrivalAfterSeconds`, a departure (with its
/// arrival) once it leaves, each delivered after a latency drawn from `latency`.
///
/// Apple documents what a visit carries, not when it comes: "when the user arrives at a location,
/// the system may send an event with only an arrival time"; a departure event "can contain both
/// the arrival time … and the departure time" (*CLVisit*), and calls the service "the most
/// power-efficient way of gathering location data". No minimum dwell, radius or delay is
/// published, so every figure here is a stated choice with a range: a stay within 50 m (range
/// 30–200) of 5 minutes (range 2–20), heard 30 s to 20 minutes late (median 2 minutes, 90th
/// percentile 10). Stillness is judged on the true position: the OS's own low-power positions are
/// not modeled.
public struct VisitMonitoring: Hashable, Sendable {
    public var radiusMeters: Double
    public var arrivalAfterSeconds: Double
    public var latency: PlatformProfile.LatencyDistribution

    public init(radiusMeters: Double, arrivalAfterSeconds: Double, latency: PlatformProfile.LatencyDistribution) {
        precondition(radiusMeters > 0 && arrivalAfterSeconds >= 0, "visit monitoring: radius > 0, arrival delay >= 0")
        self.radiusMeters = radiusMeters
        self.arrivalAfterSeconds = arrivalAfterSeconds
        self.latency = latency
    }

    /// iOS, with the stated figures above.
    public static let iOS = VisitMonitoring(
        radiusMeters: 50, arrivalAfterSeconds: 300,
        latency: PlatformProfile.LatencyDistribution(minimumSeconds: 30, medianSeconds: 120, p90Seconds: 600, maximumSeconds: 1_200))
    /// The ideal phone: the same rule, heard at once.
    public static let ideal = VisitMonitoring(radiusMeters: 50, arrivalAfterSeconds: 300, latency: .constant(0))
}

/// A visit as the app receives it: an arrival (no departure yet), or a departure with its arrival.
public struct VisitEvent: Hashable, Sendable {
    /// When the stay began, seconds.
    public var arrivalSeconds: Double
    /// When the device left; nil for an arrival.
    public var departureSeconds: Double?
    /// Where the stay was (the true position at its start).
    public var coordinate: Coordinate
    /// When the app receives it, seconds.
    public var deliveredAtSeconds: Double

    public init(arrivalSeconds: Double, departureSeconds: Double?, coordinate: Coordinate, deliveredAtSeconds: Double) {
        self.arrivalSeconds = arrivalSeconds
        self.departureSeconds = departureSeconds
        self.coordinate = coordinate
        self.deliveredAtSeconds = deliveredAtSeconds
    }
}

/// The state of visit monitoring along one walk.
struct VisitTracker: Sendable {
    let model: VisitMonitoring
    var anchor: (position: UnitVector, coordinate: Coordinate, timeSeconds: Double)?
    var arrived = false
    /// Decided, not yet delivered, in delivery order.
    var pending: [VisitEvent] = []

    init(_ model: VisitMonitoring) {
        self.model = model
    }

    /// The device is at `position` at `timeSeconds`; `draw` gives a uniform number keyed by the
    /// decision, for the latency.
    mutating func advance(to position: UnitVector, coordinate: Coordinate, at timeSeconds: Double, draw: (Double) -> Double) {
        if let anchor, anchor.position.squaredChord(to: position) <= GreatCircle.squaredChord(arcMeters: model.radiusMeters) {
            guard !arrived, timeSeconds - anchor.timeSeconds >= model.arrivalAfterSeconds else { return }
            arrived = true
            queue(
                VisitEvent(arrivalSeconds: anchor.timeSeconds, departureSeconds: nil, coordinate: anchor.coordinate, deliveredAtSeconds: 0),
                at: timeSeconds, draw: draw)
            return
        }
        if arrived, let anchor {
            queue(
                VisitEvent(
                    arrivalSeconds: anchor.timeSeconds, departureSeconds: timeSeconds, coordinate: anchor.coordinate, deliveredAtSeconds: 0),
                at: timeSeconds, draw: draw)
        }
        anchor = (position, coordinate, timeSeconds)
        arrived = false
    }

    mutating func queue(_ event: VisitEvent, at timeSeconds: Double, draw: (Double) -> Double) {
        var event = event
        event.deliveredAtSeconds = timeSeconds + model.latency.quantile(draw(timeSeconds))
        var position = pending.count
        while position > 0, pending[position - 1].deliveredAtSeconds > event.deliveredAtSeconds { position -= 1 }
        pending.insert(event, at: position)
    }

    /// The visits delivered by `timeSeconds`, removed from the queue.
    mutating func take(upTo timeSeconds: Double) -> [VisitEvent] {
        let due = pending.prefix { $0.deliveredAtSeconds <= timeSeconds }.count
        defer { pending.removeFirst(due) }
        return Array(pending.prefix(due))
    }
}

extension RegionMonitorEmulator {
    /// Starts visit monitoring (`startMonitoringVisits()`), where the platform has it (iOS, the
    /// ideal phone): from the next `advance` on, stays are followed and their visits delivered
    /// through `takeVisits()`. On a platform without it, nothing happens.
    public mutating func startMonitoringVisits() {
        guard visits == nil, let model = platform.visitMonitoring else { return }
        visits = VisitTracker(model)
    }

    /// The visits delivered up to the last `advance`, in delivery order.
    public mutating func takeVisits() -> [VisitEvent] {
        visits?.take(upTo: lastTimeSeconds) ?? []
    }

    /// Follows the stay for visit monitoring, if started.
    mutating func followVisits(_ position: UnitVector, coordinate: @autoclosure () -> Coordinate, at timeSeconds: Double) {
        guard visits != nil else { return }
        let seed = self.seed
        visits?.advance(to: position, coordinate: coordinate(), at: timeSeconds) { time in
            var random = SplitMix64(seed: seed ^ 0x5851_F42D_4C95_7F2D ^ time.bitPattern)
            return random.nextUnit()
        }
    }
}
