import Geodesy
import Testing

@Suite struct CoordinateTests {
    @Test(arguments: [
        (Double.nan, 0.0, CoordinateError.latitudeNotFinite),
        (0.0, Double.infinity, CoordinateError.longitudeNotFinite),
        (-Double.infinity, Double.nan, CoordinateError.latitudeNotFinite),
        (90.000001, 0.0, CoordinateError.latitudeOutOfRange(90.000001)),
        (-91.0, 0.0, CoordinateError.latitudeOutOfRange(-91)),
        (0.0, 180.0000001, CoordinateError.longitudeOutOfRange(180.0000001)),
        (0.0, -540.0, CoordinateError.longitudeOutOfRange(-540)),
    ])
    func rejectsInvalidValuesNamingTheRule(latitude: Double, longitude: Double, expected: CoordinateError) {
        #expect(throws: expected) { try Coordinate(latitude: latitude, longitude: longitude) }
    }

    @Test(arguments: [(90.0, 0.0), (-90.0, 180.0), (0.0, -180.0), (0.0, 180.0), (-45.5, 12.25)])
    func acceptsBoundaryValues(latitude: Double, longitude: Double) throws {
        let c = try Coordinate(latitude: latitude, longitude: longitude)
        #expect(c.latitude == latitude)
        #expect(abs(c.longitude) == abs(longitude))
    }

    @Test func minus180AndPlus180AreTheSameMeridian() throws {
        let west = try Coordinate(latitude: 12.5, longitude: -180)
        let east = try Coordinate(latitude: 12.5, longitude: 180)
        #expect(west == east)
        #expect(west.distance(to: east) == 0)
        #expect(UnitVector(west) == UnitVector(east))
    }

    @Test func errorsDescribeTheRule() {
        #expect(CoordinateError.latitudeOutOfRange(91).description.contains("-90...90"))
        #expect(CoordinateError.longitudeNotFinite.description.contains("longitude"))
    }
}
