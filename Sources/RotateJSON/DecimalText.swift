/// The one reader of numbers written as decimal text, for every format: CSV fields, JSON numbers
/// and command-line values.
///
/// `[+-]? digits [. digits] [(e|E) [+-]? digits]` with at least one digit before the exponent, and
/// (in `double(_:)` only) the words `nan`, `inf` and `infinity` (any case, optional sign), which
/// parse so that readers reject them as not finite with that reason. `Double(String)` alone would
/// also take hexadecimal (`0x10` as 16, `0x1p3` as 8), which no format allows.
///
/// Conversion is correctly rounded, as `strtod` rounds: up to 19 digits are read as one integer,
/// and when that integer is at most 2^53 and the power of ten at most 10^22, both are exact
/// doubles and one multiplication or division rounds correctly (Clinger's fast path, W. D.
/// Clinger, "How to read floating point numbers accurately", PLDI 1990); anything else goes
/// through `Double(String)`. Tests compare every result bit for bit with `Double(String)`.
public enum DecimalText {
    /// One number read from the start of some bytes (`scan(_:from:)`).
    public struct Scan: Equatable, Sendable {
        /// The nearest double (±infinity past the double range, as `strtod` gives).
        public var value: Double
        /// The index after the number's last byte.
        public var end: Int
        /// Whether the number starts with `+`.
        public var plusSign: Bool
        /// Digits before the decimal point (0 for `.5`).
        public var integerDigits: Int
        /// Whether the integer digits start with a 0 and there are more of them (`01`).
        public var leadingZero: Bool
        /// Digits after the decimal point; nil without a decimal point (`5.` has 0).
        public var fractionDigits: Int?

        @inlinable
        init(value: Double, end: Int, plusSign: Bool, integerDigits: Int, leadingZero: Bool, fractionDigits: Int?) {
            self.value = value
            self.end = end
            self.plusSign = plusSign
            self.integerDigits = integerDigits
            self.leadingZero = leadingZero
            self.fractionDigits = fractionDigits
        }
    }

    /// Reads the longest decimal number that starts at `start`: an optional sign, digits with an
    /// optional decimal point (at least one digit in all), and an exponent when `e` or `E` is
    /// followed by digits (otherwise the number ends before the `e`). nil when no number starts
    /// there. The caller applies its own grammar with the `Scan`'s fields (JSON refuses a `+`,
    /// leading zeros, `.5` and `5.`).
    @inlinable @inline(__always)
    public static func scan(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Scan? {
        var j = start
        let end = bytes.count
        var negative = false, plus = false
        if j < end && (bytes[j] == 0x2D || bytes[j] == 0x2B) {
            negative = bytes[j] == 0x2D
            plus = !negative
            j += 1
        }
        // The digits as one integer, a multiply-add each; exact while there are at most 19 digit
        // characters (below 10^19 < 2^64, so nothing wraps). Longer numbers are rare and take the
        // fallback.
        var mantissa: UInt64 = 0
        let integerStart = j
        while j < end, case let digit = bytes[j] &- 0x30, digit <= 9 {
            mantissa = mantissa &* 10 &+ UInt64(digit)
            j += 1
        }
        let integerDigits = j - integerStart
        var fractionDigits: Int?
        if j < end && bytes[j] == 0x2E {
            let fractionStart = j + 1
            var k = fractionStart
            while k < end, case let digit = bytes[k] &- 0x30, digit <= 9 {
                mantissa = mantissa &* 10 &+ UInt64(digit)
                k += 1
            }
            if integerDigits > 0 || k > fractionStart {
                fractionDigits = k - fractionStart
                j = k
            }
        }
        let digitCount = integerDigits + (fractionDigits ?? 0)
        guard digitCount > 0 else { return nil }
        var scale = -(fractionDigits ?? 0)
        var exact = digitCount <= 19
        if j < end && (bytes[j] == 0x65 || bytes[j] == 0x45) {
            var k = j + 1
            var exponentNegative = false
            if k < end && (bytes[k] == 0x2B || bytes[k] == 0x2D) {
                exponentNegative = bytes[k] == 0x2D
                k += 1
            }
            if k < end, bytes[k] &- 0x30 <= 9 {
                var exponent = 0
                while k < end, case let digit = bytes[k] &- 0x30, digit <= 9 {
                    if exponent < 100_000 { exponent = exponent &* 10 &+ Int(digit) } else { exact = false }
                    k += 1
                }
                scale += exponentNegative ? -exponent : exponent
                j = k
            }
        }
        let value: Double
        if exact && mantissa <= 1 << 53 && scale >= -22 && scale <= 22 {
            let magnitude = scale < 0 ? Double(mantissa) / powersOfTen[-scale] : Double(mantissa) * powersOfTen[scale]
            value = negative ? -magnitude : magnitude
        } else if exact && mantissa == 0 {
            value = negative ? -0.0 : 0
        } else {
            value = slowValue(UnsafeBufferPointer(rebasing: bytes[start..<j]))
        }
        let leadingZero = integerDigits > 1 && bytes[integerStart] == 0x30
        return Scan(
            value: value, end: j, plusSign: plus, integerDigits: integerDigits, leadingZero: leadingZero, fractionDigits: fractionDigits)
    }

    /// The value of decimal text that the fast path cannot convert exactly.
    @usableFromInline @inline(never)
    static func slowValue(_ text: UnsafeBufferPointer<UInt8>) -> Double {
        Double(String(decoding: text, as: UTF8.self)) ?? .nan
    }

    /// 10^0 through 10^22, each an exact double.
    @usableFromInline
    static let powersOfTen: [Double] = [
        1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// The value of `text` (not trimmed), or nil when it is not decimal text.
    public static func double<Text: StringProtocol>(_ text: Text) -> Double? {
        let utf8 = Array(text.utf8)
        return double(utf8[...])
    }

    /// The value of UTF-8 `bytes` (not trimmed), or nil when they are not decimal text (the words
    /// `nan`, `inf` and `infinity` read as not finite).
    public static func double(_ bytes: ArraySlice<UInt8>) -> Double? {
        let found = bytes.withUnsafeBufferPointer { buffer in
            scan(buffer, from: 0).flatMap { $0.end == buffer.count ? $0.value : nil }
        }
        if let found { return found }
        guard isNonFiniteWord(bytes) else { return nil }
        return Double(String(decoding: bytes, as: UTF8.self))
    }

    static func isNonFiniteWord(_ text: ArraySlice<UInt8>) -> Bool {
        var word = text
        if let first = word.first, first == 0x2B || first == 0x2D { word = word.dropFirst() }
        guard word.count <= 8 else { return false }
        let lowered = String(decoding: word, as: UTF8.self).lowercased()
        return lowered == "nan" || lowered == "inf" || lowered == "infinity"
    }
}
