import Geodesy
import PlatformFacts

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension RegionMonitorEmulator {
    /// Feeds the true device position at `timeSeconds` and appends to `events` every event the
    /// app receives up to that time, in delivery order (ties in decision order).
    ///
    /// The OS's estimate moves to this position plus its error; every monitored region's crossing
    /// rule is evaluated on it (see the type's rules); events decided now with zero latency are
    /// delivered by this same call.
    ///
    /// - Parameters:
    ///   - position: the true position.
    ///   - timeSeconds: not earlier than any previous call.
    ///   - events: appended to, never cleared (reuse one buffer to avoid allocation).
    /// - Complexity: O(m + p) for m registered regions and p undelivered events; no allocation
    ///   in the steady state.
    public mutating func advance(to position: Coordinate, at timeSeconds: Double, into events: inout [RegionEvent]) {
        advance(to: UnitVector(position), poleLongitudeRadians: position.longitudeRadians, at: timeSeconds, into: &events)
    }

    /// `advance(to:at:into:)` for a position given as its unit vector (a replay converts each
    /// sample once for every strategy). At a pole the OS's error is laid out along the meridian
    /// `poleLongitudeRadians`.
    public mutating func advance(
        to position: UnitVector, poleLongitudeRadians: Double = 0, at timeSeconds: Double, into events: inout [RegionEvent]
    ) {
        moveClock(to: timeSeconds)
        trackStillness(position, at: timeSeconds)
        followVisits(position, coordinate: Coordinate(position), at: timeSeconds)
        // Dozing, the OS makes no new Wi-Fi position: its estimate stays where it was.
        let dozing = platform.doze.map { stillAnchor != nil && timeSeconds - stillSinceSeconds >= $0.afterSeconds } ?? false
        let estimate =
            dozing
            ? self.estimate ?? position : estimatedPosition(of: position, poleLongitudeRadians: poleLongitudeRadians, at: timeSeconds)
        self.estimate = estimate
        let stay = platform.crossings.staySeconds

        for index in regions.indices where regions[index].monitored {
            if regions[index].state == .unknown {
                settleInitialState(at: index, timeSeconds: timeSeconds)
                continue
            }
            let chord2 = estimate.squaredChord(to: regions[index].center)
            let crossing =
                regions[index].state == .outside ? chord2 <= regions[index].entryChord2 : chord2 > regions[index].exitChord2
            guard crossing else {
                regions[index].candidateSinceSeconds = .nan
                if regions[index].state == .inside, timeSeconds >= regions[index].dwellDueSeconds {
                    regions[index].dwellDueSeconds = .nan
                    decide(.dwell, regionID: regions[index].id, at: timeSeconds)
                }
                continue
            }
            if regions[index].candidateSinceSeconds.isNaN { regions[index].candidateSinceSeconds = timeSeconds }
            guard timeSeconds - regions[index].candidateSinceSeconds >= stay else { continue }
            let entered = regions[index].state == .outside
            regions[index].state = entered ? .inside : .outside
            regions[index].candidateSinceSeconds = .nan
            if let successor = regions[index].successor {
                regions[index].center = successor.center
                regions[index].radiusChord2 = successor.radiusChord2
                regions[index].entryChord2 = successor.entryChord2
                regions[index].exitChord2 = successor.exitChord2
                regions[index].successor = nil
            }
            decide(entered ? .enter : .exit, regionID: regions[index].id, at: timeSeconds)
            regions[index].dwellDueSeconds = entered ? timeSeconds + (regions[index].dwellAfterSeconds ?? .nan) : .nan
        }

        var due = 0
        while due < pending.count, pending[due].event.deliveredAtSeconds <= timeSeconds {
            events.append(pending[due].event)
            due += 1
        }
        if due > 0 { pending.removeFirst(due) }
    }

    /// Keeps where the device last moved beyond the still radius, and when (for the still latency
    /// and Doze).
    mutating func trackStillness(_ position: UnitVector, at timeSeconds: Double) {
        guard let radius = platform.stillLatency?.radiusMeters ?? platform.doze?.radiusMeters else { return }
        if let anchor = stillAnchor, anchor.squaredChord(to: position) <= Self.squaredChord(arcMeters: radius) { return }
        stillAnchor = position
        stillSinceSeconds = timeSeconds
    }

    /// `advance(to:at:into:)` returning the delivered events.
    public mutating func advance(to position: Coordinate, at timeSeconds: Double) -> [RegionEvent] {
        var events: [RegionEvent] = []
        advance(to: position, at: timeSeconds, into: &events)
        return events
    }

    /// The true position moved by the OS's current error (a first-order Gauss–Markov process per
    /// axis, see `PlatformProfile.PositionNoise`), as a unit vector.
    mutating func estimatedPosition(of truth: UnitVector, poleLongitudeRadians: Double, at timeSeconds: Double) -> UnitVector {
        let noise = platform.crossings.positionNoise
        guard noise.sigmaMeters > 0 else { return truth }
        // Two independent standard normals from one Box–Muller draw.
        let radius = (-2 * log(1 - noiseRandom.nextUnit())).squareRoot()
        let angle = 2 * Double.pi * noiseRandom.nextUnit()
        let (g1, g2) = (radius * cos(angle), radius * sin(angle))
        if let previous = noiseTimeSeconds {
            let dt = timeSeconds - previous
            if dt != noiseStepSeconds {
                noiseStepSeconds = dt
                noiseKeep = exp(-dt / noise.correlationSeconds)
            }
            let keep = noiseKeep
            let fresh = noise.sigmaMeters * (1 - keep * keep).squareRoot()
            noiseEastMeters = keep * noiseEastMeters + fresh * g1
            noiseNorthMeters = keep * noiseNorthMeters + fresh * g2
        } else {
            noiseEastMeters = noise.sigmaMeters * g1
            noiseNorthMeters = noise.sigmaMeters * g2
        }
        noiseTimeSeconds = timeSeconds
        // Local east and north at the true position, from its unit vector (at a pole, those of
        // its stored meridian).
        let sinLat = truth.z
        let cosLat = (truth.x * truth.x + truth.y * truth.y).squareRoot()
        let sinLon: Double, cosLon: Double
        if cosLat > 1e-12 {
            sinLon = truth.y / cosLat
            cosLon = truth.x / cosLat
        } else {
            sinLon = sin(poleLongitudeRadians)
            cosLon = cos(poleLongitudeRadians)
        }
        let east = noiseEastMeters / Earth.meanRadiusMeters
        let north = noiseNorthMeters / Earth.meanRadiusMeters
        let moved = UnitVector(
            x: truth.x - east * sinLon - north * sinLat * cosLon,
            y: truth.y + east * cosLon - north * sinLat * sinLon,
            z: truth.z + north * cosLat)
        return moved.normalized
    }
}
