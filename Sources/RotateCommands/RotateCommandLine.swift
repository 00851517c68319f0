/// The `rotate` command line: dispatches to one subcommand and maps errors to exit codes.
public enum RotateCommandLine {
    /// Every subcommand, in the order `rotate --help` lists them.
    public static let subcommands: [any Subcommand.Type] = [
        PlanCommand.self, SelectCommand.self, ValidateCommand.self, GenerateCommand.self, SimulateCommand.self, EvaluateCommand.self,
        ProbabilityCommand.self, BenchCommand.self, PresetsCommand.self, ServeCommand.self,
    ]

    public static let version = "0.1.0"

    /// The top-level help text.
    public static var help: String {
        var lines = [
            "OVERVIEW: rotate plans which geofences a phone should monitor: the places nearest the user",
            "within the platform's region limit, plus one refresh circle that wakes the app to reselect.",
            "",
            "USAGE: rotate <command> [options]",
            "",
            "COMMANDS:",
        ]
        for command in subcommands {
            lines.append("  " + command.name + String(repeating: " ", count: max(2, 12 - command.name.count)) + command.abstract)
        }
        lines.append("")
        lines.append("OPTIONS:")
        lines.append("  -h, --help  Show this help.")
        lines.append("  --version   Print the version.")
        lines.append("")
        lines.append("See 'rotate <command> --help' for a command's options.")
        return lines.joined(separator: "\n")
    }

    /// Runs `rotate` with `arguments` (without the program name) and returns the exit code.
    public static func run(_ arguments: [String], console: Console = .standard) -> Int32 {
        guard let first = arguments.first else {
            console.err(help)
            return ExitCode.usage.rawValue
        }
        switch first {
        case "--help", "-h", "help":
            console.out(help)
            return ExitCode.success.rawValue
        case "--version":
            console.out("rotate \(version)")
            return ExitCode.success.rawValue
        default:
            break
        }
        guard let command = subcommands.first(where: { $0.name == first }) else {
            console.err("rotate: error: unknown command '\(first)'")
            console.err("Usage: rotate <command> [options]; see 'rotate --help' for the commands.")
            return ExitCode.usage.rawValue
        }
        return run(command, Array(arguments.dropFirst()), console: console)
    }

    /// Parses the command line into the command's options, then runs it; `--help` anywhere
    /// prints the command's help instead.
    static func run<Command: Subcommand>(_ command: Command.Type, _ arguments: [String], console: Console) -> Int32 {
        do throws(CommandError) {
            let parsed = try Arguments(arguments, accepting: command.options)
            if parsed.helpRequested {
                console.out(command.help)
                return ExitCode.success.rawValue
            }
            try parsed.checkRequired()
            try FileRoles.check(parsed)
            try command.run(command.parse(parsed), console: console)
            return ExitCode.success.rawValue
        } catch {
            switch error {
            case .usage(let message):
                console.err("rotate \(command.name): error: \(message)")
                console.err("Usage: \(command.usage); see 'rotate \(command.name) --help'.")
                return ExitCode.usage.rawValue
            case .failure(let message):
                console.err("rotate \(command.name): error: \(message)")
                return ExitCode.failure.rawValue
            }
        }
    }
}
