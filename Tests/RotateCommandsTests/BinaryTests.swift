import Foundation
import Testing

/// The built `rotate` executable: exit codes and streams as a shell sees them.
@Suite struct BinaryTests {
    /// The `rotate` binary next to the test bundle (SwiftPM builds it for this test target).
    static var rotateURL: URL? {
        #if os(Linux)
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        #else
        // On Apple platforms the tests are loaded from a .xctest bundle beside the products.
        let executable = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }?.bundleURL ?? Bundle.main.bundleURL
        #endif
        var directory = executable.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("rotate")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    /// Writes `bytes` to `pipe` on a thread of its own (entered in `group`), then closes it; stops
    /// early when the process stops reading (it ended or was killed).
    static func feed(_ bytes: [UInt8], to pipe: Pipe, in group: DispatchGroup) {
        let fd = pipe.fileHandleForWriting.fileDescriptor
        DispatchQueue.global().async(group: group) {
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                if written <= 0 { break }
                offset += written
            }
            try? pipe.fileHandleForWriting.close()
        }
    }

    static func run(_ arguments: [String]) throws -> (code: Int32, out: String, err: String) {
        let url = try #require(rotateURL, "the rotate binary was not found beside the tests")
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    @Test(arguments: [["--help"], [], ["help"], ["help", "bench"]])
    func helpExitsZeroOnStdout(arguments: [String]) throws {
        let result = try Self.run(arguments)
        #expect(result.code == 0)
        #expect(result.out.contains("bench"))
        #expect(result.err.isEmpty)
    }

    @Test(arguments: [["nope"], ["help", "nope"], ["plan"], ["bench", "--nope"], ["bench", "--count=-3"]])
    func usageErrorsExitTwoOnStderr(arguments: [String]) throws {
        let result = try Self.run(arguments)
        #expect(result.code == 2)
        #expect(result.out.isEmpty)
        #expect(!result.err.isEmpty)
    }

    /// Every reader of positions takes the same header spellings (`CSVFile.latitudeAliases`):
    /// `bench --positions` reads a `y,x` file as `select` and the places reader do.
    @Test func benchReadsPositionsWithEveryHeaderSpelling() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("rotate-yx-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("y,x\n46.05,14.50\n46.06,14.51\n".utf8).write(to: file)
        let result = try Self.run(["bench", "--count", "500", "--positions", file.path, "--queries", "2", "--repetitions", "1", "--quiet"])
        #expect(result.code == 0, "\(result.err)")
        #expect(result.out.contains("k-d tree == brute force"))
    }

    @Test func benchRunsAndExitsZero() throws {
        let result = try Self.run(["bench", "--count", "500", "--queries", "50", "--repetitions", "1", "--quiet"])
        #expect(result.code == 0, "\(result.err)")
        #expect(result.out.contains("k-d tree == brute force"))
    }
}
