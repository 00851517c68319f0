#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading an input file: the median time of whole reads of one file, and its throughput.
public struct FileReadReport: Sendable {
    public var path: String
    public var bytes: Int
    /// Rows or points read (accepted + rejected), from the last read.
    public var rows: Int
    public var milliseconds: Measurement
    public var megabytesPerSecond: Double { Double(bytes) / 1e6 / (milliseconds.median / 1e3) }

    /// Times `repetitions` calls of `read` on `path` (after a warm-up call); `read` returns the rows
    /// it read.
    static func measure(path: String, repetitions: Int, read: (String) throws -> Int) throws -> FileReadReport {
        var rows = 0
        var failure: (any Error)?
        let time = Stopwatch.measure(repetitions: repetitions, operations: 1) {
            do {
                rows = try read(path)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        var info = stat()
        let bytes = stat(path, &info) == 0 ? Int(info.st_size) : 0
        return FileReadReport(path: path, bytes: bytes, rows: rows, milliseconds: Measurement(samples: time.samples.map { $0 / 1e6 }))
    }
}

struct FileBenchmarkError: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}
