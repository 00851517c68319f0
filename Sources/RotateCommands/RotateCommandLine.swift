/// The `rotate` command line: dispatches to one subcommand and maps errors to exit codes.
public enum RotateCommandLine {
    /// Every subcommand, in the order `rotate --help` lists them.
    public static let subcommands: [any Subcommand.Type] = [
        PlanCommand.self, SelectCommand.self, ValidateCommand.self, GenerateCommand.self, SimulateCommand.self, EvaluateCommand.self,
        ProbabilityCommand.self, BenchCommand.self, PresetsCommand.self, ServeCommand.self,
    ]

    public static let version = "0.1.0"

    /// The top-level help text, wrapped at `HelpLayout.width` columns.
    public static var help: String {
        var lines = HelpLayout.reflow(
            """
            OVERVIEW: rotate plans which geofences a phone should monitor: the places nearest the user
            within the platform's region limit, plus one refresh circle that wakes the app to reselect.
            """)
        let commands =
            subcommands.map { (label: $0.name, text: $0.abstract) } + [(label: "help", text: "Show the help of rotate or of a command.")]
        let options = [(label: "-h, --help", text: "Show this help."), (label: "--version", text: "Print the version.")]
        let column = HelpLayout.column(for: (commands + options).map(\.label))
        lines += ["", "USAGE: rotate <command> [options]", "", "COMMANDS:"] + HelpLayout.rows(commands, column: column)
        lines += ["", "OPTIONS:"] + HelpLayout.rows(options, column: column)
        lines += ["", "See 'rotate help <command>' or 'rotate <command> --help' for a command's options."]
        return lines.joined(separator: "\n")
    }

    /// Runs `rotate` with `arguments` (without the program name) and returns the exit code.
    /// Without arguments, as with `--help`, prints the top-level help.
    public static func run(_ arguments: [String], console: Console = .standard) -> Int32 {
        switch arguments.first {
        case nil, "--help", "-h":
            console.out(help)
            return ExitCode.success.rawValue
        case "help":
            return help(Array(arguments.dropFirst()), console: console)
        case "--version":
            console.out("rotate \(version)")
            return ExitCode.success.rawValue
        case let name?:
            guard let command = subcommands.first(where: { $0.name == name }) else { return unknownCommand(name, console: console) }
            return run(command, Array(arguments.dropFirst()), console: console)
        }
    }

    /// `rotate help [COMMAND]`: the top-level help, or the command's.
    static func help(_ names: [String], console: Console) -> Int32 {
        guard let name = names.first, name != "--help", name != "-h" else {
            console.out(help)
            return ExitCode.success.rawValue
        }
        guard let command = subcommands.first(where: { $0.name == name }) else { return unknownCommand(name, console: console) }
        guard names.count == 1 else {
            console.err("rotate help: error: unexpected argument '\(names[1])'")
            console.err("Usage: rotate help [<command>]; see 'rotate --help' for the commands.")
            return ExitCode.usage.rawValue
        }
        console.out(command.help)
        return ExitCode.success.rawValue
    }

    static func unknownCommand(_ name: String, console: Console) -> Int32 {
        console.err("rotate: error: unknown command '\(name)'")
        console.err("Usage: rotate <command> [options]; see 'rotate --help' for the commands.")
        return ExitCode.usage.rawValue
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
