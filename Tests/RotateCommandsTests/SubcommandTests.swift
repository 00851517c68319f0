import RotateCommands
import Testing

/// Every command's help as swift-argument-parser would print it: the defaults the command uses,
/// the required options in the usage line, former names hidden, 100 columns.
@Suite struct SubcommandTests {
    /// A command line each command parses, with its required options (parsing reads no file).
    static let minimal: [String: [String]] = [
        "plan": ["--places", "p.csv", "--walk", "w.csv"],
        "select": ["--places", "p.csv", "--at", "46,14"],
        "validate": ["--places", "p.csv"],
        "generate": ["--places-out", "p.csv", "--walk-out", "w.csv", "--positions-out", "q.csv", "--reports-out", "r.ndjson"],
        "simulate": [],
        "evaluate": [],
        "probability": ["--distance", "1", "--radius", "1", "--sigma", "1"],
        "bench": [],
        "presets": [],
        "serve": ["--stdio", "--places", "p.csv", "--state", "s.db"],
    ]

    /// Options that take a value and choose what a command does, with a value to choose it by.
    static let modeValues = ["--devices": "10"]

    /// A default as help shows it: `(default: 100000; 20000 with --walk-reselection, …)`.
    struct ShownDefault {
        var value: String?
        var whenGiven: [(option: String, value: String)] = []

        /// The default shown for a command line holding `given`.
        func value(given: [String]) -> String? { whenGiven.first { given.contains($0.option) }?.value ?? value }
    }

    /// The default `help` shows for the option labelled `label`, read from its text (wrapped
    /// lines joined).
    static func shownDefault(of label: String, in help: String) -> ShownDefault? {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        guard let first = lines.firstIndex(where: { $0.hasPrefix("  " + label + " ") || $0 == "  " + label }) else { return nil }
        var text = String(lines[first])
        for line in lines[(first + 1)...] {
            // The option's text goes on in lines indented past the label's two spaces.
            guard line.hasPrefix("   ") else { break }
            text += " " + line.trimmingPrefix(while: { $0 == " " })
        }
        guard let start = text.range(of: "(default: ", options: .backwards), text.hasSuffix(")") else { return nil }
        let shown = text[start.upperBound...].dropLast()
        let parts = shown.components(separatedBy: "; ")
        let conditional = parts.count == 2 ? parts[1] : shown.contains(" with --") ? String(shown) : ""
        var result = ShownDefault(value: parts.count == 2 || conditional.isEmpty ? parts[0] : nil)
        for clause in conditional.components(separatedBy: ", ") where !clause.isEmpty {
            let words = clause.components(separatedBy: " with ")
            guard words.count == 2 else { return nil }
            result.whenGiven.append((words[1], words[0]))
        }
        return result
    }

    /// For every option with a default value, in every mode of the command (each flag given, or
    /// each option of `modeValues`): the command parses the same options whether the option is
    /// absent or given the default its help shows for that mode.
    @Test func helpShowsTheDefaultEachCommandUses() throws {
        for command in RotateCommandLine.subcommands {
            try checkDefaults(of: command)
        }
    }

    func checkDefaults<Command: Subcommand>(of command: Command.Type) throws {
        let base = try #require(Self.minimal[command.name], "no minimal command line for \(command.name)")
        let modes: [[String]] =
            [[]]
            + command.options.compactMap { spec in
                guard spec.isShownInHelp, !base.contains(spec.name) else { return nil }
                if spec.valueName == nil { return [spec.name] }
                return Self.modeValues[spec.name].map { [spec.name, $0] }
            }
        func parse(_ line: [String]) throws -> Command.Options {
            try command.parse(Arguments(line, accepting: command.options))
        }
        for spec in command.options where spec.defaultValue != nil || !spec.defaultsWhenGiven.isEmpty {
            let shown = try #require(Self.shownDefault(of: spec.label, in: command.help), "rotate \(command.name) --help: \(spec.name)")
            for mode in modes where !mode.contains(spec.name) {
                guard let value = shown.value(given: mode), let absent = try? parse(base + mode) else { continue }
                let line = base + mode + [spec.name, value]
                // In a mode where the option does not apply, giving it may be refused (--radius
                // with --mixed-radii); without a mode, the default shown is always accepted.
                guard let given = mode.isEmpty ? try parse(line) : try? parse(line) else { continue }
                #expect(absent == given, "rotate \(command.name) \(mode.joined(separator: " ")): help shows \(spec.name) \(value)")
            }
        }
    }

    /// Help says where a default depends on the mode.
    @Test func benchHelpShowsTheQueriesOfEachMode() throws {
        let shown = try #require(Self.shownDefault(of: "--queries <q>", in: BenchCommand.help))
        #expect(shown.value == "100000")
        #expect(shown.value(given: ["--walk-reselection"]) == "20000")
        #expect(shown.value(given: ["--engine"]) == "20000")
        #expect(shown.value(given: ["--probability"]) == "200000")
    }

    @Test func usageLinesShowTheRequiredOptions() {
        #expect(PlanCommand.usage == "rotate plan --places <file> --walk <file> [options]")
        #expect(ProbabilityCommand.usage == "rotate probability --distance <m> --radius <m> --sigma <m> [options]")
        #expect(ServeCommand.usage == "rotate serve --stdio --places <file> [options]")
        #expect(BenchCommand.usage == "rotate bench [options]")
        for command in RotateCommandLine.subcommands {
            let usage = command.help.split(separator: "\n").first { $0.hasPrefix("USAGE: ") }
            #expect(usage == "USAGE: \(command.usage)"[...])
            for spec in command.options where spec.isRequired {
                #expect(command.usage.contains(spec.label), "\(command.name) \(spec.name)")
            }
        }
    }

    /// No command declares an option twice: the parser takes the first declaration, so a second
    /// option of the same name would silently set the first one's value.
    @Test func everyOptionNameIsDeclaredOnce() {
        for command in RotateCommandLine.subcommands {
            var seen = Set<String>()
            for spec in command.options { #expect(seen.insert(spec.name).inserted, "\(command.name) declares \(spec.name) twice") }
        }
    }

    /// A former name is parsed as the option it stands for and not shown in help.
    @Test func formerNamesAreHiddenFromHelpAndStillAccepted() throws {
        for command in RotateCommandLine.subcommands {
            for spec in command.options where !spec.isShownInHelp {
                #expect(!command.help.contains(spec.name), "\(command.name) \(spec.name)")
            }
        }
        #expect(!ServeCommand.help.contains("--snapshot-every"))
        let base = try #require(Self.minimal["serve"])
        let former = try ServeCommand.parse(Arguments(base + ["--snapshot-every", "7"], accepting: ServeCommand.options))
        let current = try ServeCommand.parse(Arguments(base + ["--commit-every", "7"], accepting: ServeCommand.options))
        let absent = try ServeCommand.parse(Arguments(base, accepting: ServeCommand.options))
        #expect(former == current)
        #expect(former != absent)
    }

    /// No help line is wider than 100 columns, and in each list (options, commands) every text
    /// starts in one column.
    @Test func helpFitsIn100ColumnsWithAlignedColumns() {
        for text in [RotateCommandLine.help] + RotateCommandLine.subcommands.map({ $0.help }) {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            for line in lines {
                #expect(line.count <= 100, "\(line.count) columns: \(line)")
            }
            var columns: Set<Int> = []
            var inList = false
            for line in lines {
                if line == "OPTIONS:" || line == "COMMANDS:" {
                    inList = true
                } else if line.isEmpty {
                    inList = false
                } else if inList {
                    // A label is indented by 2 and ends at two spaces; its text, or a
                    // continuation line, starts at the column.
                    let indent = line.prefix { $0 == " " }.count
                    if indent > 2 {
                        columns.insert(indent)
                    } else if let gap = line.dropFirst(2).range(of: "  ") {
                        columns.insert(
                            line.distance(from: line.startIndex, to: gap.lowerBound) + line[gap.lowerBound...].prefix { $0 == " " }.count)
                    }
                }
            }
            #expect(columns.count == 1, "\(text.prefix(60)): text starts at columns \(columns.sorted())")
        }
    }
}
