import Foundation
import Testing
import Geometry

/// Projected extents brought back to longitude and latitude, checked against PROJ (pyproj 3,
/// `Transformer.from_crs(code, 4326, always_xy=True)`) to a metre or so.
@Suite("Projected zones to longitude and latitude")
struct ProjectionTests {
    @Test(arguments: [
        (32187, 250_000.0, 5_180_000.0, -71.217_353_254, 46.757_315_297),  // NAD83 / MTM zone 7: Québec City
        (32187, 300_000.0, 5_000_000.0, -70.561_032_378, 45.139_956_984),
        (2193, 1_748_735.0, 5_427_916.0, 174.776_193_515, -41.286_504_414), // NZTM: Wellington
        (25832, 500_000.0, 5_650_000.0, 9.0, 51.001_574_693),               // ETRS89 / UTM 32N
        (32619, 560_000.0, 4_910_000.0, -68.247_307_619, 44.340_787_936),   // WGS 84 / UTM 19N: Maine
    ])
    func agreesWithPROJ(code: Int, x: Double, y: Double, longitude: Double, latitude: Double) throws {
        let zone = try #require(SpatialReference(wkid: code).transverseMercator)
        let point = zone.geographic(x: x, y: y)
        #expect(abs(point.longitude - longitude) < 1e-5 && abs(point.latitude - latitude) < 1e-5, "\(code): \(point)")
    }

    @Test(arguments: [
        (2154, 652_216.63, 6_861_681.5, 2.3488, 48.8534),            // RGF93 / Lambert-93: Paris
        (2154, 355_860.03, 6_689_884.84, -1.55, 47.22),
        (3347, 7_471_068.98, 1_190_424.21, -75.7, 45.42),            // NAD83 / Statistics Canada Lambert: Ottawa
        (3978, -1_307_487.08, 424_636.03, -114.07, 51.05),           // NAD83 / Canada Atlas Lambert: Calgary
        (102004, 2_044_053.62, 806_698.97, -70.26, 43.66),           // USA Contiguous Lambert: Portland, Maine
        (3034, 4_063_011.08, 2_695_103.43, 10.93, 51.02),            // ETRS89 / LCC Europe
        (5070, -2_273_032.79, 1_958_176.39, -122.4, 37.8),           // NAD83 / Conus Albers: San Francisco
        (3005, 1_382_469.61, 1_127_447.62, -120.0, 55.0),            // BC Albers
        (3338, 298_872.77, 1_662_939.16, -147.7, 64.8),              // Alaska Albers: Fairbanks
        (3577, 1_760_115.36, -3_828_753.56, 151.2, -33.87),          // GDA94 / Australian Albers: Sydney
    ])
    func conicZonesAgreeWithPROJ(code: Int, x: Double, y: Double, longitude: Double, latitude: Double) throws {
        let project = try #require(SpatialReference(wkid: code).geographicPoint)
        let point = project(x, y)
        #expect(abs(point.longitude - longitude) < 1e-5 && abs(point.latitude - latitude) < 1e-5, "\(code): \(point)")
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
        // A system mapbook does not work out: nil, and the item's own extent is used.
        #expect(Envelope(xmin: 0, ymin: 0, xmax: 1, ymax: 1, spatialReference: SpatialReference(wkid: 27700)).geographic == nil)
    }

    @Test func referencesAreNamedForPeople() {
        #expect(SpatialReference(wkid: 32187).summary == "NAD83 / MTM zone 7 (wkid 32187)")
        #expect(SpatialReference(wkid: 25832).summary == "ETRS89 / UTM zone 32N (wkid 25832)")
        #expect(SpatialReference(wkid: 102100, latestWkid: 3857).name == "Web Mercator")
        #expect(SpatialReference(wkid: 99999).summary == "wkid 99999")
    }
}
