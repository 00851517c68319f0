import Foundation
import RotateKit
import RotateTestSupport
import Testing

/// The library example of README.md ("The library in a page"), compiled and run here: the test
/// fails when the README's block and the lines between the markers below differ, or when the
/// example stops doing what it says.
@Suite struct ReadmeExampleTests {
    /// What the example's host calls did: the platform's regions after each call, state requests,
    /// location-update requests.
    final class Host {
        var regions: Set<String> = []
        var mostRegions = 0
        var stateRequests: [String] = []
        var locationRequests: [Double] = []

        func apply(_ operation: RegistrationOperation) {
            switch operation {
            case .stopRefresh(let id): regions.remove(id)
            case .stop(let fence): regions.remove(fence.id)
            case .startRefresh(let region): regions.insert(region.id)
            case .start(let fence): regions.insert(fence.id)
            }
            mostRegions = max(mostRegions, regions.count)
        }
        func askForState(_ id: String) { stateRequests.append(id) }
        func watchLocation(reselectAfterMeters meters: Double) { locationRequests.append(meters) }
    }

    func runExample(fixes: [(Double, Double)]) throws -> (host: Host, rotator: FenceRotator, resumed: FenceRotator, rejected: Int) {
        let host = Host()
        func apply(_ operation: RegistrationOperation) { host.apply(operation) }
        func askForState(_ id: String) { host.askForState(id) }
        func watchLocation(reselectAfterMeters meters: Double) { host.watchLocation(reselectAfterMeters: meters) }
        var storedRows: [String: Data] = [:]
        let placesPath = DatasetPaths.path("shops-500.csv")
        var rejected = 0
        var last: FenceRotator?
        for (lat, lon) in fixes {
            let device = "d1"
            // README: begin
            let file = try PlacesCSV.read(path: placesPath)  // once per service
            for row in file.rejected { print("\(placesPath):\(row.line): \(row.reason)") }
            let catalog = try PlaceCatalog(places: file.places)  // immutable, shared by every device
            let configuration = RotationConfiguration.preset(.iOS, maxSpeedMetersPerSecond: 1.4, fixIntervalSeconds: 5)

            // Per location report of `device`: its rotator, resumed from the stored state if any.
            var rotator: FenceRotator
            if let row = storedRows[device] {
                let state = try JSONDecoder().decode(RotatorState.self, from: row)
                rotator = try FenceRotator(catalog: catalog, configuration: configuration, state: state)
            } else {
                rotator = try FenceRotator(catalog: catalog, configuration: configuration)
            }
            let fix = Fix(try Coordinate(latitude: lat, longitude: lon), accuracyMeters: 8)
            if let update = rotator.update(with: fix) {
                for operation in update.diff.operations { apply(operation) }  // stop refresh, stops, start refresh, starts
                for id in update.diff.insideAtStart { askForState(id) }  // inside already: no entry will fire
                switch update.selection.guarantee {
                case .exact: break  // the platform's region events suffice
                case .degraded(let meters): watchLocation(reselectAfterMeters: meters)
                case .saturated: watchLocation(reselectAfterMeters: 0)
                }
            }
            storedRows[device] = try JSONEncoder().encode(rotator.state)  // Codable: a row, a file
            // README: end
            rejected = file.rejected.count
            last = rotator
        }
        let rotator = try #require(last)
        let resumed = try FenceRotator(
            catalog: rotator.catalog, configuration: rotator.configuration,
            state: JSONDecoder().decode(RotatorState.self, from: try #require(storedRows["d1"])))
        return (host, rotator, resumed, rejected)
    }

    @Test func theExampleRegistersWhatTheRotatorPlansWithinTheLimit() throws {
        // The bundled walk's diagonal across the town of shops, 100 m between reports.
        let start = try Coordinate(latitude: 46.0320192, longitude: 14.477621)
        let fixes = (0..<60).map { i in start.destination(bearingDegrees: 45, distanceMeters: Double(i) * 100) }
            .map { ($0.latitude, $0.longitude) }
        let (host, rotator, resumed, rejected) = try runExample(fixes: fixes)
        #expect(rejected == 0)
        let planned = Set(rotator.state.monitored.map(\.id) + [rotator.state.refresh?.id].compactMap { $0 })
        #expect(host.regions == planned)
        #expect(host.mostRegions <= rotator.configuration.limit - rotator.configuration.headroom)
        #expect(rotator.state.reselections > 1)
        #expect(resumed.state == rotator.state)
    }

    /// The README's Swift block under "The library in a page" is the code between the markers.
    @Test func readmeShowsTheCodeThatRunsHere() throws {
        let readme = try String(contentsOfFile: DatasetPaths.root + "/../README.md", encoding: .utf8)
        let section = try #require(readme.range(of: "## The library in a page"))
        let block = readme[section.upperBound...]
        let open = try #require(block.range(of: "```swift\n"))
        let close = try #require(block[open.upperBound...].range(of: "```"))
        let shown = block[open.upperBound..<close.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("import ") }
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let begin = try #require(source.range(of: "// README: begin\n"))
        let end = try #require(source.range(of: "// README: end"))
        let tested = source[begin.upperBound..<end.lowerBound].split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        #expect(shown == tested)
    }
}
