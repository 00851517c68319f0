import Dispatch
import EventEngine
import Foundation
import Geodesy
import RotateTestSupport
import SyncService
import Testing

@testable import StateStore

#if canImport(Glibc)
import Glibc
#endif

/// `rotate serve --state` against what a host cannot control: a commit the disk refuses, a
/// second process on the same database, a migration killed half-way, a database whose values
/// were damaged or edited by hand, an output path that is an input. Every case runs the binary.
@Suite(.serialized) struct StateSafetyTests {
    static let places = DatasetPaths.path("shops-500.csv")

    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("rotate-safety-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs `rotate` (through `bash -c` with `shell` before it when given), writes `input` to its
    /// stdin, and kills it after `timeout` seconds.
    static func run(
        _ arguments: [String], input: String = "", shell: String? = nil, timeout: Double = 60
    ) throws -> (code: Int32, out: String, err: String, timedOut: Bool) {
        let url = try #require(BinaryTests.rotateURL, "the rotate binary was not found beside the tests")
        let process = Process()
        if let shell {
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            let quoted = ([url.path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
            process.arguments = ["-c", "\(shell); exec \(quoted.joined(separator: " "))"]
        } else {
            process.executableURL = url
            process.arguments = arguments
        }
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        signal(SIGPIPE, SIG_IGN)
        try process.run()
        let group = DispatchGroup()
        nonisolated(unsafe) var out = Data(), err = Data()
        BinaryTests.feed(Array(input.utf8), to: stdin, in: group)
        DispatchQueue.global().async(group: group) { out = stdout.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { err = stderr.fileHandleForReading.readDataToEndOfFile() }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        let timedOut = process.isRunning
        if timedOut { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        group.wait()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self), timedOut)
    }

    /// The input lines a database holds as committed, from the start's log line.
    static func committed(_ state: String) throws -> Int {
        let probe = try run(["serve", "--stdio", "--places", places, "--state", state])
        #expect(probe.code == 0, "\(probe.err)")
        let match = try #require(probe.err.firstMatch(of: /([0-9]+) input lines committed/), "no commit count in: \(probe.err)")
        return try #require(Int(match.1))
    }

    /// First reports of `count` devices among the bundled shops: each is a new row to commit.
    static func firstReports(_ count: Int, from first: Int = 0) -> String {
        var rng = SplitMix64(seed: 41)
        var lines = ""
        for i in first..<(first + count) {
            let lat = 46.0511 + rng.nextDouble(in: -0.03..<0.03), lon = 14.5051 + rng.nextDouble(in: -0.04..<0.04)
            lines += #"{"device":"d\#(i)","lat":\#(lat),"lon":\#(lon),"t":\#(1_000 + i),"accuracy_m":10}"# + "\n"
        }
        return lines
    }

    /// Under `--durability always` a commit the disk refuses (here: the file size limit, so the
    /// write fails with EFBIG as on a full disk) answers nothing more: every answered line is
    /// committed, the process exits 1 with the operating system's reason, and the database still
    /// opens with what was committed.
    @Test func aFailedCommitUnderAlwaysLeavesNoAnswerUncommitted() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("state.db").path
        #expect(try Self.committed(state) == 0)
        // 400 KiB: the seeded database and the first few hundred devices fit, 3,000 do not.
        let result = try Self.run(
            ["serve", "--stdio", "--places", Self.places, "--state", state, "--durability", "always"], input: Self.firstReports(3_000),
            shell: "trap '' XFSZ; ulimit -f 400")
        #expect(result.code == 1, "\(result.err)")
        #expect(result.err.contains("rotate serve: error: \(state): disk I/O error"), "\(result.err)")
        let answered = result.out.split(separator: "\n")
        #expect(answered.count > 0 && answered.count < 3_000)
        let committed = try Self.committed(state)
        #expect(answered.count <= committed, "answered \(answered.count) lines, committed \(committed)")
        for (k, answer) in answered.enumerated() { #expect(answer.hasPrefix(#"{"line":\#(k + 1),"device":"d\#(k)","#)) }
    }

    /// Whether this process may mount a tmpfs (root, and mounts allowed where it runs).
    static let canMountTmpfs: Bool = {
        guard getuid() == 0, let directory = try? directory() else { return false }
        defer { try? FileManager.default.removeItem(at: directory) }
        guard mount("tmpfs", directory.path, "tmpfs", 0, "size=64k") == 0 else { return false }
        umount(directory.path)
        return true
    }()

    /// The same on a full disk: a 256 KiB tmpfs holds the database, and a commit fails with ENOSPC
    /// ("database or disk is full"). Runs where a tmpfs can be mounted (as root; CI runs as root);
    /// the file size limit above covers the same path everywhere.
    @Test(.enabled(if: canMountTmpfs, "needs root to mount a tmpfs"))
    func aFullDiskUnderAlwaysLeavesNoAnswerUncommitted() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(mount("tmpfs", directory.path, "tmpfs", 0, "size=256k") == 0)
        defer { umount(directory.path) }
        let state = directory.appendingPathComponent("state.db").path
        let result = try Self.run(
            ["serve", "--stdio", "--places", Self.places, "--state", state, "--durability", "always"], input: Self.firstReports(3_000))
        #expect(result.code == 1, "\(result.err)")
        #expect(result.err.contains("rotate serve: error: \(state): database or disk is full"), "\(result.err)")
        let answered = result.out.split(separator: "\n").count
        #expect(answered > 0 && answered < 3_000)
        // Read back off the full disk (a start there fails too: it cannot write its own files).
        let copy = try Self.directory()
        defer { try? FileManager.default.removeItem(at: copy) }
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: state + suffix) {
            try FileManager.default.copyItem(atPath: state + suffix, toPath: copy.appendingPathComponent("state.db" + suffix).path)
        }
        let committed = try Self.committed(copy.appendingPathComponent("state.db").path)
        #expect(answered <= committed, "answered \(answered) lines, committed \(committed)")
    }

    /// Starts `rotate serve` on `state` and returns once it has answered `count` reports (so it
    /// holds the database's locks); close the pipe's writing end to end it.
    static func serveHolding(_ state: String, count: Int = 5) throws -> (process: Process, stdin: Pipe) {
        let url = try #require(BinaryTests.rotateURL)
        let process = Process()
        process.executableURL = url
        process.arguments = ["serve", "--stdio", "--places", Self.places, "--state", state]
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        stdin.fileHandleForWriting.write(Data(Self.firstReports(count).utf8))
        var answered = Data()
        while answered.filter({ $0 == UInt8(ascii: "\n") }).count < count {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            answered += chunk
        }
        return (process, stdin)
    }

    /// A second process on a database another one serves refuses to start, naming the holder; the
    /// first goes on and ends as usual, and afterwards the database can be served again.
    @Test func aSecondProcessCannotServeTheSameDatabase() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("state.db").path
        let first = try Self.serveHolding(state)
        let second = try Self.run(["serve", "--stdio", "--places", Self.places, "--state", state], input: Self.firstReports(5, from: 5))
        #expect(second.code == 1)
        #expect(second.out.isEmpty)
        #expect(
            second.err.contains("\(state): in use by another rotate serve process (process \(first.process.processIdentifier))"),
            "\(second.err)")
        try first.stdin.fileHandleForWriting.close()
        first.process.waitUntilExit()
        #expect(first.process.terminationStatus == 0)
        #expect(try Self.committed(state) == 5)
    }

    /// The names a second process could reach a served database by: a symbolic link to it, a
    /// hard link, the database's name in a directory reached through a symbolic link.
    enum Alias: CaseIterable { case symbolicLink, hardLink, linkedDirectory }

    /// A second process that reaches the served database through another name is refused as one
    /// on the same name is: only the first commits, and the database opens afterwards (two
    /// writers would leave stored places that do not match the committed catalog).
    @Test(arguments: Alias.allCases) func aSecondProcessCannotServeTheDatabaseThroughAnotherName(_ alias: Alias) throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("state.db").path
        // The database exists before the aliases are made (a hard link needs its file).
        let seed = try Self.run(["serve", "--stdio", "--places", Self.places, "--state", state], input: Self.firstReports(1))
        #expect(seed.code == 0, "\(seed.err)")
        let other: String
        switch alias {
        case .symbolicLink:
            other = directory.appendingPathComponent("link.db").path
            #expect(symlink(state, other) == 0)
        case .hardLink:
            other = directory.appendingPathComponent("hard.db").path
            #expect(link(state, other) == 0)
        case .linkedDirectory:
            let linked = directory.appendingPathComponent("linked").path
            #expect(symlink(directory.path, linked) == 0)
            other = linked + "/state.db"
        }
        let first = try Self.serveHolding(state)
        let change = #"{"changes":[{"op":"add","id":"alias-added","lat":46.05,"lon":14.5,"radius_m":50}]}"# + "\n"
        let second = try Self.run(
            ["serve", "--stdio", "--places", Self.places, "--state", other], input: change + Self.firstReports(5, from: 5))
        #expect(second.code == 1, "\(second.err)")
        #expect(second.out.isEmpty)
        #expect(second.err.contains("in use by another rotate serve process"), "\(second.err)")
        try first.stdin.fileHandleForWriting.close()
        first.process.waitUntilExit()
        #expect(first.process.terminationStatus == 0)
        let again = try Self.run(["serve", "--stdio", "--places", Self.places, "--state", state], input: Self.firstReports(1, from: 10))
        #expect(again.code == 0, "\(again.err)")
        #expect(again.err.contains("catalog version 0 (500 places)"), "\(again.err)")
    }

    /// Where a lock file would go, what a hostile neighbour could plant instead of one.
    enum PlantedLock: CaseIterable { case linkToAFile, danglingLink, hardLinkToAFile, fifo }

    /// A lock file is never followed through a link, nor written when it has other names: the
    /// file a planted link names keeps its bytes, a dangling link's target is not created, and the
    /// start stops with exit 1 and the reason.
    @Test(arguments: PlantedLock.allCases) func aPlantedLockFileIsNeitherFollowedNorWritten(_ planted: PlantedLock) throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("state.db").path
        let victim = directory.appendingPathComponent("victim.txt").path
        let content = "root:x:0:0:root:/root:/bin/bash\n"
        try content.write(toFile: victim, atomically: false, encoding: .utf8)
        let missing = directory.appendingPathComponent("created-by-the-lock").path
        let expected: String
        switch planted {
        case .linkToAFile:
            #expect(symlink(victim, state + ".lock") == 0)
            expected = "is a symbolic link"
        case .danglingLink:
            #expect(symlink(missing, state + ".lock") == 0)
            expected = "is a symbolic link"
        case .hardLinkToAFile:
            #expect(link(victim, state + ".lock") == 0)
            expected = "has 2 names (hard links)"
        case .fifo:
            #expect(mkfifo(state + ".lock", 0o644) == 0)
            expected = "is not a regular file"
        }
        let result = try Self.run(
            ["serve", "--stdio", "--places", Self.places, "--state", state], input: Self.firstReports(1), timeout: 20)
        #expect(!result.timedOut)
        #expect(result.code == 1, "\(result.err)")
        #expect(result.err.contains("\(state): its lock file \(state).lock \(expected)"), "\(result.err)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == content)
        #expect(!FileManager.default.fileExists(atPath: missing))
        #expect(!FileManager.default.fileExists(atPath: state))
    }

    /// A migration of a JSON state file killed between its two renames (no `FILE`, the JSON file
    /// as `FILE.json`, the complete database as `FILE.migrating`) is finished by the next start:
    /// the devices and catalog come back, not a new empty database.
    @Test func aMigrationKilledBetweenItsRenamesIsFinished() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("state").path
        // A JSON state file as earlier versions wrote it: one change set and two devices.
        var legacy = SidecarState()
        legacy.changeLines = [#"{"changes":[{"op":"remove","id":"shop001"}]}"#]
        legacy.devices = ["a": MonitorState(), "b": MonitorState()]
        try legacy.write(path: state)
        let migration = try Self.run(["serve", "--stdio", "--places", Self.places, "--state", state])
        #expect(migration.code == 0, "\(migration.err)")
        #expect(migration.err.contains("migrated 2 devices"), "\(migration.err)")
        // The files as a kill between the renames leaves them.
        #expect(rename(state, state + ".migrating") == 0)
        let result = try Self.run(["serve", "--stdio", "--places", Self.places, "--state", state])
        #expect(result.code == 0, "\(result.err)")
        #expect(result.err.contains("finished a migration"), "\(result.err)")
        #expect(result.err.contains("2 devices restored") && result.err.contains("catalog version 1 (499 places)"), "\(result.err)")
        #expect(!FileManager.default.fileExists(atPath: state + ".migrating"))
        // Killed before the first rename: `FILE` is still the JSON file, and the part of a
        // database beside it is discarded; the migration runs again.
        try FileManager.default.removeItem(atPath: state)
        try legacy.write(path: state)
        try Data("SQLite format 3\0 cut short".utf8).write(to: URL(fileURLWithPath: state + ".migrating"))
        let again = try Self.run(["serve", "--stdio", "--places", Self.places, "--state", state])
        #expect(again.code == 0, "\(again.err)")
        #expect(again.err.contains("migrated 2 devices") && again.err.contains("catalog version 1 (499 places)"), "\(again.err)")
    }

    /// A `meta` value that is not an integer, is missing, or is out of range stops the start with
    /// the reason, instead of being read as 0 or trapping at the first change set or commit.
    @Test(arguments: [
        ("UPDATE meta SET value = 'abc' WHERE key = 'catalog_version'", "meta 'catalog_version' is 'abc' (text), not an integer"),
        ("DELETE FROM meta WHERE key = 'catalog_version'", "meta 'catalog_version' is missing"),
        ("UPDATE meta SET value = 9223372036854775807 WHERE key = 'catalog_version'", "meta 'catalog_version' is 9223372036854775807"),
        ("UPDATE meta SET value = 9223372036854775807 WHERE key = 'input_lines'", "meta 'input_lines' is 9223372036854775807"),
        ("UPDATE meta SET value = -1 WHERE key = 'input_lines'", "meta 'input_lines' is -1"),
        ("UPDATE meta SET value = 2.5 WHERE key = 'seed_digest'", "meta 'seed_digest' is 2.5 (real), not an integer"),
    ])
    func aDamagedMetaValueStopsTheStart(sql: String, reason: String) throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("state.db").path
        let seeded = try Self.run(
            ["serve", "--stdio", "--places", Self.places, "--state", state],
            input: Self.firstReports(3) + #"{"changes":[{"op":"remove","id":"shop002"}]}"# + "\n")
        #expect(seeded.code == 0)
        do {
            let connection = try SQLiteConnection(path: state, create: false)
            try connection.execute(sql)
        }
        let result = try Self.run(
            ["serve", "--stdio", "--places", Self.places, "--state", state],
            input: Self.firstReports(3, from: 3) + #"{"changes":[{"op":"remove","id":"shop003"}]}"# + "\n")
        #expect(result.code == 1, "\(result.err)")
        #expect(result.out.isEmpty)
        #expect(result.err.contains("\(state): corrupt: \(reason)"), "\(result.err)")
    }

    /// A damaged places row (a radius changed) in a database past its first change set stops the
    /// start: the stored places no longer match the digest committed with the catalog version.
    @Test func aDamagedPlacesRowStopsTheStart() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("state.db").path
        let seeded = try Self.run(
            ["serve", "--stdio", "--places", Self.places, "--state", state], input: #"{"changes":[{"op":"remove","id":"shop002"}]}"# + "\n")
        #expect(seeded.code == 0)
        #expect(try Self.run(["serve", "--stdio", "--places", Self.places, "--state", state]).code == 0)
        do {
            let connection = try SQLiteConnection(path: state, create: false)
            try connection.execute("UPDATE places SET radius_m = 200 WHERE id = 'shop003'")
        }
        let result = try Self.run(["serve", "--stdio", "--places", Self.places, "--state", state])
        #expect(result.code == 1)
        #expect(
            result.err.contains("\(state): corrupt: the stored places do not match the catalog version 1 that was committed"),
            "\(result.err)")
    }

    /// `--state` naming a FIFO (or a directory) fails at once instead of blocking on the open.
    @Test func aStatePathThatIsNotAFileFails() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        for (path, kind) in [(fifo, "a FIFO"), (directory.path, "a directory")] {
            let result = try Self.run(["serve", "--stdio", "--places", Self.places, "--state", path], timeout: 20)
            #expect(!result.timedOut, "blocked on \(kind)")
            #expect(result.code == 1)
            #expect(result.err.contains("\(path): is \(kind), not a regular file"), "\(result.err)")
        }
        // A symbolic link to no file is refused; its target is not created.
        let dangling = directory.appendingPathComponent("dangling.db").path
        let target = directory.appendingPathComponent("nowhere.db").path
        #expect(symlink(target, dangling) == 0)
        let result = try Self.run(["serve", "--stdio", "--places", Self.places, "--state", dangling], timeout: 20)
        #expect(result.code == 1)
        #expect(result.err.contains("\(dangling): is a symbolic link to a file that does not exist"), "\(result.err)")
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    /// An output option naming an input (or another output) is a usage error, and the file is
    /// left as it was: `--rejects` over the places file or the state database, `--out` over the
    /// places file, two outputs on one file, through another spelling of the path.
    @Test func anOutputThatIsAnInputIsRefused() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let places = directory.appendingPathComponent("places.csv").path
        try FileManager.default.copyItem(atPath: Self.places, toPath: places)
        let state = directory.appendingPathComponent("state.db").path
        #expect(try Self.committed(state) == 0)
        let placesBytes = try Data(contentsOf: URL(fileURLWithPath: places))
        let stateBytes = try Data(contentsOf: URL(fileURLWithPath: state))
        let walk = DatasetPaths.path("walk-6km.csv")
        let cases: [([String], String)] = [
            (["serve", "--stdio", "--places", places, "--rejects", places], "--rejects \(places) is the --places input"),
            (["serve", "--stdio", "--places", places, "--state", state, "--rejects", state], "--rejects \(state) is the --state input"),
            (["plan", "--places", places, "--walk", walk, "--out", directory.path + "/./places.csv"], "is the --places input"),
            (
                ["plan", "--places", places, "--walk", walk, "--out", directory.path + "/p.txt", "--map", directory.path + "/p.txt"],
                "is also the --out output"
            ),
        ]
        for (arguments, reason) in cases {
            let result = try Self.run(arguments)
            #expect(result.code == 2, "\(arguments)")
            #expect(result.err.contains(reason), "\(result.err)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: places)) == placesBytes)
            #expect(try Data(contentsOf: URL(fileURLWithPath: state)) == stateBytes)
        }
    }
}
