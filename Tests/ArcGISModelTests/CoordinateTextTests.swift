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

    /// `--extent` and `--bbox` read a box by one rule: exactly four numbers, west below east,
    /// south below north (a stray word is refused, not skipped).
    @Test func aWrittenBoxReadsBackAsItself() throws {
        let box = GeoExtent(xmin: -70.5, ymin: 43.25, xmax: -69.125, ymax: 44.0)
        #expect(box.written() == "-70.50000,43.25000,-69.12500,44.00000")
        #expect(GeoExtent(parsing: box.written()) == box)
        #expect(GeoExtent(parsing: " -70.5 , 43.25,-69.125,44 ") == box)
        for refused in ["-70.5,x,43.25,-69.125,44", "-69,43,-70,44", "-70,44,-69,43", "-70,43,-69", "-70,43,-69,44,1", "-200,0,10,10", "0,-91,1,1", "nan,0,1,1", ""] {
            #expect(GeoExtent(parsing: refused) == nil, "\(refused)")
        }
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
