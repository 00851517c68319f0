import FencePlanner
import Geodesy
import SpatialIndex

/// The obviously correct planner: rank every place of the catalog by a full sort, then apply the
/// rules as stated. Tests compare `RotationPlanner` with it.
public enum ReferencePlanner {
    struct Ranked {
        var position: Int
        var edge: Double
        var squaredChord: Double
    }

    /// Every place ranked by (edge, squared chord, position), as `RankingKey` defines; a
    /// footprint's edge is its polygon's (`SphericalMultiPolygon.signedDistanceMeters`), its
    /// center its enclosing cap's.
    static func ranking(_ catalog: PlaceCatalog, at fix: Fix) -> [Ranked] {
        let query = UnitVector(fix.coordinate)
        return catalog.places.enumerated().map { position, place in
            let center = place.footprint?.cap.center ?? UnitVector(place.coordinate)
            let squaredChord = center.squaredChord(to: query)
            return Ranked(
                position: position,
                edge: place.footprint?.signedDistanceMeters(to: query)
                    ?? RankingKey.edgeMeters(squaredChord: squaredChord, radiusMeters: place.radiusMeters),
                squaredChord: squaredChord)
        }.sorted { a, b in
            if a.edge != b.edge { return a.edge < b.edge }
            if a.squaredChord != b.squaredChord { return a.squaredChord < b.squaredChord }
            return a.position < b.position
        }
    }

    public static func select(
        _ catalog: PlaceCatalog, _ config: RotationConfiguration, at fix: Fix, incumbents: [Fence], refreshID: String
    ) -> Selection {
        let slots = config.placeSlots
        let ranking = ranking(catalog, at: fix)
        let edgeOf = Dictionary(uniqueKeysWithValues: ranking.map { ($0.position, $0.edge) })
        let rankOf = Dictionary(uniqueKeysWithValues: ranking.enumerated().map { ($1.position, $0) })
        let trusted = (fix.accuracyMeters ?? 0) <= config.maxTrustedAccuracyMeters
        let reach = trusted ? 0 : (fix.accuracyMeters ?? 0)
        func monitored(_ positions: [Int]) -> [MonitoredPlace] {
            ranking.filter { positions.contains($0.position) }.map {
                MonitoredPlace(position: $0.position, fence: catalog.places[$0.position].fence, edgeDistanceMeters: $0.edge)
            }
        }
        if catalog.count <= slots {
            return Selection(
                fix: fix, monitored: monitored(ranking.map(\.position)), refresh: nil, guarantee: .exact,
                nextUnmonitoredEdgeMeters: nil, trustedFix: trusted)
        }
        let incumbentPositions = incumbents.compactMap { fence -> Int? in
            guard let p = catalog.position(of: fence.id), catalog.places[p].fence == fence else { return nil }
            return p
        }
        // Untrusted fix: incumbents the user may be inside stay; the rest of the slots go by rank.
        let pinned = trusted ? [] : incumbentPositions.filter { edgeOf[$0]! <= reach }
        var chosen = pinned + ranking.map(\.position).filter { !pinned.contains($0) }.prefix(slots - pinned.count)
        let pure = chosen
        if config.stickinessMeters > 0 {
            let dropped = incumbentPositions.filter { !chosen.contains($0) }.sorted { rankOf[$0]! < rankOf[$1]! }
            var newcomers = chosen.filter { !incumbentPositions.contains($0) && !pinned.contains($0) }.sorted { rankOf[$0]! > rankOf[$1]! }
            for incumbent in dropped {
                guard let newcomer = newcomers.first, edgeOf[incumbent]! - edgeOf[newcomer]! < config.stickinessMeters else { break }
                newcomers.removeFirst()
                chosen[chosen.firstIndex(of: newcomer)!] = incumbent
            }
        }
        func radius(_ members: [Int]) -> (Double, Double) {
            let next = ranking.first { !members.contains($0.position) }!.edge
            return (next, min(config.maxRegionRadiusMeters, next - config.marginMeters - reach))
        }
        var (next, r) = radius(chosen)
        if Set(chosen) != Set(pure) && r < config.minRefreshRadiusMeters {
            chosen = pure
            (next, r) = radius(pure)
        }
        let overlapping = ranking.filter { $0.edge <= config.marginMeters + reach }.count
        let guarantee: Guarantee =
            overlapping > slots
            ? .saturated(overlapping: overlapping)
            : (r >= config.minRefreshRadiusMeters ? .exact : .degraded(fallbackDistanceMeters: max(0, r)))
        return Selection(
            fix: fix, monitored: monitored(chosen),
            refresh: RefreshRegion(id: refreshID, center: fix.coordinate, radiusMeters: max(0, r)),
            guarantee: guarantee, nextUnmonitoredEdgeMeters: next, trustedFix: trusted)
    }
}

/// Seeded catalogs and walks for planner tests.
public enum PlannerFixtures {
    /// `count` places uniform in a square of `sideMeters` around `center`, radii from `radii`,
    /// ids `p0000…` shuffled so input order differs from id order; `footprintShare` of them are
    /// footprints instead (`footprint(around:radiusMeters:using:)`).
    public static func catalog(
        count: Int, sideMeters: Double, center: Coordinate = Coordinate(validLatitude: 45.8, longitude: 15.97),
        radii: ClosedRange<Double> = 100...100, footprintShare: Double = 0, seed: UInt64
    ) -> PlaceCatalog {
        var rng = SplitMix64(seed: seed)
        var places = (0..<count).map { i in
            let id = "p" + String(repeating: "0", count: max(0, 4 - String(i).count)) + String(i)
            let coordinate = SyntheticCoordinates.uniformInSquare(around: center, sideMeters: sideMeters, using: &rng)
            let radius =
                radii.lowerBound == radii.upperBound ? radii.lowerBound : rng.nextDouble(in: radii.lowerBound..<radii.upperBound)
            if footprintShare > 0 && rng.nextUnit() < footprintShare {
                return Place(id: id, footprint: footprint(around: coordinate, radiusMeters: radius, using: &rng))
            }
            return Place(id: id, coordinate: coordinate, radiusMeters: radius)
        }
        places.shuffle(using: &rng)
        do {
            return try PlaceCatalog(places: places)
        } catch {
            preconditionFailure("fixture catalog invalid: \(error)")
        }
    }

    /// A star-shaped footprint of 4–40 vertices around `center`, each 0.2–1 × `radiusMeters` from
    /// it (some long and thin), with a square hole around the center half the time when it has 8
    /// vertices or more.
    public static func footprint(
        around center: Coordinate, radiusMeters: Double, using rng: inout SplitMix64
    ) -> SphericalMultiPolygon {
        let vertices = Int(rng.next() % 37) + 4
        let stretch = rng.nextDouble(in: 0.3..<1)
        let shell = (0..<vertices).map { i -> Coordinate in
            let bearing = 360 * (Double(i) + rng.nextDouble(in: 0..<0.8)) / Double(vertices)
            let distance = radiusMeters * (i % 2 == 0 ? 1 : stretch) * rng.nextDouble(in: 0.7..<1)
            return center.destination(bearingDegrees: bearing, distanceMeters: distance)
        }
        // Every shell vertex is at least 0.21 × radius from the center and, with 8 vertices or
        // more, two consecutive ones at most 81° apart seen from it: every edge passes at least
        // 0.21 × cos 40.5° = 0.16 × radius from the center, so a hole of half-diagonal 0.1 ×
        // radius lies inside.
        let holes: [[Coordinate]] =
            vertices < 8 || rng.next() % 2 == 0
            ? [] : [[45.0, 135, 225, 315].map { center.destination(bearingDegrees: $0, distanceMeters: radiusMeters * 0.1) }]
        do {
            return SphericalMultiPolygon(try SphericalPolygon(shell: shell, holes: holes))
        } catch {
            preconditionFailure("fixture footprint invalid: \(error)")
        }
    }

    /// A random walk of `count` fixes from `start`, steps of 0 to `maxStepMeters` in a slowly
    /// turning direction, with a fraction of inaccurate fixes when `inaccurateShare` > 0.
    public static func walk(
        count: Int, from start: Coordinate, maxStepMeters: Double, inaccurateShare: Double = 0, seed: UInt64
    ) -> [Fix] {
        var rng = SplitMix64(seed: seed)
        var position = start
        var bearing = rng.nextDouble(in: 0..<360)
        return (0..<count).map { _ in
            bearing += rng.nextDouble(in: -30..<30)
            position = position.destination(bearingDegrees: bearing, distanceMeters: rng.nextDouble(in: 0..<maxStepMeters))
            let accuracy: Double? = rng.nextUnit() < inaccurateShare ? rng.nextDouble(in: 150..<600) : rng.nextDouble(in: 3..<30)
            return Fix(position, accuracyMeters: accuracy)
        }
    }
}
