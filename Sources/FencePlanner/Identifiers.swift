import Foundation

/// The rules every identifier follows where it enters (a place's id in a places file or a change
/// set, a device's id, a region's id in a platform event): one limit, and one spelling.
///
/// Swift compares strings by canonical equivalence, so `"café"` (NFC, U+00E9) and `"cafe\u{301}"`
/// (NFD, e + U+0301) are one dictionary key in memory, while SQLite, the platforms and a host's
/// own tables compare bytes. Identifiers are therefore stored, compared and answered in
/// Unicode Normalization Form C: two canonically equal spellings are one place or one device
/// everywhere, and the answer carries the NFC spelling.
public enum Identifiers {
    /// The longest identifier, in UTF-8 bytes (after normalization): an answer echoes device and
    /// place ids, and no platform or host needs longer ones (iOS region identifiers are free
    /// text; Android's `requestId` is too).
    public static let maximumBytes = 256

    /// `id` in Normalization Form C. ASCII text (almost every id) is returned as it is without
    /// normalizing: it is its own NFC form.
    public static func canonical(_ id: String) -> String {
        if id.utf8.allSatisfy({ $0 < 0x80 }) { return id }
        return id.precomposedStringWithCanonicalMapping
    }

    /// Why `id` cannot be an identifier (empty, or longer than `maximumBytes` UTF-8 bytes), or nil
    /// when it can. `id` is expected in canonical form.
    public static func problem(_ id: String) -> String? {
        if id.isEmpty { return "must not be empty" }
        let bytes = id.utf8.count
        if bytes > maximumBytes { return "is \(bytes) bytes long; at most \(maximumBytes)" }
        return nil
    }
}
