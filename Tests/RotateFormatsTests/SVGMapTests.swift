import FencePlanner
import Geodesy
import Testing

@testable import RotateFormats

/// The static map on a record made by hand: what it counts, which legend rows it shows, where it
/// draws the walk's ends and how it labels the marks.
@Suite struct SVGMapTests {
    static let origin = Coordinate(validLatitude: 60.17, longitude: 24.94)

    /// A 2 km walk east; ten places beside it (one named with markup, one unnamed), the first
    /// six monitored; five places 50 km north, never in view.
    static func record() throws -> PlanRecord {
        let walk = (0...40).map { origin.destination(bearingDegrees: 90, distanceMeters: 50 * Double($0)) }
        let near = (0..<10).map { i in
            Place(
                id: "near-\(i)", coordinate: walk[4 * i].destination(bearingDegrees: 0, distanceMeters: 60), radiusMeters: 30,
                name: i == 0 ? "Café <Ø>" : i == 5 ? nil : "Shop \(i)")
        }
        let far = (0..<5).map { i in
            Place(id: "far-\(i)", coordinate: origin.destination(bearingDegrees: Double(i), distanceMeters: 50_000), radiusMeters: 30)
        }
        var record = PlanRecord(catalog: try PlaceCatalog(places: near + far), walk: walk, updates: [], misses: [])
        record.places = near + far
        for place in near.prefix(6) { record.monitored[place.id] = [0...40] }
        record.placeEvents = [
            PlanRecord.PlaceMark(placeID: "near-0", position: walk[0], entry: true, inApp: true),
            PlanRecord.PlaceMark(placeID: "near-0", position: walk[1], entry: false, inApp: true),
            PlanRecord.PlaceMark(placeID: "near-5", position: walk[20], entry: true, inApp: false),
        ]
        record.misses = [PlanRecord.Miss(placeID: "near-7", position: walk[28], avoidable: true)]
        return record
    }

    @Test func countsTheFencesInViewAndTheCatalog() throws {
        let svg = SVGMap.document(try Self.record(), title: "t")
        #expect(svg.contains(">10 of 15 places in view (6 monitored)</text>"))
        for i in 0..<10 { #expect(svg.contains("near-\(i), 30 m)"), "near-\(i) drawn") }
        #expect(!svg.contains("far-"))
    }

    @Test func theLegendListsOnlyWhatIsDrawn() throws {
        var record = try Self.record()
        func rows(_ record: PlanRecord) -> [String] {
            SVGMap.document(record, title: "t").components(separatedBy: "<g class=\"legend-row\">").dropFirst().map { row in
                String(row.split(separator: ">").dropFirst(2).first?.split(separator: "<").first ?? "")
            }
        }
        #expect(
            rows(record) == [
                "fence, monitored at some point", "fence, never monitored", "walk", "missed fence",
                "entry (filled: in-app; hollow: platform)", "exit (filled: in-app; hollow: platform)",
            ])
        record.misses = []
        record.placeEvents = []
        record.visits = [PlanRecord.VisitMark(placeID: "near-3", probability: 0.9, position: Self.origin, arrivalSeconds: 60)]
        for place in record.places { record.monitored[place.id] = [0...1] }
        #expect(rows(record) == ["fence, monitored at some point", "walk", "store visit (the place it names)"])
    }

    /// A visit's time read from a file may be past `Int`'s range, or not finite: its title still
    /// gives it in whole minutes (as the number prints), and nothing traps.
    @Test(arguments: [1e20, -1e20, 1e300, .infinity, .nan])
    func aVisitAtAnyTimeIsTitled(seconds: Double) throws {
        var record = try Self.record()
        record.visits = [PlanRecord.VisitMark(placeID: "near-3", probability: 0.9, position: Self.origin, arrivalSeconds: seconds)]
        let svg = SVGMap.document(record, title: "t")
        let title = try #require(svg.components(separatedBy: "<title>visit at near-3").last?.components(separatedBy: "</title>").first)
        let minutes = try #require(title.components(separatedBy: ", from ").last?.components(separatedBy: " min").first)
        if seconds.isNaN {
            #expect(minutes == "nan")
        } else {
            let value = try #require(Double(minutes), "\(title)")
            #expect(value == (seconds / 60).rounded(.towardZero) || abs(value / (seconds / 60) - 1) < 1e-15, "\(title)")
        }
    }

    @Test func theWalksEndsAreDrawnOverTheMarks() throws {
        let svg = SVGMap.document(try Self.record(), title: "t")
        let start = try #require(svg.range(of: "id=\"walk-start\""))
        let end = try #require(svg.range(of: "id=\"walk-end\""))
        let lastMark = try #require(svg.range(of: "(in-app)</title>", options: .backwards))
        let miss = try #require(svg.range(of: "<title>missed near-7</title>"))
        #expect(start.lowerBound > lastMark.upperBound && start.lowerBound > miss.upperBound && end.lowerBound > start.lowerBound)
        #expect(svg.contains(">start</text>") && svg.contains(">end</text>"))
    }

    @Test func everyMarkIsLabelledWithItsPlacesName() throws {
        let svg = SVGMap.document(try Self.record(), title: "t")
        let labels = try #require(svg.components(separatedBy: "<g id=\"labels\"").last?.components(separatedBy: "</g>").first)
        // The entry and the exit at the same door share one label; a place without a name is
        // labelled with its id.
        #expect(labels.components(separatedBy: ">Café &lt;Ø&gt;</text>").count == 2)
        #expect(labels.contains(">near-5</text>"))
        #expect(labels.contains(">missed Shop 7</text>"))
    }
}
