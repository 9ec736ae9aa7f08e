import AppModel
import Foundation
import MapRender
import MapSources
import MapbookCore
import PortalFixtures
import TileFormats
import Testing

/// The map view's model: opening, keys, coalescing, the panels, leaving.
@Suite @UIActor struct MapViewModelTests {
    func openedModel() async throws -> AppModel {
        let model = AppModel(state: AppState(portalHost: "", webMapID: .exploreMaine, phase: .loaded),
                             library: SampleFixture.scratchLibrary()) { throw CancellationError() }
        model.layoutChanged(LayoutMetrics(mapColumns: 100, mapRows: 30))
        model.openStandaloneMap(title: "Acadia", source: try PackageMapSource(path: SampleFixture.acadiaPackagePath))
        await model.waitForMap()
        return model
    }

    @Test func opensAtTheHomeViewAndDraws() async throws {
        let model = try await openedModel()
        let map = try #require(model.state.map)
        #expect(model.state.screen == .map)
        #expect(map.status == nil)
        #expect(map.image?.request.viewport == map.viewport)
        #expect(map.image?.frame.width == 100 && map.image?.frame.height == 30)
        #expect(map.layers == ["region", "state", "counties", "places"])
        #expect(!map.isDrawing)
    }

    @Test func aBurstOfKeysIsNeverDroppedAndCoalesces() async throws {
        let model = try await openedModel()
        let start = try #require(model.state.map?.viewport)
        let drawsBefore = model.mapDrawCount
        for _ in 0..<40 { model.handle(.right) }
        for _ in 0..<3 { model.handle(.character("+")) }
        for _ in 0..<10 { model.handle(.character("k")) }
        // Every key moved the view: 40 quarter-widths right, three levels in, 10 up.
        var expected = start
        for _ in 0..<40 { expected = expected.panned(dotsX: 50, dotsY: 0) }
        for _ in 0..<3 { expected = expected.zoomed(by: 1) }
        for _ in 0..<10 { expected = expected.panned(dotsX: 0, dotsY: -30) }
        #expect(model.state.map?.viewport == expected)
        await model.waitForMap()
        #expect(model.state.map?.image?.request.viewport == expected, "the picture ends at the latest view")
        #expect(model.mapDrawCount - drawsBefore < 53, "53 keys did not cost 53 drawings")
        #expect(model.state.map?.isDrawing == false)
    }

    @Test func homeModesLayersAndLeaving() async throws {
        let model = try await openedModel()
        let home = try #require(model.state.map?.viewport)
        model.handle(.character("-"))
        model.handle(.character("0"))
        #expect(model.state.map?.viewport == home)

        model.handle(.character("c"))
        #expect(model.state.map?.mode == .blocks)
        await model.waitForMap()
        #expect(model.state.map?.image?.request.mode == .blocks)

        model.handle(.character("L"))
        #expect(model.state.map?.panel == .layers)
        model.handle(.down)
        model.handle(.character(" "))
        #expect(model.state.map?.hiddenLayers == ["state"])
        model.handle(.escape)
        #expect(model.state.map?.panel == nil)
        await model.waitForMap()
        #expect(model.state.map?.image?.request.hiddenLayers == ["state"])

        model.handle(.character("b"))
        #expect(model.state.map?.panel == nil, "a file has no bookmarks")
        #expect(model.state.message == "This web map has no bookmarks.")

        model.dispatch(.zoomAt(steps: 1, column: 0, row: 0))
        #expect(model.state.map.map { $0.viewport.zoom - home.zoom } == 1)
        model.dispatch(.pan(columns: 5, rows: 0))
        model.handle(.escape)
        #expect(model.state.isQuitting, "leaving a file's map quits mapbook open")
    }

    @Test func layerNamesFromAPackageAreSanitizedAndStillHideTheirLayer() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-hostile-names-\(UUID())")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("3/2"), withIntermediateDirectories: true)
        let hostile = "roads\u{1B}]0;pwned\u{07}\u{1B}[31m"
        var builder = MVTLayerBuilder(name: hostile)
        builder.add(type: .lineString, geometry: MVTGeometry(points: [MVTPoint(x: 0, y: 0), MVTPoint(x: 4096, y: 4096)], partEnds: [2]),
                    properties: [])
        try Deflate.deflate(MVTTile(layers: [builder.layer]).encoded()).write(to: root.appendingPathComponent("3/2/3.pbf"))

        let model = AppModel(state: AppState(portalHost: "", webMapID: .exploreMaine, phase: .loaded),
                             library: SampleFixture.scratchLibrary()) { throw CancellationError() }
        model.layoutChanged(LayoutMetrics(mapColumns: 60, mapRows: 20))
        model.openStandaloneMap(title: "hostile", source: try TileFolderSource(path: root.path))
        await model.waitForMap()
        let shown = try #require(model.state.map?.layers.first)
        #expect(!shown.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "no control characters reach the list")
        model.handle(.character("L"))
        model.handle(.character(" "))
        await model.waitForMap()
        #expect(model.state.map?.image?.request.hiddenLayers == [hostile], "the renderer hides the package's own layer")
    }
}
