import Foundation
import RotateFormats
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

    @Test func readersRejectHexadecimalWithTheirLine() throws {
        let places = try PlacesCSV.read(bytes: Array("id,lat,lon,radius_m\na,0x10,1,100\nb,1,0x1p3,100\nc,1,2,0x64\nd,1,2,100\n".utf8))
        #expect(places.places.map(\.id) == ["d"])
        #expect(places.rejected.map(\.line) == [2, 3, 4])
        let walk = try WalkFile.read(
            gpx: Array(#"<gpx version="1.1"><trk><trkseg><trkpt lat="0x10" lon="1"/><trkpt lat="1" lon="2"/></trkseg></trk></gpx>"#.utf8))
        #expect(walk.fixes.count == 1 && walk.rejected.count == 1)
    }
}
