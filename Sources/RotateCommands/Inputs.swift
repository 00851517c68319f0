import FencePlanner
import RotateFormats
import WalkSimulator

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Loading places and walks for commands: every rejected row reported on stderr as
/// `FILE:LINE: reason`, then a count line; `--strict` makes the first bad row fatal and
/// `--rejects FILE` writes the rejected rows as CSV.
enum Inputs {
    static let placeOptions: [OptionSpec] = [
        OptionSpec(
            "--places", value: "FILE",
            help:
                "Places: CSV (id, lat, lon, optional radius_m and name) or GeoJSON (Point with radius_m, Polygon, MultiPolygon), told by the extension .geojson/.json or the first character.",
            required: true),
        OptionSpec("--radius", value: "M", help: "Fence radius for rows and Points without one, meters.", default: "100"),
        OptionSpec("--strict", help: "Fail on the first bad row or feature instead of skipping it."),
        OptionSpec("--rejects", value: "FILE", help: "Write rejected rows (or features) with their reasons as CSV."),
    ]

    /// How to read a places file: `--places`, `--radius`, `--strict`, `--rejects`.
    struct PlaceOptions: Equatable, Sendable {
        var path: String
        var defaultRadiusMeters: Double
        var strict: Bool
        var rejectsPath: String?

        /// The options, or nil without `--places`.
        init?(_ arguments: Arguments) throws(CommandError) {
            guard let path = arguments.string("--places") else { return nil }
            self.path = path
            defaultRadiusMeters = try arguments.double("--radius", in: 0.001...400_000)
            strict = arguments.flag("--strict")
            rejectsPath = arguments.string("--rejects")
        }
    }

    struct LoadedPlaces {
        var path: String
        /// The accepted places in file order (ids in NFC, radii as read).
        var places: [Place]
        /// Rows (CSV) or features (GeoJSON) read, and how many were rejected.
        var read: Int, rejected: Int
        /// "rows" or "features".
        var unit: String
        var catalog: PlaceCatalog
        var defaultRadiusMeters: Double
    }

    /// `PlaceOptions` for a command that requires `--places`.
    static func requiredPlaces(_ arguments: Arguments) throws(CommandError) -> PlaceOptions {
        guard let options = try PlaceOptions(arguments) else { throw .usage("missing --places") }
        return options
    }

    /// Ids that would collide with refresh-region identifiers are rejected rows too.
    static let refreshPrefix = "refresh-"

    static func places(_ options: PlaceOptions, console: Console) throws(CommandError) -> LoadedPlaces {
        let path = options.path, radius = options.defaultRadiusMeters
        // GeoJSON by its extension or its first character; standard input is read whole first.
        let lowercased = path.lowercased()
        var stdin: [UInt8]?
        let isGeoJSON: Bool
        var startFailure: GeoJSONPlaces.ReadError?
        do throws(FileReadError) {
            if path == "-" { stdin = try FileBytes.contents(of: path) }
            // The extension decides without a read; else the first bytes (standard input's all).
            if lowercased.hasSuffix(".geojson") || lowercased.hasSuffix(".json") {
                isGeoJSON = true
                // A file that cannot be a GeoJSON object is refused from its first bytes, not
                // read whole first.
                if stdin == nil { startFailure = GeoJSONPlaces.failure(atStart: try FileBytes.head(of: path)) }
            } else if let stdin {
                isGeoJSON = GeoJSONPlaces.looksLikeGeoJSON(stdin)
            } else {
                isGeoJSON = GeoJSONPlaces.looksLikeGeoJSON(try FileBytes.head(of: path))
            }
            if isGeoJSON && stdin == nil && startFailure == nil { stdin = try FileBytes.contents(of: path) }
        } catch {
            throw .failure(error.description)
        }
        if let startFailure { throw .failure("\(path): \(startFailure)") }
        if isGeoJSON, let bytes = stdin { return try geoJSONPlaces(options, bytes: bytes, console: console) }
        let prefix = refreshPrefix
        var result: PlacesCSV.Result
        do throws(PlacesCSVError) {
            let csvOptions = PlacesCSV.Options(defaultRadiusMeters: radius, strict: options.strict, reservedIDPrefix: prefix)
            if let stdin {
                result = try PlacesCSV.read(bytes: stdin, options: csvOptions)
            } else {
                result = try PlacesCSV.read(path: path, options: csvOptions)
            }
        } catch {
            if case .noValidRows(let header, let rejected) = error.reason {
                // Every row was bad: each is still reported (and written to --rejects) before the failure.
                try report(
                    rejected, rowsRead: rejected.count, accepted: 0, header: header, path: path, rejectsPath: options.rejectsPath,
                    console: console)
                throw .failure("\(path): no valid rows")
            }
            throw .failure(error.line > 0 ? "\(path):\(error.line): \(error.reason)" : "\(path): \(error.reason)")
        }
        result.rejected.sort { $0.line < $1.line }
        try report(
            result.rejected, rowsRead: result.rowsRead, accepted: result.places.count, header: result.header, path: path,
            rejectsPath: options.rejectsPath, console: console)
        let catalog: PlaceCatalog
        do {
            catalog = try PlaceCatalog(places: result.places, refreshIdentifierPrefix: prefix)
        } catch {
            throw .failure("\(path): \(error)")
        }
        let lineOf = Dictionary(zip(result.places.map(\.id), result.lines), uniquingKeysWith: { a, _ in a })
        for clamp in catalog.clamps {
            console.err("\(path):\(lineOf[clamp.id] ?? 0): radius \(clamp.requestedMeters) m clamped to \(clamp.clampedMeters) m")
        }
        return LoadedPlaces(
            path: path, places: result.places, read: result.rowsRead, rejected: result.rejected.count, unit: "rows", catalog: catalog,
            defaultRadiusMeters: radius)
    }

    /// Places from GeoJSON: each rejected feature reported as `FILE: feature N: reason`, then the
    /// count line; `--rejects` writes `feature,reason` rows.
    static func geoJSONPlaces(_ options: PlaceOptions, bytes: [UInt8], console: Console) throws(CommandError) -> LoadedPlaces {
        let path = options.path
        let result: GeoJSONPlaces.Result
        do {
            result = try GeoJSONPlaces.read(
                bytes: bytes,
                options: .init(defaultRadiusMeters: options.defaultRadiusMeters, strict: options.strict, reservedIDPrefix: refreshPrefix))
        } catch {
            throw .failure("\(path): \(error)")
        }
        let rejected = result.rejected
        let places = result.features.map(\.place)
        let indices = result.features.map(\.index)
        for feature in rejected { console.err("\(path): feature \(feature.index): \(feature.reason)") }
        let read = places.count + rejected.count
        console.err("\(path): \(read) features read, \(places.count) accepted, \(rejected.count) rejected")
        if let rejectsPath = options.rejectsPath {
            try TextOutput.write(RejectsFile.lines(features: rejected), to: rejectsPath)
        }
        guard !places.isEmpty else { throw .failure("\(path): no valid features") }
        let catalog: PlaceCatalog
        do {
            catalog = try PlaceCatalog(places: places, refreshIdentifierPrefix: refreshPrefix)
        } catch {
            throw .failure("\(path): \(error)")
        }
        let indexOf = Dictionary(zip(places.map(\.id), indices), uniquingKeysWith: { a, _ in a })
        for clamp in catalog.clamps {
            console.err(
                "\(path): feature \(indexOf[clamp.id] ?? 0): radius \(clamp.requestedMeters) m clamped to \(clamp.clampedMeters) m")
        }
        return LoadedPlaces(
            path: path, places: places, read: read, rejected: rejected.count, unit: "features", catalog: catalog,
            defaultRadiusMeters: options.defaultRadiusMeters)
    }

    /// Each rejected row as `FILE:LINE: reason`, the count line, and the `--rejects` file.
    private static func report(
        _ rejected: [RejectedRow], rowsRead: Int, accepted: Int, header: [String], path: String, rejectsPath: String?,
        console: Console
    ) throws(CommandError) {
        for row in rejected { console.err("\(path):\(row.line): \(row.reason)") }
        console.err("\(path): \(rowsRead) rows read, \(accepted) accepted, \(rejected.count) rejected")
        if let rejectsPath {
            try TextOutput.write(RejectsFile.lines(header: header, rejected: rejected), to: rejectsPath)
        }
    }

    static func walk(_ path: String, strict: Bool, console: Console) throws(CommandError) -> WalkFile {
        let walk: WalkFile
        do {
            walk = try WalkFile.read(path: path, strict: strict)
        } catch {
            if case .noValidPoints(let rejected) = error.reason {
                // Every point was bad: each is still reported before the failure.
                for row in rejected { console.err("\(path):\(row.line): \(row.reason)") }
                console.err("\(path): \(rejected.count) points read, 0 accepted, \(rejected.count) rejected")
            }
            throw .failure(error.line > 0 ? "\(path):\(error.line): \(error.reason)" : "\(path): \(error.reason)")
        }
        for row in walk.rejected { console.err("\(path):\(row.line): \(row.reason)") }
        console.err("\(path): \(walk.rowsRead) points read, \(walk.fixes.count) accepted, \(walk.rejected.count) rejected")
        return walk
    }

    /// The labelled stops of a recorded walk, each at a place of `catalog`, on the walk's clock
    /// (`StopLabelsCSV.read(path:walk:strict:)`): every rejected row (unreadable, or naming no
    /// place of the catalog) reported with its line, then the counts.
    static func stops(
        _ path: String, walk: WalkFile?, catalog: PlaceCatalog, strict: Bool, console: Console
    ) throws(CommandError) -> [TrueStop] {
        let file: StopLabelsCSV.File
        do {
            file = try StopLabelsCSV.read(path: path, walk: walk, strict: strict)
        } catch {
            throw .failure(error.line > 0 ? "\(path):\(error.line): \(error.reason)" : "\(path): \(error.reason)")
        }
        let known = Set(catalog.places.map(\.id))
        var rejected = file.rejected.map { (line: $0.line, reason: $0.reason) }
        var stops: [TrueStop] = []
        for label in file.stops {
            guard known.contains(label.placeID) else {
                if strict { throw .failure("\(path):\(label.line): no place '\(label.placeID)' in the places") }
                rejected.append((label.line, "no place '\(label.placeID)' in the places"))
                continue
            }
            stops.append(TrueStop(placeID: label.placeID, arrivalSeconds: label.arrivalSeconds, departureSeconds: label.departureSeconds))
        }
        for row in rejected.sorted(by: { $0.line < $1.line }) { console.err("\(path):\(row.line): \(row.reason)") }
        console.err("\(path): \(file.stops.count + file.rejected.count) stops read, \(stops.count) accepted, \(rejected.count) rejected")
        return stops
    }

    /// Planner options shared by `plan`, `select` and `serve`.
    static let plannerOptions: [OptionSpec] = [
        OptionSpec("--limit", value: "N", help: "Regions the platform allows (iOS 20, Android 100).", default: "20"),
        OptionSpec("--headroom", value: "N", help: "Slots left to the host app.", default: "2"),
        OptionSpec("--min-refresh", value: "M", help: "Smallest refresh radius the platform monitors reliably.", default: "100"),
        OptionSpec("--stickiness", value: "M", help: "Incumbent advantage, meters.", default: "0"),
        OptionSpec("--max-accuracy", value: "M", help: "Fixes less accurate than this are not trusted to shrink the set.", default: "100"),
    ]

    /// The planner options, validated, with a margin of 0 (the command sets its margin).
    static func configuration(_ arguments: Arguments) throws(CommandError) -> RotationConfiguration {
        var config = RotationConfiguration()
        config.limit = try arguments.int("--limit", in: 1...100_000)
        config.headroom = try arguments.int("--headroom", in: 0...100_000)
        config.minRefreshRadiusMeters = try arguments.double("--min-refresh", in: 0...400_000)
        config.stickinessMeters = try arguments.double("--stickiness", in: 0...1_000_000)
        config.maxTrustedAccuracyMeters = try arguments.double("--max-accuracy", in: 0...1_000_000)
        return try validated(config)
    }

    /// `configuration` with `marginMeters`, validated.
    static func configuration(_ configuration: RotationConfiguration, marginMeters: Double) throws(CommandError) -> RotationConfiguration {
        var config = configuration
        config.marginMeters = marginMeters
        return try validated(config)
    }

    /// `configuration` if it is valid; a usage error naming the rule it breaks if not.
    static func validated(_ configuration: RotationConfiguration) throws(CommandError) -> RotationConfiguration {
        do {
            return try configuration.validated()
        } catch {
            throw .usage("\(error)")
        }
    }
}
