// libFuzzer entry points for rotate's parsers, built by Tests/Fuzz/run.sh (not part of the
// SwiftPM package: it needs -sanitize=fuzzer). The target is chosen at compile time with
// -D FUZZ_PLACES, FUZZ_WALK_CSV, FUZZ_GPX or FUZZ_SIDECAR. Every input must be answered with
// accepted rows and rejected rows (never a crash or a hang), and the counts must add up.
import RotateFormats
import SyncService

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    #if FUZZ_PLACES
    for strict in [false, true] {
        if let result = try? PlacesCSV.read(bytes: bytes, options: .init(defaultRadiusMeters: 100, strict: strict)) {
            precondition(result.places.count + result.rejected.count == result.rowsRead, "accepted + rejected != rows read")
            precondition(!strict || result.rejected.isEmpty, "strict mode kept a rejected row")
        }
    }
    #elseif FUZZ_WALK_CSV
    for strict in [false, true] {
        if let walk = try? WalkCSV.read(bytes: bytes, strict: strict) {
            precondition(walk.fixes.count == walk.lines.count, "a fix without its line")
        }
    }
    #elseif FUZZ_GPX
    for strict in [false, true] {
        if let walk = try? WalkFile.read(gpx: bytes, strict: strict) {
            precondition(walk.fixes.count == walk.lines.count, "a fix without its line")
        }
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
