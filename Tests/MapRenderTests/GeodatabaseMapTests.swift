import Foundation
import Geometry
import MapRender
import MapSources
import SharedTestData
import SnapshotSupport
import Testing

/// Esri's sample mobile geodatabase drawn and identified as operational layers, the way
/// `mapbook open`/`snapshot --file` show it.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: geodatabasePath), "needs ../shared/data/features/usa.geodatabase"))
struct GeodatabaseMapTests {
    static var path: String { geodatabasePath }

    static func stack() throws -> (MapStack, GeodatabaseLayers.Opened) {
        let opened = try GeodatabaseLayers.open(path: path)
        var stack = MapStack(layers: [])
        stack.features = opened.loaders
        return (stack, opened)
    }

    /// Polygons under lines under points; all three drawn; nothing left out.
    @Test func statesHighwaysAndCitiesAreDrawn() async throws {
        let (stack, opened) = try Self.stack()
        #expect(opened.problems.isEmpty, "\(opened.problems)")
        #expect(opened.loaders.map(\.title) == ["US-States", "US-Major-Highways", "US-Major-Cities"])
        let extent = try #require(opened.extent)
        #expect(extent.xmin < -124 && extent.xmax > -68 && extent.ymin < 26 && extent.ymax > 48, "\(extent)")
        let viewport = MapViewport(center: MercatorPoint(GeoPoint(longitude: -71.5, latitude: 43)), zoom: 6.2)
        let image = await stack.render(MapRequest(viewport: viewport, columns: 100, rows: 32, mode: .braille, colors: false))
        #expect(image.problems.isEmpty)
        #expect(image.report.featuresDrawn > 10)
        #expect(image.frame.text.contains("●"), "the cities' markers")
        expectTextSnapshot(image.frame.text, named: "usa-geodatabase-new-england", in: MapSnapshotTests.snapshots)
    }

    /// A point inside Maine: the state; on Boston: the city first, then Massachusetts.
    @Test func identifyFindsTheStateAndTheCity() async throws {
        let (stack, _) = try Self.stack()
        let request = MapRequest(viewport: MapViewport(center: MercatorPoint(GeoPoint(longitude: -69.2, latitude: 45.3)), zoom: 7),
                                 columns: 100, rows: 32)
        let inMaine = await stack.identify(at: GeoPoint(longitude: -69.2, latitude: 45.3), request: request)
        #expect(inMaine.map(\.card.title) == ["Maine"])
        #expect(inMaine.first?.card.layer == "US-States")
        #expect(inMaine.first?.card.rows.contains { $0.label == "SUB_REGION" && $0.value == "New England" } == true)
        let boston = GeoPoint(longitude: -71.0891, latitude: 42.3216)
        let atBoston = await stack.identify(at: boston, request: MapRequest(viewport: MapViewport(center: MercatorPoint(boston), zoom: 9),
                                                                              columns: 100, rows: 32))
        #expect(atBoston.map(\.card.title).prefix(2) == ["Boston", "Massachusetts"])
    }
}

let geodatabasePath = SharedData.url("features/usa.geodatabase").path
