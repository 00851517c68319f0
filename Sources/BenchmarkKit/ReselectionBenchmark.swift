import Geodesy
import SpatialIndex

/// `rotate bench`'s reselection-style workload: build the index over N places, then ask for the
/// k nearest (by fence edge, as the planner does) around query points near places; time the same
/// queries answered by brute force (compute all distances, sort) in the same run.
public struct ReselectionBenchmark: Sendable {
    /// What to measure.
    public struct Configuration: Sendable, Equatable {
        /// Number of synthetic clustered places (ignored when places are given).
        public var count = 100_000
        /// Queries per repetition for the tree.
        public var queries = 100_000
        /// Seed of places and query points.
        public var seed: UInt64 = 1
        /// Neighbors per query: 17 place slots plus the next one, which sizes the refresh circle.
        public var k = 18
        /// Rank by fence edge (the planner's query) or by center.
        public var target: DistanceTarget = .edge
        /// Radius of every synthetic place, or nil for mixed radii (uniform 20 m to 5 km).
        public var radiusMeters: Double? = 100
        /// Timed repetitions (the median is reported).
        public var repetitions = 5
        /// Queries per repetition for the brute-force baseline; nil picks a number that keeps it
        /// to roughly 10 million distance evaluations per repetition.
        public var baselineQueries: Int? = nil
        /// Leaf size of the tree.
        public var leafSize = KDTree.defaultLeafSize

        public init() {}

        /// The baseline's queries per repetition actually used for `placeCount` places.
        public func effectiveBaselineQueries(placeCount: Int) -> Int {
            if let baselineQueries { return Swift.min(baselineQueries, queries) }
            return Swift.min(queries, Swift.max(10, 10_000_000 / Swift.max(1, placeCount)))
        }
    }

    /// What was measured.
    public struct Report: Sendable, Equatable {
        public var placeCount: Int
        public var k: Int
        public var target: DistanceTarget
        public var queries: Int
        public var repetitions: Int
        public var buildMilliseconds: Measurement
        public var memoryBytes: Int
        public var nanosecondsPerQuery: Measurement
        public var baselineQueries: Int
        public var baselineNanosecondsPerQuery: Measurement
        /// Sum over all tree results of (index + 1), to defeat dead-code elimination.
        public var checksum: UInt64
        /// Baseline queries whose tree answer differed from brute force (must be 0).
        public var mismatches: Int
        /// The pruning's work: nodes visited, distances evaluated and ranking keys computed per
        /// query (by edge, a distance becomes a key only when the place can rank), averaged over
        /// the first `countedQueries` queries (counted apart from the timed runs).
        public var nodesPerQuery: Double = 0
        public var pointsPerQuery: Double = 0
        public var keysPerQuery: Double = 0
        public var countedQueries: Int = 0

        public var bytesPerPlace: Double { placeCount == 0 ? 0 : Double(memoryBytes) / Double(placeCount) }
        public var queriesPerSecond: Double { 1e9 / nanosecondsPerQuery.median }
        public var baselineQueriesPerSecond: Double { 1e9 / baselineNanosecondsPerQuery.median }
        /// Baseline time over tree time (medians).
        public var speedup: Double { baselineNanosecondsPerQuery.median / nanosecondsPerQuery.median }
    }

    public let configuration: Configuration
    public let places: [Coordinate]
    public let radiiMeters: [Double]
    /// Query positions given by the caller (else generated near places).
    public var givenQueries: [UnitVector]?

    /// A benchmark over synthetic clustered places (200 towns of about 20 km, seeded).
    public init(configuration: Configuration) {
        var rng = SplitMix64(seed: configuration.seed)
        let places = SyntheticCoordinates.clustered(count: configuration.count, using: &rng)
        let radii: [Double]
        if let radius = configuration.radiusMeters {
            radii = Array(repeating: radius, count: places.count)
        } else {
            radii = places.map { _ in rng.nextDouble(in: 20..<5_000) }
        }
        self.init(configuration: configuration, places: places, radiiMeters: radii)
    }

    /// A benchmark over given places and radii (and, optionally, given query positions).
    public init(configuration: Configuration, places: [Coordinate], radiiMeters: [Double], queries: [UnitVector]? = nil) {
        precondition(places.count == radiiMeters.count, "one radius per place")
        self.configuration = configuration
        self.places = places
        self.radiiMeters = radiiMeters
        self.givenQueries = queries
    }

    /// Query positions: a random place, moved by a Gaussian of 500 m per axis (seeded).
    public func queryPoints() -> [UnitVector] {
        if let givenQueries { return givenQueries }
        var rng = SplitMix64(seed: configuration.seed ^ 0x5155_4552_5931)
        guard !places.isEmpty else { return [] }
        return (0..<configuration.queries).map { _ in
            let base = places[rng.nextInt(below: places.count)]
            return UnitVector(SyntheticCoordinates.gaussian(around: base, sigmaMeters: 500, using: &rng))
        }
    }

    /// Runs the benchmark; `progress` receives one line per phase (for stderr).
    public func run(progress: (String) -> Void = { _ in }) -> Report {
        let config = configuration
        let vectors = places.map(UnitVector.init)
        progress("building the index over \(places.count) places")
        var tree = KDTree(vectors: vectors, radiiMeters: radiiMeters, leafSize: config.leafSize)
        let buildRepetitions = Swift.max(1, Swift.min(3, config.repetitions))
        let build = Stopwatch.measure(repetitions: buildRepetitions, operations: 1, warmUp: false) {
            tree = KDTree(vectors: vectors, radiiMeters: radiiMeters, leafSize: config.leafSize)
        }
        let queries = queryPoints()
        var buffer = NeighborBuffer(capacity: config.k)
        var checksum: UInt64 = 0
        var repetition = 0
        progress("timing \(config.repetitions) x \(queries.count) tree queries (k = \(config.k))")
        let treeTime = Stopwatch.measure(repetitions: config.repetitions, operations: Swift.max(1, queries.count)) {
            var sum: UInt64 = 0
            for query in queries {
                tree.nearest(config.k, to: query, measuredTo: config.target, into: &buffer)
                for neighbor in buffer.neighbors { sum &+= UInt64(neighbor.index + 1) }
            }
            checksum = sum
            repetition += 1
        }

        let brute = BruteForceIndex(vectors: vectors, radiiMeters: radiiMeters)
        let baselineCount = config.effectiveBaselineQueries(placeCount: places.count)
        let baselineQueries = Array(queries.prefix(baselineCount))
        progress("timing \(config.repetitions) x \(baselineQueries.count) brute-force queries")
        var baselineSum: UInt64 = 0
        let baselineTime = Stopwatch.measure(
            repetitions: config.repetitions, operations: Swift.max(1, baselineQueries.count), warmUp: false
        ) {
            var sum: UInt64 = 0
            for query in baselineQueries {
                for neighbor in brute.nearestSortingAll(config.k, to: query, measuredTo: config.target) {
                    sum &+= UInt64(neighbor.index + 1)
                }
            }
            baselineSum = sum
        }
        _ = baselineSum
        var mismatches = 0
        for query in baselineQueries {
            tree.nearest(config.k, to: query, measuredTo: config.target, into: &buffer)
            if buffer.neighbors != brute.nearest(config.k, to: query, measuredTo: config.target) { mismatches += 1 }
        }
        var report = Report(
            placeCount: places.count, k: config.k, target: config.target, queries: queries.count,
            repetitions: config.repetitions,
            buildMilliseconds: Measurement(samples: build.samples.map { $0 / 1e6 }),
            memoryBytes: tree.memoryBytes, nanosecondsPerQuery: treeTime,
            baselineQueries: baselineQueries.count, baselineNanosecondsPerQuery: baselineTime,
            checksum: checksum, mismatches: mismatches)
        let counted = queries.prefix(10_000)
        var nodes = 0, points = 0, keys = 0
        for query in counted {
            let work = tree.nearestCounting(config.k, to: query, measuredTo: config.target, into: &buffer)
            nodes += work.nodesVisited
            points += work.pointsEvaluated
            keys += work.keysComputed
        }
        report.countedQueries = counted.count
        report.nodesPerQuery = counted.isEmpty ? 0 : Double(nodes) / Double(counted.count)
        report.pointsPerQuery = counted.isEmpty ? 0 : Double(points) / Double(counted.count)
        report.keysPerQuery = counted.isEmpty ? 0 : Double(keys) / Double(counted.count)
        return report
    }
}
