import RotateCommands
import Synchronization

/// A console that records what a command wrote, for in-process command tests.
final class CapturingConsole: Sendable {
    private let lines = Mutex<(out: [String], err: [String])>(([], []))

    let outIsTerminal: Bool
    let errIsTerminal: Bool

    init(outIsTerminal: Bool = false, errIsTerminal: Bool = false) {
        self.outIsTerminal = outIsTerminal
        self.errIsTerminal = errIsTerminal
    }

    var console: Console {
        Console(
            out: { line in self.lines.withLock { $0.out.append(line) } },
            err: { line in self.lines.withLock { $0.err.append(line) } },
            outIsTerminal: outIsTerminal, errIsTerminal: errIsTerminal)
    }

    var out: String { lines.withLock { $0.out.joined(separator: "\n") } }
    var err: String { lines.withLock { $0.err.joined(separator: "\n") } }

    /// Runs `rotate` in-process and returns its exit code; the console stands for a terminal on
    /// stdout or stderr, as the caller chooses.
    static func run(_ arguments: [String], outIsTerminal: Bool = false, errIsTerminal: Bool = false) -> (
        code: Int32, out: String, err: String
    ) {
        let capture = CapturingConsole(outIsTerminal: outIsTerminal, errIsTerminal: errIsTerminal)
        let code = RotateCommandLine.run(arguments, console: capture.console)
        return (code, capture.out, capture.err)
    }
}
