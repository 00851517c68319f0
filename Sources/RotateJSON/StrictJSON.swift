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
            /// A string holds bytes that are not UTF-8 (only a text read as bytes can).
            case notUTF8
            /// A `\u` escape names half of a surrogate pair without the other half.
            case loneSurrogate
        }
        package var kind: Kind
        package var offset: Int

        /// The failure in words, at its place in `bytes`, the text it was read from
        /// (`StrictJSON.location(of:in:)`): `line 3, column 14 (byte 52): unexpected 'x'`.
        package func description(in bytes: UnsafeBufferPointer<UInt8>) -> String {
            let what: String
            switch kind {
            case .syntax:
                what =
                    offset >= bytes.count
                    ? "the text ends before the JSON value does" : "not valid JSON: unexpected \(StrictJSON.name(of: bytes[offset]))"
            case .repeatedKey(let key): what = "the key \"\(key.prefix(64))\" appears twice in one object"
            case .tooDeep: what = "arrays and objects nested deeper than \(StrictJSON.maximumDepth)"
            case .notUTF8: what = "a string holds bytes that are not UTF-8"
            case .loneSurrogate: what = "a \\u escape names half of a surrogate pair without the other half (not a character)"
            }
            return "\(StrictJSON.location(of: offset, in: bytes)): \(what)"
        }
    }

    /// Where byte `offset` of `bytes` is, as a person finds it: `line L, column C (byte B)`, the
    /// line and column from 1 (the column in bytes of UTF-8; CR LF, LF and CR each end a line),
    /// the offset from 0.
    package static func location(of offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> String {
        var line = 1, lineStart = 0, i = 0
        let end = min(offset, bytes.count)
        while i < end {
            let byte = bytes[i]
            i += 1
            if byte == 0x0A || (byte == 0x0D && !(i < bytes.count && bytes[i] == 0x0A)) {
                line += 1
                lineStart = i
            }
        }
        return "line \(line), column \(offset - lineStart + 1) (byte \(offset))"
    }

    /// A byte as a message names it: `'x'` when it is printable ASCII, else `byte 0xNN`.
    package static func name(of byte: UInt8) -> String {
        byte >= 0x21 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    package static let maximumDepth = 64

    private let bytes: UnsafeBufferPointer<UInt8>
    private var at = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// The value `text` holds.
    package static func parse(_ text: String) throws(Failure) -> JSONValue {
        var text = text
        let result: Result<JSONValue, Failure> = text.withUTF8 { buffer in Result { () throws(Failure) in try parse(bytes: buffer) } }
        return try result.get()
    }

    /// The value the UTF-8 text `bytes` holds (strings checked to be UTF-8).
    package static func parse(bytes: UnsafeBufferPointer<UInt8>) throws(Failure) -> JSONValue {
        var reader = StrictJSON(bytes)
        reader.skipSpace()
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.at == bytes.count else { throw reader.failure(.syntax) }
        return value
    }

    /// Reads a JSON text whose value may be an object with one large array member, without
    /// holding that array: each element of the top-level object's member `streamed` (when its
    /// value is an array) is read and handed to `element` with its index, then dropped; every
    /// other member, and any other value, is read whole. The text is checked as `parse(bytes:)`
    /// checks it, to its end.
    ///
    /// - Returns: the value, with the streamed member's array empty, and how many elements it
    ///   had (nil when there was no such member, or it was not an array).
    package static func parse(
        bytes: UnsafeBufferPointer<UInt8>, streaming streamed: String, element: (Int, JSONValue) -> Void
    ) throws(Failure) -> (value: JSONValue, streamedCount: Int?) {
        var reader = StrictJSON(bytes)
        reader.skipSpace()
        guard reader.current == UInt8(ascii: "{") else { return (try parse(bytes: bytes), nil) }
        var count: Int?
        let value = try reader.object(depth: 1) { (reader: inout StrictJSON, key: String) throws(Failure) -> JSONValue? in
            guard key == streamed, count == nil, reader.current == UInt8(ascii: "[") else { return nil }
            var index = 0
            try reader.elements(depth: 2) { (reader: inout StrictJSON) throws(Failure) in
                element(index, try reader.value(depth: 2))
                index += 1
            }
            count = index
            return .array([])
        }
        reader.skipSpace()
        guard reader.at == bytes.count else { throw reader.failure(.syntax) }
        return (value, count)
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
        try object(depth: depth) { (_: inout StrictJSON, _: String) throws(Failure) -> JSONValue? in nil }
    }

    /// An object from its opening brace; `member` may read a member's value itself (returning
    /// it), or leave it to be read as usual (returning nil).
    private mutating func object(
        depth: Int, member: (inout StrictJSON, String) throws(Failure) -> JSONValue?
    ) throws(Failure) -> JSONValue {
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
            let item: JSONValue
            if let read = try member(&self, key) { item = read } else { item = try value(depth: depth) }
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
        var items: [JSONValue] = []
        try elements(depth: depth) { (reader: inout StrictJSON) throws(Failure) in items.append(try reader.value(depth: depth)) }
        return .array(items)
    }

    /// An array from its opening bracket, each element read by `element`.
    private mutating func elements(depth: Int, _ element: (inout StrictJSON) throws(Failure) -> Void) throws(Failure) {
        guard depth <= Self.maximumDepth else { throw failure(.tooDeep) }
        at += 1
        skipSpace()
        if current == UInt8(ascii: "]") {
            at += 1
            return
        }
        while true {
            skipSpace()
            try element(&self)
            skipSpace()
            guard let next = current else { throw failure(.syntax) }
            at += 1
            if next == UInt8(ascii: "]") { return }
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
            guard let text = String(validating: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self) else {
                throw Failure(kind: .notUTF8, offset: start - 1)
            }
            at += 1
            return text
        }
        var scalars = Array(bytes[start..<at])
        while true {
            guard let byte = current else { throw failure(.syntax) }
            guard byte >= 0x20 else { throw failure(.syntax) }
            if byte == UInt8(ascii: "\"") {
                guard let text = String(validating: scalars, as: UTF8.self) else { throw Failure(kind: .notUTF8, offset: start - 1) }
                at += 1
                return text
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
                let escapeOffset = at - 2
                var code = try hex4()
                if (0xD800...0xDBFF).contains(code) {
                    guard current == UInt8(ascii: "\\"), at + 1 < bytes.count, bytes[at + 1] == UInt8(ascii: "u") else {
                        throw Failure(kind: .loneSurrogate, offset: escapeOffset)
                    }
                    at += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw Failure(kind: .loneSurrogate, offset: escapeOffset) }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(code) {
                    throw Failure(kind: .loneSurrogate, offset: escapeOffset)
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
