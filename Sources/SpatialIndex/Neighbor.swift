import Geodesy

/// One query result: a place's index (its position in the array the index was built from) and
/// its distance in meters — to the center or to the fence edge, as the query asked.
public struct Neighbor: Hashable, Sendable, CustomStringConvertible {
    /// Position of the place in the input the index was built from.
    public var index: Int
    /// Great-circle distance to the center, or fence-edge distance (center distance minus radius,
    /// negative inside the fence), in meters.
    public var distanceMeters: Double

    /// Creates a result for the place at input position `index`, `distanceMeters` meters away.
    @inlinable
    public init(index: Int, distanceMeters: Double) {
        self.index = index
        self.distanceMeters = distanceMeters
    }

    /// The result as `#index@distancem`, for example `#3@120.5m`.
    public var description: String { "#\(index)@\(distanceMeters)m" }
}

/// What a distance query measures to.
public enum DistanceTarget: Sendable, Hashable {
    /// The place's center.
    case center
    /// The place's fence edge: center distance minus the place's radius (negative inside).
    case edge
}

/// The ranking keys shared by `KDTree` and `BruteForceIndex`.
///
/// Both rank with exactly these expressions, so their results agree bit for bit:
/// - by center, places are ordered by the squared chord between unit vectors (strictly increasing
///   in great-circle distance, so the order is exact great-circle order), ties by smaller index;
/// - by edge, places are ordered by `edgeMeters` = `GreatCircle.arcMeters(squaredChord:) - radius`,
///   then (where rounding makes two edge distances equal) by squared chord, then by index.
///
/// The squared-chord tie-break makes the edge order of places with one common radius *identical*
/// to their center order (the arc is a non-decreasing function of the chord), which lets the
/// index answer equal-radius edge queries with the cheaper center search.
public enum RankingKey {
    /// Fence-edge distance in meters for a squared chord and a radius.
    @inlinable @inline(__always)
    public static func edgeMeters(squaredChord: Double, radiusMeters: Double) -> Double {
        GreatCircle.arcMeters(squaredChord: squaredChord) - radiusMeters
    }

    /// Whether a place ranks before another: by key (edge meters, or the squared chord when ranking
    /// by center), then squared chord, then index — the one order of rotate's rankings.
    @inlinable @inline(__always)
    public static func precedes(
        key: Double, squaredChord: Double, index: Int,
        _ otherKey: Double, _ otherSquaredChord: Double, _ otherIndex: Int
    ) -> Bool {
        if key != otherKey { return key < otherKey }
        if squaredChord != otherSquaredChord { return squaredChord < otherSquaredChord }
        return index < otherIndex
    }

    /// A squared chord `T` such that any point whose squared chord exceeds `T` lies strictly
    /// farther than `meters` (as computed by `GreatCircle.arcMeters(squaredChord:)`).
    ///
    /// Used for pruning only: the bound is padded by 1 µm so that rounding in the arc/chord round
    /// trip (a few nanometers on the globe) can never prune a point that ties or wins; beyond 0.9 πR,
    /// where `asin` loses precision near antipodes, it gives up and returns +∞ (prune nothing).
    @inlinable @inline(__always)
    public static func pruningSquaredChord(beyondMeters meters: Double) -> Double {
        let padded = meters + 1e-6
        if padded < 0 { return -1 }
        if !(padded < 0.9 * Earth.halfCircumferenceMeters) { return .infinity }
        return GreatCircle.squaredChord(arcMeters: padded)
    }
}
