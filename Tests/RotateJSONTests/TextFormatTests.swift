import Foundation
import Geodesy
import RotateJSON
import RotateTestSupport
import Testing

@Suite struct TextFormatTests {
    @Test(arguments: [
        (2760.456, 1, "2760.5"), (0.0, 2, "0.00"), (-1.25, 1, "-1.3"), (1e-9, 3, "0.000"),
        (-0.0004, 3, "0.000"), (12.0, 0, "12"), (Double.nan, 1, "nan"), (-Double.infinity, 1, "-inf"),
    ])
    func fixedDecimals(value: Double, decimals: Int, expected: String) {
        #expect(TextFormat.fixed(value, decimals: decimals) == expected)
    }

    @Test(arguments: [(0, "0"), (999, "999"), (1000, "1,000"), (1234567, "1,234,567"), (-1234, "-1,234")])
    func groupedIntegers(value: Int, expected: String) {
        #expect(TextFormat.grouped(value) == expected)
    }

    @Test func jsonObjectIsValidJSONWithEscapes() throws {
        var object = JSONObject()
        object.add("text", "quote \" backslash \\ newline \n tab \t bell \u{7} é")
        object.add("n", 3)
        object.add("x", 1.5)
        object.add("missing", Double.nan)
        object.add("none", Double?.none)
        object.add("flag", true)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(object.text.utf8)) as? [String: Any])
        #expect(parsed["text"] as? String == "quote \" backslash \\ newline \n tab \t bell \u{7} é")
        #expect(parsed["n"] as? Int == 3)
        #expect(parsed["x"] as? Double == 1.5)
        #expect(parsed["missing"] is NSNull)
        #expect(parsed["none"] is NSNull)
        #expect(parsed["flag"] as? Bool == true)
    }

    /// The obvious implementations, strings built piece by piece: what the byte writers must equal.
    static func referenceFixed(_ value: Double, _ decimals: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value > 0 ? "inf" : "-inf") }
        var scale: Double = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9e18 else { return "\(value)" }
        let units = UInt64(scaled)
        var text = (value < 0 && units > 0 ? "-" : "") + String(units / UInt64(scale))
        if decimals > 0 {
            let digits = String(units % UInt64(scale))
            text += "." + String(repeating: "0", count: decimals - digits.count) + digits
        }
        return text
    }

    static func referenceQuoted(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// Random doubles (every magnitude, negative zero, values at the rounding halfway points) with
    /// 0–15 decimals, and random strings of control characters, quotes, backslashes and non-ASCII
    /// text: the byte writers give exactly the reference's text, in a JSON object too.
    @Test func byteWritersEqualTheReference() throws {
        var rng = SplitMix64(seed: TestSeed.value(salt: 1_201))
        for _ in 0..<20_000 {
            let exponent = rng.nextDouble(in: -12..<20)
            var value = (rng.nextInt(below: 2) == 0 ? -1 : 1) * Foundation.pow(10, exponent) * rng.nextDouble(in: 0..<1)
            if rng.nextInt(below: 10) == 0 { value = (Double(rng.nextInt(below: 20_000)) + 0.5) / 1_000 }
            if rng.nextInt(below: 50) == 0 { value = [-0.0, 0, .infinity, -.infinity, .nan, 9.2e18, -1e300][rng.nextInt(below: 7)] }
            let decimals = rng.nextInt(below: 16)
            #expect(TextFormat.fixed(value, decimals: decimals) == Self.referenceFixed(value, decimals), "\(value) \(decimals)")
        }
        let pieces = ["a", "\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1f}", "\u{7f}", "é", "😀", " ", "line", "\u{2028}"]
        for _ in 0..<5_000 {
            let text = (0..<rng.nextInt(below: 8)).map { _ in pieces[rng.nextInt(below: pieces.count)] }.joined()
            #expect(JSONObject.quoted(text) == Self.referenceQuoted(text), "\(text.debugDescription)")
            var object = JSONObject()
            object.add(text, text)
            object.add("n", -rng.nextInt(below: 1_000_000))
            #expect(object.text.hasPrefix("{" + Self.referenceQuoted(text) + ":" + Self.referenceQuoted(text) + ",\"n\":"))
        }
        func addInner(_ object: inout JSONObject) { object.add("a", 1) }
        var outer = JSONObject()
        outer.add("o", nested: addInner)
        outer.add("list", objectsOf: [true, false, true]) { filled, item in if filled { addInner(&item) } }
        outer.add("s", strings: ["x\"", "y"])
        outer.add("none", objectsOf: [Bool]()) { _, _ in }
        outer.add("empty", strings: [])
        #expect(outer.text == #"{"o":{"a":1},"list":[{"a":1},{},{"a":1}],"s":["x\"","y"],"none":[],"empty":[]}"#)
        var empty = JSONObject()
        #expect(empty.text == "{}")
        empty.add("k", Int.min)
        #expect(empty.text == "{\"k\":\(Int.min)}")
    }
}
