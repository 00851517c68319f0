import BenchmarkKit
var c = ReselectionBenchmark.Configuration()
c.count = Int(CommandLine.arguments.dropFirst().first ?? "1000000")!
c.queries = 100_000; if CommandLine.arguments.count > 2 { c.target = .center }
let r = ReselectionBenchmark(configuration: c).run(progress: { print($0) })
print(r.buildMilliseconds.median, r.nanosecondsPerQuery, r.baselineNanosecondsPerQuery.median, r.speedup, r.bytesPerPlace, r.mismatches)
