import FencePlanner
import Foundation
import Geodesy
import RotateTestSupport
import Testing

@testable import RotateFormats

/// GPX text through the file reader, as the command line reads it.
func readGPX(_ text: String, strict: Bool = false) throws -> WalkFile {
    try readGPX(bytes: Array(text.utf8), strict: strict)
}

func readGPX(bytes: [UInt8], strict: Bool = false) throws -> WalkFile {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("rotate-\(UUID().uuidString).gpx").path
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try WalkFile.read(path: path, strict: strict)
}

@Suite struct GPXReaderTests {
    @Test func gpx11TrackWithTimes() throws {
        let walk = try readGPX(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1">
              <metadata><time>2001-01-01T00:00:00Z</time></metadata>
              <!-- a comment with <trkpt lat="0" lon="0"> inside -->
              <trk><trkseg>
                <trkpt lat="45.0" lon="14.0"><ele>3</ele><time>2010-10-03T09:36:30Z</time></trkpt>
                <trkpt lon='14.001' lat='45.001'><time>2010-10-03T09:36:40Z</time></trkpt>
                <trkpt lat="45.002" lon="14.002"><time>2010-10-03T09:36:35Z</time></trkpt>
                <trkpt lat="45.003" lon="14.003"/>
              </trkseg></trk>
              <wpt lat="1" lon="1"><time>2010-10-03T09:00:00Z</time></wpt>
            </gpx>
            """)
        #expect(walk.fixes.count == 2)
        #expect(walk.fixes.map(\.timestampSeconds) == [0, 10])
        #expect(walk.lines == [6, 7])
        #expect(walk.rejected.map(\.line) == [8, 9])
        #expect(walk.rejected[0].reason.contains("stale"))
        #expect(walk.rejected[1].reason == WalkFileError.Reason.untimedPoint.description)
    }

    @Test func gpxWaypointsWithoutTimesAsInXcode() throws {
        let walk = try readGPX(
            """
            <?xml version="1.0"?>
            <gpx version="1.1" creator="Xcode">
                <wpt lat="37.331705" lon="-122.030237"><name>Cupertino</name></wpt>
                <wpt lat="37.332" lon="-122.03"></wpt>
                <wpt lat="37.333" lon="-122.029"/>
            </gpx>
            """)
        #expect(walk.fixes.count == 3)
        #expect(walk.fixes.map(\.timestampSeconds) == [0, 1, 2])
    }

    @Test func gpxRoutePointsAndBadPoints() throws {
        let walk = try readGPX(
            "<gpx><rte><rtept lat=\"1\" lon=\"2\"/><rtept lat=\"x\" lon=\"2\"/><rtept lon=\"2\"/><rtept lat=\"100\" lon=\"2\"/></rte></gpx>"
        )
        #expect(walk.fixes.count == 1)
        #expect(
            walk.rejected.map(\.reason) == [
                WalkFileError.Reason.notANumber("lat", "x").description,
                WalkFileError.Reason.missingAttribute("lat").description,
                WalkFileError.Reason.outOfRange("latitude 100.0 is outside -90...90").description,
            ])
    }

    @Test func bundledTracksReadAsTheirCSVConversions() throws {
        for (gpxName, csvName) in [
            ("korita-zbevnica.gpx", "walk-korita-zbevnica.csv"),
            ("cerknicko-jezero.gpx", "walk-cerknicko-jezero.csv"),
            ("around-visnjan-with-car.gpx", "walk-around-visnjan-with-car.csv"),
        ] {
            let fromGPX = try WalkFile.read(path: DatasetPaths.path(gpxName))
            let fromCSV = try WalkFile.read(path: DatasetPaths.path(csvName))
            #expect(fromGPX.fixes.count == fromCSV.fixes.count, "\(gpxName)")
            #expect(fromGPX.fixes.map(\.coordinate) == fromCSV.fixes.map(\.coordinate), "\(gpxName)")
            #expect(fromGPX.fixes.map(\.timestampSeconds) == fromCSV.fixes.map(\.timestampSeconds), "\(gpxName)")
        }
        // korita-zbevnica has a whole track without times: those points are rejected, not guessed.
        let korita = try WalkFile.read(path: DatasetPaths.path("korita-zbevnica.gpx"))
        #expect(korita.rejected.count == 358)
        #expect(korita.rowsRead == 871)
    }

    /// A file past 10,000,000 bytes (libxml2's lookahead limit when given a whole document) is
    /// read to its end, and lines past 65,535 (libxml2 keeps some line numbers in 16 bits) are
    /// still the points' lines.
    @Test func aLongFileIsReadToItsEndWithExactLines() throws {
        let name = String(repeating: "a long waypoint name ", count: 7)
        var text = "<gpx xmlns=\"http://www.topografix.com/GPX/1/1\">\n"
        for i in 0..<70_000 { text += "<wpt lat=\"\(Double(i % 1000) / 100)\" lon=\"1\"><name>\(name)</name></wpt>\n" }
        text += "</gpx>\n"
        #expect(text.utf8.count > 10_000_000)
        let walk = try WalkFile.read(gpx: Array(text.utf8))
        #expect(walk.fixes.count == 70_000)
        #expect(walk.lines == Array(2...70_001))
    }

    /// What a document is expected to give: points at these coordinates (with these lines), or an
    /// error on a line whose text holds a phrase.
    enum Outcome: Sendable, CustomStringConvertible {
        case points([Double], lines: [Int])
        case error(line: Int, saying: String)

        var description: String {
            switch self {
            case .points(let values, let lines): "points \(values) on lines \(lines)"
            case .error(let line, let phrase): "error on line \(line) saying '\(phrase)'"
            }
        }
    }

    static let gpx11 = "http://www.topografix.com/GPX/1/1"
    static func track(_ body: String) -> String {
        "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" xmlns=\"\(gpx11)\" xmlns:x=\"urn:example:x\">\n<trk><trkseg>\n\(body)\n</trkseg></trk>\n</gpx>\n"
    }
    static let point1 = "<trkpt lat=\"45.1\" lon=\"14.1\"><time>2020-01-01T00:00:00Z</time></trkpt>"
    static let point2 = "<trkpt lat=\"45.2\" lon=\"14.2\"><time>2020-01-01T00:00:10Z</time></trkpt>"

    /// Each case as a document and what reading it must give; `points` lists each point's
    /// latitude, then longitude, then its time in seconds after the first.
    static let cases: [(name: String, text: String, outcome: Outcome)] = [
        // Not well-formed: an error with the line, never a shorter or different walk.
        ("cut short", String(track(point1 + "\n" + point2).prefix(230)), .error(line: 5, saying: "ends before <time> (line 5)")),
        (
            "no end tag of the root", track(point1).replacingOccurrences(of: "</gpx>\n", with: ""),
            .error(line: 5, saying: "ends before <gpx> (line 2)")
        ),
        (
            "mismatched end tag", track(point1 + "\n<trkpt lat=\"1\" lon=\"2\"></trkpoint>"),
            .error(line: 5, saying: "does not match <trkpt>")
        ),
        ("two roots", track(point1) + "<gpx version=\"1.1\"></gpx>\n", .error(line: 7, saying: "content after the root")),
        ("text after the root", track(point1) + "trailing text\n", .error(line: 7, saying: "content after the root")),
        ("an attribute twice", track("<trkpt lat=\"1\" lat=\"2\" lon=\"3\"/>"), .error(line: 4, saying: "twice")),
        ("unquoted attributes", track("<trkpt lat=1 lon=2/>"), .error(line: 4, saying: "quoted value")),
        ("a raw ampersand", track(point1 + "<!-- --><trkpt lat=\"1\" lon=\"2\"><name>R&D</name></trkpt>"), .error(line: 4, saying: "'&'")),
        ("'<' in an attribute", track("<trkpt lat=\"1\" lon=\"2\" x:note=\"a<b\"/>"), .error(line: 4, saying: "'<'")),
        (
            "an undefined entity", track("<trkpt lat=\"1\" lon=\"2\"><name>&nbsp;</name></trkpt>"),
            .error(line: 4, saying: "undefined entity")
        ),
        (
            "an unclosed point before a self-closing one", track("<trkpt lat=\"1\" lon=\"2\">\n<trkpt lat=\"3\" lon=\"4\"/>"),
            .error(line: 6, saying: "does not match <trkpt>")
        ),
        (
            "a root that is not gpx", "<kml xmlns=\"http://www.opengis.net/kml/2.2\"><wpt lat=\"1\" lon=\"2\"/></kml>",
            .error(line: 1, saying: "<kml>")
        ),
        (
            "gpx in another namespace", "<gpx xmlns=\"urn:example:other\"><wpt lat=\"1\" lon=\"2\"/></gpx>",
            .error(line: 1, saying: "urn:example:other")
        ),
        // Namespaces: only GPX elements at their place in the schema are read.
        (
            "a point of another namespace in extensions",
            track("<trkpt lat=\"45.1\" lon=\"14.1\"><extensions><x:trkpt lat=\"0\" lon=\"0\"/></extensions></trkpt>"),
            .points([45.1, 14.1, 0], lines: [4])
        ),
        (
            "a time of another namespace in extensions",
            track(
                "<trkpt lat=\"45.1\" lon=\"14.1\"><time>2020-01-01T00:00:00Z</time></trkpt>\n"
                    + "<trkpt lat=\"45.2\" lon=\"14.2\"><time>2020-01-01T00:00:10Z</time><extensions><x:time>2020-01-01T01:00:00Z</x:time></extensions></trkpt>"
            ),
            .points([45.1, 14.1, 0, 45.2, 14.2, 10], lines: [4, 5])
        ),
        (
            "a GPX-named point inside extensions",
            track(point1 + "<extensions><trkpt lat=\"0\" lon=\"0\"/><wpt lat=\"0\" lon=\"0\"/></extensions>"),
            .points([45.1, 14.1, 0], lines: [4])
        ),
        (
            "prefixed GPX elements",
            "<g:gpx xmlns:g=\"\(gpx11)\"><g:wpt lat=\"1.5\" lon=\"2.5\"/><wpt lat=\"0\" lon=\"0\"/></g:gpx>",
            .points([1.5, 2.5, 0], lines: [1])
        ),
        (
            "GPX 1.0", "<gpx version=\"1.0\" xmlns=\"http://www.topografix.com/GPX/1/0\">\n<wpt lat=\"1\" lon=\"2\"/></gpx>",
            .points([1, 2, 0], lines: [2])
        ),
        // Valid XML: read as XML defines it.
        ("a character reference", track("<trkpt lat=\"&#53;0.0\" lon=\"&#x31;4\"/>"), .points([50, 14, 0], lines: [4])),
        (
            "an internal DTD entity",
            "<?xml version=\"1.0\"?>\n<!DOCTYPE gpx [<!ENTITY home \"46.05\">]>\n<gpx><wpt lat=\"&home;\" lon=\"14.5\"/></gpx>",
            .points([46.05, 14.5, 0], lines: [3])
        ),
        ("a line break before '='", track("<trkpt lat\n=\"1\" lon\n=\n'2'/>"), .points([1, 2, 0], lines: [7])),
        (
            "CDATA in a time", track("<trkpt lat=\"1\" lon=\"2\"><time><![CDATA[2020-01-01T00:00:00Z]]></time></trkpt>"),
            .points([1, 2, 0], lines: [4])
        ),
    ]

    @Test(arguments: cases.indices)
    func documentsReadAsXMLDefinesThem(index: Int) throws {
        let (name, text, outcome) = Self.cases[index]
        let context = Comment(rawValue: "\(name): expected \(outcome)\n\(text)")
        switch outcome {
        case .points(let values, let lines):
            let walk: WalkFile
            do {
                walk = try readGPX(text)
            } catch {
                Issue.record(Comment(rawValue: "\(name): \(error)\n\(context.rawValue)"))
                return
            }
            let read: [Double] = walk.fixes.flatMap { [$0.coordinate.latitude, $0.coordinate.longitude, $0.timestampSeconds ?? -1] }
            #expect(read.count == values.count && zip(read, values).allSatisfy { abs($0 - $1) < 1e-9 }, context)
            #expect(walk.lines == lines, context)
            #expect(walk.rejected.isEmpty, context)
        case .error(let line, let phrase):
            do {
                let walk = try readGPX(text)
                Issue.record(Comment(rawValue: "\(name): read \(walk.fixes.count) fixes\n\(context.rawValue)"))
            } catch let error as WalkFileError {
                #expect(error.line == line, context)
                #expect(error.reason.description.contains(phrase), Comment(rawValue: "\(error.reason)\n\(context.rawValue)"))
            }
        }
    }

    /// A UTF-16 document (with its byte order mark, either byte order) reads as its UTF-8 twin.
    @Test(arguments: [false, true])
    func utf16DocumentsReadAsUTF8(bigEndian: Bool) throws {
        let text =
            "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<gpx><wpt lat=\"46.05\" lon=\"14.5\"><name>Škofja Loka</name></wpt>\n<wpt lat=\"46.1\" lon=\"14.6\"/></gpx>\n"
        var bytes: [UInt8] = bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]
        for unit in text.utf16 {
            bytes += bigEndian ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)]
        }
        let walk = try readGPX(bytes: bytes)
        let twin = try readGPX(text.replacingOccurrences(of: "UTF-16", with: "UTF-8"))
        #expect(walk.fixes.map(\.coordinate) == twin.fixes.map(\.coordinate))
        #expect(walk.fixes.count == 2)
        #expect(walk.lines == twin.lines)
    }

    /// The character U+0000, which XML allows nowhere, is refused with its line and column: in
    /// UTF-8, and in UTF-16 where its conversion would start with the bytes 00 00 00 3C (which
    /// libxml2 takes for UTF-32 and crashes on).
    @Test func theNulCharacterIsRefusedWithItsLine() throws {
        let utf8: [UInt8] = Array("<gpx>\n<wpt lat=\"1\" ".utf8) + [0] + Array("lon=\"2\"/></gpx>\n".utf8)
        #expect(throws: WalkFileError(line: 2, reason: .notWellFormedXML(column: 14, "a character XML does not allow (U+0000)"))) {
            try readGPX(bytes: utf8)
        }
        let text = "\u{0}\u{0}\u{0}<gpx><wpt lat=\"1\" lon=\"2\"/></gpx>"
        let utf16: [UInt8] = [0xFE, 0xFF] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        #expect(throws: WalkFileError(line: 1, reason: .notWellFormedXML(column: 1, "a character XML does not allow (U+0000)"))) {
            try readGPX(bytes: utf16)
        }
        // The input libFuzzer found: a UTF-16 byte order mark before NULs and UTF-8 text.
        let found = Data(
            base64Encoded:
                "/v8AAAAAAAAAPD94bWwgdmVyc2lvbj0iMS4wIj8+CjxncHggdmVyc2lvbj0iMS4xIj48dHJrPjx0cmtzZWc+PHRya3B0//oAAAAAAAAAAAAAAAAAACBsYXQ9IjQ1LjgiIGxvbj0iMTUuOTciPjx0aW1lPjIwMjQtMDEtMDFUMDA6MDA6MDBaPC90aW1lPjwvdHJrcHQ+PHRya3B0IGxhdD0iNDUuODEiIGxvbj0iMTUuOTgiLz48L3Rya3NlZz4AAP/6PC90cms+PC9ncHg+Cg=="
        )!
        #expect(throws: WalkFileError.self) { try readGPX(bytes: [UInt8](found)) }
    }

    /// Bytes that are not UTF-8 in a document that declares no other encoding are an error on
    /// their line; the same byte in a document declared ISO-8859-1 is a letter.
    @Test func bytesThatAreNotTextInTheEncodingAreAnError() throws {
        let body: [UInt8] = Array("<gpx>\n<wpt lat=\"1\" lon=\"2\"><name>".utf8) + [0xE9] + Array("</name></wpt></gpx>\n".utf8)
        #expect {
            try readGPX(bytes: body)
        } throws: { error in
            (error as? WalkFileError).map { $0.line == 2 && $0.reason.description.contains("encoding that XML does not allow") } ?? false
        }
        let declared = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n".utf8) + body
        #expect(try readGPX(bytes: declared).fixes.count == 1)
    }

    /// Constructs that `XMLParser` on Linux cannot be handed (it dereferences a null pointer and
    /// the process dies): each is read, or refused with its line, and the test process survives.
    @Test(
        arguments: [
            ("<gpx>\n<?pi?><wpt lat=\"1\" lon=\"2\"/></gpx>", nil),
            ("<?pi?>\n<gpx><wpt lat=\"1\" lon=\"2\"/></gpx>", nil),
            ("<!DOCTYPE gpx [\n<?pi?>]>\n<gpx><wpt lat=\"1\" lon=\"2\"/></gpx>", nil),
            ("<!DOCTYPE gpx [\n<!ELEMENT gpx ANY>]><gpx><wpt lat=\"1\" lon=\"2\"/></gpx>", nil),
            ("<!DOCTYPE gpx [\n<!NOTATION n SYSTEM \"x\">]><gpx/>", 2),
            ("<!DOCTYPE gpx [<!-- -->\n\n<!NOTATION n PUBLIC \"p\">]><gpx/>", 3),
            ("<!DOCTYPE gpx [\n<!ENTITY e SYSTEM \"y\" NDATA n>]><gpx/>", 2),
            ("<!DOCTYPE gpx [\n<!ATTLIST wpt lat CDATA #IMPLIED>]><gpx/>", 2),
            ("<!DOCTYPE gpx [\n<!ATTLIST wpt lat CDATA \"0\">]><gpx><wpt lon=\"1\"/></gpx>", 2),
            ("<!DOCTYPE gpx [\n<!ENTITY e \"&#60;?pi?>\">]><gpx>&e;</gpx>", 2),
            ("<!DOCTYPE gpx [<!ENTITY % p \"<!NOTATION n SYSTEM 'x'>\">\n%p;]><gpx/>", 1),
            ("<!DOCTYPE gpx [<!ENTITY % p \"x\">\n%p;]><gpx/>", 2),
            ("<!DOCTYPE gpx [<!ENTITY e '<wpt lat=\"1\" lon=\"2\"/>'>]>\n<gpx>&e;</gpx>", 1),
        ] as [(String, Int?)])
    func constructsXMLParserCannotTakeAreReadOrRefused(text: String, refusedOnLine: Int?) throws {
        if let line = refusedOnLine {
            #expect {
                try readGPX(text)
            } throws: { error in
                guard let error = error as? WalkFileError, case .unsupportedXML = error.reason else { return false }
                return error.line == line
            }
        } else {
            #expect(try readGPX(text).fixes.count == 1)
        }
    }

    /// Markup the parser holds whole (a tag with its attributes, a comment, a CDATA section, a
    /// processing instruction, the DOCTYPE) is read up to 1 MiB and refused past it with the line
    /// where it starts and its length (the parser alone stops past 10 MB with "libxml2 error 1");
    /// text between tags has no such limit; a name past libxml2's 50,000 characters is named.
    @Test func markupLongerThanTheLimitIsRefusedWithItsLine() throws {
        let limit = XMLGuard.maximumMarkupBytes
        func document(_ markup: String) -> String {
            "<gpx xmlns=\"http://www.topografix.com/GPX/1/1\">\n<wpt lat=\"1\" lon=\"2\"/>\n\(markup)\n<wpt lat=\"1.1\" lon=\"2\"/></gpx>\n"
        }
        func refusal(_ markup: String) -> WalkFileError? {
            do {
                _ = try readGPX(document(markup))
                return nil
            } catch {
                return error as? WalkFileError
            }
        }
        // `<wpt lat="1" lon="2" name="` and `"/>`: 30 bytes around the value.
        func point(_ bytes: Int) -> String { "<wpt lat=\"1\" lon=\"2\" name=\"" + String(repeating: "n", count: bytes - 30) + "\"/>" }
        #expect(point(limit).utf8.count == limit)
        #expect(try readGPX(document(point(limit))).fixes.count == 3)
        let filler = String(repeating: "x", count: limit)
        let cases: [(markup: String, what: String)] = [
            (point(limit + 1), "a tag (its attributes included)"),
            (point(11_000_000), "a tag (its attributes included)"),
            ("<wpt lat=\"1\"\n lon=\"2\" note='a>b \(filler)'/>", "a tag (its attributes included)"),
            ("<!-- \(filler) -->", "a comment"),
            ("<desc><![CDATA[\(filler)]]></desc>", "a CDATA section"),
            ("<?pi \(filler)?>", "a processing instruction"),
        ]
        for (markup, what) in cases {
            let start = markup.hasPrefix("<desc>") ? 6 : 0
            let bytes = markup.utf8.count - start - (markup.hasPrefix("<desc>") ? 7 : 0)
            #expect(refusal(markup) == WalkFileError(line: 3, reason: .unsupportedXML("\(what) is \(bytes) bytes long; at most \(limit)")))
        }
        let doctype = "<!DOCTYPE gpx [<!ENTITY e \"\(filler)\">]>"
        #expect {
            try readGPX(doctype + "\n" + document(""))
        } throws: { error in
            error as? WalkFileError
                == WalkFileError(
                    line: 1, reason: .unsupportedXML("the DOCTYPE declaration is \(doctype.utf8.count) bytes long; at most \(limit)"))
        }
        // Text between tags is passed to the reader in pieces: no limit.
        #expect(try readGPX(document("<desc>\(String(repeating: "t", count: 3 * limit))</desc>")).fixes.count == 2)
        #expect(
            refusal("<\(String(repeating: "e", count: 50_001))/>")?.reason
                == .notWellFormedXML(column: 2, "a name longer than 50000 characters (an element's, an attribute's or an entity's)"))
    }

    /// A document with none of those constructs reaches the parser byte for byte.
    @Test func otherDocumentsReachTheParserUnchanged() throws {
        var rng = SplitMix64(seed: TestSeed.value(salt: 905))
        for _ in 0..<50 {
            let text = Array(GPXFuzzTests.randomTrack(&rng, count: rng.nextInt(below: 6)).utf8)
            #expect(try XMLGuard.prepare(text) == text)
        }
        let dtd = Array("<!DOCTYPE gpx [<!ENTITY home \"46.05\"><!ELEMENT gpx ANY><?pi data?>]>\n<gpx/>".utf8)
        #expect(try XMLGuard.prepare(dtd) == dtd)
    }

    /// External entities are not loaded: a document naming a file on this machine reads nothing
    /// from it.
    @Test func externalEntitiesAreNotLoaded() throws {
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("rotate-\(UUID().uuidString).txt").path
        try Data("45.5".utf8).write(to: URL(fileURLWithPath: secret))
        defer { try? FileManager.default.removeItem(atPath: secret) }
        let text =
            "<?xml version=\"1.0\"?>\n<!DOCTYPE gpx [<!ENTITY lat SYSTEM \"file://\(secret)\">]>\n<gpx><wpt lat=\"1\" lon=\"2\"><name>&lat;</name></wpt></gpx>\n"
        let walk = try? readGPX(text)
        #expect(walk.map { $0.fixes.map(\.coordinate.latitude) } ?? [1] == [1])
    }
}

@Suite struct GPXFuzzTests {
    static let gpx11 = "http://www.topografix.com/GPX/1/1"

    /// A well-formed random track: `count` points with values drawn from digits, signs, dots,
    /// letters and numbers, some untimed, some self-closing, among markup that is no track point
    /// (comments and CDATA holding point tags, `<ele>`, waypoints in a track, points and times of
    /// another namespace, GPX-named points inside `<extensions>`, segment breaks).
    static func randomTrack(_ rng: inout SplitMix64, count: Int) -> String {
        let valueAlphabet = Array("0123456789.-+eaxZ: ".utf8)
        let times = [
            "2020-01-01T00:00:00Z", "2020-01-01T00:00:05Z", "2020-01-01T00:00:03.5Z", "2020-01-01T00:01:00+01:00", "yesterday", "",
        ]
        let between = [
            "<!-- <trkpt lat=\"-89.25\" lon=\"-179.25\"/> -->", "<![CDATA[<trkpt lat=\"-89.25\" lon=\"-179.25\">]]>",
            "<wpt lat=\"-89.25\" lon=\"-179.25\"/>", "</trkseg><trkseg>", "</trkseg></trk><trk><trkseg>", "\n", " ",
            "<x:trkpt lat=\"-89.25\" lon=\"-179.25\"/>", "<extensions><trkpt lat=\"-89.25\" lon=\"-179.25\"/></extensions>",
        ]
        let inside = [
            "<ele>3</ele>", "<!-- <time>2030-01-01T00:00:00Z</time> -->", "<extensions><x:time>2030-01-01T00:00:00Z</x:time></extensions>",
            "<extensions><time>2030-01-01T00:00:00Z</time></extensions>",
        ]
        func value() -> String {
            if rng.nextUnit() < 0.6 { return String(rng.nextDouble(in: -100..<100)) }
            return String(
                decoding: (0..<rng.nextInt(below: 6)).map { _ in valueAlphabet[rng.nextInt(below: valueAlphabet.count)] }, as: UTF8.self)
        }
        var text = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" xmlns=\"\(gpx11)\" xmlns:x=\"urn:example:x\"><trk><trkseg>"
        for _ in 0..<count {
            for _ in 0..<rng.nextInt(below: 3) { text += between[rng.nextInt(below: between.count)] }
            var attributes = ""
            if rng.nextUnit() < 0.95 { attributes += " lat=\"\(value())\"" }
            if rng.nextUnit() < 0.95 { attributes += " lon='\(value())'" }
            if rng.nextUnit() < 0.3 {
                text += "<trkpt\(attributes)/>"
            } else {
                let time = rng.nextUnit() < 0.8 ? "<time>\(times[rng.nextInt(below: times.count)])</time>" : ""
                text += "<trkpt\(attributes)>\(inside[rng.nextInt(below: inside.count)])\(time)</trkpt>"
            }
        }
        return text + "</trkseg></trk></gpx>\n"
    }

    /// Every track point of a random track is accepted or rejected, none is lost or invented (no
    /// fix at the decoys' coordinates), a track with no valid point names them all as rejected,
    /// and times never go backwards.
    @Test func randomGPXTrackPointsAreAllAcceptedOrRejected() throws {
        let seed = TestSeed.value(salt: 903)
        var rng = SplitMix64(seed: seed)
        for round in 0..<400 {
            let points = rng.nextInt(below: 12)
            let text = Self.randomTrack(&rng, count: points)
            let context = Comment(rawValue: "round \(round), \(TestSeed.replay(seed)), \(points) points: \(text)")
            let walk: WalkFile
            do {
                walk = try WalkFile.read(gpx: Array(text.utf8))
            } catch {
                guard case .noValidPoints(let rejected) = error.reason else {
                    Issue.record("\(error); \(context.rawValue)")
                    continue
                }
                #expect(rejected.count == points, context)
                continue
            }
            #expect(walk.fixes.count + walk.rejected.count == points, context)
            #expect(!walk.fixes.contains { $0.coordinate.latitude == -89.25 }, context)
            #expect(
                zip(walk.fixes, walk.fixes.dropFirst()).allSatisfy { ($0.timestampSeconds ?? 0) <= ($1.timestampSeconds ?? 0) }, context)
        }
    }

    /// A random track cut anywhere before the end of its root is an error on a line of what is
    /// left (not well-formed, or no GPX when the cut leaves no whole root start tag), never a
    /// shorter walk.
    @Test func randomTracksCutShortAreErrors() throws {
        let seed = TestSeed.value(salt: 904)
        var rng = SplitMix64(seed: seed)
        for round in 0..<300 {
            let text = Array(Self.randomTrack(&rng, count: 1 + rng.nextInt(below: 8)).utf8)
            let end = text.count - "</gpx>\n".utf8.count
            let cut = Array(text[0..<(1 + rng.nextInt(below: end))])
            let lines = 1 + cut.filter { $0 == 0x0A }.count
            let context = Comment(rawValue: "round \(round), \(TestSeed.replay(seed)): \(String(decoding: cut, as: UTF8.self))")
            do {
                let walk = try WalkFile.read(gpx: cut)
                Issue.record(Comment(rawValue: "read \(walk.fixes.count) fixes\n\(context.rawValue)"))
            } catch {
                #expect(error.line >= 1 && error.line <= lines, context)
                // Cut inside the root's start tag or before it, the document may also be no GPX.
                let rootStartTagEnd = text.firstRange(of: Array("<trk>".utf8))?.lowerBound ?? 0
                switch error.reason {
                case .notWellFormedXML: break
                case .notGPX where cut.count <= rootStartTagEnd: break
                default: Issue.record(Comment(rawValue: "\(error)\n\(context.rawValue)"))
                }
            }
        }
    }

    /// Random bytes heavy in GPX syntax, through the file reader: an answer or an error, never
    /// a crash or a hang, and accepted times never go backwards.
    @Test func randomBytesNeverCrashTheGPXReader() {
        var rng = SplitMix64(seed: TestSeed.value(salt: 901))
        let gpxAlphabet = Array(
            "<gpx trkpt wpt rtept lat=\"1.5\" lon='2' <time>2020-01-01T00:00:00Z</time> /> <!-- --> <![CDATA[ ]]> &amp; &#x41; x:a xmlns:x='u' \n"
                .utf8)
        for _ in 0..<500 {
            let bytes =
                Array("<gpx>".utf8)
                + (0..<rng.nextInt(below: 120)).map { _ in
                    rng.nextUnit() < 0.9 ? gpxAlphabet[rng.nextInt(below: gpxAlphabet.count)] : UInt8(truncatingIfNeeded: rng.next())
                }
            if let walk = try? WalkFile.read(gpx: bytes) {
                #expect(zip(walk.fixes, walk.fixes.dropFirst()).allSatisfy { ($0.timestampSeconds ?? 0) <= ($1.timestampSeconds ?? 0) })
            }
        }
    }
}
