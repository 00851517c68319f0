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
    /// Times `repetitions` reads of the file (after a warm-up read).
    public static func run(path: String, repetitions: Int = 5) throws -> FileReadReport {
        try FileReadReport.measure(path: path, repetitions: repetitions) { path in try PlacesCSV.read(path: path).rowsRead }
    }

    /// Writes `count` seeded places (id, name with a comma, lat, lon, radius) to `path`.
    public static func writeSyntheticFile(path: String, count: Int, seed: UInt64 = 1) throws {
        guard let file = fopen(path, "w") else { throw FileBenchmarkError(reason: "cannot write \(path)") }
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
