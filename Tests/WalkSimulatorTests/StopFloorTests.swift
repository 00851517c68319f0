import FencePlanner
import Geodesy
import PlatformEmulator
import PlatformFacts
import Testing

@testable import WalkSimulator

/// The stop floor of a replay against a trip made by hand, whose stops and pass-bys are known by
/// construction: one 10-minute stop at a shop, and on the way one walk through another place's
/// fence.
@Suite struct StopFloorTests {
    static let shop = StopReferenceStrategyTests.shop
    static let passed = shop.destination(bearingDegrees: 270, distanceMeters: 1_000)
    static let catalog: PlaceCatalog = {
        let places = [
            Place(id: "shop", coordinate: shop, radiusMeters: 50),
            Place(id: "passed", coordinate: passed, radiusMeters: 40),
            Place(id: "far", coordinate: shop.destination(bearingDegrees: 0, distanceMeters: 5_000), radiusMeters: 50),
        ]
        return try! PlaceCatalog(places: places)
    }()

    /// `StopReferenceStrategyTests`' trip with a 600 s stop: from 2 km west, through `passed`
    /// (1 km west of the shop, on the way), to the shop, then 1.5 km east.
    static func trip() -> (Walk, TrueStop) { StopReferenceStrategyTests.trip(staySeconds: 600) }

    /// `strategy`'s replay of the trip on the ideal phone.
    static func replayed<Strategy: MonitoringStrategy>(_ strategy: Strategy) -> (report: PlatformReplayReport, walk: Walk) {
        let (walk, stop) = trip()
        let replay = PlatformReplay(platform: .ideal(delaySeconds: 0), seed: 1)
        var strategy = strategy
        return (replay.replay(walk, strategy: &strategy, catalog: catalog, stops: [stop]), walk)
    }

    /// The floor is the monitoring's 2 mW over the trip and one network position with its
    /// wake-up (0.5 J + 0.2 J) at each of the 2 places entered, whatever the design; each design's
    /// energy over it is its energy divided by it.
    @Test func theFloorPricesTheMonitoringAndOnePositionPerPlaceEntered() throws {
        let energy = PlatformProfile.Energy.iOS
        let replays = [
            ("rotate", Self.replayed(try RotateStrategy(catalog: Self.catalog, configuration: RotationConfiguration(limit: 20)))),
            ("radar-responsive", Self.replayed(RadarResponsiveStrategy(catalog: Self.catalog))),
            ("nearest19-floor50", Self.replayed(NearestWithRefreshStrategy(catalog: Self.catalog, regionLimit: 20))),
        ]
        for (kind, (report, walk)) in replays {
            let expected = energy.monitoringMilliwatts / 1_000 * report.seconds + 2 * (energy.networkFixJoules + energy.wakeupJoules)
            #expect(report.stops.stops == 1 && report.stops.passBys == 1, "\(kind): \(report.stops)")
            #expect(abs(report.energyFloorJoules - expected) < 1e-9, "\(kind): \(report.energyFloorJoules) vs \(expected)")
            let duration = (walk.samples.last?.timeSeconds ?? 0) - (walk.samples.first?.timeSeconds ?? 0)
            #expect(abs(report.seconds - duration) < 1, "\(kind)")
            #expect(abs((report.energyFloorMilliwattHoursPerHour ?? 0) - expected / 3.6 / (report.seconds / 3_600)) < 1e-9)
            let over = report.energyOverFloor ?? 0
            #expect(abs(over - report.energyJoules / expected) < 1e-12, "\(kind)")
        }
    }

    /// Replays without stops have no floor; merged reports add their floors.
    @Test func noStopsNoFloorAndFloorsAdd() throws {
        let (walk, stop) = Self.trip()
        let replay = PlatformReplay(platform: .ideal(delaySeconds: 0), seed: 1)
        var strategy = try RotateStrategy(catalog: Self.catalog, configuration: RotationConfiguration(limit: 20))
        let without = replay.replay(walk, strategy: &strategy, catalog: Self.catalog, stops: nil)
        #expect(without.energyFloorJoules == 0 && without.energyOverFloor == nil)
        var merged = replay.replay(walk, strategy: &strategy, catalog: Self.catalog, stops: [stop])
        let single = merged
        merged.merge(single)
        #expect(merged.energyFloorJoules == 2 * single.energyFloorJoules)
    }
}
