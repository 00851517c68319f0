/// A reselection with the index of the fix that caused it: what a replay records and what plan
/// files (traces, maps) are written from.
public struct RecordedUpdate: Hashable, Sendable {
    /// Index of the walk sample (fix) it happened at.
    public var sampleIndex: Int
    /// The reselection: the new selection and its diff.
    public var update: RotationUpdate

    /// Records `update` as caused by walk sample `sampleIndex` (0-based).
    public init(sampleIndex: Int, update: RotationUpdate) {
        self.sampleIndex = sampleIndex
        self.update = update
    }
}
