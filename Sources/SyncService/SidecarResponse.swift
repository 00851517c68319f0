import FencePlanner
import RotateFormats

/// Output lines of `rotate serve`.
public enum SidecarResponse {
    /// `{"line", "device", "action": "none"}` or, for a reselection, `"action": "update"` with the
    /// guarantee, `stop_refresh`, `stop` (ids), `start_refresh` ({id, lat, lon, radius_m}),
    /// `start` ([{id, lat, lon, radius_m, transitions}]) and `inside_at_start` (ids).
    public static func report(line: Int, device: String, update: RotationUpdate?) -> String {
        var object = JSONObject()
        object.add("line", line)
        object.add("device", device)
        guard let update else {
            object.add("action", "none")
            return object.text
        }
        let diff = update.diff
        object.add("action", "update")
        object.add("guarantee", update.selection.guarantee.name)
        if let id = diff.stopRefresh { object.add("stop_refresh", id) }
        object.add("stop", json: "[" + diff.stop.map { JSONObject.quoted($0.id) }.joined(separator: ",") + "]")
        if let region = diff.startRefresh {
            var refresh = JSONObject()
            refresh.add("id", region.id)
            refresh.add("lat", region.center.latitude, decimals: 7)
            refresh.add("lon", region.center.longitude, decimals: 7)
            refresh.add("radius_m", region.radiusMeters, decimals: 2)
            object.add("start_refresh", json: refresh.text)
        }
        object.add(
            "start",
            json: "["
                + diff.start.map { fence in
                    var item = JSONObject()
                    item.add("id", fence.id)
                    item.add("lat", fence.center.latitude, decimals: 7)
                    item.add("lon", fence.center.longitude, decimals: 7)
                    item.add("radius_m", fence.radiusMeters, decimals: 2)
                    item.add("transitions", fence.transitions.rawValue)
                    return item.text
                }.joined(separator: ",") + "]")
        object.add("inside_at_start", json: "[" + diff.insideAtStart.map(JSONObject.quoted).joined(separator: ",") + "]")
        return object.text
    }

    /// `{"line", "action": "catalog", "catalog_version", "places"}`.
    public static func catalog(line: Int, version: Int, places: Int) -> String {
        var object = JSONObject()
        object.add("line", line)
        object.add("action", "catalog")
        object.add("catalog_version", version)
        object.add("places", places)
        return object.text
    }

    /// `{"line", "error"}`.
    public static func error(line: Int, _ reason: String) -> String {
        var object = JSONObject()
        object.add("line", line)
        object.add("error", reason)
        return object.text
    }
}
