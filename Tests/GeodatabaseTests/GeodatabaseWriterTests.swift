import ArcGISModel
import CSQLite
import Foundation
@testable import Geodatabase
import Geometry
import MapbookCore
import SharedTestData
import Testing

/// The shape blob writer against Esri's own blobs, and a geodatabase written here read back by the
/// reader the real files go through.
struct GeodatabaseWriterTests {
    /// Every shape of the real file, decoded and written again, decodes to the same points (to a grid
    /// unit: Esri's integers, near 2^52, do not all survive the trip through a double); a point's
    /// blob has Esri's header byte for byte.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: usaGeodatabase), "needs ../shared/data/features/usa.geodatabase"))
    func everyRealShapeWrittenAgainReadsTheSame() throws {
        var db: OpaquePointer?
        #expect(sqlite3_open_v2("file:\(usaGeodatabase)?mode=ro&immutable=1", &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil) == SQLITE_OK)
        defer { sqlite3_close_v2(db) }
        let grid = GeodatabaseWriter.webMercatorGrid
        var checked = 0, identicalPoints = 0
        for table in ["USMajorCities", "USMajorHighways", "USStates"] {
            var statement: OpaquePointer?
            #expect(sqlite3_prepare_v2(db, "SELECT Shape FROM \(table)", -1, &statement, nil) == SQLITE_OK)
            defer { sqlite3_finalize(statement) }
            while sqlite3_step(statement) == SQLITE_ROW {
                let count = Int(sqlite3_column_bytes(statement, 0))
                let real = Array(UnsafeRawBufferPointer(start: sqlite3_column_blob(statement, 0), count: count))
                let shape = try ShapeBlob.decode(real, grid: grid)
                let written = ShapeBlob.encode(shape, grid: grid, srid: 300_001)
                let again = Self.points(try ShapeBlob.decode(written, grid: grid)), before = Self.points(shape)
                #expect(again.count == before.count && zip(again, before).allSatisfy { a, b in
                    a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= 1 }
                }, "\(table) shape \(checked)")
                if case .point = shape, written.count == real.count, written.prefix(18) == real.prefix(18) { identicalPoints += 1 }
                checked += 1
            }
        }
        #expect(checked == 395)
        #expect(identicalPoints == 118)
    }

    /// The points as grid integers, so a comparison is exact.
    static func points(_ shape: StoredShape) -> [[Int64]] {
        let grid = GeodatabaseWriter.webMercatorGrid
        func raw(_ p: (x: Double, y: Double)) -> [Int64] {
            [Int64(((p.x - grid.originX) * grid.scale).rounded()), Int64(((p.y - grid.originY) * grid.scale).rounded())]
        }
        switch shape {
        case .empty: return []
        case .point(let x, let y): return [raw((x, y))]
        case .multipoint(let points): return [points.flatMap(raw)]
        case .polyline(let parts), .polygon(let parts): return parts.map { $0.flatMap(raw) }
        }
    }

    static let placesJSON = #"""
        {"name": "Places", "geometryType": "esriGeometryPoint", "objectIdField": "OBJECTID", "displayField": "NAME",
         "fields": [{"name": "OBJECTID", "type": "esriFieldTypeOID"}, {"name": "NAME", "type": "esriFieldTypeString"},
                    {"name": "POP", "type": "esriFieldTypeInteger"}],
         "drawingInfo": {"renderer": {"type": "simple", "symbol": {"type": "esriSMS", "style": "esriSMSCircle", "color": [200, 0, 0, 255], "size": 6}}}}
        """#

    @Test func aWrittenGeodatabaseReadsBackWithItsIndex() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("written-\(UUID().uuidString).geodatabase").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try GeodatabaseWriter(path: path)
        try writer.addLayer(id: 0, table: "Places", info: try JSONValue(parsing: Data(Self.placesJSON.utf8)))
        let lake = #"{"name": "Lakes", "geometryType": "esriGeometryPolygon", "fields": [{"name": "OBJECTID", "type": "esriFieldTypeOID"}]}"#
        try writer.addLayer(id: 1, table: "Lakes", info: try JSONValue(parsing: Data(lake.utf8)))
        let portland = GeoPoint(longitude: -70.2553, latitude: 43.6615), bangor = GeoPoint(longitude: -68.7712, latitude: 44.8012)
        for (name, place, pop) in [("Portland", portland, 66_881), ("Bangor", bangor, 31_753)] {
            let m = WebMercator.projected(longitude: place.longitude, latitude: place.latitude)
            try writer.insert(into: "Places", attributes: ["NAME": .string(name), "POP": .number(Double(pop))], shape: .point(x: m.x, y: m.y))
        }
        // A square lake with a square island: two rings, the writer's multipart layout.
        func square(_ cx: Double, _ cy: Double, _ r: Double) -> [(x: Double, y: Double)] {
            [(cx - r, cy - r), (cx + r, cy - r), (cx + r, cy + r), (cx - r, cy + r), (cx - r, cy - r)]
        }
        let centre = WebMercator.projected(longitude: -69.5, latitude: 45.5)
        try writer.insert(into: "Lakes", attributes: [:], shape: .polygon([square(centre.x, centre.y, 5000), square(centre.x, centre.y, 1000)]))
        try writer.finish()

        let gdb = try Geodatabase(path: path)
        #expect(gdb.layers.map(\.info.name) == ["Places", "Lakes"])
        #expect(gdb.layers.map(\.serviceLayerID) == [0, 1])
        #expect(gdb.layers[0].info.renderer.kindName == "simple")
        let all = try gdb.features(of: gdb.layers[0])
        #expect(all.features.count == 2 && all.skipped.damaged == 0)
        let near = try gdb.features(of: gdb.layers[0], within: GeoExtent(xmin: -70.5, ymin: 43.5, xmax: -70, ymax: 43.8)).features
        #expect(near.map { $0.attributes["NAME"] } == [.string("Portland")], "through the RTREE")
        #expect(near.first?.attributes["POP"] == .number(66_881))
        if case .points(let points)? = near.first?.geometry, let p = points.first {
            #expect(abs(p.longitude - portland.longitude) < 1e-7 && abs(p.latitude - portland.latitude) < 1e-7)
        } else {
            Issue.record("Portland is not a point")
        }
        let lakes = try gdb.features(of: gdb.layers[1])
        #expect(lakes.features.count == 1 && lakes.skipped.damaged == 0)
        if case .polygons(let polygons)? = lakes.features.first?.geometry {
            #expect(polygons.count == 1 && polygons[0].count == 2, "one polygon: the lake and its island as a hole")
        } else {
            Issue.record("the lake is not a polygon: \(String(describing: lakes.features.first?.geometry))")
        }
    }
}
