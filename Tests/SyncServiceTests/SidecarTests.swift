import EventEngine
import FencePlanner
import Foundation
import Geodesy
import RotateFormats
import RotateTestSupport
import SyncService
import Testing

/// The `rotate serve` line protocol and its state file.
@Suite struct SidecarTests {
    @Test func reportsAndChangeSetsParse() throws {
        guard
            case .success(.report(let device, let fix, let time, _, _)) = SidecarRequest.parse(
                #"{"device":"d1","lat":45.5,"lon":-15.25,"t":17,"accuracy_m":8.5}"#)
        else { Issue.record("not a report"); return }
        let expectedFix = Fix(try Coordinate(latitude: 45.5, longitude: -15.25), accuracyMeters: 8.5)
        #expect(device == "d1" && time == 17 && fix == expectedFix)
        #expect(
            SidecarRequest.parse(#"{"device":"d1","lat":0,"lon":1,"t":0,"source":"wake_fix"}"#)
                == .success(.report(device: "d1", fix: Fix(try Coordinate(latitude: 0, longitude: 1)), time: 0, source: .wakeFix)))
        #expect(
            SidecarRequest.parse(#"{"device":"d1","lat":0,"lon":1,"t":0,"source":"network"}"#)
                == .success(.report(device: "d1", fix: Fix(try Coordinate(latitude: 0, longitude: 1)), time: 0, source: .network)))
        let plain = Fix(try Coordinate(latitude: 0, longitude: 1))
        #expect(
            SidecarRequest.parse(#"{"device":"d1","lat":0,"lon":1,"t":0,"accuracy_m":null}"#)
                == .success(.report(device: "d1", fix: plain, time: 0)))
        let changes =
            #"{"changes":[{"op":"add","id":"x","lat":1,"lon":2,"radius_m":30,"name":"X","transitions":"exit"},"#
            + #"{"op":"remove","id":"y"},{"op":"move","id":"z","lat":3,"lon":4},{"op":"radius","id":"z","radius_m":9},"#
            + #"{"op":"transitions","id":"z","transitions":"entry"}]}"#
        let expected: [CatalogChange] = [
            .add(Place(id: "x", coordinate: try Coordinate(latitude: 1, longitude: 2), radiusMeters: 30, name: "X", transitions: .exit)),
            .remove(id: "y"), .move(id: "z", to: try Coordinate(latitude: 3, longitude: 4)), .setRadius(id: "z", meters: 9),
            .setTransitions(id: "z", .entry),
        ]
        #expect(SidecarRequest.parse(changes) == .success(.changes(expected)))
        #expect(
            SidecarRequest.parse(#"{"device":"d1","motion":"still","t":5}"#)
                == .success(.motion(device: "d1", MotionReport(.still, source: .activity, timeSeconds: 5))))
        #expect(
            SidecarRequest.parse(#"{"device":"d1","motion":"moving","source":"visit","t":6}"#)
                == .success(.motion(device: "d1", MotionReport(.moving, source: .visit, timeSeconds: 6))))
    }

    /// Every kind of bad line is refused with its reason (the stream goes on: see ServeTests).
    @Test(arguments: [
        ("not json", "not valid JSON"),
        ("[1,2]", "not a JSON object"),
        (#"{"device":"d","lat":1,"lon":2}"#, "missing 't'"),
        (#"{"device":"d","lat":1,"lon":2,"t":1,"speed":3}"#, "unknown field 'speed'"),
        (#"{"device":"","lat":1,"lon":2,"t":1}"#, "'device' must not be empty"),
        (#"{"device":7,"lat":1,"lon":2,"t":1}"#, "'device' must be a string"),
        (#"{"device":"d","lat":"1","lon":2,"t":1}"#, "'lat' must be a number"),
        (#"{"device":"d","lat":true,"lon":2,"t":1}"#, "'lat' must be a number"),
        (#"{"device":"d","lat":91,"lon":2,"t":1}"#, "latitude 91.0 is outside -90...90"),
        (#"{"device":"d","lat":1,"lon":2,"t":1,"accuracy_m":-1}"#, "'accuracy_m' must be >= 0"),
        (#"{"changes":{}}"#, "'changes' must be an array"),
        (#"{"changes":[{"op":"explode","id":"x"}]}"#, "change #0: unknown op 'explode' (add, remove, move, radius, transitions)"),
        (#"{"changes":[{"op":"remove"}]}"#, "change #0: missing 'id'"),
        (#"{"changes":[{"op":"remove","id":"x","lat":1}]}"#, "change #0: unknown field 'lat'"),
        (#"{"changes":[3]}"#, "change #0 is not an object"),
        (#"{"changes":[{"op":"transitions","id":"x","transitions":"sideways"}]}"#, "change #0: 'transitions' must be entry, exit or both"),
        (#"{"device":"d","region":"x","event":"stay","t":1}"#, "'event' must be entry or exit"),
        (#"{"device":"d","motion":"walking","t":1}"#, "'motion' must be still or moving"),
        (#"{"device":"d","motion":"still","source":"gps","t":1}"#, "'source' of a motion report must be activity or visit"),
        (#"{"device":"d","motion":"still"}"#, "missing 't'"),
        (#"{"device":"d","motion":"still","t":1,"lat":2}"#, "unknown field 'lat'"),
        (#"{"device":"d","lat":1,"lon":2,"t":1,"source":"gps"}"#, "'source' must be continuous, significant_change, wake_fix or network"),
        (#"{"device":"d","region":"x","event":"entry"}"#, "missing 't'"),
        (#"{"device":"d","region":"","event":"entry","t":1}"#, "'region' must not be empty"),
        (#"{"device":"d","region":"x","event":"entry","t":1,"lat":2}"#, "unknown field 'lat'"),
        (#"{"device":"d","lat":1,"device":"e","lon":2,"t":1}"#, "repeated key 'device'"),
        (#"{"device":"d","registered":"x","t":1}"#, "'registered' must be an array"),
        (#"{"device":"d","registered":["a",7],"t":1}"#, "'registered' #1 must be a non-empty string of at most 256 bytes"),
        (#"{"device":"d","registered":[""],"t":1}"#, "'registered' #0 must be a non-empty string of at most 256 bytes"),
        (#"{"device":"d","registered":[]}"#, "missing 't'"),
        (#"{"device":"d","registered":[],"t":1,"lat":2}"#, "unknown field 'lat'"),
        (
            #"{"device":"d","registered":["# + Array(repeating: #""x""#, count: 1_001).joined(separator: ",") + #"],"t":1}"#,
            "'registered' has 1001 identifiers; at most 1000"
        ),
        (#"{"changes":[{"op":"remove","id":"x","id":"y"}]}"#, "repeated key 'id'"),
        (#"{"device":"d","lat":1,"lon":2,"t":1e999}"#, "'t' must be finite"),
        (#"{"device":"d","lat":01,"lon":2,"t":1}"#, "not valid JSON"),
        (#"{"device":"d","lat":1,"lon":2,"t":1,}"#, "not valid JSON"),
        (#"{"device":"d","lat":1,"lon":2,"t":1} x"#, "not valid JSON"),
        (#"{"device":"\ud800","lat":1,"lon":2,"t":1}"#, "not valid JSON"),
        (String(repeating: "[", count: 65) + String(repeating: "]", count: 65), "nested deeper than 64"),
        (#"{"device":""# + String(repeating: "d", count: 257) + #"","lat":1,"lon":2,"t":1}"#, "'device' is 257 bytes long; at most 256"),
        (
            #"{"device":"d","region":""# + String(repeating: "r", count: 300) + #"","event":"entry","t":1}"#,
            "'region' is 300 bytes long; at most 256"
        ),
        (
            #"{"changes":[{"op":"remove","id":""# + String(repeating: "p", count: 257) + #""}]}"#,
            "change #0: 'id' is 257 bytes long; at most 256"
        ),
    ])
    func badLinesAreRefusedWithTheirReason(line: String, reason: String) {
        #expect(SidecarRequest.parse(line) == .failure(SidecarLineError(reason)))
    }

    /// Random pieces of JSON never crash the parser, and a line Foundation's own JSON reader
    /// refuses is never accepted (the strict reader accepts less, never more).
    @Test func randomBytesNeverCrashTheLineParser() {
        var rng = SplitMix64(seed: TestSeed.value(salt: 606))
        let pieces = [
            "{", "}", "[", "]", "\"device\"", "\"lat\"", ":", ",", "1e999", "-0", "null", "true", "\"changes\"", "\"op\"", "\"add\"",
            "\\u0000", "\"", #"{"device":"d","lat":1,"lon":2,"t":3}"#, #"{"changes":[]}"#,
        ]
        var accepted = 0, refused = 0
        for _ in 0..<3_000 {
            let line = (0..<rng.nextInt(below: 12)).map { _ in pieces[rng.nextInt(below: pieces.count)] }.joined()
            let reference = try? JSONSerialization.jsonObject(with: Data(line.utf8), options: [.fragmentsAllowed])
            switch SidecarRequest.parse(line) {
            case .success:
                accepted += 1
                #expect(reference is [String: Any], "accepted: \(line)")
            case .failure:
                refused += 1
            }
        }
        #expect(accepted > 0 && refused > accepted)
    }

    /// Region events and fixes through the sidecar: a platform entry is a place event, the same
    /// entry again is absorbed, the app's own decision from fixes comes with P(inside), and every
    /// answer says which location service to run.
    @Test func regionEventsAndFixesBecomePlaceEvents() throws {
        let places = (0..<30).map { i in
            Place(
                id: "s\(i)",
                coordinate: Coordinate(validLatitude: 45.8, longitude: 15.97).destination(
                    bearingDegrees: 12 * Double(i), distanceMeters: 300 + 40 * Double(i)), radiusMeters: 60)
        }
        let catalog = try PlaceCatalog(places: places)
        var sidecar = Sidecar(catalog: catalog, configuration: RotationConfiguration())
        func answer(_ line: String, _ number: Int) throws -> [String: Any] {
            let lines = sidecar.handle(line, number: number)
            #expect(lines.count == 1)
            return try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        }
        func fix(_ position: Coordinate, _ t: Int) -> String {
            #"{"device":"d","lat":\#(position.latitude),"lon":\#(position.longitude),"t":\#(t),"accuracy_m":5}"#
        }
        let far = places[0].coordinate.destination(bearingDegrees: 180, distanceMeters: 250)
        let first = try answer(fix(far, 0), 1)
        #expect(first["action"] as? String == "update")
        #expect((first["location"] as? [String: Any])?["request"] as? String == "significant_changes")
        let entry = try answer(#"{"device":"d","region":"s0","event":"entry","t":5}"#, 2)
        let events = try #require(entry["place_events"] as? [[String: Any]])
        #expect(events.count == 1 && events[0]["place"] as? String == "s0" && events[0]["evidence"] as? String == "platform")
        let again = try answer(#"{"device":"d","region":"s0","event":"entry","t":6}"#, 3)
        #expect((again["place_events"] as? [Any])?.isEmpty == true)
        var inApp: [[String: Any]] = []
        for t in 7...12 {
            inApp += try answer(fix(places[5].coordinate, t), 3 + t)["place_events"] as? [[String: Any]] ?? []
        }
        #expect(inApp.contains { $0["place"] as? String == "s5" && $0["event"] as? String == "entry" && $0["p"] != nil })
        let stale = try answer(fix(far, 2), 20)
        #expect(stale["ignored"] as? String != nil && stale["action"] as? String == "none")
    }

    /// A device's report of what it has registered is answered with the reconciliation the
    /// rotator computes (`FenceRotator.reconcile`), and a change set with the devices it reached:
    /// a plan to push for one whose monitored place went, nothing for one far away.
    @Test func registeredListsAreReconciledAndChangeSetsListTheDevicesTheyReach() throws {
        let catalog = PlannerFixtures.catalog(count: 300, sideMeters: 3_000, radii: 40...120, seed: 12)
        let configuration = RotationConfiguration(limit: 10, headroom: 1)
        var sidecar = Sidecar(catalog: catalog, configuration: configuration)
        func answer(_ line: String) throws -> [String: Any] {
            let lines = sidecar.handle(line, number: 1)
            #expect(lines.count == 1)
            return try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        }
        let here = catalog.places[0].coordinate,
            there = catalog.places[0].coordinate.destination(bearingDegrees: 90, distanceMeters: 50_000)
        _ = try answer(#"{"device":"near","lat":\#(here.latitude),"lon":\#(here.longitude),"t":1}"#)
        _ = try answer(#"{"device":"far","lat":\#(there.latitude),"lon":\#(there.longitude),"t":1}"#)
        let rotator = try #require(
            sidecar.devices.rotatorState(of: "near").map { try FenceRotator(catalog: catalog, configuration: configuration, state: $0) })
        let monitored = rotator.state.monitored.map(\.id)
        let reported = Array(monitored.dropFirst(2)) + ["stray"]
        let list = reported.map { "\"\($0)\"" }.joined(separator: ",")
        let reconcile = try answer(#"{"device":"near","registered":[\#(list)],"t":2}"#)
        let expected = rotator.reconcile(registered: reported)
        #expect(reconcile["action"] as? String == "reconcile" && reconcile["in_sync"] as? Bool == false)
        #expect(reconcile["stop"] as? [String] == expected.stop)
        #expect((reconcile["start"] as? [[String: Any]])?.map { $0["id"] as? String } == expected.start.map(\.id))
        #expect((reconcile["start_refresh"] as? [String: Any])?["id"] as? String == expected.refresh?.id)

        let catalogAnswer = try answer(#"{"changes":[{"op":"remove","id":"\#(monitored[0])"}]}"#)
        let affected = try #require(catalogAnswer["affected"] as? [[String: Any]])
        #expect(affected.map { $0["device"] as? String } == ["near"])
        #expect(affected.first?["action"] as? String == "update")
        #expect(affected.first?["stop"] as? [String] == [monitored[0]])
    }

    /// Responses are one JSON object per line that a JSON reader accepts.
    @Test func responsesAreJSONObjects() throws {
        let catalog = PlannerFixtures.catalog(count: 60, sideMeters: 2_000, seed: 8)
        var monitor = try FenceMonitor(catalog: catalog, configuration: RotationConfiguration())
        let update = monitor.handle(.fix(Fix(catalog.places[0].coordinate, accuracyMeters: 5, timestampSeconds: 0), source: .wakeFix))
        #expect(!update.operations.isEmpty && !update.placeEvents.isEmpty)
        for line in [
            SidecarResponse.report(line: 1, device: "a\"b", output: update),
            SidecarResponse.report(line: 2, device: "a", output: MonitorOutput()),
            SidecarResponse.catalog(line: 3, version: 2, places: 61), SidecarResponse.error(line: 4, "bad \n thing"),
        ] {
            #expect(!line.contains("\n"))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["line"] != nil)
        }
        var network = MonitorOutput()
        network.location = .networkFixes(intervalSeconds: 20)
        let line = SidecarResponse.report(line: 5, device: "a", output: network)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let location = try #require(object["location"] as? [String: Any])
        #expect(location["request"] as? String == "network_fixes" && location["interval_s"] as? Double == 20)
    }

    @Test func stateFilesRoundTripAndCorruptOnesAreErrors() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rotate-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("state.json").path
        #expect(try SidecarState.read(path: path) == nil)
        let catalog = PlannerFixtures.catalog(count: 60, sideMeters: 2_000, seed: 8)
        var monitor = try FenceMonitor(catalog: catalog, configuration: RotationConfiguration())
        _ = monitor.handle(.fix(Fix(catalog.places[0].coordinate, accuracyMeters: 5, timestampSeconds: 0), source: .wakeFix))
        var state = SidecarState()
        state.devices = ["a": monitor.state, "b": MonitorState()]
        state.changeLines = [#"{"changes":[]}"#]
        try state.write(path: path)
        #expect(try SidecarState.read(path: path) == state)
        #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
        // A version 1 file (rotator states alone) is read and migrated.
        let rotatorJSON = String(decoding: try JSONEncoder().encode(monitor.state.rotator), as: UTF8.self)
        try Data(#"{"format_version":1,"change_lines":[],"devices":{"a":\#(rotatorJSON)}}"#.utf8).write(to: URL(fileURLWithPath: path))
        let migrated = try #require(try SidecarState.read(path: path))
        #expect(migrated.formatVersion == 2 && migrated.devices["a"]?.rotator == monitor.state.rotator)
        #expect(migrated.devices["a"]?.tracks.isEmpty == true)
        for corrupt in [
            "", "{", #"{"format_version":3,"change_lines":[],"devices":{}}"#, #"{"format_version":1,"devices":{}}"#,
            #"{"format_version":2,"change_lines":[],"devices":{"a":{"format_version":1,"monitored":[],"reselections":0}}}"#,
            #"{"format_version":1,"change_lines":[],"devices":{"a":{"format_version":1,"monitored":[],"reselections":-1}}}"#,
        ] {
            try Data(corrupt.utf8).write(to: URL(fileURLWithPath: path))
            #expect(throws: StateFileError.self, "\(corrupt)") { try SidecarState.read(path: path) }
        }
    }

    /// With visits on (`rotate serve --visits`, protocol version 5) every answer to a device
    /// carries `visits`; a stay of 100 s at a place is an arrival naming it, with its candidates,
    /// and moving away a departure; without visits no answer has the key.
    @Test func visitsAreReportedWhenAskedFor() throws {
        let catalog = PlannerFixtures.catalog(count: 300, sideMeters: 3_000, radii: 40...120, seed: 12)
        let configuration = RotationConfiguration(limit: 10, headroom: 1)
        var settings = FenceMonitor.Settings()
        settings.visits = VisitSettings()
        let place = catalog.places[7]
        let far = place.coordinate.destination(bearingDegrees: 90, distanceMeters: 2_000)
        func lines() -> [String] {
            stride(from: 0, through: 200, by: 20).map { t in
                let p = t < 180 ? place.coordinate.destination(bearingDegrees: Double(t), distanceMeters: 5) : far
                return #"{"device":"v","lat":\#(p.latitude),"lon":\#(p.longitude),"t":\#(t),"accuracy_m":10,"source":"network"}"#
            }
        }
        var plain = Sidecar(catalog: catalog, configuration: configuration)
        for (n, line) in lines().enumerated() { #expect(plain.handle(line, number: n + 1).allSatisfy { !$0.contains(#""visits""#) }) }
        var sidecar = Sidecar(catalog: catalog, configuration: configuration, settings: settings)
        var events: [[String: Any]] = []
        for (n, line) in lines().enumerated() {
            let answer = try #require(sidecar.handle(line, number: n + 1).first)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any])
            events += try #require(object["visits"] as? [[String: Any]])
        }
        #expect(events.map { $0["event"] as? String } == ["arrival", "departure"])
        let arrival = try #require(events.first)
        #expect(arrival["place"] as? String == place.id)
        #expect(arrival["arrival_t"] as? Double == 0 && arrival["t"] as? Double == 100 && arrival["departure_t"] == nil)
        let candidates = try #require(arrival["candidates"] as? [[String: Any]])
        #expect(candidates.first?["place"] as? String == place.id)
        #expect((candidates.first?["p"] as? Double ?? 0) > 0.5)
        #expect(events.last?["departure_t"] as? Double == 180)
    }
}

extension SidecarTests {
    /// Under a battery budget (protocol version 6) a `one_fix` a Wi-Fi position can answer says
    /// `"source":"network"` (every preset but `passages`), and while the budget gives goals up
    /// every answer lists them in `given_up`, in order (a budget of 0.01 mW, spent by the first
    /// fix); with no budget `given_up` never appears.
    @Test func aBudgetSaysWhereTheOneFixComesFromAndWhatItGivesUp() throws {
        let catalog = PlannerFixtures.catalog(count: 300, sideMeters: 3_000, radii: 40...120, seed: 12)
        let configuration = RotationConfiguration(limit: 10, headroom: 1)
        let start = catalog.places[7].coordinate
        func answers(_ visits: VisitSettings) throws -> [[String: Any]] {
            var settings = FenceMonitor.Settings()
            settings.visits = visits
            var sidecar = Sidecar(catalog: catalog, configuration: configuration, settings: settings)
            let first = #"{"device":"b","lat":\#(start.latitude),"lon":\#(start.longitude),"t":0,"accuracy_m":10}"#
            let firstAnswer = try #require(sidecar.handle(first, number: 1).first)
            var objects = [try #require(try JSONSerialization.jsonObject(with: Data(firstAnswer.utf8)) as? [String: Any])]
            // The refresh region left, the fix that reselects, and the new region left in turn.
            for n in 2...4 {
                let last = objects.last { $0["start_refresh"] != nil }
                let refresh = try #require((last?["start_refresh"] as? [String: Any])?["id"] as? String)
                let line =
                    n == 3
                    ? #"{"device":"b","lat":\#(start.latitude),"lon":\#(start.longitude),"t":32,"accuracy_m":10,"source":"wake_fix"}"#
                    : #"{"device":"b","region":"\#(refresh)","event":"exit","t":\#(n * 30)}"#
                let answer = try #require(sidecar.handle(line, number: n).first)
                objects.append(try #require(try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any]))
            }
            return objects
        }
        func location(_ object: [String: Any]) -> [String: Any] { object["location"] as? [String: Any] ?? [:] }
        let passages = try answers(VisitSettings(budget: .passages))
        #expect(location(passages[1])["request"] as? String == "one_fix" && location(passages[1])["source"] == nil)
        #expect(passages.allSatisfy { $0["given_up"] == nil })
        let balanced = try answers(VisitSettings())
        #expect(location(balanced[1])["request"] as? String == "one_fix" && location(balanced[1])["source"] as? String == "network")
        #expect(balanced.allSatisfy { $0["given_up"] == nil })
        let lowPower = try answers(VisitSettings(budget: .lowPower))
        #expect(location(lowPower[1])["request"] as? String == "one_fix" && location(lowPower[1])["source"] as? String == "network")
        #expect(location(lowPower[3])["request"] as? String == "one_fix" && location(lowPower[3])["source"] as? String == "network")
        // The first half minute of what the engine asks spends the account: every goal is given up
        // from then on, and each refresh exit waits for a significant change.
        let starved = try answers(VisitSettings(budgetMilliwatts: 0.01))
        #expect(starved[0]["given_up"] == nil)
        #expect(location(starved[1])["request"] as? String == "significant_changes")
        for object in starved.dropFirst() { #expect(object["given_up"] as? [String] == VisitGoal.allCases.map(\.rawValue)) }
        #expect(location(starved[3])["request"] as? String == "significant_changes")
    }
    /// A motion line reaches the device's engine: with visits on, "still" near a place asks for
    /// network fixes; without, the answer says it was ignored.
    @Test func aMotionLineIsACueForVisits() throws {
        let shop = Place(id: "shop", coordinate: Coordinate(validLatitude: 45.8, longitude: 15.97), radiusMeters: 100)
        let catalog = try PlaceCatalog(places: [shop])
        let near = shop.coordinate.destination(bearingDegrees: 0, distanceMeters: 140)
        func answers(visits: Bool) throws -> [[String: Any]] {
            var settings = FenceMonitor.Settings()
            if visits { settings.visits = VisitSettings() }
            var sidecar = Sidecar(catalog: catalog, configuration: RotationConfiguration(), settings: settings)
            let lines = [
                #"{"device":"m","lat":\#(near.latitude),"lon":\#(near.longitude),"t":0,"accuracy_m":30}"#,
                #"{"device":"m","motion":"still","t":60}"#,
            ]
            return try lines.enumerated().map { n, line in
                let answer = try #require(sidecar.handle(line, number: n + 1).first)
                return try #require(try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any])
            }
        }
        let on = try answers(visits: true)
        let location = on[1]["location"] as? [String: Any]
        #expect(location?["request"] as? String == "network_fixes" && on[1]["ignored"] == nil, "\(on[1])")
        #expect((on[0]["location"] as? [String: Any])?["request"] as? String != "network_fixes", "\(on[0])")
        let off = try answers(visits: false)
        #expect(off[1]["ignored"] as? String != nil && (off[1]["location"] as? [String: Any])?["request"] as? String != "network_fixes")
    }
}

extension SidecarTests {
    /// Over a catalog with approach regions (`rotate serve --approach`), a place smaller than
    /// the radius is started with the approach region's radius, and the platform's entry of it
    /// is no place event but a cue: network fixes; a place at least that large is started and
    /// entered as before.
    @Test func anApproachRegionIsStartedWideAndItsEntryIsACue() throws {
        let here = Coordinate(validLatitude: 45.8, longitude: 15.97)
        let small = Place(id: "kiosk", coordinate: here.destination(bearingDegrees: 0, distanceMeters: 400), radiusMeters: 20)
        let large = Place(id: "market", coordinate: here.destination(bearingDegrees: 180, distanceMeters: 400), radiusMeters: 150)
        // Far places enough that the device does not hold the whole catalog (it has a refresh
        // region, so a change reaches only the devices it concerns).
        let others = (0..<20).map { i in
            Place(id: "o\(i)", coordinate: here.destination(bearingDegrees: Double(i) * 18, distanceMeters: 5_000), radiusMeters: 100)
        }
        let catalog = try PlaceCatalog(places: [small, large] + others, approachRadiusMeters: 100)
        var settings = FenceMonitor.Settings()
        settings.visits = VisitSettings()
        var sidecar = Sidecar(catalog: catalog, configuration: RotationConfiguration(limit: 10, headroom: 1), settings: settings)
        func object(_ line: String, _ number: Int) throws -> [String: Any] {
            let answer = try #require(sidecar.handle(line, number: number).first)
            return try #require(try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any])
        }
        let first = try object(#"{"device":"d","lat":\#(here.latitude),"lon":\#(here.longitude),"t":0,"accuracy_m":10}"#, 1)
        let starts = try #require(first["start"] as? [[String: Any]])
        let radii = Dictionary(
            uniqueKeysWithValues: starts.compactMap { start in (start["id"] as? String).map { ($0, start["radius_m"] as? Double) } })
        #expect(radii["kiosk"] == 100 && radii["market"] == 150, "\(starts)")
        let cue = try object(#"{"device":"d","region":"kiosk","event":"entry","t":50}"#, 2)
        #expect((cue["place_events"] as? [[String: Any]])?.isEmpty ?? true, "\(cue)")
        #expect((cue["location"] as? [String: Any])?["request"] as? String == "network_fixes", "\(cue)")
        let entry = try object(#"{"device":"d","region":"market","event":"entry","t":60}"#, 3)
        #expect((entry["place_events"] as? [[String: Any]])?.first?["place"] as? String == "market", "\(entry)")
        // A change that leaves the approach region as it was (the kiosk grows to 30 m) reaches
        // no device; one that moves it reaches the device monitoring it.
        let resized = try object(#"{"changes":[{"op":"radius","id":"kiosk","radius_m":30}],"t":70}"#, 4)
        #expect((resized["affected"] as? [[String: Any]])?.isEmpty == true, "\(resized)")
        let spot = small.coordinate.destination(bearingDegrees: 90, distanceMeters: 10)
        let moved = try object(#"{"changes":[{"op":"move","id":"kiosk","lat":\#(spot.latitude),"lon":\#(spot.longitude)}],"t":80}"#, 5)
        #expect((moved["affected"] as? [[String: Any]])?.map { $0["device"] as? String } == ["d"], "\(moved)")
    }
}
