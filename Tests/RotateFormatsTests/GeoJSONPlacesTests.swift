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
}
