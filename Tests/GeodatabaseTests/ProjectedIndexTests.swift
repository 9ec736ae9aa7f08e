import Foundation
@testable import Geodatabase
import Geometry
import MapbookCore
import Testing

/// A layer kept in a projected system (NAD83 / UTM 19N) asked for a box of longitude and latitude:
/// the box is put into the layer's metres for its spatial index, and the features found are
/// exactly those a whole read finds in the box.
@Suite("a projected layer's spatial index")
struct ProjectedIndexTests {
    @Test func aBoxInDegreesFindsTheFeaturesInTheLayersMetres() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("utm-\(UUID().uuidString).geodatabase").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let toUTM = try CoordinateTransform.between(.wgs84, SpatialReference(wkid: 26919))
        let writer = try GeodatabaseWriter(path: path, grid: CoordinateGrid(originX: -5_120_900, originY: -9_998_100, scale: 1_000))
        let info = #"{"name": "Gauges", "geometryType": "esriGeometryPoint", "objectIdField": "OBJECTID","#
            + #""fields": [{"name": "OBJECTID", "type": "esriFieldTypeOID"}]}"#
        try writer.addLayer(id: 0, table: "Gauges", info: try JSONValue(parsing: Data(info.utf8)))
        // A line of gauges from Portland to Bangor, every tenth of a degree east.
        for step in 0..<20 {
            let metres = toUTM(x: -70.3 + Double(step) / 10, y: 43.7 + Double(step) / 20)
            try writer.insert(into: "Gauges", attributes: [:], shape: .point(x: metres.x, y: metres.y))
        }
        try writer.finish()
        try HeightsTests.execute("UPDATE st_aux_spatial_reference_systems SET auth_srid = 26919", in: path)
        let gdb = try Geodatabase(path: path)
        let layer = try #require(gdb.layers.first)
        #expect(layer.cannotBeDrawn == nil && layer.spatialReference.code == 26919)
        let box = GeoExtent(xmin: -69.85, ymin: 43.9, xmax: -69.35, ymax: 44.3)
        var found: [GeoPoint] = []
        _ = try gdb.scan(layer, within: box) { feature in
            if case .points(let points)? = feature.geometry { found += points }
            return true
        }
        let expected = try gdb.features(of: layer).features.compactMap { feature -> GeoPoint? in
            guard case .points(let points)? = feature.geometry, let point = points.first, box.contains(point) else { return nil }
            return point
        }
        #expect(expected.count == 5 && found.count == expected.count, "\(found) \(expected)")
        #expect(found.allSatisfy { abs($0.longitude + 69.6) < 0.3 && abs($0.latitude - 44.1) < 0.2 })
    }
}
