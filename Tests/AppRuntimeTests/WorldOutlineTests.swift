import AppRuntime
import Foundation
import Geometry
import MapRender
import MapSources
import Testing

/// The world outline that stands in for a basemap mapbook cannot draw: the countries drawn, named
/// in the layer list, identified by name.
@Suite("The world outline")
struct WorldOutlineTests {
    @Test func itDrawsTheCountriesAndIdentifiesThemByName() async throws {
        let stack = MapStack.worldOutline(problems: ["The basemap's server tiles.example.com cannot be reached."])
        #expect(stack.layerNames == [MapStack.outlineTitle])
        let paris = GeoPoint(longitude: 2.35, latitude: 48.86)
        let request = MapRequest(viewport: MapViewport(center: MercatorPoint(paris), zoom: 5), columns: 60, rows: 20)
        let image = await stack.render(request)
        #expect(image.report.featuresDrawn > 0)
        #expect(image.problems.contains("The basemap's server tiles.example.com cannot be reached."), "the reason stays in the footer")
        let hits = await stack.identify(at: paris, request: request)
        #expect(hits.first?.card.title == "France")
    }

    /// Land and sea alike are painted: no cell is left in the terminal's own black.
    @Test(arguments: [(80, 22, 2.0), (200, 48, 6.5)])
    func noCellIsLeftBlack(columns: Int, rows: Int, zoom: Double) async {
        let quebec = GeoPoint(longitude: -71.2, latitude: 46.8)
        let request = MapRequest(viewport: MapViewport(center: MercatorPoint(quebec), zoom: zoom), columns: columns, rows: rows)
        let image = await MapStack.worldOutline().render(request)
        if ProcessInfo.processInfo.environment["MAPBOOK_SHOW_OUTLINE"] != nil { print(image.frame.text) }
        #expect(image.frame.cells.allSatisfy { $0.style.background != nil }, "a cell in the terminal's background")
        #expect(Set(image.frame.cells.compactMap(\.style.background)).count >= 2, "land shows apart from the sea")
    }
}
