import FencePlanner
import Foundation
import Geodesy
import RotateFormats
import RotateTestSupport
import SpatialIndex
import Testing
import WalkSimulator

@Suite struct PlanTraceTests {
    func replay() throws -> (PlanTrace, OracleReport, PlanRecord) {
        var scenario = Simulation.Scenario()
        scenario.placeCount = 800
        scenario.regionSideMeters = 6_000
        scenario.placeSet = .mixed
        scenario.lengthMeters = 5_000...5_000
        scenario.configuration = RotationConfiguration(limit: 12, headroom: 1)
        let simulation = try Simulation(scenario)
        var rotator = try FenceRotator(catalog: simulation.catalog, configuration: simulation.configuration)
        let walk = simulation.walk(0)
        let report = MissedFenceOracle.replay(
            walk, rotator: &rotator, catalog: simulation.catalog,
            placeSlots: simulation.configuration.placeSlots, recordUpdates: true)
        let trace = PlanTrace(
            configuration: simulation.configuration, places: simulation.catalog.count, defaultRadiusMeters: 100,
            fixes: report.fixes, updates: report.updates, missed: report.misses.count)
        let misses = report.misses.map { PlanRecord.Miss(placeID: $0.placeID, position: $0.position, avoidable: $0.avoidable) }
        return (
            trace, report,
            PlanRecord(catalog: simulation.catalog, walk: walk.samples.map(\.truePosition), updates: report.updates, misses: misses)
        )
    }

    @Test func traceRoundTripsThroughNDJSON() throws {
        let (trace, report, _) = try replay()
        #expect(trace.reselections.count == report.reselections && report.reselections > 3)
        #expect(trace.summary.starts == report.starts && trace.summary.stops == report.stops && trace.summary.fixes == report.fixes)
        let text = trace.ndjsonLines.joined(separator: "\n") + "\n"
        #expect(try PlanTrace.parse(text) == trace)
    }

    @Test func traceFollowsTheSpec() throws {
        let (trace, report, _) = try replay()
        let lines = trace.ndjsonLines
        let objects = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(objects.first?["type"] as? String == "config")
        #expect(objects.last?["type"] as? String == "summary")
        #expect(
            Set(objects.first!.keys) == [
                "type", "version", "limit", "headroom", "place_slots", "places", "radius_m", "margin_m", "min_refresh_radius_m",
            ])
        #expect(objects.first?["place_slots"] as? Int == 10)
        var monitored: Set<String> = []
        var lastFix = -1
        for object in objects.dropFirst().dropLast() {
            #expect(object["type"] as? String == "reselect")
            let fix = try #require(object["fix"] as? Int)
            #expect(fix > lastFix)
            lastFix = fix
            let start = try #require(object["start"] as? [String]), stop = try #require(object["stop"] as? [String])
            for id in stop { #expect(monitored.remove(id) != nil, "stopped an unmonitored id") }
            for id in start { #expect(monitored.insert(id).inserted, "started a monitored id") }
            #expect(object["monitored"] as? Int == monitored.count)
            #expect(monitored.count <= 10)
            let guarantee = try #require(object["guarantee"] as? String)
            #expect(["exact", "degraded", "saturated"].contains(guarantee))
            #expect((object["fallback"] as? String == "distance") == (guarantee != "exact"))
            #expect((object["overlapping"] != nil) == (guarantee == "saturated"))
            let refresh = try #require(object["refresh"] as? [String: Any])
            #expect(Set(refresh.keys) == ["id", "lat", "lon", "radius_m"])
        }
        #expect(objects.last?["missed"] as? Int == report.misses.count)
        #expect(objects.last?["reselections"] as? Int == objects.count - 2)
    }

    /// Version 2 writes place events after the reselection of their fix, in fix order, and reads
    /// them back; version 1 has none; lines of an unknown type are skipped.
    @Test func placeEventsAreVersionTwoLines() throws {
        let (v1, _, _) = try replay()
        #expect(v1.config.version == 1 && !v1.ndjsonLines.contains { $0.contains("place_event") })
        let fixes = v1.reselections.map(\.fix)
        let events = [
            PlanTrace.PlaceEvent(fix: fixes[1], t: Double(fixes[1]), place: "a", event: "entry", evidence: "app", probability: 0.95),
            PlanTrace.PlaceEvent(
                fix: fixes[1] + 1, t: Double(fixes[1] + 1), place: "b", event: "entry", evidence: "platform", probability: nil),
            PlanTrace.PlaceEvent(
                fix: fixes[2] + 3, t: 0.5 + Double(fixes[2]), place: "a", event: "exit", evidence: "app", probability: 0.05),
            PlanTrace.PlaceEvent(fix: fixes.last! + 1, t: 9e9, place: "b\"q", event: "exit", evidence: "platform", probability: nil),
        ]
        var v2 = v1
        v2.config.version = 2
        v2.placeEvents = events
        let lines = v2.ndjsonLines
        let objects = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        var lastFix = -1
        var placeEventCount = 0
        for object in objects.dropFirst().dropLast() {
            let fix = try #require(object["fix"] as? Int)
            #expect(fix >= lastFix, "lines in fix order")
            lastFix = fix
            if object["type"] as? String == "place_event" {
                placeEventCount += 1
                let keys = ["type", "fix", "t", "place", "event", "evidence"] + (object["p"] == nil ? [] : ["p"])
                #expect(Set(object.keys) == Set(keys))
            }
        }
        #expect(placeEventCount == events.count)
        let text = lines.joined(separator: "\n") + "\n"
        #expect(try PlanTrace.parse(text) == v2)
        // A later version's unknown line type is skipped.
        var future = lines
        future.insert("{\"type\":\"weather\",\"fix\":3,\"rain_mm\":2}", at: 2)
        #expect(try PlanTrace.parse(future.joined(separator: "\n")) == v2)
    }

    /// Version 3 writes visit lines after the place events of the same fix, in fix order, with the
    /// spec's keys (`place` and `departure_t` only when there are), and reads them back; version
    /// 2 writes none of them.
    @Test func visitsAreVersionThreeLines() throws {
        let (v1, _, _) = try replay()
        let fixes = v1.reselections.map(\.fix)
        var v3 = v1
        v3.config.version = 3
        v3.placeEvents = [PlanTrace.PlaceEvent(fix: fixes[1], t: 10, place: "a", event: "entry", evidence: "app", probability: 0.95)]
        v3.visits = [
            PlanTrace.Visit(
                fix: fixes[1], t: 10, event: "arrival", place: "a", candidates: [.init(place: "a", p: 0.9), .init(place: "b\"q", p: 0.05)],
                noneProbability: 0.05, lat: 46.05, lon: 14.5, accuracyMeters: 12.5, arrivalT: 2.5, departureT: nil, fixes: 7),
            PlanTrace.Visit(
                fix: fixes[2] + 1, t: 900, event: "departure", place: nil, candidates: [], noneProbability: 0.8, lat: -33.9, lon: 151.2,
                accuracyMeters: 40, arrivalT: 700, departureT: 880.25, fixes: 12),
        ]
        let lines = v3.ndjsonLines
        let objects = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let types = objects.map { $0["type"] as? String ?? "" }
        let eventIndex = try #require(types.firstIndex(of: "place_event"))
        #expect(types[eventIndex + 1] == "visit", "a fix's visit after its place event")
        let visitObjects = objects.filter { $0["type"] as? String == "visit" }
        #expect(visitObjects.count == 2)
        let base = ["type", "fix", "t", "event", "candidates", "none_p", "lat", "lon", "accuracy_m", "arrival_t", "fixes"]
        #expect(Set(visitObjects[0].keys) == Set(base + ["place"]))
        #expect(Set(visitObjects[1].keys) == Set(base + ["departure_t"]))
        #expect(try PlanTrace.parse(lines.joined(separator: "\n")) == v3)
        var v2 = v3
        v2.config.version = 2
        #expect(!v2.ndjsonLines.contains { $0.contains("\"visit\"") })
    }

    @Test(arguments: [
        ("{\"type\":\"config\"", 1), ("{\"type\":\"summary\",\"fixes\":1,\"reselections\":0,\"starts\":0,\"stops\":0,\"missed\":0}", 1),
        ("not json", 1), ("{\"type\":\"weird\"}", 1), ("[1,2]", 1),
        ("{\"type\":\"place_event\",\"fix\":1,\"t\":1,\"event\":\"entry\",\"evidence\":\"app\"}", 1),
    ])
    func badTracesAreErrorsWithLines(text: String, line: Int) {
        #expect(throws: PlanTraceError.self) { try PlanTrace.parse(text) }
    }

    /// Place ids in a trace are read as ids are everywhere: in NFC, and one longer than 256 bytes
    /// (or empty) is an error with its line.
    @Test func traceIDsAreReadInNFCWithinTheLimit() throws {
        let config =
            "{\"type\":\"config\",\"version\":2,\"limit\":20,\"headroom\":2,\"place_slots\":17,\"places\":3,\"radius_m\":100,"
            + "\"margin_m\":30,\"min_refresh_radius_m\":100}"
        let summary = "{\"type\":\"summary\",\"fixes\":2,\"reselections\":1,\"starts\":1,\"stops\":0,\"missed\":0}"
        func reselect(_ id: String) -> String {
            "{\"type\":\"reselect\",\"fix\":0,\"lat\":1,\"lon\":2,\"start\":[\"\(id)\"],\"stop\":[],\"inside_at_start\":[],"
                + "\"monitored\":1,\"refresh\":null,\"guarantee\":\"exact\"}"
        }
        func event(_ id: String) -> String {
            "{\"type\":\"place_event\",\"fix\":1,\"t\":1,\"place\":\"\(id)\",\"event\":\"entry\",\"evidence\":\"app\",\"p\":0.9}"
        }
        let trace = try PlanTrace.parse([config, reselect("cafe\u{301}"), event("cafe\u{301}"), summary].joined(separator: "\n"))
        #expect(trace.reselections.first.map { Array($0.start[0].utf8) } == Array("caf\u{E9}".utf8))
        #expect(trace.placeEvents.first.map { Array($0.place.utf8) } == Array("caf\u{E9}".utf8))
        func failure(_ lines: [String]) -> String? {
            do {
                _ = try PlanTrace.parse(lines.joined(separator: "\n"))
                return nil
            } catch {
                return error.description
            }
        }
        let long = String(repeating: "x", count: 257)
        #expect(failure([config, reselect(long), summary]) == "2: an id in 'start' is 257 bytes long; at most 256")
        #expect(failure([config, reselect("a"), event(long), summary]) == "3: an id in 'place' is 257 bytes long; at most 256")
        #expect(failure([config, event(""), summary]) == "2: an id in 'place' must not be empty")
    }

    @Test func geoJSONIsValidAndComplete() throws {
        let (_, report, record) = try replay()
        let document = GeoJSONWriter.document(record)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String: Any])
        #expect(object["type"] as? String == "FeatureCollection")
        let features = try #require(object["features"] as? [[String: Any]])
        let kinds = features.compactMap { ($0["properties"] as? [String: Any])?["kind"] as? String }
        #expect(kinds.filter { $0 == "reselect" }.count == report.reselections)
        #expect(kinds.filter { $0 == "walk" }.count == 1)
        #expect(kinds.filter { $0 == "place" }.count == record.places.count)
        for feature in features where (feature["properties"] as? [String: Any])?["kind"] as? String == "place" {
            let geometry = try #require(feature["geometry"] as? [String: Any])
            let rings = try #require(geometry["coordinates"] as? [[[Double]]])
            #expect(rings[0].count == GeoJSONWriter.circleVertices + 1)
            #expect(rings[0].first == rings[0].last)
        }
    }

    @Test func svgMapHasItsParts() throws {
        let (_, _, record) = try replay()
        let svg = SVGMap.document(record, title: "test <map>")
        #expect(svg.hasPrefix("<svg"))
        #expect(svg.hasSuffix("</svg>"))
        #expect(svg.contains("<polyline"))
        #expect(svg.contains("test &lt;map&gt;"))
        #expect(svg.contains("stroke-dasharray"))
        #expect(svg.contains(" of 800 places in view ("))
        #expect(svg.contains(" km</text>") || svg.contains(" m</text>"))
    }
}

@Suite struct GeoJSONGeometryTests {
    @Test func circlesAcrossTheDateLineSplitIntoTwoCounterClockwiseParts() {
        let polygons = GeoJSONWriter.circlePolygonsForTesting(Coordinate(validLatitude: -17, longitude: 179.99), radiusMeters: 5_000)
        #expect(polygons.count == 2)
        for ring in polygons {
            #expect(ring.first! == ring.last!)
            #expect(ring.allSatisfy { (-180...180).contains($0.0) })
            #expect(signedArea(ring) > 0, "counter-clockwise")
        }
        #expect(polygons[0].contains { $0.0 == 180 } && polygons[1].contains { $0.0 == -180 })
        let plain = GeoJSONWriter.circlePolygonsForTesting(Coordinate(validLatitude: 45, longitude: 15), radiusMeters: 5_000)
        #expect(plain.count == 1 && plain[0].count == 65 && signedArea(plain[0]) > 0)
    }

    @Test func aCircleAroundThePoleClosesOverIt() {
        let polygons = GeoJSONWriter.circlePolygonsForTesting(Coordinate(validLatitude: -90, longitude: 0), radiusMeters: 1_000)
        #expect(polygons.count == 1)
        #expect(polygons[0].contains { $0.1 == -90 })
        #expect(signedArea(polygons[0]) > 0)
    }

    @Test func walksAcrossTheDateLineBecomeMultiLineStrings() {
        let parts = GeoJSONWriter.splitForTesting([
            Coordinate(validLatitude: 0, longitude: 179.9), Coordinate(validLatitude: 0.2, longitude: -179.9),
            Coordinate(validLatitude: 0.4, longitude: -179.8),
        ])
        #expect(parts.count == 2)
        #expect(parts[0].last! == (180, 0.1))
        #expect(parts[1].first! == (-180, 0.1))
    }

    func signedArea(_ ring: [(Double, Double)]) -> Double {
        zip(ring, ring.dropFirst()).reduce(0) { $0 + ($1.0.0 * $1.1.1 - $1.1.0 * $1.0.1) } / 2
    }
}
