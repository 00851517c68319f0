import Foundation
import RotateKit
import RotateTestSupport
import Testing

/// The library example of README.md ("The library in a page"), compiled and run here: the test
/// fails when the README's block and the lines between the markers below differ, or when the
/// example stops doing what it says.
@Suite struct ReadmeExampleTests {
    /// What the example's host calls did: the platform's regions after each call, the place
    /// events notified, the location services requested.
    final class Host {
        var regions: Set<String> = []
        var mostRegions = 0
        var notified: [PlaceEvent] = []
        var locationRequests: [LocationRequest] = []

        func apply(_ operation: RegistrationOperation) {
            switch operation {
            case .stopRefresh(let id): regions.remove(id)
            case .stop(let fence): regions.remove(fence.id)
            case .startRefresh(let region): regions.insert(region.id)
            case .start(let fence): regions.insert(fence.id)
            }
            mostRegions = max(mostRegions, regions.count)
        }
        func notify(_ event: PlaceEvent) { notified.append(event) }
        func requestLocation(_ request: LocationRequest) { locationRequests.append(request) }
    }

    /// Runs the example over `inputs` (the engine resumed from the stored state at every input) and,
    /// beside it, one engine that is never stored: the outputs of both, and how many inputs wrote
    /// the state back.
    func runExample(
        inputs: [MonitorInput]
    ) throws -> (
        host: Host, monitor: FenceMonitor, resumed: FenceMonitor, rejected: Int, outputs: [MonitorOutput], uninterrupted: [MonitorOutput],
        writes: Int
    ) {
        let host = Host()
        func apply(_ operation: RegistrationOperation) { host.apply(operation) }
        func notify(_ event: PlaceEvent) { host.notify(event) }
        func requestLocation(_ request: LocationRequest) { host.requestLocation(request) }
        var storedRows: [String: Data] = [:]
        let placesPath = DatasetPaths.path("shops-500.csv")
        var rejected = 0
        var last: FenceMonitor?
        var outputs: [MonitorOutput] = [], writes = 0
        var reference = try FenceMonitor(
            catalog: PlaceCatalog(places: PlacesCSV.read(path: placesPath).places),
            configuration: RotationConfiguration.preset(.iOS, maxSpeedMetersPerSecond: 1.4, fixIntervalSeconds: 5))
        let uninterrupted = inputs.map { reference.handle($0) }
        for input in inputs {
            let before = storedRows["d1"]
            let device = "d1"
            // README: begin
            let file = try PlacesCSV.read(path: placesPath)  // once per service
            for row in file.rejected { print("\(placesPath):\(row.line): \(row.reason)") }
            let catalog = try PlaceCatalog(places: file.places)  // immutable, shared by every device
            let configuration = RotationConfiguration.preset(.iOS, maxSpeedMetersPerSecond: 1.4, fixIntervalSeconds: 5)

            // Per input of `device`: its engine, resumed from the stored state if any. An input is a fix,
            // .fix(Fix(coordinate, accuracyMeters: 8, timestampSeconds: t), source: .continuous), or a region
            // event the phone delivered, .region(RegionReport(regionID: id, kind: .entry, timeSeconds: t)).
            let stored = try storedRows[device].map { try JSONDecoder().decode(MonitorState.self, from: $0) }
            var monitor: FenceMonitor  // throws ConfigurationError, or RotatorStateError for a state that cannot resume
            if let stored {
                monitor = try FenceMonitor(catalog: catalog, configuration: configuration, state: stored)
            } else {
                monitor = try FenceMonitor(catalog: catalog, configuration: configuration)
            }
            let output = monitor.handle(input)
            for operation in output.operations { apply(operation) }  // stop refresh, stops, start refresh, starts
            for event in output.placeEvents { notify(event) }  // one entry and one exit per visit
            requestLocation(output.location)  // none, significant changes, one fix, or continuous updates
            if monitor.state.isWorthStoring(comparedTo: stored) {  // most reports change nothing worth a write
                storedRows[device] = try JSONEncoder().encode(monitor.state)  // Codable: a row, a file
            }
            // README: end
            rejected = file.rejected.count
            last = monitor
            outputs.append(output)
            if storedRows["d1"] != before { writes += 1 }
        }
        let monitor = try #require(last)
        let resumed = try FenceMonitor(
            catalog: monitor.catalog, configuration: monitor.rotator.configuration,
            state: JSONDecoder().decode(MonitorState.self, from: try #require(storedRows["d1"])))
        return (host, monitor, resumed, rejected, outputs, uninterrupted, writes)
    }

    /// Along the bundled walk's diagonal across the town of shops, a fix every 10 m (continuous
    /// updates), with the platform's entry of a shop the walk passes and a late duplicate of it:
    /// the host holds what the engine plans within the limit, each visit is notified once (from
    /// whichever source came first), and the stored state resumes as the original.
    @Test func theExampleRegistersWhatTheEnginePlansAndNotifiesEachVisitOnce() throws {
        let start = try Coordinate(latitude: 46.0320192, longitude: 14.477621)
        let positions = (0..<600).map { start.destination(bearingDegrees: 45, distanceMeters: Double($0) * 10) }
        var inputs: [MonitorInput] = positions.enumerated().map { i, position in
            .fix(Fix(position, accuracyMeters: 8, timestampSeconds: Double(i)), source: .continuous)
        }
        // The platform's entry of a shop while the walk is inside it, and the same entry again,
        // delivered late, once the walk is 100 m past the shop's edge.
        let shops = try PlaceCatalog(places: PlacesCSV.read(path: DatasetPaths.path("shops-500.csv")).places)
        guard let shop = shops[id: "shop086"] else {
            Issue.record("no shop086 in the bundled shops")
            return
        }
        let inside = try #require(positions.firstIndex { $0.distance(to: shop.coordinate) < shop.radiusMeters - 20 })
        let past = try #require(
            positions.indices.first { $0 > inside && positions[$0].distance(to: shop.coordinate) > shop.radiusMeters + 100 })
        inputs.insert(.region(RegionReport(regionID: shop.id, kind: .entry, timeSeconds: Double(past) + 0.5)), at: past + 1)
        inputs.insert(.region(RegionReport(regionID: shop.id, kind: .entry, timeSeconds: Double(inside) + 0.5)), at: inside + 1)
        let (host, monitor, resumed, rejected, outputs, uninterrupted, writes) = try runExample(inputs: inputs)
        #expect(rejected == 0)
        let planned = Set(monitor.rotator.state.monitored.map(\.id) + [monitor.rotator.state.refresh?.id].compactMap { $0 })
        #expect(host.regions == planned)
        #expect(host.mostRegions <= monitor.rotator.configuration.limit - monitor.rotator.configuration.headroom)
        #expect(monitor.rotator.state.reselections > 1)
        // Resumed from the state stored by the rule at every input, the engine answers exactly as
        // one never stored (a stream of fixes is stored at each fix: a late platform entry is
        // judged against the stream's last fix).
        #expect(outputs == uninterrupted, "the resumed engine answered otherwise")
        #expect(writes > 0)
        #expect(resumed.state.isWorthStoring(comparedTo: monitor.state) == false)
        #expect(host.locationRequests.count == inputs.count)
        let entries = host.notified.filter { $0.kind == .entry }
        #expect(entries.count >= 2 && Set(entries.map(\.placeID)).count == entries.count)
        #expect(entries.filter { $0.placeID == "shop086" }.count == 1)
    }

    /// A device on significant changes (a single fix at each wake, as the engine asks of an exact
    /// selection) walking 300 wakes, 40 m apart, across the town of shops and out of it, with the
    /// platform's entries and exits of the shops it passes: the example stores far fewer states
    /// than inputs, and resumed from them at every input answers exactly as an engine never stored.
    @Test func theExampleStoresFewStatesAndResumesExactly() throws {
        let start = try Coordinate(latitude: 46.0320192, longitude: 14.477621)
        let shops = try PlaceCatalog(places: PlacesCSV.read(path: DatasetPaths.path("shops-500.csv")).places)
        var inputs: [MonitorInput] = []
        var inside: Set<String> = []
        for i in 0..<300 {
            let position = start.destination(bearingDegrees: 60, distanceMeters: Double(i) * 40)
            let t = Double(i) * 30
            for shop in shops.places {
                let within = position.distance(to: shop.coordinate) < shop.radiusMeters
                if within != inside.contains(shop.id) {
                    inputs.append(.region(RegionReport(regionID: shop.id, kind: within ? .entry : .exit, timeSeconds: t + 10)))
                    if within { inside.insert(shop.id) } else { inside.remove(shop.id) }
                }
            }
            inputs.append(.fix(Fix(position, accuracyMeters: 20, timestampSeconds: t + 20), source: .wakeFix))
        }
        let (_, _, _, _, outputs, uninterrupted, writes) = try runExample(inputs: inputs)
        #expect(outputs == uninterrupted, "the resumed engine answered otherwise")
        #expect(outputs.contains { !$0.placeEvents.isEmpty })
        #expect(writes * 4 < inputs.count, "\(writes) of \(inputs.count) inputs wrote the state")
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
