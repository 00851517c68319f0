import CSQLite
import EventEngine
import FencePlanner
import Foundation
import Geodesy
import SyncService

/// The sidecar's durable state: one SQLite database file (WAL mode) holding the catalog's
/// current version and every device's `MonitorState`, so a restart resumes exactly where the
/// last committed batch left off without replaying change sets (docs/sidecar.md, Durable state).
///
/// Schema version 2 (`PRAGMA user_version`; `PRAGMA application_id` is 0x726F7461, "rota"; a
/// version 1 file, without footprints, gains the `footprint` column when opened):
/// - `meta(key, value)`: `catalog_version`, `input_lines` (input lines handled by every process
///   on this file, through the last commit), `seed_digest` (the places file the database was
///   created from), `created_by`;
/// - `places(id, name, lat, lon, radius_m, transitions, footprint)`: the catalog's current
///   version; `footprint` is NULL for a circle, else the footprint's JSON
///   (`SphericalMultiPolygon`'s Codable form: its oriented rings as unit vectors, read back bit
///   for bit);
/// - `devices(id, state)`: each device's state in `MonitorStateCoding`'s binary form, in a rowid
///   table with a unique index on `id`: a new device's row is appended at the end of the table
///   (devices arrive in no order of their ids, and a table ordered by id would take a page write
///   for each), and only the small index entries go in id order.
///
/// Writes go into one open transaction, committed by `commit()`. Device states are read through a
/// second connection, which sees what is committed: one thread may write (and commit) while
/// another reads states. Otherwise one thread uses it at a time.
public final class StateDatabase: DeviceStateSource, @unchecked Sendable {
    /// `PRAGMA application_id` of a rotate state database: 0x726F7461, "rota" in ASCII.
    public static let applicationID: Int64 = 0x726F_7461
    /// `PRAGMA user_version`: the schema this build reads and writes.
    public static let schemaVersion: Int64 = 2

    /// The database file's path, as given.
    public let path: String
    /// Whether this open created the file (then `seed` must run before anything else).
    public let isNew: Bool
    private let connection: SQLiteConnection
    private var inTransaction = false
    /// The reading connection and its statement, opened at the first read.
    private var reader: (connection: SQLiteConnection, select: SQLiteStatement)?
    private let upsertDevice: SQLiteStatement
    private let upsertPlace: SQLiteStatement
    private let deletePlace: SQLiteStatement
    private let upsertMeta: SQLiteStatement

    /// Opens the database at `path`, or creates it when there is no file.
    ///
    /// Most hosts open the database through `SidecarStore.open(path:catalog:configuration:durability:)`,
    /// which also locks it, seeds it and restores the catalog. Opened directly:
    ///
    /// ```swift
    /// let database = try StateDatabase(path: "devices.sqlite", synchronous: true)
    /// if database.isNew { try database.seed(catalog, digest: StateDatabase.digest(of: catalog)) }
    /// let stored = try database.storedState(of: "phone-42", in: catalog)  // nil for a device never stored
    /// try database.close()
    /// ```
    ///
    /// - Parameters:
    ///   - path: the database file, created when missing.
    ///   - synchronous: flush to disk at every commit (`PRAGMA synchronous = FULL`), so a commit
    ///     survives power loss; otherwise `NORMAL`, which in WAL mode survives a crash of the
    ///     process but may lose the last commits on power loss.
    /// - Throws: `StateFileError` when the file is not a SQLite database, is another program's
    ///   database or another schema version, fails SQLite's integrity check or holds `meta` values
    ///   that do not read, or when SQLite cannot open or create it.
    public init(path: String, synchronous: Bool) throws(StateFileError) {
        self.path = path
        var exists = FileManager.default.fileExists(atPath: path)
        if exists {
            // An empty file is an empty database (a crash may leave one before the first write).
            exists = try Self.checkHeader(path: path)
        }
        do {
            connection = try SQLiteConnection(path: path, create: !exists)
            sqlite3_busy_timeout(connection.handle, 5_000)
            // A file this class created and a crash left before its first commit is empty.
            if exists, try connection.integer("SELECT count(*) FROM sqlite_master") == 0,
                try connection.integer("PRAGMA application_id") == 0
            {
                exists = false
            }
            if exists {
                let application = try connection.integer("PRAGMA application_id") ?? 0
                guard application == Self.applicationID else {
                    throw StateFileError(
                        path: path,
                        reason:
                            "a SQLite database, but not a rotate state database (application_id \(application), expected \(Self.applicationID))"
                    )
                }
                let version = try connection.integer("PRAGMA user_version") ?? 0
                if version == 1 {
                    // Version 1 had no footprints: every place is a circle, NULL in the new column.
                    try connection.execute(
                        "BEGIN; ALTER TABLE places ADD COLUMN footprint TEXT; PRAGMA user_version = \(Self.schemaVersion); COMMIT;")
                } else if version != Self.schemaVersion {
                    throw StateFileError(
                        path: path, reason: "rotate state schema version \(version); this build reads version \(Self.schemaVersion)")
                }
                let check = try connection.texts("PRAGMA quick_check")
                guard check == ["ok"] else {
                    throw StateFileError(path: path, reason: "corrupt: \(check.prefix(3).joined(separator: "; "))")
                }
            }
            try connection.execute("PRAGMA journal_mode = WAL")
            try connection.execute("PRAGMA synchronous = \(synchronous ? "FULL" : "NORMAL")")
            // A large page cache and fewer, larger checkpoints: device rows are updated in random
            // key order, so each commit touches many pages; keeping them cached and checkpointing
            // each page once for many commits is most of the write cost.
            try connection.execute("PRAGMA cache_size = -131072")
            try connection.execute("PRAGMA wal_autocheckpoint = 16384")
            if !exists {
                // Created and seeded in one transaction (`seed` commits it): a crash in between
                // leaves an empty file, which the next open creates again.
                try connection.execute(
                    """
                    BEGIN;
                    PRAGMA application_id = \(Self.applicationID);
                    PRAGMA user_version = \(Self.schemaVersion);
                    CREATE TABLE meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID;
                    CREATE TABLE places(id TEXT PRIMARY KEY, name TEXT, lat REAL NOT NULL, lon REAL NOT NULL,
                        radius_m REAL NOT NULL, transitions TEXT NOT NULL, footprint TEXT) WITHOUT ROWID;
                    CREATE TABLE devices(id TEXT NOT NULL UNIQUE, state BLOB NOT NULL);
                    """)
                inTransaction = true
            }
            upsertDevice = try connection.prepare(
                "INSERT INTO devices(id, state) VALUES (?1, ?2) ON CONFLICT(id) DO UPDATE SET state = excluded.state")
            upsertPlace = try connection.prepare(
                "INSERT OR REPLACE INTO places(id, name, lat, lon, radius_m, transitions, footprint) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
            deletePlace = try connection.prepare("DELETE FROM places WHERE id = ?1")
            upsertMeta = try connection.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES (?1, ?2)")
        } catch let error as StateFileError {
            throw error
        } catch {
            throw StateFileError(path: path, reason: Self.describe(error))
        }
        isNew = !exists
        if exists { try checkMeta() }
    }

    /// Refuses a file that does not start with SQLite's header (a JSON state file is read by
    /// `SidecarState.read` and migrated before this is opened). Returns false for an empty file.
    private static func checkHeader(path: String) throws(StateFileError) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw StateFileError(path: path, reason: "cannot be read") }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        if header.isEmpty { return false }
        guard header == Data("SQLite format 3\0".utf8) else {
            throw StateFileError(path: path, reason: "not a rotate state database (no SQLite header)")
        }
        return true
    }

    private static func describe(_ error: any Error) -> String {
        guard let error = error as? SQLiteError else { return "\(error)" }
        switch error.code {
        case SQLITE_CORRUPT, SQLITE_NOTADB: return "corrupt: \(error.message)"
        default: return error.message
        }
    }

    private func failure(_ error: any Error) -> StateFileError {
        StateFileError(path: path, reason: Self.describe(error))
    }

    // MARK: Meta

    /// The largest version or line count a database may hold: JSON answers carry them as
    /// integers, which doubles hold exactly up to 2^53, and a counter this far from `Int.max`
    /// cannot overflow when it is incremented.
    public static let maximumCounter: Int64 = 1 << 53

    /// The integer stored under `key`.
    ///
    /// - Throws: `StateFileError` ("corrupt: …") when the row is missing, holds another type than
    ///   an integer (SQLite would read text such as `'abc'` as 0), or lies outside `range`.
    private func meta(_ key: String, in range: ClosedRange<Int64>) throws(StateFileError) -> Int64 {
        do {
            let statement = try connection.prepare("SELECT value, typeof(value), quote(value) FROM meta WHERE key = ?1")
            statement.bind(1, key)
            guard try statement.step() else { throw StateFileError(path: path, reason: "corrupt: meta '\(key)' is missing") }
            defer { statement.reset() }
            guard statement.isInteger(0) else {
                let shown = (statement.text(2) ?? "?").prefix(40)
                throw StateFileError(
                    path: path, reason: "corrupt: meta '\(key)' is \(shown) (\(statement.text(1) ?? "?")), not an integer")
            }
            let value = statement.integer(0)
            guard range.contains(value) else {
                throw StateFileError(
                    path: path, reason: "corrupt: meta '\(key)' is \(value), outside \(range.lowerBound)...\(range.upperBound)")
            }
            return value
        } catch let error as StateFileError {
            throw error
        } catch {
            throw failure(error)
        }
    }

    private func setMeta(_ key: String, _ value: Int64) throws(StateFileError) {
        do {
            try beginIfNeeded()
            upsertMeta.bind(1, key)
            upsertMeta.bind(2, value)
            try upsertMeta.run()
        } catch {
            throw failure(error)
        }
    }

    /// The catalog version stored, 0...`maximumCounter`.
    ///
    /// - Throws: `StateFileError` ("corrupt: …") when the value is missing, not an integer or out of
    ///   range, or the read fails.
    public func catalogVersion() throws(StateFileError) -> Int { Int(try meta("catalog_version", in: 0...Self.maximumCounter)) }
    /// Input lines handled through the last commit, by every process that used this file,
    /// 0...`maximumCounter`.
    ///
    /// - Throws: `StateFileError` ("corrupt: …") when the value is missing, not an integer or out of
    ///   range, or the read fails.
    public func inputLines() throws(StateFileError) -> Int { Int(try meta("input_lines", in: 0...Self.maximumCounter)) }
    /// The digest of the places file this database was created from (`digest(of:)` of its catalog).
    ///
    /// - Throws: `StateFileError` ("corrupt: …") when the value is missing or not an integer, or the
    ///   read fails.
    public func seedDigest() throws(StateFileError) -> UInt64 {
        UInt64(bitPattern: try meta("seed_digest", in: Int64.min...Int64.max))
    }

    /// Reads every value the start relies on, so that a damaged or hand-edited `meta` table
    /// stops the start instead of being read as 0 (or trapping at the first increment).
    private func checkMeta() throws(StateFileError) {
        _ = try catalogVersion()
        _ = try inputLines()
        _ = try seedDigest()
    }

    /// Devices stored (committed, or written in the open transaction).
    ///
    /// - Throws: `StateFileError` when SQLite fails to count them.
    public func deviceCount() throws(StateFileError) -> Int {
        do {
            return Int(try connection.integer("SELECT count(*) FROM devices") ?? 0)
        } catch {
            throw failure(error)
        }
    }

    // MARK: Catalog

    /// Writes a new database's catalog and its places file's digest, and commits.
    ///
    /// Call once, right after an open that created the file (`isNew`).
    ///
    /// - Throws: `StateFileError` when a write or the commit fails; the seed is not committed then.
    public func seed(_ catalog: PlaceCatalog, digest: UInt64) throws(StateFileError) {
        for place in catalog.places { try put(place) }
        try setMeta("catalog_version", Int64(catalog.version))
        try setMeta("seed_digest", Int64(bitPattern: digest))
        try setMeta("input_lines", 0)
        do {
            try beginIfNeeded()
            let statement = try connection.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('created_by', 'rotate serve')")
            try statement.run()
        } catch {
            throw failure(error)
        }
        try commit()
    }

    /// The stored catalog's places, in id order, each footprint validated as a new one is.
    ///
    /// - Throws: `StateFileError` ("corrupt: …") for a row whose position or transitions do not read,
    ///   or when SQLite fails.
    public func places() throws(StateFileError) -> [Place] {
        try places(trustingFootprints: false)
    }

    /// The stored catalog's places, in id order; `trustingFootprints`, each footprint rebuilt
    /// without checking its rings' shape again (`TrustedFootprint`, O(n) for n vertices): for a
    /// caller that compares the places with the committed catalog's digest (`catalogDigest()`),
    /// which a damaged row does not match. A footprint was checked when its change set was read.
    ///
    /// - Throws: as `places()`.
    package func places(trustingFootprints: Bool) throws(StateFileError) -> [Place] {
        do {
            let statement = try connection.prepare(
                "SELECT id, name, lat, lon, radius_m, transitions, footprint FROM places ORDER BY id")
            var places: [Place] = []
            while try statement.step() {
                let id = statement.text(0) ?? ""
                guard let transitions = Transitions(rawValue: statement.text(5) ?? ""),
                    let coordinate = try? Coordinate(latitude: statement.double(2), longitude: statement.double(3))
                else {
                    throw StateFileError(path: path, reason: "corrupt: place '\(id)' does not read")
                }
                var place = Place(
                    id: id, coordinate: coordinate, radiusMeters: statement.double(4), name: statement.text(1), transitions: transitions)
                if let json = statement.text(6) {
                    let data = Data(json.utf8)
                    guard
                        let footprint = trustingFootprints
                            ? (try? JSONDecoder().decode(TrustedFootprint.self, from: data))?.shape
                            : try? JSONDecoder().decode(SphericalMultiPolygon.self, from: data)
                    else {
                        throw StateFileError(path: path, reason: "corrupt: the footprint of place '\(id)' does not read")
                    }
                    place.footprint = footprint
                }
                places.append(place)
            }
            return places
        } catch let error as StateFileError {
            throw error
        } catch {
            throw failure(error)
        }
    }

    /// Records an applied change set: the places it touched, as they are in `catalog` (the
    /// catalog after the change), and the catalog's version, in the open transaction.
    ///
    /// - Throws: `StateFileError` when a write fails.
    public func record(_ changes: [CatalogChange], in catalog: PlaceCatalog) throws(StateFileError) {
        for change in changes {
            if let place = catalog[id: change.id] {
                try put(place)
            } else {
                do {
                    try beginIfNeeded()
                    deletePlace.bind(1, Identifiers.canonical(change.id))
                    try deletePlace.run()
                } catch {
                    throw failure(error)
                }
            }
        }
        try setMeta("catalog_version", Int64(catalog.version))
        try setMeta("catalog_digest", Int64(bitPattern: Self.digest(of: catalog)))
    }

    /// The digest of the catalog the last change set made (`digest(of:)`), if one was recorded:
    /// what a start compares the stored places with, so that a damaged places row stops the
    /// start instead of changing answers. Databases written before it have none.
    ///
    /// - Throws: `StateFileError` ("corrupt: …") when the value is not an integer, or the read fails.
    public func catalogDigest() throws(StateFileError) -> UInt64? {
        guard try hasMeta("catalog_digest") else { return nil }
        return UInt64(bitPattern: try meta("catalog_digest", in: Int64.min...Int64.max))
    }

    private func hasMeta(_ key: String) throws(StateFileError) -> Bool {
        do {
            let statement = try connection.prepare("SELECT 1 FROM meta WHERE key = ?1")
            statement.bind(1, key)
            defer { statement.reset() }
            return try statement.step()
        } catch {
            throw failure(error)
        }
    }

    private func put(_ place: Place) throws(StateFileError) {
        do {
            try beginIfNeeded()
            upsertPlace.bind(1, place.id)
            if let name = place.name { upsertPlace.bind(2, name) } else { upsertPlace.bindNull(2) }
            upsertPlace.bind(3, place.coordinate.latitude)
            upsertPlace.bind(4, place.coordinate.longitude)
            upsertPlace.bind(5, place.radiusMeters)
            upsertPlace.bind(6, place.transitions.rawValue)
            if let footprint = place.footprint {
                upsertPlace.bind(7, String(decoding: try JSONEncoder().encode(footprint), as: UTF8.self))
            } else {
                upsertPlace.bindNull(7)
            }
            try upsertPlace.run()
        } catch {
            throw failure(error)
        }
    }

    // MARK: Devices

    /// Stores a device's state, packed against `catalog`, the catalog this database stores as of
    /// the commit (in the open transaction). The id is stored in canonical form
    /// (`Identifiers.canonical(_:)`).
    ///
    /// - Throws: `StateFileError` when the write fails.
    public func put(device: String, packed state: PackedMonitorState, in catalog: PlaceCatalog) throws(StateFileError) {
        do {
            try beginIfNeeded()
            let id = Identifiers.canonical(device)
            upsertDevice.bind(1, id)
            upsertDevice.bind(2, blob: MonitorStateCoding.encode(state, in: catalog, device: id))
            try upsertDevice.run()
        } catch {
            throw failure(error)
        }
    }

    /// The device's committed state, its id-only places defined by `catalog` (the catalog this
    /// database stores); nil when the device was never stored. Read through the second connection,
    /// so it may run while another thread commits.
    ///
    /// - Throws: `DeviceError` naming the device when SQLite fails or the stored state does not read
    ///   (`MonitorStateCoding.decode(_:in:device:)`: a damaged row, or a place not in `catalog`).
    public func storedState(of device: String, in catalog: PlaceCatalog) throws(DeviceError) -> MonitorState? {
        let found: Bool
        let select: SQLiteStatement
        do {
            select = try readingConnection().select
            select.bind(1, Identifiers.canonical(device))
            found = try select.step()
        } catch {
            throw DeviceError(device: device, reason: "\(path): \(Self.describe(error))")
        }
        guard found else { return nil }
        defer { select.reset() }
        return try decodeState(select, column: 0, device: device, catalog: catalog)
    }

    /// Every committed device state by device id; a state that does not read is that device's
    /// `DeviceError`, and the others still read.
    ///
    /// - Throws: `DeviceError` with device `*` when the table cannot be read at all.
    public func storedStates(in catalog: PlaceCatalog) throws(DeviceError) -> [String: Result<MonitorState, DeviceError>] {
        var states: [String: Result<MonitorState, DeviceError>] = [:]
        let statement: SQLiteStatement
        do {
            statement = try readingConnection().connection.prepare("SELECT id, state FROM devices")
        } catch {
            throw DeviceError(device: "*", reason: "\(path): \(Self.describe(error))")
        }
        while true {
            do {
                guard try statement.step() else { break }
            } catch {
                throw DeviceError(device: "*", reason: "\(path): \(Self.describe(error))")
            }
            let device = statement.text(0) ?? ""
            states[device] = Result { () throws(DeviceError) in try decodeState(statement, column: 1, device: device, catalog: catalog) }
        }
        return states
    }

    private func readingConnection() throws(SQLiteError) -> (connection: SQLiteConnection, select: SQLiteStatement) {
        if let reader { return reader }
        let connection = try SQLiteConnection(path: path, create: false)
        sqlite3_busy_timeout(connection.handle, 5_000)
        try connection.execute("PRAGMA cache_size = -65536")
        let opened = (connection, try connection.prepare("SELECT state FROM devices WHERE id = ?1"))
        reader = opened
        return opened
    }

    private func decodeState(
        _ statement: SQLiteStatement, column: Int32, device: String, catalog: PlaceCatalog
    ) throws(DeviceError) -> MonitorState {
        let result = statement.withBlob(column) { bytes in
            Result { () throws(StateCodingError) in try MonitorStateCoding.decode(bytes, in: catalog, device: Identifiers.canonical(device))
            }
        }
        switch result {
        case .success(let state): return state
        case .failure(let error): throw DeviceError(device: device, reason: "\(path): stored state does not read: \(error.reason)")
        }
    }

    /// A digest of a catalog's places (ids, positions, radii, transitions and names, in id
    /// order, and a footprint's vertices; 64-bit FNV-1a): what tells the places file a database
    /// was created from. A catalog of circles digests as it did before footprints.
    public static func digest(of catalog: PlaceCatalog) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ byte: UInt8) {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        func mix(_ value: UInt64) {
            for shift in stride(from: 0, to: 64, by: 8) { mix(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
        }
        func mix(_ text: String) {
            for byte in text.utf8 { mix(byte) }
            mix(UInt8(0xFF))  // a separator no UTF-8 text contains
        }
        for place in catalog.places {
            mix(place.id)
            mix(place.coordinate.latitude.bitPattern)
            mix(place.coordinate.longitude.bitPattern)
            mix(place.radiusMeters.bitPattern)
            mix(place.transitions.rawValue)
            mix(place.name ?? "")
            if let footprint = place.footprint {
                // A byte no UTF-8 text holds, then every ring's vertices and its end.
                mix(UInt8(0xFE))
                for part in footprint.parts {
                    for ring in [part.shell] + part.holes {
                        for vertex in ring {
                            mix(vertex.x.bitPattern)
                            mix(vertex.y.bitPattern)
                            mix(vertex.z.bitPattern)
                        }
                        mix(UInt8(0xFD))
                    }
                }
            }
        }
        return hash
    }

    // MARK: Transactions

    /// Commits and checkpoints the write-ahead log into the database file.
    ///
    /// - Throws: `StateFileError` when the commit or the checkpoint fails.
    public func close() throws(StateFileError) {
        try commit()
        do {
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        } catch {
            throw failure(error)
        }
    }

    private func beginIfNeeded() throws(SQLiteError) {
        guard !inTransaction else { return }
        try connection.execute("BEGIN")
        inTransaction = true
    }

    /// Records how many input lines were handled in all (through this commit), then commits the
    /// open transaction.
    ///
    /// - Throws: `StateFileError` when the write or the commit fails.
    public func commit(inputLines: Int) throws(StateFileError) {
        try setMeta("input_lines", Int64(inputLines))
        try commit()
    }

    /// Commits the open transaction, if any.
    ///
    /// - Throws: `StateFileError` when SQLite cannot commit (a full disk, an I/O error, a lock held
    ///   past the 5 s busy timeout).
    public func commit() throws(StateFileError) {
        guard inTransaction else { return }
        do {
            try connection.execute("COMMIT")
        } catch {
            throw failure(error)
        }
        inTransaction = false
    }
}
