import FencePlanner
import Geodesy
import PlatformFacts
import Testing

@Suite struct PlaceCatalogTests {
    let here = Coordinate(validLatitude: 45.8, longitude: 15.97)

    /// With an approach radius, the planning catalog holds the same places in the same positions,
    /// each smaller than the radius registered by a circle of that radius around its center,
    /// the others by their own fence; a catalog change keeps the approach regions; without an
    /// approach radius (or no place smaller) the planning catalog is the catalog; a radius that is
    /// not finite, not positive or above the largest region is refused.
    @Test func placesSmallerThanTheApproachRadiusAreRegisteredByACircleAroundThem() throws {
        var rng = SplitMix64(seed: 5)
        let places = (0..<300).map { i in
            Place(
                id: "p\(i)",
                coordinate: here.destination(bearingDegrees: rng.nextDouble(in: 0..<360), distanceMeters: rng.nextDouble(in: 0..<3_000)),
                radiusMeters: rng.nextDouble(in: 5..<300))
        }
        let catalog = try PlaceCatalog(places: places, approachRadiusMeters: 100)
        let planning = catalog.planning
        #expect(planning.places.map(\.id) == catalog.places.map(\.id))
        #expect(planning.version == catalog.version)
        for i in catalog.places.indices {
            let place = catalog.places[i]
            #expect(planning.places[i].coordinate == place.coordinate)
            #expect(planning.radiiMeters[i] == max(100, place.radiusMeters), "\(place.id)")
            #expect(planning.fences[i].radiusMeters == planning.radiiMeters[i])
            #expect(catalog.registersByApproach(i) == (place.radiusMeters < 100))
        }
        let changed = try catalog.applying([.setRadius(id: catalog.places[0].id, meters: 20)])
        #expect(changed.approachRadiusMeters == 100 && changed.planning.radiiMeters[0] == 100 && changed.registersByApproach(0))
        let plain = try PlaceCatalog(places: places)
        #expect(plain.planning.radiiMeters == plain.radiiMeters && !plain.registersByApproach(0))
        let large = try PlaceCatalog(places: places, approachRadiusMeters: 1)
        #expect(large.planning.radiiMeters == large.radiiMeters && !(0..<300).contains(where: large.registersByApproach))
        for bad in [0.0, -1, .infinity, .nan, 500_000] {
            #expect(throws: CatalogError.self) { try PlaceCatalog(places: places, approachRadiusMeters: bad) }
        }
    }

    @Test func emptyCatalogIsAClearError() {
        #expect(throws: CatalogError.empty) { try PlaceCatalog(places: []) }
    }

    @Test func duplicateIDsAreRejectedWithBothPositions() {
        let places = [
            Place(id: "a", coordinate: here, radiusMeters: 50), Place(id: "b", coordinate: here, radiusMeters: 50),
            Place(id: "a", coordinate: here, radiusMeters: 70),
        ]
        #expect(throws: CatalogError.duplicateID("a", firstPosition: 0, position: 2)) { try PlaceCatalog(places: places) }
    }

    @Test(arguments: [0.0, -5, Double.nan, Double.infinity])
    func invalidRadiiAreRejected(radius: Double) {
        #expect(throws: CatalogError.self) { try PlaceCatalog(places: [Place(id: "x", coordinate: here, radiusMeters: radius)]) }
    }

    @Test func emptyAndReservedIDsAreRejected() {
        #expect(throws: CatalogError.emptyID(position: 0)) { try PlaceCatalog(places: [Place(id: "", coordinate: here, radiusMeters: 5)]) }
        #expect(throws: CatalogError.reservedID("refresh-3", position: 0, prefix: "refresh-")) {
            try PlaceCatalog(places: [Place(id: "refresh-3", coordinate: here, radiusMeters: 5)])
        }
    }

    @Test func radiiOutsideThePlatformRangeAreClampedAndReported() throws {
        let places = [
            Place(id: "tiny", coordinate: here, radiusMeters: 0.5), Place(id: "ok", coordinate: here, radiusMeters: 150),
            Place(id: "huge", coordinate: here, radiusMeters: 900_000),
        ]
        let catalog = try PlaceCatalog(places: places, minFenceRadiusMeters: 1, maxRegionRadiusMeters: 400_000)
        #expect(
            catalog.clamps == [
                RadiusClamp(id: "tiny", position: 0, requestedMeters: 0.5, clampedMeters: 1),
                RadiusClamp(id: "huge", position: 2, requestedMeters: 900_000, clampedMeters: 400_000),
            ])
        #expect(catalog[id: "tiny"]?.radiusMeters == 1)
        #expect(catalog[id: "huge"]?.radiusMeters == 400_000)
        #expect(catalog[id: "ok"]?.radiusMeters == 150)
    }

    @Test func placesAreStoredInIDOrderAndFoundByID() throws {
        let ids = ["m", "b", "z", "a"]
        let catalog = try PlaceCatalog(places: ids.map { Place(id: $0, coordinate: here, radiusMeters: 10) })
        #expect(catalog.places.map(\.id) == ["a", "b", "m", "z"])
        for id in ids { #expect(catalog.places[catalog.position(of: id)!].id == id) }
        #expect(catalog.position(of: "nope") == nil)
    }
}

@Suite struct RotationConfigurationTests {
    @Test func defaultsLeaveSeventeenPlaceSlots() throws {
        let config = try RotationConfiguration().validated()
        #expect(config.limit == 20 && config.headroom == 2)
        #expect(config.placeSlots == 17)
    }

    @Test(arguments: [
        (RotationConfiguration(limit: 3, headroom: 2), ConfigurationError.noPlaceSlots(limit: 3, headroom: 2)),
        (RotationConfiguration(limit: 0), ConfigurationError.invalidLimit(0)),
        (RotationConfiguration(headroom: -1), ConfigurationError.negative(field: "headroom", value: -1)),
        (RotationConfiguration(marginMeters: -1), ConfigurationError.negative(field: "marginMeters", value: -1)),
        (RotationConfiguration(marginMeters: .nan), ConfigurationError.notFinite(field: "marginMeters")),
        (RotationConfiguration(stickinessMeters: .infinity), ConfigurationError.notFinite(field: "stickinessMeters")),
        (
            RotationConfiguration(minRefreshRadiusMeters: 500, maxRegionRadiusMeters: 400),
            ConfigurationError.emptyRefreshRange(min: 500, max: 400)
        ),
        (RotationConfiguration(maxTrustedAccuracyMeters: -3), ConfigurationError.negative(field: "maxTrustedAccuracyMeters", value: -3)),
    ])
    func invalidConfigurationsAreRejected(config: RotationConfiguration, expected: ConfigurationError) {
        #expect(throws: expected) { try config.validated() }
    }

    @Test func invalidConfigurationsCannotMakeARotator() throws {
        let catalog = PlannerFixturesForTests.small
        #expect(throws: ConfigurationError.noPlaceSlots(limit: 2, headroom: 1)) {
            try FenceRotator(catalog: catalog, configuration: RotationConfiguration(limit: 2, headroom: 1))
        }
    }

    @Test func marginIsSpeedTimesLatencyPlusFixInterval() {
        #expect(RotationConfiguration.margin(maxSpeedMetersPerSecond: 1.4, latencySeconds: 20, fixIntervalSeconds: 1) == 1.4 * 21)
    }

    /// The presets take the platform's limit and the margin its region monitoring needs: for an
    /// iOS walker at 1.4 m/s with a fix every 5 s, the 200 m exit cushion, twice the 36.5 m
    /// position error, and 1.4 × (20 s stay + 10 s latency p90 + 10 s wake fix + 5 s).
    @Test func presetsTakeTheMarginTheirRegionMonitoringNeeds() {
        let walker = RotationConfiguration.preset(.iOS, maxSpeedMetersPerSecond: 1.4, fixIntervalSeconds: 5)
        #expect(walker.limit == 20 && walker.minRefreshRadiusMeters == 100)
        #expect(abs(walker.marginMeters - (200 + 2 * 36.5 + 1.4 * (20 + 10 + 10 + 5))) < 1e-9)
        let cautious = RotationConfiguration.preset(.iOS, maxSpeedMetersPerSecond: 25, fixIntervalSeconds: 1, latency: .cautious)
        #expect(abs(cautious.marginMeters - (200 + 2 * 36.5 + 25 * (20 + 300 + 10 + 1))) < 1e-9)
        let android = RotationConfiguration.preset(.android, maxSpeedMetersPerSecond: 1.4, fixIntervalSeconds: 5)
        #expect(android.limit == 100 && android.placeSlots == 97)
        #expect(
            android.marginMeters
                == PlatformProfile.android.refreshExitMarginMeters(maxSpeedMetersPerSecond: 1.4, fixIntervalSeconds: 5, latency: .typical))
        #expect(PlatformProfile.android.latencySeconds(.typical) == 180 && PlatformProfile.android.latencySeconds(.cautious) == 360)
    }
}

enum PlannerFixturesForTests {
    static let small: PlaceCatalog = {
        let here = Coordinate(validLatitude: 45.8, longitude: 15.97)
        return try! PlaceCatalog(
            places: (0..<5).map {
                Place(id: "s\($0)", coordinate: here.destination(bearingDegrees: 72 * Double($0), distanceMeters: 300), radiusMeters: 50)
            })
    }()
}
