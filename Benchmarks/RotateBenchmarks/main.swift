// RotateBenchmarks: the named benchmark suite of rotate (`swift run -c release RotateBenchmarks`).
// Each entry is `area.op/size`, builds its input from a seed (set-up untimed), times with the shared
// BenchmarkKit stopwatch, verifies its answers against brute force and prints a checksum.
import BenchmarkKit
import Foundation
import RotateFormats
import SpatialIndex

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
import RotateJSON
#endif

struct Entry {
    var name: String
    var configuration: ReselectionBenchmark.Configuration
}

func entry(_ name: String, count: Int, target: DistanceTarget, radius: Double?) -> Entry {
    var configuration = ReselectionBenchmark.Configuration()
    configuration.count = count
    configuration.target = target
    configuration.radiusMeters = radius
    return Entry(name: name, configuration: configuration)
}

let entries: [Entry] = [
    entry("index.nearestEdge/10k", count: 10_000, target: .edge, radius: 100),
    entry("index.nearestEdge/100k", count: 100_000, target: .edge, radius: 100),
    entry("index.nearestEdge/1M", count: 1_000_000, target: .edge, radius: 100),
    entry("index.nearestCenter/1M", count: 1_000_000, target: .center, radius: 100),
    entry("index.nearestEdgeMixedRadii/100k", count: 100_000, target: .edge, radius: nil),
]

let usage = """
    USAGE: RotateBenchmarks [--filter TEXT] [--json] [--list] [--scaling FILE] [--read-places FILE]

    Runs the named benchmarks (k = 18 nearest, 100,000 queries near places, 5 repetitions, seed 1)
    and prints, per entry: build time, ns per query (median, min, max), the brute-force baseline of
    the same run and the ratio, and a checksum. Exits 1 if any entry disagrees with brute force.

    OPTIONS:
      --filter TEXT  Run only entries whose name contains TEXT.
      --json         One JSON object per entry (rotate bench's keys plus "name").
      --list         List the entry names and exit.
      --scaling FILE Measure N = 1,000 ... 10,000,000 and write an SVG chart to FILE.
      --read-places FILE
                     Time reading this places CSV (median of 5 reads after a warm-up) and exit
                     (Benchmarks/compare.sh puts it beside pandas' read_csv of the same file).
    (Also formats.readPlacesCSV/cities1000 and /1M: reading a places CSV, and formats.readGPX/1M:
    reading a 1,000,000-point GPX track, in MB/s; run from the package root, the generated files
    are written to /tmp.)
      -h, --help     Show this help.
    """

var filter: String?
var json = false
var scalingSVG: String?
var readPlaces: String?
var arguments = Array(CommandLine.arguments.dropFirst())
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    switch argument {
    case "-h", "--help":
        print(usage)
        exit(0)
    case "--json":
        json = true
    case "--list":
        entries.forEach { print($0.name) }
        exit(0)
    case "--scaling":
        guard !arguments.isEmpty else {
            StandardStreams.write("RotateBenchmarks: error: --scaling needs a file\n", to: 2)
            exit(2)
        }
        scalingSVG = arguments.removeFirst()
    case "--read-places":
        guard !arguments.isEmpty else {
            StandardStreams.write("RotateBenchmarks: error: --read-places needs a file\n", to: 2)
            exit(2)
        }
        readPlaces = arguments.removeFirst()
    case "--filter":
        guard !arguments.isEmpty else {
            StandardStreams.write("RotateBenchmarks: error: --filter needs a value\n", to: 2)
            exit(2)
        }
        filter = arguments.removeFirst()
    default:
        StandardStreams.write("RotateBenchmarks: error: unknown argument '\(argument)'\n\(usage)\n", to: 2)
        exit(2)
    }
}

var failed = false
if let path = scalingSVG {
    // ns per query (k = 18 by edge, 100 m fences, 100,000 queries, median of 3) and build time
    // for N from 1,000 to 10,000,000 clustered places; writes an SVG chart and prints a table.
    var rows: [(n: Int, ns: Double, build: Double, bytes: Double)] = []
    for n in [1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000, 3_000_000, 10_000_000] {
        var configuration = ReselectionBenchmark.Configuration()
        configuration.count = n
        configuration.repetitions = 3
        configuration.baselineQueries = 3
        let report = ReselectionBenchmark(configuration: configuration).run()
        failed = failed || report.mismatches > 0
        rows.append((n, report.nanosecondsPerQuery.median, report.buildMilliseconds.median, report.bytesPerPlace))
        print(
            "N \(TextFormat.grouped(n)): \(TextFormat.grouped(report.nanosecondsPerQuery.median)) ns/query, build \(TextFormat.fixed(report.buildMilliseconds.median, decimals: 1)) ms, \(TextFormat.fixed(report.bytesPerPlace, decimals: 1)) bytes/place"
        )
    }
    let charts = [
        SVGChart.chart(
            title: "k = 18 nearest by fence edge: ns per query", xLabel: "places (clustered, 100 m fences)", yLabel: "ns per query",
            series: [.init(name: "rotate k-d tree", color: "#1f5fbf", points: rows.map { (Double($0.n), $0.ns) })], logX: true, logY: false),
        SVGChart.chart(
            title: "index build time", xLabel: "places", yLabel: "ms",
            series: [.init(name: "rotate build", color: "#c77700", points: rows.map { (Double($0.n), $0.build) })], logX: true, logY: true,
            originY: 360),
    ]
    do {
        try SVGChart.document(charts).write(toFile: path, atomically: true, encoding: .utf8)
    } catch {
        StandardStreams.write("RotateBenchmarks: cannot write \(path): \(error)\n", to: 2)
        exit(1)
    }
    exit(failed ? 1 : 0)
}
// Reading places CSV files: the bundled GeoNames file and a generated 1,000,000-row file (or the
// one file given with --read-places).
// Reading GPX: a generated 1,000,000-point track.
let readEntries: [(name: String, path: () throws -> String, run: (String) throws -> FileReadReport)] =
    readPlaces.map { path in [("formats.readPlacesCSV/file", { path }, { try FileReadBenchmark.readPlaces(path: $0) })] } ?? [
        ("formats.readPlacesCSV/cities1000", { "Datasets/cities1000.csv" }, { try FileReadBenchmark.readPlaces(path: $0) }),
        (
            "formats.readPlacesCSV/1M",
            {
                let path = "/tmp/rotate-bench-places-1M.csv"
                try FileReadBenchmark.writePlacesFile(path: path, count: 1_000_000)
                return path
            },
            { try FileReadBenchmark.readPlaces(path: $0) }
        ),
        (
            "formats.readGPX/1M",
            {
                let path = "/tmp/rotate-bench-track-1M.gpx"
                try FileReadBenchmark.writeGPXFile(path: path, count: 1_000_000)
                return path
            },
            { try FileReadBenchmark.readGPX(path: $0) }
        ),
    ]
for entry in readEntries where filter == nil || entry.name.contains(filter!) {
    do {
        let report = try entry.run(try entry.path())
        if json {
            var object = JSONObject()
            object.add("name", entry.name)
            object.add("rows", report.rows)
            object.add("bytes", report.bytes)
            object.add("ms", report.milliseconds.median)
            object.add("ms_min", report.milliseconds.min)
            object.add("ms_max", report.milliseconds.max)
            object.add("mb_per_s", report.megabytesPerSecond, decimals: 1)
            print(object.text)
        } else {
            print(
                "\(entry.name): \(TextFormat.grouped(report.rows)) rows, \(TextFormat.fixed(Double(report.bytes) / 1e6, decimals: 1)) MB in "
                    + "\(TextFormat.fixed(report.milliseconds.median, decimals: 1)) ms median (min \(TextFormat.fixed(report.milliseconds.min, decimals: 1)), "
                    + "max \(TextFormat.fixed(report.milliseconds.max, decimals: 1))): \(TextFormat.fixed(report.megabytesPerSecond, decimals: 1)) MB/s"
            )
        }
    } catch {
        StandardStreams.write("RotateBenchmarks: \(entry.name): \(error)\n", to: 2)
        failed = true
    }
}
if readPlaces != nil { exit(failed ? 1 : 0) }
let selected = entries.filter { filter == nil || $0.name.contains(filter!) }
if !json && !selected.isEmpty {
    print("name                               build ms   ns/query (min, max)        brute ns/query   ratio     checksum")
}
for entry in selected {
    let report = ReselectionBenchmark(configuration: entry.configuration).run()
    failed = failed || report.mismatches > 0
    if json {
        let object = report.json(
            seed: entry.configuration.seed, radiusMeters: entry.configuration.radiusMeters, source: "synthetic-clustered")
        print("{\"name\":\(JSONObject.quoted(entry.name))," + object.dropFirst())
    } else {
        func pad(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(1, width - text.count)) }
        let time =
            "\(TextFormat.grouped(report.nanosecondsPerQuery.median)) (\(TextFormat.grouped(report.nanosecondsPerQuery.min)), \(TextFormat.grouped(report.nanosecondsPerQuery.max)))"
        print(
            pad(entry.name, 35) + pad(TextFormat.fixed(report.buildMilliseconds.median, decimals: 1), 11) + pad(time, 27)
                + pad(TextFormat.grouped(report.baselineNanosecondsPerQuery.median), 17)
                + pad(TextFormat.fixed(report.speedup, decimals: 0) + "x", 10)
                + "\(report.checksum)" + (report.mismatches > 0 ? "  MISMATCH (\(report.mismatches))" : ""))
    }
}
exit(failed ? 1 : 0)
