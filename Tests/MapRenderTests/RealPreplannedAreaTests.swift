import ArcGISModel
import Foundation
import Geometry
import MapRender
import MapSources
import MobilePackages
import SharedTestData
import Testing

/// A preplanned map area exactly as the ArcGIS Runtime unpacks it (`../shared/data/real`): its
/// imagery package lists levels 0–23 but holds tiles at 10 and 11 only, and its roads and trails
/// keep their coordinate grid only in `GDB_Items`. It opens on its data: imagery, roads, trails.
@Suite(.enabled(if: SharedData.available, SharedData.skipMessage))
struct RealPreplannedAreaTests {
    static let area = SharedData.url("real/canyonlands_preplanned_area").path

    /// A State Plane file (NAD83(HARN) / Virginia North, US feet) opens with every layer drawn,
    /// its annotation too, in Loudoun County.
    @Test func aStatePlaneFileOpensWithEveryLayer() async throws {
        let opened = try GeodatabaseLayers.open(path: SharedData.url("real/ios_loudoun_anno.geodatabase").path)
        #expect(opened.loaders.count == 8 && opened.notDrawn.isEmpty, "\(opened.notDrawn)")
        let extent = try #require(opened.extent)
        #expect(extent.xmin > -77.6 && extent.xmax < -77.3 && extent.ymin > 38.9 && extent.ymax < 39.1, "\(extent)")
    }

    @Test func itOpensOnItsImageryRoadsAndTrails() async throws {
        let package = try MobileMapPackage(path: Self.area)
        #expect(package.info.title == "canyonlands" && package.maps.map(\.name) == ["canyonlands"])
        let opened = MobileMapLayers.open(package.maps[0], in: package)
        #expect(opened.problems.isEmpty, "\(opened.problems)")
        #expect(opened.features.map(\.title) == ["canyonlands_roads_trails - CNP_Trails", "canyonlands_roads_trails - CNP_Roads"])
        let imagery = try #require(opened.tiles.first)
        #expect(imagery.loader.source.zooms == 10...11, "the levels that hold tiles, not the scheme's 0–23")
        let home = try #require(opened.home)
        #expect(home.xmin > -110.3 && home.xmax < -109.6, "\(home)")
        // At the home view (about zoom 8, shallower than any tile), the imagery is drawn from
        // level 10, and the roads and trails over it.
        let stack = try #require(opened.stack)
        let request = MapRequest(viewport: MapViewport(fitting: home, columns: 100, rows: 38), columns: 100, rows: 38, mode: .braille, colors: true)
        let image = await stack.render(request)
        #expect(image.report.rasterTilesDrawn > 0, "imagery drawn: \(image.report)")
        #expect(image.report.featuresDrawn >= 100, "roads and trails drawn: \(image.report)")
    }
}
