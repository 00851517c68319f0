#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lines of standard input, read with `poll(2)` and `read(2)` so that a wait for input notices
/// SIGTERM and SIGINT within 100 ms.
struct StandardInputLines {
    private var buffer: [UInt8] = []
    private var start = 0
    private var finished = false
    private var count = 0

    /// The next line (without its newline) and its 1-based number; nil at end of input or once
    /// termination was requested.
    mutating func next() -> (text: String, number: Int)? {
        while true {
            if Termination.requested { return nil }
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let text = String(decoding: buffer[start..<newline], as: UTF8.self)
                start = newline + 1
                count += 1
                return (text, count)
            }
            if finished {
                guard start < buffer.count else { return nil }
                let text = String(decoding: buffer[start...], as: UTF8.self)
                start = buffer.count
                count += 1
                return (text, count)
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
