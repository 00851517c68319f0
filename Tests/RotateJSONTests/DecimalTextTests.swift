import Foundation
import RotateJSON
import RotateTestSupport
import Testing

/// Numbers in every format are decimal text: `DecimalText` against a regular expression of the
/// grammar, and the readers refusing hexadecimal.
@Suite struct DecimalTextTests {
    static let grammar = try! NSRegularExpression(
        pattern: #"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$|^[+-]?(nan|inf|infinity)$"#,
        options: [.caseInsensitive])

    static func matchesGrammar(_ text: String) -> Bool {
        grammar.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    @Test(arguments: ["0x10", "0x1p3", "0X1P-2", "-0x8", "1_000", "1e", "e5", ".", "+", "1.2.3", " 1", "1 ", "١٢", "0b1", "inf1", "nana"])
    func nonDecimalTextIsNotANumber(text: String) {
        #expect(DecimalText.double(text) == nil, "\(text)")
    }

    @Test(arguments: [("16", 16.0), ("-0.5", -0.5), ("+3", 3), ("1e3", 1_000), ("2.5E-1", 0.25), (".5", 0.5), ("5.", 5), ("007", 7)])
    func decimalTextIsItsValue(text: String, value: Double) {
        #expect(DecimalText.double(text) == value)
    }

    @Test func randomTextAgreesWithTheGrammar() {
        let seed = TestSeed.value(salt: 5_200)
        var rng = SplitMixForSeeds(state: seed)
        let alphabet = Array("0123456789+-.eExXpPabcfinNAty _")
        for _ in 0..<20_000 {
            let text = String((0..<Int(rng.next() % 8)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] })
            let parsed = DecimalText.double(text)
            #expect((parsed != nil) == Self.matchesGrammar(text), "\(text.debugDescription), \(TestSeed.replay(seed))")
            if let parsed, let reference = Double(text) {
                #expect(parsed.bitPattern == reference.bitPattern || (parsed.isNaN && reference.isNaN), "\(text)")
            }
        }
    }

    /// The one number reader converts exactly as `Double(String)` does, bit for bit, on decimals
    /// with 1 to 25 significant digits, leading and trailing zeros, the point anywhere, and
    /// exponents that reach past the double range both ways (the fast path and the fallback).
    @Test func scanIsCorrectlyRoundedLikeDoubleFromString() {
        let seed = TestSeed.value(salt: 5_201)
        var rng = SplitMixForSeeds(state: seed)
        for _ in 0..<50_000 {
            var digits = String((0..<Int(1 + rng.next() % 25)).map { _ in Character(String(rng.next() % 10)) })
            if rng.next() % 4 == 0 { digits = String(repeating: "0", count: Int(rng.next() % 4)) + digits }
            let point = Int(rng.next() % UInt64(digits.count + 1))
            var text = rng.next() % 3 == 0 ? "-" : ""
            text += point == digits.count ? digits : String(digits.prefix(point)) + "." + String(digits.dropFirst(point))
            if text.hasSuffix(".") || text.hasPrefix(".") || text.hasPrefix("-.") { text = text.replacingOccurrences(of: ".", with: "") }
            switch rng.next() % 4 {
            case 0: text += "e\(Int(rng.next() % 60) - 30)"
            case 1: text += "E\(Int(rng.next() % 700) - 350)"
            default: break
            }
            let bytes = Array(text.utf8)
            let scan = bytes.withUnsafeBufferPointer { DecimalText.scan($0, from: 0) }
            guard let reference = Double(text) else { continue }
            #expect(scan?.end == bytes.count, "\(text)")
            #expect(
                scan?.value.bitPattern == reference.bitPattern, "\(text): \(scan?.value ?? .nan) vs \(reference), \(TestSeed.replay(seed))")
        }
    }
}
