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
    enum Line {
        case text(String)
        case tooLong(bytes: Int)
    }

    let maximumBytes: Int
    private var buffer: [UInt8] = []
    private var start = 0
    private var finished = false
    private var count = 0
    /// The bytes of an overlong line dropped so far (nil while the current line is kept).
    private var dropping: Int?

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
                if let dropped = dropping {
                    dropping = nil
                    return (.tooLong(bytes: dropped + newline - start), count)
                }
                if newline - start > maximumBytes { return (.tooLong(bytes: newline - start), count) }
                return (.text(String(decoding: buffer[start..<newline], as: UTF8.self)), count)
            }
            if finished {
                guard start < buffer.count || dropping != nil else { return nil }
                count += 1
                defer {
                    start = buffer.count
                    dropping = nil
                }
                if let dropped = dropping { return (.tooLong(bytes: dropped + buffer.count - start), count) }
                if buffer.count - start > maximumBytes { return (.tooLong(bytes: buffer.count - start), count) }
                return (.text(String(decoding: buffer[start...], as: UTF8.self)), count)
            }
            if buffer.count - start > maximumBytes {
                // No newline within the limit: drop what is buffered and keep counting.
                dropping = (dropping ?? 0) + buffer.count - start
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
}
