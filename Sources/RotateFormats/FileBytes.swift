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

    /// The most a file read whole may hold, bytes: 1 GiB. GeoJSON places and standard input are
    /// read whole (CSV files and walks are read a chunk at a time); a larger place set reads as
    /// a CSV file.
    public static let maximumWholeBytes = 1 << 30

    /// The whole file as bytes (`-`: standard input), read into one buffer of the file's size.
    ///
    /// - Throws: `FileReadError` when the file cannot be read, or holds more than `limit` bytes
    ///   (a regular file's size is known before anything is read; standard input stops there).
    public static func contents(of path: String, limit: Int = maximumWholeBytes) throws(FileReadError) -> [UInt8] {
        let tooLarge = FileReadError(
            path: path,
            reason:
                "is larger than \(limit) bytes (\(limit >> 20) MiB), the most read whole (GeoJSON places, standard input); a larger place set reads as a CSV file, a row at a time"
        )
        var bytes: [UInt8] = []
        if path != "-" {
            var info = stat()
            if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG {
                guard info.st_size <= limit else { throw tooLarge }
                // One allocation of the file's size (a byte more for a file that grows).
                bytes.reserveCapacity(Int(info.st_size) + 1)
            }
        }
        do {
            try forEachChunk(of: path) { chunk in
                guard bytes.count + chunk.count <= limit else { throw tooLarge }
                bytes.append(contentsOf: chunk)
            }
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
