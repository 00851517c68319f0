import Dispatch
import EventEngine
import FencePlanner
import Foundation
import SyncService

#if canImport(Glibc)
import Glibc
#endif

/// What a sidecar's state database may lose, chosen with `rotate serve --durability` (as
/// Redis's `appendfsync` chooses for its log; docs/sidecar.md, Durable state).
public enum Durability: String, Sendable, CaseIterable {
    /// Every answer is written only after its line's changes are committed and flushed to disk
    /// (`synchronous = FULL`; lines that arrive together share one commit). Loses nothing that
    /// was answered, even on power loss.
    case always
    /// Changes are committed every `commitEvery` device inputs or `commitInterval`, whichever
    /// comes first, and whenever the input pauses; answers do not wait. A crash of the process
    /// loses at most the inputs since the last commit that finished: the commit the writer
    /// thread is writing and the inputs since, at most 2 × `commitEvery`; power loss may lose more (WAL with
    /// `synchronous = NORMAL`).
    case batch
    /// States are kept in memory and written once, at a clean end (end of input, SIGTERM or
    /// SIGINT). A crash loses every input since start.
    case none
}

/// A sidecar with its state database: opens or creates the database (migrating a JSON state
/// file once), restores the catalog and makes the sidecar look devices up in it, and writes the
/// devices that changed and the change sets applied, in one transaction per commit.
///
/// Commits are written on a thread of their own, one at a time, while the sidecar goes on with
/// the next lines (a commit that must be on disk before answers are written is waited for):
/// encoding the states and SQLite's work take the second core instead of the sidecar's.
public final class SidecarStore: @unchecked Sendable {
    /// The longest a batch stays open under `Durability.batch`.
    public static let commitInterval = Duration.milliseconds(100)

    /// The open state database.
    public let database: StateDatabase
    /// Held for the store's life: no other process serves the database meanwhile.
    private let lock: StateLock
    /// What the database may lose, as opened.
    public let durability: Durability
    /// Input lines the database had committed when it was opened (every earlier process's).
    public let committedLinesAtOpen: Int
    /// Devices stored when the database was opened (they are loaded at their next input).
    public let devicesAtOpen: Int
    /// What opening did, for the log: created, migrated or restored, with the counts.
    public let summary: String
    /// Change sets applied since the last commit, each with the catalog it made.
    private var pendingChanges: [(changes: [CatalogChange], catalog: PlaceCatalog)] = []
    private let writer = DispatchQueue(label: "rotate.state-writer")
    /// The commit being written, if any.
    private let inFlight = DispatchGroup()
    /// The first failed write (read after `inFlight` is done).
    private var failure: StateFileError?

    /// Opens the state at `path` for a sidecar over `catalog`, the places file's catalog.
    ///
    /// Takes the database's lock for the life of the store, finishes an interrupted migration,
    /// migrates a JSON state file once, and creates and seeds a database that does not exist.
    ///
    /// ```swift
    /// let (store, opened) = try SidecarStore.open(
    ///     path: "devices.sqlite", catalog: catalog, configuration: configuration, durability: .always)
    /// var sidecar = opened
    /// print(store.summary)  // created, migrated or restored, with the catalog version and counts
    /// for (number, line) in inputLines.enumerated() {
    ///     let answers = sidecar.handle(line, number: number + 1)
    ///     store.recordChanges(of: sidecar)
    ///     try store.commit(&sidecar, linesHandled: number + 1, wait: true)  // committed, then answered
    ///     answers.forEach { print($0) }
    /// }
    /// try store.close()
    /// ```
    ///
    /// - Returns: the store and the sidecar to serve with (over the stored catalog version).
    /// - Throws: `StateFileError` for a path that is not a regular file, a database another process
    ///   holds, a file that is not a rotate state (or a JSON state file that does not read),
    ///   another schema, a corrupt database, or a database created from another places file.
    public static func open(
        path: String, catalog: PlaceCatalog, configuration: RotationConfiguration, durability: Durability,
        settings: FenceMonitor.Settings = FenceMonitor.Settings()
    ) throws(StateFileError) -> (store: SidecarStore, sidecar: Sidecar) {
        let path = try followLink(path)
        try checkKind(of: path)
        let lock = try StateLock(databasePath: path, canonicalPath: canonical(path))
        let resumedMigration = try finishInterruptedMigration(at: path)
        var migrated: Int?
        if let legacy = try legacyState(at: path) {
            migrated = try migrate(legacy, at: path, catalog: catalog, configuration: configuration)
        }
        try lock.lockDatabaseFile()
        let database = try StateDatabase(path: path, synchronous: durability == .always)
        let digest = StateDatabase.digest(of: catalog)
        var sidecar: Sidecar
        if database.isNew {
            try database.seed(catalog, digest: digest)
            sidecar = Sidecar(catalog: catalog, configuration: configuration, settings: settings)
        } else {
            guard try database.seedDigest() == digest else {
                throw StateFileError(
                    path: path,
                    reason:
                        "was created from other places than the places file given: start it from the same file (send changes as change sets), or use a new state file"
                )
            }
            let version = try database.catalogVersion()
            var current = catalog
            if version != catalog.version {
                // The committed catalog's digest vouches for the stored places, footprints read
                // back without the checks their change sets passed; a database without one
                // (written before digests, and so without footprints) has them checked.
                let expected = try database.catalogDigest()
                do {
                    current = try PlaceCatalog(
                        places: try database.places(trustingFootprints: expected != nil),
                        minFenceRadiusMeters: catalog.minFenceRadiusMeters,
                        maxRegionRadiusMeters: catalog.maxRegionRadiusMeters, refreshIdentifierPrefix: catalog.refreshIdentifierPrefix,
                        version: version, approachRadiusMeters: catalog.approachRadiusMeters,
                        footprintCushionMeters: catalog.footprintCushionMeters)
                } catch {
                    throw StateFileError(path: path, reason: "corrupt: the stored catalog is invalid: \(error)")
                }
                if let expected, StateDatabase.digest(of: current) != expected {
                    throw StateFileError(
                        path: path, reason: "corrupt: the stored places do not match the catalog version \(version) that was committed")
                }
            }
            sidecar = Sidecar(catalog: current, configuration: configuration, settings: settings)
        }
        let store = try SidecarStore(
            database: database, lock: lock, durability: durability, migrated: migrated, resumedMigration: resumedMigration,
            catalog: sidecar.devices.catalog)
        // Only a database that holds devices is worth asking about a device not seen yet.
        if store.devicesAtOpen > 0 { sidecar.lookUp(in: database) }
        return (store, sidecar)
    }

    private init(
        database: StateDatabase, lock: StateLock, durability: Durability, migrated: Int?, resumedMigration: Bool, catalog: PlaceCatalog
    ) throws(StateFileError) {
        self.database = database
        self.lock = lock
        self.durability = durability
        committedLinesAtOpen = try database.inputLines()
        devicesAtOpen = try database.deviceCount()
        let what: String
        if let migrated {
            what = "migrated \(migrated) devices from a JSON state file (kept as \(database.path).json)"
        } else if database.isNew {
            what = "new state database"
        } else if resumedMigration {
            what =
                "finished a migration from a JSON state file that was interrupted (the JSON file is kept as \(database.path).json); \(devicesAtOpen) devices restored (each loaded at its next input)"
        } else {
            what = "\(devicesAtOpen) devices restored (each loaded at its next input)"
        }
        summary =
            "\(database.path): \(what), catalog version \(catalog.version) (\(catalog.count) places), \(committedLinesAtOpen) input lines committed"
    }

    /// Keeps what the last line changed for the next commit: its change set, if it applied one
    /// (call after every line that may have).
    public func recordChanges(of sidecar: Sidecar) {
        if let changes = sidecar.lastAppliedChanges { pendingChanges.append((changes, sidecar.devices.catalog)) }
    }

    /// Commits the change sets applied and every device that changed since the last commit,
    /// recording that `lines` input lines were handled by this process so far: hands them to the
    /// writer (after the commit before, if it is still being written) and, with `wait`, returns
    /// once they are committed.
    ///
    /// - Throws: `StateFileError` when this commit (with `wait`) or an earlier one failed.
    public func commit(_ sidecar: inout Sidecar, linesHandled lines: Int, wait: Bool) throws(StateFileError) {
        let catalog = sidecar.devices.catalog
        var devices: [(String, PackedMonitorState)] = []
        for device in sidecar.takeChangedDevices() {
            if let state = sidecar.devices.packedState(of: device) { devices.append((device, state)) }
        }
        let changes = pendingChanges
        pendingChanges = []
        let total = committedLinesAtOpen + lines
        inFlight.wait()
        if let failure { throw failure }
        inFlight.enter()
        writer.async { [database, inFlight, devices] in
            do throws(StateFileError) {
                for (changeSet, after) in changes { try database.record(changeSet, in: after) }
                for (device, state) in devices { try database.put(device: device, packed: state, in: catalog) }
                try database.commit(inputLines: total)
            } catch {
                self.failure = error
            }
            inFlight.leave()
        }
        if wait {
            inFlight.wait()
            if let failure { throw failure }
        }
    }

    /// The file a symbolic link at `path` names (its real path), so that a migration renames the
    /// database rather than the link and its log and lock sit beside it; `path` itself when it is
    /// not a link.
    ///
    /// - Throws: `StateFileError` for a link to a file that does not exist (a new database is
    ///   created at a path that names no link).
    private static func followLink(_ path: String) throws(StateFileError) -> String {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return path }
        guard let resolved = realpath(path, nil) else {
            throw StateFileError(
                path: path,
                reason:
                    "is a symbolic link to a file that does not exist (\(String(cString: strerror(errno)))): give the database's own path"
            )
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `path` with every symbolic link in its directories resolved (the file itself is not a
    /// link: `followLink(_:)`); `path` as given when its directory does not resolve.
    private static func canonical(_ path: String) -> String {
        let name = (path as NSString).lastPathComponent
        let directory = (path as NSString).deletingLastPathComponent
        guard let resolved = realpath(directory.isEmpty ? "." : directory, nil) else { return path }
        defer { free(resolved) }
        return (String(cString: resolved) as NSString).appendingPathComponent(name)
    }

    /// Refuses a path that names something other than a regular file (a FIFO would block the
    /// start, a directory or device cannot be a database); a missing file is created later.
    private static func checkKind(of path: String) throws(StateFileError) {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        let kind = info.st_mode & S_IFMT
        guard kind != S_IFREG else { return }
        let name =
            switch kind {
            case S_IFIFO: "a FIFO"
            case S_IFDIR: "a directory"
            case S_IFCHR, S_IFBLK: "a device"
            case S_IFSOCK: "a socket"
            default: "not a file"
            }
        throw StateFileError(path: path, reason: "is \(name), not a regular file: a state database is a file")
    }

    /// A migration of a JSON state file writes the whole database as `FILE.migrating`, closes it,
    /// then renames `FILE` to `FILE.json` and `FILE.migrating` to `FILE`. One killed between the
    /// two renames left no `FILE`, the JSON state as `FILE.json` and a complete database: the
    /// second rename is done now (returns true). One killed before the first rename left `FILE`
    /// as the JSON state and perhaps part of a database: that part is removed, and the migration
    /// runs again.
    private static func finishInterruptedMigration(at path: String) throws(StateFileError) -> Bool {
        let temporary = path + ".migrating"
        let files = FileManager.default
        guard files.fileExists(atPath: temporary) else { return false }
        if !files.fileExists(atPath: path) && files.fileExists(atPath: path + ".json") {
            guard rename(temporary, path) == 0 else {
                throw StateFileError(
                    path: path, reason: "cannot finish an interrupted migration (\(temporary)): \(String(cString: strerror(errno)))")
            }
            syncDirectory(of: path)
            return true
        }
        for suffix in ["", "-wal", "-shm", "-journal"] { try? files.removeItem(atPath: temporary + suffix) }
        return false
    }

    /// Flushes the directory holding `path`, so that renames in it survive power loss.
    private static func syncDirectory(of path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        let fd = Glibc.open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        Glibc.close(fd)
    }

    /// Ends a clean run after the last commit: waits for the commit in flight and checkpoints the
    /// write-ahead log into the database file, so that the file alone holds every commit (a copy
    /// of it is complete) and the next start reads no log; then releases the database's lock,
    /// so that another store may open it at once.
    ///
    /// - Throws: `StateFileError` when a commit failed or the checkpoint fails (the lock is kept
    ///   then, until the store goes).
    public func close() throws(StateFileError) {
        inFlight.wait()
        if let failure { throw failure }
        try database.close()
        lock.release()
    }

    /// A JSON state file (what `rotate serve` wrote before its state database), if `path` is one.
    private static func legacyState(at path: String) throws(StateFileError) -> SidecarState? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        let head = (try? handle.read(upToCount: 64)) ?? Data()
        try? handle.close()
        guard let first = head.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }), first == UInt8(ascii: "{") else { return nil }
        return try SidecarState.read(path: path)
    }

    /// Replays a JSON state into a new database written beside it, then renames the JSON file to
    /// `path.json` and the database to `path`. Returns the devices migrated.
    private static func migrate(
        _ legacy: SidecarState, at path: String, catalog: PlaceCatalog, configuration: RotationConfiguration
    ) throws(StateFileError) -> Int {
        var sidecar = Sidecar(catalog: catalog, configuration: configuration)
        try sidecar.restore(legacy, from: path)
        let temporary = path + ".migrating"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: temporary + suffix) }
        do {
            let database = try StateDatabase(path: temporary, synchronous: true)
            try database.seed(sidecar.devices.catalog, digest: StateDatabase.digest(of: catalog))
            for device in legacy.devices.keys.sorted() {
                guard let state = sidecar.devices.packedState(of: device) else { continue }
                try database.put(device: device, packed: state, in: sidecar.devices.catalog)
            }
            try database.commit(inputLines: 0)
            try database.close()
        }
        guard rename(path, path + ".json") == 0, rename(temporary, path) == 0 else {
            throw StateFileError(path: path, reason: "cannot replace the JSON state by its database: \(String(cString: strerror(errno)))")
        }
        syncDirectory(of: path)
        return legacy.devices.count
    }
}
