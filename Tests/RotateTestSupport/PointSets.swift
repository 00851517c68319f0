import Geodesy

/// Named, seeded place sets for index property tests: the shapes that break spatial indexes.
public struct PointSet: Sendable, CustomStringConvertible {
    public var name: String
    public var coordinates: [Coordinate]

    public var description: String { "\(name) (\(coordinates.count) points)" }

    public init(name: String, coordinates: [Coordinate]) {
        self.name = name
        self.coordinates = coordinates
    }

    /// Uniform over the whole globe.
    public static func uniformGlobe(_ count: Int, seed: UInt64) -> PointSet {
        var rng = SplitMix64(seed: seed)
        return PointSet(name: "uniform globe", coordinates: (0..<count).map { _ in SyntheticCoordinates.uniformOnSphere(using: &rng) })
    }

    /// Clustered like cities: a few hundred towns of about 20 km, skewed sizes.
    public static func clusteredCities(_ count: Int, seed: UInt64) -> PointSet {
        var rng = SplitMix64(seed: seed)
        return PointSet(name: "clustered cities", coordinates: SyntheticCoordinates.clustered(count: count, clusters: 50, using: &rng))
    }

    /// `count` points in one square kilometer (Zagreb), many closer than a meter.
    public static func denseSquareKilometer(_ count: Int, seed: UInt64) -> PointSet {
        var rng = SplitMix64(seed: seed)
        let center = Coordinate(validLatitude: 45.8150, longitude: 15.9819)
        return PointSet(
            name: "1 km square",
            coordinates: (0..<count).map { _ in
                SyntheticCoordinates.uniformInSquare(around: center, sideMeters: 1_000, using: &rng)
            })
    }

    /// A strip 20 km wide and 2,000 km long straddling the ±180° meridian (Fiji to Kamchatka-ish).
    public static func dateLineStrip(_ count: Int, seed: UInt64) -> PointSet {
        var rng = SplitMix64(seed: seed)
        return PointSet(
            name: "date-line strip",
            coordinates: (0..<count).map { _ in
                let lat = rng.nextDouble(in: -10..<10)
                let lon = rng.nextDouble(in: -0.1..<0.1)
                return Coordinate(validLatitude: lat, longitude: lon >= 0 ? 180 - lon : -180 - lon)
            })
    }

    /// A cap of 300 km around a pole (north unless `south`), with a point exactly at the pole.
    public static func polarCap(_ count: Int, south: Bool = false, seed: UInt64) -> PointSet {
        var rng = SplitMix64(seed: seed)
        let pole = Coordinate(validLatitude: south ? -90 : 90, longitude: 0)
        var points = (0..<max(0, count - 1)).map { _ in SyntheticCoordinates.uniformInCap(around: pole, radiusMeters: 300_000, using: &rng)
        }
        if count > 0 { points.insert(pole, at: points.count / 2) }
        return PointSet(name: south ? "south polar cap" : "north polar cap", coordinates: points)
    }

    /// Query positions for this set: half near a random point (Gaussian, `sigmaMeters`), half in
    /// the set's surroundings (uniform in a cap around a random point), seeded.
    public func queries(_ count: Int, sigmaMeters: Double, seed: UInt64) -> [Coordinate] {
        var rng = SplitMix64(seed: seed)
        guard !coordinates.isEmpty else { return (0..<count).map { _ in SyntheticCoordinates.uniformOnSphere(using: &rng) } }
        return (0..<count).map { i in
            let base = coordinates[rng.nextInt(below: coordinates.count)]
            return i % 2 == 0
                ? SyntheticCoordinates.gaussian(around: base, sigmaMeters: sigmaMeters, using: &rng)
                : SyntheticCoordinates.uniformInCap(around: base, radiusMeters: sigmaMeters * 20, using: &rng)
        }
    }
}

/// Radii for the property tests.
public enum RadiusMix: String, Sendable, CaseIterable {
    /// Every place 100 m.
    case equal
    /// Uniform from 20 m to 5 km.
    case mixed
    /// Extremes: a fifth of the places 0 m, a fifth sharing 150 m (equal keys at equal distances),
    /// the rest log-uniform from 1 mm to 2e12 m (fences far larger than the Earth, whose keys are
    /// their radius negated plus a comparatively tiny arc: rounding margins sized to the radius).
    case extreme

    public func radii(count: Int, seed: UInt64) -> [Double] {
        var rng = SplitMix64(seed: seed)
        switch self {
        case .equal: return Array(repeating: 100, count: count)
        case .mixed: return (0..<count).map { _ in rng.nextDouble(in: 20..<5_000) }
        case .extreme:
            return (0..<count).map { _ in
                switch rng.next() % 5 {
                case 0: 0
                case 1: 150
                default: Double(sign: .plus, exponent: Int(rng.next() % 50) - 10, significand: rng.nextDouble(in: 1..<2))
                }
            }
        }
    }
}
