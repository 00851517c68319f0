/// Why a command did not succeed; `RotateCommandLine` maps each case to the exit code.
public enum CommandError: Error, Equatable, Sendable {
    /// The command line is wrong (unknown option, missing or malformed value): exit 2.
    case usage(String)
    /// The command ran and failed (bad input file, a failed check): exit 1.
    case failure(String)
}

/// The process exit codes of `rotate`, in one place.
public enum ExitCode: Int32, Sendable {
    case success = 0
    case failure = 1
    case usage = 2
}
