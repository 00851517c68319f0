import Geodesy
import SpatialIndex

/// The k nearest by exact fence edge over polygon footprints (`FootprintIndex`) against the k
/// nearest circles by edge over the same number of places, in the same run: synthetic
/// store-scale footprints (stars of 4–64 vertices, 8–60 m from their centers) spread over the
/// band of latitudes -60° to 70°, queries within 300 m of a random place; the circle query is the
/// k-d tree's own query by edge over the footprints' enclosing caps as circles (what a catalog of
/// circles runs: the same tree shape, the same k). Building the footprints (validating every
/// ring) and the index is timed once each; the first
/// `checkedQueries` answers are checked against ranking every place by its exact edge distance.
public enum FootprintBenchmark {
    public struct Configuration: Sendable {
        public var count = 100_000
        public var queries = 20_000
        public var k = 18
        public var repetitions = 5
        public var checkedQueries = 5
        public var seed: UInt64 = 1
        public init() {}
    }

    public struct Report: Sendable {
        public var count: Int
        public var vertices: Int
        public var footprintsBuildSeconds: Double
        public var treeBuildSeconds: Double
        /// Per query, ns: exact by footprint edge, and circles by edge.
        public var footprintQuery: Measurement
        public var circleQuery: Measurement
        public var bytesPerVertex: Double
        public var checked: Int
        public var mismatches: Int
        public var checksum: Double
        public var ratio: Double { footprintQuery.median / circleQuery.median }
    }

    public static func run(_ configuration: Configuration, progress: (String) -> Void = { _ in }) throws -> Report {
        var rng = SplitMix64(seed: configuration.seed)
        progress("making \(configuration.count) footprints")
        var shapes: [FootprintIndex.Shape] = []
        shapes.reserveCapacity(configuration.count)
        var vertices = 0
        let footprintsSeconds =
            try Stopwatch.nanoseconds {
                for _ in 0..<configuration.count {
                    let center = try Coordinate(latitude: rng.nextDouble(in: -60..<70), longitude: rng.nextDouble(in: -180..<180))
                    let count = Int(rng.next() % 61) + 4
                    var ring = (0..<count).map { i in
                        center.destination(
                            bearingDegrees: -360 * (Double(i) + rng.nextDouble(in: 0..<0.8)) / Double(count),
                            distanceMeters: rng.nextDouble(in: 8..<60))
                    }
                    ring.append(ring[0])
                    shapes.append(.footprint(SphericalMultiPolygon(try SphericalPolygon(shell: ring))))
                    vertices += count
                }
            } / 1e9
        progress("building the tree")
        var index = FootprintIndex([])
        let treeSeconds = Stopwatch.nanoseconds { index = FootprintIndex(shapes) } / 1e9
        let circles = FootprintIndex(
            shapes.map { shape in
                guard case .footprint(let footprint) = shape else { return shape }
                return .circle(center: footprint.cap.center, radiusMeters: footprint.cap.radiusMeters)
            })
        let queries = (0..<configuration.queries).map { _ -> UnitVector in
            guard case .footprint(let footprint) = shapes[Int(rng.next() % UInt64(shapes.count))] else { fatalError("footprints only") }
            return UnitVector(
                Coordinate(footprint.cap.center).destination(
                    bearingDegrees: rng.nextDouble(in: 0..<360), distanceMeters: rng.nextDouble(in: 0..<300)))
        }
        var buffer = NeighborBuffer()
        var results: [Neighbor] = []
        var checksum = 0.0
        progress("timing \(configuration.queries) queries x \(configuration.repetitions)")
        let footprintQuery = Stopwatch.measure(repetitions: configuration.repetitions, operations: queries.count) {
            for query in queries {
                index.nearest(configuration.k, to: query, into: &buffer, results: &results)
                checksum += results.last?.distanceMeters ?? 0
            }
        }
        let circleQuery = Stopwatch.measure(repetitions: configuration.repetitions, operations: queries.count) {
            for query in queries {
                circles.tree.nearest(configuration.k, to: query, measuredTo: .edge, into: &buffer)
                checksum += buffer.neighbors.last?.distanceMeters ?? 0
            }
        }
        progress("checking \(configuration.checkedQueries) answers against every place's exact distance")
        var mismatches = 0
        let checked = min(configuration.checkedQueries, queries.count)
        for query in queries.prefix(checked) {
            index.nearest(configuration.k, to: query, into: &buffer, results: &results)
            var all: [(Double, Int)] = []
            all.reserveCapacity(shapes.count)
            for (i, shape) in shapes.enumerated() {
                guard case .footprint(let footprint) = shape else { continue }
                all.append((footprint.signedDistanceMeters(to: query), i))
            }
            all.sort { $0 < $1 }
            if results.map(\.index) != all.prefix(configuration.k).map(\.1) { mismatches += 1 }
        }
        return Report(
            count: configuration.count, vertices: vertices, footprintsBuildSeconds: footprintsSeconds, treeBuildSeconds: treeSeconds,
            footprintQuery: footprintQuery, circleQuery: circleQuery, bytesPerVertex: index.bytesPerVertex, checked: checked,
            mismatches: mismatches, checksum: checksum)
    }
}
