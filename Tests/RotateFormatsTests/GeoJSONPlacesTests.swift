import Foundation
import Geodesy
import RotateFormats
import Testing

struct GeoJSONPlacesTests {
    /// A square ring of `side` meters around (lat, lon), as GeoJSON positions, counterclockwise
    /// unless `clockwise`.
    static func square(_ lat: Double, _ lon: Double, side: Double, clockwise: Bool = false) -> String {
        let dLat = side / 2 / 111_195
        let dLon = dLat / cos(lat * .pi / 180)
        var corners = [(lon - dLon, lat - dLat), (lon + dLon, lat - dLat), (lon + dLon, lat + dLat), (lon - dLon, lat + dLat)]
        if clockwise { corners.reverse() }
        corners.append(corners[0])
        return "[" + corners.map { "[\($0.0), \($0.1)]" }.joined(separator: ",") + "]"
    }

    static func feature(_ id: String?, _ geometry: String, properties: String = "{}") -> String {
        let idPart = id.map { "\"id\": \($0), " } ?? ""
        return "{\"type\": \"Feature\", \(idPart)\"properties\": \(properties), \"geometry\": \(geometry)}"
    }

    static func collection(_ features: [String]) -> [UInt8] {
        Array("{\"type\": \"FeatureCollection\", \"features\": [\(features.joined(separator: ",\n"))]}".utf8)
    }

    @Test func readsCirclesAndFootprintsAndRejectsEachBadFeatureWithItsIndex() throws {
        // Features 0-3 are places; 4-15 are each wrong in the one way `expected` names below.
        let features = [
            Self.feature(
                "\"cafe\"", "{\"type\": \"Point\", \"coordinates\": [14.5, 46.05]}", properties: "{\"radius_m\": 25, \"name\": \"Café\"}"),
            Self.feature("7", "{\"type\": \"Point\", \"coordinates\": [14.51, 46.05, 300]}"),
            Self.feature(
                nil,
                "{\"type\": \"Polygon\", \"coordinates\": [\(Self.square(46.06, 14.5, side: 80, clockwise: true)), \(Self.square(46.06, 14.5, side: 20))]}",
                properties: "{\"id\": \"mall\"}"),
            Self.feature(
                "\"dateline\"",
                "{\"type\": \"MultiPolygon\", \"coordinates\": [[[[179.99, -0.01], [180, -0.01], [180, 0.01], [179.99, 0.01], [179.99, -0.01]]], [[[-180, -0.01], [-179.98, -0.01], [-179.98, 0.01], [-180, 0.01], [-180, -0.01]]]]}"
            ),
            Self.feature(nil, "{\"type\": \"Point\", \"coordinates\": [14.5, 46.05]}"),
            Self.feature("\"cafe\"", "{\"type\": \"Point\", \"coordinates\": [14.5, 46.05]}"),
            Self.feature("\"line\"", "{\"type\": \"LineString\", \"coordinates\": [[14.5, 46.05], [14.6, 46.05]]}"),
            Self.feature("\"short\"", "{\"type\": \"Polygon\", \"coordinates\": [[[14.5, 46.05], [14.6, 46.05], [14.5, 46.05]]]}"),
            Self.feature(
                "\"open\"", "{\"type\": \"Polygon\", \"coordinates\": [[[14.5, 46.05], [14.6, 46.05], [14.6, 46.06], [14.5, 46.06]]]}"),
            Self.feature(
                "\"bowtie\"",
                "{\"type\": \"Polygon\", \"coordinates\": [[[14.5, 46.05], [14.6, 46.06], [14.6, 46.05], [14.5, 46.06], [14.5, 46.05]]]}"),
            Self.feature(
                "\"hole-outside\"",
                "{\"type\": \"Polygon\", \"coordinates\": [\(Self.square(46.06, 14.5, side: 80)), \(Self.square(46.07, 14.5, side: 20, clockwise: true))]}"
            ),
            Self.feature("\"north\"", "{\"type\": \"Point\", \"coordinates\": [14.5, 91]}"),
            Self.feature("\"negative\"", "{\"type\": \"Point\", \"coordinates\": [14.5, 46]}", properties: "{\"radius\": -5}"),
            Self.feature("\"boolean\"", "{\"type\": \"Point\", \"coordinates\": [14.5, 46]}", properties: "{\"radius\": true}"),
            Self.feature(
                "\"wide\"", "{\"type\": \"Polygon\", \"coordinates\": [[[0, 0], [120, 0], [-120, 0.1], [0, 0]]]}"),
            "[1, 2]",
        ]
        let result = try GeoJSONPlaces.read(bytes: Self.collection(features), options: GeoJSONPlaces.Options(defaultRadiusMeters: 60))
        #expect(result.features.map(\.id) == ["cafe", "7", "mall", "dateline"])
        #expect(result.features.map(\.index) == [0, 1, 2, 3])
        let cafe = try #require(result.features.first)
        #expect(cafe.name == "Café")
        #expect(cafe.shape == .circle(center: try Coordinate(latitude: 46.05, longitude: 14.5), radiusMeters: 25))
        #expect(result.features[1].shape == .circle(center: try Coordinate(latitude: 46.05, longitude: 14.51), radiusMeters: 60))
        // The mall's shell was wound clockwise: reoriented, it contains what lies between the
        // shell and the hole, and not the hole.
        guard case .polygon(let mall) = result.features[2].shape else { Issue.record("mall is not a polygon"); return }
        let center = try Coordinate(latitude: 46.06, longitude: 14.5)
        #expect(!mall.contains(UnitVector(center)))
        #expect(mall.contains(UnitVector(center.destination(bearingDegrees: 90, distanceMeters: 25))))
        #expect(abs(mall.signedDistanceMeters(to: UnitVector(center)) - 10) < 0.05)
        guard case .polygon(let dateline) = result.features[3].shape else { Issue.record("dateline is not a polygon"); return }
        #expect(dateline.parts.count == 2)
        // At the cut, 0.001° inside the whole shape: its edges are 0.01° away, not the seam.
        let seamPoint = UnitVector(try Coordinate(latitude: 0, longitude: 180))
        #expect(dateline.contains(seamPoint))
        #expect(dateline.signedDistanceMeters(to: seamPoint) < -1_000)

        let reasons = Dictionary(uniqueKeysWithValues: result.rejected.map { ($0.index, $0.reason) })
        #expect(result.rejected.map(\.index) == Array(4...15))
        let expected: [Int: String] = [
            4: "no id", 5: "duplicate id \"cafe\" (first at feature 0)", 6: "geometry type \"LineString\"", 7: "ring 0 has 3 positions",
            8: "ring 0 is not closed", 9: "intersects itself", 10: "hole 1 is not inside the shell", 11: "latitude",
            12: "radius -5", 13: "radius", 14: "not within a hemisphere", 15: "not a Feature",
        ]
        for (index, fragment) in expected { #expect(reasons[index]?.contains(fragment) == true, "\(index): \(reasons[index] ?? "-")") }
    }

    @Test func strictStopsAtTheFirstRejectedFeatureAndBadFilesAreErrors() throws {
        let bytes = Self.collection([
            Self.feature("\"a\"", "{\"type\": \"Point\", \"coordinates\": [1, 2]}"),
            Self.feature("\"b\"", "{\"type\": \"Point\", \"coordinates\": [1]}"),
        ])
        #expect(throws: GeoJSONPlaces.ReadError(description: "feature 1: a position must be [longitude, latitude]")) {
            try GeoJSONPlaces.read(bytes: bytes, options: GeoJSONPlaces.Options(strict: true))
        }
        #expect(try GeoJSONPlaces.read(bytes: bytes).features.count == 1)
        for bad in ["", "id,lat,lon", "[1, 2]", "{\"type\": \"Point\", \"coordinates\": [1, 2]}", "{\"type\": \"FeatureCollection\"}"] {
            #expect(throws: GeoJSONPlaces.ReadError.self) { try GeoJSONPlaces.read(bytes: Array(bad.utf8)) }
        }
        // One Feature alone is a collection of one.
        let one = try GeoJSONPlaces.read(bytes: Array(Self.feature("\"a\"", "{\"type\": \"Point\", \"coordinates\": [1, 2]}").utf8))
        #expect(one.features.map(\.id) == ["a"])
    }

    @Test func geoJSONIsToldFromCSVByItsFirstCharacter() {
        #expect(GeoJSONPlaces.looksLikeGeoJSON(Array("\u{FEFF}  \n{\"type\": 1}".utf8)))
        #expect(!GeoJSONPlaces.looksLikeGeoJSON(Array("id,lat,lon\n".utf8)))
        #expect(!GeoJSONPlaces.looksLikeGeoJSON([UInt8]()))
    }

    /// Damaged files (bytes flipped, cut short) never crash: each is an error or a result whose
    /// features and rejections together are at most the features it holds.
    @Test func damagedFilesNeverCrash() throws {
        let good = Self.collection(
            (0..<6).map { i in
                Self.feature(
                    "\"p\(i)\"",
                    i % 2 == 0
                        ? "{\"type\": \"Polygon\", \"coordinates\": [\(Self.square(46 + Double(i) * 0.01, 14.5, side: 50))]}"
                        : "{\"type\": \"Point\", \"coordinates\": [14.5, \(46 + Double(i) * 0.01)]}")
            })
        #expect(try GeoJSONPlaces.read(bytes: good).features.count == 6)
        var rng = SplitMix64(seed: 5)
        for _ in 0..<300 {
            var bytes = good
            for _ in 0..<Int(rng.next() % 4 + 1) {
                let at = Int(rng.next() % UInt64(bytes.count))
                bytes[at] = Array("0123456789-.,[]{}\": e".utf8)[Int(rng.next() % 21)]
            }
            if rng.next() % 4 == 0 { bytes.removeLast(Int(rng.next() % UInt64(bytes.count))) }
            if let result = try? GeoJSONPlaces.read(bytes: bytes) {
                #expect(result.features.count + result.rejected.count <= 6)
            }
        }
    }

    /// Where `marker` starts in `text` (its first occurrence after `after`), as the reader should
    /// report it: `line L, column C (byte B)`, counted here from the text alone.
    static func location(of marker: String, in text: String, after: String = "") -> String {
        let bytes = Array(text.utf8)
        let from = after.isEmpty ? 0 : (Self.find(Array(after.utf8), in: bytes, from: 0) ?? 0) + after.utf8.count
        let offset = Self.find(Array(marker.utf8), in: bytes, from: from) ?? -1
        let before = bytes[..<offset]
        let line = before.filter { $0 == 0x0A }.count + 1
        let lineStart = (before.lastIndex(of: 0x0A) ?? -1) + 1
        return "line \(line), column \(offset - lineStart + 1) (byte \(offset))"
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        return (from...(haystack.count - needle.count)).first { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }

    /// The places file reads by the sidecar's rule (one JSON reader): a repeated key anywhere
    /// (a feature's id, its geometry, the collection's features), a trailing comma, NaN, a
    /// comment, bytes that are not UTF-8, a lone surrogate or deep nesting fail the file, with
    /// the line, column and byte where reading stopped (RFC 8259 leaves repeated keys to the
    /// reader, and one that keeps the last would read another place than one that keeps the first).
    @Test(arguments: [
        (
            #"{"type":"Feature","id":"a","id":"b","properties":{},"geometry":{"type":"Point","coordinates":[1,2]}}"#, #""id":"b""#, "",
            "appears twice"
        ),
        (
            "{\"type\":\"FeatureCollection\",\n\"features\":[],\n\"features\":[{\"type\":\"Feature\",\"id\":\"a\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2]}}]}",
            "\"features\"", "[],", "the key \"features\" appears twice"
        ),
        (
            "{\"type\":\"FeatureCollection\",\"features\":[\n{\"type\":\"Feature\",\"id\":\"a\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2]},\"geometry\":{\"type\":\"Point\",\"coordinates\":[3,4]}}]}",
            "\"geometry\"", "[1,2]}", "the key \"geometry\" appears twice"
        ),
        (
            "{\"type\":\"FeatureCollection\",\"features\":[\n{\"type\":\"Feature\",\"id\":\"a\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2]}},\n]}",
            "]}", "}},\n", "unexpected ']'"
        ),
        ("{\"type\":\"Feature\",\"id\":\"a\",\n\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,NaN]}}", "NaN", "", "unexpected 'N'"),
        ("{\"type\":\"Feature\", // a comment\n\"id\":\"a\"}", "//", "", "unexpected '/'"),
        ("{\"type\":\"Feature\",\"id\":\"a\",\"properties\":{\"name\":\"\\ud800 x\"}}", "\\ud800", "", "half of a surrogate pair"),
        (
            "{\"type\":\"Feature\",\n\"id\":" + String(repeating: "[", count: 70) + "1" + String(repeating: "]", count: 70) + "}", "[[",
            "\"id\":" + String(repeating: "[", count: 62), "nested deeper than 64"
        ),
    ])
    func oneJSONReaderOneRule(text: String, marker: String, after: String, reason: String) throws {
        var expected = Self.location(of: marker, in: text, after: after)
        if reason.contains("nested") { expected = Self.location(of: "[", in: text, after: "\"id\":" + String(repeating: "[", count: 63)) }
        #expect(throws: GeoJSONPlaces.ReadError.self) { try GeoJSONPlaces.read(bytes: Array(text.utf8)) }
        do {
            _ = try GeoJSONPlaces.read(bytes: Array(text.utf8))
        } catch {
            #expect(error.description.hasPrefix(expected + ": "), "\(error.description) (expected \(expected))")
            #expect(error.description.contains(reason), "\(error.description)")
        }
    }

    /// A name whose bytes are not UTF-8 fails the file at the string that holds them, rather than
    /// being read with replacement characters.
    @Test func bytesThatAreNotUTF8FailTheFile() throws {
        let text = "{\"type\":\"Feature\",\"id\":\"a\",\n\"properties\":{\"name\":\"caf\u{E9}\"}}"
        var bytes = Array(text.utf8)
        // é as Latin-1: one byte 0xE9 instead of UTF-8's two.
        let at = try #require(Self.find([0xC3, 0xA9], in: bytes, from: 0))
        bytes.replaceSubrange(at..<(at + 2), with: [0xE9])
        let expected = Self.location(of: "\"caf", in: String(decoding: bytes, as: UTF8.self))
        #expect(throws: GeoJSONPlaces.ReadError.self) { try GeoJSONPlaces.read(bytes: bytes) }
        do {
            _ = try GeoJSONPlaces.read(bytes: bytes)
        } catch {
            #expect(error.description == expected + ": a string holds bytes that are not UTF-8")
        }
    }

    /// A number past the double range (1e400) is a position that is not finite: that feature
    /// alone is rejected, with its index and the reason.
    @Test func aNumberPastTheDoubleRangeRejectsItsFeatureAlone() throws {
        let bytes = Self.collection([
            Self.feature("\"a\"", "{\"type\": \"Point\", \"coordinates\": [1, 2]}"),
            Self.feature("\"b\"", "{\"type\": \"Polygon\", \"coordinates\": [[[1, 2], [1e400, 2], [1, 3], [1, 2]]]}"),
        ])
        let result = try GeoJSONPlaces.read(bytes: bytes)
        #expect(result.features.map(\.id) == ["a"])
        #expect(result.rejected.map(\.index) == [1])
        #expect(result.rejected.first?.reason.contains("longitude is not a finite number") == true, "\(result.rejected)")
    }

    /// A footprint wider than a platform registers is rejected alone, naming its index and id;
    /// the other features are read.
    @Test func aFootprintTooWideToRegisterIsRejectedAlone() throws {
        let wide = "{\"type\": \"Polygon\", \"coordinates\": [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]]}"
        let bytes = Self.collection([
            Self.feature("\"a\"", "{\"type\": \"Point\", \"coordinates\": [1, 2]}"),
            Self.feature("\"wide\"", wide),
            Self.feature("\"b\"", "{\"type\": \"Polygon\", \"coordinates\": [\(Self.square(46, 14.5, side: 50))]}"),
        ])
        let result = try GeoJSONPlaces.read(bytes: bytes)
        #expect(result.features.map(\.id) == ["a", "b"])
        #expect(result.rejected.map(\.index) == [1])
        // The square's enclosing circle reaches its corners: half its 10° diagonal, about 785 km.
        #expect(result.rejected.first?.reason.contains("footprint \"wide\" is enclosed by no circle a platform registers") == true)
        #expect(result.rejected.first?.reason.contains("more than 400,000 m") == true, "\(result.rejected)")
        let narrower = GeoJSONPlaces.Options(maximumFootprintRadiusMeters: 1_000_000)
        #expect(try GeoJSONPlaces.read(bytes: bytes, options: narrower).features.count == 3)
    }
}
