import RotateJSON

extension ReplayScene {
    /// A duration or a time on the replay's clock as a person reads it: `M:SS` under an hour,
    /// `H:MM:SS` from an hour on, rounded to the nearest second (halves away from zero).
    ///
    /// Any `Double` is taken, since the times come from input files: a negative value gets a
    /// leading `-` (`-0:59`), one that rounds to zero has none; NaN is `?`, the infinities `∞`
    /// and `-∞`. The hours are plain digits below 9e18 s; past that, where a second is far below
    /// the value's precision, they are the number as Swift prints it (`2.777…e+296`). No value
    /// traps: the arithmetic stays in `Double` until the parts are small enough for `Int64`.
    package static func clock(_ seconds: Double) -> String {
        guard !seconds.isNaN else { return "?" }
        guard seconds.isFinite else { return seconds < 0 ? "-∞" : "∞" }
        let whole = abs(seconds).rounded(.toNearestOrAwayFromZero)
        let sign = seconds < 0 && whole > 0 ? "-" : ""
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        // `truncatingRemainder` is exact, so the minutes and seconds are right at any magnitude.
        let withinHour = Int64(whole.truncatingRemainder(dividingBy: 3_600))
        let minutes = withinHour / 60, secondsPart = withinHour % 60
        let hours = ((whole - Double(withinHour)) / 3_600).rounded()
        guard hours > 0 else { return "\(sign)\(minutes):\(two(secondsPart))" }
        return "\(sign)\(TextFormat.fixed(hours, decimals: 0)):\(two(minutes)):\(two(secondsPart))"
    }
}
