import FencePlanner
import Foundation
import Geodesy
import RotateFormats
import RotateTestSupport
import Testing

/// Footprints as `GeoJSONWriter` writes them: what a GeoJSON reader sees (points inside the
/// written rings by the planar even-odd rule of longitude and latitude) is what rotate decides,
/// and rotate's own reader gets the same shape back.
@Suite struct GeoJSONFootprintWriterTests {
    /// Whether (lon, lat) lies inside the written polygons by the even-odd rule over all rings:
    /// how a GeoJSON consumer reads them.
    static func planarInside(_ polygons: [[[(Double, Double)]]], lon: Double, lat: Double) -> Bool {
        var inside = false
        for ring in polygons.flatMap({ $0 }) {
            for i in 0..<(ring.count - 1) {
                let a = ring[i], b = ring[i + 1]
                if (a.1 > lat) != (b.1 > lat) && lon < a.0 + (lat - a.1) / (b.1 - a.1) * (b.0 - a.0) { inside.toggle() }
            }
        }
        return inside
    }

    /// Random footprints (stars, some with a hole) in town, across the antimeridian and around
    /// the north and south poles: every written ring is closed, within ±180° and ±90°, and a
    /// point is inside the written rings exactly when rotate says it is inside, for points more
    /// than 0.5 m from the boundary (great-circle edges and lon/lat edges part by millimeters at
    /// this size), or, around a pole where lon/lat edges bend far from great circles (stars around
    /// the pole there), for points nearer the pole than half the nearest vertex or farther than
    /// every vertex.
    @Test(arguments: [(46.05, 14.51, false), (-17.0, 179.9995, false), (60.0, -179.9998, false), (90.0, 0.0, true), (-90.0, 0.0, true)])
    func writtenRingsHoldWhatRotateHolds(latitude: Double, longitude: Double, polar: Bool) throws {
        var rng = SplitMix64(seed: TestSeed.value(salt: UInt64(abs(latitude * 1e4) + abs(longitude * 10))))
        let center = Coordinate(validLatitude: latitude, longitude: longitude)
        let pole = Coordinate(validLatitude: latitude > 0 ? 90 : -90, longitude: 0)
        for round in 0..<20 {
            let radius = polar ? rng.nextDouble(in: 600..<900) : rng.nextDouble(in: 20..<300)
            let shape =
                polar
                ? try Self.star(around: pole, radiusMeters: radius, using: &rng)
                : PlannerFixtures.footprint(around: center, radiusMeters: radius, using: &rng)
            let polygons = GeoJSONWriter.footprintPolygonsForTesting(shape)
            for ring in polygons.flatMap({ $0 }) {
                #expect(ring.count >= 4 && ring.first! == ring.last!, "round \(round): ring not closed")
                #expect(ring.allSatisfy { (-180...180).contains($0.0) && (-90...90).contains($0.1) }, "round \(round)")
            }
            let vertexDistances = shape.parts.flatMap(\.shell).map { UnitVector(pole).angleRadians(to: $0) * Earth.meanRadiusMeters }
            for _ in 0..<300 {
                let point = center.destination(
                    bearingDegrees: rng.nextDouble(in: 0..<360), distanceMeters: rng.nextDouble(in: 0..<(1.3 * radius)))
                let vector = UnitVector(point)
                if polar {
                    let fromPole = point.distance(to: pole)
                    guard fromPole < vertexDistances.min()! * 0.5 || fromPole > vertexDistances.max()! * 1.05 else { continue }
                } else {
                    guard abs(shape.signedDistanceMeters(to: vector)) > 0.5 else { continue }
                }
                #expect(
                    Self.planarInside(polygons, lon: point.longitude, lat: point.latitude) == shape.contains(vector),
                    "round \(round): \(point)")
            }
        }
    }

    /// A star of 8–40 vertices around a pole, 0.3–1 × `radiusMeters` from it, counterclockwise
    /// seen from outside (eastward around the north pole, westward around the south one): two
    /// consecutive vertices at most 81° of longitude apart, so every great-circle edge passes
    /// at least 0.3 × cos 40.5° = 0.23 × `radiusMeters` from the pole.
    static func star(around pole: Coordinate, radiusMeters: Double, using rng: inout SplitMix64) throws -> SphericalMultiPolygon {
        let count = Int(rng.next() % 33) + 8
        let start = rng.nextDouble(in: -180..<180)
        let north = pole.latitude > 0
        let shell = (0..<count).map { i -> Coordinate in
            let turn = 360 * (Double(i) + rng.nextDouble(in: 0..<0.8)) / Double(count)
            var longitude = start + (north ? turn : -turn)
            longitude -= 360 * (longitude / 360).rounded()
            let degrees = radiusMeters * rng.nextDouble(in: 0.3..<1) / (Earth.meanRadiusMeters * .pi / 180)
            return Coordinate(validLatitude: north ? 90 - degrees : -90 + degrees, longitude: longitude == -180 ? 180 : longitude)
        }
        return SphericalMultiPolygon(try SphericalPolygon(shell: shell))
    }

    /// Written and read back by `GeoJSONPlaces`, a footprint (pieces cut at the antimeridian
    /// included) is the same shape: the same containment and edge distances within 2 cm (7
    /// decimals of a degree are 1.1 cm).
    @Test(arguments: [(46.05, 14.51), (-17.0, 179.9995), (60.0, -179.9998)])
    func readBackItIsTheSameShape(latitude: Double, longitude: Double) throws {
        var rng = SplitMix64(seed: TestSeed.value(salt: 977 + UInt64(abs(longitude))))
        let center = Coordinate(validLatitude: latitude, longitude: longitude)
        for round in 0..<20 {
            let radius = rng.nextDouble(in: 20..<300)
            let shape = PlannerFixtures.footprint(around: center, radiusMeters: radius, using: &rng)
            let text =
                #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"f","properties":{},"geometry":"#
                + GeoJSONWriter.footprintForTesting(shape) + "}]}"
            let read = try GeoJSONPlaces.read(bytes: Array(text.utf8))
            #expect(read.rejected.isEmpty, "round \(round): \(read.rejected)")
            guard case .polygon(let back) = try #require(read.features.first).shape else {
                Issue.record("round \(round): not a footprint")
                continue
            }
            for _ in 0..<200 {
                let point = UnitVector(
                    center.destination(bearingDegrees: rng.nextDouble(in: 0..<360), distanceMeters: rng.nextDouble(in: 0..<(1.3 * radius))))
                let want = shape.signedDistanceMeters(to: point), got = back.signedDistanceMeters(to: point)
                #expect(abs(want - got) < 0.02, "round \(round): \(want) vs \(got)")
            }
        }
    }
}
