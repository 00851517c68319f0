import FencePlanner
import Foundation
import Geodesy
import RotateTestSupport
import Testing

/// Places with polygon footprints in a catalog: what is registered, what is planned, what is
/// encoded.
@Suite struct FootprintCatalogTests {
    let here = Coordinate(validLatitude: 60.17, longitude: 24.94)

    /// A rectangle `widthMeters` east-west by `heightMeters` north-south, its south-west corner
    /// `east` and `north` meters from `here`.
    func rectangle(east: Double, north: Double, widthMeters: Double, heightMeters: Double) throws -> SphericalMultiPolygon {
        let corner = here.destination(bearingDegrees: 90, distanceMeters: east).destination(bearingDegrees: 0, distanceMeters: north)
        let ring = [
            corner, corner.destination(bearingDegrees: 90, distanceMeters: widthMeters),
            corner.destination(bearingDegrees: 90, distanceMeters: widthMeters).destination(
                bearingDegrees: 0, distanceMeters: heightMeters),
            corner.destination(bearingDegrees: 0, distanceMeters: heightMeters),
        ]
        return SphericalMultiPolygon(try SphericalPolygon(shell: ring))
    }

    @Test func aFootprintIsRegisteredByItsEnclosingCircleWhateverCenterAndRadiusWereGiven() throws {
        let shape = try rectangle(east: 100, north: 0, widthMeters: 60, heightMeters: 80)
        var place = Place(id: "hall", footprint: shape)
        place.coordinate = here
        place.radiusMeters = 1
        let catalog = try PlaceCatalog(places: [place, Place(id: "kiosk", coordinate: here, radiusMeters: 20)])
        let stored = try #require(catalog[id: "hall"])
        // Half the rectangle's diagonal: 50 m.
        #expect(abs(stored.radiusMeters - 50) < 0.01)
        #expect(stored.coordinate.distance(to: Coordinate(shape.cap.center)) < 1e-6)
        #expect(catalog.fences[catalog.position(of: "hall")!].radiusMeters == stored.radiusMeters)
        #expect(catalog.registersByApproach(catalog.position(of: "hall")!))
        #expect(!catalog.registersByApproach(catalog.position(of: "kiosk")!))
    }

    @Test func aFootprintWiderThanTheLargestRegionIsRefused() throws {
        let shape = try rectangle(east: 0, north: 0, widthMeters: 3_000, heightMeters: 3_000)
        #expect(throws: CatalogError.self) { try PlaceCatalog(places: [Place(id: "park", footprint: shape)], maxRegionRadiusMeters: 2_000) }
        do {
            _ = try PlaceCatalog(places: [Place(id: "park", footprint: shape)], maxRegionRadiusMeters: 2_000)
        } catch {
            guard case .footprintTooLarge(let id, let position, let radius) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(id == "park" && position == 0 && abs(radius - 2_121.3) < 1)
        }
    }

    @Test func thePlanningCatalogRegistersFootprintsByTheirWidenedCircle() throws {
        let small = try rectangle(east: 100, north: 0, widthMeters: 30, heightMeters: 40)  // cap 25 m
        let large = try rectangle(east: -400, north: 0, widthMeters: 120, heightMeters: 160)  // cap 100 m
        let places = [Place(id: "small", footprint: small), Place(id: "large", footprint: large)]
        let plain = try PlaceCatalog(places: places)
        #expect(plain.planning.footprintIndex != nil, "no cushion, no approach: planned on the footprints themselves")
        let cushioned = try PlaceCatalog(places: places, approachRadiusMeters: 100, footprintCushionMeters: 40)
        let planning = cushioned.planning
        #expect(planning.footprintIndex == nil)
        #expect(planning.places.allSatisfy { $0.footprint == nil })
        // max(approach 100, cap + 40): 100 for the small one, 140 for the large one.
        #expect(abs(planning[id: "small"]!.radiusMeters - 100) < 1e-9)
        #expect(abs(planning[id: "large"]!.radiusMeters - 140) < 0.01)
        #expect(planning.places.map(\.id) == cushioned.places.map(\.id))
    }

    @Test func selectionRanksByTheFootprintNotItsCircle() throws {
        // A long thin hall 120 m north whose enclosing circle holds the fix, and a kiosk circle
        // 60 m away: by edge the kiosk comes first, then the hall at 120 m.
        let hall = Place(id: "hall", footprint: try rectangle(east: -500, north: 120, widthMeters: 1_000, heightMeters: 20))
        let kiosk = Place(id: "kiosk", coordinate: here.destination(bearingDegrees: 200, distanceMeters: 80), radiusMeters: 20)
        let far = Place(id: "far", coordinate: here.destination(bearingDegrees: 200, distanceMeters: 3_000), radiusMeters: 20)
        let catalog = try PlaceCatalog(places: [hall, kiosk, far])
        let circleEdge = here.distance(to: catalog[id: "hall"]!.coordinate) - catalog[id: "hall"]!.radiusMeters
        #expect(circleEdge < 0, "the fix is inside the hall's enclosing circle")
        var planner = try RotationPlanner(catalog: catalog, configuration: RotationConfiguration(limit: 3, headroom: 0, marginMeters: 10))
        let selection = planner.select(at: Fix(here), refreshID: "refresh-0")
        #expect(selection.monitored.map(\.fence.id) == ["kiosk", "hall"])
        // Within 0.1 m: the 1 km great-circle wall bows north of the parallel its corners stand on.
        #expect(abs(selection.monitored[1].edgeDistanceMeters - 120) < 0.1)
        #expect(abs((selection.refresh?.radiusMeters ?? 0) - (2_980 - 10)) < 0.5)
    }

    @Test func aPlaceWithAFootprintRoundTripsThroughCodableExactly() throws {
        var rng = SplitMix64(seed: TestSeed.value(salt: 42))
        for _ in 0..<20 {
            let shape = PlannerFixtures.footprint(around: here, radiusMeters: rng.nextDouble(in: 10..<500), using: &rng)
            let place = Place(id: "p", footprint: shape, name: "Hall", transitions: .entry)
            let data = try JSONEncoder().encode(place)
            let decoded = try JSONDecoder().decode(Place.self, from: data)
            #expect(decoded == place)
        }
        // A circle encodes no footprint and decodes as before.
        let circle = Place(id: "c", coordinate: here, radiusMeters: 50)
        let decoded = try JSONDecoder().decode(Place.self, from: try JSONEncoder().encode(circle))
        #expect(decoded == circle && decoded.footprint == nil)
    }

    @Test(arguments: [
        #"[[[[1,0,0],[0,1,0]]]]"#,  // a ring of two vertices
        #"[[[[1,0,0],[0.99,0.01,0],[0.99,0,0.01]]]]"#,  // not unit vectors
        #"[[[[1,0],[0,1,0],[0,0,1]]]]"#,  // two components
        #"[[]]"#,  // a part with no rings
    ])
    func aCorruptFootprintIsRefusedOnDecoding(footprint: String) throws {
        let json = #"{"id":"p","coordinate":{"lat":0,"lon":0},"radiusMeters":5,"transitions":"both","footprint":\#(footprint)}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Place.self, from: Data(json.utf8)) }
    }

    @Test func aFootprintCannotBeMovedOrResizedByAChange() throws {
        let shape = try rectangle(east: 100, north: 0, widthMeters: 60, heightMeters: 80)
        let catalog = try PlaceCatalog(places: [
            Place(id: "hall", footprint: shape), Place(id: "kiosk", coordinate: here, radiusMeters: 20),
        ])
        #expect(throws: CatalogChangeError.footprintReshaped("hall", index: 1)) {
            try catalog.applying([.setRadius(id: "kiosk", meters: 30), .move(id: "hall", to: here)])
        }
        #expect(throws: CatalogChangeError.footprintReshaped("hall", index: 0)) {
            try catalog.applying([.setRadius(id: "hall", meters: 30)])
        }
        let next = try catalog.applying([.setTransitions(id: "hall", .entry)])
        #expect(next[id: "hall"]?.footprint == shape)
    }
}
