import Foundation
import RotateFormats
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
}
