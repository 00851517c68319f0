/// Numbers as the formats write them: decimal text only.
///
/// `[+-]? digits [. digits] [(e|E) [+-]? digits]` with at least one digit before the exponent, and
/// the words `nan`, `inf` and `infinity` (any case, optional sign), which parse so that readers
/// reject them as not finite with that reason. `Double(String)` alone would also take hexadecimal
/// (`0x10` as 16, `0x1p3` as 8), which no format allows.
public enum DecimalText {
    /// The value of `text` (not trimmed), or nil when it is not decimal text.
    public static func double<Text: StringProtocol>(_ text: Text) -> Double? {
        let utf8 = Array(text.utf8)
        return double(utf8[...])
    }

    /// The value of UTF-8 `bytes` (not trimmed), or nil when they are not decimal text.
    public static func double(_ bytes: ArraySlice<UInt8>) -> Double? {
        guard isDecimal(bytes) || isNonFiniteWord(bytes) else { return nil }
        return Double(String(decoding: bytes, as: UTF8.self))
    }

    static func isDecimal(_ text: ArraySlice<UInt8>) -> Bool {
        var j = text.startIndex
        func isDigit(_ i: Int) -> Bool { i < text.endIndex && text[i] &- 0x30 <= 9 }
        if j < text.endIndex && (text[j] == 0x2B || text[j] == 0x2D) { j += 1 }
        var digits = 0
        while isDigit(j) {
            j += 1
            digits += 1
        }
        if j < text.endIndex && text[j] == 0x2E {
            j += 1
            while isDigit(j) {
                j += 1
                digits += 1
            }
        }
        guard digits > 0 else { return false }
        if j < text.endIndex && (text[j] == 0x65 || text[j] == 0x45) {
            j += 1
            if j < text.endIndex && (text[j] == 0x2B || text[j] == 0x2D) { j += 1 }
            guard isDigit(j) else { return false }
            while isDigit(j) { j += 1 }
        }
        return j == text.endIndex
    }

    static func isNonFiniteWord(_ text: ArraySlice<UInt8>) -> Bool {
        var word = text
        if let first = word.first, first == 0x2B || first == 0x2D { word = word.dropFirst() }
        guard word.count <= 8 else { return false }
        let lowered = String(decoding: word, as: UTF8.self).lowercased()
        return lowered == "nan" || lowered == "inf" || lowered == "infinity"
    }
}
