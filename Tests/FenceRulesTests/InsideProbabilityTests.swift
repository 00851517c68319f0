import FenceRules
import Foundation
import RotateTestSupport
import Testing

@Suite struct InsideProbabilityTests {
    func p(_ d: Double, _ r: Double, _ s: Double) -> Double { InsideProbability.value(distanceMeters: d, radiusMeters: r, sigmaMeters: s) }

    /// The table published in “Region Monitoring and Geofencing” (R = 100 m, σ = 20 m), to four
    /// decimals.
    @Test(arguments: [(0.0, 1.0000), (50, 0.9909), (80, 0.8126), (100, 0.4599), (120, 0.1375), (150, 0.0049)])
    func articleTable(distance: Double, expected: Double) {
        #expect(abs(p(distance, 100, 20) - expected) < 0.00005, "\(p(distance, 100, 20))")
    }

    @Test func theNaiveBesselOverflowCaseIsZero() {
        let value = p(674, 100, 5)
        #expect(value == 0)
        #expect(!value.isNaN)
    }

    @Test func matchesTheMpmathReferenceTo1e9() {
        for (d, r, s, expected) in riceReference {
            let value = p(d, r, s)
            #expect(!value.isNaN)
            #expect(abs(value - expected) <= 1e-9, "d \(d) R \(r) σ \(s): \(value) vs \(expected)")
        }
    }

    /// A brute-force reference: Simpson's rule on a fine grid, with I0e from its own power series
    /// (in long double style: summed in Double, positive terms) or asymptotic series.
    static func bruteForce(_ d: Double, _ r: Double, _ s: Double) -> Double {
        let a = d / s, b = r / s
        let lo = max(0, a - 12), hi = min(b, a + 12)
        guard hi > lo else { return 0 }
        func i0e(_ x: Double) -> Double {
            if x < 30 {
                var term = 1.0, sum = 1.0, k = 1.0
                while term > 1e-18 * sum { term *= (x * x / 4) / (k * k); sum += term; k += 1 }
                return sum * exp(-x)
            }
            var term = 1.0, sum = 1.0, k = 1.0
            while k < 60 { let f = (2 * k - 1) * (2 * k - 1) / (8 * k * x); if f >= 1 { break }; term *= f; sum += term; k += 1 }
            return sum / (2 * Double.pi * x).squareRoot()
        }
        let n = 4_000
        let h = (hi - lo) / Double(n)
        var sum = 0.0
        for i in 0...n {
            let rho = lo + Double(i) * h
            let f = rho * exp(-(rho - a) * (rho - a) / 2) * i0e(a * rho)
            sum += f * (i == 0 || i == n ? 1 : (i % 2 == 1 ? 4 : 2))
        }
        return sum * h / 3
    }

    @Test func matchesBruteForceIntegrationOnRandomInputs() {
        let seed = TestSeed.value(salt: 1_000)
        var rng = SplitMixForSeeds(state: seed)
        for _ in 0..<300 {
            let s = exp(rng.uniform(log(0.5), log(200)))
            let r = exp(rng.uniform(log(1), log(5_000)))
            let d = rng.unit() < 0.5 ? rng.uniform(0, 10_000) : max(0, r + s * rng.uniform(-6, 6))
            let expected = Self.bruteForce(d, r, s)
            #expect(abs(p(d, r, s) - expected) <= 1e-9, "d \(d) R \(r) σ \(s); \(TestSeed.replay(seed))")
        }
    }

    @Test func atTheCenterItIsTheRayleighClosedForm() {
        for (r, s) in [(100.0, 20.0), (1.0, 200.0), (5_000, 0.5), (30, 30)] {
            #expect(abs(p(0, r, s) - (1 - exp(-r * r / (2 * s * s)))) < 1e-15)
        }
    }

    @Test func monotoneInDistanceAndRadius() {
        for s in [0.5, 8.0, 50.0, 200.0] {
            var previous = 2.0
            for step in 0...400 {
                let value = p(Double(step) * 5, 300, s)
                #expect(value <= previous + 1e-12, "σ \(s) d \(Double(step) * 5)")
                previous = value
            }
            previous = -1
            for step in 0...400 {
                let value = p(250, Double(step) * 5, s)
                #expect(value >= previous - 1e-12, "σ \(s) R \(Double(step) * 5)")
                previous = value
            }
        }
    }

    @Test func limits() {
        #expect(p(10_000, 100, 5) == 0)
        #expect(p(0, 5_000, 0.5) == 1)
        #expect(p(99, 100, 0) == 1 && p(101, 100, 0) == 0 && p(100, 100, 0) == 1)
        #expect(p(50, 0, 10) == 0)
        // Far from the edge relative to σ, the answer saturates symmetrically.
        #expect(abs(p(100 - 10 * 8, 100, 8) - 1) < 1e-9 && p(100 + 10 * 8, 100, 8) < 1e-9)
        #expect(p(.nan, 1, 1).isNaN && p(1, -1, 1).isNaN && p(1, 1, .infinity).isNaN)
    }
}
