import FenceRules
import RotateFormats

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
        OptionSpec("--distance", value: "M", help: "Distance of the fix from the fence center, meters."),
        OptionSpec("--radius", value: "M", help: "Fence radius, meters."),
        OptionSpec("--sigma", value: "M", help: "GPS error per axis, meters (0: an exact fix)."),
        OptionSpec("--json", help: "Print one JSON object."),
    ]

    public static func run(_ arguments: Arguments, console: Console) throws(CommandError) {
        for required in ["--distance", "--radius", "--sigma"] where arguments.string(required) == nil {
            throw .usage("\(required) is required")
        }
        let d = try arguments.double("--distance", default: 0, in: 0...1e9)
        let r = try arguments.double("--radius", default: 0, in: 0...1e9)
        let s = try arguments.double("--sigma", default: 0, in: 0...1e9)
        let p = InsideProbability.value(distanceMeters: d, radiusMeters: r, sigmaMeters: s)
        if arguments.flag("--json") {
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
