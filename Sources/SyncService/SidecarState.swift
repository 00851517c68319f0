import EventEngine
import FencePlanner
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `rotate serve` persists: every device's event-engine state and the catalog change sets
/// applied since start (replayed over the places file when the state is loaded), with a format
/// version. Version 1 files (each device's rotator state alone) are read and migrated: the
/// device resumes with what its platform holds and no place under way.
public struct SidecarState: Codable, Equatable, Sendable {
    /// The version this build writes; it also reads version 1.
    public static let currentFormatVersion = 2

    /// The format version, `format_version` in JSON (always `currentFormatVersion` in memory).
    public var formatVersion = SidecarState.currentFormatVersion
    /// The input lines that changed the catalog, in order (each a `{"changes": [...]}` object).
    public var changeLines: [String] = []
    /// Each device's state, by device id.
    public var devices: [String: MonitorState] = [:]

    /// An empty state: no change set, no device.
    public init() {}

    private enum CodingKeys: String, CodingKey {
        case formatVersion = "format_version"
        case changeLines = "change_lines"
        case devices
    }

    /// Decodes `{"format_version","change_lines","devices"}`, migrating version 1 (each device a
    /// `RotatorState`) to `MonitorState`s.
    ///
    /// - Throws: `DecodingError` for another format version, a missing or mistyped key, or a device
    ///   state that does not decode.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decode(Int.self, forKey: .formatVersion)
        guard version == 1 || version == Self.currentFormatVersion else {
            throw DecodingError.dataCorruptedError(
                forKey: .formatVersion, in: container,
                debugDescription: "unsupported state version \(version) (this build reads 1 and \(Self.currentFormatVersion))")
        }
        changeLines = try container.decode([String].self, forKey: .changeLines)
        if version == 1 {
            devices = try container.decode([String: RotatorState].self, forKey: .devices).mapValues { rotator in
                var state = MonitorState()
                state.rotator = rotator
                return state
            }
        } else {
            devices = try container.decode([String: MonitorState].self, forKey: .devices)
        }
    }

    /// Reads a state file; nil when there is none yet.
    ///
    /// - Throws: `StateFileError` for an unreadable or corrupt file (never silently ignored).
    public static func read(path: String) throws(StateFileError) -> SidecarState? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else { throw StateFileError(path: path, reason: "cannot be read") }
        do {
            return try JSONDecoder().decode(SidecarState.self, from: data)
        } catch let error as DecodingError {
            throw StateFileError(path: path, reason: "corrupt: \(Self.describe(error))")
        } catch {
            throw StateFileError(path: path, reason: "corrupt: \(error)")
        }
    }

    /// Writes the state atomically: to `path.tmp`, flushed to disk, then renamed over `path` (and
    /// the directory flushed), so the file on disk is always the old or the new complete state.
    ///
    /// - Throws: `StateFileError` when the state cannot be encoded, or `path.tmp` cannot be
    ///   created, written or flushed (its `path` is then the temporary file's), or the rename fails;
    ///   the file at `path` is unchanged then.
    public func write(path: String) throws(StateFileError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(self)
        } catch {
            throw StateFileError(path: path, reason: "cannot encode: \(error)")
        }
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw StateFileError(path: temporary, reason: "cannot be created: \(String(cString: strerror(errno)))") }
        var failure: String?
        data.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                let written = posixWrite(fd, base + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                offset += written
            }
        }
        if failure == nil && fsync(fd) != 0 { failure = String(cString: strerror(errno)) }
        close(fd)
        if let failure { throw StateFileError(path: temporary, reason: "cannot be written: \(failure)") }
        guard rename(temporary, path) == 0 else {
            throw StateFileError(path: path, reason: "cannot be replaced: \(String(cString: strerror(errno)))")
        }
        let directory = (path as NSString).deletingLastPathComponent
        let dfd = open(directory.isEmpty ? "." : directory, O_RDONLY)
        if dfd >= 0 {
            _ = fsync(dfd)
            close(dfd)
        }
    }

    /// A decoding error as one line: the key path and the reason.
    static func reason(_ error: any Error) -> String {
        (error as? DecodingError).map(describe) ?? "\(error)"
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return (path.isEmpty ? "" : path + ": ") + context.debugDescription
        @unknown default:
            return "\(error)"
        }
    }
}

/// A state file that cannot be read or written.
public struct StateFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file the error is about.
    public var path: String
    /// Why, in one line.
    public var reason: String
    /// `path: reason`, as diagnostics print it.
    public var description: String { "\(path): \(reason)" }

    /// Creates an error about `path`.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}

/// `write(2)` (the name is taken by `SidecarState.write(path:)` inside the type).
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
