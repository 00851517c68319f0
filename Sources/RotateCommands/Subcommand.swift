/// One `rotate` subcommand: its name, help and options, and what it does.
public protocol Subcommand: Sendable {
    /// The word after `rotate`.
    static var name: String { get }
    /// One line for `rotate --help`.
    static var abstract: String { get }
    /// Paragraphs printed after the options in `rotate NAME --help`.
    static var discussion: String { get }
    /// The options it accepts (`--help` is always accepted).
    static var options: [OptionSpec] { get }
    /// Runs the command; throws `CommandError` for usage errors and failures.
    static func run(_ arguments: Arguments, console: Console) throws(CommandError)
}

extension Subcommand {
    /// The `--help` text.
    public static var help: String {
        var lines = ["OVERVIEW: \(abstract)", "", "USAGE: rotate \(name) [options]", "", "OPTIONS:"]
        let shown = options.filter { $0.aliasOf == nil }
        let labels = shown.map { $0.name + ($0.valueName.map { " " + $0 } ?? "") }
        let width = max(16, (labels.map(\.count).max() ?? 0) + 2)
        for (spec, label) in zip(shown, labels) {
            let padded = label + String(repeating: " ", count: width - label.count)
            lines.append("  " + padded + spec.help + (spec.defaultValue.map { " (default: \($0))" } ?? ""))
        }
        lines.append("  " + "-h, --help" + String(repeating: " ", count: width - 10) + "Show this help.")
        if !discussion.isEmpty {
            lines.append("")
            lines.append(discussion)
        }
        return lines.joined(separator: "\n")
    }
}
