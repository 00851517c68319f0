import Foundation

/// Where the repository's Datasets folder is, found from this source file's location, so tests
/// work whatever directory they run from.
public enum DatasetPaths {
    public static var root: String {
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("Datasets")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate.path }
            directory = directory.deletingLastPathComponent()
        }
        return "Datasets"
    }

    /// The path of a file in Datasets.
    public static func path(_ name: String) -> String { root + "/" + name }
}
