#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Seeded generators of coordinates for tests, benchmarks and simulations.
///
/// All of them draw only from the `SplitMix64` passed in, so the same seed gives the same points.
package enum SyntheticCoordinates {
    /// A point uniformly distributed over the whole sphere (uniform z and longitude).
    package static func uniformOnSphere(using rng: inout SplitMix64) -> Coordinate {
        let z = rng.nextDouble(in: -1..<1)
        let lon = rng.nextDouble(in: -Double.pi..<Double.pi)
        let horizontal = max(0, 1 - z * z).squareRoot()
        return Coordinate(UnitVector(x: horizontal * cos(lon), y: horizontal * sin(lon), z: z))
    }

    /// A point uniformly distributed (by area) in the spherical cap of `radiusMeters` around `center`.
    package static func uniformInCap(
        around center: Coordinate, radiusMeters: Double, using rng: inout SplitMix64
    ) -> Coordinate {
        let maxAngle = min(Double.pi, radiusMeters / Earth.meanRadiusMeters)
        // Area-uniform: cos(angle) is uniform on [cos(maxAngle), 1].
        let cosAngle = 1 - rng.nextUnit() * (1 - cos(maxAngle))
        let angle = acos(min(1, max(-1, cosAngle)))
        let bearing = rng.nextDouble(in: 0..<360)
        return center.destination(bearingDegrees: bearing, distanceMeters: angle * Earth.meanRadiusMeters)
    }

    /// A point offset from `center` by a 2D Gaussian of `sigmaMeters` per axis.
    package static func gaussian(
        around center: Coordinate, sigmaMeters: Double, using rng: inout SplitMix64
    ) -> Coordinate {
        // The offset length of a 2D Gaussian is Rayleigh distributed, its direction uniform.
        let u = 1 - rng.nextUnit()
        let distance = sigmaMeters * (-2 * log(u)).squareRoot()
        let bearing = rng.nextDouble(in: 0..<360)
        return center.destination(bearingDegrees: bearing, distanceMeters: distance)
    }

    /// A point uniformly distributed in a square of `sideMeters` centered on `center`, drawn in
    /// the plane tangent at `center` (east/north offsets) and mapped back along the great circle
    /// of that bearing and length (azimuthal equidistant), so it works at the poles too (there
    /// the square's axes follow the stored longitude's meridian).
    package static func uniformInSquare(
        around center: Coordinate, sideMeters: Double, using rng: inout SplitMix64
    ) -> Coordinate {
        let east = rng.nextDouble(in: -0.5..<0.5) * sideMeters
        let north = rng.nextDouble(in: -0.5..<0.5) * sideMeters
        let bearing = atan2(east, north) * (180 / Double.pi)
        return center.destination(bearingDegrees: bearing, distanceMeters: (east * east + north * north).squareRoot())
    }

    /// `count` points in `clusters` towns: town centers uniform on the sphere, town sizes skewed
    /// (a town's weight is `1 / rank`, like city populations), points Gaussian around their town
    /// with a per-axis sigma of half `clusterRadiusMeters`.
    package static func clustered(
        count: Int, clusters: Int = 200, clusterRadiusMeters: Double = 20_000, using rng: inout SplitMix64
    ) -> [Coordinate] {
        precondition(count >= 0 && clusters >= 1, "count must be >= 0 and clusters >= 1")
        let centers = (0..<clusters).map { _ in uniformOnSphere(using: &rng) }
        var cumulative: [Double] = []
        cumulative.reserveCapacity(clusters)
        var total = 0.0
        for rank in 1...clusters {
            total += 1 / Double(rank)
            cumulative.append(total)
        }
        var points: [Coordinate] = []
        points.reserveCapacity(count)
        for _ in 0..<count {
            let pick = rng.nextUnit() * total
            var low = 0, high = clusters - 1
            while low < high {
                let mid = (low + high) / 2
                if cumulative[mid] > pick { high = mid } else { low = mid + 1 }
            }
            points.append(gaussian(around: centers[low], sigmaMeters: clusterRadiusMeters / 2, using: &rng))
        }
        return points
    }
}
