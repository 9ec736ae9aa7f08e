import ArcGISModel
import CSQLite
import Foundation
@testable import Geodatabase
import Geometry
import MapbookCore
import SharedTestData
import Testing

let usaGeodatabase = SharedData.url("features/usa.geodatabase").path

/// Esri's sample mobile geodatabase (cities, highways, states in Web Mercator, xy scale
/// 147,894,671.5): read as it is, every shape checked against itself.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: usaGeodatabase), "needs ../shared/data/features/usa.geodatabase"))
struct UsaGeodatabaseTests {
    static let path = usaGeodatabase

    @Test func itsThreeLayersAndEveryShapeDecode() throws {
        let gdb = try Geodatabase(path: Self.path)
        #expect(gdb.layers.map(\.table) == ["USMajorCities", "USMajorHighways", "USStates"])
        #expect(gdb.layers.map(\.serviceLayerID) == [0, 1, 2])
        #expect(gdb.layers.map(\.info.geometryType) == [.point, .polyline, .polygon])
        #expect(gdb.layers.map(\.info.name) == ["US-Major-Cities", "US-Major-Highways", "US-States"])
        var counts: [Int] = []
        for layer in gdb.layers {
            #expect(layer.cannotBeDrawn == nil)
            #expect(layer.spatialReference.isWebMercator)
            #expect(abs(layer.grid.scale - 147_894_671.517412) < 1e-3)
            let read = try gdb.features(of: layer)
            #expect(read.skipped.damaged == 0, "\(layer.table): \(read.skipped.firstDamage ?? "")")
            #expect(read.skipped.undrawable == 0)
            #expect(read.features.allSatisfy { $0.geometry != nil })
            #expect(try gdb.count(of: layer) == read.features.count)
            counts.append(read.features.count)
        }
        #expect(counts == [118, 228, 49])
    }

    @Test func bostonIsWhereItIs() throws {
        let gdb = try Geodatabase(path: Self.path)
        let cities = try gdb.features(of: gdb.layers[0]).features
        let boston = try #require(cities.first { $0.attributes["NAME"] == .string("Boston") })
        guard case .points(let points) = boston.geometry else { Issue.record("Boston is not a point"); return }
        #expect(abs(points[0].longitude - -71.0891) < 0.0005)
        #expect(abs(points[0].latitude - 42.3216) < 0.0005)
        #expect(boston.attributes["ST"] == .string("MA"))
    }

    /// The spatial index answers for an extent: around Maine, Maine and its neighbours only.
    @Test func aBoxQueryGoesThroughTheSpatialIndex() throws {
        let gdb = try Geodatabase(path: Self.path)
        let states = gdb.layers[2]
        let near = try gdb.features(of: states, within: GeoExtent(xmin: -69.5, ymin: 45.0, xmax: -69.0, ymax: 45.5)).features
        let names = Set(near.compactMap { $0.attributes["STATE_NAME"]?.string })
        #expect(names == ["Maine"])
        let maine = try #require(near.first)
        // Maine's rings: the mainland and its islands, each an outer ring (none a hole of another).
        guard case .polygons(let polygons) = maine.geometry else { Issue.record("Maine is not a polygon"); return }
        #expect(polygons.count >= 1 && polygons.allSatisfy { $0.count == 1 })
        let extent = try #require(maine.geometry?.extent)
        #expect(extent.xmin > -71.2 && extent.xmax < -66.8 && extent.ymin > 42.9 && extent.ymax < 47.6, "\(extent)")
    }

    /// Every multi-part shape keeps its parts apart: a highway of two parts is two lines, not one
    /// line through the dummy point between them.
    @Test func partsAreNotJoinedThroughTheirSeparator() throws {
        let gdb = try Geodatabase(path: Self.path)
        let highways = try gdb.features(of: gdb.layers[1]).features
        for highway in highways {
            guard case .lines(let lines) = highway.geometry else { Issue.record("not a line"); continue }
            for line in lines {
                let extent = try #require(GeoGeometry.lines([line]).extent)
                #expect(extent.xmin > -125 && extent.xmax < -66 && extent.ymin > 24 && extent.ymax < 50)
            }
        }
        #expect(highways.contains { if case .lines(let l) = $0.geometry { l.count > 1 } else { false } })
    }
}

/// Pro's symbology in `AdvancedDrawingInfo`, read when a layer's JSON has no classic renderer.
struct GeodatabaseSymbologyTests {
    /// Esri's sample keeps both: read alone, its CIM symbols give the very renderers its classic
    /// `drawingInfo` gives.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: usaGeodatabase), "needs ../shared/data/features/usa.geodatabase"))
    func theRealFilesProSymbologyMatchesItsClassicOne() throws {
        var db: OpaquePointer?
        #expect(sqlite3_open_v2("file:\(usaGeodatabase)?mode=ro&immutable=1", &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil) == SQLITE_OK)
        defer { sqlite3_close_v2(db) }
        var statement: OpaquePointer?
        #expect(sqlite3_prepare_v2(db, "SELECT ItemInfo, AdvancedDrawingInfo FROM GDB_ServiceItems WHERE ItemType = 1 ORDER BY ItemId", -1, &statement, nil) == SQLITE_OK)
        defer { sqlite3_finalize(statement) }
        var compared = 0
        while sqlite3_step(statement) == SQLITE_ROW {
            let info = try JSONValue(parsing: Data(String(cString: sqlite3_column_text(statement, 0)).utf8))
            let advanced = try JSONValue(parsing: Data(String(cString: sqlite3_column_text(statement, 1)).utf8))
            var bare = try #require(info.object)
            bare["drawingInfo"] = nil
            let fromPro = try #require(FeatureLayerInfo(json: Geodatabase.withDrawing(.object(bare), advanced: advanced)))
            let classic = try #require(FeatureLayerInfo(json: info))
            #expect(fromPro.renderer == classic.renderer, "\(classic.name)")
            #expect(!fromPro.renderer.classes.isEmpty)
            compared += 1
        }
        #expect(compared == 3)
    }

    /// A layer whose only renderer is a CIM one is drawn by its classes, through the reader.
    @Test func aLayerWithOnlyACIMRendererIsDrawnByItsClasses() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cim-\(UUID().uuidString).geodatabase").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try GeodatabaseWriter(path: path)
        let info = try JSONValue(parsing: Data(#"""
            {"name": "Roads", "geometryType": "esriGeometryPolyline", "objectIdField": "OBJECTID", "displayField": "NAME",
             "fields": [{"name": "OBJECTID", "type": "esriFieldTypeOID"}, {"name": "NAME", "type": "esriFieldTypeString"},
                        {"name": "CLASS", "type": "esriFieldTypeString"}]}
            """#.utf8))
        let stroke = { (r: Int) in
            #"{"type":"CIMSymbolReference","symbol":{"type":"CIMLineSymbol","symbolLayers":[{"type":"CIMSolidStroke","width":2,"color":{"type":"CIMRGBColor","values":[\#(r),0,0,100]}}]}}"#
        }
        let pro = try JSONValue(parsing: Data(#"""
            {"type":"CIMUniqueValueRenderer","fields":["CLASS"],"groups":[{"classes":[
              {"label":"Highway","symbol":\#(stroke(255)),"values":[{"fieldValues":["highway"]}]},
              {"label":"Street","symbol":\#(stroke(100)),"values":[{"fieldValues":["street"]}]}]}]}
            """#.utf8))
        try writer.addLayer(id: 0, table: "Roads", info: info, advancedDrawing: pro)
        let a = WebMercator.projected(longitude: -70, latitude: 44), b = WebMercator.projected(longitude: -69, latitude: 45)
        try writer.insert(into: "Roads", attributes: ["NAME": .string("Route 1"), "CLASS": .string("street")], shape: .polyline([[(a.x, a.y), (b.x, b.y)]]))
        try writer.finish()

        let gdb = try Geodatabase(path: path)
        let layer = try #require(gdb.layers.first)
        #expect(layer.info.renderer.kind == .uniqueValue(fields: ["CLASS"], delimiter: ","))
        #expect(layer.info.rendererProblem == nil)
        let road = try #require(try gdb.features(of: layer).features.first)
        let (symbol, index) = layer.info.symbol(for: road.attributes)
        #expect(index == 1 && symbol == FeatureSymbol(kind: .line(style: "esriSLSSolid"), color: SymbolColor(r: 100, g: 0, b: 0), size: 2))
    }
}
