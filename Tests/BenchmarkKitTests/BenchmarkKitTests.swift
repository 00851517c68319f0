import BenchmarkKit
import RotateFormats
import Foundation
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

@Suite struct TextFormatTests {
    @Test(arguments: [
        (2760.456, 1, "2760.5"), (0.0, 2, "0.00"), (-1.25, 1, "-1.3"), (1e-9, 3, "0.000"),
        (-0.0004, 3, "0.000"), (12.0, 0, "12"), (Double.nan, 1, "nan"), (-Double.infinity, 1, "-inf"),
    ])
    func fixedDecimals(value: Double, decimals: Int, expected: String) {
        #expect(TextFormat.fixed(value, decimals: decimals) == expected)
    }

    @Test(arguments: [(0, "0"), (999, "999"), (1000, "1,000"), (1234567, "1,234,567"), (-1234, "-1,234")])
    func groupedIntegers(value: Int, expected: String) {
        #expect(TextFormat.grouped(value) == expected)
    }

    @Test func jsonObjectIsValidJSONWithEscapes() throws {
        var object = JSONObject()
        object.add("text", "quote \" backslash \\ newline \n tab \t bell \u{7} é")
        object.add("n", 3)
        object.add("x", 1.5)
        object.add("missing", Double.nan)
        object.add("none", Double?.none)
        object.add("flag", true)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(object.text.utf8)) as? [String: Any])
        #expect(parsed["text"] as? String == "quote \" backslash \\ newline \n tab \t bell \u{7} é")
        #expect(parsed["n"] as? Int == 3)
        #expect(parsed["x"] as? Double == 1.5)
        #expect(parsed["missing"] is NSNull)
        #expect(parsed["none"] is NSNull)
        #expect(parsed["flag"] as? Bool == true)
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
}
