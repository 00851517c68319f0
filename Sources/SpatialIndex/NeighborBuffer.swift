/// Reusable scratch and result storage for index queries.
///
/// Queries write their results here instead of returning a new array, so a caller that keeps one
/// buffer (per thread) makes no allocation per query once the buffer has grown to the largest
/// `k` and tree depth it has seen. A buffer is a plain value: never share one between threads.
public struct NeighborBuffer: Sendable {
    /// Candidates of the query in progress (the best k, sorted, for nearest queries).
    @usableFromInline var entries: [Entry] = []
    /// Nodes still to visit, with their lower bounds (squared chords).
    @usableFromInline var stack: [StackEntry] = []
    /// Storage of `neighbors`.
    @usableFromInline var _neighbors: [Neighbor] = []

    /// The results of the last query, sorted by distance, ties by index.
    @inlinable public var neighbors: [Neighbor] { _neighbors }

    /// Creates a buffer with room for `capacity` results.
    public init(capacity: Int = 32) {
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

    /// Inserts `candidate` into the sorted best list `best[0..<found]` of at most `k` (k ≥ 1)
    /// entries, unless the list is full and it ranks after all of them.
    ///
    /// The shift loop tests the key alone first: keys almost never tie, so a step is one
    /// comparison; only equal keys fall back to the full (key, squared chord, index) order.
    @inlinable @inline(__always)
    static func offer(_ candidate: Entry, to best: UnsafeMutablePointer<Entry>, found: inout Int, k: Int) {
        var position: Int
        if found == k {
            guard candidate.precedes(best[k - 1]) else { return }
            position = k - 1
        } else {
            position = found
            found += 1
        }
        let key = candidate.key
        while position > 0 {
            let previous = best[position - 1]
            guard key < previous.key || (key == previous.key && candidate.precedes(previous)) else { break }
            best[position] = previous
            position -= 1
        }
        best[position] = candidate
    }

    @usableFromInline
    struct StackEntry: Sendable {
        @usableFromInline var node: Int32
        @usableFromInline var bound: Double

        @inlinable init(node: Int32, bound: Double) {
            self.node = node
            self.bound = bound
        }
    }

    /// Makes `entries` hold exactly `resultSlots` slots and `stack` exactly `stackSlots`
    /// (contents unspecified); allocates only when a slot count grows.
    @inlinable
    mutating func prepare(resultSlots: Int, stackSlots: Int) {
        entries.resize(to: resultSlots, filler: Entry(key: 0, squaredChord: 0, index: 0))
        stack.resize(to: stackSlots, filler: StackEntry(node: 0, bound: 0))
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
