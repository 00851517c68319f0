#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file (or standard input, for the path `-`) in chunks, for the streaming readers.
public enum FileBytes {
    static let chunkSize = 1 << 20

    /// Calls `body` with successive chunks of the file. Throws `FileReadError` when the file
    /// cannot be read, and whatever `body` throws.
    static func forEachChunk(of path: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        let descriptor = path == "-" ? 0 : open(path, O_RDONLY)
        guard descriptor >= 0 else { throw FileReadError(path: path, reason: String(cString: strerror(errno))) }
        defer { if path != "-" { close(descriptor) } }
        var isDirectory = stat()
        if fstat(descriptor, &isDirectory) == 0, (isDirectory.st_mode & S_IFMT) == S_IFDIR {
            throw FileReadError(path: path, reason: "is a directory")
        }
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: chunkSize)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer.baseAddress, chunkSize)
            if count < 0 {
                if errno == EINTR { continue }
                throw FileReadError(path: path, reason: String(cString: strerror(errno)))
            }
            if count == 0 { return }
            try body(UnsafeBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    /// The first bytes of a file (at most one chunk, 1 MiB): enough to tell its format. Not for
    /// standard input, which it would consume.
    public static func head(of path: String) throws(FileReadError) -> [UInt8] {
        struct Enough: Error {}
        var bytes: [UInt8] = []
        do {
            try forEachChunk(of: path) { chunk in
                bytes.append(contentsOf: chunk)
                throw Enough()
            }
        } catch let error as FileReadError {
            throw error
        } catch {}
        return bytes
    }

    /// The whole file as bytes (`-`: standard input).
    public static func contents(of path: String) throws(FileReadError) -> [UInt8] {
        var bytes: [UInt8] = []
        do {
            try forEachChunk(of: path) { bytes.append(contentsOf: $0) }
        } catch let error as FileReadError {
            throw error
        } catch {
            throw FileReadError(path: path, reason: "\(error)")
        }
        return bytes
    }
}

/// A file that cannot be opened or read.
public struct FileReadError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file's path as given (`-` for standard input).
    public var path: String
    /// Why, in one line (the system's error text).
    public var reason: String
    /// `path: reason`, as diagnostics print it.
    public var description: String { "\(path): \(reason)" }
}
