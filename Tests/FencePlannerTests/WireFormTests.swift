import FencePlanner
import Foundation
import Geodesy
import RotateTestSupport
import Testing

/// The JSON forms a service stores and sends: registration operations, catalog changes and the
/// guarantee, with their documented keys, read back equal, and the old guarantee coding still read.
@Suite struct WireFormTests {
    static func randomCoordinate(_ rng: inout SplitMix64) -> Coordinate {
        Coordinate(validLatitude: rng.nextDouble(in: -89.9..<89.9), longitude: rng.nextDouble(in: -180..<180))
    }

    static func randomFence(_ rng: inout SplitMix64) -> Fence {
        Fence(
            id: "p\(rng.nextInt(below: 1_000))é", center: randomCoordinate(&rng), radiusMeters: rng.nextDouble(in: 1..<5_000),
            transitions: Transitions.allCases[rng.nextInt(below: 3)])
    }

    static func json(_ value: some Encodable) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any])
    }

    /// Random operations of every kind round-trip, and their JSON has the tag and the keys
    /// docs/formats.md lists.
    @Test func registrationOperationsRoundTripWithTheirTags() throws {
        var rng = SplitMix64(seed: TestSeed.value(salt: 901))
        for _ in 0..<400 {
            let fence = Self.randomFence(&rng)
            let region = RefreshRegion(
                id: "refresh-\(rng.nextInt(below: 99))", center: Self.randomCoordinate(&rng), radiusMeters: rng.nextDouble(in: 0..<9_000))
            let operation: RegistrationOperation =
                switch rng.nextInt(below: 4) {
                case 0: .stopRefresh(region.id)
                case 1: .stop(fence)
                case 2: .startRefresh(region)
                default: .start(fence)
                }
            let decoded = try JSONDecoder().decode(RegistrationOperation.self, from: JSONEncoder().encode(operation))
            #expect(decoded == operation)
            let object = try Self.json(operation)
            switch operation {
            case .stopRefresh(let id):
                #expect(object["op"] as? String == "stop_refresh" && object["id"] as? String == id && object.count == 2)
            case .stop: #expect(object["op"] as? String == "stop" && Set(object.keys) == ["op", "fence"])
            case .startRefresh:
                #expect(
                    object["op"] as? String == "start_refresh"
                        && Set((object["region"] as? [String: Any] ?? [:]).keys) == ["id", "center", "radius_m"])
            case .start:
                #expect(
                    object["op"] as? String == "start"
                        && Set((object["fence"] as? [String: Any] ?? [:]).keys) == ["id", "center", "radius_m", "transitions"])
            }
        }
        for bad in [#"{"op":"pause","id":"x"}"#, #"{"op":"stop_refresh","id":""}"#, #"{"op":"start","fence":{"id":"x"}}"#, #"{"id":"x"}"#] {
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(RegistrationOperation.self, from: Data(bad.utf8)) }
        }
    }

    /// Random changes round-trip, and their JSON is the sidecar's change-set item: the sidecar
    /// reads each as the same change.
    @Test func catalogChangesRoundTripAsTheSidecarsChangeItems() throws {
        var rng = SplitMix64(seed: TestSeed.value(salt: 902))
        var changes: [CatalogChange] = []
        for _ in 0..<400 {
            let fence = Self.randomFence(&rng)
            let change: CatalogChange =
                switch rng.nextInt(below: 5) {
                case 0:
                    .add(
                        Place(
                            id: fence.id, coordinate: fence.center, radiusMeters: fence.radiusMeters,
                            name: rng.nextInt(below: 2) == 0 ? nil : "Shop \"\(fence.id)\"", transitions: fence.transitions))
                case 1: .remove(id: fence.id)
                case 2: .move(id: fence.id, to: fence.center)
                case 3: .setRadius(id: fence.id, meters: fence.radiusMeters)
                default: .setTransitions(id: fence.id, fence.transitions)
                }
            #expect(try JSONDecoder().decode(CatalogChange.self, from: JSONEncoder().encode(change)) == change)
            changes.append(change)
        }
        let line = #"{"changes":"# + String(decoding: try JSONEncoder().encode(changes), as: UTF8.self) + "}"
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect((object["changes"] as? [Any])?.count == changes.count)
        for bad in [
            #"{"op":"add","id":"x","lat":1,"lon":2,"radius_m":0}"#, #"{"op":"move","id":"x","lat":91,"lon":2}"#,
            #"{"op":"remove","id":""}"#, #"{"op":"grow","id":"x"}"#,
        ] {
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(CatalogChange.self, from: Data(bad.utf8)) }
        }
    }

    /// The guarantee is a tagged object with snake_case keys; the coding of version-1 states is
    /// still read.
    @Test func guaranteeIsATaggedObjectAndTheOldCodingIsRead() throws {
        let cases: [(Guarantee, [String: Any], String)] = [
            (.exact, ["kind": "exact"], #"{"exact":{}}"#),
            (
                .degraded(fallbackDistanceMeters: 12.5), ["kind": "degraded", "fallback_distance_m": 12.5],
                #"{"degraded":{"fallbackDistanceMeters":12.5}}"#
            ),
            (.saturated(overlapping: 23), ["kind": "saturated", "overlapping": 23], #"{"saturated":{"overlapping":23}}"#),
        ]
        for (guarantee, expected, legacy) in cases {
            let object = try Self.json(guarantee)
            #expect(Set(object.keys) == Set(expected.keys), "\(object)")
            for (key, value) in expected { #expect("\(object[key] ?? "-")" == "\(value)", "\(key) in \(object)") }
            #expect(try JSONDecoder().decode(Guarantee.self, from: JSONEncoder().encode(guarantee)) == guarantee)
            #expect(try JSONDecoder().decode(Guarantee.self, from: Data(legacy.utf8)) == guarantee)
        }
        for bad in [#"{}"#, #"{"kind":"fine"}"#, #"{"kind":"degraded"}"#, #"{"exact":{},"saturated":{"overlapping":1}}"#, #"{"fine":{}}"#] {
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(Guarantee.self, from: Data(bad.utf8)) }
        }
    }

    /// A version-1 rotator state (the old guarantee coding) resumes as the same state and is
    /// written back as version 2; version 3 is refused.
    @Test func versionOneStatesAreReadAndWrittenAsVersionTwo() throws {
        let catalog = try PlaceCatalog(
            places: (0..<40).map { i in
                Place(id: "p\(i)", coordinate: Coordinate(validLatitude: 46 + Double(i) * 0.002, longitude: 14.5), radiusMeters: 60)
            })
        var rotator = try FenceRotator(catalog: catalog, configuration: RotationConfiguration(limit: 20, headroom: 2))
        _ = rotator.update(with: Fix(Coordinate(validLatitude: 46.01, longitude: 14.5)))
        var object = try Self.json(rotator.state)
        #expect(object["format_version"] as? Int == 2)
        let guarantee = try #require(rotator.state.guarantee)
        object["format_version"] = 1
        object["guarantee"] = try JSONSerialization.jsonObject(with: Data(Self.legacy(guarantee).utf8))
        let old = try JSONDecoder().decode(RotatorState.self, from: JSONSerialization.data(withJSONObject: object))
        #expect(old == rotator.state)
        #expect(try Self.json(old)["format_version"] as? Int == 2)
        object["format_version"] = 3
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(RotatorState.self, from: JSONSerialization.data(withJSONObject: object))
        }
    }

    static func legacy(_ guarantee: Guarantee) -> String {
        switch guarantee {
        case .exact: #"{"exact":{}}"#
        case .degraded(let meters): #"{"degraded":{"fallbackDistanceMeters":\#(meters)}}"#
        case .saturated(let count): #"{"saturated":{"overlapping":\#(count)}}"#
        }
    }

    @Test func descriptionsReadAsOneLine() throws {
        let fence = Fence(
            id: "shop7", center: Coordinate(validLatitude: 46.0500993, longitude: 14.5021906), radiusMeters: 100, transitions: .both)
        let region = RefreshRegion(id: "refresh-4", center: Coordinate(validLatitude: 46.05, longitude: -14.5), radiusMeters: 815.27)
        #expect(RegistrationOperation.start(fence).description == "start shop7 at 46.0500993, 14.5021906 r 100.0 m (both)")
        #expect(RegistrationOperation.startRefresh(region).description == "start refresh-4 at 46.0500000, -14.5000000 r 815.3 m")
        #expect(RegistrationOperation.stop(fence).description == "stop shop7")
        #expect(RegistrationOperation.stopRefresh("refresh-3").description == "stop refresh-3")
        #expect(CatalogChange.setRadius(id: "x", meters: 0.04).description == "radius x 0.0 m")
        #expect(
            CatalogChange.move(id: "x", to: Coordinate(validLatitude: -0.00000004, longitude: 0)).description
                == "move x to 0.0000000, 0.0000000")
        #expect(CatalogChange.setTransitions(id: "x", .entry).description == "transitions x entry")
    }
}
