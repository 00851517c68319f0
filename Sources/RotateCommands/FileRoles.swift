#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which file options a command reads and which it writes, so that no output overwrites an input
/// or another output (`--rejects` naming the `--places` file would replace the places by the
/// rejected rows; `--rejects` naming the `--state` database would destroy every device's state).
enum FileRoles {
    /// Options naming a file a command reads (or, for `--state`, reads and keeps).
    static let inputs = ["--places", "--positions", "--walk", "--state"]
    /// Options naming a file a command writes.
    static let outputs = [
        "--rejects", "--out", "--map", "--html", "--write-neighbors", "--places-out", "--walk-out", "--positions-out", "--reports-out",
    ]

    /// Refuses an output path that is one of the inputs or another output (the same file by
    /// device and inode, through links and other spellings of the path, or the same path when
    /// neither exists yet). `-` (the standard streams) is never compared.
    ///
    /// - Throws: `CommandError.usage` naming both options.
    static func check(_ arguments: Arguments) throws(CommandError) {
        let given = (inputs + outputs).compactMap { name in arguments.string(name).map { (name, $0) } }.filter { $0.1 != "-" }
        for (k, (output, outputPath)) in given.enumerated() where outputs.contains(output) {
            for (other, otherPath) in given[..<k] where sameFile(outputPath, otherPath) {
                let role = inputs.contains(other) ? "the \(other) input" : "also the \(other) output"
                throw .usage("\(output) \(outputPath) is \(role): refusing to overwrite it (name another file)")
            }
        }
    }

    static func sameFile(_ a: String, _ b: String) -> Bool {
        var first = stat(), second = stat()
        let firstExists = stat(a, &first) == 0, secondExists = stat(b, &second) == 0
        if firstExists && secondExists { return first.st_dev == second.st_dev && first.st_ino == second.st_ino }
        if firstExists || secondExists { return false }
        return a == b
    }
}
