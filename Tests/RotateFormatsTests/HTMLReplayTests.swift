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

    /// Names that would end or unbalance the script element holding the data (`<!--<script`
    /// enters the tokenizer's "script data double escaped" state, where `</script>` no longer
    /// ends the element) reach the data block with no `<`, `>` or `&`, nor U+2028 or U+2029,
    /// written raw, and parse back to themselves.
    @Test(arguments: [
        "<!--<script", "<!--<script>", "</script>", "</SCRIPT >", "<script>a</script>", "<!-- -->", "-->", "a&amp;b", "]]>",
        "line\u{2028}para\u{2029}", "\\<\\/script>",
    ])
    func hostileNamesStayInsideTheDataBlock(name: String) throws {
        var record = try Self.record()
        record.places[1].name = name
        let page = HTMLReplay.document(record, title: "t")
        let block = try #require(
            page.components(separatedBy: "<script type=\"application/json\" id=\"replay-data\">").last?.components(
                separatedBy: "</script>"
            ).first)
        for raw in ["<", ">", "&", "\u{2028}", "\u{2029}"] { #expect(!block.contains(raw), "\(raw) in \(block)") }
        for markup in ["<!--", "<script", "</script"] { #expect(block.range(of: markup, options: .caseInsensitive) == nil) }
        guard case .array(let marks)? = try Self.data(page)["marks"] else {
            Issue.record("no marks")
            return
        }
        let names = marks.compactMap { mark -> String? in
            guard case .array(let fields) = mark, fields.count > 4, case .string(let name) = fields[4] else { return nil }
            return name
        }
        #expect(names.contains(name), "\(names)")
        // The page's own script follows the data block, whole.
        #expect(page.hasSuffix("</script></body></html>") && page.components(separatedBy: "<script>").count == 2)
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

/// A scene of a replay on a phone, made by hand: its fixes, registration calls, states and the
/// platform's events (with when each was decided) reach the data block on the slider's clock,
/// and the legend names only the kinds of marks drawn.
@Suite struct PhoneReplaySceneTests {
    static func scene() throws -> ReplayScene {
        let record = try HTMLReplayTests.record()
        var scene = ReplayScene(record)
        let walk = record.walk
        scene.marks = [
            .init(
                kind: .osEntry, timeSeconds: 1_030, position: walk[6], placeID: "near-1", detail: "delivered 0:10", decidedSeconds: 1_020,
                decidedPosition: walk[4]),
            .init(kind: .miss, timeSeconds: 1_040, position: walk[8], placeID: "near-7", detail: "stop of 5:00: not monitored"),
        ]
        scene.fixes = [.init(timeSeconds: 1_005, position: walk[1], accuracyMeters: 65, source: "significant-change")]
        scene.registrations = [
            .init(timeSeconds: 1_000, regionID: "near-1", action: "add", outcome: "monitored"),
            .init(timeSeconds: 1_050, regionID: "near-7", action: "add", outcome: "dropped"),
        ]
        scene.states = [.init(timeSeconds: 1_000, guarantee: "exact", service: "significantChange")]
        scene.reselections = []
        return scene
    }

    @Test func theDataBlockHoldsThePhonesTimeline() throws {
        let page = HTMLReplay.document(try Self.scene(), title: "t")
        let data = try HTMLReplayTests.data(page)
        #expect(data["version"] == .number(2))
        #expect(data["reselections"] == nil)
        guard case .array(let marks)? = data["marks"], case .array(let entry)? = marks.first else { Issue.record("no marks"); return }
        // [t, x, y, kind, place, detail, decided t, decided x, decided y], times from the first fix.
        #expect(entry.count == 9)
        #expect(entry[0] == .number(30) && entry[3] == .string("os-entry") && entry[6] == .number(20))
        #expect(data["fixes"].map { "\($0)" }?.contains("significant-change") == true)
        guard case .array(let calls)? = data["registrations"], case .array(let dropped)? = calls.last else {
            Issue.record("no registrations")
            return
        }
        #expect(dropped == [.number(50), .string("near-7"), .string("add"), .string("dropped")])
        guard case .array(let states)? = data["states"], case .array(let state)? = states.first else { Issue.record("no states"); return }
        #expect(state == [.number(0), .string("exact"), .string("significantChange")])
    }

    /// A circle registered in a place's stead is drawn (dashed, under the fence) with the place's
    /// spans, named on the fence, and keyed in the legend; a scene with none draws none.
    @Test func anApproachRegionFollowsItsPlace() throws {
        var scene = try Self.scene()
        let plain = HTMLReplay.document(scene, title: "t")
        #expect(!plain.contains("class=\"approach\"") && !plain.contains("key-approach\"") && !plain.contains("data-registered=\""))
        let near = try #require(scene.places.first { $0.id == "near-1" })
        scene.registeredCircles["near-1"] = .init(center: near.coordinate, radiusMeters: 100)
        let page = HTMLReplay.document(scene, title: "t")
        func attribute(_ name: String, of element: String) -> String? {
            page.components(separatedBy: element).dropFirst().first?.components(separatedBy: " \(name)=\"").dropFirst().first?
                .components(separatedBy: "\"").first
        }
        let fenceOn = try #require(attribute("data-on", of: "class=\"fence\" data-id=\"near-1\""))
        #expect(!fenceOn.isEmpty)
        #expect(attribute("data-on", of: "class=\"approach\" data-id=\"near-1\"") == fenceOn)
        #expect(attribute("data-registered", of: "class=\"fence\" data-id=\"near-1\"") == "circle of 100 m")
        #expect(page.components(separatedBy: "class=\"approach\"").count == 2, "one approach region")
        #expect(page.contains("class=\"key key-approach\""))
        // Under its fence: the approach region comes first in the fences' layer.
        let approachAt = try #require(page.range(of: "class=\"approach\" data-id=\"near-1\""))
        let fenceAt = try #require(page.range(of: "class=\"fence\" data-id=\"near-1\""))
        #expect(approachAt.lowerBound < fenceAt.lowerBound)
    }

    @Test func theLegendNamesOnlyWhatIsDrawn() throws {
        func key(_ name: String) -> String { "class=\"key key-\(name)\"" }
        let phone = HTMLReplay.document(try Self.scene(), title: "t")
        #expect(phone.contains(key("os-entry")) && phone.contains(key("miss")) && phone.contains(key("fix")))
        #expect(!phone.contains(key("stop")) && !phone.contains(key("visit")) && !phone.contains(key("wake")))
        let plan = HTMLReplay.document(try HTMLReplayTests.record(), title: "t")
        #expect(!plan.contains(key("fix")) && !plan.contains("data-layer=\"layer-fixes\"") && !plan.contains(key("os-entry")))
        #expect(plan.contains(key("entry")))
    }
}
