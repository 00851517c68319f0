import FencePlanner
import Geodesy
import RotateFormats

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading input files: time and throughput of the places CSV and GPX readers on a file, and the
/// seeded files they are measured on.
public enum FileReadBenchmark {
    /// Times `repetitions` reads of a places CSV with `PlacesCSV.read` (after a warm-up read).
    public static func readPlaces(path: String, repetitions: Int = 5) throws -> FileReadReport {
        try FileReadReport.measure(path: path, repetitions: repetitions) { path in try PlacesCSV.read(path: path).rowsRead }
    }

    /// Times `repetitions` reads of a GPX file with `WalkFile.read` (after a warm-up read).
    public static func readGPX(path: String, repetitions: Int = 5) throws -> FileReadReport {
        try FileReadReport.measure(path: path, repetitions: repetitions) { path in try WalkFile.read(path: path).rowsRead }
    }

    /// Writes `count` seeded places (id, name with a comma, lat, lon, radius) to `path`.
    public static func writePlacesFile(path: String, count: Int, seed: UInt64 = 1) throws {
        try writing(path) { file in
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

    /// Writes a GPX 1.1 track of `count` seeded points, one a second, each with `ele` and `time`
    /// and on its own line, in the layout GPS loggers and gpxpy write (a walk of 1.4 m steps).
    public static func writeGPXFile(path: String, count: Int, seed: UInt64 = 1) throws {
        try writing(path) { file in
            var rng = SplitMix64(seed: seed)
            fputs(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <gpx version="1.1" creator="rotate" xmlns="http://www.topografix.com/GPX/1/1" \
                xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
                xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">
                  <trk><name>synthetic</name><trkseg>

                """, file)
            var position = SyntheticCoordinates.uniformOnSphere(using: &rng)
            var bearing = rng.nextDouble(in: 0..<360)
            let start = 1_286_169_199  // 2010-10-04T05:13:19Z
            for i in 0..<count {
                bearing += rng.nextDouble(in: -10..<10)
                position = position.destination(bearingDegrees: bearing, distanceMeters: 1.4)
                let elevation = 300 + rng.nextDouble(in: 0..<50)
                let line =
                    "    <trkpt lat=\"\(CSVWriter.decimal(position.latitude, decimals: 7))\" lon=\"\(CSVWriter.decimal(position.longitude, decimals: 7))\">"
                    + "<ele>\(CSVWriter.decimal(elevation, decimals: 1))</ele><time>\(ISO8601.text(utcSeconds: start + i))</time></trkpt>\n"
                fputs(line, file)
            }
            fputs("  </trkseg></trk>\n</gpx>\n", file)
        }
    }

    static func writing(_ path: String, _ body: (UnsafeMutablePointer<FILE>) -> Void) throws {
        guard let file = fopen(path, "w") else { throw FileBenchmarkError(reason: "cannot write \(path)") }
        defer { fclose(file) }
        body(file)
    }
}

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
