import Foundation
import Testing
import Geometry
import MapbookCore
import SharedTestData

/// Projected coordinates brought back to longitude and latitude by PROJ, checked against values
/// from pyproj 3 (`Transformer.from_crs(code, 4326, always_xy=True)`) to a metre or so, and against
/// `cs2cs` (proj-bin), run here, for the systems of the real files and the corpus.
@Suite("Coordinate systems through PROJ")
struct ProjectionTests {
    @Test(arguments: [
        (32187, 250_000.0, 5_180_000.0, -71.217_353_254, 46.757_315_297),  // NAD83 / MTM zone 7: Québec City
        (32187, 300_000.0, 5_000_000.0, -70.561_032_378, 45.139_956_984),
        (2193, 1_748_735.0, 5_427_916.0, 174.776_193_515, -41.286_504_414), // NZTM: Wellington
        (25832, 500_000.0, 5_650_000.0, 9.0, 51.001_574_693),               // ETRS89 / UTM 32N
        (32619, 560_000.0, 4_910_000.0, -68.247_307_619, 44.340_787_936),   // WGS 84 / UTM 19N: Maine
        (2154, 652_216.63, 6_861_681.5, 2.3488, 48.8534),                   // RGF93 / Lambert-93: Paris
        (3347, 7_471_068.98, 1_190_424.21, -75.7, 45.42),                   // NAD83 / Statistics Canada Lambert: Ottawa
        (102004, 2_044_053.62, 806_698.97, -70.26, 43.66),                  // USA Contiguous Lambert (an Esri code): Portland, Maine
        (5070, -2_273_032.79, 1_958_176.39, -122.4, 37.8),                  // NAD83 / Conus Albers: San Francisco
        (3577, 1_760_115.36, -3_828_753.56, 151.2, -33.87),                 // GDA94 / Australian Albers: Sydney
    ])
    func agreesWithPyproj(code: Int, x: Double, y: Double, longitude: Double, latitude: Double) throws {
        let project = try #require(SpatialReference(wkid: code).geographicPoint)
        let point = project(x, y)
        #expect(abs(point.longitude - longitude) < 1e-5 && abs(point.latitude - latitude) < 1e-5, "\(code): \(point)")
    }

    /// The systems of the real files (State Plane in US feet, NAD27 UTM, a national grid with a
    /// datum shift) and the corpus's web maps, against `cs2cs` to a centimetre.
    @Test(.enabled(if: CS2CS.available, CS2CS.skipMessage), arguments: [
        (2924, 11_790_768.57, 7_056_614.63), (2286, 1_200_000.0, 300_000.0), (26711, 580_000.0, 3_760_000.0),
        (27700, 530_000.0, 180_000.0), (32187, 250_000.0, 5_180_000.0), (2193, 1_748_735.0, 5_427_916.0), (25832, 500_000.0, 5_650_000.0),
    ])
    func agreesWithCS2CS(code: Int, x: Double, y: Double) throws {
        // cs2cs takes the authority's axis order: NZTM's is northing first.
        let (latitude, longitude) = try #require(try CS2CS.transform(code == 2193 ? y : x, code == 2193 ? x : y, from: "EPSG:\(code)", to: "EPSG:4326"))
        let theirs = GeoPoint(longitude: longitude, latitude: latitude)
        let project = try #require(SpatialReference(wkid: code).geographicPoint)
        let ours = project(x, y)
        #expect(abs(ours.longitude - theirs.longitude) < 1e-7 && abs(ours.latitude - theirs.latitude) < 1e-7, "\(code): \(ours) against \(theirs)")
    }

    @Test func aTransformGoesBothWaysAndInBatches() throws {
        let toPlane = try CoordinateTransform.between(.wgs84, SpatialReference(wkid: 2924))
        let there = toPlane(x: -77.416_434_311_7, y: 39.020_775_180_7)
        #expect(abs(there.x - 11_790_768.57) < 0.01 && abs(there.y - 7_056_614.63) < 0.01, "\(there)")
        let back = toPlane.inverse(x: there.x, y: there.y)
        #expect(abs(back.x + 77.416_434_311_7) < 1e-9 && abs(back.y - 39.020_775_180_7) < 1e-9)
        var xs = [-77.416_434_311_7, -77.5], ys = [39.020_775_180_7, 39.1]
        toPlane.transform(xs: &xs, ys: &ys)
        #expect(abs(xs[0] - there.x) < 1e-6 && abs(ys[0] - there.y) < 1e-6 && xs[1] < xs[0] && ys[1] > ys[0])
    }

    /// Systems given as WKT (Esri's WKT 1, as services and custom geodatabase systems carry it).
    @Test func aSystemGivenAsWKTIsUsed() throws {
        let wkt = #"PROJCS["NAD_1983_UTM_Zone_19N",GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",-69.0],PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]"#
        let reference = try #require(SpatialReference(json: .object(["wkt": .string(wkt)])))
        let project = try #require(reference.geographicPoint)
        let point = project(500_000, 4_900_000)
        #expect(abs(point.longitude + 69) < 1e-9 && abs(point.latitude - 44.25) < 0.01, "\(point)")
        #expect(reference.summary.contains("UTM"))
    }

    /// Bad input: one reason each, never a crash, never a point in the wrong place.
    @Test func unusableSystemsSayWhy() throws {
        #expect(SpatialReference(wkid: 99999).problem?.reason == "wkid 99999 is not a coordinate system PROJ knows")
        #expect(SpatialReference(wkid: 99999).geographicPoint == nil)
        #expect(SpatialReference(wkid: nil, wkt: "PROJCS[nonsense").problem?.reason.hasPrefix("PROJ cannot read its WKT") == true)
        let huge = "PROJCS[\"" + String(repeating: "x", count: 100_000) + "\"]"
        #expect(SpatialReference(wkid: nil, wkt: huge).problem?.reason.contains("longer than any coordinate system's") == true)
        // Outside the system's reach PROJ gives no point: infinity, which readers refuse.
        let plane = try #require(SpatialReference(wkid: 2924).geographicPoint)
        let far = plane(1e30, -1e30)
        #expect(!far.longitude.isFinite || !far.latitude.isFinite)
        // And the other way: a point of China has no place in Virginia's State Plane.
        let china = try CoordinateTransform.between(.wgs84, SpatialReference(wkid: 2924))(x: 100, y: 39)
        #expect(!china.x.isFinite && !china.y.isFinite)
        var xs = [100.0, -77.4], ys = [39.0, 39.0]
        try CoordinateTransform.between(.wgs84, SpatialReference(wkid: 2924)).transform(xs: &xs, ys: &ys)
        #expect(!xs[0].isFinite && xs[1].isFinite)
        #expect(NamedCoordinateSystem("EPSG:2924")?.urn == "urn:ogc:def:crs:EPSG::2924")
        #expect(NamedCoordinateSystem("2924")?.code == 2924 && NamedCoordinateSystem("foo:1") == nil && NamedCoordinateSystem("EPSG:-3") == nil)
    }

    @Test func aWebMapsInitialExtentInAZoneBecomesGeographic() throws {
        let envelope = Envelope(xmin: 240_000, ymin: 5_170_000, xmax: 260_000, ymax: 5_190_000, spatialReference: SpatialReference(wkid: 32187))
        let extent = try #require(envelope.geographic)
        #expect(extent.xmin < -71.2 && extent.xmax > -71.2 && extent.ymin < 46.75 && extent.ymax > 46.75)
        #expect(extent.xmax - extent.xmin < 0.4 && extent.ymax - extent.ymin < 0.3)
        // A Lambert zone too: Lambert-93 around Paris.
        let paris = try #require(Envelope(xmin: 640_000, ymin: 6_850_000, xmax: 665_000, ymax: 6_875_000,
                                          spatialReference: SpatialReference(wkid: 2154)).geographic)
        #expect(paris.xmin < 2.35 && paris.xmax > 2.35 && paris.ymin < 48.85 && paris.ymax > 48.85)
        // A system PROJ does not know: nil, and the item's own extent is used.
        #expect(Envelope(xmin: 0, ymin: 0, xmax: 1, ymax: 1, spatialReference: SpatialReference(wkid: 99999)).geographic == nil)
    }

    @Test func referencesAreNamedForPeople() {
        #expect(SpatialReference(wkid: 32187).summary == "NAD83 / MTM zone 7 (wkid 32187)")
        #expect(SpatialReference(wkid: 25832).summary == "ETRS89 / UTM zone 32N (wkid 25832)")
        #expect(SpatialReference(wkid: 2924).summary == "NAD83(HARN) / Virginia North (ftUS) (wkid 2924)")
        #expect(SpatialReference(wkid: 102100, latestWkid: 3857).name == "Web Mercator")
        #expect(SpatialReference(wkid: 99999).summary == "wkid 99999")
    }
}
