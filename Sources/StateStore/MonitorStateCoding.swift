import EventEngine
import FencePlanner
import Geodesy

/// The binary form of a device's `MonitorState` in the state database: every field of the state,
/// little-endian, with a leading codec version, written without an encoder. A monitored place
/// registered as the catalog defines it is written as its id alone (about 300 bytes with 17
/// places, a fifth of the JSON form) and read back with the catalog's definition; a registration
/// the catalog does not define so is written whole.
///
/// Ids alone are safe because a catalog change that edits or removes a monitored place reaches
/// every device monitoring it (`DeviceStateIndex`), and the sidecar writes those devices in the
/// same transaction as the change: a stored id-only place always has the stored catalog's
/// definition.
///
/// Reading validates what the JSON decoders validate (identifiers present and unique, radii
/// finite and positive, times finite, counters non-negative, an entry time exactly while
/// inside, no registrations before the first selection); `FenceMonitor` checks the rest
/// against the catalog when the device resumes.
public enum MonitorStateCoding {
    /// The version of this form written in the first byte: 5 ends the fields with the battery
    /// budget's account (`MonitorState.energy`: a flag, its balance, time, goals given up and
    /// joules spent); 4 writes a stay's fixes weighted by
    /// the inverse of their variance (`Stay.sumWeight`); 3 adds the stay and the cue of store
    /// visits (`MonitorState.stay`, `.cue`) after the flags, its sums unweighted with the sum of
    /// the variances (read as every fix weighted alike); 2 ends with a checksum; every earlier
    /// form (4, 3, 2, and 1 without a checksum) is still read, 4 and earlier without an account,
    /// 2 and 1 without a stay or a cue.
    public static let version: UInt8 = 5

    /// The form of a state packed against `catalog` (no place looked up), ending with a CRC-32C
    /// of the device's id and every byte before it: one flipped bit anywhere in the state (a
    /// refresh radius doubled, a place's id changed) or a state stored under another device's id
    /// is found when it is read, and refused for that device alone.
    ///
    /// - Parameters:
    ///   - packed: the device's state, packed against `catalog`.
    ///   - catalog: the catalog the state is packed against.
    ///   - device: the id the state is stored under (covered by the checksum; read back with the
    ///     same id).
    /// - Precondition: `packed` is packed against `catalog`.
    public static func encode(_ packed: PackedMonitorState, in catalog: PlaceCatalog, device: String = "") -> [UInt8] {
        let state = packed.others
        var writer = ByteWriter()
        writer.bytes.reserveCapacity(96 + packed.rotator.positions.count * 16 + state.tracks.count * 80)
        writer.byte(version)
        let rotator = packed.rotator
        writer.count(rotator.positions.count)
        for position in rotator.positions {
            if position >= 0 {
                writer.byte(0)
                writer.string(catalog.places[Int(position)].id)
            } else {
                let fence = rotator.foreign[Int(-position) - 1]
                writer.byte(1)
                writer.string(fence.id)
                writer.coordinate(fence.center)
                writer.double(fence.radiusMeters)
                writer.byte(transitionsCode(fence.transitions))
            }
        }
        if let refresh = rotator.refresh {
            writer.byte(1)
            writer.string(refresh.id)
            writer.coordinate(refresh.center)
            writer.double(refresh.radiusMeters)
        } else {
            writer.byte(0)
        }
        switch rotator.guarantee {
        case nil: writer.byte(0)
        case .exact?: writer.byte(1)
        case .degraded(let fallback)?:
            writer.byte(2)
            writer.double(fallback)
        case .saturated(let overlapping)?:
            writer.byte(3)
            writer.integer(overlapping)
        }
        writer.integer(rotator.reselections)
        writer.optionalInteger(rotator.catalogVersion)
        writer.count(state.tracks.count)
        for track in state.tracks {
            writer.string(track.id)
            writer.coordinate(track.center)
            writer.double(track.radiusMeters)
            writer.byte((track.inside ? 1 : 0) | (track.dwellReported ? 2 : 0))
            writer.optionalDouble(track.enteredSeconds)
            writer.integer(track.streak)
            writer.double(track.streakMeters)
            writer.optionalDouble(track.lastProbability)
            writer.optionalDouble(track.lastProbabilitySeconds)
        }
        if let fix = state.lastTrustedFix {
            writer.byte(1)
            writer.coordinate(fix)
        } else {
            writer.byte(0)
        }
        writer.optionalDouble(state.lastTrustedFixSeconds)
        writer.optionalDouble(state.lastInputSeconds)
        writer.optionalDouble(state.lastFixSeconds)
        writer.byte((state.lastTrustedFixContinuous ? 1 : 0) | (state.refreshExitPending ? 2 : 0) | (state.resetPending ? 4 : 0))
        writeVisits(state, to: &writer)
        writer.byte(state.energy == nil ? 0 : 1)
        if let account = state.energy {
            writer.double(account.balanceJoules)
            writer.double(account.seconds)
            writer.byte(UInt8(account.givenUp))
            writer.double(account.spentJoules)
        }
        let check = writer.bytes.withUnsafeBytes { CRC32C.checksum($0, seed: CRC32C.checksum(of: device)) }
        withUnsafeBytes(of: check.littleEndian) { writer.bytes.append(contentsOf: $0) }
        return writer.bytes
    }

    /// The form of a state, its monitored places looked up in `catalog`.
    public static func encode(_ state: MonitorState, in catalog: PlaceCatalog, device: String = "") -> [UInt8] {
        encode(PackedMonitorState(state, in: catalog), in: catalog, device: device)
    }

    /// Reads a state written by `encode` for `device`, with the definitions of its id-only
    /// places from `catalog` (the catalog stored with it; its `planning` registrations).
    /// - Throws: `StateCodingError` for a checksum that does not match (a damaged state, or one
    ///   stored under another id), a truncated, overlong or invalid form, or an id-only place
    ///   that is not in `catalog`.
    public static func decode(
        _ stored: UnsafeRawBufferPointer, in catalog: PlaceCatalog, device: String = ""
    ) throws(StateCodingError) -> MonitorState {
        var reader = ByteReader(bytes: try checkedFields(of: stored, device: device))
        _ = try reader.byte()
        var state = MonitorState()
        state.rotator = try readRotator(&reader, in: catalog.planning)
        let trackCount = try reader.count()
        for _ in 0..<trackCount {
            state.tracks.append(try readTrack(&reader))
        }
        guard Set(state.tracks.map(\.id)).count == state.tracks.count else { throw StateCodingError("duplicate track ids") }
        if try reader.flag() { state.lastTrustedFix = try reader.coordinate() }
        state.lastTrustedFixSeconds = try reader.optionalDouble()
        state.lastInputSeconds = try reader.optionalDouble()
        state.lastFixSeconds = try reader.optionalDouble()
        let flags = try reader.byte()
        state.lastTrustedFixContinuous = flags & 1 != 0
        state.refreshExitPending = flags & 2 != 0
        state.resetPending = flags & 4 != 0
        if let codec = stored.first, codec >= 3 { try readVisits(&reader, into: &state, weighted: codec >= 4) }
        if let codec = stored.first, codec >= 5, try reader.flag() {
            let balance = try reader.double()
            let seconds = try reader.double()
            let givenUp = Int(try reader.byte())
            let spent = try reader.double()
            guard balance.isFinite, seconds.isFinite, spent.isFinite, givenUp <= VisitGoal.allCases.count else {
                throw StateCodingError("an energy account needs finite figures and at most \(VisitGoal.allCases.count) goals given up")
            }
            state.energy = EnergyAccount(balanceJoules: balance, seconds: seconds, givenUp: givenUp, spentJoules: spent)
        }
        guard reader.isAtEnd else { throw StateCodingError("\(reader.remaining) bytes after the state") }
        return state
    }

    /// The stored form without its checksum (version byte first), once the checksum matches
    /// `device`'s; a version 1 form, which has none, as it is.
    private static func checkedFields(
        of stored: UnsafeRawBufferPointer, device: String
    ) throws(StateCodingError) -> UnsafeRawBufferPointer {
        guard let codec = stored.first else { throw StateCodingError("truncated state (0 bytes)") }
        switch codec {
        case 1:
            return stored  // written before the checksum
        case 2, 3, 4, 5:
            guard stored.count >= 5 else { throw StateCodingError("truncated state (\(stored.count) bytes)") }
            let fields = UnsafeRawBufferPointer(rebasing: stored[0..<(stored.count - 4)])
            var check: UInt32 = 0
            withUnsafeMutableBytes(of: &check) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: stored[(stored.count - 4)...])) }
            guard UInt32(littleEndian: check) == CRC32C.checksum(fields, seed: CRC32C.checksum(of: device)) else {
                throw StateCodingError("checksum mismatch: the stored state is damaged")
            }
            return fields
        default:
            throw StateCodingError("unknown state codec version \(codec) (this build reads 1 to \(version))")
        }
    }

    /// The stay and the cue (codec 3 and 4): a tag (1: a stay follows, 2: a cue follows), then
    /// the stay's sums (codec 4: weighted, then the sum of the weights; codec 3: unweighted, then
    /// the sum of the variances), its outside count and times, its approach speed, (codec 4) its
    /// precise reference fix, time and accuracy, its confirmation's start and whether a check
    /// said the user stands, and its arrival's visit, then the cue's time, moves and place.
    private static func writeVisits(_ state: MonitorState, to writer: inout ByteWriter) {
        writer.byte((state.stay == nil ? 0 : 1) | (state.cue == nil ? 0 : 2))
        if let stay = state.stay {
            writer.coordinate(stay.anchor)
            writer.double(stay.startSeconds)
            writer.double(stay.lastSeconds)
            writer.double(stay.sumX)
            writer.double(stay.sumY)
            writer.double(stay.sumZ)
            writer.integer(stay.count)
            writer.double(stay.sumWeight)
            writer.integer(stay.outside)
            writer.optionalDouble(stay.firstOutsideSeconds)
            writer.optionalDouble(stay.approachSpeed)
            writer.byte(stay.precise == nil ? 0 : 1)
            if let precise = stay.precise { writer.coordinate(precise) }
            writer.optionalDouble(stay.preciseSeconds)
            writer.optionalDouble(stay.preciseAccuracyMeters)
            writer.optionalDouble(stay.confirmSince)
            writer.byte(stay.stillChecked ? 1 : 0)
            if let visit = stay.arrival {
                writer.byte(1)
                writer.optionalString(visit.placeID)
                writer.count(visit.candidates.count)
                for candidate in visit.candidates {
                    writer.string(candidate.placeID)
                    writer.double(candidate.probability)
                }
                writer.double(visit.noneProbability)
                writer.coordinate(visit.coordinate)
                writer.double(visit.horizontalAccuracyMeters)
                writer.double(visit.arrivalSeconds)
                writer.optionalDouble(visit.departureSeconds)
                writer.integer(visit.fixes)
            } else {
                writer.byte(0)
            }
        }
        if let cue = state.cue {
            writer.double(cue.seconds)
            writer.integer(cue.moves)
            writer.optionalString(cue.placeID)
        }
    }

    /// Reads what `writeVisits` wrote, checked (finite times and sums, counts in range,
    /// probabilities in 0...1).
    private static func readVisits(
        _ reader: inout ByteReader, into state: inout MonitorState, weighted: Bool
    ) throws(StateCodingError) {
        let tag = try reader.byte()
        guard tag < 4 else { throw StateCodingError("unknown visits tag \(tag)") }
        func finite(_ value: Double, _ what: String) throws(StateCodingError) -> Double {
            guard value.isFinite else { throw StateCodingError("a stay's \(what) must be finite") }
            return value
        }
        func probability(_ value: Double) throws(StateCodingError) -> Double {
            guard value >= 0, value <= 1 else { throw StateCodingError("a visit's probability must be within 0...1") }
            return value
        }
        if tag & 1 != 0 {
            var stay = Stay(at: try reader.coordinate(), timeSeconds: 0, variance: 1)
            stay.startSeconds = try finite(try reader.double(), "start")
            stay.lastSeconds = try finite(try reader.double(), "last time")
            stay.sumX = try finite(try reader.double(), "sum")
            stay.sumY = try finite(try reader.double(), "sum")
            stay.sumZ = try finite(try reader.double(), "sum")
            stay.count = try reader.integer()
            let sum = try finite(try reader.double(), weighted ? "weight" : "variance")
            stay.outside = try reader.integer()
            stay.firstOutsideSeconds = try reader.optionalDouble()
            stay.approachSpeed = try reader.optionalDouble()
            if weighted {
                if try reader.flag() { stay.precise = try reader.coordinate() }
                stay.preciseSeconds = try reader.optionalDouble()
                stay.preciseAccuracyMeters = try reader.optionalDouble()
                stay.confirmSince = try reader.optionalDouble()
                stay.stillChecked = try reader.flag()
            }
            guard stay.count >= 1, stay.outside >= 0, sum >= 0, !weighted || sum > 0 else {
                throw StateCodingError("a stay needs at least one fix, a positive weight and non-negative counts")
            }
            if weighted {
                stay.sumWeight = sum
            } else {
                // Codec 3: every fix weighted alike, by 1 / the fixes' mean variance.
                stay.weighAlike(sumVariance: sum)
            }
            if try reader.flag() {
                let placeID = try reader.optionalString()
                let candidateCount = try reader.count()
                var candidates: [StoreVisit.Candidate] = []
                for _ in 0..<candidateCount {
                    let id = try reader.string()
                    candidates.append(StoreVisit.Candidate(placeID: id, probability: try probability(try reader.double())))
                }
                let none = try probability(try reader.double())
                let coordinate = try reader.coordinate()
                let accuracy = try finite(try reader.double(), "accuracy")
                let arrival = try finite(try reader.double(), "arrival")
                let departure = try reader.optionalDouble()
                let fixes = try reader.integer()
                guard fixes >= 1, accuracy >= 0 else { throw StateCodingError("a visit needs a fix and an accuracy >= 0") }
                stay.arrival = StoreVisit(
                    placeID: placeID, candidates: candidates, noneProbability: none, coordinate: coordinate,
                    horizontalAccuracyMeters: accuracy, arrivalSeconds: arrival, departureSeconds: departure, fixes: fixes)
            }
            state.stay = stay
        }
        if tag & 2 != 0 {
            var cue = VisitCue(seconds: try finite(try reader.double(), "cue time"))
            cue.moves = try reader.integer()
            cue.placeID = try reader.optionalString()
            guard cue.moves >= 0 else { throw StateCodingError("a cue's moves must be >= 0") }
            state.cue = cue
        }
    }

    /// The rotator's state: monitored places, refresh region, guarantee and counters, checked
    /// (unique ids, no registrations before the first selection).
    private static func readRotator(_ reader: inout ByteReader, in catalog: PlaceCatalog) throws(StateCodingError) -> RotatorState {
        var rotator = RotatorState()
        let monitoredCount = try reader.count()
        rotator.monitored.reserveCapacity(monitoredCount)
        for _ in 0..<monitoredCount {
            rotator.monitored.append(try readMonitoredFence(&reader, in: catalog))
        }
        if try reader.flag() {
            let id = try reader.string()
            let center = try reader.coordinate()
            let radius = try reader.double()
            guard !id.isEmpty, radius.isFinite, radius >= 0 else {
                throw StateCodingError("a refresh region needs an id and a finite radius >= 0")
            }
            rotator.refresh = RefreshRegion(id: id, center: center, radiusMeters: radius)
        }
        rotator.guarantee = try readGuarantee(&reader)
        rotator.reselections = try reader.integer()
        rotator.catalogVersion = try reader.optionalInteger()
        guard rotator.reselections >= 0, rotator.reselections < Int.max else { throw StateCodingError("reselection count out of range") }
        guard rotator.reselections > 0 || (rotator.monitored.isEmpty && rotator.refresh == nil) else {
            throw StateCodingError("registrations without a selection")
        }
        guard Set(rotator.monitored.map(\.id)).count == rotator.monitored.count else { throw StateCodingError("duplicate monitored ids") }
        return rotator
    }

    /// One monitored place: an id-only one with the catalog's definition, a whole one as written.
    private static func readMonitoredFence(_ reader: inout ByteReader, in catalog: PlaceCatalog) throws(StateCodingError) -> Fence {
        let whole = try reader.flag()
        let id = try reader.string()
        guard whole else {
            guard let position = catalog.position(of: id) else {
                throw StateCodingError("monitored place '\(id)' is not in the catalog")
            }
            return catalog.fences[position]
        }
        let center = try reader.coordinate()
        let radius = try reader.double()
        let transitions = try transitions(try reader.byte())
        guard !id.isEmpty, radius.isFinite, radius > 0 else { throw StateCodingError("a fence needs an id and a finite radius > 0") }
        return Fence(id: id, center: center, radiusMeters: radius, transitions: transitions)
    }

    /// The selection's guarantee: a tag (0 none, 1 exact, 2 degraded, 3 saturated), then the
    /// degraded fallback distance or the saturated overlap count.
    private static func readGuarantee(_ reader: inout ByteReader) throws(StateCodingError) -> Guarantee? {
        switch try reader.byte() {
        case 0: return nil
        case 1: return .exact
        case 2:
            let fallback = try reader.double()
            guard fallback.isFinite, fallback >= 0 else { throw StateCodingError("fallback distance must be finite and >= 0") }
            return .degraded(fallbackDistanceMeters: fallback)
        case 3:
            let overlapping = try reader.integer()
            guard overlapping >= 0 else { throw StateCodingError("negative overlapping count") }
            return .saturated(overlapping: overlapping)
        case let tag: throw StateCodingError("unknown guarantee tag \(tag)")
        }
    }

    /// One place track, checked (an id, a radius > 0, a non-negative streak, an entry time
    /// exactly while inside).
    private static func readTrack(_ reader: inout ByteReader) throws(StateCodingError) -> PlaceTrack {
        var track = PlaceTrack(id: try reader.string(), center: try reader.coordinate(), radiusMeters: try reader.double())
        let flags = try reader.byte()
        track.inside = flags & 1 != 0
        track.dwellReported = flags & 2 != 0
        track.enteredSeconds = try reader.optionalDouble()
        track.streak = try reader.integer()
        track.streakMeters = try reader.double()
        track.lastProbability = try reader.optionalDouble()
        track.lastProbabilitySeconds = try reader.optionalDouble()
        guard !track.id.isEmpty, track.radiusMeters.isFinite, track.radiusMeters > 0, track.streak >= 0, track.streakMeters.isFinite,
            track.streakMeters >= 0
        else { throw StateCodingError("a track needs an id, a radius > 0 and a non-negative streak") }
        guard track.inside == (track.enteredSeconds != nil) else { throw StateCodingError("a track's entry time exactly while inside") }
        return track
    }

    private static func transitionsCode(_ transitions: Transitions) -> UInt8 {
        switch transitions {
        case .entry: 0
        case .exit: 1
        case .both: 2
        }
    }

    private static func transitions(_ code: UInt8) throws(StateCodingError) -> Transitions {
        switch code {
        case 0: .entry
        case 1: .exit
        case 2: .both
        default: throw StateCodingError("unknown transitions code \(code)")
        }
    }
}

/// A stored device state that does not read.
public struct StateCodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Why, in one line (a checksum mismatch, a truncated form, an invalid field, …).
    public var reason: String
    /// The reason.
    public var description: String { reason }

    init(_ reason: String) {
        self.reason = reason
    }
}

/// Appends little-endian fields.
private struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    /// An unsigned LEB128 count.
    mutating func count(_ value: Int) {
        var rest = UInt64(value)
        while rest >= 0x80 {
            bytes.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func integer(_ value: Int) {
        withUnsafeBytes(of: Int64(value).littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func double(_ value: Double) {
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func coordinate(_ value: Coordinate) {
        double(value.latitude)
        double(value.longitude)
    }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            count(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func optionalDouble(_ value: Double?) {
        if let value {
            byte(1)
            double(value)
        } else {
            byte(0)
        }
    }

    mutating func optionalInteger(_ value: Int?) {
        if let value {
            byte(1)
            integer(value)
        } else {
            byte(0)
        }
    }

    mutating func optionalString(_ value: String?) {
        if let value {
            byte(1)
            string(value)
        } else {
            byte(0)
        }
    }
}

/// Reads what `ByteWriter` wrote, refusing to run past the end.
private struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    var isAtEnd: Bool { offset == bytes.count }
    var remaining: Int { bytes.count - offset }

    private mutating func take(_ n: Int) throws(StateCodingError) -> Int {
        guard n >= 0, n <= bytes.count - offset else { throw StateCodingError("truncated state (\(bytes.count) bytes)") }
        defer { offset += n }
        return offset
    }

    mutating func byte() throws(StateCodingError) -> UInt8 {
        bytes[try take(1)]
    }

    mutating func flag() throws(StateCodingError) -> Bool {
        switch try byte() {
        case 0: return false
        case 1: return true
        case let other: throw StateCodingError("a presence byte is \(other)")
        }
    }

    mutating func count() throws(StateCodingError) -> Int {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let next = try byte()
            guard shift < 63 else { throw StateCodingError("a count is too long") }
            value |= UInt64(next & 0x7F) << shift
            if next < 0x80 { break }
            shift += 7
        }
        // A count never exceeds the bytes left: each counted item takes at least one.
        guard value <= UInt64(bytes.count) else { throw StateCodingError("a count of \(value) exceeds the state's size") }
        return Int(value)
    }

    /// The next 8 bytes, as the little-endian word they hold.
    private mutating func word() throws(StateCodingError) -> UInt64 {
        let at = try take(8)
        var raw: UInt64 = 0
        withUnsafeMutableBytes(of: &raw) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[at..<at + 8])) }
        return UInt64(littleEndian: raw)
    }

    mutating func integer() throws(StateCodingError) -> Int {
        Int(Int64(bitPattern: try word()))
    }

    mutating func double() throws(StateCodingError) -> Double {
        Double(bitPattern: try word())
    }

    mutating func coordinate() throws(StateCodingError) -> Coordinate {
        let latitude = try double(), longitude = try double()
        do {
            return try Coordinate(latitude: latitude, longitude: longitude)
        } catch {
            throw StateCodingError("\(error)")
        }
    }

    mutating func string() throws(StateCodingError) -> String {
        let n = try count()
        let at = try take(n)
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[at..<at + n]), as: UTF8.self)
    }

    mutating func optionalDouble() throws(StateCodingError) -> Double? {
        guard try flag() else { return nil }
        let value = try double()
        guard value.isFinite else { throw StateCodingError("a time or probability is not finite") }
        return value
    }

    mutating func optionalString() throws(StateCodingError) -> String? {
        guard try flag() else { return nil }
        return try string()
    }

    mutating func optionalInteger() throws(StateCodingError) -> Int? {
        try flag() ? try integer() : nil
    }
}

/// CRC-32C (Castagnoli, polynomial 0x1EDC6F41 reflected as 0x82F63B78), as iSCSI, ext4 and
/// SQLite's own WAL-less checks use it: it detects every error of up to 32 consecutive bits, so
/// any flipped bit or byte of a stored state. Table-driven, a byte at a time (a 300-byte state
/// costs about a microsecond).
enum CRC32C {
    static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        return crc
    }

    /// The checksum of `bytes`, continuing from `seed` (the checksum of what came before).
    static func checksum(_ bytes: UnsafeRawBufferPointer, seed: UInt32 = 0) -> UInt32 {
        var crc = ~seed
        table.withUnsafeBufferPointer { table in
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        return ~crc
    }

    /// The checksum of a text's UTF-8 bytes.
    static func checksum(of text: String) -> UInt32 {
        var text = text
        return text.withUTF8 { checksum(UnsafeRawBufferPointer($0)) }
    }
}
