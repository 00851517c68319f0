import FencePlanner
import Geodesy
import RotateFormats
import SpatialIndex

/// `rotate validate`: check a places file and describe it.
public enum ValidateCommand: Subcommand {
    public static let name = "validate"
    public static let abstract = "Check a places CSV: rejected rows, extent, radii, duplicates and density."
    public static let discussion = """
        Reports every rejected row as FILE:LINE: reason (stderr), then on stdout: rows read, accepted
        and rejected; the bounding box; the radius distribution (after clamping into 1 m...400 km);
        places sharing coordinates; and density, the most places whose centers lie within 1 km of
        one place. When that exceeds the place slots, selections there will often be degraded or
        saturated, and the command warns. Exit 1 when rows were rejected with --strict, or when no
        row is valid.
        """
    public static let options: [OptionSpec] =
        Inputs.placeOptions + [
            OptionSpec("--limit", value: "N", help: "Regions the platform allows.", default: "20"),
            OptionSpec("--headroom", value: "N", help: "Slots left to the host app.", default: "2"),
            OptionSpec("--quiet", help: "No progress on stderr (shown for 100,000 places or more, only when stderr is a terminal)."),
        ]

    public struct Options: Equatable, Sendable {
        var places: Inputs.PlaceOptions
        /// The planner's limit and headroom; what it leaves for places is the density warning's bound.
        var configuration: RotationConfiguration
        var quiet: Bool
    }

    public static func parse(_ arguments: Arguments) throws(CommandError) -> Options {
        var configuration = RotationConfiguration()
        configuration.limit = try arguments.int("--limit", in: 1...100_000)
        configuration.headroom = try arguments.int("--headroom", in: 0...100_000)
        return Options(
            places: try Inputs.requiredPlaces(arguments), configuration: try Inputs.validated(configuration),
            quiet: arguments.flag("--quiet"))
    }

    public static func run(_ options: Options, console: Console) throws(CommandError) {
        let configuration = options.configuration
        let loaded = try Inputs.places(options.places, console: console)
        let places = loaded.catalog.places
        var lines = [
            "rotate validate: \(loaded.path)",
            "\(loaded.unit.padding(toLength: 15, withPad: " ", startingAt: 0))\(loaded.read) read, \(places.count) accepted, \(loaded.rejected) rejected",
        ]
        let lats = places.map(\.coordinate.latitude), lons = places.map(\.coordinate.longitude)
        if let south = lats.min(), let north = lats.max(), let west = lons.min(), let east = lons.max() {
            lines.append("extent         lat \(south) ... \(north), lon \(west) ... \(east)")
        }
        let radii = places.map(\.radiusMeters).sorted()
        func quantile(_ q: Double) -> Double { radii[min(radii.count - 1, Int(q * Double(radii.count - 1)))] }
        lines.append(
            "radius m       min \(CSVWriter.decimal(radii[0], decimals: 1)), 10% \(CSVWriter.decimal(quantile(0.1), decimals: 1)), "
                + "median \(CSVWriter.decimal(quantile(0.5), decimals: 1)), 90% \(CSVWriter.decimal(quantile(0.9), decimals: 1)), "
                + "max \(CSVWriter.decimal(radii[radii.count - 1], decimals: 1)); \(loaded.catalog.clamps.count) clamped")
        var byCoordinate: [Coordinate: Int] = [:]
        for place in places { byCoordinate[place.coordinate, default: 0] += 1 }
        let shared = byCoordinate.values.filter { $0 > 1 }
        lines.append("duplicates     \(shared.count) coordinates shared by \(shared.reduce(0, +)) places")
        let showProgress = !options.quiet && console.errIsTerminal && places.count >= 100_000
        let density = Density(vectors: loaded.catalog.vectors, index: loaded.catalog.index, withinMeters: 1_000) { done in
            if showProgress { console.err("rotate validate: density \(done)/\(places.count) places") }
        }
        let densest = density.places, densestPlace = density.position
        lines.append(
            "density        at most \(densest) places within 1 km of one place (around \(places[densestPlace].id) at \(places[densestPlace].coordinate))"
        )
        if densest > configuration.placeSlots {
            lines.append(
                "warning        \(densest) places within 1 km exceed the \(configuration.placeSlots) place slots: "
                    + "selections there will often be degraded or saturated (see rotate presets)")
        }
        lines.forEach(console.out)
    }
}

extension ValidateCommand {
    /// The densest place of a catalog: for each place, how many places (itself included) have
    /// their centers within a reach of its center, as `KDTree.count(within:)` counts them; the
    /// largest count and the first place, in catalog order, with it.
    ///
    /// Places at one position have one count, so each distinct position is queried once. When
    /// no position holds more than `crowd` places, over the catalog's index (which counts every
    /// place at a position); else over an index of the distinct positions, each weighted by how
    /// many places share it, so that a crowd at one point is one point to every query.
    ///
    /// - Complexity: O(n) to group the places, then one query per distinct position: O(log d + k)
    ///   over d distinct positions, k of them within reach. n places at one point cost O(n),
    ///   where a query per place over all n costs O(n²).
    struct Density {
        /// The largest count.
        var places = 0
        /// The first place (catalog position) with it.
        var position = 0
        /// Index queries made: one per distinct position.
        var queries = 0

        /// Positions holding more places than this are searched as one weighted point.
        static let crowd = 8

        /// - Parameters:
        ///   - vectors: the places' unit vectors, in catalog order (at least one).
        ///   - index: an index over `vectors`, in the same order.
        ///   - progress: called with the places done, after each tenth of them.
        init(vectors: [UnitVector], index: KDTree, withinMeters meters: Double, progress: (Int) -> Void = { _ in }) {
            let groups = Groups(vectors)
            let weighted = groups.sizes.contains { $0 > Self.crowd }
            let searched = weighted ? KDTree(vectors: groups.distinct) : index
            var counts = [Int](repeating: -1, count: groups.distinct.count)
            var buffer = NeighborBuffer()
            let step = max(1, vectors.count / 10)
            for i in vectors.indices {
                let group = groups.of[i]
                if counts[group] < 0 {
                    let vector = groups.distinct[group]
                    counts[group] =
                        weighted
                        ? searched.count(within: meters, of: vector, weights: groups.sizes, using: &buffer)
                        : searched.count(within: meters, of: vector, using: &buffer)
                    queries += 1
                }
                if counts[group] > places {
                    places = counts[group]
                    position = i
                }
                if (i + 1) % step == 0 { progress(i + 1) }
            }
        }
    }

    /// Places grouped by equal unit vectors, in order of first appearance: an open-addressing
    /// table over the vectors' bits (a `Dictionary` keyed by `UnitVector`, hashed through
    /// `Hasher`, made `validate` measurably slower on 170,000 places).
    struct Groups {
        /// Each group's vector.
        var distinct: [UnitVector] = []
        /// Each group's number of places.
        var sizes: [Int] = []
        /// Each place's group.
        var of: [Int]

        init(_ vectors: [UnitVector]) {
            of = [Int](repeating: 0, count: vectors.count)
            var size = 16
            while size < 2 * vectors.count { size <<= 1 }
            let mask = size - 1
            // Per slot: a group plus one, 0 when empty.
            var slots = [Int32](repeating: 0, count: size)
            for (i, vector) in vectors.enumerated() {
                var hash = vector.x.bitPattern &* 0x9E37_79B9_7F4A_7C15
                hash = (hash ^ vector.y.bitPattern) &* 0xBF58_476D_1CE4_E5B9
                hash = (hash ^ vector.z.bitPattern) &* 0x94D0_49BB_1331_11EB
                var slot = Int(truncatingIfNeeded: hash ^ (hash >> 31)) & mask
                while true {
                    let entry = Int(slots[slot])
                    if entry == 0 {
                        slots[slot] = Int32(distinct.count + 1)
                        of[i] = distinct.count
                        distinct.append(vector)
                        sizes.append(1)
                        break
                    }
                    // Bit for bit: +0 and -0 are two groups, which is harmless (one query more).
                    let other = distinct[entry - 1]
                    if other.x.bitPattern == vector.x.bitPattern && other.y.bitPattern == vector.y.bitPattern
                        && other.z.bitPattern == vector.z.bitPattern
                    {
                        of[i] = entry - 1
                        sizes[entry - 1] += 1
                        break
                    }
                    slot = (slot + 1) & mask
                }
            }
        }
    }
}
