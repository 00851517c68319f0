import Foundation
import Geodesy
import RotateTestSupport
import Testing

@testable import RotateJSON

/// The sidecar's JSON reader against Foundation's `JSONSerialization` as the reference.
@Suite struct StrictJSONTests {
    /// A random JSON value (finite numbers, strings with escapes and non-ASCII, nesting up to 4,
    /// objects with distinct keys).
    static func randomValue(_ rng: inout SplitMix64, depth: Int = 0) -> JSONValue {
        switch rng.nextInt(below: depth >= 4 ? 4 : 6) {
        case 0: return .null
        case 1: return .bool(rng.nextInt(below: 2) == 0)
        case 2:
            let magnitude = [0, 1, 1e-7, 123.456, 1e300, 46.0512345][rng.nextInt(below: 6)]
            return .number((rng.nextInt(below: 2) == 0 ? -1 : 1) * magnitude * Double(rng.nextInt(below: 1_000)))
        case 3: return .string(randomString(&rng))
        case 4: return .array((0..<rng.nextInt(below: 4)).map { _ in randomValue(&rng, depth: depth + 1) })
        default:
            var fields: [String: JSONValue] = [:]
            for _ in 0..<rng.nextInt(below: 4) { fields[randomString(&rng)] = randomValue(&rng, depth: depth + 1) }
            return .object(fields)
        }
    }

    static func randomString(_ rng: inout SplitMix64) -> String {
        let pieces = ["a", "device", "\"", "\\", "/", "\n", "\t", "\u{01}", "é", "😀", "\u{7F}", " ", "lat"]
        return (0..<rng.nextInt(below: 5)).map { _ in pieces[rng.nextInt(below: pieces.count)] }.joined()
    }

    /// `value` as Foundation objects, for JSONSerialization to write.
    static func foundation(_ value: JSONValue) -> Any {
        switch value {
        case .null: NSNull()
        case .bool(let flag): flag
        case .number(let number): number
        case .string(let text): text
        case .array(let items): items.map(foundation)
        case .object(let fields): fields.mapValues(foundation)
        }
    }

    /// JSONSerialization's reading of a text, in the reader's terms (nil when it refuses it).
    /// Its numbers and booleans both come back as NSNumber; a boolean's type code is `c` (char),
    /// which no JSON number gets.
    static func reference(_ text: String) -> JSONValue? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) else {
            return nil
        }
        func convert(_ any: Any) -> JSONValue? {
            switch any {
            case is NSNull: return .null
            case let text as String: return .string(text)
            case let items as [Any]:
                let converted = items.compactMap(convert)
                return converted.count == items.count ? .array(converted) : nil
            case let fields as [String: Any]:
                var out: [String: JSONValue] = [:]
                for (key, item) in fields {
                    guard let converted = convert(item) else { return nil }
                    out[key] = converted
                }
                return .object(out)
            case let number as NSNumber:
                if String(cString: number.objCType) == "c" { return .bool(number.boolValue) }
                return .number(number.doubleValue)
            default: return nil
            }
        }
        return convert(object)
    }

    /// Whatever JSONSerialization writes (with or without pretty printing), the reader reads
    /// back as the value written.
    @Test func readsWhatFoundationWrites() throws {
        var rng = SplitMix64(seed: TestSeed.value(salt: 811))
        for _ in 0..<2_000 {
            let value = Self.randomValue(&rng)
            let options: JSONSerialization.WritingOptions =
                rng.nextInt(below: 2) == 0 ? [.fragmentsAllowed] : [.fragmentsAllowed, .prettyPrinted]
            let data = try JSONSerialization.data(withJSONObject: Self.foundation(value), options: options)
            let text = String(decoding: data, as: UTF8.self)
            #expect(try StrictJSON.parse(text) == value, "\(text)")
            // And the value's own text (how a line's state is handed to the decoder) reads back.
            #expect(try StrictJSON.parse(value.text) == value, "\(value.text)")
        }
    }

    /// Texts cut, spliced and mutated at random: whatever the reader accepts, JSONSerialization
    /// accepts too and reads as the same value (the reader is never looser than the reference),
    /// and nothing crashes.
    @Test func acceptsNothingFoundationRefuses() throws {
        var rng = SplitMix64(seed: TestSeed.value(salt: 812))
        let noise = ["{", "}", "[", "]", ",", ":", "\"", "\\", "\\u", "0", "-", "1e", ".", " ", "tru", "null", "\u{00}", "01", "\\ud83d"]
        var accepted = 0
        for _ in 0..<4_000 {
            let data = try JSONSerialization.data(withJSONObject: Self.foundation(Self.randomValue(&rng)), options: [.fragmentsAllowed])
            var bytes = Array(String(decoding: data, as: UTF8.self))
            for _ in 0..<rng.nextInt(below: 3) {
                let at = rng.nextInt(below: bytes.count + 1)
                switch rng.nextInt(below: 3) {
                case 0: bytes.insert(contentsOf: noise[rng.nextInt(below: noise.count)], at: at)
                case 1: if at < bytes.count { bytes.remove(at: at) }
                default: bytes = Array(bytes[..<at])
                }
            }
            let text = String(bytes)
            guard let read = try? StrictJSON.parse(text), Self.allFinite(read) else { continue }
            accepted += 1
            #expect(Self.reference(text).map { Self.close($0, read) } == true, "\(text)")
        }
        #expect(accepted > 400)
    }

    /// Reading with one member streamed equals reading whole: the same value once the streamed
    /// array's elements are put back in the order handed over, and the same failure (kind and
    /// offset) for texts mutated at random; an element is never handed over twice.
    @Test func streamingAMemberReadsAsReadingWhole() throws {
        var rng = SplitMix64(seed: TestSeed.value(salt: 813))
        let noise = ["{", "}", "[", "]", ",", ":", "\"", "\"features\":", "0", " ", "\u{00}", "\u{FF}"]
        for round in 0..<3_000 {
            var fields: [String: JSONValue] = ["type": .string("FeatureCollection")]
            if rng.nextInt(below: 4) > 0 { fields["features"] = .array((0..<rng.nextInt(below: 5)).map { _ in Self.randomValue(&rng) }) }
            if rng.nextInt(below: 2) == 0 { fields["other"] = Self.randomValue(&rng) }
            var bytes = Array(JSONValue.object(fields).text.utf8)
            if round % 2 == 1 {
                for _ in 0..<rng.nextInt(below: 3) {
                    let at = rng.nextInt(below: bytes.count + 1)
                    if rng.nextInt(below: 2) == 0 {
                        bytes.insert(contentsOf: Array(noise[rng.nextInt(below: noise.count)].utf8), at: at)
                    } else if at < bytes.count {
                        bytes.remove(at: at)
                    }
                }
            }
            var handed: [(Int, JSONValue)] = []
            let streamed = bytes.withUnsafeBufferPointer { buffer in
                Result { () throws(StrictJSON.Failure) in
                    try StrictJSON.parse(bytes: buffer, streaming: "features") { handed.append(($0, $1)) }
                }
            }
            let whole = bytes.withUnsafeBufferPointer { buffer in
                Result { () throws(StrictJSON.Failure) in try StrictJSON.parse(bytes: buffer) }
            }
            switch (streamed, whole) {
            case (.success(let read), .success(let value)):
                #expect(handed.map(\.0) == Array(0..<handed.count))
                guard case .object(var members) = read.value else {
                    #expect(read.streamedCount == nil && read.value == value)
                    continue
                }
                if let count = read.streamedCount {
                    #expect(count == handed.count && members["features"] == .array([]))
                    members["features"] = .array(handed.map(\.1))
                } else {
                    #expect(handed.isEmpty)
                }
                #expect(JSONValue.object(members) == value, "\(String(decoding: bytes, as: UTF8.self))")
            case (.failure(let a), .failure(let b)):
                #expect(a == b, "\(String(decoding: bytes, as: UTF8.self))")
            default:
                Issue.record("streamed \(streamed), whole \(whole): \(String(decoding: bytes, as: UTF8.self))")
            }
        }
    }

    /// Whether every number in `value` is finite (the reader reads a magnitude past the double
    /// range as infinity, which the sidecar refuses; JSONSerialization refuses it at once).
    static func allFinite(_ value: JSONValue) -> Bool {
        switch value {
        case .number(let number): number.isFinite
        case .array(let items): items.allSatisfy(allFinite)
        case .object(let fields): fields.values.allSatisfy(allFinite)
        default: true
        }
    }

    /// Equal, numbers within a relative 1e-15: JSONSerialization on Linux reads some 17-digit
    /// numbers an ulp off, where the reader rounds correctly (`Double(String)`).
    static func close(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.number(let x), .number(let y)): return x == y || abs(x - y) <= 1e-15 * max(abs(x), abs(y))
        case (.array(let xs), .array(let ys)): return xs.count == ys.count && zip(xs, ys).allSatisfy { close($0, $1) }
        case (.object(let xs), .object(let ys)):
            return xs.count == ys.count && xs.allSatisfy { key, x in ys[key].map { close(x, $0) } ?? false }
        default: return a == b
        }
    }

    /// What RFC 8259 does not allow, and a repeated key, are refused where they occur.
    @Test(arguments: [
        ("", StrictJSON.Failure.Kind.syntax), ("01", .syntax), ("1.", .syntax), (".5", .syntax), ("-", .syntax), ("1e", .syntax),
        ("+1", .syntax), ("[1,]", .syntax), ("{\"a\":1,}", .syntax), ("{a:1}", .syntax), ("'a'", .syntax), ("[1 2]", .syntax),
        ("\"\u{01}\"", .syntax), ("\"\\x\"", .syntax), ("\"\\ud800\"", .loneSurrogate), ("\"\\udc00\"", .loneSurrogate),
        ("\"\\ud800\\u0041\"", .loneSurrogate), ("\"abc", .syntax),
        ("true false", .syntax), ("nul", .syntax), ("NaN", .syntax), ("{\"a\":1,\"a\":2}", .repeatedKey("a")),
        ("{\"a\":{\"b\":1,\"b\":1}}", .repeatedKey("b")), (String(repeating: "[", count: 65) + String(repeating: "]", count: 65), .tooDeep),
    ])
    func refuses(text: String, kind: StrictJSON.Failure.Kind) {
        #expect(throws: StrictJSON.Failure.self) { try StrictJSON.parse(text) }
        do {
            _ = try StrictJSON.parse(text)
        } catch {
            #expect(error.kind == kind)
        }
    }

    /// Every number reads as the nearest double, bit for bit what `Double(String)` (strtod)
    /// gives: short decimals (the exact fast path), long ones, leading and trailing zeros, large
    /// and tiny exponents, negative zero.
    @Test func readsNumbersAsStrtodDoes() throws {
        var rng = SplitMix64(seed: 8259)
        func digits(_ count: Int, leadingZeroAllowed: Bool) -> String {
            var text = ""
            for i in 0..<count {
                let low = i == 0 && !leadingZeroAllowed ? 1 : 0
                text.append(Character(Unicode.Scalar(UInt8(ascii: "0") + UInt8(low + rng.nextInt(below: 10 - low)))))
            }
            return text
        }
        var texts = [
            "0", "-0", "-0.0", "0e5", "9007199254740993", "9007199254740992.5", "1e22", "1e23", "1e-22", "1e-23",
            "123456789012345678901234", "0.1000000000000000055511151231257827", "4.9e-324", "1.7976931348623157e308", "1e400",
            "-1e-400", "0.00000000000000000000000000001", "12345678901234567890", "1234567890123456789",
        ]
        for _ in 0..<20_000 {
            var text = rng.nextInt(below: 2) == 0 ? "-" : ""
            text += rng.nextInt(below: 4) == 0 ? "0" : digits(1 + rng.nextInt(below: 22), leadingZeroAllowed: false)
            if rng.nextInt(below: 3) > 0 { text += "." + digits(1 + rng.nextInt(below: 22), leadingZeroAllowed: true) }
            if rng.nextInt(below: 3) == 0 {
                text +=
                    ["e", "E", "e+", "e-", "E-"][rng.nextInt(below: 5)] + String(rng.nextInt(below: rng.nextInt(below: 2) == 0 ? 30 : 400))
            }
            texts.append(text)
        }
        for text in texts {
            let expected = try #require(Double(text))
            guard case .number(let read) = try StrictJSON.parse(text) else {
                Issue.record("\(text) is not a number")
                continue
            }
            #expect(read.bitPattern == expected.bitPattern, "\(text): \(read) != \(expected)")
        }
    }

    @Test func readsEscapesAndSurrogatePairs() throws {
        #expect(try StrictJSON.parse(#""a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00""#) == .string("a\"\\/\u{08}\u{0C}\n\r\té😀"))
        #expect(try StrictJSON.parse(" [ -0.5e+2 , 1E-2,0 ] ") == .array([.number(-50), .number(0.01), .number(0)]))
        #expect(try StrictJSON.parse(String(repeating: "[", count: 64) + String(repeating: "]", count: 64)) != .null)
    }
}
