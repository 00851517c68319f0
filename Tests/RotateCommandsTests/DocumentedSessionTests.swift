import Foundation
import RotateTestSupport
import Testing

/// Every shell session shown in docs/ is the output of a real run: each fenced block that starts
/// with `$ rotate …` is run with the built binary, from a folder where `Datasets/` is the
/// repository's, and what it printed is compared with what the block shows.
///
/// In a block, after the command line: a line ending with `(stderr)` is expected on stderr (in
/// order, among whatever else stderr says); for `rotate serve`, a line starting with `{"line":` is
/// an expected answer and every other line is input, written to stdin (`^D` ends the input);
/// for other commands every line is expected stdout. `…` in an expected line stands for any text
/// (long answers are abbreviated). A command ending with `< /dev/null` gets no input. The blocks
/// of one document run in order in one folder, so a later block sees the files an earlier one
/// wrote (a restart of the sidecar on its state database).
@Suite struct DocumentedSessionTests {
    struct Session {
        var document: String
        var arguments: [String]
        var input: [String] = []
        var stdout: [String] = []
        var stderr: [String] = []
    }

    static var repository: URL { URL(fileURLWithPath: DatasetPaths.root).deletingLastPathComponent() }

    /// The sessions of one Markdown document, in order.
    static func sessions(in path: URL) throws -> [Session] {
        let text = try String(contentsOf: path, encoding: .utf8)
        var sessions: [Session] = []
        var inBlock = false, firstLine = false
        var current: Session?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") {
                if inBlock, let session = current { sessions.append(session) }
                inBlock.toggle()
                firstLine = inBlock
                current = nil
                continue
            }
            guard inBlock else { continue }
            if firstLine {
                firstLine = false
                guard line.hasPrefix("$ rotate ") else { continue }
                var command = String(line.dropFirst("$ rotate ".count))
                if command.hasSuffix(" < /dev/null") { command.removeLast(" < /dev/null".count) }
                current = Session(document: path.lastPathComponent, arguments: command.split(separator: " ").map(String.init))
                continue
            }
            guard var session = current else { continue }
            let serve = session.arguments.first == "serve"
            if line.hasSuffix("(stderr)") {
                session.stderr.append(String(line.dropLast("(stderr)".count)).trimmingCharacters(in: .whitespaces))
            } else if line == "^D" {
                // the end of the input
            } else if !serve || line.hasPrefix(#"{"line":"#) {
                session.stdout.append(line)
            } else {
                session.input.append(line)
            }
            current = session
        }
        return sessions
    }

    /// Whether `actual` is `expected` with each `…` standing for any text.
    static func matches(_ actual: String, _ expected: String) -> Bool {
        let parts = expected.components(separatedBy: "…")
        guard parts.count > 1 else { return actual == expected }
        guard let first = parts.first, let last = parts.last, actual.hasPrefix(first), actual.hasSuffix(last),
            actual.count >= first.count + last.count
        else { return false }
        var rest = actual.dropFirst(first.count).dropLast(last.count)
        for part in parts.dropFirst().dropLast() where !part.isEmpty {
            guard let found = rest.range(of: part) else { return false }
            rest = rest[found.upperBound...]
        }
        return true
    }

    static let documents: [String] = {
        let docs = repository.appendingPathComponent("docs")
        let files = FileManager.default.enumerator(at: docs, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return files.filter { $0.pathExtension == "md" }.map(\.path).sorted()
    }()

    @Test func theDocumentsShowSessions() throws {
        let all = try Self.documents.flatMap { try Self.sessions(in: URL(fileURLWithPath: $0)) }
        #expect(all.contains { $0.document == "sidecar.md" && $0.input.count >= 10 && $0.stdout.count >= 10 })
        #expect(all.contains { $0.document == "formats.md" })
    }

    @Test(arguments: documents)
    func everySessionPrintsWhatItShows(document: String) throws {
        let sessions = try Self.sessions(in: URL(fileURLWithPath: document))
        guard !sessions.isEmpty else { return }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rotate-docs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("Datasets"), withDestinationURL: URL(fileURLWithPath: DatasetPaths.root))
        let url = try #require(BinaryTests.rotateURL, "the rotate binary was not found beside the tests")
        for session in sessions {
            let process = Process()
            process.executableURL = url
            process.arguments = session.arguments
            process.currentDirectoryURL = folder
            let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
            process.standardInput = stdin
            process.standardOutput = stdout
            process.standardError = stderr
            try process.run()
            if !session.input.isEmpty { stdin.fileHandleForWriting.write(Data((session.input.joined(separator: "\n") + "\n").utf8)) }
            try stdin.fileHandleForWriting.close()
            let out = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let err = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            let name = "\(session.document): rotate \(session.arguments.joined(separator: " "))"
            let lines = out.split(separator: "\n").map(String.init)
            #expect(lines.count == session.stdout.count, "\(name): \(lines.count) lines printed, \(session.stdout.count) shown")
            for (actual, expected) in zip(lines, session.stdout) {
                #expect(Self.matches(actual, expected), "\(name):\nprinted \(actual)\nshown   \(expected)")
            }
            var log = err.split(separator: "\n").map(String.init)[...]
            for expected in session.stderr {
                guard let at = log.firstIndex(where: { Self.matches($0, expected) }) else {
                    Issue.record("\(name): stderr lacks \(expected) in:\n\(err)")
                    break
                }
                log = log[(at + 1)...]
            }
        }
    }
}
