import RotateFormats

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a command writes: results to `out` (stdout), diagnostics and progress to `err` (stderr).
/// Tests pass a console that collects the text and says whether it stands for a terminal.
public struct Console: Sendable {
    public var out: @Sendable (String) -> Void
    public var err: @Sendable (String) -> Void
    /// Whether `out` is a terminal (then `rotate plan` writes its summary, not the trace).
    public var outIsTerminal: Bool
    /// Whether `err` is a terminal (then long commands show progress).
    public var errIsTerminal: Bool

    public init(
        out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void, outIsTerminal: Bool = false,
        errIsTerminal: Bool = false
    ) {
        self.out = out
        self.err = err
        self.outIsTerminal = outIsTerminal
        self.errIsTerminal = errIsTerminal
    }

    /// The process's stdout and stderr (each call writes one line, unbuffered).
    public static var standard: Console {
        Console(
            out: { line in StandardStreams.write(line + "\n", to: 1) },
            err: { line in StandardStreams.write(line + "\n", to: 2) },
            outIsTerminal: isatty(1) == 1, errIsTerminal: isatty(2) == 1)
    }
}
