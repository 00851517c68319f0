import Foundation
import Geodesy
import RotateTestSupport
import Testing

@testable import SpatialIndex

/// A four-child node bounds its children's boxes in Float, and by edge takes each bound's square
/// root in Double: no bound may ever exceed what a place's own Double arithmetic gives (the search
/// would then drop a place that ranks). Checked against brute force (every sampled point of a box)
/// and the scalar bound.
@Suite struct NodeBoundTests {
    static func unit(_ x: Double, _ y: Double, _ z: Double) -> UnitVector {
        UnitVector(x: x, y: y, z: z).normalized
    }

    /// Boxes of 1 m to 2,000 km around random places, queries inside, on the points, and just
    /// outside (gaps down to 1e-9, where rounding the query to Float matters most).
    @Test func boxBoundsNeverExceedTheSquaredChordOfAnyPointInside() {
        let seed = TestSeed.value(salt: 1_600)
        var rng = SplitMix64(seed: seed)
        var checked = 0
        for _ in 0..<3_000 {
            let center = Self.unit(rng.nextDouble(in: -1..<1), rng.nextDouble(in: -1..<1), rng.nextDouble(in: -1..<1))
            let size = pow(10, rng.nextDouble(in: -6.8 ..< -0.5))
            let points = (0..<12).map { _ in
                Self.unit(
                    center.x + size * rng.nextDouble(in: -1..<1), center.y + size * rng.nextDouble(in: -1..<1),
                    center.z + size * rng.nextDouble(in: -1..<1))
            }
            let lo = SIMD3(points.map(\.x).min()!, points.map(\.y).min()!, points.map(\.z).min()!)
            let hi = SIMD3(points.map(\.x).max()!, points.map(\.y).max()!, points.map(\.z).max()!)
            let empty = Float.infinity
            let node = KDTree.Node(
                minX: SIMD4(KDTree.floatDown(lo.x), empty, empty, empty), minY: SIMD4(KDTree.floatDown(lo.y), empty, empty, empty),
                minZ: SIMD4(KDTree.floatDown(lo.z), empty, empty, empty), maxX: SIMD4(KDTree.floatUp(hi.x), -empty, -empty, -empty),
                maxY: SIMD4(KDTree.floatUp(hi.y), -empty, -empty, -empty), maxZ: SIMD4(KDTree.floatUp(hi.z), -empty, -empty, -empty),
                maxRadius: .zero, splits: .zero)
            // A query just outside a face (a gap of 1e-9 to 1e-3 along one axis), a point itself,
            // and one anywhere near.
            let gap = pow(10, rng.nextDouble(in: -9 ..< -3))
            let point = points[Int(rng.next() % 12)]
            var queries = [
                point,
                Self.unit(
                    center.x + 3 * size * rng.nextDouble(in: -1..<1), center.y + 3 * size * rng.nextDouble(in: -1..<1),
                    center.z + 3 * size * rng.nextDouble(in: -1..<1)),
            ]
            switch rng.next() % 3 {
            case 0: queries.append(UnitVector(x: hi.x + gap, y: point.y, z: point.z))
            case 1: queries.append(UnitVector(x: point.x, y: lo.y - gap, z: point.z))
            default: queries.append(UnitVector(x: point.x, y: point.y, z: hi.z + gap))
            }
            for q in queries {
                let bounds = node.squaredChordBounds(from: KDTree.Node.Query(q))
                #expect(bounds[1] == .infinity && bounds[2] == .infinity && bounds[3] == .infinity, "unused lanes must never rank")
                let nearest = points.map { $0.squaredChord(to: q) }.min()!
                #expect(Double(bounds[0]) <= nearest, "bound \(bounds[0]) above \(nearest); \(TestSeed.replay(seed))")
                checked += 1
            }
        }
        #expect(checked == 9_000)
    }

    /// The four-lane edge bounds are the scalar `lowerBound` of each lane, bit for bit (whose
    /// safety the search's exactness tests cover), for squared chords from 0 and 2⁻⁸⁸ (the smallest
    /// a box bound can be) to 16 and beyond (+∞: unused lanes, whose bound must stay +∞), every
    /// exponent, random mantissas, with radii from 0 to +∞; and the ordering guesses are within
    /// 3.5 % of the square root (0 and +∞: tiny and finite), and in the order of the squared chords.
    @Test func edgeBoundsAreTheScalarBoundsAndGuessesAreClose() {
        var rng = SplitMix64(seed: TestSeed.value(salt: 1_601))
        var samples: [Float] = [0, 0x1p-88, 1, 4, 16, 16.5, 1e30, .greatestFiniteMagnitude, .infinity]
        for exponent in -88...5 {
            for _ in 0..<200 {
                samples.append(Float(sign: .plus, exponent: exponent, significand: Float(rng.nextDouble(in: 1..<2))))
            }
        }
        let radii: [Float] = [0, 20, 5_000, 2e12, .infinity]
        let metric = EdgeMetric()
        for start in stride(from: 0, to: samples.count, by: 4) {
            let lanes = (0..<4).map { start + $0 < samples.count ? samples[start + $0] : .infinity }
            let maxRadii = (0..<4).map { _ in radii[Int(rng.next() % UInt64(radii.count))] }
            let squared = SIMD4(lanes[0], lanes[1], lanes[2], lanes[3])
            let (low, high, _) = metric.lowerBounds(
                squaredChords: squared, maxRadii: SIMD4(maxRadii[0], maxRadii[1], maxRadii[2], maxRadii[3]))
            let bounds = [low.x, low.y, high.x, high.y]
            let guesses = EdgeMetric.chordGuesses(squared)
            for lane in 0..<4 {
                let scalar = metric.lowerBound(squaredChord: Double(lanes[lane]), maxRadius: Double(maxRadii[lane]))
                #expect(
                    bounds[lane].bitPattern == scalar.bitPattern, "\(lanes[lane]), radius \(maxRadii[lane]): \(bounds[lane]) vs \(scalar)")
                let squared = lanes[lane], guess = Double(guesses[lane])
                if squared == 0 {
                    #expect(guess >= 0 && guess < 1e-19, "0: guess \(guess)")
                } else if squared == .infinity {
                    #expect(guess.isFinite && guess > 1e19, "+∞: guess \(guess)")
                } else {
                    let root = Double(squared).squareRoot()
                    #expect(abs(guess - root) <= 0.035 * root, "\(squared): guess \(guess) vs \(root)")
                }
            }
        }
        // Monotone: a larger squared chord never gets a smaller guess.
        let sorted = samples.sorted()
        for start in stride(from: 0, to: sorted.count - 4, by: 3) {
            let guesses = EdgeMetric.chordGuesses(SIMD4(sorted[start], sorted[start + 1], sorted[start + 2], sorted[start + 3]))
            for lane in 0..<3 {
                #expect(guesses[lane] <= guesses[lane + 1], "\(sorted[start + lane]) and \(sorted[start + lane + 1])")
            }
        }
    }
}
