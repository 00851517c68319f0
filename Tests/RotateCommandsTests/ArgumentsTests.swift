import RotateCommands
import Testing

@Suite struct ArgumentsTests {
    let specs = [
        OptionSpec("--count", value: "N", help: "count", default: "7", defaultsWhenGiven: [("--fast", "3"), ("--json", "5")]),
        OptionSpec("--ratio", value: "X", help: "ratio", default: "2.5"),
        OptionSpec("--name", value: "TEXT", help: "name"),
        OptionSpec("--json", help: "flag"),
        OptionSpec("--fast", help: "flag"),
    ]

    @Test func parsesSeparateAndInlineValuesAndFlags() throws {
        let parsed = try Arguments(["--count", "12", "--name=a=b", "--json"], accepting: specs)
        #expect(try parsed.int("--count", in: 0...100) == 12)
        #expect(parsed.string("--name") == "a=b")
        #expect(parsed.flag("--json"))
        #expect(!parsed.helpRequested)
    }

    @Test func declaredDefaultsApplyWhenAbsent() throws {
        let parsed = try Arguments([], accepting: specs)
        #expect(try parsed.int("--count", in: 0...100) == 7)
        #expect(try parsed.double("--ratio", in: 0...10) == 2.5)
        #expect(try parsed.intIfGiven("--count", in: 0...100) == nil)
        #expect(try parsed.doubleIfGiven("--name", in: 0...10) == nil)
        #expect(!parsed.flag("--json"))
    }

    /// A default that depends on another option: the first whose option is given applies.
    @Test(arguments: [([String](), 7), (["--json"], 5), (["--fast"], 3), (["--json", "--fast"], 3)])
    func defaultsDependOnTheOptionsGiven(given: [String], count: Int) throws {
        let parsed = try Arguments(given, accepting: specs)
        #expect(parsed.declaredDefault("--count") == String(count))
        #expect(try parsed.int("--count", in: 0...100) == count)
        #expect(try Arguments(given + ["--count", "9"], accepting: specs).int("--count", in: 0...100) == 9)
    }

    @Test func helpShowsEveryDefault() {
        #expect(specs[0].defaultText == "7; 3 with --fast, 5 with --json")
        #expect(specs[1].defaultText == "2.5")
        #expect(specs[2].defaultText == nil)
        #expect(OptionSpec("--n", value: "N", help: "", defaultsWhenGiven: [("--m", "1")]).defaultText == "1 with --m")
        #expect(OptionSpec("--t", value: "T", help: "", computedDefault: "all cores").defaultText == "all cores")
        #expect(specs[0].label == "--count <n>")
        #expect(specs[3].label == "--json")
    }

    /// One error names every required option missing, in the order declared.
    @Test(arguments: [
        ([String](), "missing --a, --b and --c"), (["--b", "1"], "missing --a and --c"), (["--a", "1", "--b", "2"], "missing --c"),
    ])
    func missingRequiredOptionsAreNamedAtOnce(given: [String], message: String) throws {
        let required = ["--a", "--b", "--c"].map { OptionSpec($0, value: "N", help: "", required: true) }
        let parsed = try Arguments(given, accepting: required)
        #expect(throws: CommandError.usage(message)) { try parsed.checkRequired() }
        #expect(throws: Never.self) { try Arguments(["--a", "1", "--b", "2", "--c", "3"], accepting: required).checkRequired() }
    }

    /// A former name is parsed as the option it stands for.
    @Test func aliasesAreParsedAsTheirOption() throws {
        let aliased = specs + [.alias("--number", of: specs[0])]
        let parsed = try Arguments(["--number", "4"], accepting: aliased)
        #expect(try parsed.int("--count", in: 0...100) == 4)
        #expect(!aliased[5].isShownInHelp)
        #expect(throws: CommandError.self) { try Arguments(["--number", "4", "--count", "5"], accepting: aliased) }
    }

    @Test(arguments: [
        (["--bogus"], "unknown option '--bogus'"),
        (["--count"], "needs a value"),
        (["--count", "1", "--count", "2"], "given twice"),
        (["--json=yes"], "takes no value"),
        (["stray"], "unexpected argument 'stray'"),
        (["--json", "--json"], "given twice"),
    ])
    func malformedCommandLinesAreUsageErrors(arguments: [String], message: String) {
        do {
            _ = try Arguments(arguments, accepting: specs)
            Issue.record("accepted \(arguments)")
        } catch {
            guard case .usage(let text) = error else { Issue.record("not a usage error: \(error)"); return }
            #expect(text.contains(message), "\(text)")
        }
    }

    @Test(arguments: ["abc", "1.5", "", "-1", "101", "1e3"])
    func badIntegersAreUsageErrors(value: String) throws {
        let parsed = try Arguments(["--count", value], accepting: specs)
        #expect(throws: CommandError.self) { try parsed.int("--count", in: 0...100) }
        #expect(throws: CommandError.self) { try parsed.intIfGiven("--count", in: 0...100) }
    }

    @Test(arguments: ["nan", "inf", "-inf", "1e400", "x", " 1"])
    func nonFiniteOrMalformedNumbersAreUsageErrors(value: String) throws {
        let parsed = try Arguments(["--ratio", value], accepting: specs)
        #expect(throws: CommandError.self) { try parsed.double("--ratio", in: -1e9...1e9) }
    }

    @Test func helpIsRecognizedAnywhere() throws {
        #expect(try Arguments(["--count", "3", "-h"], accepting: specs).helpRequested)
        #expect(try Arguments(["--help"], accepting: specs).helpRequested)
    }
}
