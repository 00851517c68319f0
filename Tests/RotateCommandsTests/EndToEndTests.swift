import Foundation
import Geodesy
import RotateFormats
import RotateTestSupport
import Testing

/// The built `rotate` binary on the bundled datasets, as a user runs it.
///
/// A class so that each test's files live in a directory of their own, removed when the test ends.
@Suite final class EndToEndTests {
    static func data(_ name: String) -> String { DatasetPaths.path(name) }
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("rotate-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: directory) }

    func temporary(_ name: String) -> String { directory.appendingPathComponent(name).path }
    func write(_ text: String, _ name: String) throws -> String {
        let path = temporary(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
    func run(_ arguments: [String]) throws -> (code: Int32, out: String, err: String) { try BinaryTests.run(arguments) }

    let shops = EndToEndTests.data("shops-500.csv"), walk = EndToEndTests.data("walk-6km.csv")

    @Test func planWritesTheSpecTraceWithNoMisses() throws {
        let result = try run(["plan", "--places", shops, "--walk", walk, "--format", "ndjson"])
        #expect(result.code == 0, "\(result.err)")
        let trace = try PlanTrace.parse(result.out)
        #expect(trace.config.places == 500 && trace.config.placeSlots == 17 && trace.config.radiusMeters == 100)
        #expect(trace.summary.missed == 0)
        #expect(trace.summary.fixes == 4_287)
        #expect(trace.reselections.count == trace.summary.reselections && trace.summary.reselections >= 3)
        #expect(trace.reselections.first?.fix == 0)
        #expect(result.err.contains("500 rows read, 500 accepted, 0 rejected"))
    }

    /// The bundled walk with 1.5 km of it unrecorded, a gap of 100 minutes between its fixes: the gap is
    /// no step (a 1.4 m margin, no miss, the summary names it); taken as one (`--gap` longer than
    /// it) it needs a 1.5 km margin.
    @Test func planTreatsARecordingGapAsAGap() throws {
        let rows = try String(contentsOfFile: walk, encoding: .utf8).split(separator: "\n")
        var lines = [String(rows[0])]
        for (index, row) in rows.dropFirst().enumerated() where !(1_000..<2_070).contains(index) {
            var fields = row.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            if index >= 2_070 { fields[0] = String(Int(try #require(Double(fields[0]))) + 4_929) }
            lines.append(fields.joined(separator: ","))
        }
        let gapped = try write(lines.joined(separator: "\n") + "\n", "gap.csv")
        let trace = try PlanTrace.parse(try run(["plan", "--places", shops, "--walk", gapped, "--format", "ndjson"]).out)
        #expect(trace.config.marginMeters < 2 && trace.summary.missed == 0)
        let summary = try run(["plan", "--places", shops, "--walk", gapped, "--format", "summary"])
        #expect(summary.out.contains("1 recording gap (longest 100 min)"), "\(summary.out)")
        let asPath = try PlanTrace.parse(try run(["plan", "--places", shops, "--walk", gapped, "--gap", "7000", "--format", "ndjson"]).out)
        #expect(asPath.config.marginMeters > 1_400)
    }

    /// `simulate --trips-out DIR` writes files the project's own readers take without a
    /// rejected row: the places, each trip's fixes and true stops, and rotate's visits (each
    /// naming a place of the set or none, a departure not before its report).
    @Test func tripsOutWritesWhatOutsideDetectorsRead() throws {
        let directory = temporary("trips")
        let result = try run([
            "simulate", "--kind", "errands", "--travel", "walking", "--walks", "3", "--seed", "5", "--platform", "ios", "--strategy",
            "rotate", "--trips-out", directory, "--json", "--quiet",
        ])
        #expect(result.code == 0, "\(result.err)")
        let places = try PlacesCSV.read(path: directory + "/places.csv")
        #expect(places.places.count == 2_000 && places.rejected.isEmpty)
        let ids = Set(places.places.map(\.id))
        var visits = 0
        for trip in ["trip-000", "trip-001", "trip-002"] {
            let walk = try WalkFile.read(path: "\(directory)/\(trip).csv")
            #expect(walk.rejected.isEmpty && walk.fixes.count > 1_000 && walk.fixes.allSatisfy { $0.accuracyMeters != nil })
            let stops = try StopLabelsCSV.read(path: "\(directory)/\(trip)-stops.csv", walk: walk)
            #expect(stops.rejected.isEmpty && !stops.stops.isEmpty)
            let rows = try String(contentsOfFile: "\(directory)/\(trip)-visits.csv", encoding: .utf8).split(separator: "\n").dropFirst()
            for row in rows {
                let fields = row.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                #expect(fields.count == 3)
                let time = try #require(Double(fields[0]))
                if !fields[1].isEmpty { #expect(try #require(Double(fields[1])) >= time) }
                #expect(fields[2].isEmpty || ids.contains(fields[2]))
                visits += 1
            }
        }
        #expect(visits > 0)
        let usage = try run(["simulate", "--walk", walk, "--places", shops, "--trips-out", directory])
        #expect(usage.code == 2 && usage.err.contains("--trips-out writes generated errand trips"))
    }

    /// The bundled real day reads as it is (no row rejected, in time order) and has the gaps
    /// its source has (49 steps over 2 minutes); `rotate plan` over it misses nothing.
    @Test func theRealRecordedDayReadsWithItsGaps() throws {
        let day = Self.data("walk-zurich-day.csv")
        let file = try WalkFile.read(path: day)
        #expect(file.rejected.isEmpty && file.fixes.count == 416)
        let times = file.fixes.compactMap(\.timestampSeconds)
        #expect(times.count == 416 && zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        #expect(zip(times, times.dropFirst()).filter { $1 - $0 > 120 }.count == 49)
        let plan = try run(["plan", "--places", Self.data("cities1000.csv"), "--walk", day, "--format", "summary"])
        #expect(plan.code == 0, "\(plan.err)")
        #expect(plan.out.contains("49 recording gaps"), "\(plan.out)")
    }

    @Test func planSummaryAndMap() throws {
        let map = temporary("map.svg")
        let result = try run(["plan", "--places", shops, "--walk", walk, "--format", "summary", "--map", map])
        #expect(result.code == 0, "\(result.err)")
        #expect(result.out.contains("misses         0 (0 avoidable)"))
        let svg = try String(contentsOfFile: map, encoding: .utf8)
        #expect(svg.hasPrefix("<svg") && svg.contains("<polyline"))
    }

    @Test func planGeoJSONAndCSV() throws {
        let geojson = try run(["plan", "--places", shops, "--walk", walk, "--format", "geojson"])
        #expect(geojson.code == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(geojson.out.utf8)) as? [String: Any])
        #expect(object["type"] as? String == "FeatureCollection")
        let out = temporary("plan.csv")
        let csv = try run(["plan", "--places", shops, "--walk", walk, "--format", "csv", "--out", out])
        #expect(csv.code == 0 && csv.out.isEmpty)
        let trace = try PlanTrace.parse(try run(["plan", "--places", shops, "--walk", walk, "--format", "ndjson"]).out)
        let rows = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        #expect(rows.first?.hasPrefix("fix,lat,lon,guarantee") == true)
        #expect(rows.count == trace.reselections.count + 1)
        // Version 3: the event engine's place events, each place entered before it is left, the
        // same on the map, and its visits (arrivals on the map); versions 2 and 1 on request,
        // without visits, and without place events either.
        #expect(trace.config.version == 3 && !trace.placeEvents.isEmpty)
        var inside: Set<String> = []
        for event in trace.placeEvents {
            if event.event == "entry" { #expect(inside.insert(event.place).inserted) } else { #expect(inside.remove(event.place) != nil) }
            #expect(event.evidence == "app" && event.probability != nil)
        }
        let svg = try run(["plan", "--places", shops, "--walk", walk, "--format", "svg"]).out
        #expect(svg.components(separatedBy: "<title>entry ").count - 1 == trace.placeEvents.filter { $0.event == "entry" }.count)
        #expect(svg.components(separatedBy: "<title>visit at ").count - 1 == trace.visits.filter { $0.event == "arrival" }.count)
        let v2 = try PlanTrace.parse(
            try run(["plan", "--places", shops, "--walk", walk, "--format", "ndjson", "--trace-version", "2"]).out)
        #expect(v2.config.version == 2 && v2.visits.isEmpty && v2.placeEvents == trace.placeEvents)
        let v1 = try PlanTrace.parse(
            try run(["plan", "--places", shops, "--walk", walk, "--format", "ndjson", "--trace-version", "1"]).out)
        #expect(v1.config.version == 1 && v1.placeEvents.isEmpty && v1.reselections == trace.reselections)
    }

    /// A walk that stops for 5 minutes at a shop: the trace has an arrival naming it (dated from
    /// the stay's first fix) and a departure, and the map a visit marked with its name.
    @Test func planTracesAndMapsAStoreVisit() throws {
        // shop001 (46.0732033, 14.5137286, 100 m) in Datasets/shops-500.csv.
        let shop = Coordinate(validLatitude: 46.0732033, longitude: 14.5137286)
        var rows = ["t,lat,lon,accuracy_m"]
        for t in stride(from: 0, through: 900, by: 5) {
            // 300 m west of the shop at 1.5 m/s, 5 minutes at it, then 300 m east.
            let offset = t < 200 ? -300 + 1.5 * Double(t) : t < 500 ? 0 : 1.5 * Double(t - 500)
            let p = shop.destination(bearingDegrees: 90, distanceMeters: offset)
            rows.append("\(t),\(p.latitude),\(p.longitude),10")
        }
        let stopWalk = try write(rows.joined(separator: "\n") + "\n", "stop.csv")
        let map = temporary("stop.svg")
        let result = try run(["plan", "--places", shops, "--walk", stopWalk, "--format", "ndjson", "--map", map])
        #expect(result.code == 0, "\(result.err)")
        let trace = try PlanTrace.parse(result.out)
        #expect(trace.visits.map(\.event) == ["arrival", "departure"])
        let arrival = try #require(trace.visits.first)
        #expect(arrival.place == "shop001" && arrival.candidates.first?.place == "shop001")
        // The stay begins at the last check that saw the walker walking (one every 30 s), at most
        // 30 s before the stop.
        #expect(arrival.arrivalT >= 165 && arrival.arrivalT <= 205 && arrival.t >= arrival.arrivalT + 100)
        #expect(trace.visits.last?.departureT.map { $0 > 500 && $0 < 600 } == true)
        let svg = try String(contentsOfFile: map, encoding: .utf8)
        #expect(svg.components(separatedBy: "<title>visit at shop001").count == 2)
    }

    @Test(arguments: [
        "walk-korita-zbevnica.csv", "walk-cerknicko-jezero.csv", "walk-around-visnjan-with-car.csv",
        "korita-zbevnica.gpx", "cerknicko-jezero.gpx", "around-visnjan-with-car.gpx",
    ])
    func realTracksAgainstGeoNamesMissNothing(track: String) throws {
        for extra in [[], ["--limit", "4", "--headroom", "0", "--min-refresh", "50"]] {
            let result = try run(
                ["plan", "--places", Self.data("cities-si-hr.csv"), "--walk", Self.data(track), "--format", "ndjson"] + extra)
            #expect(result.code == 0, "\(track): \(result.err)")
            let trace = try PlanTrace.parse(result.out)
            #expect(trace.summary.missed == 0, "\(track)")
            #expect(trace.summary.fixes > 100)
        }
    }

    @Test func gpxWithAndWithoutTimestamps() throws {
        let timed = try write(
            """
            <gpx version="1.1"><trk><trkseg>
            <trkpt lat="46.0320" lon="14.4776"><time>2024-05-01T10:00:00Z</time></trkpt>
            <trkpt lat="46.0330" lon="14.4790"><time>2024-05-01T10:01:40Z</time></trkpt>
            <trkpt lat="46.0340" lon="14.4800"><time>2024-05-01T10:03:20Z</time></trkpt>
            </trkseg></trk></gpx>
            """, "timed.gpx")
        let untimed = try write(
            "<gpx><wpt lat=\"46.0320\" lon=\"14.4776\"/><wpt lat=\"46.0330\" lon=\"14.4790\"/><wpt lat=\"46.034\" lon=\"14.48\"/></gpx>",
            "untimed.gpx")
        for path in [timed, untimed] {
            let result = try run(["plan", "--places", shops, "--walk", path, "--format", "ndjson"])
            #expect(result.code == 0, "\(result.err)")
            #expect(try PlanTrace.parse(result.out).summary.fixes == 3)
        }
    }

    /// `validate`'s density (the most places within 1 km of one place, itself included) against
    /// counting every pair.
    @Test func validateReportsTheDensestPlaceLikeCountingEveryPair() throws {
        var rng = SplitMix64(seed: 41)
        let towns = [Coordinate(validLatitude: 46.05, longitude: 14.5), Coordinate(validLatitude: -33.9, longitude: 151.2)]
        let coordinates = (0..<400).map { i in
            SyntheticCoordinates.uniformInSquare(around: towns[i % 2], sideMeters: i % 2 == 0 ? 3_000 : 8_000, using: &rng)
        }
        let csv =
            "id,lat,lon,radius_m\n" + coordinates.enumerated().map { "p\($0),\($1.latitude),\($1.longitude),50" }.joined(separator: "\n")
        let places = try write(csv + "\n", "density.csv")
        let result = CapturingConsole.run(["validate", "--places", places])
        #expect(result.code == 0, "\(result.err)")
        let densest = coordinates.map { a in coordinates.filter { a.distance(to: $0) <= 1_000 }.count }.max()!
        #expect(result.out.contains("at most \(densest) places within 1 km"), "\(result.out)")
    }

    @Test func badRowsAreReportedWithFileAndLineAndNothingIsLost() throws {
        let places = try write(
            "id,lat,lon,radius_m\na,46.03,14.47,100\nb,north,14.47,100\nc,46.04,14.48,-1\nd,46.05,14.49,\na,46.0,14.0,50\n", "bad.csv")
        let rejects = temporary("rejects.csv")
        let result = try run(["validate", "--places", places, "--rejects", rejects])
        #expect(result.code == 0, "\(result.err)")
        #expect(result.err.contains("\(places):3: 'lat' is not a number: 'north'"))
        #expect(result.err.contains("\(places):4: radius must be > 0, got -1.0"))
        #expect(result.err.contains("\(places):6: duplicate id 'a' (first on line 2)"))
        #expect(result.err.contains("5 rows read, 2 accepted, 3 rejected"))
        let rejected = try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n")
        #expect(rejected.first == "line,reason,id,lat,lon,radius_m")
        #expect(rejected.count == 4)
        #expect(rejected[1].hasPrefix("3,"))
        let strict = try run(["validate", "--places", places, "--strict"])
        #expect(strict.code == 1)
        #expect(strict.err.contains("\(places):3: 'lat' is not a number"))
    }

    /// When every row is bad the command fails, but only after reporting each row (and writing
    /// them to --rejects).
    @Test func aFileOfOnlyBadRowsStillReportsEveryRow() throws {
        let places = try write("id,lat,lon\nb,north,14.47\nc,46.04\n", "allbad.csv")
        let rejects = temporary("rejects.csv")
        let result = try run(["validate", "--places", places, "--rejects", rejects])
        #expect(result.code == 1)
        #expect(result.err.contains("\(places):2: 'lat' is not a number: 'north'"), "\(result.err)")
        #expect(result.err.contains("\(places):3: "), "\(result.err)")
        #expect(result.err.contains("\(places): no valid rows"))
        let rejected = try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n")
        #expect(rejected == ["line,reason,id,lat,lon", rejected[1], rejected[2]] && rejected.count == 3)
        #expect(rejected[1].hasPrefix("2,") && rejected[2].hasPrefix("3,"))
    }

    /// A walk whose every point is bad fails, but only after reporting each point with its line
    /// (CSV and GPX alike), then the count line, then the error.
    @Test func aWalkOfOnlyBadPointsStillReportsEveryPoint() throws {
        let csv = try write("t,lat,lon\n0,north,14.5\n1,46.05\n2,46.05,14.5,9\n", "allbad.csv")
        let gpx = try write(
            "<gpx xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>\n<trkpt lon=\"14.5\"/>\n<trkpt lat=\"95\" lon=\"14.5\"/>\n"
                + "<trkpt lat=\"x\" lon=\"14.5\"/>\n</trkseg></trk></gpx>\n", "allbad.gpx")
        for (walk, reasons) in [
            (
                csv,
                [
                    "2: 'lat' is not a number: 'north'", "3: wrong field count: 2 fields, the header has 3",
                    "4: wrong field count: 4 fields, the header has 3",
                ]
            ),
            (gpx, ["2: point without a 'lat' attribute", "3: latitude 95.0 is outside -90...90", "4: 'lat' is not a number: 'x'"]),
        ] {
            let result = try run(["plan", "--places", shops, "--walk", walk])
            #expect(result.code == 1, "\(result.err)")
            let lines = result.err.split(separator: "\n").map(String.init).filter { $0.contains(walk) }
            #expect(
                lines
                    == reasons.map { "\(walk):\($0)" } + [
                        "\(walk): 3 points read, 0 accepted, 3 rejected", "rotate plan: error: \(walk):1: no valid points (3 rejected)",
                    ],
                "\(result.err)")
        }
    }

    /// Benchmark positions are checked row by row: a short row is an error with its line, not a crash.
    @Test func benchPositionsWithAShortRowFailWithItsLine() throws {
        let positions = try write("lat,lon\n46.05,14.5\n46.06\n", "short.csv")
        let result = try run(["bench", "--count", "1000", "--positions", positions, "--repetitions", "1", "--quiet"])
        #expect(result.code == 1, "\(result.err)")
        #expect(result.err.contains("\(positions):3: not a valid position"), "\(result.err)")
    }

    /// Positions files follow the scanner's quoting rules: a quoted id is copied as written
    /// (quoted again on output), quoted numbers are read trimmed, and a stray quote is a
    /// rejected row in `select` and an error with its line in `bench`.
    @Test func positionsFilesFollowTheQuotingRules() throws {
        let positions = try write("id,lat,lon\n\" u1 \",\" 46.05 \",14.5\nab\"c,46.05,14.5\n\"u3\" ,46,14\n", "quoted.csv")
        let batch = try run(["select", "--places", shops, "--positions", positions])
        #expect(batch.code == 0, "\(batch.err)")
        let rows = batch.out.split(separator: "\n")
        #expect(rows.count == 4)
        #expect(rows[1].hasPrefix("2,\" u1 \",46.05,14.5,ok,exact,"), "\(rows[1])")
        #expect(rows[2].hasPrefix("3,\"ab\"\"c\",46.05,14.5,rejected,"), "\(rows[2])")
        #expect(rows[2].hasSuffix(",\(CSVProblem.quoteInUnquotedField)"), "\(rows[2])")
        #expect(rows[3].hasPrefix("4,\"u3 \",46,14,rejected,"), "\(rows[3])")
        #expect(batch.err.contains("\(positions):4: \(CSVProblem.textAfterClosingQuote)"), "\(batch.err)")
        let bench = try write("lat,lon\n\" 46.05\t\",14.5\n\"46.06\" ,14.5\n", "bench.csv")
        let result = try run(["bench", "--count", "1000", "--positions", bench, "--repetitions", "1", "--quiet"])
        #expect(result.code == 1, "\(result.err)")
        #expect(result.err.contains("\(bench):3: \(CSVProblem.textAfterClosingQuote)"), "\(result.err)")
    }

    /// A positions header the scanner cannot read stops `select` with its line and the true
    /// reason (longer than the 1 MiB record limit, or bad quoting), not as one without `lat` and
    /// `lon`; the limit's own length is still a header.
    @Test func selectReportsAnUnreadableHeaderAsSuch() throws {
        let limit = 1_048_576
        let long = "id,lat,lon," + String(repeating: "x", count: limit - 10) + "\n46.05,14.5\n"
        let quoted = "\n\nid,lat,\"lon\" ,x\n46.05,14.5\n"
        let fits = "id,lat,lon," + String(repeating: "x", count: limit - 11) + "\na,46.05,14.5,\n"
        for (name, text, message) in [
            ("long.csv", long, ":1: the header record is \(limit + 1) bytes long; at most \(limit)"),
            ("quoted.csv", quoted, ":3: the header is not read: \(CSVProblem.textAfterClosingQuote)"),
        ] {
            let path = try write(text, name)
            let result = try run(["select", "--places", shops, "--positions", path])
            #expect(result.code == 1, "\(name): \(result.err)")
            #expect(result.err.contains(path + message), "\(name): \(result.err)")
            #expect(!result.err.contains("needs lat and lon"), "\(name): \(result.err)")
        }
        let result = try run(["select", "--places", shops, "--positions", try write(fits, "fits.csv")])
        #expect(result.code == 0, "\(result.err)")
        #expect(result.out.split(separator: "\n").count == 2)
    }

    /// A header record over the 1 MiB limit stops every CSV reader with that reason (a header is
    /// not skipped as a data record is): places (from a file and from standard input), a walk,
    /// stop labels.
    @Test func everyReaderReportsAnOverlongHeaderAsSuch() throws {
        let limit = 1_048_576
        let padding = String(repeating: "x", count: limit)
        let places = try write("id,lat,lon," + padding + "\nA,46.05,14.5,\n", "places.csv")
        let walk = try write("t,lat,lon," + padding + "\n0,46.05,14.5,\n", "walk.csv")
        let stops = try write("id,arrival,departure," + padding + "\nshop001,0,10,\n", "stops.csv")
        let short = try write("t,lat,lon\n0,46.05,14.5\n100,46.0501,14.5\n", "short.csv")
        for (arguments, path, bytes) in [
            (["validate", "--places", places], places, limit + 11),
            (["simulate", "--places", shops, "--walk", walk, "--quiet"], walk, limit + 10),
            (["simulate", "--places", shops, "--walk", short, "--stops", stops, "--platform", "ios", "--quiet"], stops, limit + 21),
        ] {
            let result = try run(arguments)
            #expect(result.code == 1, "\(result.err)")
            #expect(
                result.err.contains(
                    "rotate \(arguments[0]): error: \(path):1: the header record is \(bytes) bytes long; at most \(limit)\n"),
                "\(result.err)")
        }
        let piped = try StateSafetyTests.run(["validate", "--places", "-"], input: "id,lat,lon," + padding + "\nA,46.05,14.5,\n")
        #expect(piped.code == 1)
        #expect(piped.err.contains("-:1: the header record is \(limit + 11) bytes long"), "\(piped.err)")
    }

    /// Ids holding control characters (an escape sequence, NUL, VT, FF, NEL, U+2028) reach the
    /// output of `select --positions` between quotes, and the output read back by the project's
    /// CSV reader gives each id as the input had it.
    @Test func selectQuotesControlCharactersInIds() throws {
        let ids = ["a\u{1B}[2Jb", "n\u{0}ul", "v\u{0B}t\u{0C}", "nel\u{85}", "ls\u{2028}", "plain"]
        let input = "id,lat,lon\n" + ids.map { "\($0),46.05,14.5\n" }.joined()
        let result = try run(["select", "--places", shops, "--positions", try write(input, "controls.csv")])
        #expect(result.code == 0, "\(result.err)")
        let records = CSVFile.records(of: Array(result.out.utf8), chunkSize: 1 << 16)
        #expect(records.dropFirst().map { $0.fields.count > 1 ? $0.fields[1] : "" } == ids)
        #expect(records.allSatisfy { $0.problem == nil })
        // Each row's id field starts after the line number: quoted for every id but the plain one.
        let idStarts = result.out.split(separator: "\n").dropFirst().map { $0.drop { $0 != "," }.dropFirst().first }
        #expect(idStarts == ids.map { $0 == "plain" ? "p" : "\"" })
    }

    @Test func fileErrorsExitOneAndUsageErrorsExitTwo() throws {
        let empty = try write("", "empty.csv")
        let noLat = try write("id,lon\na,1\n", "nolat.csv")
        for (arguments, code, message) in [
            (["plan", "--places", "/nonexistent.csv", "--walk", walk], Int32(1), "/nonexistent.csv"),
            (["plan", "--places", empty, "--walk", walk], 1, "the file is empty"),
            (["validate", "--places", noLat], 1, "no 'lat' column"),
            (["plan", "--places", shops], 2, "missing --walk"),
            (["plan", "--walk", walk], 2, "missing --places"),
            (["plan", "--places", shops, "--walk", walk, "--format", "pdf"], 2, "must be one of"),
            (["select", "--places", shops], 2, "exactly one of"),
            (["select", "--places", shops, "--at", "95,14"], 2, "latitude 95.0"),
            (["plan", "--places", shops, "--walk", "/nonexistent.gpx"], 1, "/nonexistent.gpx"),
        ] {
            let result = try run(arguments)
            #expect(result.code == code, "\(arguments): \(result.err)")
            #expect(result.err.contains(message), "\(arguments): \(result.err)")
        }
    }

    @Test func selectAtAPositionAndInBatch() throws {
        let one = try run(["select", "--places", shops, "--at", "46.05,14.5", "--format", "json"])
        #expect(one.code == 0, "\(one.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(one.out.utf8)) as? [String: Any])
        #expect((object["monitored"] as? [Any])?.count == 17)
        #expect(object["guarantee"] as? String == "exact")
        let positions = try write(
            "id,lat,lon,accuracy_m\nu1,46.05,14.5,5\nu2,x,14.5,\nu3,46.04,14.49,\nu4,46.06,14.51,-2\n", "positions.csv")
        let batch = try run(["select", "--places", shops, "--positions", positions])
        #expect(batch.code == 0, "\(batch.err)")
        let rows = batch.out.split(separator: "\n")
        #expect(rows.count == 5)
        #expect(rows[1].hasPrefix("2,u1,46.05,14.5,ok,exact,"))
        #expect(rows[2].hasPrefix("3,u2,x,14.5,rejected"))
        #expect(rows[4].hasPrefix("5,u4,46.06,14.51,rejected"))
        #expect(batch.err.contains("\(positions):3: lat and lon must be numbers"))
        #expect(batch.err.contains("4 rows read, 2 accepted, 2 rejected"))
    }

    /// Snapshot test: `rotate generate` with its defaults writes `Datasets/shops-500.csv` and
    /// `Datasets/walk-6km.csv` byte for byte. It guards the bundled scenario, which the README's
    /// figures and the other end-to-end tests run on, against an unintended change of the
    /// generator or the CSV writer; it says nothing about whether the scenario is right. After an
    /// intended change, regenerate the snapshot with
    /// `swift run -c release rotate generate --places-out Datasets/shops-500.csv --walk-out Datasets/walk-6km.csv`
    /// (see Datasets/README.md) and re-check what depends on it.
    @Test func generatedScenarioMatchesTheBundledSnapshot() throws {
        let places = temporary("shops.csv"), walkOut = temporary("walk.csv")
        let result = try run(["generate", "--places-out", places, "--walk-out", walkOut])
        #expect(result.code == 0, "\(result.err)")
        for (generated, snapshot) in [(places, shops), (walkOut, walk)] {
            let lines = try String(contentsOfFile: generated, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            let expected = try String(contentsOfFile: snapshot, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            let common = min(lines.count, expected.count)
            let line = (0..<common).first { lines[$0] != expected[$0] } ?? common
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: generated)) == Data(contentsOf: URL(fileURLWithPath: snapshot)),
                "generated line \(line + 1) differs from the snapshot \(snapshot): \(line < lines.count ? String(lines[line]) : "(end of file)")"
            )
        }
    }

    @Test func simulateAcceptsPlaceAndWalkFiles() throws {
        let result = try run(["simulate", "--places", Self.data("cities-si-hr.csv"), "--walk", Self.data("korita-zbevnica.gpx"), "--json"])
        #expect(result.code == 0, "\(result.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        #expect(object["misses"] as? Int == 0)
        #expect(object["places"] as? Int == 1_065)
    }
}
