import Testing

@testable import RotateFormats

/// The replay's clock text for every `Double`: exact below an hour and past it, a sign for
/// negative times, words for the non-finite values, and no trap however large the value.
@Suite struct ReplaySceneClockTests {
    /// Values whose text is worked out by hand (3661 s = 1 h 1 min 1 s).
    @Test(
        arguments: zip(
            [0, -0.0, 0.4, -0.4, 59.4, 59.5, 61, 3_599.4, 3_599.5, 3_661, 36_000, 359_999, -59, -61, -3_661],
            [
                "0:00", "0:00", "0:00", "0:00", "0:59", "1:00", "1:01", "59:59", "1:00:00", "1:01:01", "10:00:00", "99:59:59",
                "-0:59", "-1:01", "-1:01:01",
            ]))
    func textOfTimesWorkedOutByHand(seconds: Double, text: String) {
        #expect(ReplayScene.clock(seconds) == text)
    }

    @Test func nonFiniteValuesAreWords() {
        #expect(ReplayScene.clock(.nan) == "?")
        #expect(ReplayScene.clock(.infinity) == "∞")
        #expect(ReplayScene.clock(-.infinity) == "-∞")
    }

    /// Hours, minutes and seconds read back give the value again (to its own precision) from a
    /// second to the largest finite `Double`, on both sides of zero; minutes and seconds stay
    /// below 60.
    @Test(arguments: [1e4, 1e9, 9.2e18, 1e19, 1e20, 1e300, .greatestFiniteMagnitude])
    func largeValuesReadBack(magnitude: Double) throws {
        for seconds in [magnitude, -magnitude] {
            let text = ReplayScene.clock(seconds)
            #expect(text.hasPrefix("-") == (seconds < 0), "\(text)")
            let parts = text.drop { $0 == "-" }.split(separator: ":")
            try #require(parts.count == 3, "\(text)")
            let hours = try #require(Double(parts[0])), minutes = try #require(Double(parts[1]))
            let secondsPart = try #require(Double(parts[2]))
            #expect(minutes < 60 && secondsPart < 60 && parts[1].count == 2 && parts[2].count == 2, "\(text)")
            let back = hours * 3_600 + minutes * 60 + secondsPart
            #expect(abs(back - magnitude) <= magnitude * 1e-15, "\(text)")
        }
    }
}
