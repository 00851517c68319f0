import FencePlanner
import Foundation
import Geodesy
import RotateJSON
import Testing

@testable import RotateFormats

/// The replay page on a record made by hand: nothing in it is fetched, its data block reads as
/// JSON whatever the places are named, and it holds the walk and every fence in view with the
/// times it was monitored. (Its script runs in Chromium in CI: `Tests/Browser/check_replay.py`.)
@Suite struct HTMLReplayTests {
    /// `SVGMapTests`' record on a clock of 5 s per fix, one place named to end a script element.
    static func record() throws -> PlanRecord {
        var record = try SVGMapTests.record()
        record.times = record.walk.indices.map { 1_000 + 5 * Double($0) }
        record.places[1].name = "</script><script>document.body.dataset.error='injected'</script>"
        record.monitored["near-1"] = [4...9, 20...40]
        record.placeEvents.append(
            PlanRecord.PlaceMark(placeID: "near-1", position: record.walk[4], entry: true, inApp: true, timeSeconds: 1_020))
        return record
    }

    static func data(_ page: String) throws -> [String: JSONValue] {
        let block = try #require(page.components(separatedBy: "<script type=\"application/json\" id=\"replay-data\">").last)
        let text = try #require(block.components(separatedBy: "</script>").first)
        guard case .object(let data) = try StrictJSON.parse(text) else { throw CocoaError(.coderReadCorrupt) }
        return data
    }

    @Test func nothingIsFetched() throws {
        let page = HTMLReplay.document(try Self.record(), title: "t")
        #expect(page.hasPrefix("<!DOCTYPE html>") && page.hasSuffix("</html>"))
        let addresses = page.components(separatedBy: "://").count - 1
        #expect(addresses == page.components(separatedBy: "http://www.w3.org/2000/svg").count - 1, "only the SVG namespace")
        for attribute in [" src=", " href=", "@import", "url("] { #expect(!page.contains(attribute), "\(attribute)") }
    }

    @Test func theDataBlockHoldsTheWalkWhateverThePlacesAreNamed() throws {
        let record = try Self.record()
        let data = try Self.data(HTMLReplay.document(record, title: "t"))
        guard case .array(let path)? = data["path"] else { Issue.record("no path"); return }
        #expect(path.count == record.walk.count)
        var previous = -1.0
        for point in path {
            guard case .array(let values) = point, case .number(let t) = values[0] else { Issue.record("bad point"); return }
            #expect(t >= previous)
            previous = t
        }
        #expect(data["duration"] == .number(200))
        guard case .array(let marks)? = data["marks"] else { Issue.record("no marks"); return }
        #expect(marks.count == record.placeEvents.count + record.misses.count + record.visits.count)
    }

    @Test func eachFenceInViewCarriesWhenItWasMonitored() throws {
        let page = HTMLReplay.document(try Self.record(), title: "t")
        // Fix ranges to seconds from the first fix: [first fix's time, the time of the fix after the last).
        #expect(page.contains("data-id=\"near-1\"") && page.contains("data-on=\"20 50;100 201\""))
        #expect(
            page.contains("data-id=\"near-7\"")
                && page.contains("data-id=\"near-7\" data-name=\"Shop 7\" data-shape=\"circle of 30 m\" data-on=\"\""))
        #expect(!page.contains("far-"))
        #expect(page.contains("data-name=\"&lt;/script&gt;"))
    }
}
