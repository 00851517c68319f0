import FenceRules
import RotateFormats
import RotateJSON

/// `rotate probability`: P(inside) for one fix.
public enum ProbabilityCommand: Subcommand {
    public static let name = "probability"
    public static let abstract = "Print the probability of being inside a fence, given a fix's distance and GPS error."
    public static let discussion = """
        The true position is the fix plus a 2D Gaussian error of --sigma per axis; its distance
        from the center follows the Rice distribution, and P(inside) is its CDF at --radius
        (1 - Marcum Q1). Accurate to 1e-9 absolute; never NaN. Example: rotate probability
        --distance 100 --radius 100 --sigma 20 prints 0.459902: a fix exactly on the edge is inside
        less than half the time.
        """
    public static let options: [OptionSpec] = [
        OptionSpec("--distance", value: "M", help: "Distance of the fix from the fence center, meters.", required: true),
        OptionSpec("--radius", value: "M", help: "Fence radius, meters.", required: true),
        OptionSpec("--sigma", value: "M", help: "GPS error per axis, meters (0: an exact fix).", required: true),
        OptionSpec("--json", help: "Print one JSON object."),
    ]

    public struct Options: Equatable, Sendable {
        var distanceMeters: Double
        var radiusMeters: Double
        var sigmaMeters: Double
        var json: Bool
    }

    public static func parse(_ arguments: Arguments) throws(CommandError) -> Options {
        Options(
            distanceMeters: try arguments.double("--distance", in: 0...1e9), radiusMeters: try arguments.double("--radius", in: 0...1e9),
            sigmaMeters: try arguments.double("--sigma", in: 0...1e9), json: arguments.flag("--json"))
    }

    public static func run(_ options: Options, console: Console) throws(CommandError) {
        let d = options.distanceMeters, r = options.radiusMeters, s = options.sigmaMeters
        let p = InsideProbability.value(distanceMeters: d, radiusMeters: r, sigmaMeters: s)
        if options.json {
            var object = JSONObject()
            object.add("distance_m", d, decimals: 6)
            object.add("radius_m", r, decimals: 6)
            object.add("sigma_m", s, decimals: 6)
            object.add("p_inside", p, decimals: 12)
            console.out(object.text)
        } else {
            console.out(TextFormat.fixed(p, decimals: 6))
        }
    }
}
