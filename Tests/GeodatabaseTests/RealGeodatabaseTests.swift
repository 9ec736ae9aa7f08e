import Foundation
@testable import Geodatabase
import Geometry
import MapbookCore
import SharedTestData
import Testing

/// Geodatabases exactly as ArcGIS software wrote them (`../shared/data/real`): Runtime- and
/// Collector-made files keep each feature class's coordinate grid only in its `GDB_Items`
/// definition, and their shapes decode exactly on it.
@Suite(.enabled(if: SharedData.available, SharedData.skipMessage))
struct RealGeodatabaseTests {
    static let collector = SharedData.url("real/appstudio_offlineSample.geodatabase").path
    static let canyonlands = SharedData.url("real/canyonlands_preplanned_area/p13/3b1fef0d-2cb0-4b6f-b526-9fe0a1ca3f69.geodatabase").path

    @Test func theGridIsReadFromTheFeatureClassDefinition() throws {
        let gdb = try Geodatabase(path: Self.collector)
        #expect(gdb.layers.map(\.info.name) == ["Commercial Buildings", "Residential Buildings", "Public Facilities"])
        #expect(gdb.layers.allSatisfy { $0.cannotBeDrawn == nil }, "\(gdb.layers.map(\.cannotBeDrawn))")
        #expect(gdb.layers[0].grid == CoordinateGrid(originX: -20_037_700, originY: -30_241_100, scale: 10_000,
                                                     originZ: -100_000, scaleZ: 10_000, originM: -100_000, scaleM: 10_000))
        // Live rows only: of five commercial buildings, two are current.
        let commercial = try gdb.features(of: gdb.layers[0])
        #expect(commercial.features.count == 2 && commercial.skipped == SkippedShapes())
        for feature in commercial.features {
            guard case .points(let points)? = feature.geometry, let p = points.first else { Issue.record("no point"); continue }
            #expect(abs(p.longitude + 122.45) < 0.15 && abs(p.latitude - 37.76) < 0.1, "San Francisco: \(p)")
        }
        let roads = try Geodatabase(path: Self.canyonlands)
        #expect(try roads.layers.map { try roads.features(of: $0).features.count } == [89, 55])
        #expect(try roads.layers.allSatisfy { try roads.features(of: $0).skipped == SkippedShapes() })
        let box = try roads.features(of: roads.layers[0]).features.compactMap(\.extent).reduce(nil as GeoExtent?) { $0?.union($1) ?? $1 }
        #expect(box.map { $0.xmin > -110.3 && $0.xmax < -109.5 && $0.ymin > 37.9 && $0.ymax < 38.6 } == true, "Canyonlands: \(String(describing: box))")
    }

    /// A State Plane file made by ArcGIS Pro: every shape of every layer read (its polygons keep
    /// several rings without part indexes), and a box asked for finds exactly the features a full
    /// read finds in it (its rows come through its `_evw` views; ProjectedIndexTests asks an index).
    @Test func aStatePlaneFileIsReadWholeAndByABox() throws {
        let gdb = try Geodatabase(path: SharedData.url("real/ios_loudoun_anno.geodatabase").path)
        #expect(gdb.layers.count == 8 && gdb.layers.allSatisfy { $0.cannotBeDrawn == nil })
        for layer in gdb.layers {
            let all = try gdb.features(of: layer), count = try gdb.count(of: layer)
            #expect(all.skipped == SkippedShapes() && all.features.count == count, "\(layer.info.name): \(all.skipped)")
        }
        let buildings = try #require(gdb.layers.first { $0.info.name == "Buildings" })
        let box = GeoExtent(xmin: -77.42, ymin: 39.015, xmax: -77.415, ymax: 39.02)
        var found: [JSONValue?] = []
        _ = try gdb.scan(buildings, within: box) { found.append($0.attributes["OBJECTID"]); return true }
        let expected = try gdb.features(of: buildings).features.filter { $0.extent.map(box.intersects) == true }.map { $0.attributes["OBJECTID"] }
        #expect(!expected.isEmpty && expected.count < 77)
        #expect(Set(found.compactMap { $0?.int64 }) == Set(expected.compactMap { $0?.int64 }))
    }

    /// Definitions that are not XML, too large, or name a grid no shape can be read on: the layer
    /// says so in words, the others read as before.
    @Test func hostileDefinitionsFailCleanly() throws {
        for (definition, expected) in [
            ("not xml at all", "its coordinate grid (spatial reference 3857) is missing"),
            (Self.definition(scale: "0"), "its coordinate grid (in its definition) is not one shapes can be read on"),
            (Self.definition(scale: "NaN"), "its coordinate grid (in its definition) is not one shapes can be read on"),
            (Self.definition(scale: "1e308"), "its coordinate grid (in its definition) is not one shapes can be read on"),
            (Self.definition(scale: "10000") + String(repeating: " ", count: 5 << 20), "its coordinate grid (spatial reference 3857) is missing"),
        ] {
            let path = HostileGeodatabaseTests.scratch("definition.geodatabase")
            try HostileGeodatabaseTests.write(path, shapes: ["NULL"], extra: """
                UPDATE st_geometry_columns SET srid = 3857;
                DELETE FROM st_aux_spatial_reference_systems;
                CREATE TABLE GDB_Items (Type text, Name text, PhysicalName text, Definition text);
                INSERT INTO GDB_Items VALUES ('\(FeatureClassDefinition.itemType)', 'main.Roads', 'MAIN.ROADS', '\(definition)');
                """)
            let gdb = try Geodatabase(path: path)
            #expect(gdb.layers.first?.cannotBeDrawn == expected, "\(definition.prefix(60))")
        }
        // 50 MB, past the largest value SQLite is let read: that row alone is skipped.
        let path = HostileGeodatabaseTests.scratch("huge-definition.geodatabase")
        try HostileGeodatabaseTests.write(path, shapes: ["NULL"], extra: """
            CREATE TABLE GDB_Items (Type text, Name text, PhysicalName text, Definition text);
            INSERT INTO GDB_Items VALUES ('\(FeatureClassDefinition.itemType)', 'main.Roads', 'MAIN.ROADS', printf('%.*c', 50000000, 'x') || 'y');
            """)
        let gdb = try Geodatabase(path: path)
        #expect(gdb.layers.first?.cannotBeDrawn == nil, "the aux table's grid is used")
    }

    static func definition(scale: String) -> String {
        "<DEFeatureClassInfo><SpatialReference><XOrigin>-20037700</XOrigin><YOrigin>-30241100</YOrigin><XYScale>\(scale)</XYScale>"
            + "<WKID>102100</WKID><LatestWKID>3857</LatestWKID></SpatialReference></DEFeatureClassInfo>"
    }
}
