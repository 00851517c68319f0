import Foundation

/// Writes RFC 4180 CSV fields and rows.
public enum CSVWriter {
    /// A field, quoted (quotes doubled) whenever a reader would otherwise change it: when it holds
    /// a comma, a quote or a line break, or starts or ends with a space or a tab (an unquoted
    /// field is read trimmed); and when it holds a control character (U+0000 to U+001F, U+007F,
    /// U+0080 to U+009F) or U+2028 or U+2029, which line-oriented tools and some CSV readers
    /// take for a line end (VT, FF, NEL, the Unicode separators) or a record's end (NUL), so
    /// that such a field stays one field between its quotes. The characters are kept: the field
    /// reads back as it was.
    ///
    /// Checked by bytes, not `Character`s: CR LF is one `Character`, equal to neither `"\r"` nor
    /// `"\n"`.
    public static func field(_ text: String) -> String {
        let utf8 = text.utf8
        let isBlank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        guard utf8.first.map(isBlank) == true || utf8.last.map(isBlank) == true || needsQuotes(utf8) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Whether the UTF-8 bytes hold a comma, a quote, a C0 or C1 control character, DEL, U+2028
    /// or U+2029 (C1 is `C2 80` to `C2 9F`; U+2028 and U+2029 are `E2 80 A8` and `E2 80 A9`).
    static func needsQuotes(_ utf8: String.UTF8View) -> Bool {
        var previous: UInt8 = 0, beforePrevious: UInt8 = 0
        for byte in utf8 {
            if byte < 0x20 || byte == 0x2C || byte == 0x22 || byte == 0x7F { return true }
            if previous == 0xC2 && (0x80...0x9F).contains(byte) { return true }
            if beforePrevious == 0xE2 && previous == 0x80 && (byte == 0xA8 || byte == 0xA9) { return true }
            beforePrevious = previous
            previous = byte
        }
        return false
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
