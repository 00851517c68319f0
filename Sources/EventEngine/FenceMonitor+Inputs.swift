import FencePlanner
import FenceRules
import Geodesy
import SpatialIndex

extension FenceMonitor {
    mutating func handleFix(_ fix: Fix, source: FixSource, at time: Double, into output: inout MonitorOutput) {
        let coordinate = fix.coordinate
        guard coordinate.latitude.isFinite, coordinate.longitude.isFinite else {
            output.ignored = "the fix's coordinate is not finite"
            return
        }
        if let accuracy = fix.accuracyMeters, !(accuracy.isFinite && accuracy >= 0) {
            output.ignored = "accuracy \(accuracy) is not a finite number >= 0"
            return
        }
        if let last = state.lastFixSeconds, !(time > last) {
            output.ignored = "fix at \(time) s is not after the last fix at \(last) s"
            return
        }
        if let latest = state.lastInputSeconds, time < latest - settings.maxFixAgeSeconds {
            output.ignored = "fix at \(time) s is more than \(settings.maxFixAgeSeconds) s older than the latest input at \(latest) s"
            return
        }
        state.lastFixSeconds = time
        observeStay(fix, at: time, into: &output)

        // What the platform monitors. After a refresh exit the fix reselects even if it still
        // looks inside the old circle (noise, delay); an untrusted fix is handled by the rotator,
        // which never drops a fence the user may be inside.
        let update: RotationUpdate?
        if state.refreshExitPending {
            update = rotator.reselect(at: fix)
            state.refreshExitPending = false
        } else {
            update = rotator.update(with: fix)
        }

        let trusted = fix.accuracyMeters.map { $0 <= rotator.configuration.maxTrustedAccuracyMeters } ?? true
        if trusted {
            state.lastTrustedFixContinuous = source == .continuous
            decide(at: fix, time: time, into: &output)
        }

        if trusted, state.resetPending {
            state.resetPending = false
            for fence in rotator.state.monitored { enterIfInside(fence.id, fix: fix, time: time, into: &output) }
        }
        if let update {
            output.operations = update.diff.operations
            output.insideAtStart = update.diff.insideAtStart
            // Registered while inside: no entry will come from the platform. The app decides from
            // this fix when no stream of fixes follows (and the platform's later state report is
            // absorbed); continuous fixes decide through the rule.
            if trusted && source != .continuous {
                for id in update.diff.insideAtStart { enterIfInside(id, fix: fix, time: time, into: &output) }
            }
        }
    }

    /// The in-app rule over the places within reach of a trusted fix, and those the host was told
    /// the user is inside.
    private mutating func decide(at fix: Fix, time: Double, into output: inout MonitorOutput) {
        let vector = UnitVector(fix.coordinate)
        let sigma = self.sigma(of: fix)
        let reach = settings.reachSigmas * sigma
        let step = state.lastTrustedFix.map { $0.distance(to: fix.coordinate) } ?? 0
        state.lastTrustedFix = fix.coordinate
        state.lastTrustedFixSeconds = time

        // The tracked places first (in order), then the untracked ones that came within reach;
        // each one's edge distance is kept for the pruning below.
        var edges: [Double] = []
        edges.reserveCapacity(state.tracks.count)
        for i in state.tracks.indices {
            let distance = Self.meters(vector, trackVectors[i])
            let edge = edgeMeters(track: i, vector, distance: distance)
            edges.append(edge)
            evaluate(track: i, vector, distance: distance, edge: edge, sigma: sigma, reach: reach, step: step, time: time, into: &output)
        }
        // Untracked places within reach, in order of edge distance from this fix (ties by
        // position), whichever neighbourhood was scanned to find them.
        var reached: [(edge: Double, distance: Double, position: Int)] = []
        if !nothingNewWithinReach(of: fix, vector, reach: reach) {
            refreshNeighborhood(around: vector, reach: reach)
            for position in neighborhood where !trackPositions.contains(position) {
                let distance = Self.meters(vector, catalog.vectors[position])
                // A footprint's enclosing circle first (its edge is never farther), then its own.
                var edge = distance - catalog.radiiMeters[position]
                if edge <= reach && catalog.places[position].footprint != nil {
                    edge = catalog.edgeDistanceMeters(of: position, to: vector)
                }
                if edge <= reach { reached.append((edge, distance, position)) }
            }
            if reached.count > 1 { reached.sort { ($0.edge, $0.position) < ($1.edge, $1.position) } }
        }
        for (edge, distance, position) in reached {
            let radius = catalog.radiiMeters[position]
            let fence = catalog.fences[position]
            state.tracks.append(PlaceTrack(id: fence.id, center: fence.center, radiusMeters: radius))
            trackPositions.append(position)
            trackVectors.append(catalog.vectors[position])
            edges.append(edge)
            evaluate(
                track: state.tracks.count - 1, vector, distance: distance, edge: edge, sigma: sigma, reach: reach, step: step, time: time,
                into: &output)
        }
        // Forget places that are outside, far, and have no evidence under way.
        keepTracks(state.tracks.indices.map { i in state.tracks[i].inside || state.tracks[i].streak > 0 || edges[i] <= reach })
    }

    /// Keeps the tracks (and their positions and vectors) whose `keep` flag is set, in order.
    mutating func keepTracks(_ keep: [Bool]) {
        var kept = 0
        for i in state.tracks.indices where keep[i] {
            state.tracks[kept] = state.tracks[i]
            trackPositions[kept] = trackPositions[i]
            trackVectors[kept] = trackVectors[i]
            kept += 1
        }
        state.tracks.removeLast(state.tracks.count - kept)
        trackPositions.removeLast(trackPositions.count - kept)
        trackVectors.removeLast(trackVectors.count - kept)
    }

    /// σ per axis of a fix's error, from its accuracy (or the default when it has none).
    func sigma(of fix: Fix) -> Double {
        fix.accuracyMeters.map { settings.accuracyModel.sigma(forAccuracyMeters: $0) } ?? settings.defaultSigmaMeters
    }

    /// The great-circle distance between two unit vectors, meters (as `Coordinate.distance(to:)`).
    static func meters(_ a: UnitVector, _ b: UnitVector) -> Double {
        Earth.meanRadiusMeters * a.angleRadians(to: b)
    }

    /// Whether no place but those tracked can have its fence edge within `reach` of `vector`,
    /// known without querying the index: the refresh region keeps every unmonitored place
    /// farther (`FenceRotator.unmonitoredEdgeBound`, with a meter to spare for rounding), and no
    /// untracked monitored place is within reach by the very test the neighbourhood scan makes.
    /// The usual report, well inside the refresh region and near no place, then costs no index
    /// search.
    ///
    /// Most monitored places are dismissed by their latitude alone (no two points are nearer
    /// than their latitudes are apart), from the fences the rotator holds, without reading the
    /// catalog's arrays at scattered positions.
    private func nothingNewWithinReach(of fix: Fix, _ vector: UnitVector, reach: Double) -> Bool {
        guard boundsNeighborhoodByRefresh, let bound = rotator.unmonitoredEdgeBound(from: vector), bound > reach + 1 else { return false }
        let monitored = rotator.state.monitored
        let positions = rotator.monitoredPlacePositions
        let catalog = self.catalog
        let metersPerDegree = Earth.meanRadiusMeters * .pi / 180
        let latitude = fix.coordinate.latitude
        for (fence, position) in zip(monitored, positions) where position >= 0 {
            if metersPerDegree * abs(fence.center.latitude - latitude) - fence.radiusMeters > reach + 1 { continue }
            if !trackPositions.contains(position)
                && Self.meters(vector, catalog.vectors[position]) - catalog.radiiMeters[position] <= reach
            {
                return false
            }
        }
        return true
    }

    /// Queries the places with fence edges within `reach` plus the slack of `vector`, unless the
    /// last query already covers them.
    private mutating func refreshNeighborhood(around vector: UnitVector, reach: Double) {
        if let center = neighborhoodCenter, Self.meters(vector, center) + reach <= neighborhoodReachMeters { return }
        let queried = reach + settings.neighborhoodSlackMeters
        catalog.index.within(queried, of: vector, measuredTo: .edge, into: &buffer)
        neighborhood = buffer.neighbors.map(\.index)
        neighborhoodCenter = vector
        neighborhoodReachMeters = queried
    }

    /// The footprint of the place a track follows, nil for a circle (or a place no longer in the
    /// catalog).
    func footprint(track i: Int) -> SphericalMultiPolygon? {
        let position = trackPositions[i]
        return position >= 0 ? catalog.places[position].footprint : nil
    }

    /// The signed distance from `vector` to the fence edge of track `i`'s place, meters, negative
    /// inside: `distance` (from the fence's center) less the radius for a circle, exact for a
    /// footprint.
    func edgeMeters(track i: Int, _ vector: UnitVector, distance: Double) -> Double {
        if footprint(track: i) != nil { return catalog.edgeDistanceMeters(of: trackPositions[i], to: vector) }
        return distance - state.tracks[i].radiusMeters
    }

    /// P(inside) of track `i`'s place for a fix at `vector` with σ per axis: the Rice probability
    /// of a circle (`distance` from its center), the Owen's T edge sum of a footprint.
    func insideProbability(track i: Int, _ vector: UnitVector, distance: Double, sigma: Double) -> Double {
        if let footprint = footprint(track: i) { return PolygonInsideProbability.value(footprint, fix: vector, sigmaMeters: sigma) }
        return InsideProbability.value(distanceMeters: distance, radiusMeters: state.tracks[i].radiusMeters, sigmaMeters: sigma)
    }

    /// The confident rule for one track at one fix.
    private mutating func evaluate(
        track i: Int, _ vector: UnitVector, distance: Double, edge: Double, sigma: Double, reach: Double, step: Double, time: Double,
        into output: inout MonitorOutput
    ) {
        // P(inside) only near the edge: beyond `reach` outside it is below 3·10⁻⁵ for a circle
        // and below e^(−8) = 3.4·10⁻⁴ for any shape (none of it is nearer than the edge), and as
        // deep inside above 1 − 3.4·10⁻⁴ (a disc of 4 σ around the fix lies inside): the rule's
        // evidence is the same as with the exact value.
        let p = edge > reach ? 0 : edge < -reach ? 1 : insideProbability(track: i, vector, distance: distance, sigma: sigma)
        state.tracks[i].lastProbability = p
        state.tracks[i].lastProbabilitySeconds = time
        let inside = state.tracks[i].inside
        let contradicts = inside ? p < settings.exitProbability : p > settings.enterProbability
        guard contradicts else {
            state.tracks[i].streak = 0
            state.tracks[i].streakMeters = 0
            return
        }
        state.tracks[i].streak += 1
        state.tracks[i].streakMeters += step
        let dwelt =
            state.tracks[i].streak >= settings.dwellFixes || (settings.dwellMeters.map { state.tracks[i].streakMeters >= $0 } ?? false)
        guard dwelt else { return }
        if inside {
            exit(track: i, at: time, evidence: .fixes(probabilityInside: p), into: &output)
        } else {
            enter(track: i, at: time, evidence: .fixes(probabilityInside: p), into: &output)
        }
    }

    private mutating func enter(track i: Int, at time: Double, evidence: Evidence, into output: inout MonitorOutput) {
        state.tracks[i].inside = true
        state.tracks[i].enteredSeconds = time
        state.tracks[i].dwellReported = false
        state.tracks[i].streak = 0
        state.tracks[i].streakMeters = 0
        output.placeEvents.append(PlaceEvent(placeID: state.tracks[i].id, kind: .entry, timeSeconds: time, evidence: evidence))
        // An entry is a cue to look for a stop (or the end of the visit under way).
        if settings.visits != nil {
            let platform = if case .platform = evidence { true } else { false }
            state.cue = VisitCue(seconds: time, placeID: platform ? state.tracks[i].id : nil)
        }
    }

    private mutating func exit(track i: Int, at time: Double, evidence: Evidence, into output: inout MonitorOutput) {
        state.tracks[i].inside = false
        state.tracks[i].enteredSeconds = nil
        state.tracks[i].streak = 0
        state.tracks[i].streakMeters = 0
        output.placeEvents.append(PlaceEvent(placeID: state.tracks[i].id, kind: .exit, timeSeconds: time, evidence: evidence))
    }

    /// The track of place `id` in the current catalog, added when missing; nil for an id the
    /// catalog does not know.
    private mutating func track(of id: String) -> Int? {
        if let i = state.tracks.firstIndex(where: { $0.id == id }) { return i }
        guard let position = catalog.position(of: id) else { return nil }
        let fence = catalog.fences[position]
        state.tracks.append(PlaceTrack(id: fence.id, center: fence.center, radiusMeters: fence.radiusMeters))
        trackPositions.append(position)
        trackVectors.append(catalog.vectors[position])
        return state.tracks.count - 1
    }

    /// A place registered while the fix is inside it: entered now if P(inside) at this fix
    /// exceeds the entry threshold.
    private mutating func enterIfInside(_ id: String, fix: Fix, time: Double, into output: inout MonitorOutput) {
        guard let i = track(of: id), !state.tracks[i].inside else { return }
        let vector = UnitVector(fix.coordinate)
        let p = insideProbability(track: i, vector, distance: Self.meters(vector, trackVectors[i]), sigma: sigma(of: fix))
        state.tracks[i].lastProbability = p
        state.tracks[i].lastProbabilitySeconds = time
        if p > settings.enterProbability { enter(track: i, at: time, evidence: .fixes(probabilityInside: p), into: &output) }
    }

    mutating func handleRegion(_ report: RegionReport, into output: inout MonitorOutput) {
        let time = report.timeSeconds
        if report.regionID.hasPrefix(catalog.refreshIdentifierPrefix) {
            guard report.regionID == rotator.state.refresh?.id else {
                output.ignored = "region '\(report.regionID)' is not the registered refresh region"
                return
            }
            // An entry of the refresh region (Android's initial trigger) says nothing new.
            if report.kind == .exit { state.refreshExitPending = true }
            return
        }
        guard let i = track(of: report.regionID) else {
            output.ignored = "region '\(report.regionID)' is no place of catalog version \(catalog.version)"
            return
        }
        switch report.kind {
        case .entry:
            // An approach region (a place smaller than the platform resolves) says the user is
            // near the place, not in it: a cue to look for a stop; the fixes decide the entry.
            if trackPositions[i] >= 0, catalog.registersByApproach(trackPositions[i]) {
                if settings.visits != nil { state.cue = VisitCue(seconds: time, placeID: state.tracks[i].id) }
                return
            }
            // Absorbed when the app entered it already, or when a fix of the last few seconds,
            // one of a stream, puts the user clearly outside (a late entry of a visit the app
            // already ended, or the platform's own noise): the rule enters if the user really is
            // inside.
            guard !state.tracks[i].inside else { return }
            let streaming: Bool
            if case .continuous = locationRequest() { streaming = true } else { streaming = state.lastTrustedFixContinuous }
            if streaming, let p = probabilityAtLastTrustedFix(track: i, within: settings.platformEntryVetoSeconds, of: time),
                p < settings.platformEntryVetoProbability
            {
                return
            }
            enter(track: i, at: time, evidence: .platform, into: &output)
        case .exit:
            if state.cue?.placeID == report.regionID { state.cue?.placeID = nil }
            // The platform says the user left the place of the visit under way: a cue, whose
            // fixes see the departure within a minute or two (else only the next fix of any kind
            // would, minutes later where the regions ask for none).
            if state.stay?.arrival?.placeID == report.regionID, state.cue == nil {
                state.cue = VisitCue(seconds: time)
            }
            guard state.tracks[i].inside else { return }
            // An exit stamped before the visit's entry is a clock or ordering error of the host:
            // taken, it would make a visit of negative length.
            if let entered = state.tracks[i].enteredSeconds, time < entered {
                output.ignored = "exit at \(time) s is before the visit's entry at \(entered) s"
                return
            }
            // Absorbed while the engine asks for continuous fixes and a recent one puts the user
            // inside (a late exit of an earlier visit, or the platform's own noise): the rule
            // decides the exit from the fixes that follow. Otherwise nothing else would end the
            // visit, so the exit is taken.
            if case .continuous = locationRequest(),
                let p = probabilityAtLastTrustedFix(track: i, within: settings.platformOverrideSeconds, of: time),
                p > settings.enterProbability
            {
                return
            }
            exit(track: i, at: time, evidence: .platform, into: &output)
        }
    }

    /// P(inside) of track `i` at the last trusted fix, when that fix is at most `seconds` before
    /// `time`; nil otherwise. A place not evaluated at that fix was beyond reach: 0.
    func probabilityAtLastTrustedFix(track i: Int, within seconds: Double, of time: Double) -> Double? {
        guard let seen = state.lastTrustedFixSeconds, time - seen <= seconds else { return nil }
        return state.tracks[i].lastProbabilitySeconds == seen ? state.tracks[i].lastProbability ?? 0 : 0
    }

    mutating func handleCatalog(_ newCatalog: PlaceCatalog, at time: Double, into output: inout MonitorOutput) {
        let resumed: FenceRotator
        do {
            resumed = try FenceRotator(catalog: newCatalog.planning, configuration: rotator.configuration, state: rotator.state)
        } catch {
            output.ignored = "catalog version \(newCatalog.version) cannot resume this device: \(error)"
            return
        }
        rotator = resumed
        catalog = newCatalog
        rebuildTrackPositions()
        endTracksNotInCatalog(at: time, into: &output)
        // A state the change broke is replanned now when a plan holds wherever the device may be
        // (inside its old refresh circle): the host can push it without waiting for a fix.
        // Otherwise the location request asks for one fix, which reselects.
        if rotator.mustReselect, let update = rotator.replanAtRefreshCenter() {
            output.operations = update.diff.operations
            output.insideAtStart = update.diff.insideAtStart
        }
    }

    /// Drops the tracks of places the catalog no longer has with their definition; a visit under
    /// way in one of them ends now (`catalogChange`).
    mutating func endTracksNotInCatalog(at time: Double, into output: inout MonitorOutput) {
        for (track, position) in zip(state.tracks, trackPositions) where position < 0 && track.inside {
            output.placeEvents.append(PlaceEvent(placeID: track.id, kind: .exit, timeSeconds: time, evidence: .catalogChange))
        }
        keepTracks(trackPositions.map { $0 >= 0 })
    }
}
