import EventEngine
import FencePlanner
import Foundation
import RotateJSON

/// Output lines of `rotate serve`.
public enum SidecarResponse {
    /// `{"line", "device", "action": "none"}` or, when the registrations change, `"action":
    /// "update"` with the guarantee, `stop_refresh`, `stop` (ids), `start_refresh` ({id, lat, lon,
    /// radius_m}), `start` ([{id, lat, lon, radius_m, transitions}]) and `inside_at_start` (ids);
    /// then, always, `place_events` ([{place, event, t, evidence, p?}]), `location` ({request,
    /// distance_filter_m?}) and, when the engine ignored the input, `ignored` (the reason).
    /// With `state` (`--stateless`), the device's new state follows as `"state"`: the
    /// `MonitorState` JSON, keys sorted, to store and send with the device's next line.
    ///
    /// A refresh region is written with a radius of at least `minimumRefreshMeters`, the
    /// platform's minimum (`RefreshRegion.registrationRadiusMeters(minimum:)`).
    ///
    /// With `visits` (`rotate serve --visits`, protocol version 5) every answer also carries
    /// `visits`: the engine's visit events, [{event, t, place?, candidates: [{place, p}], none_p,
    /// lat, lon, accuracy_m, arrival_t, departure_t?, fixes}] (`place` absent when the visit
    /// names none of the places; `departure_t` on departures only). Under a battery budget
    /// (protocol version 6) `location` says `"source":"network"` when a `one_fix` may come from
    /// Wi-Fi or cell, and `given_up` lists the goals the budget gives up, while it gives up any.
    public static func report(
        line: Int, device: String, output: MonitorOutput, state: MonitorState? = nil, minimumRefreshMeters: Double = 0,
        visits: Bool = false
    ) -> String {
        var object = JSONObject()
        object.add("line", line)
        addDevice(device, output, minimumRefreshMeters: minimumRefreshMeters, visits: visits, to: &object)
        if let state {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            if let data = try? encoder.encode(state) { object.add("state", json: String(decoding: data, as: UTF8.self)) }
        }
        return object.finished()
    }

    /// The answer to one device's input, without its line number (also an item of a catalog
    /// answer's `affected`).
    static func addDevice(
        _ device: String, _ output: MonitorOutput, minimumRefreshMeters: Double, visits: Bool = false, to object: inout JSONObject
    ) {
        object.add("device", device)
        if let reconciliation = output.reconciliation {
            object.add("action", "reconcile")
            object.add("in_sync", reconciliation.isInSync)
            object.add("stop", strings: reconciliation.stop)
            if let region = reconciliation.refresh {
                object.add("start_refresh", nested: { addRefresh(region, minimumRefreshMeters: minimumRefreshMeters, to: &$0) })
            }
            object.add("start", objectsOf: reconciliation.start, addFence)
        } else if output.operations.isEmpty {
            object.add("action", "none")
        } else {
            object.add("action", "update")
            object.add("guarantee", output.guarantee?.name ?? "exact")
            var stop: [String] = []
            var start: [Fence] = []
            var startRefresh: RefreshRegion?
            for operation in output.operations {
                switch operation {
                case .stopRefresh(let id): object.add("stop_refresh", id)
                case .stop(let fence): stop.append(fence.id)
                case .startRefresh(let region): startRefresh = region
                case .start(let fence): start.append(fence)
                }
            }
            object.add("stop", strings: stop)
            if let region = startRefresh {
                object.add("start_refresh", nested: { addRefresh(region, minimumRefreshMeters: minimumRefreshMeters, to: &$0) })
            }
            object.add("start", objectsOf: start, addFence)
            object.add("inside_at_start", strings: output.insideAtStart)
        }
        object.add("place_events", objectsOf: output.placeEvents) { event, item in
            item.add("place", event.placeID)
            item.add("event", event.kind.rawValue)
            item.add("t", event.timeSeconds, decimals: 3)
            item.add("evidence", event.evidence.name)
            if case .fixes(let p) = event.evidence { item.add("p", p, decimals: 4) }
        }
        object.add("location") { location in
            switch output.location {
            case .none: location.add("request", "none")
            case .significantChanges: location.add("request", "significant_changes")
            case .oneFix:
                location.add("request", "one_fix")
                if visits, output.oneFixFromNetwork { location.add("source", "network") }
            case .continuous(let meters):
                location.add("request", "continuous")
                location.add("distance_filter_m", meters, decimals: 2)
            case .networkFixes(let seconds):
                location.add("request", "network_fixes")
                location.add("interval_s", seconds, decimals: 2)
            }
        }
        if visits { object.add("visits", objectsOf: output.visits, addVisit) }
        if visits, !output.givenUp.isEmpty { object.add("given_up", strings: output.givenUp.map(\.rawValue)) }
        if let reason = output.ignored { object.add("ignored", reason) }
    }

    /// One visit event: what happened and when, then the visit (docs/sidecar.md, Visits).
    static func addVisit(_ event: VisitEvent, to item: inout JSONObject) {
        let visit = event.visit
        item.add("event", event.kind.rawValue)
        item.add("t", event.timeSeconds, decimals: 3)
        if let place = visit.placeID { item.add("place", place) }
        item.add("candidates", objectsOf: visit.candidates) { candidate, entry in
            entry.add("place", candidate.placeID)
            entry.add("p", candidate.probability, decimals: 4)
        }
        item.add("none_p", visit.noneProbability, decimals: 4)
        item.add("lat", visit.coordinate.latitude, decimals: 7)
        item.add("lon", visit.coordinate.longitude, decimals: 7)
        item.add("accuracy_m", visit.horizontalAccuracyMeters, decimals: 2)
        item.add("arrival_t", visit.arrivalSeconds, decimals: 3)
        if let departure = visit.departureSeconds { item.add("departure_t", departure, decimals: 3) }
        item.add("fixes", visit.fixes)
    }

    static func addRefresh(_ region: RefreshRegion, minimumRefreshMeters: Double, to refresh: inout JSONObject) {
        refresh.add("id", region.id)
        refresh.add("lat", region.center.latitude, decimals: 7)
        refresh.add("lon", region.center.longitude, decimals: 7)
        refresh.add("radius_m", region.registrationRadiusMeters(minimum: minimumRefreshMeters), decimals: 2)
    }

    static func addFence(_ fence: Fence, to item: inout JSONObject) {
        item.add("id", fence.id)
        item.add("lat", fence.center.latitude, decimals: 7)
        item.add("lon", fence.center.longitude, decimals: 7)
        item.add("radius_m", fence.radiusMeters, decimals: 2)
        item.add("transitions", fence.transitions.rawValue)
    }

    /// `{"line", "action": "catalog", "catalog_version", "places", "affected"}`: `affected` lists
    /// the devices the change reached, each as the answer to one of its inputs without `line`
    /// (an `update` to push, or `none` with `location` asking for one fix, and `place_events`).
    public static func catalog(
        line: Int, version: Int, places: Int, affected: [(device: String, output: MonitorOutput)] = [], minimumRefreshMeters: Double = 0,
        visits: Bool = false
    ) -> String {
        var object = JSONObject()
        object.add("line", line)
        object.add("action", "catalog")
        object.add("catalog_version", version)
        object.add("places", places)
        object.add("affected", objectsOf: affected) { item, object in
            addDevice(item.device, item.output, minimumRefreshMeters: minimumRefreshMeters, visits: visits, to: &object)
        }
        return object.finished()
    }

    /// `{"line", "device", "action": "reset", "stop_refresh"?, "stop", "stop_all"}`: the device's
    /// state is forgotten; `stop_refresh` and `stop` are the regions its plan held, for the host
    /// to unregister, and `stop_all` says the plan is unknown (the stored state did not read):
    /// the host unregisters every region it registered for the device.
    public static func reset(line: Int, device: String, _ forgotten: DeviceRegistry.Forgotten) -> String {
        var object = JSONObject()
        object.add("line", line)
        object.add("device", device)
        object.add("action", "reset")
        if let refresh = forgotten.refresh { object.add("stop_refresh", refresh.id) }
        object.add("stop", strings: forgotten.monitored.map(\.id))
        object.add("stop_all", forgotten.unknown)
        if !forgotten.existed { object.add("ignored", "no device '\(device)' is held or stored") }
        return object.finished()
    }

    /// `{"line", "error"}`.
    public static func error(line: Int, _ reason: String) -> String {
        var object = JSONObject()
        object.add("line", line)
        object.add("error", reason)
        return object.finished()
    }
}
