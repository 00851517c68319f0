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

    public static func run(_ arguments: Arguments, console: Console) throws(CommandError) {
        let placesOut = arguments.string("--places-out"), walkOut = arguments.string("--walk-out")
        let positionsOut = arguments.string("--positions-out")
        let reportsOut = arguments.string("--reports-out")
        guard placesOut != nil || walkOut != nil || positionsOut != nil || reportsOut != nil else {
            throw .usage("give --places-out FILE, --walk-out FILE, --positions-out FILE, --reports-out FILE or several")
        }
        let distribution = try arguments.choice("--distribution", default: "square", from: ["square", "globe", "clustered"])
        let positionCount = try arguments.int("--positions", default: 200_000, in: 1...100_000_000)
        let vectors = arguments.flag("--vectors")
        let count = try arguments.int("--count", default: 500, in: 1...10_000_000)
        let side = try arguments.double("--side-km", default: 10, in: 0.01...10_000) * 1_000
        let radius = try arguments.double("--radius", default: 100, in: 0.1...400_000)
        let center = try coordinate(arguments.string("--center") ?? "46.0511,14.5051", option: "--center")
        let walkMeters = try arguments.double("--walk-km", default: 6, in: 0.001...20_000) * 1_000
        let speed = try arguments.double("--speed", default: 1.4, in: 0.01...1_000)
        let interval = try arguments.double("--interval", default: 1, in: 0.01...86_400)
        var rng = SplitMix64(seed: try arguments.uint64("--seed", default: 1))

        func vectorColumns(_ c: Coordinate) -> [String] {
            guard vectors else { return [] }
            let v = UnitVector(c)
            return ["\(v.x)", "\(v.y)", "\(v.z)"]
        }
        var coordinates: [Coordinate] = []
        if placesOut != nil || positionsOut != nil || reportsOut != nil {
            switch distribution {
            case "globe": coordinates = (0..<count).map { _ in SyntheticCoordinates.uniformOnSphere(using: &rng) }
            case "clustered": coordinates = SyntheticCoordinates.clustered(count: count, using: &rng)
            default:
                coordinates = (0..<count).map { _ in SyntheticCoordinates.uniformInSquare(around: center, sideMeters: side, using: &rng) }
            }
            // Coordinates as written (7 decimals), so every reader starts from the same numbers.
            coordinates = coordinates.map {
                Coordinate(
                    validLatitude: Double(CSVWriter.decimal($0.latitude)) ?? $0.latitude,
                    longitude: Double(CSVWriter.decimal($0.longitude)) ?? $0.longitude)
            }
        }
        if let placesOut {
            let width = String(count).count
            var lines = [(["id", "name", "lat", "lon", "radius_m"] + (vectors ? ["ux", "uy", "uz"] : [])).joined(separator: ",")]
            for (index, c) in coordinates.enumerated() {
                let i = index + 1
                let number = String(i)
                lines.append(
                    CSVWriter.row(
                        [
                            "shop" + String(repeating: "0", count: width - number.count) + number, "Shop \(i)",
                            CSVWriter.decimal(c.latitude), CSVWriter.decimal(c.longitude), CSVWriter.decimal(radius, decimals: 3),
                        ]
                            + vectorColumns(c)))
            }
            try TextOutput.write(lines, to: placesOut)
            console.err("rotate generate: \(count) places in \(placesOut)")
        }
        if let positionsOut {
            var positionRNG = SplitMix64(seed: try arguments.uint64("--seed", default: 1) ^ 0x5155_4552_5931)
            var lines = [(["lat", "lon"] + (vectors ? ["ux", "uy", "uz"] : [])).joined(separator: ",")]
            for _ in 0..<positionCount {
                let base = coordinates[positionRNG.nextInt(below: coordinates.count)]
                var c = SyntheticCoordinates.gaussian(around: base, sigmaMeters: 500, using: &positionRNG)
                c = Coordinate(
                    validLatitude: Double(CSVWriter.decimal(c.latitude)) ?? c.latitude,
                    longitude: Double(CSVWriter.decimal(c.longitude)) ?? c.longitude)
                lines.append(CSVWriter.row([CSVWriter.decimal(c.latitude), CSVWriter.decimal(c.longitude)] + vectorColumns(c)))
            }
            try TextOutput.write(lines, to: positionsOut)
            console.err("rotate generate: \(positionCount) positions in \(positionsOut)")
        }
        if let reportsOut {
            let workload = ReportWorkload(
                devices: try arguments.int("--devices", default: 20_000, in: 1...100_000_000),
                reportsPerDevice: try arguments.int("--reports-per-device", default: 10, in: 1...1_000_000),
                stepMeters: try arguments.double("--step-m", default: 55, in: 0...100_000),
                badLineFraction: try arguments.double("--bad-lines", default: 0, in: 0...1),
                seed: try arguments.uint64("--seed", default: 1))
            try writeReports(workload, near: coordinates, to: reportsOut, console: console)
        }
        if let walkOut {
            let ends = [
                center.destination(bearingDegrees: 225, distanceMeters: walkMeters / 2),
                center.destination(bearingDegrees: 45, distanceMeters: walkMeters / 2),
            ]
            let walk = WalkGenerator.along(
                ends, speedMetersPerSecond: speed, fixes: FixModel(intervalSeconds: interval), kind: .diagonal, using: &rng)
            let lines =
                ["t,lat,lon"]
                + walk.samples.map {
                    CSVWriter.row([
                        CSVWriter.decimal($0.timeSeconds, decimals: 3), CSVWriter.decimal($0.truePosition.latitude),
                        CSVWriter.decimal($0.truePosition.longitude),
                    ])
                }
            try TextOutput.write(lines, to: walkOut)
            console.err("rotate generate: \(walk.samples.count) fixes in \(walkOut)")
        }
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
