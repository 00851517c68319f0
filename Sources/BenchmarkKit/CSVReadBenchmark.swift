import FencePlanner
import Geodesy
import RotateFormats

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading a places CSV: time and throughput of `PlacesCSV.read` on a file.
public enum CSVReadBenchmark {
    public struct Report: Sendable {
        public var path: String
        public var bytes: Int
        public var rows: Int
        public var milliseconds: Measurement
        public var megabytesPerSecond: Double { Double(bytes) / 1e6 / (milliseconds.median / 1e3) }
    }

    /// Times `repetitions` reads of the file (after a warm-up read).
    public static func run(path: String, repetitions: Int = 5) throws -> Report {
        var rows = 0
        var failure: (any Error)?
        let time = Stopwatch.measure(repetitions: repetitions, operations: 1) {
            do {
                rows = try PlacesCSV.read(path: path).rowsRead
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        var info = stat()
        let bytes = stat(path, &info) == 0 ? Int(info.st_size) : 0
        return Report(path: path, bytes: bytes, rows: rows, milliseconds: Measurement(samples: time.samples.map { $0 / 1e6 }))
    }

    /// Writes `count` seeded places (id, name with a comma, lat, lon, radius) to `path`.
    public static func writeSyntheticFile(path: String, count: Int, seed: UInt64 = 1) throws {
        guard let file = fopen(path, "w") else { throw CSVBenchmarkError(reason: "cannot write \(path)") }
        defer { fclose(file) }
        var rng = SplitMix64(seed: seed)
        fputs("id,name,lat,lon,radius_m,country,population\n", file)
        for i in 0..<count {
            let c = SyntheticCoordinates.uniformOnSphere(using: &rng)
            let line = CSVWriter.row([
                "\(i)", "Place \(i), somewhere", CSVWriter.decimal(c.latitude, decimals: 5),
                CSVWriter.decimal(c.longitude, decimals: 5), "200", "XX", "\(rng.nextInt(below: 100_000))",
            ])
            fputs(line + "\n", file)
        }
    }
}

struct CSVBenchmarkError: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}
