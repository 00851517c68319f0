import Foundation
import SyncService

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive lock on a state database for the life of the process that serves it, taken twice:
/// on the lock file `FILE.lock` beside the database, and on the database file itself, both with
/// `flock(2)`.
///
/// Two sidecars committing to one database would each answer from their own memory and overwrite
/// each other's rows (a device's acknowledged plan replaced by another process's, change sets
/// applied twice under one version). SQLite's own locks guard a transaction, not a process's
/// life, and its exclusive locking mode would also shut out the sidecar's reading connection.
///
/// - The lock file covers the moments before the database is opened, when a JSON state file is
///   migrated and the database file itself is renamed. It is named after the database's real
///   path (symbolic links in the path resolved), so that two names of one file through a
///   symbolic link find the same lock file. It is opened without following a symbolic link, and
///   refused unless it is a regular file with one name (a link planted where the lock file goes
///   would otherwise have its target truncated, or created).
/// - The lock on the database file is keyed on the file itself (its device and inode), so that a
///   second process reaching the same database through a hard link or another mount is refused
///   too. Its descriptor is closed only after the store is closed: closing any descriptor of a
///   file drops the process's POSIX locks on it, SQLite's included.
///
/// The kernel releases both when the process ends, however it ends (SIGKILL included), so no
/// stale lock is ever left; the lock file itself stays (removing a lock file races with a process
/// about to take it).
final class StateLock: @unchecked Sendable {
    /// The lock file's path.
    let path: String
    /// The database's path as given (for messages).
    private let databasePath: String
    /// The lock file's descriptor, −1 once released.
    private var descriptor: Int32
    /// The database file's descriptor while it is locked, else −1.
    private var databaseDescriptor: Int32 = -1

    /// Takes the lock file's lock for the database at `databasePath`, creating the lock file when
    /// missing.
    ///
    /// - Parameters:
    ///   - databasePath: the database's path, as it is opened.
    ///   - canonicalPath: the same path with every symbolic link in it resolved, which names the
    ///     lock file: every name of the file through symbolic links finds one lock file.
    /// - Throws: `StateFileError` naming the database when another process holds the lock (with
    ///   its process id, written into the lock file by its holder), the lock file is a symbolic
    ///   link, not a regular file, or has other names, or it cannot be opened.
    init(databasePath: String, canonicalPath: String) throws(StateFileError) {
        self.databasePath = databasePath
        path = canonicalPath + ".lock"
        // O_NOFOLLOW: a symbolic link at the lock file's name fails with ELOOP instead of being
        // followed to its target (which O_CREAT would create, and the pid written would
        // overwrite). O_NONBLOCK: a FIFO planted there does not block the open.
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0o644)
        guard fd >= 0 else {
            let reason = errno
            if reason == ELOOP {
                throw StateFileError(
                    path: databasePath,
                    reason:
                        "its lock file \(path) is a symbolic link; it is not followed (the lock file must be a regular file: remove the link)"
                )
            }
            throw StateFileError(path: databasePath, reason: "cannot open its lock file \(path): \(String(cString: strerror(reason)))")
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_nlink == 1 else {
            let regular = info.st_mode & S_IFMT == S_IFREG
            close(fd)
            throw StateFileError(
                path: databasePath,
                reason: regular
                    ? "its lock file \(path) has \(info.st_nlink) names (hard links); it is not written (the lock file must be a file of its own: remove it)"
                    : "its lock file \(path) is not a regular file; it is not written (remove it)")
        }
        let lockPath = path
        try Self.lock(fd, named: lockPath, of: databasePath) {
            var holder = ""
            var bytes = [UInt8](repeating: 0, count: 32)
            let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
            if got > 0, let pid = Int(String(decoding: bytes[0..<got], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) {
                holder = " (process \(pid))"
            }
            return "in use by another rotate serve process\(holder): one process serves a state database at a time (\(lockPath) is locked)"
        }
        descriptor = fd
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }

    /// Locks the database file itself (created empty when missing, which the database reads as
    /// a new database), keyed on its device and inode: call after any migration has renamed it
    /// into place and before it is opened.
    ///
    /// - Throws: `StateFileError` when another process holds the file under another name (a
    ///   symbolic or hard link, another mount), or it cannot be opened or is not a regular file.
    func lockDatabaseFile() throws(StateFileError) {
        guard databaseDescriptor < 0 else { return }
        let fd = open(databasePath, O_RDONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0o644)
        guard fd >= 0 else {
            throw StateFileError(path: databasePath, reason: "cannot open: \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw StateFileError(path: databasePath, reason: "is not a regular file: a state database is a file")
        }
        try Self.lock(fd, named: databasePath, of: databasePath) {
            "in use by another rotate serve process through another name (a symbolic or hard link, or another mount): one process serves a state database at a time"
        }
        databaseDescriptor = fd
    }

    /// Takes `flock(2)`'s exclusive lock on `fd`, the file at `file`, without waiting; when it
    /// cannot, closes `fd` and throws: `held()` (read before `fd` is closed) when another holds
    /// the lock, else the system's reason.
    private static func lock(_ fd: Int32, named file: String, of databasePath: String, held: () -> String) throws(StateFileError) {
        guard flock(fd, LOCK_EX | LOCK_NB) != 0 else { return }
        let reason = errno
        let message = reason == EWOULDBLOCK ? held() : "cannot lock \(file): \(String(cString: strerror(reason)))"
        close(fd)
        throw StateFileError(path: databasePath, reason: message)
    }

    /// Releases both locks now (closing their descriptors), rather than when the last reference
    /// goes: a store closed and opened again at once, in the same process, must find them free
    /// even while a finished commit's closure still holds the old store. Once only.
    func release() {
        if databaseDescriptor >= 0 {
            close(databaseDescriptor)
            databaseDescriptor = -1
        }
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    deinit {
        release()
    }
}
