import Geodesy

/// A walk's true path as the replays read it: each sample's unit vector and the length of each
/// step, converted once per walk and shared by the visit oracle and every strategy's emulated
/// phone (a conversion costs two sines and two cosines; a replay reads each sample several times).
public struct TruePath: Sendable {
    /// The unit vector of each sample's true position, in sample order.
    public let vectors: [UnitVector]
    /// `stepMeters[i]`: the great-circle distance from sample `i` to sample `i + 1` (one fewer
    /// than the samples), equal to `Coordinate.distance(to:)` bit for bit.
    public let stepMeters: [Double]

    public init(_ walk: Walk) {
        let vectors = walk.samples.map { UnitVector($0.truePosition) }
        self.vectors = vectors
        stepMeters = vectors.indices.dropLast().map { i in
            walk.samples[i].truePosition == walk.samples[i + 1].truePosition
                ? 0 : Earth.meanRadiusMeters * vectors[i].angleRadians(to: vectors[i + 1])
        }
    }

    /// The path's length, meters (`Walk.lengthMeters`).
    public var lengthMeters: Double { stepMeters.reduce(0, +) }
}
