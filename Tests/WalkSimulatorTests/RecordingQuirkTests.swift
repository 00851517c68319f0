import FencePlanner
import Foundation
import Geodesy
import Testing

@testable import WalkSimulator

/// Errand trips with real days' quirks (`ErrandModel.withRecordingQuirks()`), each checked
/// against the true path it claims.
@Suite struct RecordingQuirkTests {
    static let quirky = ErrandModel().withRecordingQuirks()

    static func trips(_ set: PlaceSetKind, model: ErrandModel = quirky, seeds: ClosedRange<UInt64> = 1...40) throws -> [(
        Trip, PlaceCatalog
    )] {
        try seeds.map { try ErrandTests.trip(set, seed: $0, model: model) }
    }

    /// The phone is silent only indoors at a stop, and there entirely: a stop's time indoors has
    /// no fix at all or its usual Wi-Fi fixes; some trips have each.
    @Test func thePhoneIsSilentOnlyIndoorsAtAStop() throws {
        var silent = 0
        var heard = 0
        for (trip, _) in try Self.trips(.uniform) {
            for sample in trip.walk.samples where sample.fix == nil {
                #expect(
                    trip.stops.contains { $0.indoorSeconds?.contains(sample.timeSeconds) ?? false },
                    "no fix at \(sample.timeSeconds) outside")
            }
            for stop in trip.stops {
                guard let indoors = stop.indoorSeconds else { continue }
                let within = trip.walk.samples.filter { indoors.contains($0.timeSeconds) }
                let fixes = within.filter { $0.fix != nil }.count
                #expect(fixes == 0 || fixes == within.count, "a stop indoors half silent")
                if fixes == 0, !within.isEmpty { silent += 1 } else { heard += 1 }
            }
        }
        #expect(silent > 0 && heard > silent)
    }

    /// A long stay lasts an hour or more, its traveller within the long stay's wander radius of
    /// the place's center from entering to leaving (the walk to and from a parked car aside).
    @Test func aLongStayWandersWithinItsRadius() throws {
        var long = 0
        for (trip, catalog) in try Self.trips(.clustered) {
            for stop in trip.stops where stop.dwellSeconds >= Self.quirky.longStaySeconds.lowerBound {
                long += 1
                let center = try #require(catalog[id: stop.placeID]).coordinate
                guard let inside = stop.indoorSeconds ?? (trip.mode == .walking ? stop.arrivalSeconds...stop.departureSeconds : nil) else {
                    continue
                }
                for sample in trip.walk.samples where inside.contains(sample.timeSeconds) {
                    #expect(sample.truePosition.distance(to: center) <= Self.quirky.longStayRadiusMeters.upperBound + 35)
                }
            }
        }
        #expect(long > 3)
    }

    /// A stop next door: consecutive stops at places whose centers are 100-200 m apart, more
    /// often than without the quirk.
    @Test func stopsNextDoorFollowEachOther() throws {
        func nextDoor(_ model: ErrandModel) throws -> Int {
            try Self.trips(.clustered, model: model).reduce(0) { count, entry in
                let (trip, catalog) = entry
                let counted = trip.stops.filter { $0.dwellSeconds >= StopOracle.minimumStopSeconds }
                return count
                    + zip(counted, counted.dropFirst()).filter { a, b in
                        guard let p = catalog[id: a.placeID], let q = catalog[id: b.placeID] else { return false }
                        return Self.quirky.nextDoorMeters.contains(p.coordinate.distance(to: q.coordinate))
                    }.count
            }
        }
        let with = try nextDoor(Self.quirky)
        let without = try nextDoor(ErrandModel())
        #expect(with >= without + 5, "\(with) next-door pairs with the quirk, \(without) without")
    }

    /// Lingering (the stops of no kind): too short to count (`lingerSeconds`), on foot, the
    /// traveller standing inside the place's fence throughout.
    @Test func lingeringIsAShortStandInsideAFence() throws {
        var lingers = 0
        for (trip, catalog) in try Self.trips(.uniform) {
            for stop in trip.stops where stop.kind == nil {
                lingers += 1
                #expect(trip.mode == .walking)
                #expect(Self.quirky.lingerSeconds.contains(stop.dwellSeconds) && stop.dwellSeconds < StopOracle.minimumStopSeconds)
                let place = try #require(catalog[id: stop.placeID])
                for sample in trip.walk.samples where (stop.arrivalSeconds...stop.departureSeconds).contains(sample.timeSeconds) {
                    #expect(sample.truePosition.distance(to: place.coordinate) <= place.radiusMeters)
                }
            }
        }
        #expect(lingers > 3)
    }

    /// A quirk whose chance is 0 draws nothing: with every chance 0 and every other figure of the
    /// quirks changed, the trips are the default model's.
    @Test func quirksAtZeroLeaveTheTripsAsTheyWere() throws {
        var model = ErrandModel()
        model.longStaySeconds = 10...20
        model.nextDoorMeters = 1...2
        model.lingerSeconds = 1...2
        #expect(
            try Self.trips(.clustered, model: model, seeds: 1...8).map(\.0)
                == Self.trips(.clustered, model: ErrandModel(), seeds: 1...8).map(\.0))
        #expect(try Self.trips(.clustered, seeds: 1...8).map(\.0) != Self.trips(.clustered, model: ErrandModel(), seeds: 1...8).map(\.0))
    }
}
