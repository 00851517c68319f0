/// One `rotate` subcommand: its name, help and options, how it reads them, and what it does.
///
/// As with swift-argument-parser's commands, a command line is first parsed into `Options` (every
/// value checked, before any file is read or any work is done), then run.
public protocol Subcommand: Sendable {
    /// What `parse` makes of a command line.
    associatedtype Options: Equatable, Sendable

    /// The word after `rotate`.
    static var name: String { get }
    /// One line for `rotate --help`.
    static var abstract: String { get }
    /// Paragraphs printed after the options in `rotate NAME --help`.
    static var discussion: String { get }
    /// The options it accepts (`--help` is always accepted), each declared once with its default.
    static var options: [OptionSpec] { get }
    /// The usage line; by default `rotate NAME`, the required options, then `[options]`.
    static var usage: String { get }
    /// Reads the options: defaults from `options`, values checked against their ranges and each
    /// other. Reads no file.
    ///
    /// - Throws: `CommandError.usage` for a value out of range or options that exclude each other.
    static func parse(_ arguments: Arguments) throws(CommandError) -> Options
    /// Runs the command; throws `CommandError` for usage errors found in files and failures.
    static func run(_ options: Options, console: Console) throws(CommandError)
}

extension Subcommand {
    /// `rotate NAME`, the required options, then `[options]`.
    public static var usage: String {
        (["rotate", name] + options.filter { $0.isRequired && $0.isShownInHelp }.map(\.label) + ["[options]"]).joined(separator: " ")
    }

    /// The `--help` text, wrapped at `HelpLayout.width` columns.
    public static var help: String {
        var lines = HelpLayout.wrap("OVERVIEW: \(abstract)", width: HelpLayout.width) + [""]
        lines += HelpLayout.wrap("USAGE: \(usage)", width: HelpLayout.width) + ["", "OPTIONS:"]
        let rows = options.filter(\.isShownInHelp).map { spec in
            (label: spec.label, text: spec.help + (spec.defaultText.map { " (default: \($0))" } ?? ""))
        }
        lines += HelpLayout.rows(rows + [(label: "-h, --help", text: "Show this help.")])
        if !discussion.isEmpty { lines += [""] + HelpLayout.reflow(discussion) }
        return lines.joined(separator: "\n")
    }
}
