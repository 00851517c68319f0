import RotateCommands
import Testing

@Suite struct ArgumentsTests {
    let specs = [
        OptionSpec("--count", value: "N", help: "count"),
        OptionSpec("--name", value: "TEXT", help: "name"),
        OptionSpec("--json", help: "flag"),
    ]

    @Test func parsesSeparateAndInlineValuesAndFlags() throws {
        let parsed = try Arguments(["--count", "12", "--name=a=b", "--json"], accepting: specs)
        #expect(try parsed.int("--count", default: 0, in: 0...100) == 12)
        #expect(parsed.string("--name") == "a=b")
        #expect(parsed.flag("--json"))
        #expect(!parsed.helpRequested)
    }

    @Test func defaultsApplyWhenAbsent() throws {
        let parsed = try Arguments([], accepting: specs)
        #expect(try parsed.int("--count", default: 7, in: 0...100) == 7)
        #expect(try parsed.double("--count", default: 2.5, in: 0...10) == 2.5)
        #expect(!parsed.flag("--json"))
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
        #expect(throws: CommandError.self) { try parsed.int("--count", default: 0, in: 0...100) }
    }

    @Test(arguments: ["nan", "inf", "-inf", "1e400", "x", " 1"])
    func nonFiniteOrMalformedNumbersAreUsageErrors(value: String) throws {
        let parsed = try Arguments(["--count", value], accepting: specs)
        #expect(throws: CommandError.self) { try parsed.double("--count", default: 0, in: -1e9...1e9) }
    }

    @Test func helpIsRecognizedAnywhere() throws {
        #expect(try Arguments(["--count", "3", "-h"], accepting: specs).helpRequested)
        #expect(try Arguments(["--help"], accepting: specs).helpRequested)
    }
}
