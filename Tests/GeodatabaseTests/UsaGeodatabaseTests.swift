import ArcGISModel
import Foundation
import Geodatabase
import Geometry
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
