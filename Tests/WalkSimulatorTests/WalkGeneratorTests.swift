import FencePlanner
import Geodesy
import RotateTestSupport
import Testing
import WalkSimulator

@Suite struct WalkGeneratorTests {
    let start = Coordinate(validLatitude: 46.05, longitude: 14.51)

    @Test func samplesAreOneStepApartAlongThePath() {
        var rng = SplitMix64(seed: 1)
        let waypoints = [
            start, start.destination(bearingDegrees: 30, distanceMeters: 700), start.destination(bearingDegrees: 100, distanceMeters: 900),
        ]
        let walk = WalkGenerator.along(waypoints, speedMetersPerSecond: 1.4, fixes: FixModel(intervalSeconds: 2), kind: .walk, using: &rng)
        let pathLength = zip(waypoints, waypoints.dropFirst()).reduce(0) { $0 + $1.0.distance(to: $1.1) }
        for (a, b) in zip(walk.samples, walk.samples.dropFirst()) {
            #expect(a.truePosition.distance(to: b.truePosition) <= 2.8 + 1e-6)
            #expect(b.timeSeconds - a.timeSeconds == 2)
        }
        // Only the corner-cutting steps are shorter than 2.8 m; the sampled path is as long as the polyline.
        #expect(abs(walk.lengthMeters - pathLength) < 3)
        #expect(walk.samples.first?.truePosition == start)
        #expect(walk.samples.last?.truePosition == waypoints.last)
        #expect(walk.samples.allSatisfy { $0.fix?.coordinate == $0.truePosition })
    }

    @Test func noiseHasTheRequestedSpreadAndDropoutsAreBounded() {
        var rng = SplitMix64(seed: TestSeed.value(salt: 500))
        let model = FixModel(intervalSeconds: 1, noiseSigmaMeters: 8, dropoutProbability: 0.3, maxConsecutiveDropouts: 2)
        let walk = WalkGenerator.along(
            [start, start.destination(bearingDegrees: 0, distanceMeters: 20_000)],
            speedMetersPerSecond: 1.5, fixes: model, kind: .straight, using: &rng)
        var errors: [Double] = []
        var run = 0, longestRun = 0
        for sample in walk.samples {
            if let fix = sample.fix {
                errors.append(fix.coordinate.distance(to: sample.truePosition))
                #expect(fix.accuracyMeters == 8)
                run = 0
            } else {
                run += 1
                longestRun = max(longestRun, run)
            }
        }
        #expect(longestRun <= 2)
        let dropped = Double(walk.samples.count - walk.deliveredFixes) / Double(walk.samples.count)
        #expect(dropped > 0.15 && dropped < 0.3)
        // The 2D error of a Gaussian with σ per axis has mean σ·√(π/2) ≈ 10.03 m.
        let mean = errors.reduce(0, +) / Double(errors.count)
        #expect(abs(mean - 8 * (Double.pi / 2).squareRoot()) < 0.4, "mean error \(mean)")
        #expect(model.maxGapSeconds == 3)
    }

    @Test func sameSeedSameWalk() throws {
        var scenario = Simulation.Scenario()
        scenario.placeCount = 300
        scenario.walkKind = nil
        let a = try Simulation(scenario), b = try Simulation(scenario)
        for i in 0..<4 { #expect(a.walk(i) == b.walk(i)) }
        #expect(a.walk(0) != a.walk(1))
    }

    @Test func dateLineWalksCrossTheDateLine() throws {
        var scenario = Simulation.Scenario()
        scenario.walkKind = .dateLine
        scenario.placeCount = 400
        scenario.regionSideMeters = 20_000
        scenario.lengthMeters = 30_000...30_000
        let simulation = try Simulation(scenario)
        let walk = simulation.walk(0)
        let crossings = zip(walk.samples, walk.samples.dropFirst()).filter { a, b in
            (a.truePosition.longitude > 0) != (b.truePosition.longitude > 0) && abs(a.truePosition.longitude) > 90
        }.count
        #expect(crossings >= 2)
        #expect(
            simulation.catalog.places.contains { $0.coordinate.longitude > 0 }
                && simulation.catalog.places.contains { $0.coordinate.longitude < 0 })
    }

    @Test func poleWalksPassOverThePole() throws {
        var scenario = Simulation.Scenario()
        scenario.walkKind = .pole
        scenario.placeCount = 400
        scenario.regionSideMeters = 20_000
        scenario.lengthMeters = 10_000...10_000
        let walk = try Simulation(scenario).walk(0)
        let pole = Coordinate(validLatitude: 90, longitude: 0)
        #expect(walk.samples.map { $0.truePosition.distance(to: pole) }.min()! < 2)
    }

    @Test func backAndForthGrazesAFenceEdge() throws {
        var rng = SplitMix64(seed: 3)
        let place = Place(id: "x", coordinate: start, radiusMeters: 80)
        let points = WalkGenerator.waypoints(.backAndForth, lengthMeters: 2_000, places: [place], center: start, using: &rng)
        #expect(points.count >= 5)
        let walk = WalkGenerator.along(points, speedMetersPerSecond: 1.2, fixes: FixModel(), kind: .backAndForth, using: &rng)
        let closest = walk.samples.map { $0.truePosition.distance(to: start) }.min()!
        #expect(abs(closest - 80) < 1)
    }
}
