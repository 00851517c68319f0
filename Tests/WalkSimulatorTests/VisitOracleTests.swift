import FencePlanner
import Geodesy
import RotateTestSupport
import Testing
import WalkSimulator

@Suite struct VisitOracleTests {
    /// Visits found the slow, obvious way: the true path evaluated every `stepSeconds` (position
    /// interpolated along the great circle between the two samples around that time), every
    /// place tested, inside intervals merged when no evaluation between them was outside or
    /// across gaps of at most 30 s. Within a recording gap (`Walk.isGap(afterSample:)`) nothing
    /// is evaluated but the gap's first sample: no path is assumed across it.
    static func bruteForceVisits(_ walk: Walk, places: [Place], extraRadiusMeters: Double = 0, stepSeconds: Double = 0.02) -> [Visit] {
        guard let first = walk.samples.first, let last = walk.samples.last else { return [] }
        var visits: [Visit] = []
        for place in places {
            var current: Visit?
            var outsideSince: Double?
            var sample = 0
            var t = first.timeSeconds
            var evaluatedGap = -1
            while t <= last.timeSeconds {
                while sample + 1 < walk.samples.count - 1 && walk.samples[sample + 1].timeSeconds <= t { sample += 1 }
                let a = walk.samples[sample]
                let b = walk.samples[min(sample + 1, walk.samples.count - 1)]
                var at = t
                if walk.isGap(afterSample: sample) {
                    // The gap's first sample alone, once.
                    guard evaluatedGap != sample else {
                        t += stepSeconds
                        continue
                    }
                    evaluatedGap = sample
                    at = a.timeSeconds
                }
                let fraction = b.timeSeconds > a.timeSeconds ? min(1, max(0, (at - a.timeSeconds) / (b.timeSeconds - a.timeSeconds))) : 0
                let position = a.truePosition.interpolated(to: b.truePosition, fraction: fraction)
                let edge =
                    place.footprint?.signedDistanceMeters(to: UnitVector(position))
                    ?? position.distance(to: place.coordinate) - place.radiusMeters
                if edge <= extraRadiusMeters {
                    if var visit = current, outsideSince == nil || at - visit.exitSeconds <= VisitOracle.mergeGapSeconds + stepSeconds {
                        visit.exitSeconds = at
                        current = visit
                    } else {
                        if let visit = current { visits.append(visit) }
                        current = Visit(placeID: place.id, entrySeconds: at, exitSeconds: at)
                    }
                    outsideSince = nil
                } else if current != nil, outsideSince == nil {
                    outsideSince = at
                }
                t += stepSeconds
            }
            if let visit = current { visits.append(visit) }
        }
        return visits.sorted { ($0.entrySeconds, $0.placeID) < ($1.entrySeconds, $1.placeID) }
    }

    /// The oracle's visits are the brute force's, place for place, each entry and exit within
    /// `tolerance` seconds.
    static func expect(_ found: [Visit], equal expected: [Visit], within tolerance: Double, _ context: Comment) {
        #expect(found.map(\.placeID).sorted() == expected.map(\.placeID).sorted(), context)
        for visit in expected {
            let match = found.first {
                $0.placeID == visit.placeID && abs($0.entrySeconds - visit.entrySeconds) <= tolerance
                    && abs($0.exitSeconds - visit.exitSeconds) <= tolerance
            }
            #expect(
                match != nil,
                Comment(rawValue: "\(visit) not found in \(found.filter { $0.placeID == visit.placeID }); \(context.rawValue)"))
        }
    }

    /// Random walks (legs in random directions, speeds from walking to driving, fixes 1 to 5 s
    /// apart) among random fences, some overlapping, some passed twice: the oracle's visits equal
    /// the brute force's, place for place, with entry and exit times within the time one check
    /// spacing (1 m) takes at the walk's speed plus the brute force's step. From round 8 on, half
    /// the places are footprints (stars, some with a hole), grown by their edge distance.
    @Test func visitsMatchABruteForceOverRandomWalks() throws {
        let seed = TestSeed.value(salt: 2701)
        var rng = SplitMix64(seed: seed)
        let origin = Coordinate(validLatitude: 46.05, longitude: 14.51)
        for round in 0..<14 {
            let places = (0..<25).map { i in
                let center = origin.destination(bearingDegrees: rng.nextDouble(in: 0..<360), distanceMeters: rng.nextDouble(in: 0..<600))
                let radius = rng.nextDouble(in: 10..<120)
                if round >= 8 && i % 2 == 0 {
                    return Place(id: "p\(i)", footprint: PlannerFixtures.footprint(around: center, radiusMeters: radius, using: &rng))
                }
                return Place(id: "p\(i)", coordinate: center, radiusMeters: radius)
            }
            let catalog = try PlaceCatalog(places: places)
            let speed = rng.nextDouble(in: 1..<20)
            let interval = rng.nextDouble(in: 1..<5)
            var samples: [Walk.Sample] = []
            var position = origin
            var time = 0.0
            var bearing = rng.nextDouble(in: 0..<360)
            for step in 0..<Int(1_500 / (speed * interval)) {
                samples.append(Walk.Sample(timeSeconds: time, truePosition: position, fix: nil))
                if step % 20 == 0 { bearing = rng.nextDouble(in: 0..<360) }
                position = position.destination(bearingDegrees: bearing, distanceMeters: speed * interval)
                if position.distance(to: origin) > 700 { bearing += 180 }
                time += interval
            }
            let walk = Walk(samples: samples, kind: .walk)
            let context = Comment(rawValue: "round \(round), \(TestSeed.replay(seed)), speed \(speed), interval \(interval)")
            let pair = VisitOracle.visits(on: walk, catalog: catalog, grownByMeters: 40)
            for (extra, found) in [(0.0, pair.true), (40.0, pair.grown), (0.0, VisitOracle.visits(on: walk, catalog: catalog))] {
                let expected = Self.bruteForceVisits(walk, places: places, extraRadiusMeters: extra)
                Self.expect(found, equal: expected, within: MissedFenceOracle.checkSpacingMeters / speed + 0.05, context)
            }
        }
    }

    /// Random walks with recording gaps (steps of 3 to 30 minutes, some jumping up to 800 m, among
    /// 1-5 s fixes 0-3 m apart): the oracle's visits equal the brute force's, which evaluates nothing inside
    /// a gap: no fence entered or left across one, a fence inside on both sides one visit.
    @Test func recordingGapsInventNoPath() throws {
        let seed = TestSeed.value(salt: 2702)
        var rng = SplitMix64(seed: seed)
        let origin = Coordinate(validLatitude: 46.05, longitude: 14.51)
        var gapsCrossingAFence = 0
        for round in 0..<8 {
            let places = (0..<25).map { i in
                let center = origin.destination(bearingDegrees: rng.nextDouble(in: 0..<360), distanceMeters: rng.nextDouble(in: 0..<600))
                return Place(id: "p\(i)", coordinate: center, radiusMeters: rng.nextDouble(in: 20..<150))
            }
            let catalog = try PlaceCatalog(places: places)
            var samples: [Walk.Sample] = []
            var position = origin
            var time = 0.0
            var bearing = rng.nextDouble(in: 0..<360)
            for step in 0..<600 {
                samples.append(Walk.Sample(timeSeconds: time, truePosition: position, fix: nil))
                if step % 25 == 0 { bearing = rng.nextDouble(in: 0..<360) }
                if rng.nextDouble(in: 0..<1) < 0.02 {
                    // A gap: the recorder stops, and the user may or may not have moved.
                    let jump = rng.nextDouble(in: 0..<1) < 0.5 ? 0 : rng.nextDouble(in: 0..<800)
                    let next = position.destination(bearingDegrees: bearing, distanceMeters: jump)
                    if places.contains(where: { place in
                        (0...20).contains { k in
                            position.interpolated(to: next, fraction: Double(k) / 20).distance(to: place.coordinate) < place.radiusMeters
                        }
                    }) {
                        gapsCrossingAFence += 1
                    }
                    position = next
                    time += rng.nextDouble(in: 180..<1_800)
                } else {
                    position = position.destination(bearingDegrees: bearing, distanceMeters: rng.nextDouble(in: 0..<3))
                    time += rng.nextDouble(in: 1..<5)
                }
                if position.distance(to: origin) > 700 { bearing += 180 }
            }
            let walk = Walk(samples: samples, kind: .walk, gapSeconds: Walk.recordingGapSeconds)
            let context = Comment(rawValue: "round \(round), \(TestSeed.replay(seed))")
            let found = VisitOracle.visits(on: walk, catalog: catalog)
            let expected = Self.bruteForceVisits(walk, places: places, stepSeconds: 0.05)
            // A step shorter than the 1 m check spacing is one checked point: its crossing is
            // known to the step's duration (at most 5 s); a gap's to its samples' times.
            Self.expect(found, equal: expected, within: 5.1, context)
        }
        #expect(gapsCrossingAFence > 0, "the walks should jump across fences in some gaps")
    }

    /// A stay at a fence broken by a 15-minute recording gap is one visit; a gap whose two
    /// fixes lie on either side of a fence enters nothing.
    @Test func aStayThroughAGapIsOneVisitAndAJumpEntersNothing() throws {
        let center = Coordinate(validLatitude: 46.05, longitude: 14.51)
        let catalog = try PlaceCatalog(places: [Place(id: "shop", coordinate: center, radiusMeters: 50)])
        func walk(_ points: [(Double, Coordinate)]) -> Walk {
            Walk(samples: points.map { Walk.Sample(timeSeconds: $0.0, truePosition: $0.1, fix: nil) }, kind: .walk, gapSeconds: 120)
        }
        let near = center.destination(bearingDegrees: 90, distanceMeters: 10)
        let stay = walk([(0, center), (60, near), (960, center), (1_020, near)])
        #expect(VisitOracle.visits(on: stay, catalog: catalog).map { [$0.entrySeconds, $0.exitSeconds] } == [[0, 1_020]])
        let west = center.destination(bearingDegrees: 270, distanceMeters: 300)
        let east = center.destination(bearingDegrees: 90, distanceMeters: 300)
        #expect(VisitOracle.visits(on: walk([(0, west), (900, east)]), catalog: catalog).isEmpty)
        // Without the gap rule the straight line between them passes through the shop.
        var interpolated = walk([(0, west), (900, east)])
        interpolated.gapSeconds = nil
        #expect(VisitOracle.visits(on: interpolated, catalog: catalog).map(\.placeID) == ["shop"])
    }

    /// A walk that leaves a fence for 20 s and comes back is one visit; for 40 s, two.
    @Test func reentriesWithinThirtySecondsAreOneVisit() throws {
        let center = Coordinate(validLatitude: 46.05, longitude: 14.51)
        let catalog = try PlaceCatalog(places: [Place(id: "shop", coordinate: center, radiusMeters: 50)])
        func walk(outsideSeconds: Double) -> Walk {
            // In at the center for 60 s, 60 m out and back (1 m/s legs take 60 s each way, of which
            // 10 s beyond the edge), then `outsideSeconds` more outside at 60 m, then back in.
            let out = center.destination(bearingDegrees: 0, distanceMeters: 60)
            let stay = max(0, outsideSeconds - 20)
            let times = [0, 60, 120, 120 + stay, 180 + stay, 240 + stay]
            let positions = [center, center, out, out, center, center]
            return Walk(samples: zip(times, positions).map { Walk.Sample(timeSeconds: $0, truePosition: $1, fix: nil) }, kind: .walk)
        }
        let short = VisitOracle.visits(on: walk(outsideSeconds: 20), catalog: catalog)
        #expect(short.count == 1)
        let long = VisitOracle.visits(on: walk(outsideSeconds: 40), catalog: catalog)
        #expect(long.count == 2)
        #expect(abs((long.first?.exitSeconds ?? 0) - 110) < 1.1)
    }

    static let visits = [
        Visit(placeID: "a", entrySeconds: 100, exitSeconds: 110),  // 10 s: a drive past
        Visit(placeID: "b", entrySeconds: 200, exitSeconds: 260),  // 60 s
        Visit(placeID: "c", entrySeconds: 400, exitSeconds: 700),  // 300 s
        Visit(placeID: "c", entrySeconds: 740, exitSeconds: 1_000),  // again, 40 s later
    ]

    /// The detection window: from 30 s before the true entry to 60 s after the visit ends.
    @Test(arguments: [(69.9, false), (70.0, true), (170.0, true), (170.1, false)])
    func anEntryDetectsAVisitInsideItsWindow(time: Double, detects: Bool) {
        let score = VisitOracle.score(
            visits: Self.visits, nearVisits: Self.visits, entries: [ReceivedEntry(placeID: "a", timeSeconds: time)])
        #expect(score.detected == (detects ? 1 : 0))
        #expect(score.latenciesSeconds == (detects ? [time - 100] : []))
        #expect(score.falseEntries == (detects ? 0 : 1))
    }

    /// One entry detects one visit: the first of two close visits of one place, the second needing
    /// an entry of its own; an entry for another place detects nothing.
    @Test func eachEntryDetectsAtMostOneVisit() {
        let one = VisitOracle.score(visits: Self.visits, nearVisits: Self.visits, entries: [ReceivedEntry(placeID: "c", timeSeconds: 720)])
        #expect(one.detected == 1)
        #expect(one.latenciesSeconds == [320])
        let two = VisitOracle.score(
            visits: Self.visits, nearVisits: Self.visits,
            entries: [ReceivedEntry(placeID: "c", timeSeconds: 720), ReceivedEntry(placeID: "c", timeSeconds: 745)])
        #expect(two.detected == 2)
        #expect(two.latenciesSeconds.sorted() == [5, 320])
        let other = VisitOracle.score(
            visits: Self.visits, nearVisits: Self.visits, entries: [ReceivedEntry(placeID: "b", timeSeconds: 100)])
        #expect(other.detected == 0)
        #expect(other.falseEntries == 1)
    }

    /// Recall overall, for visits of at least 30 s and at least 120 s; false entries are judged
    /// against the visits of the grown fences, not the true ones.
    @Test func recallBySplitsAndFalseEntriesAgainstTheGrownFences() {
        let entries = [
            ReceivedEntry(placeID: "b", timeSeconds: 205), ReceivedEntry(placeID: "c", timeSeconds: 420),
            ReceivedEntry(placeID: "d", timeSeconds: 50),
        ]
        let near = Self.visits + [Visit(placeID: "d", entrySeconds: 40, exitSeconds: 45)]
        let score = VisitOracle.score(visits: Self.visits, nearVisits: near, entries: entries)
        #expect((score.visits, score.detected) == (4, 2))
        #expect((score.visits30, score.detected30) == (3, 2))
        #expect((score.visits120, score.detected120) == (2, 1))
        #expect(score.recall == 0.5)
        #expect(score.falseEntries == 0)
        #expect(VisitOracle.score(visits: Self.visits, nearVisits: Self.visits, entries: entries).falseEntries == 1)
        #expect(score.latencySeconds(quantile: 0.5) == 5)
        #expect(score.latencySeconds(quantile: 1) == 20)
    }
}
