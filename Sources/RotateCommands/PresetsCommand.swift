import BenchmarkKit
import FencePlanner
import Geodesy
import PlatformFacts
import RotateFormats
import RotateJSON

/// `rotate presets`: what the platform presets mean for a walker and a driver in a dense city.
public enum PresetsCommand: Subcommand {
    public static let name = "presets"
    public static let abstract = "Show the platform presets' margins and how often selections degrade in a dense city."
    public static let discussion = """
        For iOS and Android, with each platform's typical (90th percentile) and cautious (longest)
        delivery latency, and for a walker and a driver, prints the margin the platform's region
        monitoring needs (exit cushion + twice the OS's position error + max speed x (stay +
        latency + wake fix + fix interval); docs/design/emulators.md) and surveys a
        synthetic dense city: --places shops of --radius meters uniformly in a --side-km square,
        selected at --positions random positions inside it. Each row gives the share of selections
        that are exact, degraded (the safe refresh radius is below the platform's 100 m minimum:
        fall back to location updates) and saturated (more fences within the margin than slots),
        and the median refresh radius. Deterministic for a --seed.
        """
    public static let options: [OptionSpec] = [
        OptionSpec("--places", value: "N", help: "Shops in the synthetic city.", default: "3000"),
        OptionSpec("--side-km", value: "KM", help: "Side of the city square, kilometers.", default: "5"),
        OptionSpec("--radius", value: "M", help: "Fence radius of every shop, meters.", default: "100"),
        OptionSpec("--positions", value: "P", help: "Random positions surveyed.", default: "2000"),
        OptionSpec("--walker-speed", value: "M/S", help: "A walker's top speed.", default: "1.4"),
        OptionSpec("--driver-speed", value: "M/S", help: "A driver's top speed.", default: "25"),
        OptionSpec("--fix-interval", value: "S", help: "Seconds between location fixes.", default: "1"),
        OptionSpec("--seed", value: "S", help: "Seed of shops and positions.", default: "1"),
    ]

    public struct Options: Equatable, Sendable {
        var count: Int
        var sideMeters: Double
        var radiusMeters: Double
        var positionCount: Int
        var walkerSpeed: Double
        var driverSpeed: Double
        var fixIntervalSeconds: Double
        var seed: UInt64
    }

    public static func parse(_ arguments: Arguments) throws(CommandError) -> Options {
        Options(
            count: try arguments.int("--places", in: 1...1_000_000),
            sideMeters: try arguments.double("--side-km", in: 0.01...1_000) * 1_000,
            radiusMeters: try arguments.double("--radius", in: 1...400_000),
            positionCount: try arguments.int("--positions", in: 1...1_000_000),
            walkerSpeed: try arguments.double("--walker-speed", in: 0...1_000),
            driverSpeed: try arguments.double("--driver-speed", in: 0...1_000),
            fixIntervalSeconds: try arguments.double("--fix-interval", in: 0...86_400), seed: try arguments.uint64("--seed"))
    }

    public static func run(_ options: Options, console: Console) throws(CommandError) {
        let count = options.count, sideMeters = options.sideMeters, radius = options.radiusMeters
        let positionCount = options.positionCount, walker = options.walkerSpeed, driver = options.driverSpeed
        let fixInterval = options.fixIntervalSeconds, seed = options.seed

        var rng = SplitMix64(seed: seed)
        let center = Coordinate(validLatitude: 48.8566, longitude: 2.3522)
        let places = (0..<count).map { i in
            Place(
                id: "shop\(i)", coordinate: SyntheticCoordinates.uniformInSquare(around: center, sideMeters: sideMeters, using: &rng),
                radiusMeters: radius)
        }
        let positions = (0..<positionCount).map { _ in
            SyntheticCoordinates.uniformInSquare(around: center, sideMeters: sideMeters * 0.9, using: &rng)
        }
        let catalog: PlaceCatalog
        do {
            catalog = try PlaceCatalog(places: places)
        } catch {
            throw .failure("cannot build the city: \(error)")
        }
        console.out(
            "rotate presets: \(TextFormat.grouped(count)) shops of \(TextFormat.fixed(radius, decimals: 0)) m in a "
                + "\(TextFormat.fixed(sideMeters / 1_000, decimals: 1)) km square (seed \(seed)), \(TextFormat.grouped(positionCount)) positions, "
                + "fix every \(TextFormat.fixed(fixInterval, decimals: 1)) s")
        console.out("platform  latency        traveller       margin m   slots  exact %  degraded %  saturated %  median refresh m")
        for platform in [PlatformProfile.iOS, .android] {
            for latency in PlatformProfile.Latency.allCases {
                for (traveller, speed) in [("walker", walker), ("driver", driver)] {
                    let config = RotationConfiguration.preset(
                        platform, maxSpeedMetersPerSecond: speed,
                        fixIntervalSeconds: fixInterval, latency: latency)
                    let survey: GuaranteeSurvey
                    do {
                        survey = try GuaranteeSurvey(catalog: catalog, configuration: config, positions: positions)
                    } catch {
                        throw .failure("invalid preset: \(error)")
                    }
                    func pad(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(1, width - text.count)) }
                    let latencyText = "\(latency.rawValue) \(TextFormat.fixed(platform.latencySeconds(latency), decimals: 0)) s"
                    let travellerText = "\(traveller) \(TextFormat.fixed(speed, decimals: 1)) m/s"
                    console.out(
                        pad(platform.name, 10) + pad(latencyText, 15) + pad(travellerText, 16)
                            + pad(TextFormat.grouped(config.marginMeters), 11) + pad(String(config.placeSlots), 7)
                            + pad(TextFormat.fixed(100 * survey.share(survey.exact), decimals: 1), 9)
                            + pad(TextFormat.fixed(100 * survey.share(survey.degraded), decimals: 1), 12)
                            + pad(TextFormat.fixed(100 * survey.share(survey.saturated), decimals: 1), 13)
                            + (survey.medianRefreshRadiusMeters.map { TextFormat.grouped($0) } ?? "-"))
                }
            }
        }
    }
}
