import RotateFormats
import RotateJSON

/// A parsed command line: option values by name, and the flags present.
///
/// Accepts `--name value` and `--name=value`. An unknown option, a missing value, a value given
/// to a flag, an option given twice and a stray positional argument are usage errors.
///
/// The typed accessors (`int`, `double`, `choice`, …) return the value given or else the default
/// the option's `OptionSpec` declares, so a command never writes a default of its own; the
/// `IfGiven` accessors return nil for an absent option, for options without a declared value
/// default.
public struct Arguments: Sendable {
    public private(set) var values: [String: String] = [:]
    public private(set) var flags: Set<String> = []
    /// Whether `--help` or `-h` was given.
    public private(set) var helpRequested = false
    /// The options accepted, in the order declared.
    private let specs: [OptionSpec]

    public init(_ arguments: [String], accepting specs: [OptionSpec]) throws(CommandError) {
        self.specs = specs
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
            guard let spec = specs.first(where: { $0.name == name }) else { throw .usage("unknown option '\(name)'") }
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

    /// The required options not given, in the order declared.
    public var missing: [String] {
        specs.filter { $0.isRequired && $0.isShownInHelp && !isGiven($0.name) }.map(\.name)
    }

    /// Throws one usage error naming every required option not given (`missing --places and
    /// --walk`).
    public func checkRequired() throws(CommandError) {
        let missing = missing
        guard let last = missing.last else { return }
        let list = missing.count == 1 ? last : missing.dropLast().joined(separator: ", ") + " and " + last
        throw .usage("missing \(list)")
    }

    /// Whether the option was given, as a flag or with a value.
    public func isGiven(_ name: String) -> Bool { values[name] != nil || flags.contains(name) }

    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The value given, or nil (never the default).
    public func string(_ name: String) -> String? { values[name] }

    /// The default the option declares for this command line: the first of its
    /// `defaultsWhenGiven` whose option is given, else its `defaultValue`.
    public func declaredDefault(_ name: String) -> String? {
        let spec = self.spec(name)
        return spec.defaultsWhenGiven.first { isGiven($0.option) }?.value ?? spec.defaultValue
    }

    /// The value given, else the declared default.
    ///
    /// - Throws: `CommandError.usage` for a required option not given.
    public func text(_ name: String) throws(CommandError) -> String {
        try resolved(name).text
    }

    /// An integer option in `range`: the value given, else the declared default.
    public func int(_ name: String, in range: ClosedRange<Int>) throws(CommandError) -> Int {
        let (text, isDefault) = try resolved(name)
        return try checked(name, Self.int(text, name, range), isDefault: isDefault)
    }

    /// An integer option in `range`, or nil when absent.
    public func intIfGiven(_ name: String, in range: ClosedRange<Int>) throws(CommandError) -> Int? {
        guard let text = given(name) else { return nil }
        return try Self.int(text, name, range)
    }

    /// An unsigned 64-bit option (seeds): the value given, else the declared default.
    public func uint64(_ name: String) throws(CommandError) -> UInt64 {
        let (text, isDefault) = try resolved(name)
        return try checked(name, Self.uint64(text, name), isDefault: isDefault)
    }

    /// A finite number option in `range`: the value given, else the declared default.
    public func double(_ name: String, in range: ClosedRange<Double>) throws(CommandError) -> Double {
        let (text, isDefault) = try resolved(name)
        return try checked(name, Self.double(text, name, range), isDefault: isDefault)
    }

    /// A finite number option in `range`, or nil when absent.
    public func doubleIfGiven(_ name: String, in range: ClosedRange<Double>) throws(CommandError) -> Double? {
        guard let text = given(name) else { return nil }
        return try Self.double(text, name, range)
    }

    /// One of `choices`: the value given, else the declared default.
    public func choice(_ name: String, from choices: [String]) throws(CommandError) -> String {
        let (text, isDefault) = try resolved(name)
        return try checked(name, Self.choice(text, name, choices), isDefault: isDefault)
    }

    /// A case of `type` named by its raw value: the value given, else the declared default.
    public func choice<T: CaseIterable & RawRepresentable>(_ name: String, of type: T.Type) throws(CommandError) -> T
    where T.RawValue == String {
        let text = try choice(name, from: T.allCases.map(\.rawValue))
        guard let value = T(rawValue: text) else { preconditionFailure("\(text) is one of \(T.self)'s raw values") }
        return value
    }

    /// One of `choices`, or nil when absent.
    public func choiceIfGiven(_ name: String, from choices: [String]) throws(CommandError) -> String? {
        guard let text = given(name) else { return nil }
        return try Self.choice(text, name, choices)
    }
}

extension Arguments {
    /// The spec of an option this command declares; reading any other is a programming error.
    private func spec(_ name: String) -> OptionSpec {
        guard let spec = specs.first(where: { $0.name == name && $0.isShownInHelp }) else {
            preconditionFailure("\(name) is not an option of this command")
        }
        return spec
    }

    /// The value given of an option the command declares.
    private func given(_ name: String) -> String? {
        _ = spec(name)
        return values[name]
    }

    /// The value given or the declared default, and which of the two it is.
    private func resolved(_ name: String) throws(CommandError) -> (text: String, isDefault: Bool) {
        if let text = given(name) { return (text, false) }
        if let text = declaredDefault(name) { return (text, true) }
        if spec(name).isRequired { throw .usage("missing \(name)") }
        preconditionFailure("\(name) declares no default value: read it with an IfGiven accessor")
    }

    /// `read`'s result; a declared default that fails its own option's checks is a programming
    /// error, not the user's.
    private func checked<T>(_ name: String, _ read: @autoclosure () throws(CommandError) -> T, isDefault: Bool) throws(CommandError) -> T {
        do {
            return try read()
        } catch {
            guard !isDefault else { preconditionFailure("the declared default of \(name) is invalid: \(error)") }
            throw error
        }
    }

    private static func int(_ text: String, _ name: String, _ range: ClosedRange<Int>) throws(CommandError) -> Int {
        guard let value = Int(text.filter { $0 != "_" }) else {
            throw .usage("option '\(name)' needs a whole number, got '\(text)'")
        }
        guard range.contains(value) else {
            throw .usage("option '\(name)' must be in \(range.lowerBound)...\(range.upperBound), got \(value)")
        }
        return value
    }

    private static func uint64(_ text: String, _ name: String) throws(CommandError) -> UInt64 {
        guard let value = UInt64(text.filter { $0 != "_" }) else {
            throw .usage("option '\(name)' needs a whole number from 0 to \(UInt64.max), got '\(text)'")
        }
        return value
    }

    private static func double(_ text: String, _ name: String, _ range: ClosedRange<Double>) throws(CommandError) -> Double {
        guard let value = DecimalText.double(text), value.isFinite else {
            throw .usage("option '\(name)' needs a finite number, got '\(text)'")
        }
        guard range.contains(value) else {
            throw .usage("option '\(name)' must be in \(range.lowerBound)...\(range.upperBound), got \(value)")
        }
        return value
    }

    private static func choice(_ text: String, _ name: String, _ choices: [String]) throws(CommandError) -> String {
        guard choices.contains(text) else {
            throw .usage("option '\(name)' must be one of \(choices.joined(separator: ", ")), got '\(text)'")
        }
        return text
    }
}
