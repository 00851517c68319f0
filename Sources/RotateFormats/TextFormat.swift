/// Number formatting for reports, without Foundation (deterministic, locale-free).
public enum TextFormat {
    /// `value` with exactly `decimals` digits after the point (half away from zero), e.g.
    /// `fixed(2760.456, decimals: 1)` is `"2760.5"`. Non-finite values print as `nan`, `inf`, `-inf`.
    public static func fixed(_ value: Double, decimals: Int) -> String {
        precondition((0...15).contains(decimals), "0 to 15 decimals")
        guard value.isFinite else { return value.isNaN ? "nan" : (value > 0 ? "inf" : "-inf") }
        var scale: Double = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9e18 else { return "\(value)" }
        let units = UInt64(scaled)
        let whole = units / UInt64(scale)
        let fraction = units % UInt64(scale)
        var text = (value < 0 && units > 0 ? "-" : "") + String(whole)
        if decimals > 0 {
            let digits = String(fraction)
            text += "." + String(repeating: "0", count: decimals - digits.count) + digits
        }
        return text
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

/// Builds one JSON object, keys in insertion order (so output is deterministic).
public struct JSONObject: Sendable {
    private var members: [String] = []

    public init() {}

    public mutating func add(_ key: String, _ value: Int) {
        members.append("\(Self.quoted(key)):\(value)")
    }

    public mutating func add(_ key: String, _ value: UInt64) {
        members.append("\(Self.quoted(key)):\(value)")
    }

    /// A number with `decimals` digits; non-finite values become `null`.
    public mutating func add(_ key: String, _ value: Double, decimals: Int = 3) {
        members.append("\(Self.quoted(key)):\(value.isFinite ? TextFormat.fixed(value, decimals: decimals) : "null")")
    }

    public mutating func add(_ key: String, _ value: Double?, decimals: Int = 3) {
        if let value { add(key, value, decimals: decimals) } else { members.append("\(Self.quoted(key)):null") }
    }

    public mutating func add(_ key: String, _ value: String) {
        members.append("\(Self.quoted(key)):\(Self.quoted(value))")
    }

    public mutating func add(_ key: String, _ value: Bool) {
        members.append("\(Self.quoted(key)):\(value)")
    }

    /// A member whose value is JSON text already (an array, a nested object).
    public mutating func add(_ key: String, json value: String) {
        members.append("\(Self.quoted(key)):\(value)")
    }

    /// The object on one line.
    public var text: String { "{" + members.joined(separator: ",") + "}" }

    /// A JSON string literal (RFC 8259 escapes).
    public static func quoted(_ string: String) -> String {
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
}
