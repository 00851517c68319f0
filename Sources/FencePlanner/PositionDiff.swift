/// The monitored places to stop and to start between two decisions made from one catalog, by
/// catalog position (`RegistrationDiff` without the fences; the refresh region is replaced at every
/// reselection). Reuse one value to make no allocation per reselection.
package struct PositionDiff: Hashable, Sendable {
    /// Positions to stop, in the previous decision's order.
    package private(set) var stop: [Int] = []
    /// Positions to start, in the new decision's order.
    package private(set) var start: [Int] = []

    package init() {}

    /// Makes this the diff from `previous` to `next` (each a decision's `positions`).
    package mutating func update(from previous: [Int], to next: [Int]) {
        stop.removeAll(keepingCapacity: true)
        start.removeAll(keepingCapacity: true)
        // Along a walk most reselections keep the same places, mostly in the same order: skip the
        // common prefix and the common suffix (their places are in both), then compare only the
        // middles. A decision lists each position once, so no place of one middle is in the
        // other's prefix or suffix.
        var common = 0
        while common < previous.count && common < next.count && previous[common] == next[common] { common += 1 }
        if common == previous.count && common == next.count { return }
        var previousEnd = previous.count, nextEnd = next.count
        while previousEnd > common && nextEnd > common && previous[previousEnd - 1] == next[nextEnd - 1] {
            previousEnd -= 1
            nextEnd -= 1
        }
        if previousEnd - common <= Self.scannedEntries && nextEnd - common <= Self.scannedEntries {
            let scanned = previous.withUnsafeBufferPointer { previous in
                next.withUnsafeBufferPointer { next in
                    Self.scanMiddles(
                        UnsafeBufferPointer(rebasing: previous[common..<previousEnd]),
                        UnsafeBufferPointer(rebasing: next[common..<nextEnd]), stop: &stop, start: &start)
                }
            }
            if scanned { return }
        }
        let previousMiddle = previous[common..<previousEnd], nextMiddle = next[common..<nextEnd]
        guard previousMiddle.count <= Self.tableSlots / 2 && nextMiddle.count <= Self.tableSlots / 2 else {
            for position in previousMiddle where !nextMiddle.contains(position) { stop.append(position) }
            for position in nextMiddle where !previousMiddle.contains(position) { start.append(position) }
            return
        }
        // Membership through a small hash table per side: a lookup almost always ends at its
        // first slot, where a linear search ends at a place no branch predictor can guess.
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * Self.tableSlots) { tables in
            let inPrevious = UnsafeMutableBufferPointer(rebasing: tables[0..<Self.tableSlots])
            let inNext = UnsafeMutableBufferPointer(rebasing: tables[Self.tableSlots...])
            tables.initialize(repeating: -1)
            for position in previousMiddle { Self.insert(position, into: inPrevious) }
            for position in nextMiddle { Self.insert(position, into: inNext) }
            for position in previousMiddle where !Self.holds(inNext, position) { stop.append(position) }
            for position in nextMiddle where !Self.holds(inPrevious, position) { start.append(position) }
        }
    }

    /// Middles up to this long (an iOS app's 20 regions) are compared by scanning, four
    /// positions per comparison (in dense catalogs most reselections reorder much of the list, so
    /// middles are long): five vectors of four 32-bit lanes a side.
    private static let scannedVectors = 5
    private static let scannedEntries = 4 * scannedVectors

    /// The diff of two middles of at most `scannedEntries` positions each, by comparing every
    /// position of one with all of the other at once (20 positions as 32-bit lanes in five
    /// vectors), with no branch on the outcome. False (nothing written) when a position does not
    /// fit 31 bits.
    private static func scanMiddles(
        _ previous: UnsafeBufferPointer<Int>, _ next: UnsafeBufferPointer<Int>,
        stop: inout [Int], start: inout [Int]
    ) -> Bool {
        var bits = 0
        for position in previous { bits |= position }
        for position in next { bits |= position }
        guard bits >= 0 && bits <= Int(Int32.max) else { return false }
        withUnsafeTemporaryAllocation(of: SIMD4<Int32>.self, capacity: 2 * scannedVectors) { lanes in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: scannedEntries) { missing in
                lanes.initialize(repeating: SIMD4(repeating: -1))
                let raw = UnsafeMutableRawPointer(lanes.baseAddress!).assumingMemoryBound(to: Int32.self)
                for (i, position) in previous.enumerated() { raw[i] = Int32(truncatingIfNeeded: position) }
                for (i, position) in next.enumerated() { raw[scannedEntries + i] = Int32(truncatingIfNeeded: position) }
                /// Appends the positions of `list` that are none of the `scannedVectors` (five)
                /// vectors from `first`.
                func appendMissing(_ list: UnsafeBufferPointer<Int>, notIn first: Int, to out: inout [Int]) {
                    let (a, b, c, d, e) = (lanes[first], lanes[first + 1], lanes[first + 2], lanes[first + 3], lanes[first + 4])
                    var kept = 0
                    for position in list {
                        let wanted = SIMD4(repeating: Int32(truncatingIfNeeded: position))
                        let held = (a .== wanted) .| (b .== wanted) .| (c .== wanted) .| (d .== wanted) .| (e .== wanted)
                        missing[kept] = position
                        kept &+= any(held) ? 0 : 1
                    }
                    if kept > 0 { out.append(contentsOf: UnsafeBufferPointer(rebasing: missing[..<kept])) }
                }
                appendMissing(previous, notIn: scannedVectors, to: &stop)
                appendMissing(next, notIn: 0, to: &start)
            }
        }
        return true
    }

    /// Slots of each membership table (a power of two, at least twice the entries).
    private static let tableSlots = 64

    @inline(__always)
    private static func slot(_ position: Int) -> Int {
        Int(truncatingIfNeeded: (UInt(bitPattern: position) &* 0x9E37_79B9_7F4A_7C15) >> 58)
    }

    /// Adds `position` (≥ 0) to an open-addressing table of -1-filled slots.
    @inline(__always)
    private static func insert(_ position: Int, into table: UnsafeMutableBufferPointer<Int>) {
        var i = slot(position)
        while table[i] >= 0 { i = (i + 1) & (tableSlots - 1) }
        table[i] = position
    }

    @inline(__always)
    private static func holds(_ table: UnsafeMutableBufferPointer<Int>, _ position: Int) -> Bool {
        var i = slot(position)
        while true {
            let held = table[i]
            if held == position { return true }
            if held < 0 { return false }
            i = (i + 1) & (tableSlots - 1)
        }
    }
}
