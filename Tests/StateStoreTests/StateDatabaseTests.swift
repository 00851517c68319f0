import EventEngine
import FencePlanner
import Foundation
import Geodesy
import RotateTestSupport
import SyncService
import Testing

@testable import StateStore

/// The state database: what it stores reads back, a catalog change is stored as the current
/// version, and files that are not a rotate database of this schema are refused with the reason.
@Suite struct StateDatabaseTests {
    static let catalog = PlannerFixtures.catalog(count: 300, sideMeters: 4_000, radii: 50...200, seed: 77)
    static let configuration = RotationConfiguration(limit: 10, headroom: 1)

    /// A footprint with a hole, near the catalog's places.
    static var footprint: SphericalMultiPolygon {
        var rng = SplitMix64(seed: 5)
        for _ in 0..<20 {
            let shape = PlannerFixtures.footprint(around: catalog.places[2].coordinate, radiusMeters: 80, using: &rng)
            if !shape.parts[0].holes.isEmpty { return shape }
        }
        preconditionFailure("no footprint with a hole in 20 draws")
    }

    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("rotate-db-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func statesAndTheCatalogReadBackAfterReopening() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("state.db").path
        let states = try MonitorStateCodingTests.states(seed: 9, count: 60)
        let changes: [CatalogChange] = [
            .remove(id: Self.catalog.places[3].id), .move(id: Self.catalog.places[8].id, to: Self.catalog.places[9].coordinate),
            .add(Place(id: "new", coordinate: Self.catalog.places[1].coordinate, radiusMeters: 70, name: "N", transitions: .exit)),
            .setRadius(id: Self.catalog.places[10].id, meters: 33), .setTransitions(id: Self.catalog.places[11].id, .entry),
            .add(Place(id: "hall", footprint: Self.footprint, name: "Hall", transitions: .entry)),
        ]
        let next = try Self.catalog.applying(changes)
        #expect(next[id: "hall"]?.footprint == Self.footprint)
        do {
            let database = try StateDatabase(path: path, synchronous: false)
            #expect(database.isNew)
            try database.seed(Self.catalog, digest: 42)
            for (i, state) in states.enumerated() {
                try database.put(
                    device: "d\(i)", packed: PackedMonitorState(state, in: MonitorStateCodingTests.catalog),
                    in: MonitorStateCodingTests.catalog)
            }
            try database.record(changes, in: next)
            try database.commit(inputLines: 17)
            // Uncommitted writes are lost with the connection.
            try database.put(
                device: "uncommitted", packed: PackedMonitorState(states[0], in: MonitorStateCodingTests.catalog),
                in: MonitorStateCodingTests.catalog)
        }
        let database = try StateDatabase(path: path, synchronous: true)
        #expect(!database.isNew)
        #expect(try database.inputLines() == 17 && database.seedDigest() == 42 && database.catalogVersion() == 1)
        #expect(try database.deviceCount() == states.count)
        #expect(try database.places() == next.places)
        for (i, state) in states.enumerated() {
            #expect(try database.storedState(of: "d\(i)", in: MonitorStateCodingTests.catalog) == state)
        }
        #expect(try database.storedState(of: "uncommitted", in: MonitorStateCodingTests.catalog) == nil)
        let all = try database.storedStates(in: MonitorStateCodingTests.catalog)
        #expect(all.count == states.count)
        #expect(try all["d5"]?.get() == states[5])
    }

    /// A stored footprint is read back at a start without the checks its change set passed: one
    /// stored under other limits (more vertices than a ring may have now) reads back whole, the
    /// committed catalog's digest vouching for it; a row replaced by another footprint is caught
    /// by that digest; without a digest (a database from before them) the checks run.
    @Test func storedFootprintsReadBackWithoutTheChecks() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("state.db").path
        let center = Self.catalog.places[2].coordinate
        let n = SphericalPolygon.maximumRingVertices + 2_000
        let ring = (0..<n).map { i in UnitVector(center.destination(bearingDegrees: -360 * Double(i) / Double(n), distanceMeters: 150)) }
        #expect(throws: PolygonError.tooManyVertices(ring: 0, count: n, limit: SphericalPolygon.maximumRingVertices)) {
            try SphericalPolygon(shellVectors: ring)
        }
        let large = SphericalMultiPolygon(try SphericalPolygon(trustedShellVectors: ring))
        let changes: [CatalogChange] = [.add(Place(id: "large", footprint: large, name: "Large"))]
        let next = try Self.catalog.applying(changes)
        do {
            let database = try StateDatabase(path: path, synchronous: false)
            try database.seed(Self.catalog, digest: StateDatabase.digest(of: Self.catalog))
            try database.record(changes, in: next)
            try database.commit(inputLines: 1)
            try database.close()
        }
        func open() throws(StateFileError) -> PlaceCatalog {
            let (store, sidecar) = try SidecarStore.open(
                path: path, catalog: Self.catalog, configuration: Self.configuration, durability: .batch)
            _ = consume store
            return sidecar.devices.catalog
        }
        #expect(try open()[id: "large"]?.footprint == large)
        // The row replaced by a footprint that reads (a valid one, elsewhere).
        let other = String(decoding: try JSONEncoder().encode(Self.footprint), as: UTF8.self)
        do {
            let connection = try SQLiteConnection(path: path, create: false)
            let original = try connection.texts("SELECT footprint FROM places WHERE id = 'large'")
            try connection.execute("UPDATE places SET footprint = '\(other)' WHERE id = 'large'")
            let replaced = #expect(throws: StateFileError.self) { try open() }
            #expect(replaced?.reason.contains("do not match the catalog version") == true, "\(String(describing: replaced))")
            try connection.execute("UPDATE places SET footprint = '\(original[0])' WHERE id = 'large'")
            #expect(try open()[id: "large"]?.footprint == large)
            try connection.execute("DELETE FROM meta WHERE key = 'catalog_digest'")
        }
        let error = #expect(throws: StateFileError.self) { try open() }
        #expect(error?.reason.contains("the footprint of place 'large' does not read") == true, "\(String(describing: error))")
    }

    /// Each way a file can fail to be this build's rotate database stops the open with its reason.
    @Test func foreignOldAndDamagedFilesAreRefused() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        func refusal(_ name: String) -> String? {
            do {
                _ = try StateDatabase(path: path(name), synchronous: false)
                return nil
            } catch {
                return error.reason
            }
        }
        // A good database, many pages long.
        do {
            let database = try StateDatabase(path: path("good.db"), synchronous: false)
            try database.seed(Self.catalog, digest: 1)
            for (i, state) in try MonitorStateCodingTests.states(seed: 3, count: 200).enumerated() {
                try database.put(
                    device: "device-\(i)", packed: PackedMonitorState(state, in: MonitorStateCodingTests.catalog),
                    in: MonitorStateCodingTests.catalog)
            }
            try database.close()
        }
        #expect(refusal("good.db") == nil)
        let good = try Data(contentsOf: URL(fileURLWithPath: path("good.db")))
        #expect(good.count > 16 * 4096)
        // An empty file (a crash before the first write) is a new database.
        try Data().write(to: URL(fileURLWithPath: path("empty.db")))
        #expect(refusal("empty.db") == nil)
        #expect(try StateDatabase(path: path("empty.db"), synchronous: false).isNew)
        try Data("id,lat,lon\n".utf8).write(to: URL(fileURLWithPath: path("text.db")))
        #expect(refusal("text.db")?.contains("not a rotate state database") == true)
        var overwritten = good
        overwritten.replaceSubrange(0..<100, with: Data(repeating: 0x41, count: 100))
        try overwritten.write(to: URL(fileURLWithPath: path("overwritten.db")))
        #expect(refusal("overwritten.db")?.contains("not a rotate state database") == true)
        try good.prefix(good.count / 2).write(to: URL(fileURLWithPath: path("truncated.db")))
        #expect(refusal("truncated.db")?.hasPrefix("corrupt") == true)
        var damaged = good
        for offset in stride(from: 3 * 4096, to: good.count, by: 4096) { damaged[offset + 8] ^= 0xFF }
        try damaged.write(to: URL(fileURLWithPath: path("damaged.db")))
        #expect(refusal("damaged.db")?.hasPrefix("corrupt") == true)
        // Another program's SQLite database, and a rotate database of another schema version.
        do {
            let other = try SQLiteConnection(path: path("other.db"), create: true)
            try other.execute("CREATE TABLE t(x); PRAGMA application_id = 7;")
            let future = try SQLiteConnection(path: path("future.db"), create: true)
            try future.execute("CREATE TABLE t(x); PRAGMA application_id = \(StateDatabase.applicationID); PRAGMA user_version = 3;")
        }
        #expect(refusal("other.db")?.contains("not a rotate state database (application_id 7") == true)
        #expect(refusal("future.db")?.contains("schema version 3; this build reads version 2") == true)
    }

    /// A closed store releases its lock at once: the database opens again while something still
    /// holds the old store (as a finished commit's closure may for a moment).
    @Test func aClosedStoreReleasesItsLockAtOnce() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("state.db").path
        let (first, _) = try SidecarStore.open(path: path, catalog: Self.catalog, configuration: Self.configuration, durability: .always)
        try first.close()
        let (second, _) = try SidecarStore.open(path: path, catalog: Self.catalog, configuration: Self.configuration, durability: .always)
        withExtendedLifetime(first) {}
        try second.close()
    }

    /// A schema version 1 database (no footprints) gains the footprint column when opened, keeps
    /// its places, and then stores footprints.
    @Test func aVersionOneDatabaseGainsFootprints() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("state.db").path
        do {
            let database = try StateDatabase(path: path, synchronous: true)
            try database.seed(Self.catalog, digest: 42)
            try database.commit(inputLines: 1)
            try database.close()
        }
        // Version 1's table, as that schema created it.
        do {
            let old = try SQLiteConnection(path: path, create: false)
            try old.execute("ALTER TABLE places DROP COLUMN footprint; PRAGMA user_version = 1;")
            #expect(try old.texts("SELECT name FROM pragma_table_info('places')").contains("footprint") == false)
        }
        let database = try StateDatabase(path: path, synchronous: true)
        #expect(try database.places() == Self.catalog.places)
        let next = try Self.catalog.applying([.add(Place(id: "hall", footprint: Self.footprint))])
        try database.record([.add(Place(id: "hall", footprint: Self.footprint))], in: next)
        try database.commit(inputLines: 2)
        try database.close()
        let reopened = try StateDatabase(path: path, synchronous: true)
        #expect(try reopened.places() == next.places)
        #expect(try reopened.catalogDigest() == StateDatabase.digest(of: next))
    }

    /// A JSON state file of the earlier format is replayed into a database once, and the file
    /// kept beside it; the devices resume as they were saved.
    @Test func aJSONStateFileIsMigratedOnce() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("state").path
        var legacy = SidecarState()
        let change = Self.catalog.places[5].id
        legacy.changeLines = [#"{"changes":[{"op":"remove","id":"\#(change)"}]}"#]
        var monitor = try FenceMonitor(catalog: Self.catalog, configuration: Self.configuration)
        _ = monitor.handle(.fix(Fix(Self.catalog.places[40].coordinate, accuracyMeters: 5, timestampSeconds: 3), source: .wakeFix))
        legacy.devices = ["a": monitor.state, "b": MonitorState()]
        try legacy.write(path: path)
        // The first store is closed (its lock released) at the end of this block.
        let migrated: PlaceCatalog
        do {
            let (store, sidecar) = try SidecarStore.open(
                path: path, catalog: Self.catalog, configuration: Self.configuration, durability: .batch)
            #expect(store.summary.contains("migrated 2 devices"))
            #expect(sidecar.devices.catalog.version == 1 && sidecar.devices.catalog[id: change] == nil)
            #expect(FileManager.default.fileExists(atPath: path + ".json"))
            #expect(
                try store.database.storedState(of: "a", in: sidecar.devices.catalog)?.rotator.monitored == monitor.state.rotator.monitored)
            #expect(try store.database.storedState(of: "b", in: sidecar.devices.catalog) == MonitorState())
            #expect(try store.database.places() == sidecar.devices.catalog.places)
            migrated = sidecar.devices.catalog
        }
        // Opened again, it is the database (nothing left to migrate) with the changed catalog.
        let (again, reopened) = try SidecarStore.open(
            path: path, catalog: Self.catalog, configuration: Self.configuration, durability: .batch)
        #expect(again.summary.contains("2 devices restored") && reopened.devices.catalog.places == migrated.places)
        // Started from other places, it refuses (while the store above holds the lock, as another
        // process: so closed first).
        _ = consume again
        _ = consume reopened
        let other = PlannerFixtures.catalog(count: 300, sideMeters: 4_000, radii: 50...200, seed: 78)
        #expect(throws: StateFileError.self) {
            try SidecarStore.open(path: path, catalog: other, configuration: Self.configuration, durability: .batch)
        }
    }

    /// With visits on, a stay under way is stored (codec 3) and goes on after a restart: the
    /// arrival that follows is dated from the stay's first fix before the restart, and its
    /// answer is the one a sidecar that never stopped gives.
    /// With approach regions (places under 150 m registered by a 150 m circle) the stored
    /// registrations read back as the planning catalog defines them, and the answers match too.
    @Test(arguments: [nil, 150.0])
    func aStayGoesOnAcrossARestart(approach: Double?) throws {
        let catalog = try PlaceCatalog(places: Self.catalog.places, approachRadiusMeters: approach)
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("visits.db").path
        var settings = FenceMonitor.Settings()
        settings.visits = VisitSettings()
        let spot = catalog.places[40].coordinate
        // At 40 s a change set (a place far away) makes catalog version 1, which the reopened
        // store rebuilds from its places, with the same approach regions; at 180 s the device is
        // 3 km away and registers what that version plans there.
        let far = spot.destination(bearingDegrees: 0, distanceMeters: 20_000)
        func line(_ t: Int) -> String {
            if t == 40 {
                return #"{"changes":[{"op":"add","id":"far","lat":\#(far.latitude),"lon":\#(far.longitude),"radius_m":30}],"t":40}"#
            }
            let p = spot.destination(bearingDegrees: Double(t * 37 % 360), distanceMeters: t == 180 ? 3_000 : 8)
            return #"{"device":"v","lat":\#(p.latitude),"lon":\#(p.longitude),"t":\#(t),"accuracy_m":20,"source":"network"}"#
        }
        var uninterrupted = Sidecar(catalog: catalog, configuration: Self.configuration, settings: settings)
        var expected: [String] = []
        for (n, t) in stride(from: 0, through: 180, by: 20).enumerated() { expected += uninterrupted.handle(line(t), number: n + 1) }
        var answers: [String] = []
        do {
            let (store, sidecar) = try SidecarStore.open(
                path: path, catalog: catalog, configuration: Self.configuration, durability: .always, settings: settings)
            var server = sidecar
            for (n, t) in stride(from: 0, through: 60, by: 20).enumerated() {
                answers += server.handle(line(t), number: n + 1)
                store.recordChanges(of: server)
                try store.commit(&server, linesHandled: n + 1, wait: true)
            }
            try store.close()
        }
        let (store, sidecar) = try SidecarStore.open(
            path: path, catalog: catalog, configuration: Self.configuration, durability: .always, settings: settings)
        var server = sidecar
        for (n, t) in stride(from: 80, through: 180, by: 20).enumerated() { answers += server.handle(line(t), number: n + 5) }
        try store.close()
        #expect(answers == expected)
        let deviceAnswers = answers.filter { !$0.contains(#""action":"catalog""#) }
        #expect(deviceAnswers.count == answers.count - 1)
        let visits = try deviceAnswers.flatMap { answer in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any])
            return try #require(object["visits"] as? [[String: Any]])
        }
        #expect(visits.map { $0["event"] as? String } == ["arrival", "departure"], "\(visits)")
        #expect(visits.first?["arrival_t"] as? Double == 0, "\(visits)")
        #expect(answers.last?.contains(#""action":"update""#) == true)
        #expect(deviceAnswers.allSatisfy { $0.contains(#""visits":["#) })
    }
}
