import Foundation
import SyncService

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive lock on a state database for the life of the process that serves it: the lock
/// file `FILE.lock` beside the database, held with `flock(2)`.
///
/// Two sidecars committing to one database would each answer from their own memory and overwrite
/// each other's rows (a device's acknowledged plan replaced by another process's, change sets
/// applied twice under one version). SQLite's own locks guard a transaction, not a process's
/// life, and its exclusive locking mode would also shut out the sidecar's reading connection; a
/// separate lock file also covers the moments a JSON state file is migrated, when the database
/// file itself is renamed. The lock is released by the kernel when the process ends, however it
/// ends (SIGKILL included), so no stale lock is ever left; the file itself stays (removing a lock
/// file races with a process about to take it).
final class StateLock: @unchecked Sendable {
    /// The lock file's path.
    let path: String
    /// The lock file's descriptor, −1 once released.
    private var descriptor: Int32

    /// Takes the lock for the database at `databasePath`, creating the lock file when missing.
    ///
    /// - Throws: `StateFileError` naming the database when another process holds the lock (with
    ///   its process id, written into the lock file by its holder) or the lock file cannot be
    ///   opened.
    init(databasePath: String) throws(StateFileError) {
        path = databasePath + ".lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw StateFileError(path: databasePath, reason: "cannot open its lock file \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let reason = errno
            var holder = ""
            var bytes = [UInt8](repeating: 0, count: 32)
            let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
            if got > 0, let pid = Int(String(decoding: bytes[0..<got], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) {
                holder = " (process \(pid))"
            }
            close(fd)
            if reason == EWOULDBLOCK {
                throw StateFileError(
                    path: databasePath,
                    reason:
                        "in use by another rotate serve process\(holder): one process serves a state database at a time (\(path) is locked)"
                )
            }
            throw StateFileError(path: databasePath, reason: "cannot lock \(path): \(String(cString: strerror(reason)))")
        }
        descriptor = fd
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }

    /// Releases the lock now (closing the lock file), rather than when the last reference goes:
    /// a store closed and opened again at once, in the same process, must find it free even
    /// while a finished commit's closure still holds the old store. Once only.
    func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    deinit {
        release()
    }
}
