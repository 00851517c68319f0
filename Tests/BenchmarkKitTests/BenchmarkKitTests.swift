import BenchmarkKit
import Foundation
import RotateFormats
import Testing

@Suite struct MeasurementTests {
    @Test(arguments: [([5.0], 5.0), ([3, 1, 2], 2), ([4, 1, 3, 2], 2.5), ([9, 9, 1, 1, 5], 5)] as [([Double], Double)])
    func medianOfOddAndEvenCounts(samples: [Double], median: Double) {
        let m = Measurement(samples: samples)
        #expect(m.median == median)
        #expect(m.min == samples.min())
        #expect(m.max == samples.max())
    }

    @Test func stopwatchMeasuresPerOperationTime() {
        var calls = 0
        let m = Stopwatch.measure(repetitions: 3, operations: 10) { calls += 1 }
        #expect(calls == 4, "one warm-up plus three timed runs")
        #expect(m.samples.count == 3)
        #expect(m.samples.allSatisfy { $0 >= 0 })
    }
}

@Suite struct ReselectionBenchmarkTests {
    @Test func baselineQueriesShrinkWithN() {
        var configuration = ReselectionBenchmark.Configuration()
        configuration.queries = 100_000
        #expect(configuration.effectiveBaselineQueries(placeCount: 1_000_000) == 10)
        #expect(configuration.effectiveBaselineQueries(placeCount: 10_000) == 1_000)
        #expect(configuration.effectiveBaselineQueries(placeCount: 10) == 100_000)
        configuration.baselineQueries = 7
        #expect(configuration.effectiveBaselineQueries(placeCount: 1_000_000) == 7)
    }

    @Test func smallRunAgreesWithBruteForceAndIsSeeded() {
        var configuration = ReselectionBenchmark.Configuration()
        configuration.count = 2_000
        configuration.queries = 200
        configuration.repetitions = 1
        configuration.radiusMeters = nil
        let a = ReselectionBenchmark(configuration: configuration).run()
        let b = ReselectionBenchmark(configuration: configuration).run()
        #expect(a.mismatches == 0)
        #expect(a.baselineQueries == 200)
        #expect(a.checksum == b.checksum)
        #expect(a.placeCount == 2_000)
        #expect(a.bytesPerPlace > 30 && a.bytesPerPlace <= 48)
        // The pruning figures: every query evaluates at least its k distances and, with the
        // pruning working, a small part of the 2,000; it visits at least the root and a leaf.
        #expect(a.countedQueries == 200)
        #expect(a.pointsPerQuery >= Double(configuration.k) && a.pointsPerQuery < 500)
        #expect(a.nodesPerQuery >= 2 && a.nodesPerQuery < 100)
        #expect(a.nodesPerQuery == b.nodesPerQuery && a.pointsPerQuery == b.pointsPerQuery)
    }

    /// The engine benchmark's walk enters fences, and the engine makes the planner's registrations.
    @Test func engineBenchmarkMakesThePlannersRegistrations() throws {
        let report = try EngineBenchmark.run(places: 2_000, fixes: 3_000, repetitions: 1, seed: 4)
        #expect(report.sameRegistrations)
        #expect(report.fixes == 3_000)
        #expect(report.entries >= report.exits && report.entries - report.exits <= 3)
    }
}
