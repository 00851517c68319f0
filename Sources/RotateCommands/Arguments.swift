import RotateFormats

/// One option a subcommand accepts, for parsing and for `--help`.
public struct OptionSpec: Sendable {
    /// The option with its dashes, e.g. `--count`.
    public var name: String
    /// The placeholder of its value (`N`, `FILE`), or nil for a flag that takes none.
    public var valueName: String?
    /// One line of help.
    public var help: String
    /// The default, as shown in help.
    public var defaultValue: String?
    /// For a former name kept working for one release: the option it stands for. Not shown in
    /// help; parsed as that option.
    public var aliasOf: String?

    public init(_ name: String, value valueName: String? = nil, help: String, default defaultValue: String? = nil) {
        self.name = name
        self.valueName = valueName
        self.help = help
        self.defaultValue = defaultValue
    }

    /// A hidden former name of `option`.
    public static func alias(_ name: String, of option: OptionSpec) -> OptionSpec {
        var spec = OptionSpec(name, value: option.valueName, help: option.help)
        spec.aliasOf = option.name
        return spec
    }
}

/// A parsed command line: option values by name, and the flags present.
///
/// Accepts `--name value` and `--name=value`. An unknown option, a missing value, a value given
/// to a flag, an option given twice and a stray positional argument are usage errors.
public struct Arguments: Sendable {
    public private(set) var values: [String: String] = [:]
    public private(set) var flags: Set<String> = []
    /// Whether `--help` or `-h` was given.
    public private(set) var helpRequested = false

    public init(_ arguments: [String], accepting specs: [OptionSpec]) throws(CommandError) {
        let byName = Dictionary(specs.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var i = 0
        while i < arguments.count {
            let argument = arguments[i]
            i += 1
            if argument == "--help" || argument == "-h" {
                helpRequested = true
                continue
            }
            guard argument.hasPrefix("-"), argument.count > 1 else {
                throw .usage("unexpected argument '\(argument)'")
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let spec = byName[name] else { throw .usage("unknown option '\(name)'") }
            name = spec.aliasOf ?? name
            if spec.valueName == nil {
                guard inlineValue == nil else { throw .usage("option '\(name)' takes no value") }
                guard !flags.contains(name) else { throw .usage("option '\(name)' given twice") }
                flags.insert(name)
                continue
            }
            guard values[name] == nil else { throw .usage("option '\(name)' given twice") }
            if let inlineValue {
                values[name] = inlineValue
            } else {
                guard i < arguments.count else { throw .usage("option '\(name)' needs a value (\(spec.valueName ?? "VALUE"))") }
                values[name] = arguments[i]
                i += 1
            }
        }
    }

    public func flag(_ name: String) -> Bool { flags.contains(name) }

    public func string(_ name: String) -> String? { values[name] }

    /// An integer option in `range`, or `defaultValue` when absent.
    public func int(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>) throws(CommandError) -> Int {
        guard let text = values[name] else { return defaultValue }
        guard let value = Int(text.filter { $0 != "_" }) else {
            throw .usage("option '\(name)' needs a whole number, got '\(text)'")
        }
        guard range.contains(value) else {
            throw .usage("option '\(name)' must be in \(range.lowerBound)...\(range.upperBound), got \(value)")
        }
        return value
    }

    /// An unsigned 64-bit option (seeds), or `defaultValue` when absent.
    public func uint64(_ name: String, default defaultValue: UInt64) throws(CommandError) -> UInt64 {
        guard let text = values[name] else { return defaultValue }
        guard let value = UInt64(text.filter { $0 != "_" }) else {
            throw .usage("option '\(name)' needs a whole number from 0 to \(UInt64.max), got '\(text)'")
        }
        return value
    }

    /// A finite number option in `range`, or `defaultValue` when absent.
    public func double(_ name: String, default defaultValue: Double, in range: ClosedRange<Double>) throws(CommandError) -> Double {
        guard let text = values[name] else { return defaultValue }
        guard let value = DecimalText.double(text), value.isFinite else {
            throw .usage("option '\(name)' needs a finite number, got '\(text)'")
        }
        guard range.contains(value) else {
            throw .usage("option '\(name)' must be in \(range.lowerBound)...\(range.upperBound), got \(value)")
        }
        return value
    }

    /// One of `choices`, or `defaultValue` when absent.
    public func choice(_ name: String, default defaultValue: String, from choices: [String]) throws(CommandError) -> String {
        guard let text = values[name] else { return defaultValue }
        guard choices.contains(text) else {
            throw .usage("option '\(name)' must be one of \(choices.joined(separator: ", ")), got '\(text)'")
        }
        return text
    }
}
