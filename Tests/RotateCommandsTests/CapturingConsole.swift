import RotateCommands
import Synchronization

/// A console that records what a command wrote, for in-process command tests.
final class CapturingConsole: Sendable {
    private let lines = Mutex<(out: [String], err: [String])>(([], []))

    var console: Console {
        Console(out: { line in self.lines.withLock { $0.out.append(line) } },
                err: { line in self.lines.withLock { $0.err.append(line) } })
    }

    var out: String { lines.withLock { $0.out.joined(separator: "\n") } }
    var err: String { lines.withLock { $0.err.joined(separator: "\n") } }

    /// Runs `rotate` in-process and returns its exit code.
    static func run(_ arguments: [String]) -> (code: Int32, out: String, err: String) {
        let capture = CapturingConsole()
        let code = RotateCommandLine.run(arguments, console: capture.console)
        return (code, capture.out, capture.err)
    }
}
