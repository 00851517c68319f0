import FencePlanner
import Geodesy

/// Synthetic place sets for simulations.
public enum PlaceSetKind: String, Hashable, Sendable, CaseIterable, Codable {
    /// Uniform in the region, 100 m fences.
    case uniform
    /// Shops in towns: clusters of about 600 m, 100 m fences.
    case clustered
    /// Malls: groups of 300 places within 300 m, 10 to 40 m fences, a sparse background between.
    case dense
    /// Uniform, radii from 20 m to 1 km.
    case mixed

    /// `count` places of this kind in a square of `sideMeters` around `center` (ids `p000000…`).
    public func places(count: Int, around center: Coordinate, sideMeters: Double, using rng: inout SplitMix64) -> [Place] {
        var coordinates: [Coordinate] = []
        var radii: [Double] = []
        coordinates.reserveCapacity(count)
        switch self {
        case .uniform, .mixed:
            for _ in 0..<count {
                coordinates.append(SyntheticCoordinates.uniformInSquare(around: center, sideMeters: sideMeters, using: &rng))
                radii.append(self == .mixed ? rng.nextDouble(in: 20..<1_000) : 100)
            }
        case .clustered:
            let towns = max(1, count / 60)
            let centers = (0..<towns).map { _ in SyntheticCoordinates.uniformInSquare(around: center, sideMeters: sideMeters, using: &rng) }
            for _ in 0..<count {
                let town = centers[rng.nextInt(below: towns)]
                coordinates.append(SyntheticCoordinates.gaussian(around: town, sigmaMeters: 300, using: &rng))
                radii.append(100)
            }
        case .dense:
            let malls = max(1, count / 400)
            let centers = (0..<malls).map { _ in SyntheticCoordinates.uniformInSquare(around: center, sideMeters: sideMeters, using: &rng) }
            for i in 0..<count {
                if i % 4 == 3 {
                    coordinates.append(SyntheticCoordinates.uniformInSquare(around: center, sideMeters: sideMeters, using: &rng))
                } else {
                    coordinates.append(
                        SyntheticCoordinates.uniformInSquare(around: centers[rng.nextInt(below: malls)], sideMeters: 300, using: &rng))
                }
                radii.append(rng.nextDouble(in: 10..<40))
            }
        }
        let width = String(max(1, count - 1)).count
        return coordinates.enumerated().map { i, coordinate in
            let digits = String(i)
            return Place(
                id: "p" + String(repeating: "0", count: width - digits.count) + digits, coordinate: coordinate, radiusMeters: radii[i])
        }
    }
}
