/// Number formatting for reports, without Foundation (deterministic, locale-free).
public enum TextFormat {
    /// `value` with exactly `decimals` digits after the point (half away from zero), e.g.
    /// `fixed(2760.456, decimals: 1)` is `"2760.5"`. Non-finite values print as `nan`, `inf`, `-inf`.
    public static func fixed(_ value: Double, decimals: Int) -> String {
        var bytes: [UInt8] = []
        appendFixed(value, decimals: decimals, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `fixed(_:decimals:)` appended to `bytes` as UTF-8, without an intermediate string.
    public static func appendFixed(_ value: Double, decimals: Int, to bytes: inout [UInt8]) {
        precondition((0...15).contains(decimals), "0 to 15 decimals")
        guard value.isFinite else {
            bytes += value.isNaN ? Array("nan".utf8) : (value > 0 ? Array("inf".utf8) : Array("-inf".utf8))
            return
        }
        var scale: Double = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9e18 else {
            bytes += Array("\(value)".utf8)
            return
        }
        let units = UInt64(scaled)
        let whole = units / UInt64(scale)
        let fraction = units % UInt64(scale)
        if value < 0 && units > 0 { bytes.append(UInt8(ascii: "-")) }
        appendDigits(whole, minimumCount: 1, to: &bytes)
        if decimals > 0 {
            bytes.append(UInt8(ascii: "."))
            appendDigits(fraction, minimumCount: decimals, to: &bytes)
        }
    }

    /// The decimal digits of `value`, left-padded with zeros to `minimumCount`.
    static func appendDigits(_ value: UInt64, minimumCount: Int, to bytes: inout [UInt8]) {
        // Digits from the last, into a buffer on the stack (at most 20, plus zero padding of at
        // most 15 decimals), then one append.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 40) { buffer in
            var i = buffer.count
            var rest = value
            repeat {
                i -= 1
                buffer[i] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest > 0
            while buffer.count - i < minimumCount && i > 0 {
                i -= 1
                buffer[i] = UInt8(ascii: "0")
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[i...]))
        }
    }

    /// An integer with thousands separators: `1234567` → `"1,234,567"`.
    public static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (i, ch) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(ch)
        }
        return (value < 0 ? "-" : "") + out
    }

    /// A rounded value with thousands separators: `grouped(2760.4)` → `"2,760"`.
    public static func grouped(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 9e18 else { return fixed(value, decimals: 0) }
        return grouped(Int(value.rounded(.toNearestOrAwayFromZero)))
    }
}

/// Builds one JSON object, keys in insertion order (so output is deterministic), as UTF-8 bytes
/// written once (no string per member).
public struct JSONObject: Sendable {
    private var bytes: [UInt8]
    /// Where this object's `{` is in `bytes` (after its parent's bytes, for an object written in
    /// place by `add(_:objectsOf:_:)` or `add(_:nested:)`).
    private var start = 0

    public init() {
        bytes = []
        bytes.reserveCapacity(256)
        bytes.append(UInt8(ascii: "{"))
    }

    /// `"key":`, after a comma unless it is the first member.
    private mutating func key(_ key: String) {
        if bytes.count > start + 1 { bytes.append(UInt8(ascii: ",")) }
        Self.appendQuoted(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Writes one object in place, at the end of this object's bytes (moved into it and back,
    /// not copied).
    private mutating func appendObject(_ write: (inout JSONObject) -> Void) {
        var nested = JSONObject(continuing: &bytes)
        write(&nested)
        swap(&bytes, &nested.bytes)
        bytes.append(UInt8(ascii: "}"))
    }

    /// An object that continues `bytes` (taken, leaving them empty).
    private init(continuing bytes: inout [UInt8]) {
        self.bytes = []
        swap(&self.bytes, &bytes)
        start = self.bytes.count
        self.bytes.append(UInt8(ascii: "{"))
    }

    /// A member whose value is an object written in place by `write`.
    public mutating func add(_ key: String, nested write: (inout JSONObject) -> Void) {
        self.key(key)
        appendObject(write)
    }

    /// A member whose value is an array of objects, one per item, each written in place by
    /// `write`.
    public mutating func add<Items: Sequence>(_ key: String, objectsOf items: Items, _ write: (Items.Element, inout JSONObject) -> Void) {
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        var first = true
        for item in items {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            appendObject { write(item, &$0) }
        }
        bytes.append(UInt8(ascii: "]"))
    }

    public mutating func add(_ key: String, _ value: Int) {
        self.key(key)
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        TextFormat.appendDigits(value.magnitude.toUInt64, minimumCount: 1, to: &bytes)
    }

    public mutating func add(_ key: String, _ value: UInt64) {
        self.key(key)
        TextFormat.appendDigits(value, minimumCount: 1, to: &bytes)
    }

    /// A number with `decimals` digits; non-finite values become `null`.
    public mutating func add(_ key: String, _ value: Double, decimals: Int = 3) {
        self.key(key)
        if value.isFinite {
            TextFormat.appendFixed(value, decimals: decimals, to: &bytes)
        } else {
            bytes += Array("null".utf8)
        }
    }

    public mutating func add(_ key: String, _ value: Double?, decimals: Int = 3) {
        if let value {
            add(key, value, decimals: decimals)
        } else {
            self.key(key)
            bytes += Array("null".utf8)
        }
    }

    public mutating func add(_ key: String, _ value: String) {
        self.key(key)
        Self.appendQuoted(value, to: &bytes)
    }

    public mutating func add(_ key: String, _ value: Bool) {
        self.key(key)
        bytes += value ? Array("true".utf8) : Array("false".utf8)
    }

    /// A member whose value is JSON text already (an array, a nested object).
    public mutating func add(_ key: String, json value: String) {
        self.key(key)
        bytes += value.utf8
    }

    /// A member whose value is an array of strings.
    public mutating func add(_ key: String, strings: [String]) {
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        for (i, string) in strings.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            Self.appendQuoted(string, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// The object on one line.
    public var text: String { String(decoding: bytes + [UInt8(ascii: "}")], as: UTF8.self) }

    /// The object on one line, closing its own bytes (one copy fewer than `text`).
    public consuming func finished() -> String {
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A JSON string literal (RFC 8259 escapes).
    public static func quoted(_ string: String) -> String {
        var bytes: [UInt8] = []
        appendQuoted(string, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `quoted(_:)` appended to `bytes`: the string's UTF-8 copied as it is, except `"`, `\\` and
    /// control characters, which are escaped.
    static func appendQuoted(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var string = string
        // The common case, nothing to escape: the bytes as they are, in one copy.
        let copied = string.withUTF8 { utf8 in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if copied {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case UInt8(ascii: "\n"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case UInt8(ascii: "\r"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case UInt8(ascii: "\t"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes += [
                    UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)],
                ]
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

extension UInt {
    fileprivate var toUInt64: UInt64 { UInt64(self) }
}
