/// Any JSON value (RFC 8259), as the sidecar reads it: a boolean is not a number, a number is not
/// a string.
package indirect enum JSONValue: Equatable {
    case number(Double)
    case string(String)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([String: JSONValue])

    /// The value as JSON text (object keys sorted; numbers as Swift writes doubles, integers
    /// below 2^53 without a fraction), which `StrictJSON` and any JSON reader read back as the
    /// same value.
    package var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let flag): out += flag ? "true" : "false"
        case .number(let number):
            if number == number.rounded(), abs(number) < 9_007_199_254_740_992 {
                out += String(Int64(number))
            } else {
                out += "\(number)"
            }
        case .string(let text): out += JSONObject.quoted(text)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case .object(let fields):
            out += "{"
            for (i, field) in fields.sorted(by: { $0.key < $1.key }).enumerated() {
                if i > 0 { out += "," }
                out += JSONObject.quoted(field.key)
                out += ":"
                field.value.write(to: &out)
            }
            out += "}"
        }
    }
}

/// Reads one JSON text strictly: the grammar of RFC 8259 and nothing more (no comments, no
/// trailing commas, no leading zeros, no control characters in strings, nothing after the value),
/// and an object that names a key twice is refused. RFC 8259 leaves repeated names to the reader
/// ("the names within an object SHOULD be unique"); readers differ on which one wins, so the
/// sidecar takes neither. Arrays and objects nest at most `maximumDepth` deep.
package struct StrictJSON {
    /// Why a text was refused, with the byte offset (0-based) where reading stopped.
    package struct Failure: Error, Equatable {
        package enum Kind: Equatable {
            /// Not JSON at all: a syntax error.
            case syntax
            /// An object names `key` twice.
            case repeatedKey(String)
            /// Nested deeper than `maximumDepth`.
            case tooDeep
        }
        package var kind: Kind
        package var offset: Int
    }

    package static let maximumDepth = 64

    private let bytes: UnsafeBufferPointer<UInt8>
    private var at = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// The value `text` holds.
    package static func parse(_ text: String) throws(Failure) -> JSONValue {
        var text = text
        let result: Result<JSONValue, Failure> = text.withUTF8 { buffer in
            var reader = StrictJSON(buffer)
            do throws(Failure) {
                reader.skipSpace()
                let value = try reader.value(depth: 0)
                reader.skipSpace()
                guard reader.at == buffer.count else { throw reader.failure(.syntax) }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private func failure(_ kind: Failure.Kind) -> Failure { Failure(kind: kind, offset: at) }

    private var current: UInt8? { at < bytes.count ? bytes[at] : nil }

    private mutating func skipSpace() {
        while at < bytes.count, bytes[at] == 0x20 || bytes[at] == 0x09 || bytes[at] == 0x0A || bytes[at] == 0x0D { at += 1 }
    }

    private mutating func expect(_ literal: StaticString) throws(Failure) {
        let count = literal.utf8CodeUnitCount
        guard at + count <= bytes.count else { throw failure(.syntax) }
        for i in 0..<count where bytes[at + i] != literal.utf8Start[i] { throw failure(.syntax) }
        at += count
    }

    private mutating func value(depth: Int) throws(Failure) -> JSONValue {
        guard let byte = current else { throw failure(.syntax) }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try expect("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expect("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expect("null")
            return .null
        default: return .number(try number())
        }
    }

    private mutating func object(depth: Int) throws(Failure) -> JSONValue {
        guard depth <= Self.maximumDepth else { throw failure(.tooDeep) }
        at += 1
        // Room for a report's members from the start: no rehashing as the object grows.
        var fields = [String: JSONValue](minimumCapacity: 8)
        skipSpace()
        if current == UInt8(ascii: "}") {
            at += 1
            return .object(fields)
        }
        while true {
            skipSpace()
            guard current == UInt8(ascii: "\"") else { throw failure(.syntax) }
            let keyOffset = at
            let key = try string()
            skipSpace()
            guard current == UInt8(ascii: ":") else { throw failure(.syntax) }
            at += 1
            skipSpace()
            let item = try value(depth: depth)
            guard fields.updateValue(item, forKey: key) == nil else { throw Failure(kind: .repeatedKey(key), offset: keyOffset) }
            skipSpace()
            guard let next = current else { throw failure(.syntax) }
            at += 1
            if next == UInt8(ascii: "}") { return .object(fields) }
            guard next == UInt8(ascii: ",") else {
                at -= 1
                throw failure(.syntax)
            }
        }
    }

    private mutating func array(depth: Int) throws(Failure) -> JSONValue {
        guard depth <= Self.maximumDepth else { throw failure(.tooDeep) }
        at += 1
        var items: [JSONValue] = []
        skipSpace()
        if current == UInt8(ascii: "]") {
            at += 1
            return .array(items)
        }
        while true {
            skipSpace()
            items.append(try value(depth: depth))
            skipSpace()
            guard let next = current else { throw failure(.syntax) }
            at += 1
            if next == UInt8(ascii: "]") { return .array(items) }
            guard next == UInt8(ascii: ",") else {
                at -= 1
                throw failure(.syntax)
            }
        }
    }

    /// A string from its opening quote; escapes decoded, surrogate pairs joined (a lone
    /// surrogate is refused).
    private mutating func string() throws(Failure) -> String {
        at += 1
        let start = at
        // The common case: no escape, so the bytes are the string.
        while at < bytes.count, bytes[at] != UInt8(ascii: "\""), bytes[at] != UInt8(ascii: "\\"), bytes[at] >= 0x20 { at += 1 }
        guard at < bytes.count else { throw failure(.syntax) }
        if bytes[at] == UInt8(ascii: "\"") {
            defer { at += 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
        }
        var scalars = Array(bytes[start..<at])
        while true {
            guard let byte = current else { throw failure(.syntax) }
            guard byte >= 0x20 else { throw failure(.syntax) }
            if byte == UInt8(ascii: "\"") {
                at += 1
                return String(decoding: scalars, as: UTF8.self)
            }
            guard byte == UInt8(ascii: "\\") else {
                scalars.append(byte)
                at += 1
                continue
            }
            at += 1
            guard let escaped = current else { throw failure(.syntax) }
            at += 1
            switch escaped {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escaped)
            case UInt8(ascii: "b"): scalars.append(0x08)
            case UInt8(ascii: "f"): scalars.append(0x0C)
            case UInt8(ascii: "n"): scalars.append(0x0A)
            case UInt8(ascii: "r"): scalars.append(0x0D)
            case UInt8(ascii: "t"): scalars.append(0x09)
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800...0xDBFF).contains(code) {
                    guard current == UInt8(ascii: "\\"), at + 1 < bytes.count, bytes[at + 1] == UInt8(ascii: "u") else {
                        throw failure(.syntax)
                    }
                    at += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw failure(.syntax) }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(code) {
                    throw failure(.syntax)
                }
                guard let scalar = Unicode.Scalar(code) else { throw failure(.syntax) }
                scalars.append(contentsOf: UTF8.encode(scalar)!)
            default:
                at -= 1
                throw failure(.syntax)
            }
        }
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard at + 4 <= bytes.count else { throw failure(.syntax) }
        var code: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[at]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure(.syntax)
            }
            code = code << 4 | UInt32(digit)
            at += 1
        }
        return code
    }

    /// A number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, as the nearest double
    /// (a magnitude past the double range is ±infinity, which the sidecar then refuses as not
    /// finite), read by `DecimalText`, the one number reader, with JSON's grammar applied.
    private mutating func number() throws(Failure) -> Double {
        guard let scan = DecimalText.scan(bytes, from: at), !scan.plusSign, scan.integerDigits > 0, !scan.leadingZero,
            scan.fractionDigits != 0
        else { throw failure(.syntax) }
        // An exponent marker without digits ends the scan before it: the `e` is then a syntax error.
        at = scan.end
        if let next = current, next == UInt8(ascii: "e") || next == UInt8(ascii: "E") || next == UInt8(ascii: ".") {
            throw failure(.syntax)
        }
        return scan.value
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
