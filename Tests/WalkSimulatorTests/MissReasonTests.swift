import PlatformEmulator
import Testing

@testable import WalkSimulator

/// The reason a stop went unreported, from the phone's events of its place: a stop of 10
/// minutes from t = 2,000 s, whose window ends 120 s after it; its place monitored throughout.
@Suite struct MissReasonTests {
    static let stay = 2_000.0...2_600.0
    static let window = 1_970.0...2_720.0

    func reason(_ events: [(RegionEvent.Kind, decided: Double, delivered: Double)], monitored: [ClosedRange<Double>] = [0...10_000])
        -> ReplayTimeline.MissReason
    {
        var timeline = ReplayTimeline(strategy: "rotate", decidesPlaceEvents: true, platformMinRadiusMeters: 100)
        timeline.monitored["shop"] = monitored
        timeline.events = events.map {
            ReplayTimeline.Delivered(
                event: RegionEvent(kind: $0.0, regionID: "shop", decidedAtSeconds: $0.decided, deliveredAtSeconds: $0.delivered),
                isTrigger: false)
        }
        return timeline.reason(placeID: "shop", stay: Self.stay, window: Self.window, lead: StopOracle.minimumStopSeconds)
    }

    /// An entry delivered before the stop began (the user entered the fence on the way to the
    /// door) came in time: the app did not report, and no negative latency is claimed.
    @Test func anEntryBeforeTheArrivalCameInTime() {
        #expect(reason([(.enter, decided: 1_900, delivered: 1_910)]) == .notReported)
    }

    /// A return after a short way out that the phone never saw leave: the phone had the user
    /// inside since an entry long before; the app did not report. Not so when the place was
    /// registered again since (the phone's state began anew), nor after the phone's exit.
    @Test func aReturnThePhoneNeverSawLeaveIsNotReported() {
        #expect(reason([(.enter, decided: 100, delivered: 130)]) == .notReported)
        #expect(reason([(.enter, decided: 100, delivered: 130)], monitored: [0...1_000, 1_500...10_000]) == .belowResolution)
        #expect(reason([(.enter, decided: 100, delivered: 130), (.exit, decided: 900, delivered: 950)]) == .belowResolution)
    }

    /// Entries decided during the stop but delivered after its window: latency, from the
    /// arrival to the first delivery.
    @Test func anEntryDeliveredAfterTheWindowIsLatency() {
        #expect(reason([(.enter, decided: 2_100, delivered: 2_900), (.enter, decided: 2_200, delivered: 2_800)]) == .latency(seconds: 800))
    }
}
