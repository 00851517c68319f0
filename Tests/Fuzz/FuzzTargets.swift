// libFuzzer entry points for rotate's parsers, built by Tests/Fuzz/run.sh (not part of the
// SwiftPM package: it needs -sanitize=fuzzer). The target is chosen at compile time with
// -D FUZZ_PLACES, FUZZ_WALK_CSV, FUZZ_GPX, FUZZ_SIDECAR or FUZZ_GEOJSON. Every input must be answered with
// accepted rows and rejected rows or an error (never a crash or a hang). The CSV targets count
// the data rows on their own (Tests/RotateTestSupport/CSVRecordCount.swift, compiled in by
// run.sh): accepted + rejected must equal that count, and so must the rejected rows of a file
// with no valid row.
import Foundation
import RotateFormats
import SyncService

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    #if FUZZ_PLACES
    let rows = CSVRecordCount.dataRows(in: bytes)
    for strict in [false, true] {
        do {
            let result = try PlacesCSV.read(bytes: bytes, options: .init(defaultRadiusMeters: 100, strict: strict))
            precondition(result.places.count + result.rejected.count == rows, "accepted + rejected != \(rows) data rows")
            precondition(!strict || result.rejected.isEmpty, "strict mode kept a rejected row")
            // Ids written by the CSV writer (quoted where a reader would change them, control
            // characters included) read back as they were.
            let written = result.places.map { [$0.id, "x"] }
            let text = written.map(CSVWriter.row).joined(separator: "\n") + "\n"
            let readBack = CSVFile.records(of: Array(text.utf8), chunkSize: 1 << 16).map(\.fields)
            precondition(readBack == written, "an id written does not read back")
        } catch {
            if !strict, case .noValidRows(_, let rejected) = error.reason {
                precondition(rejected.count == rows, "no valid rows, \(rejected.count) rejected of \(rows) data rows")
            }
        }
    }
    #elseif FUZZ_WALK_CSV
    let rows = CSVRecordCount.dataRows(in: bytes)
    for strict in [false, true] {
        do {
            let walk = try WalkCSV.read(bytes: bytes, strict: strict)
            precondition(walk.fixes.count == walk.lines.count, "a fix without its line")
            // The walk's clock starts at its first fix; its origin is a time as read, finite.
            precondition(walk.fixes.first?.timestampSeconds == 0 && walk.originSeconds.isFinite, "the walk's clock does not start at 0")
            precondition(walk.fixes.count + walk.rejected.count == rows, "accepted + rejected != \(rows) data rows")
            precondition(!strict || walk.rejected.isEmpty, "strict mode kept a rejected row")
        } catch {
            if !strict, case .noValidPoints(let rejected) = error.reason {
                precondition(rejected.count == rows, "no valid points, \(rejected.count) rejected of \(rows) data rows")
            }
        }
    }
    #elseif FUZZ_GPX
    for strict in [false, true] {
        if let walk = try? WalkFile.read(gpx: bytes, strict: strict) {
            precondition(walk.fixes.count == walk.lines.count, "a fix without its line")
        }
    }
    #elseif FUZZ_GEOJSON
    // Every feature is read or rejected, once, in order; strict mode keeps none rejected. A text
    // refused from its first bytes is refused when read whole too, and a text that reads is JSON
    // to Foundation's reader as well (the reader is never looser than the reference).
    let refusedAtStart = GeoJSONPlaces.failure(atStart: bytes) != nil
    for strict in [false, true] {
        guard let result = try? GeoJSONPlaces.read(bytes: bytes, options: .init(defaultRadiusMeters: 100, strict: strict)) else { continue }
        precondition(!refusedAtStart, "a text refused from its first bytes was read")
        // An exponent may put a number past the double range, which Foundation refuses.
        let exponent = zip(bytes, bytes.dropFirst()).contains { (48...57).contains($0.0) && ($0.1 | 0x20) == UInt8(ascii: "e") }
        precondition(exponent || (try? JSONSerialization.jsonObject(with: Data(bytes))) != nil, "read a text that is not JSON")
        let indices = (result.features.map(\.index) + result.rejected.map(\.index)).sorted()
        precondition(indices == Array(0..<indices.count), "features and rejections do not cover the collection once each")
        precondition(!strict || result.rejected.isEmpty, "strict mode kept a rejected feature")
    }
    #elseif FUZZ_SIDECAR
    let text = String(decoding: bytes, as: UTF8.self)
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        switch SidecarRequest.parse(String(line)) {
        case .success, .failure: break
        }
    }
    #endif
    return 0
}
