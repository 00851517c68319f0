#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lines of standard input, read with `poll(2)` and `read(2)` so that a wait for input notices
/// SIGTERM and SIGINT within 100 ms.
///
/// A line longer than `maximumBytes` is not kept: the rest of it is read and dropped, and it is
/// returned as its length alone, so one runaway line cannot take the memory.
struct StandardInputLines {
    /// One line of input: its text, or only its length when it was too long to keep.
    enum Line: Equatable {
        case text(String)
        /// Longer than `maximumBytes`; `blank` when it held only spaces, tabs and `\r` (a blank
        /// line, answered by nothing however long).
        case tooLong(bytes: Int, blank: Bool)
        /// Not valid UTF-8: the offset of the first byte that does not decode. Decoding it with
        /// replacement characters would make distinct ids equal (`"\xffab"` and `"\xfeab"` would
        /// both read as `"\u{FFFD}ab"`).
        case invalidUTF8(byteOffset: Int)
    }

    let maximumBytes: Int
    private var buffer: [UInt8] = []
    private var start = 0
    private var finished = false
    private var count = 0
    /// The bytes of an overlong line dropped so far (nil while the current line is kept).
    private var dropping: Int?
    /// Whether the bytes dropped so far were all blank (spaces, tabs, `\r`).
    private var droppedBlank = true

    init(maximumBytes: Int = 1 << 20) {
        self.maximumBytes = maximumBytes
    }

    /// Whether `next()` would wait for input: no whole line is buffered and none is ready to
    /// read now.
    mutating func wouldWait() -> Bool {
        if finished || buffer[start...].contains(UInt8(ascii: "\n")) { return false }
        var waiting = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        return poll(&waiting, 1, 0) == 0
    }

    /// The next line (without its newline) and its 1-based number; nil at end of input or once
    /// termination was requested.
    mutating func next() -> (line: Line, number: Int)? {
        while true {
            if Termination.requested { return nil }
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                count += 1
                defer { start = newline + 1 }
                return (line(start..<newline), count)
            }
            if finished {
                guard start < buffer.count || dropping != nil else { return nil }
                count += 1
                defer { start = buffer.count }
                return (line(start..<buffer.count), count)
            }
            if buffer.count - start > maximumBytes {
                // No newline within the limit: drop what is buffered and keep counting.
                dropping = (dropping ?? 0) + buffer.count - start
                droppedBlank = droppedBlank && Self.isBlank(buffer[start...])
                buffer.removeAll(keepingCapacity: true)
                start = 0
            }
            if start > 0 {
                buffer.removeFirst(start)
                start = 0
            }
            // Wait at most 100 ms at a time: a signal may be handled on another thread than this
            // one, and then it does not interrupt the wait; the flag is checked in between.
            var waiting = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiting, 1, 100)
            if ready == 0 || (ready < 0 && errno == EINTR) { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let got = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if got > 0 {
                buffer.append(contentsOf: chunk[0..<got])
            } else if got == 0 || errno != EINTR {
                finished = true
            }
        }
    }

    /// The line held in `range` of the buffer (after any bytes of it already dropped).
    private mutating func line(_ range: Range<Int>) -> Line {
        if let dropped = dropping {
            defer {
                dropping = nil
                droppedBlank = true
            }
            return .tooLong(bytes: dropped + range.count, blank: droppedBlank && Self.isBlank(buffer[range]))
        }
        if range.count > maximumBytes { return .tooLong(bytes: range.count, blank: Self.isBlank(buffer[range])) }
        var bytes = buffer[range]
        // A byte order mark before the first line (some editors and Windows tools write one).
        if count == 1 && bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        if let text = String(validating: bytes, as: UTF8.self) { return .text(text) }
        return .invalidUTF8(byteOffset: Self.firstInvalidUTF8(bytes))
    }

    private static func isBlank(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }
    }

    /// The 0-based offset of the first byte of `bytes` that is not part of a valid UTF-8 sequence.
    static func firstInvalidUTF8(_ bytes: ArraySlice<UInt8>) -> Int {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .emptyInput: return offset
            case .error: return offset
            }
        }
    }
}
