import FencePlanner
import Foundation
import Geodesy
import Testing

@testable import WalkSimulator

@Suite struct ErrandTests {
    static let catalogs: [PlaceSetKind: PlaceCatalog] = {
        var result: [PlaceSetKind: PlaceCatalog] = [:]
        for kind in [PlaceSetKind.uniform, .clustered, .dense] {
            var rng = SplitMix64(seed: 7)
            let places = kind.places(count: 1_500, around: Simulation.Scenario().regionCenter, sideMeters: 12_000, using: &rng)
            result[kind] = try? PlaceCatalog(places: places)
        }
        return result
    }()

    static func trip(_ kind: PlaceSetKind, seed: UInt64, model: ErrandModel = ErrandModel()) throws -> (Trip, PlaceCatalog) {
        let catalog = try #require(catalogs[kind])
        var rng = SplitMix64(seed: seed)
        return (
            ErrandGenerator.trip(catalog: catalog, model: model, fixes: FixModel(intervalSeconds: 1, noiseSigmaMeters: 5), using: &rng),
            catalog
        )
    }

    /// Every place whose fence holds `point`, by checking each one.
    static func fencesHolding(_ point: Coordinate, in catalog: PlaceCatalog) -> [String] {
        catalog.places.filter { point.distance(to: $0.coordinate) <= $0.radiusMeters }.map(\.id)
    }

    @Test func aSeedMakesOneTrip() throws {
        let (a, _) = try Self.trip(.clustered, seed: 3)
        let (b, _) = try Self.trip(.clustered, seed: 3)
        let (c, _) = try Self.trip(.clustered, seed: 4)
        #expect(a == b)
        #expect(a != c)
    }

    /// What a trip records is what its true path does: 1 to 4 stops at distinct places, in time
    /// order; the traveller inside the place's fence through each stop's time indoors and from
    /// the arrival of a walking stop; every decoy outside every fence (each place checked), with
    /// the traveller standing at it for its time; samples one interval apart, home at both ends.
    @Test(arguments: [PlaceSetKind.uniform, .clustered, .dense])
    func stopsAndDecoysAreWhereTheTripSaysTheyAre(set: PlaceSetKind) throws {
        var decoyKinds: Set<DecoyStop.Kind> = []
        var modes: Set<TravelMode> = []
        for seed in UInt64(1)...24 {
            let (trip, catalog) = try Self.trip(set, seed: seed)
            modes.insert(trip.mode)
            let samples = trip.walk.samples
            #expect((1...4).contains(trip.stops.count), "seed \(seed)")
            #expect(Set(trip.stops.map(\.placeID)).count == trip.stops.count)
            #expect(zip(trip.stops, trip.stops.dropFirst()).allSatisfy { $0.departureSeconds <= $1.arrivalSeconds })
            let first = try #require(samples.first), last = try #require(samples.last)
            #expect(first.truePosition.distance(to: last.truePosition) < 0.01)
            #expect(zip(samples, samples.dropFirst()).allSatisfy { abs($1.timeSeconds - $0.timeSeconds - 1) < 1e-9 || $1 == samples.last })
            for stop in trip.stops {
                #expect(stop.dwellSeconds >= 60, "seed \(seed): \(stop)")
                let place = try #require(catalog.places.first { $0.id == stop.placeID })
                for sample in samples {
                    let inside = sample.truePosition.distance(to: place.coordinate) <= place.radiusMeters + 1e-6
                    if stop.indoorSeconds?.contains(sample.timeSeconds) ?? false {
                        #expect(inside, "seed \(seed): indoors at \(sample.timeSeconds) but outside \(place.id)")
                    }
                    if trip.mode == .walking, (stop.arrivalSeconds + 1)...(stop.departureSeconds) ~= sample.timeSeconds {
                        #expect(inside, "seed \(seed): stopped at \(place.id) at \(sample.timeSeconds) but outside it")
                    }
                }
            }
            for decoy in trip.decoys {
                decoyKinds.insert(decoy.kind)
                #expect(Self.fencesHolding(decoy.coordinate, in: catalog).isEmpty, "seed \(seed): \(decoy)")
                for sample in samples where (decoy.arrivalSeconds + 1)...(decoy.departureSeconds - 1) ~= sample.timeSeconds {
                    if decoy.kind != .neighbourShop {
                        #expect(sample.truePosition.distance(to: decoy.coordinate) < 0.01, "seed \(seed): \(decoy)")
                    } else {
                        #expect(sample.truePosition.distance(to: decoy.coordinate) <= 3.01, "seed \(seed): \(decoy)")
                    }
                }
            }
        }
        #expect(modes == [.walking, .driving])
        #expect(decoyKinds == Set(DecoyStop.Kind.allCases))
    }

    /// By car, from light to light with waits at red, the average speed is the urban drive
    /// cycle's: EPA UDDS, 12.07 km in 1,369 s (31.5 km/h), within 10 %.
    @Test func drivingAveragesTheUrbanDriveCyclesSpeed() throws {
        let catalog = try #require(Self.catalogs[.uniform])
        var builder = ErrandBuilder(catalog: catalog, model: ErrandModel(), rng: SplitMix64(seed: 5), mode: .driving)
        let start = builder.timeline.position
        let end = start.destination(bearingDegrees: 80, distanceMeters: 200_000)
        builder.drive(to: end)
        let kilometersPerHour = 200 / (builder.timeline.now / 3_600)
        #expect(abs(kilometersPerHour - 12.07 / (1_369.0 / 3_600)) < 3.15, "\(kilometersPerHour) km/h")
    }

    /// On foot: moving at the trip's walking speed (1.2–1.5 m/s), waiting at some crossings.
    @Test func walkingMovesAtWalkingSpeedAndWaitsAtCrossings() throws {
        let catalog = try #require(Self.catalogs[.uniform])
        var builder = ErrandBuilder(catalog: catalog, model: ErrandModel(), rng: SplitMix64(seed: 6), mode: .walking)
        let start = builder.timeline.position
        builder.walk(to: start.destination(bearingDegrees: 10, distanceMeters: 20_000))
        let timeline = builder.timeline
        var moving = 0.0, waiting = 0.0
        for i in 1..<timeline.times.count {
            let seconds = timeline.times[i] - timeline.times[i - 1]
            let meters = timeline.positions[i].distance(to: timeline.positions[i - 1])
            if meters == 0 {
                waiting += seconds
            } else {
                #expect(abs(meters / seconds - builder.walkingSpeed) < 1e-6)
            }
            if meters > 0 { moving += seconds }
        }
        #expect((1.2...1.5).contains(builder.walkingSpeed))
        // 20 km of blocks of 80–200 m, half of them with a wait of 0–60 s: about 70 waits of 30 s.
        #expect((1_000...3_500).contains(waiting), "\(waiting) s waiting")
        #expect(abs(moving * builder.walkingSpeed - 20_000) < 1)
    }

    /// The dwell times follow the figures they are drawn from: a third of coffee visits over 10
    /// minutes, about half of fuel stops under 5 minutes with a mean of 8 to 9 minutes, grocery
    /// and dollar-store medians inside the published ranges.
    @Test func dwellTimesMatchThePublishedFigures() {
        var rng = SplitMix64(seed: 11)
        func draws(_ kind: StopKind) -> [Double] { (0..<40_000).map { _ in kind.dwell.draw(using: &rng) }.sorted() }
        let coffee = draws(.coffee), fuel = draws(.fuel), grocery = draws(.grocery), dollar = draws(.dollarStore)
        let coffeeOver10 = Double(coffee.filter { $0 > 600 }.count) / Double(coffee.count)
        #expect(abs(coffeeOver10 - 0.33) < 0.02, "\(coffeeOver10)")
        let fuelUnder5 = Double(fuel.filter { $0 < 300 }.count) / Double(fuel.count)
        #expect(abs(fuelUnder5 - 0.52) < 0.03, "\(fuelUnder5)")
        let fuelMeanMinutes = fuel.reduce(0, +) / Double(fuel.count) / 60
        #expect((8...9).contains(fuelMeanMinutes), "\(fuelMeanMinutes)")
        #expect((27 * 60...37 * 60).contains(grocery[grocery.count / 2]))
        #expect((15 * 60...17 * 60).contains(dollar[dollar.count / 2]))
    }

    /// Indoors the fixes come from Wi-Fi: a median error of about 53 m (σ 45 m per axis), the
    /// reported accuracy pinned at 65 m, and an error that changes slowly (consecutive fixes'
    /// errors correlated as exp(−1 s / 60 s)); outdoors the fix model's 5 m noise.
    @Test func indoorFixesAreWiFiPositions() throws {
        var indoor: [(error: Double, east: Double, accuracy: Double?)] = []
        var outdoor: [Double] = []
        var pairs: [(Double, Double)] = []
        for seed in UInt64(1)...30 {
            let (trip, _) = try Self.trip(.clustered, seed: seed)
            var previous: (Double, Double)?
            for sample in trip.walk.samples {
                guard let fix = sample.fix else { continue }
                let error = fix.coordinate.distance(to: sample.truePosition)
                let east = error * sin(sample.truePosition.initialBearingDegrees(to: fix.coordinate) * .pi / 180)
                if trip.isIndoors(atSeconds: sample.timeSeconds) {
                    indoor.append((error, east, fix.accuracyMeters))
                    if let previous { pairs.append((previous.1, east)) }
                    previous = (error, east)
                } else {
                    outdoor.append(error)
                    previous = nil
                }
            }
        }
        try #require(indoor.count > 10_000)
        let median = indoor.map(\.error).sorted()[indoor.count / 2]
        #expect(abs(median - 45 * (2 * log(2.0)).squareRoot()) < 8, "\(median)")
        #expect(indoor.allSatisfy { $0.accuracy == 65 })
        let outdoorMedian = outdoor.sorted()[outdoor.count / 2]
        #expect(abs(outdoorMedian - 5 * (2 * log(2.0)).squareRoot()) < 0.5)
        let meanA = pairs.map(\.0).reduce(0, +) / Double(pairs.count), meanB = pairs.map(\.1).reduce(0, +) / Double(pairs.count)
        let covariance = pairs.map { ($0.0 - meanA) * ($0.1 - meanB) }.reduce(0, +)
        let spreadA = pairs.map { ($0.0 - meanA) * ($0.0 - meanA) }.reduce(0, +)
        let spreadB = pairs.map { ($0.1 - meanB) * ($0.1 - meanB) }.reduce(0, +)
        let correlation = covariance / (spreadA * spreadB).squareRoot()
        #expect(abs(correlation - exp(-1.0 / 60)) < 0.01, "\(correlation)")
    }

    /// The platform's bound hears of every stop on the ideal phone (its entries are exact), and
    /// a design that registers nothing hears of none: the stop oracle can fail.
    @Test func theStopOracleSeesWhatTheAppHeard() throws {
        var scenario = Simulation.Scenario()
        scenario.placeSet = .clustered
        scenario.placeCount = 1_500
        scenario.regionSideMeters = 12_000
        scenario.walkKind = .errands
        scenario.walks = 12
        scenario.seed = 3
        let simulation = try Simulation(scenario)
        let replay = PlatformReplay(platform: .ideal(delaySeconds: 0), seed: 1)
        let reports = try simulation.runOnPlatform(replay, configuration: simulation.configuration, strategies: [.everyPlace])
        let bound = try #require(reports.first?.report.stops)
        #expect(bound.stops >= 20)
        #expect(bound.detected == bound.stops)
        #expect(bound.passBys > 0)
        var nothing = PlatformReplayReport()
        for index in 0..<scenario.walks {
            let trip = simulation.trip(index)
            var strategy = RegistersNothing()
            nothing.merge(
                replay.replay(
                    trip.walk, walkIndex: index, strategy: &strategy, catalog: simulation.catalog, stops: trip.stops, decoys: trip.decoys))
        }
        #expect(nothing.stops.stops == bound.stops)
        #expect(nothing.stops.detected == 0)
        #expect(nothing.stops.falseVisits == 0)
    }

    struct RegistersNothing: MonitoringStrategy {
        var name: String { "nothing" }
        var backgroundFixes: BackgroundFixes { .none }
        mutating func begin(at fix: Fix) -> MonitoredRegions { MonitoredRegions(places: [], triggers: []) }
        mutating func triggerExited(_ id: String, at fix: Fix) -> MonitoredRegions? { nil }
        mutating func received(_ fix: Fix) -> MonitoredRegions? { nil }
    }
}
