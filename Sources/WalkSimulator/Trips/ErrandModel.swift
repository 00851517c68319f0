import PlatformFacts

/// How errand trips move and stop: the figures `ErrandGenerator` draws from, each with its source
/// or marked as a stated choice, every one a parameter.
public struct ErrandModel: Hashable, Sendable {
    /// Share of trips made by car (the rest on foot). A stated choice.
    public var drivingShare = 0.5
    /// Stops at places of the catalog per trip, home to home.
    public var stopsPerTrip: ClosedRange<Int> = 1...4

    /// Walking speed, m/s: mean walking speeds of 1.25 m/s (older) to 1.51 m/s (younger
    /// pedestrians) in field studies at crosswalks (Knoblauch, Pietrucha and Nitzburg, "Field
    /// studies of pedestrian walking speed and start-up time", *Transportation Research Record*
    /// 1538, 1996); walking design speeds are 1.07–1.22 m/s.
    public var walkingSpeeds: ClosedRange<Double> = 1.2...1.5
    /// A street crossing every this many meters on foot (city blocks). A stated choice.
    public var blockMeters: ClosedRange<Double> = 80...200
    /// Chance of waiting at a crossing, and how long, seconds. The Highway Capacity Manual's
    /// pedestrian delay at a signal is (C − g)² / 2C: with cycles of 60–120 s and walk phases of
    /// 7–30 s, waits run from 0 to about a minute. Range of the chance: 0–1.
    public var crossingWaitProbability = 0.5
    public var crossingWaitSeconds: ClosedRange<Double> = 0...60

    /// Cruising speed between lights by car, m/s (40–58 km/h), with an acceleration of 1.48 m/s²
    /// (the steepest of EPA's Urban Dynamometer Driving Schedule, UDDS) and a light every 300–1,100
    /// m, red with chance 0.6 for 10–60 s: chosen so that urban driving averages UDDS's 31.5 km/h
    /// (12.07 km in 1,369 s, EPA, 40 CFR 86 Appendix I), which a test checks.
    public var cruiseSpeeds: ClosedRange<Double> = 11...16
    public var accelerationMetersPerSecondSquared = 1.48
    public var lightSpacingMeters: ClosedRange<Double> = 300...1_100
    public var redLightProbability = 0.6
    public var redLightWaitSeconds: ClosedRange<Double> = 10...60

    /// Distance from one stop to the next, meters: on foot, the shops of a neighbourhood; by car,
    /// a town's. A stated choice.
    public var walkingLegMeters: ClosedRange<Double> = 200...1_500
    public var drivingLegMeters: ClosedRange<Double> = 1_000...8_000
    /// Where a car parks: this share of the larger of the fence's radius and 60 m from its center
    /// (a parking lot off the building), then the driver walks to the door. A stated choice.
    public var parkingOffset: ClosedRange<Double> = 0.2...0.9
    /// Inside a store the traveller wanders within half the fence's radius (at most the kind's
    /// `StopKind.browsingRadiusMeters`) at this speed, m/s, standing still between moves for
    /// `pauseSeconds`. A stated choice.
    public var wanderSpeeds: ClosedRange<Double> = 0.3...0.6
    public var pauseSeconds: ClosedRange<Double> = 10...60

    /// Share of stops spent indoors (fuel stops: half of it, paying at the pump or inside). The
    /// uncertain parameter the phone's behaviour at a stop depends on most; range 0–1.
    public var indoorShare = 0.8
    /// A position fix indoors comes from Wi-Fi: its error per axis changes slowly (`PositionNoise`),
    /// and it reports a fixed accuracy. σ 45 m per axis puts the median error at 53 m, inside Wi-Fi
    /// positioning's 43–92 m medians across three cities (Zandbergen, "Comparison of WiFi
    /// positioning on two mobile devices", *Journal of Location Based Services* 6(1), 2012);
    /// Android's geofencing guide says to "assume about 50 m" for Wi-Fi. iOS reports a horizontal
    /// accuracy pinned at 65 m indoors (field reports: transistorsoft
    /// flutter_background_geolocation issues #399 and #510). Correlation time 60 s: not
    /// published, range 10–600 s.
    public var indoorNoise = PlatformProfile.PositionNoise(sigmaMeters: 45, correlationSeconds: 60)
    public var indoorAccuracyMeters = 65.0

    /// Negatives on every trip. On each leg, with `passByProbability`, the route goes through the
    /// fence of a place near it without stopping; with `decoyProbability` it stops just outside a
    /// fence near it: on foot at a bus stop 10–20 m from the edge, for `busWaitSeconds` (half of
    /// a 5–20 minute headway, a stated choice), by car at a red light 30–40 m from the edge for
    /// `redLightWaitSeconds`. With `neighbourShopProbability` a trip stops at a shop that is not
    /// in the catalog, 30–80 m from one that is (outside every fence), for a café's dwell.
    public var passByProbability = 0.5
    public var decoyProbability = 0.5
    public var neighbourShopProbability = 0.3
    public var busWaitSeconds: ClosedRange<Double> = 120...600
    public var busStopEdgeMeters: ClosedRange<Double> = 10...20
    public var redLightEdgeMeters: ClosedRange<Double> = 30...40
    public var neighbourShopMeters: ClosedRange<Double> = 30...80

    /// What real recorded days have and the trips above lack (../shared/research/stops.md: real
    /// days stop recording for 5 minutes to hours indoors, hold long stays that wander and stays
    /// at neighbouring places about 140 m apart), and a walker lingers a minute at a shop window
    /// (a stated choice). Each is off at 0, the default, so that the trips above stay as they
    /// are; `withRecordingQuirks()` turns them on.
    ///
    /// Chance that the phone gives no fix at all while the traveller is indoors at a stop (a
    /// phone in a bag, an OS throttling the app): the app hears nothing there, the platform's
    /// regions still work. A stated choice, range 0–1.
    public var silentIndoorProbability = 0.0
    /// Chance per trip that one of its stops is a long stay (an office, a campus, a mall) of
    /// `longStaySeconds`, wandering within `longStayRadiusMeters` of the place's center ("hours
    /// within 200 m" of a real day's stays). Stated choices.
    public var longStayProbability = 0.0
    public var longStaySeconds: ClosedRange<Double> = 3_600...14_400
    public var longStayRadiusMeters: ClosedRange<Double> = 50...100
    /// Chance that a stop after the first is at a place whose center is `nextDoorMeters` from
    /// the last stop's (the next shop on a high street), reached straight, without detours.
    public var nextDoorStopProbability = 0.0
    public var nextDoorMeters: ClosedRange<Double> = 100...200
    /// Chance per leg on foot of lingering inside the fence of a place near the way for
    /// `lingerSeconds` (a shop window): a stop shorter than any the stop oracle counts, so a
    /// visit reported there is a false one. A stated choice.
    public var lingerProbability = 0.0
    public var lingerSeconds: ClosedRange<Double> = 30...90

    public init() {}

    /// This model with each of real days' quirks drawn with chance 0.3 (`silentIndoorProbability`,
    /// `longStayProbability`, `nextDoorStopProbability`, `lingerProbability`).
    public func withRecordingQuirks() -> ErrandModel {
        var model = self
        model.silentIndoorProbability = 0.3
        model.longStayProbability = 0.3
        model.nextDoorStopProbability = 0.3
        model.lingerProbability = 0.3
        return model
    }

    /// The fastest a trip moves, m/s (a car's top cruising speed).
    public var maxSpeedMetersPerSecond: Double { cruiseSpeeds.upperBound }
}
