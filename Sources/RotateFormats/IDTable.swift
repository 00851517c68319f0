import Foundation

/// The set of place ids seen so far: an open-addressing hash table over the ids' UTF-8 bytes
/// (FNV-1a, 64-bit, mixed), cheaper than a `[String: Int]` for millions of short ids.
///
/// Ids are compared as Swift compares strings, by canonical equivalence (`é` as one scalar or as
/// `e` and a combining accent, the Ångström sign and `Å`, are one id), as the catalog compares
/// them: so a non-ASCII id is hashed in its canonical composition (NFC), and an ASCII one, its
/// own NFC, as it is.
///
/// Slots hold a position in the caller's list of ids plus one (0 = empty) and the hash's top 32
/// bits, so most probes that miss never touch a string; a hash match is confirmed by comparing
/// the ids themselves. The table doubles when it is half full. With millions of ids the table
/// outgrows the caches and every probe is a memory miss, so callers check ids in batches:
/// `touch` the slots of a batch first (independent loads the CPU overlaps), then insert.
struct IDTable {
    /// Per slot: `hashHigh << 32 | (position + 1)`, or 0 when empty.
    private var slots: [UInt64]
    private var mask: Int
    private(set) var count = 0

    init(capacity: Int = 16) {
        var size = 16
        while size < 2 * capacity { size <<= 1 }
        slots = Array(repeating: 0, count: size)
        mask = size - 1
    }

    static func hash(_ id: String) -> UInt64 {
        var id = id
        let (hash, ascii) = id.withUTF8(hashBytes)
        if ascii { return hash }
        var composed = id.precomposedStringWithCanonicalMapping
        return composed.withUTF8(hashBytes).hash
    }

    /// FNV-1a over `bytes`, mixed, and whether every byte was ASCII (found in the same pass).
    private static func hashBytes(_ bytes: UnsafeBufferPointer<UInt8>) -> (hash: UInt64, ascii: Bool) {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        var high: UInt8 = 0
        for b in bytes {
            h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3
            high |= b
        }
        // Final mix so the low bits (the slot) depend on every byte.
        h ^= h >> 29
        h = h &* 0xbf58_476d_1ce4_e5b9
        return (h ^ (h >> 32), high < 0x80)
    }

    /// Loads the first slot of `hash` so that a following insert finds it in cache.
    mutating func touch(_ hash: UInt64) {
        touched &+= slots[Int(truncatingIfNeeded: hash) & mask]
    }

    /// Keeps `touch`'s loads from being optimized away.
    private var touched: UInt64 = 0

    /// The position of `id` in `ids` if present; otherwise records it at `position` and returns nil.
    /// `ids(p)` must return the id recorded at position `p` (every position recorded so far).
    mutating func insertIfAbsent(_ id: String, hash h: UInt64, position: Int, ids: (Int) -> String) -> Int? {
        if 2 * (count + 1) > slots.count { grow(ids: ids) }
        let tag = (h >> 32) << 32
        var slot = Int(truncatingIfNeeded: h) & mask
        while true {
            let entry = slots[slot]
            if entry == 0 { break }
            if entry & 0xFFFF_FFFF_0000_0000 == tag {
                let existing = Int(entry & 0xFFFF_FFFF) - 1
                if ids(existing) == id { return existing }
            }
            slot = (slot + 1) & mask
        }
        slots[slot] = tag | UInt64(position + 1)
        count += 1
        return nil
    }

    /// Makes room for `capacity` ids in all without growing again (rehashes what is there).
    mutating func reserve(capacity: Int, ids: (Int) -> String) {
        var size = slots.count
        while size < 2 * capacity { size <<= 1 }
        if size > slots.count { grow(to: size, ids: ids) }
    }

    private mutating func grow(ids: (Int) -> String) {
        grow(to: slots.count * 2, ids: ids)
    }

    private mutating func grow(to size: Int, ids: (Int) -> String) {
        let old = slots
        slots = Array(repeating: 0, count: size)
        mask = slots.count - 1
        for entry in old where entry != 0 {
            let position = Int(entry & 0xFFFF_FFFF) - 1
            var slot = Int(truncatingIfNeeded: Self.hash(ids(position))) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = entry
        }
    }
}
