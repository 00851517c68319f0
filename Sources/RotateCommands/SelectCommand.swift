import FencePlanner
import Geodesy
import RotateFormats

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
import RotateJSON
#endif

/// `rotate select`: one selection at a position, or one per row of a positions CSV.
public enum SelectCommand: Subcommand {
    public static let name = "select"
    public static let abstract = "Print the selection at a position, or at every row of a positions CSV (batch planning)."
    public static let discussion = """
        With --at LAT,LON: the monitored places nearest by fence edge with their edge distances
        (negative inside), the refresh circle and the guarantee (--format text or json).
        With --positions FILE (a CSV with lat and lon columns, optional id and accuracy_m): one output
        CSV row per input row, streamed as the file is read:
          line,id,lat,lon,status,guarantee,refresh_radius_m,next_unmonitored_edge_m,monitored,reason
        where monitored lists the place ids separated by ';' and a bad input row gets status
        'rejected' with its reason (and is reported on stderr as FILE:LINE: reason).
        """
    public static let options: [OptionSpec] =
        Inputs.placeOptions + [
            OptionSpec("--at", value: "LAT,LON", help: "One position."),
            OptionSpec("--accuracy", value: "M", help: "Reported accuracy of the --at position, meters."),
            OptionSpec("--positions", value: "FILE", help: "A CSV of positions (lat, lon, optional id, accuracy_m)."),
            OptionSpec("--margin", value: "M", help: "Margin past the refresh edge, meters.", default: "0"),
        ] + Inputs.plannerOptions + [
            OptionSpec("--format", value: "text|json", help: "Output of --at.", default: "text"),
            OptionSpec("--out", value: "FILE", help: "Write to FILE instead of stdout."),
        ]

    static let positionAliases: [String: [String]] = [
        "id": ["id", "device", "user", "identifier"],
        "lat": CSVFile.latitudeAliases,
        "lon": CSVFile.longitudeAliases,
        "accuracy_m": CSVFile.accuracyAliases,
    ]

    public struct Options: Equatable, Sendable {
        /// Where to select: one position, or each row of a positions CSV.
        enum Query: Equatable, Sendable {
            case at(Coordinate, accuracyMeters: Double?)
            case positions(String)
        }
        var places: Inputs.PlaceOptions
        var query: Query
        var configuration: RotationConfiguration
        var format: String
        var out: String?
    }

    public static let usage = "rotate select --places <file> (--at <lat,lon> | --positions <file>) [options]"

    public static func parse(_ arguments: Arguments) throws(CommandError) -> Options {
        let query: Options.Query
        switch (arguments.string("--at"), arguments.string("--positions")) {
        case (let at?, nil):
            let accuracy = try arguments.doubleIfGiven("--accuracy", in: 0...1_000_000)
            query = .at(try GenerateCommand.coordinate(at, option: "--at"), accuracyMeters: accuracy)
        case (nil, let path?):
            query = .positions(path)
        default:
            throw .usage("give exactly one of --at LAT,LON and --positions FILE")
        }
        let format = try arguments.choice("--format", from: ["text", "json"])
        let margin = try arguments.double("--margin", in: 0...1_000_000)
        let configuration = try Inputs.configuration(Inputs.configuration(arguments), marginMeters: margin)
        return Options(
            places: try Inputs.requiredPlaces(arguments), query: query, configuration: configuration, format: format,
            out: arguments.string("--out"))
    }

    public static func run(_ options: Options, console: Console) throws(CommandError) {
        let places = try Inputs.places(options.places, console: console)
        var planner: RotationPlanner
        do {
            planner = try RotationPlanner(catalog: places.catalog, configuration: options.configuration)
        } catch {
            throw .usage("\(error)")
        }
        switch options.query {
        case .at(let coordinate, let accuracy):
            let selection = planner.select(
                at: Fix(coordinate, accuracyMeters: accuracy), refreshID: places.catalog.refreshIdentifierPrefix + "0")
            let lines =
                options.format == "json"
                ? [json(selection)] : text(selection, places: places.catalog, configuration: options.configuration)
            try TextOutput.emit(lines, out: options.out, console: console)
        case .positions(let path):
            try batch(path, planner: &planner, out: options.out, console: console)
        }
    }

    static func text(_ selection: Selection, places: PlaceCatalog, configuration: RotationConfiguration) -> [String] {
        var lines = [
            "rotate select: \(TextFormat.grouped(places.count)) places, at \(selection.fix.coordinate), limit \(configuration.limit), "
                + "headroom \(configuration.headroom) (\(configuration.placeSlots) place slots), margin \(TextFormat.fixed(configuration.marginMeters, decimals: 1)) m"
        ]
        lines.append("  #  id                     edge m      radius m  name")
        for (rank, place) in selection.monitored.enumerated() {
            func pad(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(1, n - s.count)) }
            let name = places.places[place.position].name ?? ""
            lines.append(
                pad(
                    String(rank + 1).count < 3
                        ? String(repeating: " ", count: 3 - String(rank + 1).count) + String(rank + 1) : String(rank + 1), 5)
                    + pad(place.fence.id, 23) + pad(TextFormat.fixed(place.edgeDistanceMeters, decimals: 1), 12)
                    + pad(TextFormat.fixed(place.fence.radiusMeters, decimals: 0), 10) + name + (place.containsFix ? " (inside)" : ""))
        }
        if let refresh = selection.refresh {
            lines.append(
                "refresh    \(refresh.id) centered on the fix, radius \(TextFormat.fixed(refresh.radiusMeters, decimals: 1)) m "
                    + "(next unmonitored fence edge \(TextFormat.fixed(selection.nextUnmonitoredEdgeMeters ?? 0, decimals: 1)) m)")
        } else {
            lines.append("refresh    none: the whole catalog fits in the place slots")
        }
        switch selection.guarantee {
        case .exact: lines.append("guarantee  exact")
        case .degraded(let distance):
            lines.append(
                "guarantee  degraded: watch location updates and reselect after moving \(TextFormat.fixed(distance, decimals: 1)) m")
        case .saturated(let overlapping):
            lines.append(
                "guarantee  saturated: \(overlapping) fences within the margin for \(configuration.placeSlots) slots; watch location updates"
            )
        }
        if !selection.trustedFix { lines.append("note       the fix's accuracy is not trusted: fences it may be inside were kept") }
        return lines
    }

    static func json(_ selection: Selection) -> String {
        var object = JSONObject()
        object.add("lat", selection.fix.coordinate.latitude, decimals: 7)
        object.add("lon", selection.fix.coordinate.longitude, decimals: 7)
        let monitored = selection.monitored.map { place -> String in
            var o = JSONObject()
            o.add("id", place.fence.id)
            o.add("edge_m", place.edgeDistanceMeters, decimals: 3)
            o.add("radius_m", place.fence.radiusMeters, decimals: 3)
            o.add("inside", place.containsFix)
            return o.text
        }
        var text = String(object.text.dropLast()) + ",\"monitored\":[" + monitored.joined(separator: ",") + "],\"refresh\":"
        if let refresh = selection.refresh {
            var o = JSONObject()
            o.add("id", refresh.id)
            o.add("lat", refresh.center.latitude, decimals: 7)
            o.add("lon", refresh.center.longitude, decimals: 7)
            o.add("radius_m", refresh.radiusMeters, decimals: 3)
            text += o.text
        } else {
            text += "null"
        }
        var tail = JSONObject()
        tail.add("guarantee", selection.guarantee.name)
        switch selection.guarantee {
        case .exact: break
        case .degraded(let distance):
            tail.add("fallback", "distance")
            tail.add("fallback_distance_m", distance, decimals: 3)
        case .saturated(let overlapping):
            tail.add("fallback", "distance")
            tail.add("overlapping", overlapping)
        }
        tail.add("next_unmonitored_edge_m", selection.nextUnmonitoredEdgeMeters, decimals: 3)
        tail.add("trusted_fix", selection.trustedFix)
        return text + "," + String(tail.text.dropFirst())
    }

    static func batch(_ path: String, planner: inout RotationPlanner, out: String?, console: Console) throws(CommandError) {
        var file: UnsafeMutablePointer<FILE>?
        if let out {
            guard let opened = fopen(out, "w") else { throw .failure("\(out): cannot write: \(String(cString: strerror(errno)))") }
            file = opened
        }
        defer { if let file { fclose(file) } }
        func write(_ line: String) {
            if let file { fputs(line + "\n", file) } else { console.out(line) }
        }
        var columns: [String: Int]?
        var width = 0
        var accepted = 0, rejected = 0
        let prefix = planner.catalog.refreshIdentifierPrefix
        write("line,id,lat,lon,status,guarantee,refresh_radius_m,next_unmonitored_edge_m,monitored,reason")
        do {
            try CSVFile.forEachRecord(path: path) { record in
                guard let found = columns else {
                    // A header the scanner could not read has no fields: say why, not that it lacks lat and lon.
                    if let problem = record.problem { throw CommandError.failure("\(path):\(record.line): \(problem.headerDescription)") }
                    let header = CSVFile.columns(of: record.fields, aliases: positionAliases)
                    guard header["lat"] != nil, header["lon"] != nil else {
                        throw CommandError.failure("\(path):\(record.line): the header needs lat and lon columns")
                    }
                    columns = header
                    width = record.fields.count
                    return
                }
                func raw(_ name: String) -> String { found[name].flatMap { $0 < record.fields.count ? record.fields[$0] : nil } ?? "" }
                // Numbers are read trimmed; the id as the scanner gives it (a quoted one as written).
                func field(_ name: String) -> String { CSVFile.trimmed(raw(name)) }
                let id = raw("id"), latText = field("lat"), lonText = field("lon")
                func reject(_ reason: String) {
                    rejected += 1
                    console.err("\(path):\(record.line): \(reason)")
                    write(CSVWriter.row([String(record.line), id, latText, lonText, "rejected", "", "", "", "", reason]))
                }
                if let problem = record.problem { return reject(problem.description) }
                guard record.fields.count == width else {
                    return reject("wrong field count: \(record.fields.count) fields, the header has \(width)")
                }
                guard let lat = DecimalText.double(latText), let lon = DecimalText.double(lonText) else {
                    return reject("lat and lon must be numbers")
                }
                guard let coordinate = try? Coordinate(latitude: lat, longitude: lon) else {
                    return reject("coordinate out of range or not finite")
                }
                var accuracy: Double?
                if !field("accuracy_m").isEmpty {
                    guard let value = DecimalText.double(field("accuracy_m")), value.isFinite, value >= 0 else {
                        return reject("accuracy_m must be a number >= 0")
                    }
                    accuracy = value
                }
                accepted += 1
                let selection = planner.select(at: Fix(coordinate, accuracyMeters: accuracy), refreshID: prefix + "0")
                write(
                    CSVWriter.row([
                        String(record.line), id, latText, lonText, "ok", selection.guarantee.name,
                        selection.refresh.map { CSVWriter.decimal($0.radiusMeters, decimals: 3) } ?? "",
                        selection.nextUnmonitoredEdgeMeters.map { CSVWriter.decimal($0, decimals: 3) } ?? "",
                        selection.monitored.map(\.fence.id).joined(separator: ";"), "",
                    ]))
            }
        } catch let error as CommandError {
            throw error
        } catch {
            throw .failure("\(path): \(error)")
        }
        guard columns != nil else { throw .failure("\(path): the file is empty") }
        console.err("\(path): \(accepted + rejected) rows read, \(accepted) accepted, \(rejected) rejected")
    }
}
