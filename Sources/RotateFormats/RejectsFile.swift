/// The `--rejects FILE` CSV: every rejected row with its line, reason and original fields.
public enum RejectsFile {
    /// Lines of the file: a header `line,reason,<original header…>`, then one row per rejection.
    public static func lines(header: [String], rejected: [RejectedRow]) -> [String] {
        [CSVWriter.row(["line", "reason"] + header)] + rejected.map { CSVWriter.row([String($0.line), $0.reason] + $0.fields) }
    }

    /// The `--rejects` file of a GeoJSON places file: a header `feature,reason`, then one row per
    /// rejected feature (its index in the collection, from 0).
    public static func lines(features: [GeoJSONPlaces.Rejected]) -> [String] {
        [CSVWriter.row(["feature", "reason"])] + features.map { CSVWriter.row([String($0.index), $0.reason]) }
    }
}
