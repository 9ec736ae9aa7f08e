import AppModel
import Foundation
import MapRender
import MapbookCore
import Testing
import ArcGISModel
import UserFiles

/// Where the browser was on a web map, kept when it closes and restored when it opens again; the
/// Maps card at the start when nothing was ever opened.
@Suite("update: remembered views")
struct RememberedViewTests {
    /// The state of a second run: `view` restored, then the same web map loaded.
    func reopened(with view: RememberedView, downloaded: [ItemID] = []) -> AppState {
        var state = AppState(portalHost: "start", webMapID: Fixture.webMapID)
        state.restore(view)
        _ = App.update(&state, .terminal(.resized(Display(width: 120, height: 40))))
        _ = App.update(&state, .catalog(.connected(host: "portal.example.com")))
        let records = Dictionary(uniqueKeysWithValues: Fixture.areas.filter { downloaded.contains($0.item.id) }.map { ($0.item.id, Fixture.record(for: $0)) })
        _ = App.update(&state, .catalog(.webMapLoaded(WebMapSnapshot(catalog: Fixture.catalog,
                                                            library: LibrarySnapshot(catalog: nil, downloads: records, partialBytes: [:]),
                                                            host: "portal.example.com"))))
        return state
    }

    @Test func anAreasMapReopensWhereItWasLeftDrawnAsItWas() throws {
        var state = Fixture.loaded(downloaded: [Fixture.bangor])
        _ = Fixture.keys(&state, .character("o"))
        Fixture.select(&state, "Bangor")
        _ = Fixture.keys(&state, .character("m"))
        _ = App.update(&state, .map(.mapOpened(session: state.requests.mapSessions, MapSourceSummary(layerNames: [], extent: nil))))
        _ = Fixture.keys(&state, .character("+"), .character("+"), .character("l"), .character("c"))
        let before = try #require(state.map)
        let view = try #require(state.viewToRemember)
        #expect(view.order == "name" && view.selectedArea == Fixture.bangor.rawValue && view.map?.area == Fixture.bangor.rawValue)
        #expect(view.map?.mode == "blocks")

        let again = reopened(with: view, downloaded: [Fixture.bangor])
        #expect(again.list.order == .name && again.selectedRow.map { again.title(of: $0) } == "Bangor")
        let map = try #require(again.map)
        #expect(map.mode == .blocks && !map.fitsHomeWhenOpened)
        #expect(abs(map.viewport.zoom - before.viewport.zoom) < 1e-9)
        #expect(abs(map.viewport.center.x - before.viewport.center.x) < 0.01 && abs(map.viewport.center.y - before.viewport.center.y) < 0.01)
        if case .package(let area, _)? = map.source { #expect(area == Fixture.bangor) } else { Issue.record("not Bangor's package: \(String(describing: map.source))") }
    }

    @Test func theListAloneIsRememberedAndAnAreaGoneSinceLeavesItAtTheTop() throws {
        var state = Fixture.loaded()
        _ = Fixture.keys(&state, .character("O"))
        Fixture.select(&state, "Acadia")
        let view = try #require(state.viewToRemember)
        #expect(view.map == nil && view.downloadedFirst == true)
        let again = reopened(with: view)
        #expect(again.map == nil && again.list.downloadedFirst && again.selectedRow.map { again.title(of: $0) } == "Acadia")
        // The area no longer listed: the list at its top, no map.
        let gone = RememberedView(order: "size", selectedArea: String(repeating: "f", count: 32),
                                  map: .init(area: String(repeating: "f", count: 32), longitude: -68, latitude: 44, zoom: 9, mode: "braille"))
        let other = reopened(with: gone)
        #expect(other.map == nil && other.list.selection == 0 && other.list.order == .size)
        // Nothing to remember before the web map is listed.
        #expect(AppState(portalHost: "h", webMapID: Fixture.webMapID).viewToRemember == nil)
    }

    @Test func theMapsCardOpensAtTheStartAndItsPortalPagesWaitForTheClient() {
        var state = AppState(portalHost: "start", webMapID: Fixture.webMapID)
        state.catalog.startsOnMaps = .mine
        let effects = App.update(&state, .started)
        guard case .maps(let maps)? = state.overlay else { Issue.record("no card"); return }
        #expect(maps.tab == .mine && !effects.contains { if case .maps(.loadMaps) = $0 { true } else { false } })
        #expect(App.update(&state, .catalog(.connected(host: "portal.example.com"))) == [.maps(.loadMaps(WebMapsRequest(tab: .mine)))])
        var searching = AppState(portalHost: "start", webMapID: Fixture.webMapID)
        searching.catalog.startsOnMaps = .search
        _ = App.update(&searching, .started)
        #expect(searching.keyContext == .search, "the words are typed at once")
    }
}
