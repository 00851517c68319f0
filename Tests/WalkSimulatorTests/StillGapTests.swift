import EventEngine
import FencePlanner
import Geodesy
import PlatformFacts
import Testing

@testable import WalkSimulator

/// Recording gaps on a recorded walk: a gap between ends within the stay radius is filled as a
/// stay indoors, any other stays a gap, and the replay charges nothing across one.
@Suite struct StillGapTests {
    static let origin = Coordinate(validLatitude: 47.37, longitude: 8.54)

    /// A recording of legs separated by gaps of 3–90 minutes, half of them ending where they
    /// began (within 0–90 m), half 150 m–3 km away; fixes 2–30 s apart within a leg.
    static func recording(seed: UInt64) -> Walk {
        var rng = SplitMix64(seed: seed)
        var samples: [Walk.Sample] = []
        var time = 0.0
        var position = origin
        for leg in 0..<6 {
            for _ in 0..<(5 + Int(rng.nextDouble(in: 0..<20))) {
                position = position.destination(bearingDegrees: rng.nextDouble(in: 0..<360), distanceMeters: rng.nextDouble(in: 0..<15))
                samples.append(
                    .init(timeSeconds: time, truePosition: position, fix: Fix(position, accuracyMeters: 8, timestampSeconds: time)))
                time += rng.nextDouble(in: 2..<30)
            }
            time += rng.nextDouble(in: 180..<5_400)
            let away = leg % 2 == 0 ? rng.nextDouble(in: 0..<90) : rng.nextDouble(in: 150..<3_000)
            position = position.destination(bearingDegrees: rng.nextDouble(in: 0..<360), distanceMeters: away)
        }
        return Walk(samples: samples, kind: .walk, gapSeconds: Walk.recordingGapSeconds)
    }

    /// Against the definition, gap by gap: every recorded sample kept in order; inside a gap
    /// whose ends are within 100 m, a Wi-Fi sample every 5 s strictly between them, its true
    /// position on the straight line between the ends, with the given accuracy; inside any
    /// other gap, none. The same seed fills the same way.
    @Test(arguments: 0..<8)
    func stillGapsAreFilledAndOthersLeftAlone(seed: Int) {
        let walk = Self.recording(seed: UInt64(seed))
        let noise = PlatformProfile.PositionNoise(sigmaMeters: 45, correlationSeconds: 60)
        let filled = walk.fillingStillGaps(noise: noise, accuracyMeters: 65, seed: 9)
        #expect(filled == walk.fillingStillGaps(noise: noise, accuracyMeters: 65, seed: 9))
        let recorded = filled.samples.filter { !$0.indoors }
        #expect(recorded == walk.samples)
        var still = 0
        for gap in walk.gaps {
            let ends = walk.samples.filter { $0.timeSeconds == gap.lowerBound || $0.timeSeconds == gap.upperBound }
            let near = ends.first!.truePosition.distance(to: ends.last!.truePosition) <= Walk.stillGapMeters
            let inside = filled.samples.filter { $0.indoors && gap.lowerBound < $0.timeSeconds && $0.timeSeconds < gap.upperBound }
            guard near else {
                #expect(inside.count == 0, "seed \(seed): a gap between distant ends was filled")
                continue
            }
            still += 1
            let expected = Int(((gap.upperBound - gap.lowerBound) / 5).rounded(.up)) - 1
            #expect(abs(inside.count - expected) <= 1, "seed \(seed): \(inside.count) samples in a \(gap) gap")
            for sample in inside {
                let fraction = (sample.timeSeconds - gap.lowerBound) / (gap.upperBound - gap.lowerBound)
                let line = ends.first!.truePosition.interpolated(to: ends.last!.truePosition, fraction: fraction)
                #expect(sample.truePosition.distance(to: line) < 0.01)
                #expect(sample.fix?.accuracyMeters == 65)
            }
        }
        #expect(still > 0 && still < walk.gaps.count, "seed \(seed): a recording with both kinds of gap tests both")
        #expect(filled.samples.count > walk.samples.count)
        #expect(filled.gaps.count < walk.gaps.count)
    }

    /// The replay charges the recorded time only: a walk's seconds less its unfilled gaps, and
    /// never more GNSS time than that.
    @Test func nothingIsChargedAcrossAGap() throws {
        let walk = Self.recording(seed: 3)
        let catalog = try PlaceCatalog(places: [Place(id: "a", coordinate: Self.origin, radiusMeters: 80)])
        let replay = PlatformReplay(platform: .iOS, seed: 1)
        var strategy = try RotateStrategy(catalog: catalog, configuration: RotationConfiguration())
        let report = replay.replay(walk, strategy: &strategy, catalog: catalog)
        let span = walk.samples.last!.timeSeconds - walk.samples.first!.timeSeconds
        let gaps = walk.gaps.reduce(0) { $0 + $1.upperBound - $1.lowerBound }
        #expect(gaps > 0.5 * span)
        #expect(abs(report.seconds - (span - gaps)) < 1e-6)
        #expect(report.gnssOnSeconds <= report.seconds + 1e-6)
    }

    /// A network fix at a recorded sample: the recorded fix itself when it is no more precise
    /// than a network fix (a recorded day's Wi-Fi or cell position), the true position off by
    /// the network's error and reporting the network's accuracy when it is GNSS.
    @Test func aRecordedCoarseFixIsTheNetworkFix() throws {
        let catalog = try PlaceCatalog(places: [Place(id: "a", coordinate: Self.origin, radiusMeters: 80)])
        let replay = PlatformReplay(platform: .android, seed: 1)
        let strategy = try RotateStrategy(catalog: catalog, configuration: RotationConfiguration())
        let walk = Self.recording(seed: 5)
        var host = ReplayHost(replay, walk: walk, walkIndex: 0, strategy: strategy)
        for (i, accuracy) in [5.0, 30, 64.9, 65, 300, 1_500].enumerated() {
            let position = Self.origin.destination(bearingDegrees: 0, distanceMeters: Double(i) * 50)
            let recorded = Fix(position, accuracyMeters: accuracy, timestampSeconds: Double(i))
            let made = host.networkFix(.init(timeSeconds: Double(i), truePosition: position, fix: recorded))
            let fix = try #require(made)
            if accuracy >= replay.networkFixAccuracyMeters {
                #expect(fix == recorded)
            } else {
                #expect(fix.accuracyMeters == replay.networkFixAccuracyMeters)
                #expect(fix.coordinate != position)
            }
        }
    }
}
