import FencePlanner
import FenceRules
import Foundation
import Geodesy
import Testing

@testable import EventEngine

/// Random trips of stays and walks, fed to the engine with visits on, against a brute force
/// that keeps every fix of a stay in an array.
@Suite struct StoreVisitTests {
    static let origin = Coordinate(validLatitude: 45.8, longitude: 15.97)

    /// A trip: stays of 1–10 minutes with fixes scattered up to `jitter` meters around a spot,
    /// walks of 0.5–2 minutes at 1–2 m/s between them, a fix every 10–40 s with accuracy 5–250 m.
    static func trip(seed: UInt64) -> [Fix] {
        var rng = SplitMix64(seed: seed)
        var fixes: [Fix] = []
        var time = 0.0
        var spot = origin.destination(bearingDegrees: rng.nextDouble(in: 0..<360), distanceMeters: rng.nextDouble(in: 0..<300))
        for _ in 0..<6 {
            let end = time + rng.nextDouble(in: 60..<600)
            let jitter = rng.nextDouble(in: 5..<80)
            while time < end {
                let position = spot.destination(bearingDegrees: rng.nextDouble(in: 0..<360), distanceMeters: rng.nextDouble(in: 0..<jitter))
                fixes.append(Fix(position, accuracyMeters: rng.nextDouble(in: 5..<250), timestampSeconds: time))
                time += rng.nextDouble(in: 10..<40)
            }
            let bearing = rng.nextDouble(in: 0..<360)
            let speed = rng.nextDouble(in: 1..<2)
            let walkEnd = time + rng.nextDouble(in: 30..<120)
            let from = spot
            let walkStart = time
            while time < walkEnd {
                spot = from.destination(bearingDegrees: bearing, distanceMeters: speed * (time - walkStart))
                fixes.append(Fix(spot, accuracyMeters: rng.nextDouble(in: 5..<60), timestampSeconds: time))
                time += rng.nextDouble(in: 10..<40)
            }
        }
        return fixes
    }

    /// Places on a 60 m grid around the origin, radii 10–120 m.
    static func catalog(seed: UInt64) throws -> PlaceCatalog {
        var rng = SplitMix64(seed: seed ^ 0x5eed)
        var places: [Place] = []
        for i in 0..<40 {
            let center = origin.destination(bearingDegrees: rng.nextDouble(in: 0..<360), distanceMeters: rng.nextDouble(in: 0..<600))
            places.append(Place(id: "p\(i)", coordinate: center, radiusMeters: rng.nextDouble(in: 10..<120)))
        }
        return try PlaceCatalog(places: places)
    }

    struct Expected: Equatable {
        var kind: VisitEvent.Kind
        var arrival: Double
        var departure: Double?
        var time: Double
        var fixes: [Fix]
    }

    /// The visits of `fixes` by the rule's definition, with every fix of a stay kept: a stay's
    /// mean weights each fix by 1 / its variance; a precise fix within the radius at least
    /// `motionSeconds` after the reference (the stay's first precise fix, then each check's) is a
    /// check: farther from it than 1.5 times their accuracies and the slack begins a new stay
    /// (walking on), else it is the new reference and the user stands; once long enough, a stay
    /// arrives unless this fix is precise, the stay has a reference and no check said standing;
    /// a visit leaves once the fixes beyond the radius of its mean span `departureSeconds`
    /// (`settledDepartureSeconds` once it has lasted `settleSeconds`), or one is far.
    static func reference(_ fixes: [Fix], _ rules: VisitSettings) -> [Expected] {
        var events: [Expected] = []
        var stay: [Fix] = []
        var arrived = false
        var outside: [Fix] = []
        var precise: Fix?
        var stillChecked = false
        func accuracy(_ fix: Fix) -> Double { fix.accuracyMeters ?? rules.attribution.defaultAccuracyMeters }
        func isPrecise(_ fix: Fix) -> Bool { accuracy(fix) <= rules.preciseAccuracyMeters }
        func mean(_ fixes: [Fix]) -> Coordinate {
            var sum = (x: 0.0, y: 0.0, z: 0.0)
            for fix in fixes {
                let weight = 1 / max(pow(rules.attribution.sigma(accuracyMeters: fix.accuracyMeters), 2), 1e-4)
                let vector = UnitVector(fix.coordinate)
                sum = (sum.x + weight * vector.x, sum.y + weight * vector.y, sum.z + weight * vector.z)
            }
            return Coordinate(UnitVector(x: sum.x, y: sum.y, z: sum.z))
        }
        for fix in fixes where accuracy(fix) <= rules.maxAccuracyMeters {
            let time = fix.timestampSeconds ?? 0
            guard let first = stay.first else {
                stay = [fix]
                precise = isPrecise(fix) ? fix : nil
                stillChecked = false
                continue
            }
            if !arrived {
                let distance = fix.coordinate.distance(to: first.coordinate)
                if distance <= rules.stillRadiusMeters {
                    if rules.motionSeconds > 0, isPrecise(fix), let reference = precise,
                        time - (reference.timestampSeconds ?? 0) >= rules.motionSeconds
                    {
                        let limit = 1.5 * (accuracy(fix) + accuracy(reference)) + rules.motionSlackMeters
                        if fix.coordinate.distance(to: reference.coordinate) > limit {
                            stay = [fix]
                            precise = fix
                            stillChecked = false
                            outside = []
                            continue
                        }
                        precise = fix
                        stillChecked = true
                    }
                    stay.append(fix)
                    outside = []
                    if precise == nil, isPrecise(fix) { precise = fix }
                    if time - (first.timestampSeconds ?? 0) >= rules.stillSeconds {
                        if rules.motionSeconds > 0, isPrecise(fix), precise != nil, !stillChecked { continue }
                        arrived = true
                        events.append(Expected(kind: .arrival, arrival: first.timestampSeconds ?? 0, time: time, fixes: stay))
                    }
                    continue
                }
                outside.append(fix)
                if distance > rules.farDepartureFactor * rules.stillRadiusMeters
                    || (outside.count >= rules.departureFixes && time - (outside[0].timestampSeconds ?? 0) >= rules.departureSeconds)
                {
                    stay = [fix]
                    precise = isPrecise(fix) ? fix : nil
                    stillChecked = false
                    outside = []
                }
                continue
            }
            let distance = fix.coordinate.distance(to: mean(stay))
            if distance <= rules.stillRadiusMeters {
                stay.append(fix)
                outside = []
                continue
            }
            outside.append(fix)
            let span = time - (outside[0].timestampSeconds ?? 0)
            let settled = time - (first.timestampSeconds ?? 0) >= rules.settleSeconds
            let needed = settled ? max(rules.departureSeconds, rules.settledDepartureSeconds) : rules.departureSeconds
            if distance > rules.farDepartureFactor * rules.stillRadiusMeters
                || (outside.count >= rules.departureFixes && span >= needed)
            {
                events.append(
                    Expected(
                        kind: .departure, arrival: first.timestampSeconds ?? 0, departure: outside[0].timestampSeconds, time: time,
                        fixes: stay))
                stay = [fix]
                precise = isPrecise(fix) ? fix : nil
                stillChecked = false
                arrived = false
                outside = []
            }
        }
        return events
    }

    /// Every arrival and departure at the fix the brute force finds, dated from the same fixes,
    /// and attributed as `StopAttribution` attributes that stay's fixes.
    @Test(arguments: 0..<24)
    func visitsMatchTheBruteForce(seed: Int) throws {
        let catalog = try Self.catalog(seed: UInt64(seed))
        var settings = FenceMonitor.Settings()
        var rules = VisitSettings()
        rules.stillRadiusMeters = [60.0, 100, 150][seed % 3]
        rules.stillSeconds = [60.0, 100, 240][seed / 3 % 3]
        rules.settledDepartureSeconds = [120.0, 30, 200][seed / 2 % 3]
        rules.motionSeconds = [25.0, 0][seed / 9 % 2]
        // The wait for a confirmation's GNSS has its own test (`sparseFixesStillGiveGNSSItsChance`).
        rules.confirmSeconds = 0
        settings.visits = rules
        var monitor = try FenceMonitor(catalog: catalog, configuration: RotationConfiguration(), settings: settings)
        let fixes = Self.trip(seed: UInt64(seed))
        var events: [VisitEvent] = []
        for fix in fixes { events += monitor.handle(.fix(fix, source: .network)).visits }
        let expected = Self.reference(fixes, rules)
        #expect(events.count == expected.count, "seed \(seed): \(events.count) events, brute force \(expected.count)")
        #expect(expected.contains { $0.kind == .arrival }, "seed \(seed): a trip with no visit tests little")
        for (event, want) in zip(events, expected) {
            #expect(
                event.kind == want.kind && event.timeSeconds == want.time,
                "seed \(seed): \(event.kind) at \(event.timeSeconds), want \(want)")
            #expect(event.visit.arrivalSeconds == want.arrival && event.visit.departureSeconds == want.departure)
            #expect(event.visit.fixes == want.fixes.count)
            // The attribution of the stay's fixes, each place within the candidate radius.
            let model = rules.attribution
            let candidates = catalog.places.filter {
                event.visit.coordinate.distance(to: $0.coordinate) - $0.radiusMeters <= rules.candidateRadiusMeters
            }.map { StopAttribution.Candidate(id: $0.id, fence: CircularFence(center: $0.coordinate, radiusMeters: $0.radiusMeters)) }
            let stopFixes = want.fixes.map {
                StopAttribution.StopFix(coordinate: $0.coordinate, accuracyMeters: $0.accuracyMeters, timeSeconds: $0.timestampSeconds ?? 0)
            }
            let posterior = model.posterior(fixes: stopFixes, candidates: candidates)
            let none = try #require(posterior.first { $0.id == nil }).probability
            #expect(abs(event.visit.noneProbability - none) < 1e-9)
            // The credible set: places by probability while the listed ones and "none" hold less
            // than `candidateMass`, each at least `minimumCandidateProbability`.
            var listed: [(id: String?, probability: Double)] = []
            var held = posterior.first { $0.id == nil }?.probability ?? 0
            for entry in posterior.filter({ $0.id != nil }).sorted(by: { $0.probability > $1.probability }) {
                if held >= rules.candidateMass || entry.probability < rules.minimumCandidateProbability { break }
                listed.append(entry)
                held += entry.probability
            }
            #expect(event.visit.candidates.map(\.placeID) == listed.map { $0.id ?? "" }, "seed \(seed)")
            for (candidate, entry) in zip(event.visit.candidates, listed) { #expect(abs(candidate.probability - entry.probability) < 1e-9) }
            let top = posterior.first { $0.id != nil }?.id
            #expect(event.visit.placeID == (none <= rules.maximumNoneProbability ? top : nil))
        }
    }

    /// The first arrival is the stop `StillnessRule` finds with a first-fix anchor, ended by two
    /// fixes 30 s apart, on trips where every fifth fix strays 110–400 m.
    @Test(arguments: 0..<12)
    func firstArrivalIsTheStillnessRulesStop(seed: Int) throws {
        var settings = FenceMonitor.Settings()
        settings.visits = VisitSettings()
        // The still rule alone: no wait for precise fixes to say the user is standing, nor for a
        // confirmation's GNSS.
        settings.visits?.motionSeconds = 0
        settings.visits?.confirmSeconds = 0
        var monitor = try FenceMonitor(catalog: Self.catalog(seed: 1), configuration: RotationConfiguration(), settings: settings)
        var rule = StillnessRule(radiusMeters: 100, durationSeconds: 100, anchor: .firstFix, leaving: .twoFixesThirtySeconds)
        var stopped: (since: Double, at: Double)?
        var arrival: VisitEvent?
        var rng = SplitMix64(seed: UInt64(seed))
        let trip = Self.trip(seed: UInt64(100 + seed)).enumerated().map { i, fix in
            guard i % 5 == 4 else { return fix }
            let stray = fix.coordinate.destination(
                bearingDegrees: rng.nextDouble(in: 0..<360), distanceMeters: rng.nextDouble(in: 110..<400))
            return Fix(stray, accuracyMeters: fix.accuracyMeters, timestampSeconds: fix.timestampSeconds)
        }
        for fix in trip where (fix.accuracyMeters ?? 0) <= 200 {
            let time = fix.timestampSeconds ?? 0
            if stopped == nil, case .stopped(let since)? = rule.add(fix.coordinate, at: time) { stopped = (since, time) }
            if arrival == nil { arrival = monitor.handle(.fix(fix, source: .network)).visits.first }
        }
        let stop = try #require(stopped)
        let visit = try #require(arrival)
        #expect(visit.kind == .arrival && visit.timeSeconds == stop.at && visit.visit.arrivalSeconds == stop.since)
    }

    /// A stop inside a large place is named with confidence; one far from every place names
    /// none and lists none.
    @Test func namesTheResolvablePlaceAndNoneFarFromAll() throws {
        let shop = Place(id: "market", coordinate: Self.origin, radiusMeters: 150)
        let catalog = try PlaceCatalog(places: [shop])
        var settings = FenceMonitor.Settings()
        settings.visits = VisitSettings()
        for (offset, named) in [(20.0, true), (900.0, false)] {
            var monitor = try FenceMonitor(catalog: catalog, configuration: RotationConfiguration(), settings: settings)
            let spot = Self.origin.destination(bearingDegrees: 45, distanceMeters: offset)
            var arrivals: [StoreVisit] = []
            for t in stride(from: 0.0, to: 600, by: 20) {
                let fix = Fix(spot.destination(bearingDegrees: t, distanceMeters: 15), accuracyMeters: 20, timestampSeconds: t)
                arrivals += monitor.handle(.fix(fix, source: .network)).visits.filter { $0.kind == .arrival }.map(\.visit)
            }
            #expect(arrivals.count == 1)
            let visit = try #require(arrivals.first)
            if named {
                // 20 m inside a 150 m place: the fence's spread and the prior of a place not in
                // the catalog leave it about 0.88.
                #expect(visit.placeID == "market" && (visit.candidates.first?.probability ?? 0) > 0.8)
            } else {
                #expect(visit.placeID == nil && visit.candidates.isEmpty && visit.noneProbability == 1)
            }
        }
    }

    /// Visits off: no visit, no stay kept, the location request as without them.
    @Test func offByDefault() throws {
        var monitor = try FenceMonitor(catalog: Self.catalog(seed: 2), configuration: RotationConfiguration())
        for fix in Self.trip(seed: 7) {
            let output = monitor.handle(.fix(fix, source: .continuous))
            #expect(output.visits.isEmpty)
            #expect(monitor.state.stay == nil && monitor.state.cue == nil)
        }
    }

    /// After an entry the engine asks for a burst of network fixes, not GNSS, until the stay is
    /// a visit (then the regions' own request), the user has moved on, or the burst has lasted
    /// `burstSeconds`; after a burst without a visit, a slower watch until the platform reports
    /// the region's exit (whose exit, after a visit there, is a cue to see the departure).
    @Test func anEntryAsksForABurstUntilTheVisit() throws {
        let places = (0..<5).map { i in
            Place(
                id: "s\(i)", coordinate: Self.origin.destination(bearingDegrees: 90, distanceMeters: Double(i) * 2_000), radiusMeters: 200)
        }
        let catalog = try PlaceCatalog(places: places)
        for passages in [false, true] {
            try entryBurst(catalog: catalog, passages: passages)
        }
    }

    /// `anEntryAsksForABurstUntilTheVisit` stop-first (fixes every `cueIntervalSeconds` until
    /// two stay) or for passages (the burst at once).
    func entryBurst(catalog: PlaceCatalog, passages: Bool) throws {
        var settings = FenceMonitor.Settings()
        var rules = VisitSettings(budget: passages ? .passages : .balanced)
        rules.burstIntervalSeconds = 15
        rules.cueIntervalSeconds = 35
        // GNSS to confirm a stay has its own test.
        rules.confirmSeconds = 0
        settings.visits = rules
        let cue = passages ? 15 : rules.cueIntervalSeconds
        for stays in [true, false] {
            var monitor = try FenceMonitor(catalog: catalog, configuration: RotationConfiguration(), settings: settings)
            _ = monitor.handle(
                .fix(
                    Fix(Self.origin.destination(bearingDegrees: 0, distanceMeters: 600), accuracyMeters: 10, timestampSeconds: 0),
                    source: .wakeFix))
            let quiet = monitor.locationRequest()
            #expect(!quiet.keepsGNSSOn, "exact: \(quiet)")
            let entry = monitor.handle(.region(RegionReport(regionID: "s0", kind: .entry, timeSeconds: 100)))
            #expect(entry.placeEvents.map(\.kind) == [.entry])
            #expect(entry.location == .networkFixes(intervalSeconds: cue))
            var time = 100.0
            var arrived = false
            while time < 600 {
                time += 15
                let spot = stays ? Self.origin : Self.origin.destination(bearingDegrees: 0, distanceMeters: 600 + time * 1.5)
                let output = monitor.handle(.fix(Fix(spot, accuracyMeters: 30, timestampSeconds: time), source: .network))
                arrived = arrived || output.visits.contains { $0.kind == .arrival }
                let request = monitor.locationRequest()
                #expect(!request.keepsGNSSOn, "t \(time): \(request)")
                if arrived {
                    #expect(request == quiet, "t \(time): \(request)")
                } else if !stays && time >= 100 + 150 {
                    // 22.5 m a fix: the stay began again twice (the user moved on) by 150 s after
                    // the entry, each time at the fix 30 s after the first beyond 100 m; the
                    // platform has not reported the exit, so the engine watches, faster while
                    // two fixes stay.
                    let settling = (monitor.state.stay?.count ?? 0) >= 2
                    #expect(request == .networkFixes(intervalSeconds: settling ? 15 : rules.watchIntervalSeconds), "t \(time): \(request)")
                } else {
                    let settling = (monitor.state.stay?.count ?? 0) >= 2
                    #expect(request == .networkFixes(intervalSeconds: settling ? 15 : cue), "t \(time): \(request)")
                }
            }
            #expect(arrived == stays)
            // The platform's exit ends the watch; the exit of the visit's place is a cue to see
            // its departure.
            _ = monitor.handle(.region(RegionReport(regionID: "s0", kind: .exit, timeSeconds: time + 1)))
            #expect(monitor.locationRequest() == (stays ? .networkFixes(intervalSeconds: cue) : quiet))
        }
    }

    /// The platform's "still" is a cue: near a place, a burst of network fixes; far from every
    /// place, the first fix ends it (a user still at home costs one fix). "Moving" changes
    /// nothing, a cue from the platform's region stays, and with visits off motion is ignored.
    @Test func aStillUserIsACueNearPlacesOnly() throws {
        let places = (0..<5).map { i in
            Place(
                id: "s\(i)", coordinate: Self.origin.destination(bearingDegrees: 90, distanceMeters: Double(i) * 2_000), radiusMeters: 200)
        }
        let catalog = try PlaceCatalog(places: places)
        var settings = FenceMonitor.Settings()
        var rules = VisitSettings()
        rules.burstIntervalSeconds = 15
        rules.cueIntervalSeconds = 35
        rules.confirmSeconds = 0
        settings.visits = rules
        // 30 m and 400 m from the edge of s0; a fix's reach is 1.5 × 30 m.
        for near in [true, false] {
            var monitor = try FenceMonitor(catalog: catalog, configuration: RotationConfiguration(), settings: settings)
            let spot = Self.origin.destination(bearingDegrees: 0, distanceMeters: near ? 230 : 600)
            // Fixes 45 s apart: no stay yet long enough to be a visit.
            _ = monitor.handle(.fix(Fix(spot, accuracyMeters: 30, timestampSeconds: 70), source: .wakeFix))
            let quiet = monitor.locationRequest()
            #expect(!quiet.keepsGNSSOn, "exact: \(quiet)")
            let moving = monitor.handle(.motion(MotionReport(.moving, timeSeconds: 80)))
            #expect(moving.ignored == nil && moving.location == quiet && monitor.state.cue == nil)
            let still = monitor.handle(.motion(MotionReport(.still, source: .visit, timeSeconds: 100)))
            #expect(still.location == .networkFixes(intervalSeconds: 35))
            let next = monitor.handle(.fix(Fix(spot, accuracyMeters: 30, timestampSeconds: 115), source: .network))
            // Near a place the two fixes stay: the burst.
            #expect(next.location == (near ? .networkFixes(intervalSeconds: 15) : quiet), "near \(near): \(next.location)")
        }
        var entered = try FenceMonitor(catalog: catalog, configuration: RotationConfiguration(), settings: settings)
        _ = entered.handle(
            .fix(Fix(Self.origin.destination(bearingDegrees: 0, distanceMeters: 600), timestampSeconds: 0), source: .wakeFix))
        _ = entered.handle(.region(RegionReport(regionID: "s0", kind: .entry, timeSeconds: 100)))
        _ = entered.handle(.motion(MotionReport(.still, timeSeconds: 110)))
        #expect(entered.state.cue == VisitCue(seconds: 100, placeID: "s0"))
        var off = try FenceMonitor(catalog: catalog, configuration: RotationConfiguration())
        _ = off.handle(.fix(Fix(Self.origin.destination(bearingDegrees: 0, distanceMeters: 230), timestampSeconds: 0), source: .wakeFix))
        let before = off.locationRequest()
        let ignored = off.handle(.motion(MotionReport(.still, timeSeconds: 100)))
        #expect(ignored.ignored != nil && ignored.location == before && off.state.cue == nil)
    }

    /// A 15 m café in a catalog with approach regions of 100 m: the platform holds a 100 m
    /// region, its entry reports no place entry but cues a burst of network fixes, and the
    /// stay's fixes make the visit at the café. Without approach regions the same entry is the
    /// café's entry.
    @Test func anApproachRegionCuesAStopAndTheFixesDecideIt() throws {
        let cafe = Place(id: "cafe", coordinate: Self.origin, radiusMeters: 15)
        let far = Place(id: "far", coordinate: Self.origin.destination(bearingDegrees: 90, distanceMeters: 5_000), radiusMeters: 15)
        var settings = FenceMonitor.Settings()
        settings.visits = VisitSettings()
        for approach in [true, false] {
            let catalog = try PlaceCatalog(places: [cafe, far], approachRadiusMeters: approach ? 100 : nil)
            var monitor = try FenceMonitor(catalog: catalog, configuration: RotationConfiguration(), settings: settings)
            let start = monitor.handle(
                .fix(
                    Fix(Self.origin.destination(bearingDegrees: 0, distanceMeters: 600), accuracyMeters: 10, timestampSeconds: 0),
                    source: .wakeFix))
            let registered = start.operations.compactMap { operation -> Fence? in
                if case .start(let fence) = operation, fence.id == "cafe" { return fence }
                return nil
            }
            #expect(registered.map(\.radiusMeters) == [approach ? 100 : 15])
            let entry = monitor.handle(.region(RegionReport(regionID: "cafe", kind: .entry, timeSeconds: 100)))
            #expect(entry.placeEvents.map(\.kind) == (approach ? [] : [.entry]), "approach \(approach)")
            #expect(monitor.state.cue == VisitCue(seconds: 100, placeID: "cafe"))
            #expect(entry.location == .networkFixes(intervalSeconds: VisitSettings().cueIntervalSeconds))
            guard approach else { continue }
            var visits: [VisitEvent] = []
            var events: [PlaceEvent] = []
            for t in stride(from: 110.0, through: 400, by: 10) {
                let output = monitor.handle(.fix(Fix(Self.origin, accuracyMeters: 5, timestampSeconds: t), source: .network))
                visits += output.visits
                events += output.placeEvents
            }
            #expect(visits.first?.visit.placeID == "cafe")
            #expect(events.first?.placeID == "cafe" && events.first?.kind == .entry)
        }
    }

    /// A walker cued by a region 95 m before a 15 m café walks slowly to its door and stays:
    /// the first 100 s of fixes hold the walk, and their mean says "none of them". Cued by the
    /// café's approach region, the stay begins again there and the visit names the café; cued
    /// by the platform's "still" (no region), the visit at none of them stands.
    @Test func aStayCuedByARegionBeginsAgainRatherThanSayNone() throws {
        let cafe = Place(id: "cafe", coordinate: Self.origin, radiusMeters: 15)
        let catalog = try PlaceCatalog(places: [cafe], approachRadiusMeters: 100)
        var settings = FenceMonitor.Settings()
        var rules = VisitSettings()
        rules.confirmSeconds = 0
        rules.burstIntervalSeconds = 10
        settings.visits = rules
        for byRegion in [true, false] {
            var monitor = try FenceMonitor(catalog: catalog, configuration: RotationConfiguration(), settings: settings)
            _ = monitor.handle(
                .fix(
                    Fix(Self.origin.destination(bearingDegrees: 0, distanceMeters: 2_000), accuracyMeters: 30, timestampSeconds: 0),
                    source: .wakeFix))
            _ = monitor.handle(
                byRegion
                    ? .region(RegionReport(regionID: "cafe", kind: .entry, timeSeconds: 100))
                    : .motion(MotionReport(.still, timeSeconds: 100)))
            var arrivals: [StoreVisit] = []
            for t in stride(from: 100.0, through: 600, by: 10) {
                let meters = max(0, 95 - 0.5 * (t - 100))
                let output = monitor.handle(
                    .fix(
                        Fix(Self.origin.destination(bearingDegrees: 0, distanceMeters: meters), accuracyMeters: 30, timestampSeconds: t),
                        source: .network))
                arrivals += output.visits.filter { $0.kind == .arrival }.map(\.visit)
            }
            #expect(
                arrivals.first?.placeID == (byRegion ? "cafe" : nil),
                "by region \(byRegion): \(arrivals.map { ($0.placeID, $0.arrivalSeconds, $0.noneProbability) })")
        }
    }

    /// 1,500 places of 100 m within 1.5 km of the origin: more fences within reach than slots, so
    /// the regions ask for continuous GNSS.
    static func crowdedCatalog() throws -> PlaceCatalog {
        var rng = SplitMix64(seed: 77)
        let places = (0..<1_500).map { i in
            Place(
                id: "c\(i)",
                coordinate: origin.destination(bearingDegrees: rng.nextDouble(in: 0..<360), distanceMeters: rng.nextDouble(in: 0..<1_500)),
                radiusMeters: 100)
        }
        return try PlaceCatalog(places: places)
    }

    /// Where the regions ask for continuous GNSS (`passages`): driving at 20 m/s (a stay left faster than
    /// 8 m/s) the engine asks for network fixes instead; parked, the burst and then the visit's
    /// own request, GNSS for the visit's first `settleSeconds` and network fixes after; a fix
    /// beyond the stay brings GNSS back. With `drivingSpeedMetersPerSecond` nil, GNSS all along.
    @Test(arguments: [true, false])
    func drivingAndLongVisitsTurnGNSSOff(drivingRule: Bool) throws {
        var settings = FenceMonitor.Settings()
        var rules = VisitSettings(budget: .passages)
        if !drivingRule { rules.drivingSpeedMetersPerSecond = nil }
        settings.visits = rules
        var monitor = try FenceMonitor(catalog: Self.crowdedCatalog(), configuration: RotationConfiguration(), settings: settings)
        let road = Self.origin.destination(bearingDegrees: 270, distanceMeters: 1_400)
        var time = 0.0
        var drivingRequests: [LocationRequest] = []
        // Drive east for 120 s at 20 m/s, a fix a second while GNSS is asked for, else a network
        // fix every interval the engine asks for.
        while time < 120 {
            let fix = Fix(road.destination(bearingDegrees: 90, distanceMeters: 20 * time), accuracyMeters: 5, timestampSeconds: time)
            let request = monitor.handle(.fix(fix, source: .continuous)).location
            if time > 30 { drivingRequests.append(request) }
            if case .networkFixes(let interval) = request { time += interval } else { time += 1 }
        }
        // Parked at the origin, where the places are densest (whatever the pace of the last fixes).
        let parked = Self.origin
        if drivingRule {
            #expect(drivingRequests.allSatisfy { !$0.keepsGNSSOn }, "\(drivingRequests)")
            #expect(drivingRequests.contains(.networkFixes(intervalSeconds: rules.watchIntervalSeconds)))
        } else {
            #expect(drivingRequests.allSatisfy { $0.keepsGNSSOn }, "\(drivingRequests)")
        }
        // Parked: fixes within 10 m of the spot, at the pace the engine asks for.
        var arrival: Double?
        var requests: [(Double, LocationRequest)] = []
        let start = time
        while time < start + 900 {
            let spot = parked.destination(bearingDegrees: time * 37, distanceMeters: 10)
            let output = monitor.handle(.fix(Fix(spot, accuracyMeters: 20, timestampSeconds: time), source: .network))
            if arrival == nil, let event = output.visits.first(where: { $0.kind == .arrival }) { arrival = event.visit.arrivalSeconds }
            requests.append((time, output.location))
            if case .networkFixes(let interval) = output.location { time += interval } else { time += 1 }
        }
        let arrived = try #require(arrival)
        for (t, request) in requests where t > arrived + rules.stillSeconds {
            if t < arrived + rules.settleSeconds {
                #expect(request.keepsGNSSOn, "t \(t): \(request)")
            } else {
                #expect(request == .networkFixes(intervalSeconds: rules.visitIntervalSeconds), "t \(t): \(request)")
            }
        }
        // A fix 150 m from the stay: GNSS again at once.
        let away = parked.destination(bearingDegrees: 0, distanceMeters: 150)
        #expect(monitor.handle(.fix(Fix(away, accuracyMeters: 20, timestampSeconds: time), source: .network)).location.keepsGNSSOn)
    }

    /// A car that waited a minute at a red light is seen driving once it has left the light's
    /// stay (the speed since the stay's last fix, not since its first): where the regions ask
    /// for continuous GNSS, the engine asks for network fixes again within 25 s of driving on
    /// (300 m, where the stay ends), not after a second stay.
    @Test func aCarLeavingARedLightIsSeenDrivingAtOnce() throws {
        var settings = FenceMonitor.Settings()
        settings.visits = VisitSettings(budget: .passages)
        var monitor = try FenceMonitor(catalog: Self.crowdedCatalog(), configuration: RotationConfiguration(), settings: settings)
        let light = Self.origin.destination(bearingDegrees: 270, distanceMeters: 1_400)
        var time = 0.0
        var requests: [(Double, LocationRequest)] = []
        // At the light for 60 s, then east at 15 m/s; a fix a second while GNSS is asked for,
        // else one each interval of network fixes asked for.
        while time < 160 {
            let position = light.destination(bearingDegrees: 90, distanceMeters: 15 * max(0, time - 60))
            let request = monitor.handle(.fix(Fix(position, accuracyMeters: 5, timestampSeconds: time), source: .continuous)).location
            requests.append((time, request))
            if case .networkFixes(let interval) = request { time += interval } else { time += 1 }
        }
        #expect(requests.contains { $0.0 > 60 && $0.1.keepsGNSSOn }, "GNSS while the stay at the light lasts")
        let driving = requests.filter { $0.0 >= 85 }
        #expect(!driving.isEmpty && driving.allSatisfy { !$0.1.keepsGNSSOn }, "\(requests.filter { $0.0 > 60 })")
    }

    /// The budget presets set the parameters they name and nothing else; on the crowded
    /// catalog's drive, `lowPower` never asks for GNSS and `responsive` asks for it for at least
    /// three requests in four.
    @Test func budgetPresetsSetTheirParameters() throws {
        let defaults = VisitSettings()
        #expect(!defaults.passages && defaults.networkWakeFix && defaults.refreshFloorMeters > 0)
        var low = defaults
        low.confirmSeconds = 0
        low.stillSeconds = 140
        low.cueIntervalSeconds = 60
        low.watchIntervalSeconds = 120
        low.visitIntervalSeconds = 300
        var responsive = defaults
        responsive.cueIntervalSeconds = defaults.burstIntervalSeconds
        responsive.watchIntervalSeconds = 30
        responsive.watchesEverywhere = true
        responsive.stillSeconds = 60
        responsive.visitIntervalSeconds = 120
        var passages = defaults
        passages.passages = true
        passages.settledDepartureSeconds = passages.departureSeconds
        passages.networkWakeFix = false
        passages.watchIntervalSeconds = 60
        passages.visitIntervalSeconds = 120
        #expect(VisitSettings(budget: .balanced) == defaults)
        #expect(VisitSettings(budget: .lowPower) == low)
        #expect(VisitSettings(budget: .responsive) == responsive)
        #expect(VisitSettings(budget: .passages) == passages)
        // A walk through the crowded places, where the regions cannot protect every place: only
        // `passages` keeps GNSS on for the fences passed (stop-first presets ask for it only to
        // confirm a stay), and only stop-first presets widen the refresh region to their floor.
        for budget in VisitBudget.allCases {
            var settings = FenceMonitor.Settings()
            settings.visits = VisitSettings(budget: budget)
            var monitor = try FenceMonitor(catalog: Self.crowdedCatalog(), configuration: RotationConfiguration(), settings: settings)
            let road = Self.origin.destination(bearingDegrees: 270, distanceMeters: 700)
            var requests: [LocationRequest] = []
            var radii: [Double] = []
            // GNSS asked for with no stay being confirmed: for passages.
            var gnssForPassages = 0
            var time = 0.0
            while time < 1_000 {
                let fix = Fix(road.destination(bearingDegrees: 90, distanceMeters: 1.4 * time), accuracyMeters: 5, timestampSeconds: time)
                let output = monitor.handle(.fix(fix, source: budget == .passages ? .continuous : .network))
                if time > 0, output.location != .oneFix { requests.append(output.location) }
                let confirming = monitor.state.stay.map { $0.arrival == nil && $0.confirmSince != nil } ?? false
                if time > 0, output.location.keepsGNSSOn, output.location != .oneFix, !confirming { gnssForPassages += 1 }
                if output.guarantee != .exact, let refresh = monitor.rotator.state.refresh { radii.append(refresh.radiusMeters) }
                if case .networkFixes(let interval) = output.location { time += interval } else { time += 1 }
            }
            let withGNSS = requests.filter(\.keepsGNSSOn).count
            #expect(!requests.isEmpty && !radii.isEmpty, "\(budget)")
            if budget == .passages {
                #expect(withGNSS * 4 >= requests.count * 3, "\(budget): \(requests)")
                #expect(gnssForPassages * 2 >= requests.count, "\(budget): \(gnssForPassages) of \(requests.count)")
                #expect(radii.contains { $0 < defaults.refreshFloorMeters }, "\(budget): \(radii)")
            } else {
                #expect(gnssForPassages == 0, "\(budget): \(requests)")
                #expect(radii.allSatisfy { $0 >= defaults.refreshFloorMeters }, "\(budget): \(radii)")
            }
        }
    }

    /// A stay about to become a visit whose place is uncertain asks for GNSS for its last
    /// `confirmSeconds`: under the sky (precise fixes) until the arrival, indoors (Wi-Fi
    /// positions only) for `preciseWithinSeconds`; never far from every place, nor with the
    /// low-power budget.
    @Test(arguments: [(true, true, VisitBudget.balanced), (false, true, .balanced), (true, false, .balanced), (true, true, .lowPower)])
    func aStayAboutToBeAVisitIsConfirmedWithGNSS(outdoors: Bool, nearPlace: Bool, budget: VisitBudget) throws {
        // Two overlapping shops, the stay between them: Wi-Fi positions cannot tell which.
        let catalog = try PlaceCatalog(places: [
            Place(id: "west", coordinate: Self.origin.destination(bearingDegrees: 270, distanceMeters: 20), radiusMeters: 60),
            Place(id: "east", coordinate: Self.origin.destination(bearingDegrees: 90, distanceMeters: 20), radiusMeters: 60),
        ])
        var settings = FenceMonitor.Settings()
        settings.visits = VisitSettings(budget: budget)
        let rules = try #require(settings.visits)
        var monitor = try FenceMonitor(catalog: catalog, configuration: RotationConfiguration(), settings: settings)
        let spot = nearPlace ? Self.origin : Self.origin.destination(bearingDegrees: 30, distanceMeters: 900)
        var time = 0.0
        var gnss: [Double] = []
        var arrival: Double?
        while time < 400 {
            let asked = monitor.locationRequest()
            // GNSS gives precise fixes outdoors; indoors, and otherwise, Wi-Fi positions.
            let precise = asked.keepsGNSSOn && outdoors
            let fix = Fix(
                spot.destination(bearingDegrees: time * 47, distanceMeters: precise ? 3 : 25), accuracyMeters: precise ? 6 : 65,
                timestampSeconds: time)
            let output = monitor.handle(.fix(fix, source: asked.keepsGNSSOn ? .continuous : .network))
            if arrival == nil, output.visits.contains(where: { $0.kind == .arrival }) { arrival = time }
            if output.location.keepsGNSSOn { gnss.append(time) }
            time += output.location.keepsGNSSOn ? 1 : 20
        }
        let arrived = try #require(arrival)
        if !nearPlace || budget == .lowPower {
            #expect(gnss.isEmpty, "\(gnss)")
            return
        }
        let begun = try #require(gnss.first)
        #expect(begun >= rules.stillSeconds - rules.confirmSeconds && begun < rules.stillSeconds - rules.confirmSeconds + 20)
        if outdoors {
            // GNSS until the arrival, none after it.
            #expect(gnss.last == arrived - 1 || gnss.last == arrived, "\(gnss), arrival \(arrived)")
        } else {
            #expect((gnss.last ?? 0) - begun < rules.preciseWithinSeconds, "\(gnss)")
        }
        #expect(gnss.allSatisfy { $0 <= arrived })
    }

    /// Where the regions cannot protect every place, a cue asks for fixes no sooner than the
    /// watch (there a cue is mostly a walker crossing clustered fences); where they can, every
    /// `cueIntervalSeconds`.
    @Test func aCueWhereTheRegionsCannotProtectEveryPlaceKeepsTheWatchsPace() throws {
        for budget in [VisitBudget.lowPower, .balanced, .responsive] {
            var settings = FenceMonitor.Settings()
            settings.visits = VisitSettings(budget: budget)
            let rules = try #require(settings.visits)
            var monitor = try FenceMonitor(catalog: Self.crowdedCatalog(), configuration: RotationConfiguration(), settings: settings)
            let start = monitor.handle(.fix(Fix(Self.origin, accuracyMeters: 65, timestampSeconds: 0), source: .wakeFix))
            #expect(start.guarantee != .exact)
            let place = try #require(monitor.rotator.state.monitored.first?.id)
            _ = monitor.handle(.region(RegionReport(regionID: place, kind: .entry, timeSeconds: 10)))
            #expect(monitor.state.cue != nil)
            let pace = max(rules.cueIntervalSeconds, rules.watchIntervalSeconds)
            #expect(monitor.locationRequest() == .networkFixes(intervalSeconds: pace), "\(budget)")
        }
    }

    /// Where the regions protect every place (an `exact` selection, nothing entered), the engine
    /// asks for no fixes of its own, unless `watchesEverywhere` (`responsive`): then a network fix
    /// every `watchIntervalSeconds`, so that a stop is seen before the platform's entry.
    @Test func responsiveWatchesWhereTheRegionsProtectEveryPlace() throws {
        let places = (0..<5).map { i in
            Place(
                id: "s\(i)", coordinate: Self.origin.destination(bearingDegrees: 90, distanceMeters: Double(i) * 2_000), radiusMeters: 200)
        }
        let catalog = try PlaceCatalog(places: places)
        for budget in VisitBudget.allCases {
            var settings = FenceMonitor.Settings()
            settings.visits = VisitSettings(budget: budget)
            let rules = try #require(settings.visits)
            var monitor = try FenceMonitor(
                catalog: catalog, configuration: RotationConfiguration(limit: 4, headroom: 0), settings: settings)
            let far = Self.origin.destination(bearingDegrees: 0, distanceMeters: 900)
            let output = monitor.handle(.fix(Fix(far, accuracyMeters: 10, timestampSeconds: 0), source: .wakeFix))
            #expect(output.guarantee == .exact)
            let request = monitor.locationRequest()
            if budget == .responsive {
                #expect(request == .networkFixes(intervalSeconds: rules.watchIntervalSeconds), "\(budget)")
            } else {
                #expect(request == .significantChanges || request == LocationRequest.none, "\(budget): \(request)")
            }
        }
    }

    /// A visit at a place where the regions protect every place asks for no fix once it names
    /// the place; the platform's exit of that place is a cue whose network fixes see the
    /// departure within two of them, after which the engine asks for nothing again.
    @Test func thePlatformsExitOfTheVisitsPlaceBringsItsDeparture() throws {
        let catalog = try PlaceCatalog(places: [
            Place(id: "cafe", coordinate: Self.origin, radiusMeters: 80),
            Place(id: "far", coordinate: Self.origin.destination(bearingDegrees: 0, distanceMeters: 5_000), radiusMeters: 80),
        ])
        var settings = FenceMonitor.Settings()
        settings.visits = VisitSettings()
        let rules = try #require(settings.visits)
        var monitor = try FenceMonitor(catalog: catalog, configuration: RotationConfiguration(), settings: settings)
        _ = monitor.handle(.fix(Fix(Self.origin, accuracyMeters: 65, timestampSeconds: 0), source: .wakeFix))
        _ = monitor.handle(.region(RegionReport(regionID: "cafe", kind: .entry, timeSeconds: 1)))
        var time = 1.0
        var arrived = false
        while time < 900, !(arrived && monitor.locationRequest() == .none) {
            // Network fixes as asked, or GNSS every second while a confirmation asks for it.
            let asked = monitor.locationRequest()
            let precise = asked.keepsGNSSOn
            if case .networkFixes(let interval) = asked { time += interval } else { time += 1 }
            let fix = Fix(
                Self.origin.destination(bearingDegrees: time * 47, distanceMeters: precise ? 3 : 20), accuracyMeters: precise ? 5 : 65,
                timestampSeconds: time)
            let output = monitor.handle(.fix(fix, source: precise ? .continuous : .network))
            if output.visits.contains(where: { $0.kind == .arrival && $0.visit.placeID == "cafe" }) { arrived = true }
        }
        #expect(arrived && monitor.locationRequest() == .none)
        let left = time + 1_200
        _ = monitor.handle(.region(RegionReport(regionID: "cafe", kind: .exit, timeSeconds: left)))
        time = left
        var departure: Double?
        while departure == nil, time < left + 600 {
            guard case .networkFixes(let interval) = monitor.locationRequest() else { break }
            time += interval
            let away = Fix(Self.origin.destination(bearingDegrees: 180, distanceMeters: 500), accuracyMeters: 65, timestampSeconds: time)
            if monitor.handle(.fix(away, source: .network)).visits.contains(where: { $0.kind == .departure }) { departure = time }
        }
        let departed = try #require(departure, "no departure after the platform's exit at \(left) s")
        #expect(departed - left <= 2 * rules.cueIntervalSeconds)
        #expect(monitor.locationRequest() == .none)
    }

    /// Network fixes 110 s apart reach the stay's length at the fix that begins its confirmation:
    /// the arrival waits for GNSS (outdoors until its precise fixes have said the user stands,
    /// indoors `preciseWithinSeconds`), rather than coming at that fix unconfirmed.
    @Test(arguments: [true, false])
    func sparseFixesStillGiveGNSSItsChance(outdoors: Bool) throws {
        let catalog = try PlaceCatalog(places: [
            Place(id: "west", coordinate: Self.origin.destination(bearingDegrees: 270, distanceMeters: 20), radiusMeters: 60),
            Place(id: "east", coordinate: Self.origin.destination(bearingDegrees: 90, distanceMeters: 20), radiusMeters: 60),
        ])
        var settings = FenceMonitor.Settings()
        settings.visits = VisitSettings()
        let rules = try #require(settings.visits)
        var monitor = try FenceMonitor(catalog: catalog, configuration: RotationConfiguration(), settings: settings)
        var time = 0.0
        var gnss: [Double] = []
        var arrival: Double?
        while time < 600, arrival == nil {
            let asked = monitor.locationRequest()
            // The wake fix comes from the network (`networkWakeFix`).
            let precise = asked.keepsGNSSOn && asked != .oneFix && outdoors
            let fix = Fix(
                Self.origin.destination(bearingDegrees: time * 47, distanceMeters: precise ? 3 : 25), accuracyMeters: precise ? 6 : 65,
                timestampSeconds: time)
            let output = monitor.handle(.fix(fix, source: asked.keepsGNSSOn ? .continuous : .network))
            if output.visits.contains(where: { $0.kind == .arrival }) { arrival = time }
            if output.location.keepsGNSSOn { gnss.append(time) }
            time += output.location.keepsGNSSOn ? 1 : 110
        }
        let arrived = try #require(arrival)
        let begun = try #require(gnss.first, "no GNSS before the arrival at \(arrived) s")
        #expect(begun >= rules.stillSeconds - rules.confirmSeconds && begun < arrived)
        if outdoors {
            #expect(arrived - begun >= rules.motionSeconds, "GNSS from \(begun) s, arrival at \(arrived) s")
        } else {
            #expect(arrived - begun >= rules.preciseWithinSeconds && arrived - begun <= rules.preciseWithinSeconds + 1)
        }
    }

    /// Precise fixes tell a walker who waited at a crossing inside a fence from a user standing
    /// there: the walker (40 s to the crossing at 1.3 m/s, a minute's wait, then on) makes no
    /// visit, unless the check is off; the user standing makes one once the stay is long enough.
    @Test(arguments: [true, false])
    func aWalkerWhoWaitedAtACrossingIsNoVisit(motionCheck: Bool) throws {
        let catalog = try PlaceCatalog(places: [Place(id: "cafe", coordinate: Self.origin, radiusMeters: 100)])
        var settings = FenceMonitor.Settings()
        settings.visits = VisitSettings()
        if !motionCheck { settings.visits?.motionSeconds = 0 }
        let rules = try #require(settings.visits)
        for walksOn in [true, false] {
            var monitor = try FenceMonitor(catalog: catalog, configuration: RotationConfiguration(), settings: settings)
            var arrivals: [Double] = []
            for t in stride(from: 0.0, through: 300, by: 1) {
                let walked = walksOn ? 1.3 * (min(t, 40) + max(0, t - 100)) : 0
                let position = Self.origin.destination(bearingDegrees: 90, distanceMeters: walked).destination(
                    bearingDegrees: t * 71, distanceMeters: 2)
                let output = monitor.handle(.fix(Fix(position, accuracyMeters: 5, timestampSeconds: t), source: .continuous))
                arrivals += output.visits.filter { $0.kind == .arrival }.map(\.timeSeconds)
            }
            if walksOn && motionCheck {
                #expect(arrivals.isEmpty, "\(arrivals)")
            } else {
                #expect(arrivals.count == 1, "\(arrivals)")
                #expect(arrivals.first == rules.stillSeconds)
            }
        }
    }

    /// The stay and the cue survive the state's JSON form; a state written without them reads.
    @Test func stateRoundTripsWithAStay() throws {
        var settings = FenceMonitor.Settings()
        settings.visits = VisitSettings()
        var monitor = try FenceMonitor(catalog: Self.catalog(seed: 3), configuration: RotationConfiguration(), settings: settings)
        for fix in Self.trip(seed: 3).prefix(20) { _ = monitor.handle(.fix(fix, source: .network)) }
        _ = monitor.handle(.region(RegionReport(regionID: "p0", kind: .entry, timeSeconds: 10_000)))
        #expect(monitor.state.stay != nil)
        let data = try JSONEncoder().encode(monitor.state)
        let decoded = try JSONDecoder().decode(MonitorState.self, from: data)
        #expect(decoded == monitor.state)
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        object["stay"] = nil
        object["cue"] = nil
        let old = try JSONDecoder().decode(MonitorState.self, from: JSONSerialization.data(withJSONObject: object))
        #expect(old.stay == nil && old.cue == nil && old.tracks == monitor.state.tracks)
        // A stay written before fixes were weighted: unweighted sums and `sum_variance`, read as
        // every fix weighted by 1 / the mean variance (here 400 m² each).
        let stay = try #require(monitor.state.stay)
        var unweighted = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(stay)) as? [String: Any])
        let vector = UnitVector(stay.anchor)
        unweighted["sum_weight"] = nil
        unweighted["sum_variance"] = 400.0 * Double(stay.count)
        unweighted["sum_x"] = vector.x * Double(stay.count)
        unweighted["sum_y"] = vector.y * Double(stay.count)
        unweighted["sum_z"] = vector.z * Double(stay.count)
        let read = try JSONDecoder().decode(Stay.self, from: JSONSerialization.data(withJSONObject: unweighted))
        #expect(abs(read.fixVariance - 400) < 1e-9 && read.mean.distance(to: stay.anchor) < 1e-6)
        #expect(read.count == stay.count && read.startSeconds == stay.startSeconds)
    }
}
