import FencePlanner
import RotateFormats

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
        OptionSpec("--places", value: "FILE", help: "Places CSV (id, lat, lon, optional radius_m and name)."),
        OptionSpec("--radius", value: "M", help: "Fence radius for rows without one, meters.", default: "100"),
        OptionSpec("--strict", help: "Fail on the first bad row instead of skipping it."),
        OptionSpec("--rejects", value: "FILE", help: "Write rejected rows with their reasons as CSV."),
    ]

    struct LoadedPlaces {
        var path: String
        var result: PlacesCSV.Result
        var catalog: PlaceCatalog
        var defaultRadiusMeters: Double
    }

    static func places(_ arguments: Arguments, console: Console, required: Bool = true) throws(CommandError) -> LoadedPlaces? {
        guard let path = arguments.string("--places") else {
            if required { throw .usage("--places FILE is required") }
            return nil
        }
        let radius = try arguments.double("--radius", default: 100, in: 0.001...400_000)
        let strict = arguments.flag("--strict")
        // Ids that would collide with refresh-region identifiers are rejected rows too.
        let prefix = "refresh-"
        var result: PlacesCSV.Result
        do {
            result = try PlacesCSV.read(path: path, options: .init(defaultRadiusMeters: radius, strict: strict, reservedIDPrefix: prefix))
        } catch {
            if case .noValidRows(let header, let rejected) = error.reason {
                // Every row was bad: each is still reported (and written to --rejects) before the failure.
                try report(
                    rejected, rowsRead: rejected.count, accepted: 0, header: header, path: path, arguments: arguments, console: console)
                throw .failure("\(path): no valid rows")
            }
            throw .failure(error.line > 0 ? "\(path):\(error.line): \(error.reason)" : "\(path): \(error.reason)")
        }
        result.rejected.sort { $0.line < $1.line }
        try report(
            result.rejected, rowsRead: result.rowsRead, accepted: result.places.count, header: result.header, path: path,
            arguments: arguments, console: console)
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
        return LoadedPlaces(path: path, result: result, catalog: catalog, defaultRadiusMeters: radius)
    }

    /// Each rejected row as `FILE:LINE: reason`, the count line, and the `--rejects` file.
    private static func report(
        _ rejected: [RejectedRow], rowsRead: Int, accepted: Int, header: [String], path: String,
        arguments: Arguments, console: Console
    ) throws(CommandError) {
        for row in rejected { console.err("\(path):\(row.line): \(row.reason)") }
        console.err("\(path): \(rowsRead) rows read, \(accepted) accepted, \(rejected.count) rejected")
        if let rejectsPath = arguments.string("--rejects") {
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

    /// Planner options shared by `plan`, `select` and `simulate`.
    static let plannerOptions: [OptionSpec] = [
        OptionSpec("--limit", value: "N", help: "Regions the platform allows (iOS 20, Android 100).", default: "20"),
        OptionSpec("--headroom", value: "N", help: "Slots left to the host app.", default: "2"),
        OptionSpec("--min-refresh", value: "M", help: "Smallest refresh radius the platform monitors reliably.", default: "100"),
        OptionSpec("--stickiness", value: "M", help: "Incumbent advantage, meters.", default: "0"),
        OptionSpec("--max-accuracy", value: "M", help: "Fixes less accurate than this are not trusted to shrink the set.", default: "100"),
    ]

    static func configuration(_ arguments: Arguments, marginMeters: Double) throws(CommandError) -> RotationConfiguration {
        var config = RotationConfiguration()
        config.limit = try arguments.int("--limit", default: 20, in: 1...100_000)
        config.headroom = try arguments.int("--headroom", default: 2, in: 0...100_000)
        config.minRefreshRadiusMeters = try arguments.double("--min-refresh", default: 100, in: 0...400_000)
        config.stickinessMeters = try arguments.double("--stickiness", default: 0, in: 0...1_000_000)
        config.maxTrustedAccuracyMeters = try arguments.double("--max-accuracy", default: 100, in: 0...1_000_000)
        config.marginMeters = marginMeters
        do {
            return try config.validated()
        } catch {
            throw .usage("\(error)")
        }
    }
}
