import FencePlanner
import Foundation
import RotateFormats
import WalkSimulator

extension SimulateCommand {
    /// `--trips-out DIR`: the generated errand trips as an outside stay detector reads them
    /// (docs/formats.md, "Errand trips for outside tools"): `places.csv` (the places CSV, each
    /// place's id as its name), and for trip N (from 0, three digits at least) `trip-N.csv` (the
    /// phone's fixes, a walk CSV with accuracy), `trip-N-stops.csv` (the true stops, stop labels,
    /// the short ones too) and `trip-N-visits.csv` (rotate's visits on the platform, replayed as
    /// the run scored it: `time,departure,place_id`, an empty departure when none was reported,
    /// an empty place when the visit names none).
    static func writeTrips(to directory: String, simulation: Simulation, platform: Simulation.PlatformRun) throws(CommandError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .failure("\(directory): cannot create the directory: \(error.localizedDescription)")
        }
        func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }
        func seconds(_ value: Double) -> String { CSVWriter.decimal(value, decimals: 3) }
        try TextOutput.write(
            ["id,name,lat,lon,radius_m"]
                + simulation.catalog.places.map { place in
                    CSVWriter.row([
                        place.id, place.id, CSVWriter.decimal(place.coordinate.latitude), CSVWriter.decimal(place.coordinate.longitude),
                        CSVWriter.decimal(place.radiusMeters, decimals: 3),
                    ])
                }, to: path("places.csv"))
        for index in 0..<simulation.scenario.walks {
            let (trip, timeline): (Trip, ReplayTimeline)
            do {
                (trip, timeline) = try simulation.timeline(ofTrip: index, on: platform, strategy: .rotate)
            } catch {
                throw .failure("trip \(index): \(error)")
            }
            let name = String(format: "trip-%03d", index)
            try TextOutput.write(
                ["t,lat,lon,accuracy_m"]
                    + trip.walk.samples.compactMap { sample in
                        sample.fix.map { fix in
                            CSVWriter.row([
                                seconds(sample.timeSeconds), CSVWriter.decimal(fix.coordinate.latitude),
                                CSVWriter.decimal(fix.coordinate.longitude),
                                fix.accuracyMeters.map { CSVWriter.decimal($0, decimals: 1) } ?? "",
                            ])
                        }
                    }, to: path(name + ".csv"))
            try TextOutput.write(
                ["id,arrival,departure"]
                    + trip.stops.map { CSVWriter.row([$0.placeID, seconds($0.arrivalSeconds), seconds($0.departureSeconds)]) },
                to: path(name + "-stops.csv"))
            try TextOutput.write(
                ["time,departure,place_id"]
                    + timeline.visits.map {
                        CSVWriter.row([seconds($0.timeSeconds), $0.departureSeconds.map(seconds) ?? "", $0.placeID ?? ""])
                    }, to: path(name + "-visits.csv"))
        }
    }
}
