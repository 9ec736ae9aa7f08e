import Foundation
import MapRender
import MapSources
import MapbookCore
import OfflineLibrary
import TerminalCanvas
import Testing
@testable import AppModel
import ArcGISModel

/// Operational layers in the map view (asked for beside the basemap, listed above its layers with
/// their legends) and `i`: the request, the card, Tab, Esc, and answers for other maps ignored.
@Suite("update: operational layers and identify")
struct IdentifyTests {
    static let places = WebMapLayer(id: "p", title: "Places", layerType: "ArcGISFeatureLayer", url: "https://example.com/FeatureServer/0")

    /// A web map with one operational layer, its Acadia area downloaded, its map open and drawn.
    static func openMap(network: NetworkState = .online) -> AppState {
        var state = Fixture.loaded(downloaded: [Fixture.acadia])
        state.catalog.webMap?.operationalLayers = [places]
        state.portal.network = network
        Fixture.select(&state, "Acadia")
        let effects = Fixture.keys(&state, .character("m"))
        #expect(effects.last == .map(.openFeatureLayers(session: 1, OperationalLayers(area: Fixture.acadia, layers: [places], online: !network.isCutOff))))
        _ = App.update(&state, .map(.mapOpened(session: 1, MapSourceSummary(layerNames: ["land"], extent: nil,
                                                                      legend: ["land": [LegendEntry(swatch: .fill, color: 100, label: "land")]]))))
        _ = App.update(&state, .map(.mapDrawn(session: 1, MapImage(picture: MapPicture(frame: Frame(width: 120, height: 38)), request: App.mapRequest(state)!))))
        return state
    }

    static let legend = [LegendEntry(swatch: .marker("■"), color: 196, label: "City")]

    /// A script's next command waits for the map's operational layers as for its first picture;
    /// a map that did not open has none coming.
    @Test func aMapIsSettledOnceItsLayersAreOpen() {
        var state = Self.openMap()
        #expect(!state.isSettled && !state.isIdle)
        _ = App.update(&state, .map(.featureLayersOpened(session: 1, FeatureLayersSummary(titles: ["Places"]))))
        #expect(state.isSettled)
        var failed = Self.openMap()
        _ = App.update(&failed, .map(.mapOpenFailed(session: 1, "The package is damaged.")))
        #expect(failed.isSettled)
    }

    @Test func theOperationalLayersHeadTheLayerListWithTheirLegendsAndHiddenOnesStartHidden() {
        var state = Self.openMap()
        let effects = App.update(&state, .map(.featureLayersOpened(session: 1, FeatureLayersSummary(
            titles: ["Counties", "Places\u{1B}[2J"], hidden: ["Counties"], legend: ["Places\u{1B}[2J": Self.legend], problems: ["Counties: one."]))))
        guard case .map(.drawMap)? = effects.first else { Issue.record("\(effects)"); return }
        let map = state.map!
        #expect(map.operationalLayers.count == 2 && map.operationalLayers[1] == "Counties" && !map.operationalLayers[0].contains("\u{1B}"))
        #expect(state.mapPanelRows(.layers).suffix(1) == ["land"] && state.mapPanelRows(.layers).count == 3)
        #expect(map.hiddenLayers == ["Counties"] && map.problems.contains("Counties: one."))
        #expect(map.legend.values.contains(Self.legend) && map.legend["land"]?.first?.label == "land")
        // Hidden operational layers reach the runtime by their own names.
        #expect(App.mapRequest(state)?.hiddenLayers == ["Counties"])
        // A summary for another map changes nothing.
        #expect(App.update(&state, .map(.featureLayersOpened(session: 9, FeatureLayersSummary(titles: ["X"])))).isEmpty)
    }

    /// A layer only listed (a KML one) has nothing to show or hide: Space on it changes nothing.
    @Test func aLayerOnlyListedCannotBeSwitchedOff() {
        var state = Self.openMap()
        _ = App.update(&state, .map(.featureLayersOpened(session: 1, FeatureLayersSummary(titles: ["Places"], listedOnly: ["Trails (KML) · not drawn"]))))
        #expect(state.map?.listedOnlyLayers == ["Trails (KML) · not drawn"])
        _ = Fixture.keys(&state, .character("L"))
        let rows = state.mapPanelRows(.layers)
        let listed = try! #require(rows.firstIndex(of: "Trails (KML) · not drawn"))
        let places = try! #require(rows.firstIndex(of: "Places"))
        for _ in 0..<listed { _ = Fixture.keys(&state, .down) }
        _ = Fixture.keys(&state, .character(" "))
        #expect(state.map?.hiddenLayers.isEmpty == true && state.map?.redrawWanted == false)
        for _ in 0..<(listed - places) { _ = Fixture.keys(&state, .up) }
        _ = Fixture.keys(&state, .character(" "))
        #expect(state.map?.hiddenLayers == ["Places"] && state.map?.redrawWanted == true)
    }

    @Test func offlineTheAreaStillAsksForItsCopiesButNotTheServices() {
        _ = Self.openMap(network: .offline)
    }

    @Test func iAsksAboutTheCentreTabCyclesAndEscCloses() {
        var state = Self.openMap()
        let effects = Fixture.keys(&state, .character("i"))
        guard case .map(.identify(1, let point, let request, let id))? = effects.first else { Issue.record("\(effects)"); return }
        #expect(request == App.mapRequest(state) && abs(point.longitude - state.map!.viewport.center.geographic.longitude) < 1e-9)
        #expect(state.map?.identify?.hits == nil)
        let hits = ["Bar Harbor", "Hancock"].map { IdentifyHit(card: PopupCard(layer: "Places", title: $0, rows: []), geometry: nil) }
        // An answer to an older question is ignored.
        _ = App.update(&state, .map(.identified(session: 1, id: id - 1, hits)))
        #expect(state.map?.identify?.hits == nil)
        _ = App.update(&state, .map(.identified(session: 1, id: id, hits)))
        #expect(state.map?.identify?.shown?.card.title == "Bar Harbor")
        _ = Fixture.keys(&state, .tab)
        #expect(state.map?.identify?.shown?.card.title == "Hancock")
        _ = Fixture.keys(&state, .tab)
        #expect(state.map?.identify?.index == 0)
        _ = Fixture.keys(&state, .escape)
        #expect(state.map?.identify == nil && state.screen.kind == .map)
        _ = Fixture.keys(&state, .escape)
        #expect(state.screen.kind == .main)
    }

    @Test func aHitsStringsAreMadeSafeAsTheyEnter() {
        var state = Self.openMap()
        _ = Fixture.keys(&state, .character("i"))
        let card = PopupCard(layer: "L\u{1B}]0;x\u{07}", title: "T\u{9B}31m", rows: [PopupCard.Row(label: "a\u{1B}[1m", value: "b\r\nc")],
                             text: "line\u{1B}[2J")
        _ = App.update(&state, .map(.identified(session: 1, id: state.map!.identify!.id, [IdentifyHit(card: card, geometry: nil)])))
        let shown = state.map!.identify!.shown!.card
        for text in [shown.layer, shown.title, shown.rows[0].label, shown.rows[0].value, shown.text ?? ""] {
            #expect(!text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) }, "\(text)")
        }
    }

    @Test func aClickOnTheMapIdentifiesThereAndADragDoesNot() {
        var state = Self.openMap()
        let rect = state.layout!.mapRect
        let cell = CellPoint(x: rect.x + 10, y: rect.y + 5)
        _ = App.update(&state, .terminal(.mouse(.press(cell))))
        let effects = App.update(&state, .terminal(.mouse(.release(cell))))
        guard case .map(.identify(1, let point, let request, _))? = effects.first else { Issue.record("\(effects)"); return }
        let projection = state.map!.viewport.projection(columns: request.columns, rows: request.rows)
        let dot = projection.dot(MercatorPoint(point))
        #expect(Int(dot.x / 2) == 10 && Int(dot.y / 4) == 5)
        // Pressed, dragged, released: a pan, no identify.
        _ = App.update(&state, .terminal(.mouse(.press(cell))))
        _ = App.update(&state, .terminal(.mouse(.drag(CellPoint(x: cell.x + 3, y: cell.y)))))
        let dragged = App.update(&state, .terminal(.mouse(.release(CellPoint(x: cell.x + 3, y: cell.y + 1)))))
        #expect(!dragged.contains { if case .map(.identify) = $0 { return true }; return false })
    }
}
