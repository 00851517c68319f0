import Foundation
import Geodesy
import Testing

@testable import FenceRules

/// P(inside a polygon) against independent references: Owen's T against Simpson's rule on its
/// defining integral, the edge sum against the circle's Rice probability for a regular polygon of
/// the same area, and against Monte Carlo on an L-shaped footprint with a hole, around its corners
/// and inside the hole; the fast path against the edge sum.
struct PolygonInsideProbabilityTests {
    /// T(h, a) by Simpson's rule on 20,000 intervals of [0, a].
    static func simpsonT(h: Double, a: Double) -> Double {
        let n = 20_000
        let step = a / Double(n)
        func f(_ x: Double) -> Double { exp(-0.5 * h * h * (1 + x * x)) / (1 + x * x) }
        var sum = f(0) + f(a)
        for i in 1..<n { sum += (i % 2 == 1 ? 4 : 2) * f(Double(i) * step) }
        return sum * step / 3 / (2 * .pi)
    }

    @Test func owensTMatchesItsIntegral() {
        var rng = SplitMix64(seed: 1)
        for _ in 0..<300 {
            let h = rng.nextDouble(in: 0..<9)
            let a = rng.nextDouble(in: -12..<12)
            let expected = Self.simpsonT(h: h, a: a)
            #expect(abs(PolygonInsideProbability.owensT(h: h, a: a) - expected) < 1e-12, "T(\(h), \(a))")
            #expect(PolygonInsideProbability.owensT(h: -h, a: a) == PolygonInsideProbability.owensT(h: h, a: a))
        }
        // Closed forms: T(0, a) = atan(a) / 2π, T(h, 1) = Φ(h) (1 − Φ(h)) / 2.
        for a in [0.1, 1, 3, 50] { #expect(abs(PolygonInsideProbability.owensT(h: 0, a: a) - atan(a) / (2 * .pi)) < 1e-14) }
        for h in [0.0, 0.5, 2, 6] {
            let phi = PolygonInsideProbability.normalCDF(h)
            #expect(abs(PolygonInsideProbability.owensT(h: h, a: 1) - phi * (1 - phi) / 2) < 1e-14)
        }
    }

    static let origin = try! Coordinate(latitude: 52.37, longitude: 4.9)

    /// The point `east`, `north` meters from the origin.
    static func at(_ east: Double, _ north: Double) -> Coordinate {
        origin.destination(bearingDegrees: atan2(east, north) * 180 / .pi, distanceMeters: (east * east + north * north).squareRoot())
    }

    /// A regular polygon of 1,024 sides with the area of a circle of radius R is that circle
    /// within about R · 3 · 10⁻⁶: P(inside) within 1e-9 of the Rice probability, near and far.
    @Test func aRegularPolygonOfTheCirclesAreaIsTheCircle() throws {
        let n = 1_024
        let radius = 40.0
        // Same area: R_polygon² · n · sin(2π/n) / 2 = π R².
        let circumradius = radius * (2 * .pi / (Double(n) * sin(2 * .pi / Double(n)))).squareRoot()
        let ring = (0...n).map { i in
            Self.origin.destination(bearingDegrees: -Double(i % n) * 360 / Double(n), distanceMeters: circumradius)
        }
        let shape = SphericalMultiPolygon(try SphericalPolygon(shell: ring))
        for (distance, sigma) in [(0.0, 10.0), (20, 5), (39, 3), (45, 20), (100, 30), (60, 50), (10, 65)] {
            let fix = UnitVector(Self.origin.destination(bearingDegrees: 33, distanceMeters: distance))
            let expected = InsideProbability.value(distanceMeters: distance, radiusMeters: radius, sigmaMeters: sigma)
            let got = PolygonInsideProbability.exact(shape, fix: fix, sigmaMeters: sigma)
            #expect(abs(got - expected) < 1e-9, "d \(distance) σ \(sigma): \(got) vs \(expected)")
        }
    }

    /// An L-shaped footprint (60 × 60 m less a 30 × 30 m corner) with a 10 × 10 m courtyard:
    /// P(inside) at fixes in the courtyard, at the inner corner and outside, against the share of
    /// 100,000 Gaussian draws around each fix that `contains` puts inside (within 5 standard
    /// errors).
    @Test func anLShapeWithAHoleMatchesMonteCarlo() throws {
        let shell = [Self.at(0, 0), Self.at(60, 0), Self.at(60, 30), Self.at(30, 30), Self.at(30, 60), Self.at(0, 60), Self.at(0, 0)]
        let hole = [Self.at(10, 10), Self.at(10, 20), Self.at(20, 20), Self.at(20, 10), Self.at(10, 10)]
        let shape = SphericalMultiPolygon(try SphericalPolygon(shell: shell, holes: [hole]))
        var rng = SplitMix64(seed: 9)
        let draws = 100_000
        for (east, north, sigma) in [(15.0, 15.0, 3.0), (15, 15, 10), (31, 31, 8), (70, 10, 12), (45, 15, 30), (-5, 30, 5)] {
            let fix = Self.at(east, north)
            var inside = 0
            for _ in 0..<draws {
                // Box–Muller: two independent normal errors, east and north.
                let u = max(rng.nextUnit(), 1e-300)
                let v = rng.nextUnit()
                let r = sigma * (-2 * log(u)).squareRoot()
                let point = Self.at(east + r * cos(2 * .pi * v), north + r * sin(2 * .pi * v))
                if shape.contains(UnitVector(point)) { inside += 1 }
            }
            let share = Double(inside) / Double(draws)
            let standardError = max((share * (1 - share) / Double(draws)).squareRoot(), 1 / Double(draws))
            let got = PolygonInsideProbability.exact(shape, fix: UnitVector(fix), sigmaMeters: sigma)
            #expect(abs(got - share) <= 5 * standardError, "(\(east), \(north)) σ \(sigma): \(got) vs \(share)")
            #expect(abs(PolygonInsideProbability.value(shape, fix: UnitVector(fix), sigmaMeters: sigma) - got) < 1e-9)
        }
        // In the courtyard the nearest edge is the hole's: its half-plane alone would be far off.
        let courtyard = UnitVector(Self.at(15, 15))
        let halfPlane = PolygonInsideProbability.normalCDF(-5.0 / 3)
        #expect(abs(PolygonInsideProbability.value(shape, fix: courtyard, sigmaMeters: 3) - halfPlane) > 0.02)
    }

    /// A 60 × 60 m square with two holes touching at one vertex, one of them touching the shell
    /// too (valid, as OpenStreetMap draws such courtyards): P(inside) around the shared vertices,
    /// where the fix sees the rings meet, against the share of 100,000 Gaussian draws that
    /// `contains` puts inside (within 5 standard errors).
    @Test func holesTouchingAtAVertexMatchMonteCarlo() throws {
        let shell = [Self.at(0, 0), Self.at(60, 0), Self.at(60, 60), Self.at(0, 60), Self.at(0, 0)]
        // A triangle touching the shell at (60, 30); a square touching it at (40, 30).
        let touchingShell = [Self.at(40, 30), Self.at(60, 30), Self.at(50, 40), Self.at(40, 30)]
        let touchingHole = [Self.at(20, 20), Self.at(20, 40), Self.at(40, 30), Self.at(20, 20)]
        let shape = SphericalMultiPolygon(try SphericalPolygon(shell: shell, holes: [touchingShell, touchingHole]))
        var rng = SplitMix64(seed: 10)
        let draws = 100_000
        for (east, north, sigma) in [(60.0, 30.0, 4.0), (58, 31, 6), (40, 30, 3), (41, 29, 8), (30, 30, 10), (62, 30, 5)] {
            var inside = 0
            for _ in 0..<draws {
                let u = max(rng.nextUnit(), 1e-300)
                let v = rng.nextUnit()
                let r = sigma * (-2 * log(u)).squareRoot()
                if shape.contains(UnitVector(Self.at(east + r * cos(2 * .pi * v), north + r * sin(2 * .pi * v)))) { inside += 1 }
            }
            let share = Double(inside) / Double(draws)
            let standardError = max((share * (1 - share) / Double(draws)).squareRoot(), 1 / Double(draws))
            let fix = UnitVector(Self.at(east, north))
            let got = PolygonInsideProbability.exact(shape, fix: fix, sigmaMeters: sigma)
            #expect(abs(got - share) <= 5 * standardError, "(\(east), \(north)) σ \(sigma): \(got) vs \(share)")
            #expect(abs(PolygonInsideProbability.value(shape, fix: fix, sigmaMeters: sigma) - got) < 1e-9)
        }
    }

    /// A footprint whose far vertices lie behind the fix's hemisphere (a ring at 5° N around the
    /// pole, 85° from its center): its far edges hold their wedge's share, and a fix near its edge
    /// gets the half-plane's probability; outside, far from it, 0.
    @Test func aShapeReachingBehindTheFixIsMeasuredWhole() throws {
        let ring = (0...16).map { i in try! Coordinate(latitude: 5, longitude: Double(i % 16) * 22.5 - 180) }
        let shape = SphericalMultiPolygon(try SphericalPolygon(shell: ring))
        let sigma = 10.0
        for meters in [-30.0, -10, 0, 10, 30] {
            // Across the edge between the vertices at 0° and 22.5°, at its middle.
            let middle = (UnitVector(ring[8]) + UnitVector(ring[9])).normalized
            let fix = UnitVector(Coordinate(middle).destination(bearingDegrees: 11.25 + 180, distanceMeters: meters))
            let s = shape.signedDistanceMeters(to: fix)
            let halfPlane = PolygonInsideProbability.normalCDF(-s / sigma)
            #expect(abs(PolygonInsideProbability.exact(shape, fix: fix, sigmaMeters: sigma) - halfPlane) < 1e-6, "\(meters) m: s \(s)")
        }
        let far = UnitVector(try Coordinate(latitude: -40, longitude: 0))
        #expect(PolygonInsideProbability.exact(shape, fix: far, sigmaMeters: sigma) < 1e-12)
    }

    /// Far from corners the fast path's half-plane is the edge sum to 1e-9 (the sum's plane is
    /// gnomonic, which puts a line θ away at tan θ: 8 · 10⁻¹¹ relative at 100 m); far from the
    /// whole footprint it is 0, deep inside 1.
    @Test func theFastPathIsTheEdgeSumWhereItApplies() throws {
        let side = 400.0
        let square = [Self.at(0, 0), Self.at(side, 0), Self.at(side, side), Self.at(0, side), Self.at(0, 0)]
        let shape = SphericalMultiPolygon(try SphericalPolygon(shell: square))
        var rng = SplitMix64(seed: 4)
        for _ in 0..<200 {
            let sigma = rng.nextDouble(in: 1..<15)
            let fix = UnitVector(Self.at(rng.nextDouble(in: -100..<500), rng.nextDouble(in: -100..<500)))
            let fast = PolygonInsideProbability.value(shape, fix: fix, sigmaMeters: sigma)
            let exact = PolygonInsideProbability.exact(shape, fix: fix, sigmaMeters: sigma)
            #expect(abs(fast - exact) < 1e-9, "\(fast) vs \(exact)")
        }
        #expect(PolygonInsideProbability.value(shape, fix: UnitVector(Self.at(200, 200)), sigmaMeters: 5) == 1)
        #expect(PolygonInsideProbability.value(shape, fix: UnitVector(Self.at(900, 200)), sigmaMeters: 5) == 0)
    }
}
