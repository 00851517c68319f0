/// Reusable scratch and result storage for index queries.
///
/// Queries write their results here instead of returning a new array, so a caller that keeps one
/// buffer (per thread) makes no allocation per query once the buffer has grown to the largest
/// `k` and tree depth it has seen. A buffer is a plain value: never share one between threads.
public struct NeighborBuffer: Sendable {
    /// The best k of the nearest query in progress, sorted, after a sentinel: key and index.
    @usableFromInline var best: [Best] = []
    /// For edge rankings, the squared chord of each of `best` (their tie-break), kept in step
    /// (slot i + 1 for `best[i + 1]`); one unused slot for rankings whose key is the squared
    /// chord itself.
    @usableFromInline var bestChords: [Double] = []
    /// Candidates of a `within` query (key, squared chord, index).
    @usableFromInline var entries: [Entry] = []
    /// Nodes and leaves still to visit, with their lower bounds.
    @usableFromInline var stack: [StackEntry] = []
    /// Storage of `neighbors`.
    @usableFromInline var _neighbors: [Neighbor] = []
    /// The reach of the nearest query in progress, in meters (+∞ but during
    /// `nearest(_:to:measuredTo:within:into:)`): the k-th key before k places are found.
    @usableFromInline var reachMeters = Double.infinity

    /// The results of the last query, sorted by distance, ties by index.
    @inlinable public var neighbors: [Neighbor] { _neighbors }

    /// Creates a buffer with room for `capacity` results.
    public init(capacity: Int = 32) {
        best.reserveCapacity(capacity + 1)
        entries.reserveCapacity(capacity + 1)
        _neighbors.reserveCapacity(capacity)
        stack.reserveCapacity(128)
    }

    @usableFromInline
    struct Entry: Sendable {
        @usableFromInline var key: Double
        @usableFromInline var squaredChord: Double
        @usableFromInline var index: Int32

        @inlinable init(key: Double, squaredChord: Double, index: Int32) {
            self.key = key
            self.squaredChord = squaredChord
            self.index = index
        }

        /// Strict (key, squared chord, index) order: the one ranking of rotate (see `RankingKey`).
        @inlinable @inline(__always)
        func precedes(_ other: Entry) -> Bool {
            RankingKey.precedes(key: key, squaredChord: squaredChord, index: Int(index), other.key, other.squaredChord, Int(other.index))
        }
    }

    /// One of the best k: its ranking key and its place's index, as the two lanes of one 16-byte
    /// vector (the index's bits in the second), so that the sorted insertion moves an entry with
    /// one load and one store, and compares the key in place (the first lane).
    @usableFromInline
    struct Best: Sendable {
        @usableFromInline var lanes: SIMD2<Double>

        @inlinable init(key: Double, index: Int32) {
            lanes = SIMD2(key, Double(bitPattern: UInt64(UInt32(bitPattern: index))))
        }

        @inlinable var key: Double { lanes.x }
        /// The place's index (indices are never negative).
        @inlinable var index: Int { Int(truncatingIfNeeded: lanes.y.bitPattern) }

        /// Stored before the list: no key ranks before −∞ (keys are finite), so the sorted
        /// insertion stops there.
        @inlinable static var sentinel: Best { Best(key: -.infinity, index: 0) }
    }

    /// Inserts a place into the sorted best list `best[0..<found]` of at most `k` (k ≥ 1)
    /// entries, unless the list is full and it ranks after all of them. `best[-1]` must be
    /// `Best.sentinel`: the shift loop stops there without testing the position.
    ///
    /// - Parameter chords: with `keepsChords` (edge rankings), the squared chords of `best`,
    ///   moved along with it; else unused, and `squaredChord` must equal `key` (the key is the
    ///   squared chord, so ties on the key are ties on the chord).
    ///
    /// The shift loop tests the key alone first: keys almost never tie, so a step is one
    /// comparison; only equal keys fall back to the full (key, squared chord, index) order.
    @inlinable @inline(__always)
    static func offer(
        key: Double, squaredChord: Double, index: Int32, to best: UnsafeMutablePointer<Best>,
        chords: UnsafeMutablePointer<Double>, keepsChords: Bool, found: inout Int, k: Int
    ) {
        /// Whether the candidate ranks before the entry at `position`, keys being equal.
        @inline(__always) func precedesOnTie(_ position: Int) -> Bool {
            if keepsChords && squaredChord != chords[position] { return squaredChord < chords[position] }
            return Int(index) < best[position].index
        }
        var position: Int
        if found == k {
            let last = best[k - 1].key
            guard key < last || (key == last && precedesOnTie(k - 1)) else { return }
            position = k - 1
        } else {
            position = found
            found += 1
        }
        while true {
            let previous = best[position &- 1]
            guard key < previous.key || (key == previous.key && precedesOnTie(position &- 1)) else { break }
            best[position] = previous
            if keepsChords { chords[position] = chords[position &- 1] }
            position &-= 1
        }
        best[position] = Best(key: key, index: index)
        if keepsChords { chords[position] = squaredChord }
    }

    /// A node or leaf still to visit: its points `start..<end` (a leaf when at most the leaf size),
    /// its index (internal nodes), and the lower bound on the keys under it.
    @usableFromInline
    struct StackEntry: Sendable {
        @usableFromInline var node: Int32
        @usableFromInline var start: Int32
        @usableFromInline var end: Int32
        @usableFromInline var bound: Double

        @inlinable init(node: Int32, start: Int32, end: Int32, bound: Double) {
            self.node = node
            self.start = start
            self.end = end
            self.bound = bound
        }
    }

    /// Makes `best` hold exactly `resultSlots` slots, `bestChords` `chordSlots` and `stack`
    /// exactly `stackSlots` (contents unspecified); allocates only when a slot count grows.
    @inlinable
    mutating func prepare(resultSlots: Int, chordSlots: Int, stackSlots: Int) {
        best.resize(to: resultSlots, filler: Best(key: 0, index: 0))
        bestChords.resize(to: chordSlots, filler: 0)
        stack.resize(to: stackSlots, filler: StackEntry(node: 0, start: 0, end: 0, bound: 0))
    }

    /// Sorts `entries` by (key, squared chord, index) in place without allocating (heap sort).
    @usableFromInline
    mutating func sortEntries() {
        let n = entries.count
        guard n > 1 else { return }
        func siftDown(_ start: Int, _ end: Int) {
            var root = start
            while true {
                var child = 2 * root + 1
                if child >= end { return }
                if child + 1 < end, entries[child].precedes(entries[child + 1]) { child += 1 }
                guard entries[root].precedes(entries[child]) else { return }
                entries.swapAt(root, child)
                root = child
            }
        }
        var start = n / 2
        while start > 0 {
            start -= 1
            siftDown(start, n)
        }
        var end = n
        while end > 1 {
            end -= 1
            entries.swapAt(0, end)
            siftDown(0, end)
        }
    }
}

extension NeighborBuffer {
    /// Addresses of the buffer's storage, for tests that check queries do not reallocate.
    package var storageAddresses: [UInt] {
        [
            best.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) },
            bestChords.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) },
            entries.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) },
            stack.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) },
            _neighbors.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) },
        ]
    }
}

extension Array {
    /// Makes the array hold exactly `count` elements: drops the excess, or pads with `filler`
    /// (keeping its storage; for reused scratch and result arrays whose contents are then
    /// overwritten).
    @inlinable
    package mutating func resize(to count: Int, filler: Element) {
        if self.count > count {
            removeLast(self.count - count)
        } else if self.count < count {
            append(contentsOf: repeatElement(filler, count: count - self.count))
        }
    }
}
