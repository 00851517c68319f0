import Geodesy
import RotateFormats

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A sidecar load: devices that start near random places and walk, each report one step on in a
/// direction kept per device, round after round (every device reports once per round, in a
/// seeded order), with bad lines mixed in.
struct ReportWorkload: Equatable, Sendable {
    var devices: Int
    var reportsPerDevice: Int
    var stepMeters: Double
    var badLineFraction: Double
    var seed: UInt64

    /// The time of the first report, seconds since 1970; each round lasts `roundSeconds`.
    static let startSeconds = 1_700_000_000.0
    static let roundSeconds = 600.0

    /// The bad lines mixed in, in turn: each gets `{"line":N,"error":...}` from `rotate serve`
    /// and changes no device.
    static let badLines = [
        #"{"device":"bad","lat":45.0,"lon":"#,  // truncated JSON
        #"{"device":"bad","device":"bad2","lat":45.0,"lon":15.0,"t":1}"#,  // repeated key
        #"{"device":"bad","lat":91.5,"lon":15.0,"t":1}"#,  // latitude out of range
        #"{"device":"bad","lat":45.0,"lon":15.0,"t":1,"speed":3}"#,  // unknown field
        #"{"lat":45.0,"lon":15.0,"t":1}"#,  // no device
        "not json at all",
    ]
}

extension GenerateCommand {
    /// Writes the workload's reports as NDJSON to `path` (`-`: stdout), streaming: memory holds
    /// one position and bearing per device.
    static func writeReports(
        _ workload: ReportWorkload, near places: [Coordinate], to path: String, console: Console
    ) throws(CommandError) {
        var rng = SplitMix64(seed: workload.seed ^ 0x5245_504F_5254)
        let width = String(workload.devices).count
        var positions: [Coordinate] = []
        var bearings: [Double] = []
        positions.reserveCapacity(workload.devices)
        bearings.reserveCapacity(workload.devices)
        for _ in 0..<workload.devices {
            positions.append(SyntheticCoordinates.gaussian(around: places[rng.nextInt(below: places.count)], sigmaMeters: 500, using: &rng))
            bearings.append(rng.nextDouble(in: 0..<360))
        }
        let file: UnsafeMutablePointer<FILE>?
        if path == "-" {
            file = fdopen(dup(1), "w")
        } else {
            file = fopen(path, "w")
        }
        guard let file else { throw .failure("\(path): cannot write: \(String(cString: strerror(errno)))") }
        var order = Array(0..<workload.devices)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 17)
        var lines = 0, bad = 0
        func flush() throws(CommandError) {
            let written = buffer.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            guard written == buffer.count else {
                fclose(file)
                throw .failure("\(path): write failed: \(String(cString: strerror(errno)))")
            }
            buffer.removeAll(keepingCapacity: true)
        }
        for round in 0..<workload.reportsPerDevice {
            for i in stride(from: order.count - 1, to: 0, by: -1) { order.swapAt(i, rng.nextInt(below: i + 1)) }
            for (slot, device) in order.enumerated() {
                if round > 0 {
                    positions[device] = positions[device].destination(bearingDegrees: bearings[device], distanceMeters: workload.stepMeters)
                }
                let seconds =
                    ReportWorkload.startSeconds + Double(round) * ReportWorkload.roundSeconds
                    + Double(slot) * ReportWorkload.roundSeconds / Double(workload.devices)
                let number = String(device + 1)
                let id = "d" + String(repeating: "0", count: width - number.count) + number
                let c = positions[device]
                let line =
                    #"{"device":""# + id + #"","lat":"# + CSVWriter.decimal(c.latitude) + #","lon":"# + CSVWriter.decimal(c.longitude)
                    + #","t":"# + CSVWriter.decimal(seconds, decimals: 3) + #","accuracy_m":10}"#
                buffer.append(contentsOf: line.utf8)
                buffer.append(10)
                lines += 1
                if workload.badLineFraction > 0 && rng.nextDouble(in: 0..<1) < workload.badLineFraction {
                    buffer.append(contentsOf: ReportWorkload.badLines[bad % ReportWorkload.badLines.count].utf8)
                    buffer.append(10)
                    bad += 1
                }
                if buffer.count >= 1 << 16 { try flush() }
            }
        }
        try flush()
        guard fclose(file) == 0 else { throw .failure("\(path): write failed: \(String(cString: strerror(errno)))") }
        console.err("rotate generate: \(lines) reports of \(workload.devices) devices and \(bad) bad lines in \(path)")
    }
}
