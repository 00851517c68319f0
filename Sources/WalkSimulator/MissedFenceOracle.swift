import FencePlanner
import Geodesy
import SpatialIndex

/// Replays a rotator over a walk on the ideal phone and checks the true path against every fence.
///
/// The host is the platform replay's (`PlatformReplay`) on `EmulatedPlatform.ideal(delaySeconds:)`:
/// no region limit, no cushion, no position error; the refresh region's exit is decided at the
/// first sample whose true position is outside it and delivered `platformDelaySeconds` later,
/// and the woken app's fix (the first fix at or after the delivery) reselects. While the
/// selection is `exact` the app asks for no fixes; while `degraded` or `saturated` it hands every
/// fix to the rotator, which reselects when the fix leaves the fallback distance
/// (`PlannerStrategy`). Every reselection is recorded with its sample.
///
/// The check: the true path, densified between consecutive samples along the great circle at most
/// 1 m apart (`DensifiedPath`, as the visit oracle walks it), is tested against every fence of the
/// catalog (through the index; a footprint by its polygon), with the
/// places monitored from the latest reselection at or before the segment's first sample. A
/// *miss* is a moment when the true position is inside (or on) the fence of a place that is not
/// monitored then; consecutive missed points of one place are one miss event.
public enum MissedFenceOracle {
    /// Longest distance between two checked points of the true path, meters.
    public static let checkSpacingMeters = 1.0

    /// - Parameter recordUpdates: keep every reselection (with its sample index) in
    ///   `OracleReport.updates`, for plan traces and maps.
    public static func replay<Rotator: FenceRotating>(
        _ walk: Walk, rotator: inout Rotator, catalog: PlaceCatalog, placeSlots: Int, platformDelaySeconds: Double = 0,
        recordUpdates: Bool = false
    ) -> OracleReport {
        var planner = PlannerStrategy(rotator: rotator)
        let phone = PlatformReplay(platform: .ideal(delaySeconds: platformDelaySeconds), seed: 0)
        let path = TruePath(walk)
        _ = phone.run(walk, strategy: &planner, path: path)
        rotator = planner.rotator
        let densified = DensifiedPath(walk, path: path, spacingMeters: checkSpacingMeters)
        var report = check(walk, path: densified, updates: planner.updates, catalog: catalog, placeSlots: placeSlots)
        if !recordUpdates { report.updates = [] }
        return report
    }

    /// Checks `walk`'s true path against the places `updates` monitored, sample by sample.
    static func check(_ walk: Walk, path: DensifiedPath, updates: [RecordedUpdate], catalog: PlaceCatalog, placeSlots: Int) -> OracleReport
    {
        var report = OracleReport()
        report.walks = 1
        report.meters = walk.lengthMeters
        report.fixes = walk.deliveredFixes
        report.updates = updates
        var monitored: Set<String> = []
        var guarantee: Guarantee?
        var buffer = NeighborBuffer()
        var openEvents: [String: Int] = [:]  // place id -> last checked-point number where it was missed
        var checkedPoint = 0
        var next = updates.startIndex

        for (i, sample) in walk.samples.enumerated() {
            while next < updates.endIndex, updates[next].sampleIndex == i {
                let update = updates[next].update
                next += 1
                report.reselections += 1
                report.starts += update.diff.start.count
                report.stops += update.diff.stop.count
                monitored = Set(update.selection.monitored.map(\.fence.id))
                guarantee = update.selection.guarantee
                report.maxSlotsUsed = max(report.maxSlotsUsed, monitored.count + (update.selection.refresh == nil ? 0 : 1))
            }
            if sample.fix != nil {
                switch guarantee {
                case .degraded: report.degradedFixes += 1
                case .saturated: report.saturatedFixes += 1
                default: break
                }
            }

            // Check the true path from this sample up to (not including) the next one. Any fence
            // containing a point of the step has its edge within half the step's length of the
            // step's midpoint (plus a millimeter for rounding).
            let length = i + 1 < walk.samples.count ? path.path.stepMeters[i] : 0
            let a = path.path.vectors[i]
            let b = length == 0 ? a : path.path.vectors[i + 1]
            let midpoint = UnitVector(x: a.x + b.x, y: a.y + b.y, z: a.z + b.z).normalized
            catalog.index.within(length / 2 + 0.001, of: midpoint, measuredTo: .edge, into: &buffer)
            // A footprint is found by its enclosing circle and tested by its polygon.
            let candidates = buffer.neighbors.map {
                (
                    index: $0.index, chord2: GreatCircle.squaredChord(arcMeters: catalog.places[$0.index].radiusMeters),
                    footprint: catalog.places[$0.index].footprint
                )
            }
            path.forEachPoint(ofStep: i) { point, _ in
                checkedPoint += 1
                let containing = candidates.filter {
                    $0.footprint?.contains(point) ?? (point.squaredChord(to: catalog.vectors[$0.index]) <= $0.chord2)
                }
                for candidate in containing {
                    let id = catalog.places[candidate.index].id
                    guard !monitored.contains(id) else { continue }
                    defer { openEvents[id] = checkedPoint }
                    if openEvents[id] == checkedPoint - 1 { continue }
                    report.misses.append(
                        MissEvent(
                            placeID: id, timeSeconds: sample.timeSeconds, position: Coordinate(point), fencesContaining: containing.count,
                            withinSlots: containing.count <= placeSlots, guarantee: guarantee))
                }
            }
        }
        return report
    }
}

/// One miss event: the true position entered the fence of a place that was not monitored.
public struct MissEvent: Hashable, Sendable {
    public var placeID: String
    /// Time of the sample whose segment the miss began on.
    public var timeSeconds: Double
    /// The first missed point.
    public var position: Coordinate
    /// How many fences contained that point.
    public var fencesContaining: Int
    /// Whether that is no more than the place slots (a selection covering them all existed).
    public var withinSlots: Bool
    /// The guarantee of the selection in force (nil before the first).
    public var guarantee: Guarantee?

    /// Whether the planner had declared more fences than slots within reach.
    public var inSaturatedState: Bool {
        if case .saturated = guarantee { return true }
        return false
    }

    /// A miss a planner should not make: the point was inside no more fences than there are slots
    /// and the selection was not `saturated`.
    public var avoidable: Bool { withinSlots && !inSaturatedState }
}

/// What the oracle measured over one or more walks.
public struct OracleReport: Hashable, Sendable {
    public var walks = 0
    public var meters = 0.0
    public var fixes = 0
    public var reselections = 0
    public var starts = 0
    public var stops = 0
    public var degradedFixes = 0
    public var saturatedFixes = 0
    /// Most regions registered at once (places plus the refresh region).
    public var maxSlotsUsed = 0
    public var misses: [MissEvent] = []
    /// Every reselection with the sample it happened at (only when asked for).
    public var updates: [RecordedUpdate] = []

    public init() {}

    public var kilometers: Double { meters / 1_000 }
    public var churn: Int { starts + stops }
    public var avoidableMisses: Int { misses.filter(\.avoidable).count }
    public var unavoidableMisses: Int { misses.count - avoidableMisses }
    /// Unavoidable misses outside a `saturated` state (the point was inside more fences than
    /// slots while the planner claimed otherwise): must be 0.
    public var unavoidableOutsideSaturation: Int { misses.filter { !$0.avoidable && !$0.inSaturatedState }.count }
    /// Misses in a `saturated` state at a point inside no more fences than slots (counted as
    /// unavoidable: the planner had declared that no selection could be exact).
    public var saturatedButWithinSlots: Int { misses.filter { $0.inSaturatedState && $0.withinSlots }.count }
    public func perKilometer(_ count: Int) -> Double { meters > 0 ? Double(count) / kilometers : 0 }
    public var degradedShare: Double { fixes > 0 ? Double(degradedFixes) / Double(fixes) : 0 }
    public var saturatedShare: Double { fixes > 0 ? Double(saturatedFixes) / Double(fixes) : 0 }

    /// Adds another report (for many walks).
    public mutating func merge(_ other: OracleReport) {
        walks += other.walks
        meters += other.meters
        fixes += other.fixes
        reselections += other.reselections
        starts += other.starts
        stops += other.stops
        degradedFixes += other.degradedFixes
        saturatedFixes += other.saturatedFixes
        maxSlotsUsed = max(maxSlotsUsed, other.maxSlotsUsed)
        misses += other.misses
        updates += other.updates
    }
}
