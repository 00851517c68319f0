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
        (ids shop0001…, names "Shop 1"…). Walk: a straight --walk-km line through the centre at 45
        degrees, one fix every --interval seconds at --speed m/s, without noise. Both files follow
        spec/formats.md. The bundled Datasets/shops-500.csv and Datasets/walk-6km.csv were made with
        the defaults: rotate generate --places-out Datasets/shops-500.csv --walk-out Datasets/walk-6km.csv
        """
    public static let options: [OptionSpec] = [
        OptionSpec("--places-out", value: "FILE", help: "Where to write the places CSV."),
        OptionSpec("--walk-out", value: "FILE", help: "Where to write the walk CSV."),
        OptionSpec("--count", value: "N", help: "Shops.", default: "500"),
        OptionSpec("--side-km", value: "KM", help: "Side of the square.", default: "10"),
        OptionSpec("--radius", value: "M", help: "Fence radius.", default: "100"),
        OptionSpec("--center", value: "LAT,LON", help: "Centre of the square.", default: "46.0511,14.5051"),
        OptionSpec("--walk-km", value: "KM", help: "Walk length.", default: "6"),
        OptionSpec("--speed", value: "M/S", help: "Walking speed.", default: "1.4"),
        OptionSpec("--interval", value: "S", help: "Seconds between fixes.", default: "1"),
        OptionSpec("--seed", value: "S", help: "Seed of the shops.", default: "1"),
    ]

    public static func run(_ arguments: Arguments, console: Console) throws(CommandError) {
        let placesOut = arguments.string("--places-out"), walkOut = arguments.string("--walk-out")
        guard placesOut != nil || walkOut != nil else { throw .usage("give --places-out FILE, --walk-out FILE or both") }
        let count = try arguments.int("--count", default: 500, in: 1...10_000_000)
        let side = try arguments.double("--side-km", default: 10, in: 0.01...10_000) * 1_000
        let radius = try arguments.double("--radius", default: 100, in: 0.1...400_000)
        let center = try coordinate(arguments.string("--center") ?? "46.0511,14.5051", option: "--center")
        let walkMeters = try arguments.double("--walk-km", default: 6, in: 0.001...20_000) * 1_000
        let speed = try arguments.double("--speed", default: 1.4, in: 0.01...1_000)
        let interval = try arguments.double("--interval", default: 1, in: 0.01...86_400)
        var rng = SplitMix64(seed: try arguments.uint64("--seed", default: 1))

        if let placesOut {
            let width = String(count).count
            var lines = ["id,name,lat,lon,radius_m"]
            for i in 1...count {
                let c = SyntheticCoordinates.uniformInSquare(around: center, sideMeters: side, using: &rng)
                let number = String(i)
                lines.append(CSVWriter.row(["shop" + String(repeating: "0", count: width - number.count) + number, "Shop \(i)",
                                            CSVWriter.decimal(c.latitude), CSVWriter.decimal(c.longitude), CSVWriter.decimal(radius, decimals: 3)]))
            }
            try TextOutput.write(lines, to: placesOut)
            console.err("rotate generate: \(count) places in \(placesOut)")
        }
        if let walkOut {
            let ends = [center.destination(bearingDegrees: 225, distanceMeters: walkMeters / 2),
                        center.destination(bearingDegrees: 45, distanceMeters: walkMeters / 2)]
            let walk = WalkGenerator.along(ends, speedMetersPerSecond: speed, fixes: FixModel(intervalSeconds: interval), kind: .diagonal, using: &rng)
            let lines = ["t,lat,lon"] + walk.samples.map {
                CSVWriter.row([CSVWriter.decimal($0.timeSeconds, decimals: 3), CSVWriter.decimal($0.truePosition.latitude),
                               CSVWriter.decimal($0.truePosition.longitude)])
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
