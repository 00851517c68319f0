import FencePlanner
import Geodesy
import RotateFormats
import RotateJSON
import WalkSimulator

/// `simulate --walk W --html FILE`: the replay page of one strategy on the emulated phone.
extension SimulateCommand {
    /// Replays the outcome's one strategy over `walk` again, keeping its timeline, and writes the
    /// page (`HTMLReplay`) to `path`.
    static func writeReplay(
        to path: String, walk: Walk, outcome: Outcome, platform: Simulation.PlatformRun, platformName: String, options: Options
    ) throws(CommandError) {
        guard let strategy = platform.strategies.first else { return }
        let timeline: ReplayTimeline
        do {
            timeline = try outcome.simulation.timeline(of: walk, stops: outcome.stops, on: platform, strategy: strategy)
        } catch {
            throw .failure("\(error)")
        }
        let scene = Self.scene(timeline, walk: walk, catalog: outcome.simulation.catalog, platformName: platformName)
        let title =
            "\(timeline.strategy) on \(platformName == "ideal" ? "the ideal phone" : platformName == "ios" ? "iOS" : "Android"): "
            + (options.walkPath ?? "the walk")
        try TextOutput.write([HTMLReplay.document(scene, title: title)], to: path)
    }

    /// The timeline as a scene: the true path, the places near it and every place registered, the
    /// fences the phone monitored and the trigger regions registered over time, the location
    /// service and guarantee, the phone's events with their delay, the app's entries, exits and
    /// visits, its fixes, and the oracles' misses with their reasons (visits of at least 30 s,
    /// stops) and the stops detected.
    static func scene(_ timeline: ReplayTimeline, walk: Walk, catalog: PlaceCatalog, platformName: String) -> ReplayScene {
        let samples = walk.samples
        let times = samples.map(\.timeSeconds)
        let end = (times.last ?? 0) + 1
        func position(at t: Double) -> Coordinate {
            // The last sample at or before `t` (the first before the walk starts).
            var lo = 0, hi = samples.count - 1
            while lo < hi {
                let mid = (lo + hi + 1) / 2
                if samples[mid].timeSeconds <= t { lo = mid } else { hi = mid - 1 }
            }
            return samples[lo].truePosition
        }
        func clock(_ seconds: Double) -> String { ReplayScene.clock(seconds) }

        // The places drawn: every place registered or judged, and those within 200 m of the path.
        var shown = Set<Int>()
        var ids = Set(timeline.registrations.filter { !$0.isTrigger }.map(\.regionID))
        ids.formUnion(timeline.visitOutcomes.map(\.visit.placeID))
        ids.formUnion(timeline.stopOutcomes.map(\.stop.placeID))
        for id in ids { if let position = catalog.position(of: id) { shown.insert(position) } }
        var walked = Double.infinity
        var last: Coordinate?
        for sample in samples {
            if let previous = last { walked += previous.distance(to: sample.truePosition) }
            last = sample.truePosition
            guard walked >= 100, shown.count < 5_000 else { continue }
            walked = 0
            for neighbor in catalog.placesWithin(200, of: UnitVector(sample.truePosition)) { shown.insert(neighbor.index) }
        }

        // A place registered by another circle than its fence (an approach region): that circle.
        var registeredCircles: [String: ReplayScene.RegisteredCircle] = [:]
        for call in timeline.registrations where !call.isTrigger && call.action == .add {
            guard let place = catalog[id: call.regionID] else { continue }
            if place.footprint != nil || abs(call.radiusMeters - place.radiusMeters) > 0.5
                || call.center.distance(to: place.coordinate) > 0.5
            {
                registeredCircles[call.regionID] = .init(center: call.center, radiusMeters: call.radiusMeters)
            }
        }

        var monitored: [String: [Range<Double>]] = [:]
        // A span still open when the walk ended runs to the slider's end, so the last moment
        // shows what the phone monitored then.
        let lastTime = times.last ?? 0
        for (id, spans) in timeline.monitored {
            monitored[id] = spans.map { $0.lowerBound..<($0.upperBound >= lastTime ? end : $0.upperBound) }
        }
        // Trigger regions from their registrations: each from its add to its removal (or a reboot
        // that lost it, or the end).
        var refresh: [ReplayScene.Region] = []
        var open: [String: (ReplayTimeline.Registration)] = [:]
        func close(_ id: String, at t: Double) {
            guard let added = open.removeValue(forKey: id) else { return }
            refresh.append(.init(center: added.center, radiusMeters: added.radiusMeters, fromSeconds: added.timeSeconds, toSeconds: t))
        }
        var registrations: [ReplayScene.Registration] = []
        var reboots = timeline.reboots.filter(\.registrationsLost)[...]
        for call in timeline.registrations {
            while let reboot = reboots.first, reboot.timeSeconds <= call.timeSeconds {
                for id in open.keys.sorted() { close(id, at: reboot.timeSeconds) }
                registrations.append(.init(timeSeconds: reboot.timeSeconds, regionID: "", action: "reboot", outcome: "removed"))
                reboots.removeFirst()
            }
            registrations.append(
                .init(timeSeconds: call.timeSeconds, regionID: call.regionID, action: call.action.rawValue, outcome: call.outcome.rawValue))
            guard call.isTrigger else { continue }
            close(call.regionID, at: call.timeSeconds)
            if call.action == .add, call.outcome == .monitored { open[call.regionID] = call }
        }
        for id in open.keys.sorted() { close(id, at: end) }

        let promises = timeline.strategy == StrategyKind.rotate.rawValue
        let states = timeline.states.map { state in
            ReplayScene.State(
                timeSeconds: state.timeSeconds,
                guarantee: !promises ? "none (a reference design)" : state.saturated ? "saturated" : state.exact ? "exact" : "degraded",
                service: state.service.rawValue)
        }

        var marks: [ReplayScene.Mark] = []
        for delivered in timeline.events {
            let event = delivered.event
            let t = event.deliveredAtSeconds
            if delivered.isTrigger {
                guard event.kind == .exit else { continue }
                marks.append(
                    .init(
                        kind: .wake, timeSeconds: t, position: position(at: t), placeID: nil,
                        detail: "delivered \(clock(t - event.decidedAtSeconds)) after the phone decided it"))
                continue
            }
            guard event.kind != .dwell else { continue }
            marks.append(
                .init(
                    kind: event.kind == .enter ? .osEntry : .osExit, timeSeconds: t, position: position(at: t), placeID: event.regionID,
                    detail: "delivered \(clock(t - event.decidedAtSeconds)) after the phone decided it",
                    decidedSeconds: event.decidedAtSeconds, decidedPosition: position(at: event.decidedAtSeconds)))
        }
        if timeline.decidesPlaceEvents {
            for entry in timeline.entries {
                marks.append(
                    .init(
                        kind: .entry, timeSeconds: entry.timeSeconds, position: position(at: entry.timeSeconds), placeID: entry.placeID,
                        detail: "the app's"))
            }
            for exit in timeline.exits {
                marks.append(
                    .init(
                        kind: .exit, timeSeconds: exit.timeSeconds, position: position(at: exit.timeSeconds), placeID: exit.placeID,
                        detail: "the app's"))
            }
        }
        for visit in timeline.visits {
            let others = visit.candidates.filter { $0 != visit.placeID }.count
            marks.append(
                .init(
                    kind: .visit, timeSeconds: visit.timeSeconds, position: position(at: visit.timeSeconds), placeID: visit.placeID,
                    detail: others == 0 ? "reported" : "reported, \(others) other candidate\(others == 1 ? "" : "s")"))
        }
        func words(_ reason: ReplayTimeline.MissReason, placeID: String) -> String {
            switch reason {
            case .notMonitored: return "not monitored"
            case .latency(let seconds): return "latency: the phone's entry came \(clock(seconds)) after the true entry"
            case .belowResolution:
                // The circle the phone monitored: the one registered in the place's stead, else
                // the fence (a footprint by the radius of a circle of its area).
                let registered = registeredCircles[placeID]?.radiusMeters
                let radius =
                    registered
                    ?? catalog[id: placeID].map { $0.footprint.map { ($0.areaSquareMeters / .pi).squareRoot() } ?? $0.radiusMeters }
                let small = radius.map { $0 < timeline.platformMinRadiusMeters } ?? false
                let what = registered == nil ? "fence" : "registered as a circle of"
                return "below the platform's resolution: the phone decided no entry"
                    + (small
                        ? " (\(what) \(TextFormat.fixed(radius ?? 0, decimals: 0)) m, the platform resolves \(TextFormat.fixed(timeline.platformMinRadiusMeters, decimals: 0)) m)"
                        : "")
            case .notReported: return "the phone's entry came in time; the app did not report a visit"
            case .otherPlace(let other): return "reported at \(catalog[id: other]?.name ?? other) instead"
            }
        }
        for outcome in timeline.visitOutcomes where outcome.visit.dwellSeconds >= 30 {
            guard let reason = outcome.reason else { continue }
            let visit = outcome.visit
            marks.append(
                .init(
                    kind: .miss, timeSeconds: visit.entrySeconds, position: position(at: visit.entrySeconds), placeID: visit.placeID,
                    detail: "inside \(clock(visit.dwellSeconds)): " + words(reason, placeID: visit.placeID)))
        }
        for outcome in timeline.stopOutcomes {
            let stop = outcome.stop
            let at = position(at: (stop.arrivalSeconds + stop.departureSeconds) / 2)
            if let detected = outcome.detectedSeconds {
                marks.append(
                    .init(
                        kind: .stop, timeSeconds: stop.arrivalSeconds, position: at, placeID: stop.placeID,
                        detail:
                            "stop of \(clock(stop.dwellSeconds)), detected \(clock(max(0, detected - stop.arrivalSeconds))) after arrival"))
            } else if let reason = outcome.reason {
                marks.append(
                    .init(
                        kind: .miss, timeSeconds: stop.arrivalSeconds, position: at, placeID: stop.placeID,
                        detail: "stop of \(clock(stop.dwellSeconds)): " + words(reason, placeID: stop.placeID)))
            }
        }

        var scene = ReplayScene(
            path: samples.map(\.truePosition), times: times, pathName: "the true path", places: shown.sorted().map { catalog.places[$0] },
            catalogCount: catalog.count, monitored: monitored, refresh: refresh, states: states, marks: marks)
        scene.fixes = timeline.fixes.map {
            .init(
                timeSeconds: $0.timeSeconds, position: $0.fix.coordinate, accuracyMeters: $0.fix.accuracyMeters, source: $0.source.rawValue)
        }
        scene.registrations = registrations
        scene.registeredCircles = registeredCircles
        let report = timeline.report
        let visits30 = timeline.visitOutcomes.filter { $0.visit.dwellSeconds >= 30 }
        var summary =
            "\(visits30.filter { $0.detectedSeconds != nil }.count) of \(visits30.count) visits of at least 30 s detected"
        if !timeline.stopOutcomes.isEmpty {
            summary += ", \(timeline.stopOutcomes.filter { $0.detectedSeconds != nil }.count) of \(timeline.stopOutcomes.count) stops"
        }
        summary +=
            "; \(report.wakeups) wakeups, \(report.registrationCalls) registration calls, GNSS on \(clock(report.gnssOnSeconds)), "
            + "\(TextFormat.fixed(report.energyMilliwattHoursPerHour, decimals: 1)) mWh per hour"
        scene.summary = [summary]
        return scene
    }
}
