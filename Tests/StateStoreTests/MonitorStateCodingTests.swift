import EventEngine
import FencePlanner
import Foundation
import Geodesy
import RotateTestSupport
import Testing

@testable import StateStore

/// The binary form of device states in the state database.
@Suite struct MonitorStateCodingTests {
    /// States an engine really reaches (monitored fences, refresh regions, guarantees, tracks
    /// inside and outside, times), with their optional fields varied.
    static let catalog = PlannerFixtures.catalog(count: 80, sideMeters: 1_500, seed: 31)

    static func states(seed: UInt64, count: Int) throws -> [MonitorState] {
        var rng = SplitMixForSeeds(state: seed)
        var states: [MonitorState] = [MonitorState()]
        var settings = FenceMonitor.Settings()
        // A budget small enough that the account runs short and gives goals up.
        settings.visits = VisitSettings(budgetMilliwatts: 3)
        var monitor = try FenceMonitor(catalog: catalog, configuration: RotationConfiguration(limit: 8, headroom: 1), settings: settings)
        var position = catalog.places[0].coordinate
        for step in 0..<count {
            // Mostly small steps (stays that become visits), sometimes a long one (a departure).
            let stride = rng.next() % 10 == 0 ? Double(rng.next() % 400) : Double(rng.next() % 25)
            position = position.destination(bearingDegrees: Double(rng.next() % 360), distanceMeters: stride)
            // Accuracies of 15-54 m: now and then precise (at most 20 m), rarely enough that
            // precise fixes seldom say a user walks and stays become visits.
            let fix = Fix(position, accuracyMeters: Double(rng.next() % 40 + 15), timestampSeconds: Double(step) * 5)
            _ = monitor.handle(.fix(fix, source: step % 3 == 0 ? .wakeFix : .network))
            // Now and then a region entry (a cue naming a place) and, later, its exit, after
            // which stays may become visits at none of them.
            if rng.next() % 11 == 0, let place = monitor.state.cue?.placeID {
                _ = monitor.handle(.region(RegionReport(regionID: place, kind: .exit, timeSeconds: Double(step) * 5 + 2)))
            }
            if rng.next() % 7 == 0 {
                let place = catalog.places[Int(rng.next() % UInt64(catalog.places.count))].id
                _ = monitor.handle(.region(RegionReport(regionID: place, kind: .entry, timeSeconds: Double(step) * 5 + 1)))
            }
            var state = monitor.state
            if rng.next() % 4 == 0 { state.rotator.guarantee = .degraded(fallbackDistanceMeters: Double(rng.next() % 500)) }
            if rng.next() % 5 == 0 { state.rotator.guarantee = .saturated(overlapping: Int(rng.next() % 30)) }
            if rng.next() % 3 == 0 { state.rotator.catalogVersion = nil }
            if rng.next() % 4 == 0 { state.resetPending.toggle() }
            // A registration the catalog no longer defines so is kept whole.
            if rng.next() % 4 == 0, !state.rotator.monitored.isEmpty { state.rotator.monitored[0].radiusMeters += 1 }
            states.append(state)
        }
        return states
    }

    @Test func everyStateReadsBackAsWritten() throws {
        let seed = TestSeed.value(salt: 0x5354_4F52)
        let states = try Self.states(seed: seed, count: 300)
        #expect(states.contains { !$0.tracks.isEmpty } && states.contains { $0.tracks.contains(where: \.inside) })
        #expect(states.contains { $0.stay?.arrival != nil } && states.contains { $0.stay != nil && $0.stay?.arrival == nil })
        #expect(
            states.contains { $0.cue?.placeID != nil } && states.contains { $0.stay?.arrival?.placeID == nil && $0.stay?.arrival != nil })
        #expect(states.contains { ($0.energy?.givenUp ?? 0) > 0 } && states.contains { $0.energy?.givenUp == 0 })
        for state in states {
            let bytes = MonitorStateCoding.encode(state, in: Self.catalog)
            let read = try bytes.withUnsafeBytes { try MonitorStateCoding.decode($0, in: Self.catalog) }
            #expect(read == state, "\(TestSeed.replay(seed))")
        }
    }

    /// Every change of one byte of a stored state, anywhere in it, and a state read under another
    /// device's id are refused (the CRC-32C at its end); the forms earlier builds wrote (codec 4,
    /// without the energy account; codec 2, without the stay and the cue either; codec 1, without
    /// a checksum either) still read, as the state without what they lack.
    @Test func everyDamagedByteIsFoundAndTheFormWithoutChecksumStillReads() throws {
        let seed = TestSeed.value(salt: 0x4352_4343)
        var rng = SplitMixForSeeds(state: seed)
        for state in try Self.states(seed: seed, count: 30) {
            let bytes = MonitorStateCoding.encode(state, in: Self.catalog, device: "d7")
            #expect(bytes.first == MonitorStateCoding.version)
            for position in bytes.indices {
                var damaged = bytes
                damaged[position] ^= UInt8(truncatingIfNeeded: rng.next() % 255 + 1)
                #expect(throws: StateCodingError.self, "byte \(position), \(TestSeed.replay(seed))") {
                    try damaged.withUnsafeBytes { try MonitorStateCoding.decode($0, in: Self.catalog, device: "d7") }
                }
            }
            let other = #expect(throws: StateCodingError.self) {
                try bytes.withUnsafeBytes { try MonitorStateCoding.decode($0, in: Self.catalog, device: "d8") }
            }
            #expect(other?.reason == "checksum mismatch: the stored state is damaged")
            // Codec 4: the fields without the account's flag (the last).
            var unaccounted = state
            unaccounted.energy = nil
            let withoutAccount = [4] + MonitorStateCoding.encode(unaccounted, in: Self.catalog, device: "d7").dropLast(5).dropFirst()
            let codec4 =
                withoutAccount
                + withUnsafeBytes(
                    of: withoutAccount.withUnsafeBytes { CRC32C.checksum($0, seed: CRC32C.checksum(of: "d7")) }.littleEndian
                ) { Array($0) }
            #expect(try codec4.withUnsafeBytes { try MonitorStateCoding.decode($0, in: Self.catalog, device: "d7") } == unaccounted)
            // The earlier forms: the same fields up to the flags (those of the state without its
            // stay, cue and account, whose tag and flag are then 0 and last), with and without a
            // checksum.
            var plain = unaccounted
            plain.stay = nil
            plain.cue = nil
            let fields = MonitorStateCoding.encode(plain, in: Self.catalog, device: "d7").dropLast(5)
            #expect(fields.last == 0)
            let unchecked = [1] + fields.dropFirst().dropLast()
            #expect(try unchecked.withUnsafeBytes { try MonitorStateCoding.decode($0, in: Self.catalog, device: "any") } == plain)
            let version2 = [2] + fields.dropFirst().dropLast()
            let checksum = version2.withUnsafeBytes { CRC32C.checksum($0, seed: CRC32C.checksum(of: "d7")) }
            let checked = version2 + withUnsafeBytes(of: checksum.littleEndian) { Array($0) }
            #expect(try checked.withUnsafeBytes { try MonitorStateCoding.decode($0, in: Self.catalog, device: "d7") } == plain)
        }
    }

    /// A stay in codec 3's form (its sums unweighted, then the sum of the variances; no precise
    /// reference) reads as every fix weighted alike, by 1 / the fixes' mean variance, with no
    /// precise reference.
    @Test func aCodec3StayReadsWithEveryFixWeightedAlike() throws {
        let coordinate = Self.catalog.places[0].coordinate
        var state = MonitorState()
        state.stay = Stay(at: coordinate, timeSeconds: 3, variance: 1)
        state.stay?.count = 3
        // Codec 4's fields (codec 5's without the account's flag) end with the stay: sums (3 × 8 bytes), count (8), weight (8), outside (8),
        // first outside, approach speed, precise flag, precise time, precise accuracy, confirm
        // start (1 byte each, all absent), the still check (1, false), the arrival flag (1).
        let fields = Array(MonitorStateCoding.encode(state, in: Self.catalog, device: "d3").dropLast(5))
        let n = fields.count
        #expect(Array(fields[(n - 8)...]) == [0, 0, 0, 0, 0, 0, 0, 0])
        let vector = UnitVector(coordinate)
        func bytes(_ value: Double) -> [UInt8] { withUnsafeBytes(of: value.bitPattern.littleEndian) { Array($0) } }
        var old: [UInt8] = [3] + fields[1..<(n - 56)]
        for component in [vector.x, vector.y, vector.z] { old += bytes(3 * component) }
        old += fields[(n - 32)..<(n - 24)]  // the count
        old += bytes(3 * 400)  // three fixes of 400 m² each
        old += fields[(n - 16)..<(n - 6)]  // outside, first outside, approach speed
        let codec3 = old + [fields[n - 1]]
        let checksum = codec3.withUnsafeBytes { CRC32C.checksum($0, seed: CRC32C.checksum(of: "d3")) }
        let stored = codec3 + withUnsafeBytes(of: checksum.littleEndian) { Array($0) }
        let read = try stored.withUnsafeBytes { try MonitorStateCoding.decode($0, in: Self.catalog, device: "d3") }
        let stay = try #require(read.stay)
        let weight = 1 / (3 * 400.0 / 3)
        #expect(stay.count == 3 && stay.sumWeight == weight * 3)
        #expect(stay.sumX == 3 * vector.x * weight && stay.sumY == 3 * vector.y * weight && stay.sumZ == 3 * vector.z * weight)
        #expect(stay.precise == nil && stay.confirmSince == nil)
        #expect(abs(stay.fixVariance - 400) < 1e-9)
        #expect(stay.mean.distance(to: coordinate) < 1e-6)
    }

    /// A cut or damaged form is refused or read as some valid state; it never crashes.
    @Test func truncatedAndDamagedFormsAreRefusedWithoutCrashing() throws {
        let seed = TestSeed.value(salt: 0x4441_4D47)
        var rng = SplitMixForSeeds(state: seed)
        for state in try Self.states(seed: seed, count: 40) {
            let bytes = MonitorStateCoding.encode(state, in: Self.catalog)
            for cut in 0..<bytes.count {
                #expect(throws: StateCodingError.self) {
                    try Array(bytes[0..<cut]).withUnsafeBytes { try MonitorStateCoding.decode($0, in: Self.catalog) }
                }
            }
            #expect(throws: StateCodingError.self) {
                try (bytes + [0]).withUnsafeBytes { try MonitorStateCoding.decode($0, in: Self.catalog) }
            }
            for _ in 0..<50 {
                var damaged = bytes
                damaged[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next())
                _ = try? damaged.withUnsafeBytes { try MonitorStateCoding.decode($0, in: Self.catalog) }
            }
        }
    }

    @Test func invalidFieldsAreRefused() throws {
        var state = try #require(try Self.states(seed: 5, count: 10).last)
        #expect(!state.rotator.monitored.isEmpty)
        var duplicate = state
        duplicate.rotator.monitored.append(state.rotator.monitored[0])
        var negative = state
        negative.rotator.reselections = -1
        var noSelection = state
        noSelection.rotator.reselections = 0
        var badRadius = state
        badRadius.rotator.monitored[0].radiusMeters = .nan
        var emptyStay = state
        emptyStay.stay = Stay(at: Self.catalog.places[0].coordinate, timeSeconds: 3, variance: 4)
        emptyStay.stay?.count = 0
        var badProbability = state
        badProbability.stay = Stay(at: Self.catalog.places[0].coordinate, timeSeconds: 3, variance: 4)
        badProbability.stay?.arrival = StoreVisit(
            placeID: "p", candidates: [], noneProbability: 1.5, coordinate: Self.catalog.places[0].coordinate, horizontalAccuracyMeters: 9,
            arrivalSeconds: 3, fixes: 1)
        var negativeMoves = state
        negativeMoves.cue = VisitCue(seconds: 3)
        negativeMoves.cue?.moves = -1
        var badAccount = state
        badAccount.energy = EnergyAccount(balanceJoules: .nan, seconds: 3)
        var tooManyGivenUp = state
        tooManyGivenUp.energy = EnergyAccount(balanceJoules: 1, seconds: 3, givenUp: VisitGoal.allCases.count + 1)
        state.lastInputSeconds = .infinity
        for invalid in [
            duplicate, negative, noSelection, badRadius, emptyStay, badProbability, negativeMoves, badAccount, tooManyGivenUp, state,
        ] {
            #expect(throws: StateCodingError.self) {
                try MonitorStateCoding.encode(invalid, in: Self.catalog).withUnsafeBytes {
                    try MonitorStateCoding.decode($0, in: Self.catalog)
                }
            }
        }
    }
}
