#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing results: to a file (`--out`) or stdout.
enum TextOutput {
    static func write(_ lines: [String], to path: String) throws(CommandError) {
        guard let file = fopen(path, "w") else { throw .failure("\(path): cannot write: \(String(cString: strerror(errno)))") }
        defer { fclose(file) }
        for line in lines {
            guard fputs(line + "\n", file) >= 0 else { throw .failure("\(path): write failed: \(String(cString: strerror(errno)))") }
        }
        guard fflush(file) == 0 else { throw .failure("\(path): write failed: \(String(cString: strerror(errno)))") }
    }

    /// Lines to `--out` when given, else to the console.
    static func emit(_ lines: [String], out path: String?, console: Console) throws(CommandError) {
        if let path {
            try write(lines, to: path)
        } else {
            lines.forEach(console.out)
        }
    }
}
