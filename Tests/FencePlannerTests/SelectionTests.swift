import FencePlanner
import Foundation
import Geodesy
import RotateTestSupport
import Testing

/// Hand-built situations with known answers.
@Suite struct SelectionTests {
    let here = Coordinate(validLatitude: 48.85, longitude: 2.35)

    func catalog(_ places: [Place]) throws -> PlaceCatalog { try PlaceCatalog(places: places) }

    func place(_ id: String, bearing: Double, meters: Double, radius: Double) -> Place {
        Place(id: id, coordinate: here.destination(bearingDegrees: bearing, distanceMeters: meters), radiusMeters: radius)
    }

    @Test func aBigFenceFartherByCenterWinsByEdge() throws {
        // 3 slots: the 2 km fence whose center is 2.5 km away (edge 500 m) beats 100 m fences at 700 m.
        var places = (0..<5).map { place("small\($0)", bearing: 72 * Double($0), meters: 700, radius: 100) }
        places.append(place("big", bearing: 10, meters: 2_500, radius: 2_000))
        var planner = try RotationPlanner(catalog: catalog(places), configuration: RotationConfiguration(limit: 4, headroom: 0))
        let selection = planner.select(at: Fix(here), refreshID: "refresh-0")
        #expect(selection.monitored.first?.fence.id == "big")
        #expect(abs((selection.monitored.first?.edgeDistanceMeters ?? 0) - 500) < 1e-6)
        #expect(selection.monitored.count == 3)
    }

    @Test func insideAHugeFenceItComesFirstWithANegativeEdgeAndIsFlagged() throws {
        var places = (0..<30).map { place("shop\($0)", bearing: 12 * Double($0), meters: 800 + 10 * Double($0), radius: 50) }
        places.append(place("city", bearing: 200, meters: 3_000, radius: 20_000))
        var rotator = try FenceRotator(catalog: catalog(places), configuration: RotationConfiguration())
        let updateResult = rotator.update(with: Fix(here))
        let update = try #require(updateResult)
        #expect(update.selection.monitored.first?.fence.id == "city")
        #expect(abs((update.selection.monitored.first?.edgeDistanceMeters ?? 0) - -17_000) < 1e-6)
        #expect(update.diff.insideAtStart == ["city"])
        #expect(update.selection.guarantee == .exact)
    }

    @Test func refreshRadiusReachesJustShortOfTheNextFenceMinusTheMargin() throws {
        let places = (0..<25).map { place(String(format: "p%02d", $0), bearing: 0, meters: 1_000 + 100 * Double($0), radius: 50) }
        var planner = try RotationPlanner(catalog: catalog(places), configuration: RotationConfiguration(marginMeters: 120))
        let selection = planner.select(at: Fix(here), refreshID: "refresh-0")
        // 17 slots: the 18th place (center 2,700 m, edge 2,650 m) is the nearest unmonitored.
        #expect(selection.monitored.map(\.fence.id) == (0..<17).map { String(format: "p%02d", $0) })
        #expect(abs((selection.nextUnmonitoredEdgeMeters ?? 0) - 2_650) < 1e-6)
        #expect(abs((selection.refresh?.radiusMeters ?? 0) - 2_530) < 1e-6)
        #expect(selection.guarantee == .exact)
    }

    @Test func aShortSafeRadiusIsNeverFlooredButDegrades() throws {
        // Next unmonitored edge 160 m, margin 100 m: safe radius 60 m < 100 m minimum.
        let places = (0..<20).map { place("p\($0)", bearing: 18 * Double($0), meters: 200 + Double($0), radius: 40 + Double($0) / 10) }
        var planner = try RotationPlanner(catalog: catalog(places), configuration: RotationConfiguration(marginMeters: 100))
        let selection = planner.select(at: Fix(here), refreshID: "refresh-0")
        let next = try #require(selection.nextUnmonitoredEdgeMeters)
        #expect(selection.refresh?.radiusMeters == next - 100)
        #expect((selection.refresh?.radiusMeters ?? 999) < 100)
        #expect(selection.guarantee == .degraded(fallbackDistanceMeters: next - 100))
    }

    @Test func moreFencesWithinTheMarginThanSlotsIsSaturated() throws {
        let places = (0..<40).map { place("mall\($0)", bearing: 9 * Double($0), meters: 30, radius: 20) }
        var planner = try RotationPlanner(catalog: catalog(places), configuration: RotationConfiguration(marginMeters: 50))
        let selection = planner.select(at: Fix(here), refreshID: "refresh-0")
        #expect(selection.guarantee == .saturated(overlapping: 40))
        #expect(selection.monitored.count == 17)
        #expect(selection.refresh?.radiusMeters == 0)
    }

    @Test func allPlacesAtOnePoint() throws {
        let spot = here.destination(bearingDegrees: 45, distanceMeters: 5_000)
        let places = (0..<30).map { Place(id: String(format: "same%02d", $0), coordinate: spot, radiusMeters: 100) }
        var planner = try RotationPlanner(catalog: catalog(places), configuration: RotationConfiguration())
        // From afar: ties by id, and the next unmonitored is at the same edge, so the radius is that edge.
        let far = planner.select(at: Fix(here), refreshID: "refresh-0")
        #expect(far.monitored.map(\.fence.id) == (0..<17).map { String(format: "same%02d", $0) })
        #expect(abs((far.refresh?.radiusMeters ?? 0) - 4_900) < 1e-6)
        #expect(far.guarantee == .exact)
        // At the spot: 30 fences contain the user, 17 slots.
        let at = planner.select(at: Fix(spot), refreshID: "refresh-1")
        #expect(at.guarantee == .saturated(overlapping: 30))
    }

    @Test func aCatalogThatFitsIsMonitoredWholeWithoutARefreshRegion() throws {
        var rotator = try FenceRotator(catalog: PlannerFixturesForTests.small, configuration: RotationConfiguration())
        let firstResult = rotator.update(with: Fix(Coordinate(validLatitude: 45.8, longitude: 15.97)))
        let first = try #require(firstResult)
        #expect(first.selection.monitored.count == 5)
        #expect(first.selection.refresh == nil)
        #expect(first.selection.guarantee == .exact)
        #expect(first.diff.startRefresh == nil && first.diff.stopRefresh == nil)
        #expect(rotator.update(with: Fix(Coordinate(validLatitude: -33, longitude: 151))) == nil)
    }

    @Test func anUntrustedFixKeepsFencesTheUserMayBeInside() throws {
        // The user is 5 m outside fence "edge" (monitored); a fix 400 m off with 500 m accuracy
        // ranks "edge" below 17 other places, but it must stay monitored.
        var places = [place("edge", bearing: 0, meters: 105, radius: 100)]
        places += (0..<30).map { place("far\($0)", bearing: 180 + Double($0), meters: 500 + 20 * Double($0), radius: 50) }
        let config = RotationConfiguration(maxTrustedAccuracyMeters: 100)
        var rotator = try FenceRotator(catalog: catalog(places), configuration: config)
        #expect(rotator.update(with: Fix(here, accuracyMeters: 5)) != nil)
        #expect(rotator.state.monitored.contains { $0.id == "edge" })
        let wild = here.destination(bearingDegrees: 180, distanceMeters: 3_000)
        let updateResult = rotator.update(with: Fix(wild, accuracyMeters: 3_500))
        let update = try #require(updateResult)
        #expect(!update.selection.trustedFix)
        #expect(update.selection.monitored.contains { $0.fence.id == "edge" })
        #expect(!update.diff.stop.contains { $0.id == "edge" })
        // The same fix, trusted, would drop it.
        var trusting = try FenceRotator(catalog: catalog(places), configuration: RotationConfiguration(maxTrustedAccuracyMeters: 10_000))
        _ = trusting.update(with: Fix(here, accuracyMeters: 5))
        let droppedResult = trusting.update(with: Fix(wild, accuracyMeters: 3_500))
        let dropped = try #require(droppedResult)
        #expect(dropped.diff.stop.contains { $0.id == "edge" })
    }

    @Test func anUntrustedFixAddsItsAccuracyToTheReach() throws {
        let places = (0..<25).map { place("p\($0)", bearing: 0, meters: 2_000 + 100 * Double($0), radius: 50) }
        var planner = try RotationPlanner(
            catalog: catalog(places), configuration: RotationConfiguration(marginMeters: 30, maxTrustedAccuracyMeters: 50))
        let trusted = planner.select(at: Fix(here, accuracyMeters: 40), refreshID: "refresh-0")
        let untrusted = planner.select(at: Fix(here, accuracyMeters: 400), refreshID: "refresh-1")
        #expect(abs((trusted.refresh?.radiusMeters ?? 0) - (untrusted.refresh?.radiusMeters ?? 0) - 400) < 1e-6)
    }

    @Test func invalidAccuracyIsIgnored() throws {
        var rotator = try FenceRotator(catalog: PlannerFixturesForTests.small, configuration: RotationConfiguration())
        #expect(rotator.update(with: Fix(here, accuracyMeters: -1)) == nil)
        #expect(rotator.update(with: Fix(here, accuracyMeters: .nan)) == nil)
        #expect(rotator.state.reselections == 0)
    }
}

@Suite struct GuaranteeSurveyTests {
    @Test func tallyMatchesSelectingAtEachPosition() throws {
        let catalog = PlannerFixtures.catalog(count: 600, sideMeters: 3_000, radii: 50...150, seed: 41)
        var rng = SplitMix64(seed: 42)
        let center = Coordinate(validLatitude: 45.8, longitude: 15.97)
        let positions = (0..<300).map { _ in SyntheticCoordinates.uniformInSquare(around: center, sideMeters: 3_000, using: &rng) }
        let config = RotationConfiguration(marginMeters: 40)
        let survey = try GuaranteeSurvey(catalog: catalog, configuration: config, positions: positions)
        var planner = try RotationPlanner(catalog: catalog, configuration: config)
        var counts = [0, 0, 0]
        for p in positions {
            switch planner.select(at: Fix(p), refreshID: "refresh-0").guarantee {
            case .exact: counts[0] += 1
            case .degraded: counts[1] += 1
            case .saturated: counts[2] += 1
            }
        }
        #expect([survey.exact, survey.degraded, survey.saturated] == counts)
        #expect(survey.positions == 300 && survey.exact + survey.degraded + survey.saturated == 300)
        #expect(survey.refreshRadii == survey.refreshRadii.sorted())
        #expect(counts[1] > 0 && counts[0] > 0, "the fixture should mix exact and degraded selections")
    }
}

@Suite struct RefreshFloorTests {
    /// With a refresh floor, a selection that is not exact registers its refresh region at least
    /// the floor wide (never past the largest region), and an exact one keeps the planner's safe
    /// radius; the places, the guarantee and its fallback distance are the planner's either way.
    /// 600 places of 50-150 m in a 3 km square, and 300 positions spread over it.
    static func fixture(seed: UInt64) -> (catalog: PlaceCatalog, positions: [Coordinate]) {
        let catalog = PlannerFixtures.catalog(count: 600, sideMeters: 3_000, radii: 50...150, seed: 41)
        var rng = SplitMix64(seed: seed)
        let center = Coordinate(validLatitude: 45.8, longitude: 15.97)
        return (catalog, (0..<300).map { _ in SyntheticCoordinates.uniformInSquare(around: center, sideMeters: 3_000, using: &rng) })
    }

    @Test func theFloorWidensOnlySelectionsThatAreNotExact() throws {
        let (catalog, positions) = Self.fixture(seed: 43)
        let config = RotationConfiguration(marginMeters: 40, maxRegionRadiusMeters: 180)
        var planner = try RotationPlanner(catalog: catalog, configuration: config)
        var widened = 0, kept = 0
        for position in positions {
            var rotator = try FenceRotator(catalog: catalog, configuration: config)
            rotator.refreshFloorMeters = 250
            let update = rotator.reselect(at: Fix(position))
            let plain = planner.select(at: Fix(position), refreshID: update.selection.refresh?.id ?? "refresh-0")
            #expect(update.selection.fences == plain.fences)
            #expect(update.selection.guarantee == plain.guarantee)
            let radius = try #require(update.selection.refresh?.radiusMeters)
            let safe = try #require(plain.refresh?.radiusMeters)
            if plain.guarantee == .exact {
                #expect(radius == safe)
                kept += 1
            } else {
                #expect(radius == 180, "floor 250 m capped at the largest region, 180 m")
                #expect(rotator.state.refresh?.radiusMeters == 180)
                widened += 1
            }
        }
        #expect(widened > 0 && kept > 0, "the fixture should mix exact and degraded selections")
    }

    /// With `placesWhereNotExact`, a selection that is not exact monitors the nearest that many
    /// places by edge (what a planner with that many slots selects there), and an exact one
    /// every slot.
    @Test func selectionsThatAreNotExactMonitorFewerPlaces() throws {
        let (catalog, positions) = Self.fixture(seed: 44)
        let config = RotationConfiguration(limit: 30, marginMeters: 150)
        var capped = config
        capped.limit = 5 + config.headroom + 1
        var full = try RotationPlanner(catalog: catalog, configuration: config)
        var few = try RotationPlanner(catalog: catalog, configuration: capped)
        var fewer = 0, all = 0
        for position in positions {
            var rotator = try FenceRotator(catalog: catalog, configuration: config)
            rotator.placesWhereNotExact = 5
            let update = rotator.reselect(at: Fix(position))
            let id = update.selection.refresh?.id ?? "refresh-0"
            let plain = full.select(at: Fix(position), refreshID: id)
            if plain.guarantee == .exact {
                #expect(update.selection == plain)
                all += 1
            } else {
                #expect(update.selection == few.select(at: Fix(position), refreshID: id))
                #expect(update.selection.fences.count == 5)
                fewer += 1
            }
        }
        #expect(fewer > 0 && all > 0, "the fixture should mix exact selections and others")
    }
}
