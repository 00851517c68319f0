import Foundation
import Geodesy
import Testing

@testable import WalkSimulator

@Suite struct DensifiedPathTests {
    /// A walk of random steps: 0 to 400 m (some of zero length), anywhere on the globe, including
    /// next to the poles and across the antimeridian.
    static func randomWalk(seed: UInt64) throws -> Walk {
        var random = SplitMix64(seed: seed)
        var position = try Coordinate(
            latitude: Double.random(in: -89.9...89.9, using: &random), longitude: Double.random(in: -180..<180, using: &random))
        var time = 0.0
        var samples: [Walk.Sample] = []
        for _ in 0..<40 {
            samples.append(Walk.Sample(timeSeconds: time, truePosition: position, fix: nil))
            let meters = Double.random(in: 0...1, using: &random) < 0.1 ? 0 : Double.random(in: 0...400, using: &random)
            position = position.destination(bearingDegrees: Double.random(in: 0..<360, using: &random), distanceMeters: meters)
            time += Double.random(in: 0.5...30, using: &random)
        }
        return Walk(samples: samples, kind: .walk)
    }

    /// Every point equals the great-circle interpolation `Coordinate.interpolated(to:fraction:)`
    /// (an independent construction: bearings and a local frame) at the step fraction
    /// `s / count`, within a millimeter; its time is the linear interpolation of the samples'
    /// times; consecutive points are at most the spacing apart; a step's count is its length over
    /// the spacing, rounded up.
    @Test(arguments: [1.0, 3.5, 50.0])
    func pointsAreTheGreatCircleInterpolationAtEvenFractions(spacing: Double) throws {
        for seed in UInt64(1)...20 {
            let walk = try Self.randomWalk(seed: seed)
            let densified = DensifiedPath(walk, path: TruePath(walk), spacingMeters: spacing)
            #expect(densified.stepCount == walk.samples.count)
            for i in walk.samples.indices {
                let from = walk.samples[i]
                let to = i + 1 < walk.samples.count ? walk.samples[i + 1] : from
                let length = from.truePosition.distance(to: to.truePosition)
                let expectedCount = i + 1 < walk.samples.count ? max(1, Int(ceil(length / spacing))) : 1
                #expect(densified.pointCount(ofStep: i) == expectedCount)
                var points: [(UnitVector, Double)] = []
                densified.forEachPoint(ofStep: i) { points.append(($0, $1)) }
                #expect(points.count == expectedCount)
                for (s, (vector, time)) in points.enumerated() {
                    let fraction = Double(s) / Double(expectedCount)
                    let reference = from.truePosition.interpolated(to: to.truePosition, fraction: fraction)
                    #expect(Coordinate(vector).distance(to: reference) < 0.001, "seed \(seed) step \(i) point \(s)")
                    #expect(abs(time - (from.timeSeconds + (to.timeSeconds - from.timeSeconds) * fraction)) < 1e-9)
                    let following = s + 1 < points.count ? Coordinate(points[s + 1].0) : to.truePosition
                    #expect(Coordinate(vector).distance(to: following) <= spacing + 0.001)
                }
            }
        }
    }

    /// A 20 km step (the straight chord between its ends passes 7.8 m below the surface, and a
    /// normalized linear interpolation drifts from even spacing): every point stays on the great
    /// circle, at its fraction of the length from the start.
    @Test func aLongStepIsSpacedEvenlyAlongTheGreatCircle() throws {
        let a = try Coordinate(latitude: 48.85, longitude: 2.35)
        let b = a.destination(bearingDegrees: 63, distanceMeters: 20_000)
        let walk = Walk(
            samples: [Walk.Sample(timeSeconds: 0, truePosition: a, fix: nil), Walk.Sample(timeSeconds: 1_000, truePosition: b, fix: nil)],
            kind: .drive)
        let densified = DensifiedPath(walk, path: TruePath(walk), spacingMeters: 100)
        let length = a.distance(to: b)
        let count = densified.pointCount(ofStep: 0)
        #expect(count == Int(ceil(length / 100)))
        var s = 0
        densified.forEachPoint(ofStep: 0) { vector, _ in
            let point = Coordinate(vector)
            #expect(abs(a.distance(to: point) - length * Double(s) / Double(count)) < 0.001)
            #expect(abs(a.distance(to: point) + point.distance(to: b) - length) < 0.001)
            s += 1
        }
        #expect(s == count)
    }
}
