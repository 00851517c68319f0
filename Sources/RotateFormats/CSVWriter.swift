import Foundation

/// Writes RFC 4180 CSV fields and rows.
public enum CSVWriter {
    /// A field, quoted (quotes doubled) whenever a reader would otherwise change it: when it holds
    /// a comma, a quote or a line break, or starts or ends with a space or a tab (an unquoted
    /// field is read trimmed).
    ///
    /// Checked by bytes, not `Character`s: CR LF is one `Character`, equal to neither `"\r"` nor
    /// `"\n"`.
    public static func field(_ text: String) -> String {
        let utf8 = text.utf8
        let isBlank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        guard
            utf8.first.map(isBlank) == true || utf8.last.map(isBlank) == true
                || utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D })
        else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A row of fields joined by commas (no line end).
    public static func row(_ fields: [String]) -> String { fields.map(field).joined(separator: ",") }

    /// A coordinate or distance in plain decimal notation with up to `decimals` digits
    /// (trailing zeros dropped), never in exponent form while `value` times 10^`decimals` is
    /// below 9e18; past that (a time read from a file can be), as Swift prints the number
    /// (`2.5e+20`), whose digits are all kept.
    public static func decimal(_ value: Double, decimals: Int = 7) -> String {
        var text = TextFormat.fixed(value, decimals: decimals)
        if text.contains("."), !text.contains("e") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text == "-0" ? "0" : text
    }
}
