/// One option a subcommand accepts, for parsing and for `--help`.
///
/// An option is declared once, with its default: `Arguments` reads the default from here when
/// the option is absent, and help shows the same text, so the two cannot disagree.
public struct OptionSpec: Sendable {
    /// The option with its dashes, e.g. `--count`.
    public var name: String
    /// The placeholder of its value (`N`, `FILE`), or nil for a flag that takes none.
    public var valueName: String?
    /// One sentence of help.
    public var help: String
    /// The default when it is a value the option could be given (`100000`, `edge`): what
    /// `Arguments` reads when the option is absent.
    public var defaultValue: String?
    /// Defaults that replace `defaultValue` while another option is given (`--queries` is 20000
    /// with `--walk-reselection`); the first whose option is given applies.
    public var defaultsWhenGiven: [(option: String, value: String)]
    /// A default the command works out itself (`all cores`, `the platform's`): shown in help
    /// only. The command reads such an option with an `IfGiven` accessor.
    public var computedDefault: String?
    /// Whether a command line must give it: the usage line shows it, and a missing one is a
    /// usage error.
    public var isRequired: Bool
    /// For a former name kept working: the option it stands for. Not shown in help; parsed as
    /// that option.
    public var aliasOf: String?

    public init(
        _ name: String, value valueName: String? = nil, help: String, default defaultValue: String? = nil,
        defaultsWhenGiven: [(option: String, value: String)] = [], computedDefault: String? = nil, required: Bool = false
    ) {
        precondition(defaultValue == nil || computedDefault == nil, "\(name): a default is a value or computed, not both")
        precondition(!required || (defaultValue == nil && computedDefault == nil), "\(name): a required option has no default")
        self.name = name
        self.valueName = valueName
        self.help = help
        self.defaultValue = defaultValue
        self.defaultsWhenGiven = defaultsWhenGiven
        self.computedDefault = computedDefault
        self.isRequired = required
    }

    /// A hidden former name of `option`.
    public static func alias(_ name: String, of option: OptionSpec) -> OptionSpec {
        var spec = OptionSpec(name, value: option.valueName, help: option.help)
        spec.aliasOf = option.name
        return spec
    }

    /// Whether help lists it (former names are hidden).
    public var isShownInHelp: Bool { aliasOf == nil }

    /// The option and its placeholder as usage and help show them: `--places <file>`.
    public var label: String { name + (valueName.map { " <\($0.lowercased())>" } ?? "") }

    /// The default as help shows it: `100000`, `5; 3 with --devices`, `1000000 with
    /// --catalog-update`, `all cores`; nil without one.
    public var defaultText: String? {
        let conditional = defaultsWhenGiven.map { "\($0.value) with \($0.option)" }.joined(separator: ", ")
        switch (defaultValue ?? computedDefault, conditional.isEmpty) {
        case (let base?, true): return base
        case (let base?, false): return base + "; " + conditional
        case (nil, false): return conditional
        case (nil, true): return nil
        }
    }
}
