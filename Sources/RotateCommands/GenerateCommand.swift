import FencePlanner
import Geodesy
import RotateFormats
import WalkSimulator

/// `rotate generate`: a deterministic synthetic scenario (places CSV and walk CSV).
public enum GenerateCommand: Subcommand {
    public static let name = "generate"
    public static let abstract = "Write a seeded synthetic scenario: a places CSV and a walk CSV across it."
    public static let discussion = """
        Places: --count shops of --radius meters uniformly in a --side-km square around --center
        (ids shop0001…, names "Shop 1"…), or with --distribution uniformly on the globe or in 200
        towns of about 20 km. --positions-out writes --positions query positions, each a random
        place moved by a 500 m Gaussian. --vectors adds each row's unit vector (ux, uy, uz), printed
        exactly, so that outside benchmark peers index exactly the points rotate does. Walk: a straight --walk-km line through the center at 45
        degrees, one fix every --interval seconds at --speed m/s, without noise. Both files follow
        docs/formats.md. The bundled Datasets/shops-500.csv and Datasets/walk-6km.csv were made with
        the defaults: rotate generate --places-out Datasets/shops-500.csv --walk-out Datasets/walk-6km.csv
        """
    public static let options: [OptionSpec] = [
        OptionSpec("--places-out", value: "FILE", help: "Where to write the places CSV."),
        OptionSpec("--walk-out", value: "FILE", help: "Where to write the walk CSV."),
        OptionSpec("--count", value: "N", help: "Shops.", default: "500"),
        OptionSpec("--side-km", value: "KM", help: "Side of the square.", default: "10"),
        OptionSpec("--radius", value: "M", help: "Fence radius.", default: "100"),
        OptionSpec("--center", value: "LAT,LON", help: "Center of the square.", default: "46.0511,14.5051"),
        OptionSpec("--walk-km", value: "KM", help: "Walk length.", default: "6"),
        OptionSpec("--speed", value: "M/S", help: "Walking speed.", default: "1.4"),
        OptionSpec("--interval", value: "S", help: "Seconds between fixes.", default: "1"),
        OptionSpec("--seed", value: "S", help: "Seed of the shops.", default: "1"),
        OptionSpec(
            "--distribution", value: "square|globe|clustered",
            help: "Places in the square, uniform on the globe, or in 200 towns of ~20 km.", default: "square"),
        OptionSpec("--positions-out", value: "FILE", help: "Also write query positions near random places (lat, lon)."),
        OptionSpec("--positions", value: "N", help: "How many query positions.", default: "200000"),
        OptionSpec("--vectors", help: "Add ux,uy,uz unit-vector columns (exact; for outside benchmark peers)."),
        OptionSpec("--reports-out", value: "FILE|-", help: "Also write sidecar location reports (NDJSON, docs/sidecar.md); - is stdout."),
        OptionSpec("--devices", value: "N", help: "Devices reporting.", default: "20000"),
        OptionSpec("--reports-per-device", value: "K", help: "Reports each device makes.", default: "10"),
        OptionSpec("--step-m", value: "M", help: "Meters a device moves between its reports.", default: "55"),
        OptionSpec("--bad-lines", value: "FRACTION", help: "Add this fraction of bad lines among the reports (0-1).", default: "0"),
    ]

    public struct Options: Equatable, Sendable {
        var placesOut: String?
        var walkOut: String?
        var positionsOut: String?
        var reportsOut: String?
        var distribution: String
        var count: Int
        var sideMeters: Double
        var radiusMeters: Double
        var center: Coordinate
        var walkMeters: Double
        var speedMetersPerSecond: Double
        var intervalSeconds: Double
        var seed: UInt64
        var positionCount: Int
        var vectors: Bool
        /// The sidecar load, with `--reports-out` (its options are read only then).
        var reports: ReportWorkload?
    }

    public static func parse(_ arguments: Arguments) throws(CommandError) -> Options {
        let placesOut = arguments.string("--places-out"), walkOut = arguments.string("--walk-out")
        let positionsOut = arguments.string("--positions-out")
        let reportsOut = arguments.string("--reports-out")
        guard placesOut != nil || walkOut != nil || positionsOut != nil || reportsOut != nil else {
            throw .usage("give --places-out FILE, --walk-out FILE, --positions-out FILE, --reports-out FILE or several")
        }
        let distribution = try arguments.choice("--distribution", from: ["square", "globe", "clustered"])
        let positionCount = try arguments.int("--positions", in: 1...100_000_000)
        let count = try arguments.int("--count", in: 1...10_000_000)
        let sideMeters = try arguments.double("--side-km", in: 0.01...10_000) * 1_000
        let radiusMeters = try arguments.double("--radius", in: 0.1...400_000)
        let center = try coordinate(arguments.text("--center"), option: "--center")
        let walkMeters = try arguments.double("--walk-km", in: 0.001...20_000) * 1_000
        let speed = try arguments.double("--speed", in: 0.01...1_000)
        let interval = try arguments.double("--interval", in: 0.01...86_400)
        let seed = try arguments.uint64("--seed")
        var reports: ReportWorkload?
        if reportsOut != nil {
            reports = ReportWorkload(
                devices: try arguments.int("--devices", in: 1...100_000_000),
                reportsPerDevice: try arguments.int("--reports-per-device", in: 1...1_000_000),
                stepMeters: try arguments.double("--step-m", in: 0...100_000),
                badLineFraction: try arguments.double("--bad-lines", in: 0...1),
                seed: seed)
        }
        return Options(
            placesOut: placesOut, walkOut: walkOut, positionsOut: positionsOut, reportsOut: reportsOut, distribution: distribution,
            count: count, sideMeters: sideMeters, radiusMeters: radiusMeters, center: center, walkMeters: walkMeters,
            speedMetersPerSecond: speed, intervalSeconds: interval, seed: seed, positionCount: positionCount,
            vectors: arguments.flag("--vectors"), reports: reports)
    }

    public static func run(_ options: Options, console: Console) throws(CommandError) {
        var rng = SplitMix64(seed: options.seed)
        var coordinates: [Coordinate] = []
        if options.placesOut != nil || options.positionsOut != nil || options.reportsOut != nil {
            coordinates = placeCoordinates(options, using: &rng)
        }
        if let path = options.placesOut {
            try TextOutput.write(placeLines(coordinates, options), to: path)
            console.err("rotate generate: \(options.count) places in \(path)")
        }
        if let path = options.positionsOut {
            try TextOutput.write(positionLines(near: coordinates, options), to: path)
            console.err("rotate generate: \(options.positionCount) positions in \(path)")
        }
        if let path = options.reportsOut, let workload = options.reports {
            try writeReports(workload, near: coordinates, to: path, console: console)
        }
        if let path = options.walkOut {
            let ends = [
                options.center.destination(bearingDegrees: 225, distanceMeters: options.walkMeters / 2),
                options.center.destination(bearingDegrees: 45, distanceMeters: options.walkMeters / 2),
            ]
            let walk = WalkGenerator.along(
                ends, speedMetersPerSecond: options.speedMetersPerSecond, fixes: FixModel(intervalSeconds: options.intervalSeconds),
                kind: .diagonal, using: &rng)
            let lines =
                ["t,lat,lon"]
                + walk.samples.map {
                    CSVWriter.row([
                        CSVWriter.decimal($0.timeSeconds, decimals: 3), CSVWriter.decimal($0.truePosition.latitude),
                        CSVWriter.decimal($0.truePosition.longitude),
                    ])
                }
            try TextOutput.write(lines, to: path)
            console.err("rotate generate: \(walk.samples.count) fixes in \(path)")
        }
    }

    /// The places' coordinates in the chosen distribution, rounded as the CSV writes them (7
    /// decimals), so that every reader starts from the same numbers.
    static func placeCoordinates(_ options: Options, using rng: inout SplitMix64) -> [Coordinate] {
        let coordinates: [Coordinate] =
            switch options.distribution {
            case "globe": (0..<options.count).map { _ in SyntheticCoordinates.uniformOnSphere(using: &rng) }
            case "clustered": SyntheticCoordinates.clustered(count: options.count, using: &rng)
            default:
                (0..<options.count).map { _ in
                    SyntheticCoordinates.uniformInSquare(around: options.center, sideMeters: options.sideMeters, using: &rng)
                }
            }
        return coordinates.map(roundedAsWritten)
    }

    /// `c` with the 7 decimals the CSV writes.
    static func roundedAsWritten(_ c: Coordinate) -> Coordinate {
        Coordinate(
            validLatitude: Double(CSVWriter.decimal(c.latitude)) ?? c.latitude,
            longitude: Double(CSVWriter.decimal(c.longitude)) ?? c.longitude)
    }

    /// With `--vectors`, a coordinate's unit vector as three columns (printed exactly).
    static func vectorColumns(_ c: Coordinate, _ options: Options) -> [String] {
        guard options.vectors else { return [] }
        let v = UnitVector(c)
        return ["\(v.x)", "\(v.y)", "\(v.z)"]
    }

    /// The places CSV: ids `shop0001`…, names `Shop 1`…, one radius.
    static func placeLines(_ coordinates: [Coordinate], _ options: Options) -> [String] {
        let width = String(options.count).count
        var lines = [(["id", "name", "lat", "lon", "radius_m"] + (options.vectors ? ["ux", "uy", "uz"] : [])).joined(separator: ",")]
        for (index, c) in coordinates.enumerated() {
            let i = index + 1
            let number = String(i)
            lines.append(
                CSVWriter.row(
                    [
                        "shop" + String(repeating: "0", count: width - number.count) + number, "Shop \(i)",
                        CSVWriter.decimal(c.latitude), CSVWriter.decimal(c.longitude), CSVWriter.decimal(options.radiusMeters, decimals: 3),
                    ]
                        + vectorColumns(c, options)))
        }
        return lines
    }

    /// The query positions CSV: each a random place moved by a 500 m Gaussian, from a generator
    /// of its own (the places and the walk are the same with or without positions).
    static func positionLines(near coordinates: [Coordinate], _ options: Options) -> [String] {
        var positionRNG = SplitMix64(seed: options.seed ^ 0x5155_4552_5931)
        var lines = [(["lat", "lon"] + (options.vectors ? ["ux", "uy", "uz"] : [])).joined(separator: ",")]
        for _ in 0..<options.positionCount {
            let base = coordinates[positionRNG.nextInt(below: coordinates.count)]
            let c = roundedAsWritten(SyntheticCoordinates.gaussian(around: base, sigmaMeters: 500, using: &positionRNG))
            lines.append(CSVWriter.row([CSVWriter.decimal(c.latitude), CSVWriter.decimal(c.longitude)] + vectorColumns(c, options)))
        }
        return lines
    }

    /// `LAT,LON` as a validated coordinate.
    static func coordinate(_ text: String, option: String) throws(CommandError) -> Coordinate {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double(String($0.filter { $0 != " " })) }
        guard parts.count == 2, let lat = parts[0], let lon = parts[1] else {
            throw .usage("option '\(option)' needs LAT,LON in degrees, got '\(text)'")
        }
        do {
            return try Coordinate(latitude: lat, longitude: lon)
        } catch {
            throw .usage("option '\(option)': \(error)")
        }
    }
}
