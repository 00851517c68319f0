import FencePlanner
import Testing

@testable import WalkSimulator

/// Stops at places the OS was not monitoring at the arrival, counted apart, on the hand-made trip
/// of `StopFloorTests` (one 10-minute stop at the shop): a design that registers no place fence
/// (Radar's Responsive preset, which decides entries on its server) arrives at an unmonitored
/// place and finds the stop by its own updates; designs that register the shop, the nearest of
/// three places within their limit, arrive at a monitored one.
@Suite struct UnmonitoredStopTests {
    @Test func aStopIsCountedApartWhenItsPlaceWasNotMonitoredAtTheArrival() throws {
        let radar = StopFloorTests.replayed(RadarResponsiveStrategy(catalog: StopFloorTests.catalog)).report.stops
        #expect(radar.unmonitoredAtArrival.stops == 1 && radar.unmonitoredAtArrival.longStops == 1, "\(radar)")
        #expect(radar.unmonitoredAtArrival.detected == radar.detected)
        let nearest = StopFloorTests.replayed(NearestWithRefreshStrategy(catalog: StopFloorTests.catalog, regionLimit: 20)).report.stops
        #expect(nearest.unmonitoredAtArrival.stops == 0 && nearest.stops == 1, "\(nearest)")
        let rotate = StopFloorTests.replayed(
            try RotateStrategy(catalog: StopFloorTests.catalog, configuration: RotationConfiguration(limit: 20))
        ).report.stops
        #expect(rotate.unmonitoredAtArrival.stops == 0 && rotate.stops == 1, "\(rotate)")
    }

    /// The oracle counts a stop apart exactly when `wasMonitored` says its place was not
    /// monitored, detected or not; merged scores add.
    @Test func theOracleCountsWhatItIsTold() {
        let stops = [
            TrueStop(placeID: "a", arrivalSeconds: 0, departureSeconds: 400),
            TrueStop(placeID: "b", arrivalSeconds: 1_000, departureSeconds: 1_150),
            TrueStop(placeID: "c", arrivalSeconds: 2_000, departureSeconds: 2_600),
        ]
        let visits = [ReportedVisit(placeID: "a", timeSeconds: 100), ReportedVisit(placeID: "c", timeSeconds: 2_100)]
        var score = StopOracle.score(stops: stops, decoys: [], passages: [], visits: visits, wasMonitored: { $0.placeID == "a" })
        #expect(score.unmonitoredAtArrival.stops == 2 && score.unmonitoredAtArrival.longStops == 1)
        #expect(score.unmonitoredAtArrival.detected == 1 && score.unmonitoredAtArrival.recall5 == 1)
        score.merge(score)
        #expect(score.unmonitoredAtArrival.stops == 4 && score.unmonitoredAtArrival.longDetected == 2)
    }
}
