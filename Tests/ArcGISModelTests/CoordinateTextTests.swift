import Geometry
import Testing

/// Points as people and commands write them: `LON,LAT` read and written by one rule, so a printed
/// point pasted back lands where it was; a pair latitude first is said, not silently misplaced.
struct CoordinateTextTests {
    @Test func aWrittenPointReadsBackAsItself() throws {
        let point = GeoPoint(longitude: -68.20391, latitude: 44.38762)
        #expect(point.written() == "-68.20391,44.38762")
        let back = try #require(GeoPoint(parsing: point.written()))
        #expect(back == point)
        #expect(point.written(places: 2) == "-68.20,44.39")
    }

    @Test func peopleReadLatitudeFirstWithItsHemisphere() {
        #expect(GeoPoint(longitude: -71.208, latitude: 46.8139).degrees() == "46.8139°N 71.2080°W")
        #expect(GeoPoint(longitude: 151.21, latitude: -33.87).degrees(places: 2) == "33.87°S 151.21°E")
    }

    @Test func aPairLatitudeFirstIsSaidTheRightWayRound() {
        #expect(GeoPoint(parsing: "30.27,-97.74") == nil)
        #expect(GeoPoint.notAPoint("30.27,-97.74", what: "--at")
                == "--at must be longitude,latitude, such as -68.2,44.35. 30.27,-97.74 reads latitude first: -97.7400,30.2700 is that point.")
        #expect(GeoPoint.notAPoint("east", what: "--at") == "--at must be longitude,latitude, such as -68.2,44.35.")
        #expect(GeoPoint.notAPoint("200,100", what: "The point") == "The point must be longitude,latitude, such as -68.2,44.35.")
    }
}
