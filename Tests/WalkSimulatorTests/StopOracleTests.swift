import FencePlanner
import Geodesy
import Testing

@testable import WalkSimulator

@Suite struct StopOracleTests {
    static func stop(_ id: String, _ arrival: Double, _ departure: Double, _ kind: StopKind? = nil) -> TrueStop {
        TrueStop(placeID: id, kind: kind, arrivalSeconds: arrival, departureSeconds: departure)
    }

    static func visit(_ id: String, _ time: Double, candidates: [String]? = nil) -> ReportedVisit {
        ReportedVisit(placeID: id, candidates: candidates, timeSeconds: time)
    }

    /// The detection window runs from 30 s before the arrival to 120 s after the departure, both
    /// ends included: a visit just inside detects, one just outside is a false visit.
    @Test func theWindowRunsFrom30SecondsBeforeTo2MinutesAfter() {
        let stops = [Self.stop("a", 1_000, 1_400)]
        for (time, detected) in [(969.9, false), (970.0, true), (1_200.0, true), (1_520.0, true), (1_520.1, false)] {
            let score = StopOracle.score(stops: stops, decoys: [], passages: [], visits: [Self.visit("a", time)])
            #expect(score.detected == (detected ? 1 : 0), "visit at \(time)")
            #expect(score.falseVisits == (detected ? 0 : 1), "visit at \(time)")
            #expect(score.latenciesSeconds == (detected ? [time - 1_000] : []))
        }
    }

    /// Stops shorter than 2 minutes are not counted (a visit there is false), stops of 2 to 5
    /// minutes count at 2 minutes only, longer ones at both; the recalls say so.
    @Test func stopsAreCountedByLength() {
        let stops = [Self.stop("short", 0, 119), Self.stop("mid", 500, 700), Self.stop("long", 1_000, 1_300)]
        let visits = [Self.visit("short", 10), Self.visit("mid", 510)]
        let score = StopOracle.score(stops: stops, decoys: [], passages: [], visits: visits)
        #expect(score.stops == 2)
        #expect(score.longStops == 1)
        #expect(score.detected == 1)
        #expect(score.longDetected == 0)
        #expect(score.falseVisits == 1)
        #expect(score.recall2 == 0.5)
        #expect(score.recall5 == 0)
        #expect(StopOracle.score(stops: [], decoys: [], passages: [], visits: []).recall2 == nil)
    }

    /// A visit that names no place claims nothing: during a stop it is neither misattributed
    /// nor a duplicate, away from stops not false, and it detects no stop; its candidates count
    /// for the candidate recall.
    @Test func aVisitNamingNoPlaceCountsByItsCandidatesOnly() {
        let stops = [Self.stop("a", 0, 600), Self.stop("b", 1_000, 1_600)]
        let visits = [
            ReportedVisit(placeID: nil, candidates: ["x", "a"], timeSeconds: 200),
            ReportedVisit(placeID: nil, candidates: ["y"], timeSeconds: 1_200), ReportedVisit(placeID: nil, timeSeconds: 5_000),
        ]
        let score = StopOracle.score(stops: stops, decoys: [], passages: [], visits: visits)
        #expect(score.detected == 0)
        #expect(score.longCandidateDetected == 1)
        #expect(score.misattributedVisits == 0 && score.duplicateVisits == 0 && score.falseVisits == 0)
    }

    /// During a stop, a visit naming another place is misattributed; a second visit to the
    /// stop's place is a duplicate; a visit naming another place first with the right one among
    /// its candidates counts for the candidate recall only.
    @Test func wrongPlacesAndRepeatsAreToldApart() {
        let stops = [Self.stop("a", 0, 600, .coffee), Self.stop("b", 1_000, 1_600, .grocery)]
        let visits = [
            Self.visit("a", 5), Self.visit("a", 300), Self.visit("x", 200),
            Self.visit("c", 1_100, candidates: ["c", "b"]),
        ]
        let score = StopOracle.score(stops: stops, decoys: [], passages: [], visits: visits)
        #expect(score.detected == 1)
        #expect(score.longCandidateDetected == 2)
        #expect(score.candidateRecall5 == 1)
        #expect(score.recall5 == 0.5)
        #expect(score.duplicateVisits == 1)
        #expect(score.misattributedVisits == 2)
        #expect(score.falseVisits == 0)
        #expect(score.byKind[.coffee]?.longDetected == 1)
        #expect(score.byKind[.grocery]?.longDetected == 0)
    }

    /// Each visit detects one stop: two stops at one place, one visit between them, detect one.
    /// A stay at "a" labelled as two stops, split by a 20-minute recording gap: the visit
    /// reported in the first is still open when the second begins (no departure, no fix away in
    /// between) and detects both, latency 0 for the second. Not when a fix between them puts the
    /// user 300 m away, when the app reported the departure before the second arrival or a visit
    /// elsewhere since, nor for a visit at another place.
    @Test func aVisitStillOpenAtTheArrivalDetectsTheStop() throws {
        let center = Coordinate(validLatitude: 46.05, longitude: 14.51)
        let catalog = try PlaceCatalog(places: [
            Place(id: "a", coordinate: center, radiusMeters: 50),
            Place(id: "b", coordinate: center.destination(bearingDegrees: 0, distanceMeters: 140), radiusMeters: 50),
        ])
        let stops = [Self.stop("a", 1_000, 1_400), Self.stop("a", 2_600, 3_000)]
        func walk(awayAt time: Double?) -> Walk {
            let times = Array(stride(from: 900.0, through: 1_400, by: 10)) + Array(stride(from: 2_600.0, through: 3_100, by: 10))
            var samples = times.map { Walk.Sample(timeSeconds: $0, truePosition: center, fix: Fix(center, accuracyMeters: 60)) }
            if let time {
                let far = center.destination(bearingDegrees: 180, distanceMeters: 300)
                samples.append(Walk.Sample(timeSeconds: time, truePosition: far, fix: Fix(far, accuracyMeters: 20)))
                samples.sort { $0.timeSeconds < $1.timeSeconds }
            }
            return Walk(samples: samples, kind: .walk, gapSeconds: 120)
        }
        func score(_ visits: [ReportedVisit], awayAt time: Double? = nil) -> StopScore {
            let walk = walk(awayAt: time)
            return StopOracle.score(
                stops: stops, decoys: [], passages: [], visits: visits,
                away: { StopOracle.away(from: $0, during: $1, walk: walk, catalog: catalog) })
        }
        let open = score([Self.visit("a", 1_100)])
        #expect(open.detected == 2 && open.latenciesSeconds == [100, 0] && open.falseVisits == 0 && open.duplicateVisits == 0)
        #expect(score([Self.visit("a", 1_100)], awayAt: 2_000).detected == 1)
        #expect(score([ReportedVisit(placeID: "a", timeSeconds: 1_100, departureSeconds: 1_450)]).detected == 1)
        #expect(score([ReportedVisit(placeID: "a", timeSeconds: 1_100, departureSeconds: 2_700)]).detected == 2)
        #expect(score([Self.visit("a", 1_100), Self.visit("b", 2_000)]).detected == 1)
        #expect(score([Self.visit("b", 1_100)]).detected == 0)
        // Inside the fence's 100 m reach (a Wi-Fi fix 60 m off) is not away.
        #expect(!StopOracle.away(from: "a", during: 0...5_000, walk: walk(awayAt: nil), catalog: catalog))
        #expect(StopOracle.away(from: "a", during: 1_900...2_100, walk: walk(awayAt: 2_000), catalog: catalog))
    }

    /// A visit that detected a stop is left open when its departure came more than 10 minutes
    /// after the user left, or never while the trip went on that long; not counted without the
    /// trip's end (an app that reports no departures). A visit carried through two stops is
    /// judged by the last.
    @Test func aVisitLeftOpenAfterTheUserLeftIsCounted() {
        let stops = [Self.stop("a", 1_000, 1_400)]
        func open(_ departure: Double?, end: Double?) -> Int? {
            StopOracle.score(
                stops: stops, decoys: [], passages: [],
                visits: [ReportedVisit(placeID: "a", timeSeconds: 1_100, departureSeconds: departure)], endSeconds: end
            ).visitsLeftOpen
        }
        #expect(open(1_450, end: 5_000) == 0)
        #expect(open(2_000, end: 5_000) == 0)
        #expect(open(2_001, end: 5_000) == 1)
        #expect(open(nil, end: 5_000) == 1)
        #expect(open(nil, end: 1_900) == 0)
        #expect(open(nil, end: nil) == nil)
        let split = [Self.stop("a", 1_000, 1_400), Self.stop("a", 2_600, 3_000)]
        let carried = StopOracle.score(
            stops: split, decoys: [], passages: [], visits: [ReportedVisit(placeID: "a", timeSeconds: 1_100, departureSeconds: 3_100)],
            away: { _, _ in false }, endSeconds: 5_000)
        #expect(carried.detected == 2 && carried.visitsLeftOpen == 0)
    }

    @Test func aVisitDetectsOneStop() {
        let stops = [Self.stop("a", 0, 200), Self.stop("a", 250, 500)]
        let one = StopOracle.score(stops: stops, decoys: [], passages: [], visits: [Self.visit("a", 240)])
        #expect(one.detected == 1)
        let two = StopOracle.score(stops: stops, decoys: [], passages: [], visits: [Self.visit("a", 240), Self.visit("a", 260)])
        #expect(two.detected == 2)
    }

    /// Pass-bys: passages through a fence that overlap no stop at that place, plus the decoys.
    @Test func passBysArePassagesAwayFromStopsAndDecoys() throws {
        let stops = [Self.stop("a", 100, 400)]
        let passages = [
            Visit(placeID: "a", entrySeconds: 90, exitSeconds: 410),  // the stop itself
            Visit(placeID: "a", entrySeconds: 900, exitSeconds: 920),  // later, walking past
            Visit(placeID: "b", entrySeconds: 150, exitSeconds: 200),  // another fence during the stop
        ]
        let decoy = DecoyStop(
            kind: .busStop, nearPlaceID: "c", coordinate: try Coordinate(latitude: 1, longitude: 1), arrivalSeconds: 1_000,
            departureSeconds: 1_300)
        let score = StopOracle.score(stops: stops, decoys: [decoy], passages: passages, visits: [])
        #expect(score.passBys == 3)
        #expect(score.falseVisitsPer100PassBys == 0)
    }

    /// Against a brute force over random stops and visits: each stop's detection by the earliest
    /// free visit for its place in its window (stops in arrival order), and every visit left in
    /// exactly one of misattributed, duplicate or false.
    @Test func randomCasesMatchABruteForce() {
        var rng = SplitMix64(seed: 21)
        for _ in 0..<300 {
            var stops: [TrueStop] = []
            var t = 0.0
            for _ in 0..<rng.nextInt(below: 5) {
                t += rng.nextDouble(in: 0..<600)
                let dwell = rng.nextDouble(in: 30..<900)
                stops.append(Self.stop("p\(rng.nextInt(below: 3))", t, t + dwell))
                t += dwell
            }
            let visits = (0..<rng.nextInt(below: 8)).map { _ in Self.visit("p\(rng.nextInt(below: 4))", rng.nextDouble(in: 0..<(t + 300))) }
            let resolvable: Set<String> = ["p0", "p2"]
            let score = StopOracle.score(
                stops: stops, decoys: [], passages: [], visits: visits, isResolvable: { resolvable.contains($0.placeID) })
            // Brute force.
            let counted = stops.filter { $0.dwellSeconds >= 120 }
            var free = visits.sorted { $0.timeSeconds < $1.timeSeconds }
            var detected = 0
            var resolvableDetected = 0
            for stop in counted {
                if let i = free.firstIndex(where: {
                    $0.placeID == stop.placeID && $0.timeSeconds >= stop.arrivalSeconds - 30
                        && $0.timeSeconds <= stop.departureSeconds + 120
                }) {
                    detected += 1
                    if resolvable.contains(stop.placeID) { resolvableDetected += 1 }
                    free.remove(at: i)
                }
            }
            #expect(score.detected == detected)
            #expect(score.stops == counted.count)
            #expect(score.misattributedVisits + score.duplicateVisits + score.falseVisits == free.count)
            let misattributed = free.filter { v in
                counted.contains { $0.placeID != v.placeID && $0.arrivalSeconds <= v.timeSeconds && v.timeSeconds <= $0.departureSeconds }
            }
            #expect(score.misattributedVisits == misattributed.count)
            // The same counts over the stops at resolvable places alone.
            let atResolvable = counted.filter { resolvable.contains($0.placeID) }
            #expect(score.resolvable.stops == atResolvable.count)
            #expect(score.resolvable.longStops == atResolvable.filter { $0.dwellSeconds >= 300 }.count)
            #expect(score.resolvable.detected == resolvableDetected)
            #expect(
                score.misattributedAtResolvable
                    == misattributed.filter { v in
                        atResolvable.contains {
                            $0.placeID != v.placeID && $0.arrivalSeconds <= v.timeSeconds && v.timeSeconds <= $0.departureSeconds
                        }
                    }.count)
        }
    }

    /// A stop is at a resolvable place when the fixes' median accuracy during it is at most the
    /// place's radius and no other fence comes within that accuracy of where the user stood:
    /// GNSS's 5 m at the center of a 30 m place is; Wi-Fi's 60 m is not; a neighbour whose edge
    /// is 4 m away is not (5 m of error), one 6 m away is; a stop without fixes is not.
    @Test func aStopIsResolvableWhereTheFixesTellThePlaceApart() throws {
        let here = try Coordinate(latitude: 46.05, longitude: 14.5)
        func walk(accuracy: Double?) -> Walk {
            Walk(
                samples: stride(from: 0.0, through: 600, by: 10).map { t in
                    Walk.Sample(
                        timeSeconds: t, truePosition: here,
                        fix: accuracy.map { Fix(here, accuracyMeters: $0, timestampSeconds: t) })
                }, kind: .errands)
        }
        func catalog(neighborEdgeMeters: Double?) throws -> PlaceCatalog {
            var places = [Place(id: "a", coordinate: here, radiusMeters: 30)]
            if let edge = neighborEdgeMeters {
                places.append(Place(id: "b", coordinate: here.destination(bearingDegrees: 90, distanceMeters: 20 + edge), radiusMeters: 20))
            }
            return try PlaceCatalog(places: places)
        }
        let stop = Self.stop("a", 100, 500)
        #expect(StopOracle.resolvable(stop, catalog: try catalog(neighborEdgeMeters: nil), walk: walk(accuracy: 5)))
        #expect(!StopOracle.resolvable(stop, catalog: try catalog(neighborEdgeMeters: nil), walk: walk(accuracy: 60)))
        #expect(!StopOracle.resolvable(stop, catalog: try catalog(neighborEdgeMeters: 4), walk: walk(accuracy: 5)))
        #expect(StopOracle.resolvable(stop, catalog: try catalog(neighborEdgeMeters: 6), walk: walk(accuracy: 5)))
        #expect(!StopOracle.resolvable(stop, catalog: try catalog(neighborEdgeMeters: nil), walk: walk(accuracy: nil)))
        #expect(!StopOracle.resolvable(Self.stop("z", 100, 500), catalog: try catalog(neighborEdgeMeters: nil), walk: walk(accuracy: 5)))
    }

    /// At footprints: a 40 × 40 m shop (the radius of a circle of its area, 22.6 m) is resolvable
    /// with 20 m of error and not with 25 m; a neighbour's wall 8 m away hides it with 10 m of
    /// error, although the neighbour's enclosing circle, not its wall, comes within 5 m.
    @Test func aStopAtAFootprintIsResolvableByItsAreaAndItsNeighboursWalls() throws {
        let here = try Coordinate(latitude: 46.05, longitude: 14.5)
        func square(_ east: Double, _ north: Double, _ width: Double, _ height: Double) throws -> SphericalMultiPolygon {
            func at(_ e: Double, _ n: Double) -> Coordinate {
                here.destination(bearingDegrees: 90, distanceMeters: e).destination(bearingDegrees: 0, distanceMeters: n)
            }
            return SphericalMultiPolygon(
                try SphericalPolygon(shell: [
                    at(east, north), at(east + width, north), at(east + width, north + height), at(east, north + height),
                ]))
        }
        func walk(accuracy: Double) -> Walk {
            Walk(
                samples: stride(from: 0.0, through: 600, by: 10).map { t in
                    Walk.Sample(timeSeconds: t, truePosition: here, fix: Fix(here, accuracyMeters: accuracy, timestampSeconds: t))
                }, kind: .errands)
        }
        let shop = Place(id: "a", footprint: try square(-20, -20, 40, 40))
        let alone = try PlaceCatalog(places: [shop])
        let stop = Self.stop("a", 100, 500)
        #expect(StopOracle.resolvable(stop, catalog: alone, walk: walk(accuracy: 20)))
        #expect(!StopOracle.resolvable(stop, catalog: alone, walk: walk(accuracy: 25)))
        // A long thin neighbour 8 m from the stop: its enclosing circle reaches within 5 m.
        let neighbour = Place(id: "b", footprint: try square(8, -100, 4, 200))
        let together = try PlaceCatalog(places: [shop, neighbour])
        let circle = together[id: "b"]!
        #expect(here.distance(to: circle.coordinate) - circle.radiusMeters < 5)
        #expect(StopOracle.resolvable(stop, catalog: together, walk: walk(accuracy: 7)))
        #expect(!StopOracle.resolvable(stop, catalog: together, walk: walk(accuracy: 10)))
    }
}
