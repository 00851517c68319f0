import Geodesy
import RotateFormats

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading a GPX track: time and throughput of `WalkFile.read` on a GPX file.
public enum GPXReadBenchmark {
    /// Times `repetitions` reads of the file (after a warm-up read).
    public static func run(path: String, repetitions: Int = 5) throws -> FileReadReport {
        try FileReadReport.measure(path: path, repetitions: repetitions) { path in try WalkFile.read(path: path).rowsRead }
    }

    /// Writes a GPX 1.1 track of `count` seeded points, one a second, each with `ele` and `time`
    /// and on its own line, in the layout GPS loggers and gpxpy write (a walk of 1.4 m steps).
    public static func writeSyntheticFile(path: String, count: Int, seed: UInt64 = 1) throws {
        guard let file = fopen(path, "w") else { throw FileBenchmarkError(reason: "cannot write \(path)") }
        defer { fclose(file) }
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
