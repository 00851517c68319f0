import RotateFormats
import RotateJSON
import SpatialIndex

extension ReselectionBenchmark.Report {
    /// The `--json` object of `rotate bench` (keys: `n`, `k`, `queries`, `build_ms`,
    /// `ns_per_query`, `baseline_ns_per_query`, `speedup`, and the extra figures behind them).
    public func json(seed: UInt64, radiusMeters: Double?, source: String) -> String {
        var object = JSONObject()
        object.add("n", placeCount)
        object.add("k", k)
        object.add("by", target == .edge ? "edge" : "center")
        object.add("queries", queries)
        object.add("repetitions", repetitions)
        object.add("build_ms", buildMilliseconds.median)
        object.add("build_ms_min", buildMilliseconds.min)
        object.add("build_ms_max", buildMilliseconds.max)
        object.add("ns_per_query", nanosecondsPerQuery.median, decimals: 1)
        object.add("ns_per_query_min", nanosecondsPerQuery.min, decimals: 1)
        object.add("ns_per_query_max", nanosecondsPerQuery.max, decimals: 1)
        object.add("queries_per_second", queriesPerSecond, decimals: 0)
        object.add("baseline_queries", baselineQueries)
        object.add("baseline_ns_per_query", baselineNanosecondsPerQuery.median, decimals: 1)
        object.add("baseline_ns_per_query_min", baselineNanosecondsPerQuery.min, decimals: 1)
        object.add("baseline_ns_per_query_max", baselineNanosecondsPerQuery.max, decimals: 1)
        object.add("speedup", speedup, decimals: 1)
        object.add("memory_bytes", memoryBytes)
        object.add("bytes_per_place", bytesPerPlace, decimals: 2)
        object.add("nodes_per_query", nodesPerQuery, decimals: 1)
        object.add("points_per_query", pointsPerQuery, decimals: 1)
        object.add("keys_per_query", keysPerQuery, decimals: 1)
        object.add("mismatches", mismatches)
        object.add("checksum", checksum)
        object.add("seed", seed)
        object.add("radius_m", radiusMeters, decimals: 1)
        object.add("places", source)
        return object.text
    }

    /// The human-readable report of `rotate bench`, one line per figure.
    public func lines(describing source: String) -> [String] {
        let by = target == .edge ? "by fence edge" : "by center"
        var lines = [
            "rotate bench: \(TextFormat.grouped(placeCount)) \(source), k = \(k) nearest \(by), "
                + "\(TextFormat.grouped(queries)) queries x \(repetitions) repetitions",
            "index build    \(TextFormat.fixed(buildMilliseconds.median, decimals: 1)) ms median of "
                + "\(buildMilliseconds.samples.count) (min \(TextFormat.fixed(buildMilliseconds.min, decimals: 1)), "
                + "max \(TextFormat.fixed(buildMilliseconds.max, decimals: 1)))",
            "index memory   \(TextFormat.fixed(Double(memoryBytes) / 1_048_576, decimals: 1)) MiB, "
                + "\(TextFormat.fixed(bytesPerPlace, decimals: 1)) bytes per place",
            "k-d tree       \(TextFormat.grouped(nanosecondsPerQuery.median)) ns/query median "
                + "(min \(TextFormat.grouped(nanosecondsPerQuery.min)), max \(TextFormat.grouped(nanosecondsPerQuery.max))), "
                + "\(TextFormat.grouped(queriesPerSecond)) queries/s",
            "brute force    \(TextFormat.grouped(baselineNanosecondsPerQuery.median)) ns/query median "
                + "(min \(TextFormat.grouped(baselineNanosecondsPerQuery.min)), max \(TextFormat.grouped(baselineNanosecondsPerQuery.max))), "
                + "\(TextFormat.fixed(baselineQueriesPerSecond, decimals: 1)) queries/s",
        ]
        if baselineQueries < queries {
            lines.append(
                "               (brute force ran \(TextFormat.grouped(baselineQueries)) queries per repetition, "
                    + "fewer than the tree's \(TextFormat.grouped(queries)), to keep it short at this N)")
        }
        lines.append(
            "pruning        \(TextFormat.fixed(nodesPerQuery, decimals: 1)) nodes visited and "
                + "\(TextFormat.fixed(pointsPerQuery, decimals: 1)) distances evaluated (\(TextFormat.fixed(keysPerQuery, decimals: 1)) ranked) per query "
                + "(mean of the first \(TextFormat.grouped(countedQueries)) queries)")
        lines.append("speedup        \(TextFormat.fixed(speedup, decimals: 1))x (brute-force median / k-d tree median, same run)")
        lines.append(
            mismatches == 0
                ? "check          k-d tree == brute force on all \(baselineQueries) baseline queries (checksum \(checksum))"
                : "check          FAILED: k-d tree differs from brute force on \(mismatches) of \(baselineQueries) queries")
        return lines
    }
}
