import FencePlanner
import Foundation
import Geodesy
import SpatialIndex

/// Makes errand trips: from home to 1–4 places of the catalog and back, on foot or by car, with
/// the stops' dwell times by kind of place (`StopKind`), waits at crossings and red lights, a
/// wander inside each store, parking off the fence's center, and the negatives a stop detector
/// must reject (pass-bys, stops just outside a fence, stops at a shop next door). Every figure is
/// a parameter of `ErrandModel`; every random choice comes from the generator passed in.
///
/// The true path is a timeline of positions joined along great circles, sampled every
/// `FixModel.intervalSeconds`; a fix outdoors carries the fix model's noise, a fix indoors comes
/// from Wi-Fi (`ErrandModel.indoorNoise`, slowly changing, with `indoorAccuracyMeters`).
public enum ErrandGenerator {
    /// One errand trip over `catalog`'s places, starting near a random place.
    ///
    /// - Precondition: the catalog is not empty.
    public static func trip(
        catalog: PlaceCatalog, model: ErrandModel = ErrandModel(), fixes: FixModel, using rng: inout SplitMix64
    ) -> Trip {
        precondition(!catalog.places.isEmpty, "errands stop at places of the catalog")
        var builder = ErrandBuilder(catalog: catalog, model: model, rng: rng)
        builder.run()
        let walk = builder.timeline.sampled(
            fixes: fixes, indoors: builder.stops.compactMap(\.indoorSeconds), silent: builder.silences, model: model, using: &builder.rng)
        rng = builder.rng
        return Trip(walk: walk, mode: builder.mode, stops: builder.stops, decoys: builder.decoys)
    }
}

/// Where the traveller is over time: positions at times, joined along great circles.
struct Timeline {
    private(set) var times: [Double]
    private(set) var positions: [Coordinate]
    private(set) var now: Double
    private(set) var position: Coordinate

    init(start: Coordinate) {
        times = [0]
        positions = [start]
        now = 0
        position = start
    }

    /// Moves to `target` in `seconds` (at least a millisecond when it moves at all).
    mutating func move(to target: Coordinate, seconds: Double) {
        let distance = position.distance(to: target)
        guard distance > 0 else { return }
        now += max(0.001, seconds)
        position = target
        times.append(now)
        positions.append(target)
    }

    mutating func move(to target: Coordinate, speed: Double) {
        move(to: target, seconds: position.distance(to: target) / speed)
    }

    /// Stands still for `seconds`.
    mutating func wait(_ seconds: Double) {
        guard seconds > 0 else { return }
        now += seconds
        times.append(now)
        positions.append(position)
    }

    /// When the traveller last came inside `place`'s fence, if it is inside now: the crossing on
    /// the timeline's last step from outside (0 when it started inside).
    func lastEntry(into place: Place) -> Double? {
        func inside(_ point: Coordinate) -> Bool { point.distance(to: place.coordinate) <= place.radiusMeters }
        guard inside(position) else { return nil }
        guard let k = positions.lastIndex(where: { !inside($0) }) else { return times[0] }
        // A great-circle step crosses a circle's edge at most twice; from outside to inside it
        // crosses once, found by bisection (to a nanometer-scale fraction).
        var outside = 0.0
        var within = 1.0
        for _ in 0..<50 {
            let middle = (outside + within) / 2
            if inside(positions[k].interpolated(to: positions[k + 1], fraction: middle)) { within = middle } else { outside = middle }
        }
        return times[k] + (times[k + 1] - times[k]) * within
    }

    /// The true position at `time` (clamped to the timeline), from key `from` on; returns the key
    /// to start the next, later query from.
    func position(at time: Double, from key: Int) -> (Coordinate, Int) {
        var j = key
        while j + 1 < times.count, times[j + 1] <= time { j += 1 }
        guard j + 1 < times.count, times[j + 1] > times[j] else { return (positions[j], j) }
        let fraction = (time - times[j]) / (times[j + 1] - times[j])
        return (positions[j].interpolated(to: positions[j + 1], fraction: fraction), j)
    }

    /// Samples every `fixes.intervalSeconds` from 0 to the end: outdoors the fix model's noise and
    /// dropouts, indoors (within one of `indoors`) a Wi-Fi position whose error per axis follows
    /// `model.indoorNoise` (a first-order Gauss–Markov process, restarted at each stop) and
    /// reports `model.indoorAccuracyMeters`. Within one of `silent` (in time order) the phone
    /// gives no fix.
    func sampled(
        fixes: FixModel, indoors: [ClosedRange<Double>], silent: [ClosedRange<Double>] = [], model: ErrandModel,
        using rng: inout SplitMix64
    ) -> Walk {
        var samples: [Walk.Sample] = []
        samples.reserveCapacity(Int(now / fixes.intervalSeconds) + 2)
        var key = 0
        var droppedInARow = 0
        var indoorError: (error: GaussMarkovError, interval: Int)?
        var interval = 0  // index into indoors, advanced with time
        var step = 0
        while true {
            let time = min(now, Double(step) * fixes.intervalSeconds)
            let (truth, next) = position(at: time, from: key)
            key = next
            while interval < indoors.count, indoors[interval].upperBound < time { interval += 1 }
            let inside = interval < indoors.count && indoors[interval].contains(time)
            var fix: Fix?
            if step > 0, fixes.dropoutProbability > 0, droppedInARow < fixes.maxConsecutiveDropouts,
                rng.nextUnit() < fixes.dropoutProbability
            {
                droppedInARow += 1
            } else if inside {
                droppedInARow = 0
                var error: GaussMarkovError
                if let last = indoorError, last.interval == interval {
                    error = last.error
                    error.advance(seconds: fixes.intervalSeconds, noise: model.indoorNoise, using: &rng)
                } else {
                    error = GaussMarkovError(sigmaMeters: model.indoorNoise.sigmaMeters, using: &rng)
                }
                indoorError = (error, interval)
                fix = Fix(error.applied(to: truth), accuracyMeters: model.indoorAccuracyMeters, timestampSeconds: time)
            } else {
                droppedInARow = 0
                let reported =
                    fixes.noiseSigmaMeters > 0
                    ? SyntheticCoordinates.gaussian(around: truth, sigmaMeters: fixes.noiseSigmaMeters, using: &rng) : truth
                fix = Fix(reported, accuracyMeters: fixes.noiseSigmaMeters > 0 ? fixes.noiseSigmaMeters : nil, timestampSeconds: time)
            }
            if silent.contains(where: { $0.contains(time) }) { fix = nil }
            samples.append(Walk.Sample(timeSeconds: time, truePosition: truth, fix: fix, indoors: inside))
            if time >= now { break }
            step += 1
        }
        return Walk(samples: samples, kind: .errands)
    }
}

/// The state of one trip being made: where the traveller is, what it has stopped at.
struct ErrandBuilder {
    let catalog: PlaceCatalog
    let model: ErrandModel
    var rng: SplitMix64
    let mode: TravelMode
    var timeline: Timeline
    var stops: [TrueStop] = []
    var decoys: [DecoyStop] = []
    var visited: Set<Int> = []
    /// The spans in which the phone gives no fix (`ErrandModel.silentIndoorProbability`).
    var silences: [ClosedRange<Double>] = []
    var buffer = NeighborBuffer()
    /// This trip's walking speed, m/s.
    let walkingSpeed: Double

    /// A trip of `mode`, or of a mode drawn by `model.drivingShare`.
    init(catalog: PlaceCatalog, model: ErrandModel, rng: SplitMix64, mode: TravelMode? = nil) {
        self.catalog = catalog
        self.model = model
        self.rng = rng
        let drawn: TravelMode = self.rng.nextUnit() < model.drivingShare ? .driving : .walking
        self.mode = mode ?? drawn
        walkingSpeed = self.rng.nextDouble(in: model.walkingSpeeds.lowerBound..<model.walkingSpeeds.upperBound + 1e-9)
        let near = catalog.places[self.rng.nextInt(below: catalog.places.count)].coordinate
        let spread = (mode == .walking ? model.walkingLegMeters : model.drivingLegMeters).lowerBound
        timeline = Timeline(start: SyntheticCoordinates.gaussian(around: near, sigmaMeters: spread, using: &self.rng))
    }

    mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound == range.upperBound ? range.lowerBound : rng.nextDouble(in: range.lowerBound..<range.upperBound)
    }

    /// Home, 1–4 stops (one of them, maybe, preceded by a stop at the shop next door; one, maybe,
    /// a long stay; one, maybe, next door to the stop before), home. A quirk whose chance is 0
    /// draws nothing, so that the trips without quirks stay as they were.
    mutating func run() {
        let home = timeline.position
        let count = model.stopsPerTrip.lowerBound + rng.nextInt(below: model.stopsPerTrip.count)
        let neighbourBefore = rng.nextUnit() < model.neighbourShopProbability ? rng.nextInt(below: count) : -1
        let long = drawn(model.longStayProbability) ? rng.nextInt(below: count) : -1
        var last: Int?
        for s in 0..<count {
            if let previous = last, drawn(model.nextDoorStopProbability), let next = nextDoor(to: previous) {
                visited.insert(next)
                stop(at: next, long: s == long)
                last = next
                continue
            }
            guard let destination = destination(from: timeline.position) else { break }
            visited.insert(destination)
            detours(toward: catalog.places[destination].coordinate, excluding: destination)
            if s == neighbourBefore { neighbourShop(of: destination) }
            stop(at: destination, long: s == long)
            last = destination
        }
        detours(toward: home, excluding: nil)
        go(to: home)
    }

    /// Whether an event of chance `probability` happens; no draw when the chance is 0.
    mutating func drawn(_ probability: Double) -> Bool {
        probability > 0 && rng.nextUnit() < probability
    }

    /// A place not visited yet whose center is `ErrandModel.nextDoorMeters` from place `index`'s,
    /// chosen at random; nil when there is none.
    mutating func nextDoor(to index: Int) -> Int? {
        let center = catalog.places[index].coordinate
        catalog.index.within(model.nextDoorMeters.upperBound, of: UnitVector(center), measuredTo: .center, into: &buffer)
        let choices = buffer.neighbors.filter { !visited.contains($0.index) && $0.distanceMeters >= model.nextDoorMeters.lowerBound }
            .map(\.index).sorted()
        return choices.isEmpty ? nil : choices[rng.nextInt(below: choices.count)]
    }

    /// A place not visited yet at the length of a leg from `position` (any unvisited place within
    /// the longest leg when none is that far), chosen at random; nil when none is within reach.
    mutating func destination(from position: Coordinate) -> Int? {
        let legs = mode == .walking ? model.walkingLegMeters : model.drivingLegMeters
        catalog.index.within(legs.upperBound, of: UnitVector(position), measuredTo: .center, into: &buffer)
        let reachable = buffer.neighbors.filter { !visited.contains($0.index) }.sorted { $0.index < $1.index }
        let atLegLength = reachable.filter { $0.distanceMeters >= legs.lowerBound }
        let choices = atLegLength.isEmpty ? reachable : atLegLength
        guard !choices.isEmpty else { return nil }
        return choices[rng.nextInt(below: choices.count)].index
    }

    /// A place other than `excluded` whose center is near the middle of the way to `target`.
    mutating func placeNear(wayTo target: Coordinate, excluding excluded: Set<Int>) -> Int? {
        let from = timeline.position
        let middle = from.interpolated(to: target, fraction: 0.5)
        let reach = max(300, from.distance(to: target) / 4)
        catalog.index.within(reach, of: UnitVector(middle), measuredTo: .center, into: &buffer)
        let choices = buffer.neighbors.map(\.index).filter { !excluded.contains($0) }.sorted()
        return choices.isEmpty ? nil : choices[rng.nextInt(below: choices.count)]
    }

    /// Whether `point` is outside every fence of the catalog by more than a meter.
    func isOutsideEveryFence(_ point: Coordinate) -> Bool {
        var nearest = NeighborBuffer()
        catalog.index.nearest(1, to: UnitVector(point), measuredTo: .edge, into: &nearest)
        return (nearest.neighbors.first?.distanceMeters ?? .infinity) > 1
    }

    /// On the way to `target` (place `destination`'s center, or home), through a pass-by and past
    /// a decoy stop when they are drawn.
    mutating func detours(toward target: Coordinate, excluding destination: Int?) {
        var excluded = visited
        if let destination { excluded.insert(destination) }
        if rng.nextUnit() < model.passByProbability, let passed = placeNear(wayTo: target, excluding: excluded) {
            excluded.insert(passed)
            let place = catalog.places[passed]
            let through = place.coordinate.destination(
                bearingDegrees: uniform(0...360), distanceMeters: uniform(0...0.7) * place.radiusMeters)
            go(to: through)
        }
        if rng.nextUnit() < model.decoyProbability, let near = placeNear(wayTo: target, excluding: excluded) {
            decoy(near: near)
        }
        if mode == .walking, drawn(model.lingerProbability), let near = placeNear(wayTo: target, excluding: excluded) {
            linger(at: near)
        }
    }

    /// A minute at a shop window: inside place `index`'s fence (within 0.7 of its radius from the
    /// center) for `ErrandModel.lingerSeconds`, kept as a stop too short to count.
    mutating func linger(at index: Int) {
        let place = catalog.places[index]
        let point = place.coordinate.destination(bearingDegrees: uniform(0...360), distanceMeters: uniform(0...0.7) * place.radiusMeters)
        go(to: point)
        let arrival = timeline.now
        timeline.wait(uniform(model.lingerSeconds))
        stops.append(TrueStop(placeID: place.id, arrivalSeconds: arrival, departureSeconds: timeline.now))
    }

    /// A stop just outside the fence of place `near`, on the side the traveller comes from: a bus
    /// stop on foot, a red light by car.
    mutating func decoy(near index: Int) {
        let place = catalog.places[index]
        let walking = mode == .walking
        let edge = uniform(walking ? model.busStopEdgeMeters : model.redLightEdgeMeters)
        let bearing = place.coordinate.initialBearingDegrees(to: timeline.position)
        let point = place.coordinate.destination(bearingDegrees: bearing, distanceMeters: place.radiusMeters + edge)
        guard isOutsideEveryFence(point) else { return }
        go(to: point)
        let arrival = timeline.now
        timeline.wait(uniform(walking ? model.busWaitSeconds : model.redLightWaitSeconds))
        decoys.append(
            DecoyStop(
                kind: walking ? .busStop : .redLight, nearPlaceID: place.id, coordinate: point, arrivalSeconds: arrival,
                departureSeconds: timeline.now))
    }

    /// A stop, for a café's dwell, at a shop not in the catalog 30–80 m from place `index`
    /// (outside every fence).
    mutating func neighbourShop(of index: Int) {
        let place = catalog.places[index]
        for _ in 0..<10 {
            let distance = max(uniform(model.neighbourShopMeters), place.radiusMeters + 10)
            let point = place.coordinate.destination(bearingDegrees: uniform(0...360), distanceMeters: distance)
            guard isOutsideEveryFence(point) else { continue }
            timeline.move(to: point, speed: walkingSpeed)
            let arrival = timeline.now
            wander(around: point, radiusMeters: 3, until: arrival + StopKind.coffee.dwell.draw(using: &rng))
            timeline.move(to: point, speed: walkingSpeed)
            decoys.append(
                DecoyStop(
                    kind: .neighbourShop, nearPlaceID: place.id, coordinate: point, arrivalSeconds: arrival,
                    departureSeconds: timeline.now))
            return
        }
    }

    /// A stop at place `index`: by car, park off the center and walk to the door; on foot, walk to
    /// the door. Then wander inside (indoors with `indoorShare`) for the kind's dwell, and leave.
    /// A `long` stay lasts `ErrandModel.longStaySeconds` instead, wandering within
    /// `longStayRadiusMeters` of the center. Indoors the phone is silent with
    /// `silentIndoorProbability`.
    mutating func stop(at index: Int, long: Bool = false) {
        let place = catalog.places[index]
        let kind = StopKind.draw(mode, using: &rng)
        let dwell = long ? uniform(model.longStaySeconds) : kind.dwell.draw(using: &rng)
        let door = place.coordinate.destination(
            bearingDegrees: uniform(0...360), distanceMeters: uniform(0...0.3) * min(place.radiusMeters, 30))
        var parking: Coordinate?
        if mode == .driving {
            let spot = place.coordinate.destination(
                bearingDegrees: uniform(0...360), distanceMeters: uniform(model.parkingOffset) * max(place.radiusMeters, 60))
            go(to: spot)
            parking = spot
        } else {
            go(to: door)
        }
        // The stop begins when the traveller stops or comes inside the place's fence for the
        // last time before, whichever is first (a walker crossing a store's parking lot has
        // arrived).
        let arrival = timeline.lastEntry(into: place) ?? timeline.now
        if parking != nil { timeline.move(to: door, speed: walkingSpeed) }
        let walkBack = parking.map { door.distance(to: $0) / walkingSpeed } ?? 0
        let indoors = rng.nextUnit() < model.indoorShare * (kind == .fuel ? 0.5 : 1)
        let entered = timeline.now
        let radius = long ? uniform(model.longStayRadiusMeters) : max(1, min(kind.browsingRadiusMeters, place.radiusMeters / 2))
        wander(around: place.coordinate, radiusMeters: radius, until: max(entered + 30, arrival + dwell - walkBack - radius / walkingSpeed))
        timeline.move(to: door, speed: walkingSpeed)
        // At the door (the till, the exit) until the dwell is used up.
        timeline.wait(arrival + dwell - walkBack - timeline.now)
        let left = timeline.now
        if indoors, drawn(model.silentIndoorProbability) { silences.append(entered...left) }
        if let parking { timeline.move(to: parking, speed: walkingSpeed) }
        stops.append(
            TrueStop(
                placeID: place.id, kind: kind, arrivalSeconds: arrival, departureSeconds: timeline.now,
                indoorSeconds: indoors ? entered...left : nil))
    }

    /// Slow moves to random points within `radiusMeters` of `center`, each followed by a pause,
    /// until `end`.
    mutating func wander(around center: Coordinate, radiusMeters: Double, until end: Double) {
        while timeline.now < end {
            let target = center.destination(
                bearingDegrees: uniform(0...360), distanceMeters: radiusMeters * rng.nextUnit().squareRoot())
            let seconds = timeline.position.distance(to: target) / uniform(model.wanderSpeeds)
            if timeline.now + seconds >= end {
                timeline.wait(end - timeline.now)
                return
            }
            timeline.move(to: target, seconds: seconds)
            timeline.wait(min(uniform(model.pauseSeconds), end - timeline.now))
        }
    }

    /// Travels to `target` the trip's way: on foot with waits at crossings, or by car between
    /// lights.
    mutating func go(to target: Coordinate) {
        if mode == .walking { walk(to: target) } else { drive(to: target) }
    }

    /// On foot: a crossing every block, waited at with `crossingWaitProbability`.
    mutating func walk(to target: Coordinate) {
        while true {
            let remaining = timeline.position.distance(to: target)
            let block = uniform(model.blockMeters)
            guard block < remaining else {
                timeline.move(to: target, speed: walkingSpeed)
                return
            }
            timeline.move(to: timeline.position.interpolated(to: target, fraction: block / remaining), speed: walkingSpeed)
            if rng.nextUnit() < model.crossingWaitProbability { timeline.wait(uniform(model.crossingWaitSeconds)) }
        }
    }

    /// By car: from light to light, accelerating to a cruising speed and braking to a stop, red
    /// with `redLightProbability`. The speed is constant between the timeline's points, so an
    /// acceleration over d meters to v is covered at v / 2 (its true mean speed).
    mutating func drive(to target: Coordinate) {
        let a = model.accelerationMetersPerSecondSquared
        while true {
            let remaining = timeline.position.distance(to: target)
            guard remaining > 0 else { return }
            let length = min(remaining, uniform(model.lightSpacingMeters))
            var speed = uniform(model.cruiseSpeeds)
            var ramp = speed * speed / (2 * a)
            if 2 * ramp > length {
                ramp = length / 2
                speed = (a * length).squareRoot()
            }
            let start = timeline.position
            timeline.move(to: start.interpolated(to: target, fraction: ramp / remaining), seconds: 2 * ramp / speed)
            timeline.move(to: start.interpolated(to: target, fraction: (length - ramp) / remaining), seconds: (length - 2 * ramp) / speed)
            timeline.move(
                to: length >= remaining ? target : start.interpolated(to: target, fraction: length / remaining), seconds: 2 * ramp / speed)
            if length >= remaining { return }
            if rng.nextUnit() < model.redLightProbability { timeline.wait(uniform(model.redLightWaitSeconds)) }
        }
    }
}
