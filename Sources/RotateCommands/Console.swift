import BenchmarkKit

/// Where a command writes: results to `out` (stdout), diagnostics and progress to `err` (stderr).
/// Tests pass a console that collects the text.
public struct Console: Sendable {
    public var out: @Sendable (String) -> Void
    public var err: @Sendable (String) -> Void

    public init(out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void) {
        self.out = out
        self.err = err
    }

    /// The process's stdout and stderr (each call writes one line, unbuffered).
    public static let standard = Console(
        out: { line in StandardStreams.write(line + "\n", to: 1) },
        err: { line in StandardStreams.write(line + "\n", to: 2) })
}
