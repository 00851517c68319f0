import EventEngine
import FencePlanner
import Geodesy

/// Many seeded walks over one synthetic place set, replayed through `FenceRotator` and the
/// missed-fence oracle: what `rotate simulate` runs.
public struct Simulation: Sendable {
    public struct Scenario: Hashable, Sendable {
        public var placeSet: PlaceSetKind = .uniform
        public var placeCount = 2_000
        /// Side of the square region holding the places, meters.
        public var regionSideMeters = 30_000.0
        /// Center of the region (moved to the date line or the pole for those walk kinds).
        public var regionCenter = Coordinate(validLatitude: 46.05, longitude: 14.51)
        /// `nil` mixes walking and driving walks.
        public var walkKind: WalkKind? = .walk
        public var walks = 100
        /// A fixed speed for every walk (m/s); nil draws it per walk (walking 1.0 to 1.8,
        /// driving 15 to 30).
        public var speedMetersPerSecond: Double?
        /// Length of each walk, drawn uniformly from this range, meters.
        public var lengthMeters: ClosedRange<Double> = 5_000...50_000
        public var fixes = FixModel(intervalSeconds: 1, noiseSigmaMeters: 5)
        /// Platform delay in reporting a refresh exit, seconds.
        public var platformDelaySeconds = 0.0
        /// The planner's configuration; its margin is replaced by the required one unless
        /// `marginOverrideMeters` is set.
        public var configuration = RotationConfiguration()
        /// rotate's battery budget for store visits (`VisitSettings.init(budget:)`).
        public var visitBudget = VisitBudget.balanced
        /// With a number: rotate's battery budget as an average power, mW, on top of the
        /// `balanced` preset (`VisitSettings.init(budgetMilliwatts:energy:)`, charged at the
        /// platform's costs); it replaces `visitBudget`.
        public var visitBudgetMilliwatts: Double?
        /// rotate registers places smaller than this by an approach region of this radius
        /// (`PlaceCatalog.approachRadiusMeters`), meters; nil: every place by its own fence.
        public var approachRadiusMeters: Double?
        /// rotate registers each footprint by its enclosing circle widened by this, meters
        /// (`PlaceCatalog.footprintCushionMeters`; 0: the circle itself).
        public var footprintCushionMeters = 0.0
        public var marginOverrideMeters: Double?
        public var seed: UInt64 = 1
        /// How errand trips move and stop (`walkKind == .errands`).
        public var errands = ErrandModel()

        public init() {}

        /// Walking speed range (m/s) and driving speed range.
        public static let walkingSpeeds: ClosedRange<Double> = 1.0...1.8
        public static let drivingSpeeds: ClosedRange<Double> = 15...30

        /// The fastest speed walks of this scenario reach.
        public var maxSpeedMetersPerSecond: Double {
            if let speedMetersPerSecond { return speedMetersPerSecond }
            if walkKind == .errands { return errands.maxSpeedMetersPerSecond }
            return walkKind == nil || walkKind == .drive ? Self.drivingSpeeds.upperBound : Self.walkingSpeeds.upperBound
        }

        /// The margin used: the override, or speed × (longest fix gap + delay) + noise allowance
        /// (on errand trips with stops indoors, that of the Wi-Fi fixes there).
        public var marginMeters: Double {
            var fixes = self.fixes
            if walkKind == .errands, errands.indoorShare > 0 {
                fixes.noiseSigmaMeters = max(fixes.noiseSigmaMeters, errands.indoorNoise.sigmaMeters)
            }
            return marginOverrideMeters
                ?? fixes.requiredMarginMeters(
                    maxSpeedMetersPerSecond: maxSpeedMetersPerSecond,
                    delaySeconds: platformDelaySeconds)
        }

        /// The region center actually used for `walkKind`.
        public var effectiveCenter: Coordinate {
            switch walkKind {
            case .dateLine: Coordinate(validLatitude: regionCenter.latitude, longitude: 180)
            case .pole: Coordinate(validLatitude: 90, longitude: 0)
            default: regionCenter
            }
        }
    }

    public let scenario: Scenario
    public let catalog: PlaceCatalog
    /// The catalog rotate is given: `catalog`, with approach regions when the scenario asks
    /// for them (`Scenario.approachRadiusMeters`); the same places.
    public let rotateCatalog: PlaceCatalog
    public let configuration: RotationConfiguration

    /// A simulation over the scenario's synthetic place set, or over `catalog` when given.
    public init(_ scenario: Scenario, catalog: PlaceCatalog? = nil) throws {
        self.scenario = scenario
        if let catalog {
            self.catalog = catalog
        } else {
            var rng = SplitMix64(seed: scenario.seed)
            let places = scenario.placeSet.places(
                count: scenario.placeCount, around: scenario.effectiveCenter,
                sideMeters: scenario.regionSideMeters, using: &rng)
            self.catalog = try PlaceCatalog(places: places)
        }
        rotateCatalog =
            scenario.approachRadiusMeters == nil && scenario.footprintCushionMeters == 0
            ? self.catalog
            : try self.catalog.withApproach(
                radiusMeters: scenario.approachRadiusMeters, footprintCushionMeters: scenario.footprintCushionMeters)
        var configuration = scenario.configuration
        configuration.marginMeters = scenario.marginMeters
        self.configuration = try configuration.validated()
    }

    /// The `index`-th walk of the scenario (seeded by the scenario seed and the index): an errand
    /// trip's walk for `.errands`.
    public func walk(_ index: Int) -> Walk {
        if scenario.walkKind == .errands { return trip(index).walk }
        var rng = SplitMix64(seed: scenario.seed &+ 0x9E37_79B9 &* UInt64(index + 1))
        let kind: WalkKind = scenario.walkKind ?? (rng.nextUnit() < 0.5 ? .walk : .drive)
        let speeds = kind == .drive ? Scenario.drivingSpeeds : Scenario.walkingSpeeds
        let drawnSpeed = rng.nextDouble(in: speeds.lowerBound..<speeds.upperBound)
        let speed = scenario.speedMetersPerSecond ?? drawnSpeed
        let lengths = scenario.lengthMeters
        let length = lengths.lowerBound + rng.nextUnit() * (lengths.upperBound - lengths.lowerBound)
        let waypoints = WalkGenerator.waypoints(
            kind, lengthMeters: length, places: catalog.places,
            center: scenario.effectiveCenter, using: &rng)
        return WalkGenerator.along(waypoints, speedMetersPerSecond: speed, fixes: scenario.fixes, kind: kind, using: &rng)
    }

    /// The `index`-th errand trip of the scenario (`ErrandGenerator`, seeded by the scenario seed
    /// and the index), whatever the scenario's walk kind.
    public func trip(_ index: Int) -> Trip {
        var rng = SplitMix64(seed: scenario.seed &+ 0x9E37_79B9 &* UInt64(index + 1))
        return ErrandGenerator.trip(catalog: catalog, model: scenario.errands, fixes: scenario.fixes, using: &rng)
    }

    /// Replays one given walk (a recorded track) with the scenario's configuration and delay.
    public func replay(_ walk: Walk) throws -> OracleReport {
        var rotator = try FenceRotator(catalog: catalog, configuration: configuration)
        return MissedFenceOracle.replay(
            walk, rotator: &rotator, catalog: catalog, placeSlots: configuration.placeSlots,
            platformDelaySeconds: scenario.platformDelaySeconds)
    }

    /// Replays every walk; `progress` is called after each walk with (done, total).
    public func run(progress: (Int, Int) -> Void = { _, _ in }) throws -> OracleReport {
        try run(onPlatform: nil, progress: progress).oracle
    }

    /// What `run(onPlatform:progress:)` replays through an emulated phone: the phone, rotate's
    /// configuration there, and the strategies.
    public struct PlatformRun: Sendable {
        public var replay: PlatformReplay
        public var configuration: RotationConfiguration
        public var strategies: [StrategyKind]

        public init(replay: PlatformReplay, configuration: RotationConfiguration, strategies: [StrategyKind] = [.rotate]) {
            self.replay = replay
            self.configuration = configuration
            self.strategies = strategies
        }
    }

    /// Replays every walk through the missed-fence oracle and, with `platform`, through its
    /// emulated phone for each strategy (`runOnPlatform`): each walk is made once for both.
    /// `progress` is called after each walk with (done, total).
    public func run(
        onPlatform platform: PlatformRun?, progress: (Int, Int) -> Void = { _, _ in }
    ) throws -> (oracle: OracleReport, platform: [(strategy: StrategyKind, report: PlatformReplayReport)]) {
        var total = OracleReport()
        var totals = (platform?.strategies ?? []).map { (strategy: $0, report: PlatformReplayReport()) }
        for index in 0..<scenario.walks {
            let trip = scenario.walkKind == .errands ? self.trip(index) : nil
            let path = trip?.walk ?? walk(index)
            var rotator = try FenceRotator(catalog: catalog, configuration: configuration)
            let oracle = MissedFenceOracle.replay(
                path, rotator: &rotator, catalog: catalog, placeSlots: configuration.placeSlots,
                platformDelaySeconds: scenario.platformDelaySeconds)
            total.merge(oracle)
            if let platform {
                try replay(
                    path, walkIndex: index, lengthMeters: oracle.meters, stops: trip?.stops, decoys: trip?.decoys ?? [], on: platform,
                    into: &totals)
            }
            progress(index + 1, scenario.walks)
        }
        return (total, totals)
    }

    /// One walk through `platform`'s phone for each strategy, added to `totals`; the walk's
    /// converted path, visits and length are computed once for all.
    func replay(
        _ path: Walk, walkIndex: Int, lengthMeters: Double? = nil, stops: [TrueStop]? = nil, decoys: [DecoyStop] = [],
        on platform: PlatformRun, into totals: inout [(strategy: StrategyKind, report: PlatformReplayReport)]
    ) throws {
        let truePath = TruePath(path)
        let visits = platform.replay.visits(on: path, path: truePath, catalog: catalog)
        let meters = lengthMeters ?? truePath.lengthMeters
        for s in totals.indices {
            var strategy = try totals[s].strategy.make(
                catalog: totals[s].strategy == .rotate ? rotateCatalog : catalog, configuration: platform.configuration,
                visitBudget: scenario.visitBudget,
                budgetMilliwatts: scenario.visitBudgetMilliwatts, energy: platform.replay.platform.profile.energy)
            totals[s].report.merge(
                platform.replay.replay(
                    path, walkIndex: walkIndex, strategy: &strategy, catalog: catalog, path: truePath, visits: visits,
                    lengthMeters: meters, stops: stops, decoys: decoys))
        }
    }

    /// Errand trip `index` (`trip(_:)`) and what happened on `platform`'s phone while `strategy`
    /// ran over it: the replay `runOnPlatform` scores for that trip, kept event by event.
    public func timeline(ofTrip index: Int, on platform: PlatformRun, strategy kind: StrategyKind) throws -> (
        trip: Trip, timeline: ReplayTimeline
    ) {
        let trip = trip(index)
        var strategy = try kind.make(
            catalog: kind == .rotate ? rotateCatalog : catalog, configuration: platform.configuration, visitBudget: scenario.visitBudget,
            budgetMilliwatts: scenario.visitBudgetMilliwatts, energy: platform.replay.platform.profile.energy)
        let timeline = platform.replay.timeline(
            trip.walk, walkIndex: index, strategy: &strategy, catalog: catalog, stops: trip.stops, decoys: trip.decoys)
        return (trip, timeline)
    }

    /// What happened on `platform`'s phone while `strategy` ran over `walk` (a recorded walk, with
    /// its labelled `stops` if any): the replay `runOnPlatform` scores, kept event by event.
    public func timeline(
        of walk: Walk, stops: [TrueStop]? = nil, on platform: PlatformRun, strategy kind: StrategyKind
    ) throws -> ReplayTimeline {
        var strategy = try kind.make(
            catalog: kind == .rotate ? rotateCatalog : catalog, configuration: platform.configuration, visitBudget: scenario.visitBudget,
            budgetMilliwatts: scenario.visitBudgetMilliwatts, energy: platform.replay.platform.profile.energy)
        return platform.replay.timeline(walk, walkIndex: 0, strategy: &strategy, catalog: catalog, stops: stops, decoys: [])
    }

    /// Replays each of `strategies` over every walk (or over `walk` alone) through an emulated
    /// phone, scoring the entries each app receives against the visits on the true path; rotate
    /// uses `configuration`, the reference designs its region limit. Each walk, and its visits,
    /// is made once for all strategies. Reports in `strategies` order. Errand trips, and a given
    /// walk with its labelled `stops`, are scored by the stop oracle too.
    public func runOnPlatform(
        _ replay: PlatformReplay, configuration: RotationConfiguration, strategies: [StrategyKind] = [.rotate], walk given: Walk? = nil,
        stops givenStops: [TrueStop]? = nil, progress: (Int, Int) -> Void = { _, _ in }
    ) throws -> [(strategy: StrategyKind, report: PlatformReplayReport)] {
        let platform = PlatformRun(replay: replay, configuration: configuration, strategies: strategies)
        var totals = strategies.map { (strategy: $0, report: PlatformReplayReport()) }
        let count = given == nil ? scenario.walks : 1
        for index in 0..<count {
            if let given {
                try self.replay(given, walkIndex: index, stops: givenStops, on: platform, into: &totals)
            } else if scenario.walkKind == .errands {
                let trip = self.trip(index)
                try self.replay(trip.walk, walkIndex: index, stops: trip.stops, decoys: trip.decoys, on: platform, into: &totals)
            } else {
                try self.replay(walk(index), walkIndex: index, on: platform, into: &totals)
            }
            progress(index + 1, count)
        }
        return totals
    }
}
