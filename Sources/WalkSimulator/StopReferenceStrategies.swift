import FencePlanner
import Geodesy
import PlatformEmulator
import SpatialIndex

// Reference designs modelled on the incumbent SDKs' published stop behaviour, replayed beside
// rotate on errand trips. Each parameter is the SDK's own default, cited from its source or docs;
// what the replay cannot model is said in the type's comment. They share the rules of the other
// reference designs (ReferenceStrategies.swift): ranking through the index, fresh trigger ids,
// no randomness.

/// Reference design `radar-responsive`: Radar's Responsive tracking preset. Replayed for
/// comparison; not a planner option.
///
/// `RadarTrackingOptions.presetResponsive` (radarlabs/radar-sdk-ios `RadarTrackingOptions.m`,
/// v3.39.1; the same values in radar-sdk-android `RadarTrackingOptions.kt`): "Updates about every
/// 2.5 minutes when moving and shuts down when stopped to save battery. Once stopped, the device
/// will need to move more than 100 meters to wake up and start moving again."
/// - `desiredMovingUpdateInterval` 150 s, `desiredAccuracy` medium
///   (`kCLLocationAccuracyHundredMeters`, Android `PRIORITY_BALANCED_POWER_ACCURACY`): a network
///   fix every 150 s while moving (`BackgroundFixes.periodic`);
/// - `stopDistance` 70 m, `stopDuration` 140 s: stopped once an update is within 70 m of the one
///   that began the stay, at least 140 s later; `desiredStoppedUpdateInterval` 0: no updates while
///   stopped;
/// - `useStoppedGeofence`, `stoppedGeofenceRadius` 100 m: a region around the stop whose exit
///   means moving again; `useMovingGeofence`, `movingGeofenceRadius` 100 m: a region around each
///   update while moving, whose exit brings the next update early;
/// - every update is sent to Radar's servers (`sync` all), which decide geofence entries: an
///   entry when an update falls inside a place's fence that the previous update was not inside.
///   The replay prices one request per update.
///
/// - `useVisits` (iOS): a visit's arrival or departure wakes the app for an update; a departure
///   means moving again.
///
/// Not modeled: significant changes (`useSignificantLocationChanges`), the geofences Radar syncs
/// to the device (`syncGeofences`), and the low-accuracy location session its iOS SDK keeps
/// running between updates.
public struct RadarResponsiveStrategy: MonitoringStrategy, Sendable {
    public static let movingUpdateSeconds = 150.0
    public static let stopDistanceMeters = 70.0
    public static let stopDurationSeconds = 140.0
    public static let stoppedGeofenceRadiusMeters = 100.0
    public static let movingGeofenceRadiusMeters = 100.0

    public let catalog: PlaceCatalog
    /// Whether the design has decided the device is stopped.
    public private(set) var stopped = false
    private var anchor: (coordinate: Coordinate, timeSeconds: Double)?
    private var bubble: RefreshRegion?
    private var insidePlaces: Set<String> = []
    private var entries: [ReceivedEntry] = []
    private var numbering = TriggerNumbering()
    private var buffer = NeighborBuffer()

    public init(catalog: PlaceCatalog) {
        self.catalog = catalog
    }

    public var name: String { "radar-responsive" }
    public var backgroundFixes: BackgroundFixes { stopped ? .none : .periodic }
    public var periodicFixSeconds: Double { Self.movingUpdateSeconds }
    public var sendsUpdatesToServer: Bool { true }
    public var decidesPlaceEvents: Bool { true }
    public var usesVisitMonitoring: Bool { true }

    public mutating func begin(at fix: Fix) -> MonitoredRegions { update(fix) }

    /// A visit wakes the app for an update; a departure means moving again.
    public mutating func visitReported(_ visit: VisitEvent, fix: Fix?) -> MonitoredRegions? {
        guard let fix else { return nil }
        if visit.departureSeconds != nil, stopped {
            stopped = false
            anchor = nil
        }
        return update(fix)
    }

    public mutating func received(_ fix: Fix) -> MonitoredRegions? { update(fix) }

    /// The exit of the stopped or moving region: moving (again), with an update now.
    public mutating func triggerExited(_ id: String, at fix: Fix) -> MonitoredRegions? {
        guard id == bubble?.id else { return nil }
        if stopped {
            stopped = false
            anchor = nil
        }
        return update(fix)
    }

    public mutating func takeEntries() -> [ReceivedEntry] {
        defer { entries.removeAll() }
        return entries
    }

    /// One update: the server's entries, the stop test, and the region around the update.
    private mutating func update(_ fix: Fix) -> MonitoredRegions {
        let time = fix.timestampSeconds ?? 0
        catalog.index.within(0, of: UnitVector(fix.coordinate), measuredTo: .edge, into: &buffer)
        let now = Set(buffer.neighbors.map { catalog.places[$0.index].id })
        for id in now.subtracting(insidePlaces).sorted() { entries.append(ReceivedEntry(placeID: id, timeSeconds: time)) }
        insidePlaces = now
        if let anchor, fix.coordinate.distance(to: anchor.coordinate) <= Self.stopDistanceMeters {
            if time - anchor.timeSeconds >= Self.stopDurationSeconds { stopped = true }
        } else {
            anchor = (fix.coordinate, time)
        }
        let radius = stopped ? Self.stoppedGeofenceRadiusMeters : Self.movingGeofenceRadiusMeters
        let region = RefreshRegion(id: numbering.next(), center: fix.coordinate, radiusMeters: radius)
        bubble = region
        return MonitoredRegions(places: [], triggers: [region])
    }
}

/// Reference design `stationary-geofence`: transistorsoft's background-geolocation with its
/// defaults. Replayed for comparison; not a planner option.
///
/// `Config` defaults (transistorsoft/react-native-background-geolocation v5.2.0, `Config.d.ts`;
/// the same in its Flutter, Cordova and Capacitor editions):
/// - `desiredAccuracy` high ("Only DESIRED_ACCURACY_HIGH uses GPS") with `distanceFilter` 10 m:
///   while moving, continuous GNSS fixes, a location recorded every 10 m;
/// - motion activity on ("The plugin is HIGHLY optimized to use the Motion API"): once the
///   classifier says still, `stopTimeout` 5 minutes later location services turn off ("delay
///   GPS OFF while in a car waiting at a traffic light");
/// - then a stationary geofence of `stationaryRadius` 25 m around the last fix; its exit (iOS
///   "will typically take ~200 meters of movement", the emulator's exit cushion) or the motion
///   classifier saying moving (where it wakes a suspended app: Android) resumes tracking;
/// - geofences: the places within `geofenceProximityRadius` 1,000 m, nearest first, up to the
///   platform's limit less the stationary geofence, queried again at each recorded location;
///   entries are the platform's.
public struct StationaryGeofenceStrategy: MonitoringStrategy, Sendable {
    public static let distanceFilterMeters = 10.0
    public static let stationaryRadiusMeters = 25.0
    public static let stopTimeoutSeconds = 300.0
    public static let proximityRadiusMeters = 1_000.0

    public let catalog: PlaceCatalog
    public let regionLimit: Int
    /// Whether location services are on (moving, or still for less than `stopTimeoutSeconds`).
    public private(set) var tracking = true
    private var stillSince: Double?
    private var lastRecorded: Coordinate?
    private var places: [Fence] = []
    private var stationary: RefreshRegion?
    private var numbering = TriggerNumbering()
    private var buffer: NeighborBuffer

    /// A strategy over `catalog`; `regionLimit` the platform's (at least 2).
    public init(catalog: PlaceCatalog, regionLimit: Int = 20) {
        precondition(regionLimit >= 2, "a stationary geofence and one place need a region limit of at least 2")
        self.catalog = catalog
        self.regionLimit = regionLimit
        buffer = NeighborBuffer(capacity: regionLimit)
    }

    public var name: String { "stationary-geofence" }
    public var backgroundFixes: BackgroundFixes { tracking ? .continuous : .none }
    public var usesMotionActivity: Bool { true }

    public mutating func begin(at fix: Fix) -> MonitoredRegions {
        lastRecorded = fix.coordinate
        query(at: fix.coordinate)
        return regions
    }

    /// A continuous fix: stationary once the stop timeout has run out; otherwise a recorded
    /// location every `distanceFilterMeters`, with the geofences queried again.
    public mutating func received(_ fix: Fix) -> MonitoredRegions? {
        let time = fix.timestampSeconds ?? 0
        if let since = stillSince, time - since >= Self.stopTimeoutSeconds {
            tracking = false
            stillSince = nil
            stationary = RefreshRegion(id: numbering.next(), center: fix.coordinate, radiusMeters: Self.stationaryRadiusMeters)
            return regions
        }
        guard lastRecorded.map({ fix.coordinate.distance(to: $0) >= Self.distanceFilterMeters }) ?? true else { return nil }
        lastRecorded = fix.coordinate
        let before = places
        query(at: fix.coordinate)
        return places == before ? nil : regions
    }

    public mutating func triggerExited(_ id: String, at fix: Fix) -> MonitoredRegions? {
        guard id == stationary?.id else { return nil }
        resume(at: fix.coordinate)
        return regions
    }

    public mutating func motionChanged(moving: Bool, at timeSeconds: Double, fix: Fix?) -> MonitoredRegions? {
        guard moving else {
            if tracking, stillSince == nil { stillSince = timeSeconds }
            return nil
        }
        stillSince = nil
        guard !tracking else { return nil }
        resume(at: fix?.coordinate ?? stationary?.center ?? lastRecorded ?? catalog.places[0].coordinate)
        return regions
    }

    private var regions: MonitoredRegions {
        MonitoredRegions(places: places, triggers: stationary.map { [$0] } ?? [])
    }

    private mutating func resume(at coordinate: Coordinate) {
        tracking = true
        stillSince = nil
        stationary = nil
        lastRecorded = coordinate
        query(at: coordinate)
    }

    /// The places within the proximity radius, nearest by center, up to the limit less one.
    private mutating func query(at coordinate: Coordinate) {
        catalog.index.nearest(
            min(regionLimit - 1, catalog.count), to: UnitVector(coordinate), measuredTo: .center, within: Self.proximityRadiusMeters,
            into: &buffer)
        places = buffer.neighbors.map { catalog.fences[$0.index] }
    }
}
