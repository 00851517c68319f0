#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Unbuffered writes to the process's standard streams (1 = stdout, 2 = stderr), shared by
/// `rotate` and `RotateBenchmarks` (C's `stderr` global is not concurrency-safe in Swift 6).
package enum StandardStreams {
    private static func systemWrite(_ descriptor: Int32, _ pointer: UnsafePointer<UInt8>, _ count: Int) -> Int {
        #if canImport(Glibc)
        return Glibc.write(descriptor, pointer, count)
        #else
        return Darwin.write(descriptor, pointer, count)
        #endif
    }

    /// Writes every byte of `text` to a file descriptor (retrying short writes and EINTR).
    package static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                let written = systemWrite(descriptor, base + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return  // closed pipe or full disk: nothing sensible left to do with output
                }
            }
        }
    }
}
