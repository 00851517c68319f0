/// The `--rejects FILE` CSV: every rejected row with its line, reason and original fields.
public enum RejectsFile {
    /// Lines of the file: a header `line,reason,<original header…>`, then one row per rejection.
    public static func lines(header: [String], rejected: [RejectedRow]) -> [String] {
        [CSVWriter.row(["line", "reason"] + header)] + rejected.map { CSVWriter.row([String($0.line), $0.reason] + $0.fields) }
    }
}
