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

    @Test func aWebMapsInitialExtentInAZoneBecomesGeographic() throws {
        let envelope = Envelope(xmin: 240_000, ymin: 5_170_000, xmax: 260_000, ymax: 5_190_000, spatialReference: SpatialReference(wkid: 32187))
        let extent = try #require(envelope.geographic)
        #expect(extent.xmin < -71.2 && extent.xmax > -71.2 && extent.ymin < 46.75 && extent.ymax > 46.75)
        #expect(extent.xmax - extent.xmin < 0.4 && extent.ymax - extent.ymin < 0.3)
        // A Lambert or Albers system is not worked out: nil, and the item's own extent is used.
        #expect(Envelope(xmin: 0, ymin: 0, xmax: 1, ymax: 1, spatialReference: SpatialReference(wkid: 3005)).geographic == nil)
    }

    @Test func referencesAreNamedForPeople() {
        #expect(SpatialReference(wkid: 32187).summary == "NAD83 / MTM zone 7 (wkid 32187)")
        #expect(SpatialReference(wkid: 25832).summary == "ETRS89 / UTM zone 32N (wkid 25832)")
        #expect(SpatialReference(wkid: 102100, latestWkid: 3857).name == "Web Mercator")
        #expect(SpatialReference(wkid: 99999).summary == "wkid 99999")
    }
}
