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

    public static func run(_ arguments: Arguments, console: Console) throws(CommandError) {
        let configuration = try Inputs.configuration(arguments, marginMeters: 0)
        guard let loaded = try Inputs.places(arguments, console: console) else { return }
        let places = loaded.catalog.places
        var lines = [
            "rotate validate: \(loaded.path)",
            "rows           \(loaded.result.rowsRead) read, \(places.count) accepted, \(loaded.result.rejected.count) rejected",
        ]
        let lats = places.map(\.coordinate.latitude), lons = places.map(\.coordinate.longitude)
        lines.append("extent         lat \(lats.min()!) ... \(lats.max()!), lon \(lons.min()!) ... \(lons.max()!)")
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
        var buffer = NeighborBuffer()
        var densest = 0, densestPlace = 0
        let showProgress = !arguments.flag("--quiet") && console.errIsTerminal
        let step = max(1, places.count / 10)
        for (i, vector) in loaded.catalog.vectors.enumerated() {
            let nearby = loaded.catalog.index.count(within: 1_000, of: vector, measuredTo: .center, using: &buffer)
            if nearby > densest { densest = nearby; densestPlace = i }
            if showProgress && places.count >= 100_000 && (i + 1) % step == 0 {
                console.err("rotate validate: density \(i + 1)/\(places.count) places")
            }
        }
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
