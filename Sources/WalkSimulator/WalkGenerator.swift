import FencePlanner
import Geodesy

/// Makes walks: a path of great-circle legs traveled at a speed, sampled every fix interval, with
/// GPS noise and dropouts. Every random choice comes from the `SplitMix64` passed in.
public enum WalkGenerator {
    /// Samples a path (great-circle legs through `waypoints`) at `speedMetersPerSecond`.
    public static func along(
        _ waypoints: [Coordinate], speedMetersPerSecond: Double, fixes model: FixModel, kind: WalkKind, using rng: inout SplitMix64
    ) -> Walk {
        precondition(speedMetersPerSecond > 0 && model.intervalSeconds > 0, "speed and fix interval must be > 0")
        guard let first = waypoints.first else { return Walk(samples: [], kind: kind) }
        let step = speedMetersPerSecond * model.intervalSeconds
        var positions = [first]
        var leftover = 0.0  // meters already walked into the current step
        for (a, b) in zip(waypoints, waypoints.dropFirst()) {
            let legLength = a.distance(to: b)
            guard legLength > 0 else { continue }
            var at = step - leftover
            while at <= legLength {
                positions.append(a.interpolated(to: b, fraction: at / legLength))
                at += step
            }
            leftover = legLength - (at - step)
        }
        if let last = waypoints.last, positions.last.map({ $0.distance(to: last) > 0.01 }) ?? true { positions.append(last) }
        var samples: [Walk.Sample] = []
        samples.reserveCapacity(positions.count)
        var droppedInARow = 0
        for (i, position) in positions.enumerated() {
            let time = Double(i) * model.intervalSeconds
            let drop =
                i > 0 && model.dropoutProbability > 0 && droppedInARow < model.maxConsecutiveDropouts
                && rng.nextUnit() < model.dropoutProbability
            if drop {
                droppedInARow += 1
                samples.append(Walk.Sample(timeSeconds: time, truePosition: position, fix: nil))
                continue
            }
            droppedInARow = 0
            var reported = position
            if model.noiseSigmaMeters > 0 {
                reported = SyntheticCoordinates.gaussian(around: position, sigmaMeters: model.noiseSigmaMeters, using: &rng)
            }
            let accuracy: Double? = model.noiseSigmaMeters > 0 ? model.noiseSigmaMeters : nil
            samples.append(
                Walk.Sample(
                    timeSeconds: time, truePosition: position,
                    fix: Fix(reported, accuracyMeters: accuracy, timestampSeconds: time)))
        }
        return Walk(samples: samples, kind: kind)
    }

    /// Waypoints for a walk of about `lengthMeters` of the given kind, drawn from `places`
    /// (walks go from place to place, so they pass where places are dense); `center` is the
    /// region's center (used by `diagonal`).
    public static func waypoints(
        _ kind: WalkKind, lengthMeters: Double, places: [Place], center: Coordinate, using rng: inout SplitMix64
    ) -> [Coordinate] {
        precondition(!places.isEmpty, "waypoints come from places")
        func randomPlace() -> Coordinate { places[rng.nextInt(below: places.count)].coordinate }
        switch kind {
        case .diagonal:
            return [
                center.destination(bearingDegrees: 225, distanceMeters: lengthMeters / 2),
                center.destination(bearingDegrees: 45, distanceMeters: lengthMeters / 2),
            ]
        case .straight:
            let start = randomPlace()
            return [start, start.destination(bearingDegrees: rng.nextDouble(in: 0..<360), distanceMeters: lengthMeters)]
        case .walk, .drive, .dateLine, .errands:
            // Errand trips come from `ErrandGenerator`; asked for waypoints, they are a walk's.
            // dateLine alternates between places east and west of the ±180° meridian (its place
            // set straddles it), so every leg crosses it.
            let west = places.filter { $0.coordinate.longitude > 0 }.map(\.coordinate)
            let east = places.filter { $0.coordinate.longitude <= 0 }.map(\.coordinate)
            let alternate = kind == .dateLine && !west.isEmpty && !east.isEmpty
            var points = [alternate ? west[rng.nextInt(below: west.count)] : randomPlace()]
            var total = 0.0
            while total < lengthMeters {
                let side = points.count % 2 == 0 ? west : east
                let target = alternate ? side[rng.nextInt(below: side.count)] : randomPlace()
                let next = SyntheticCoordinates.gaussian(around: target, sigmaMeters: 30, using: &rng)
                let leg = points[points.count - 1].distance(to: next)
                if total + leg > lengthMeters {
                    let fraction = (lengthMeters - total) / leg
                    points.append(points[points.count - 1].interpolated(to: next, fraction: fraction))
                    break
                }
                points.append(next)
                total += leg
            }
            return points
        case .backAndForth:
            // A line 400 m long that grazes a fence edge: its midpoint sits on the edge.
            let place = places[rng.nextInt(below: places.count)]
            let outward = rng.nextDouble(in: 0..<360)
            let graze = place.coordinate.destination(bearingDegrees: outward, distanceMeters: place.radiusMeters)
            let a = graze.destination(bearingDegrees: outward + 90, distanceMeters: 200)
            let b = graze.destination(bearingDegrees: outward - 90, distanceMeters: 200)
            let laps = max(1, Int(lengthMeters / 400))
            return (0...laps).map { $0 % 2 == 0 ? a : b }
        case .commute:
            let home = randomPlace()
            var work = randomPlace()
            for _ in 0..<20 where home.distance(to: work) < 2_000 { work = randomPlace() }
            let via1 = SyntheticCoordinates.gaussian(around: home.interpolated(to: work, fraction: 0.5), sigmaMeters: 500, using: &rng)
            let via2 = SyntheticCoordinates.gaussian(around: home.interpolated(to: work, fraction: 0.5), sigmaMeters: 500, using: &rng)
            let loop = [home, via1, work, via2, home]
            let loopLength = zip(loop, loop.dropFirst()).reduce(0) { $0 + $1.0.distance(to: $1.1) }
            let repeats = max(1, Int((lengthMeters / max(1, loopLength)).rounded()))
            return (0..<repeats).flatMap { $0 == 0 ? loop : Array(loop.dropFirst()) }
        case .pole:
            // From one side of the pole to the other and back, through a point near the pole.
            let start = randomPlace()
            let across = Coordinate(
                validLatitude: start.latitude, longitude: start.longitude > 0 ? start.longitude - 180 : start.longitude + 180)
            let nearPole = Coordinate(validLatitude: 90, longitude: start.longitude)
            let loops = max(1, Int((lengthMeters / max(1, 2 * start.distance(to: across))).rounded()))
            return (0..<loops).flatMap { _ in [start, nearPole, across, start] }
        }
    }
}
