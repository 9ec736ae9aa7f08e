import AppModel
import ArcGISPortal
import Foundation
import MapRender
import MapSources
import MapbookCore
import Testing
import ArcGISModel

/// `B` in the map view: the portal's gallery asked for once, the list, a choice that reopens the
/// map at the same view and is remembered; offline, what draws without the network.
@Suite("update: choosing a basemap")
struct BasemapChoiceTests {
    static let dark = Basemap(title: "Dark", layers: [WebMapLayer(title: "Dark", layerType: "VectorTileLayer",
                                                                  styleURL: "https://basemaps.example.com/dark.json")])
    static let imagery = Basemap(title: "Imagery", layers: [
        WebMapLayer(title: "World Imagery", layerType: "ArcGISTiledMapServiceLayer", url: "https://services.example.com/Imagery/MapServer"),
        WebMapLayer(title: "Labels", layerType: "VectorTileLayer", styleURL: "https://basemaps.example.com/labels.json", isReference: true),
    ])
    static var gallery: [BasemapChoice] {
        [BasemapChoice(item: PortalItem(id: Fixture.id(50), title: "Dark \u{1B}[31mGray", type: "Web Map"), basemap: dark),
         BasemapChoice(item: PortalItem(id: Fixture.id(51), title: "Imagery Hybrid", type: "Web Map"), basemap: imagery)]
    }

    /// The web map's map, opened and drawn once, with the gallery list open.
    func mapWithGallery() -> AppState {
        var state = Fixture.loaded()
        _ = Fixture.keys(&state, .enter)
        _ = App.update(&state, .map(.mapOpened(session: 1, MapSourceSummary(layerNames: ["water"], extent: nil))))
        #expect(Fixture.keys(&state, .character("B")) == [.map(.loadBasemapGallery)], "the gallery is asked for the first time")
        #expect(state.mapPanelRows.last == "  Asking the portal for its basemaps…")
        _ = App.update(&state, .map(.basemapGallery(.success(Self.gallery))))
        return state
    }

    @Test func theListHoldsTheWebMapsOwnThenTheGalleryWithTheCurrentMarked() throws {
        let state = mapWithGallery()
        let map = try #require(state.map)
        #expect(map.panel == .basemaps)
        #expect(state.mapPanelRows == ["● Topo · this web map's own, vector", "  Dark Gray · vector", "  Imagery Hybrid · raster + reference"],
                "titles from the portal are sanitized")
        #expect(map.panelSelection == 0)
    }

    @Test func choosingOneReopensTheMapAtTheSameViewAndRemembersIt() throws {
        var state = mapWithGallery()
        _ = Fixture.keys(&state, .escape, .character("+"), .character("B"))
        let view = try #require(state.map?.viewport)
        #expect(state.basemaps.gallery != .loading, "asked once: the list is already known")
        let effects = Fixture.keys(&state, .down, .down, .enter)
        #expect(effects.contains(.map(.rememberBasemap(Self.imagery))))
        #expect(effects.contains(.map(.closeMap(session: 1))) && effects.contains(.map(.openMap(session: 2, .basemap(Self.imagery)))))
        #expect(state.basemaps.chosen == Self.imagery && state.onlineBasemap == Self.imagery)
        #expect(state.map?.viewport == view && state.map?.sourceName == "Imagery · online")
        #expect(state.message == "Drawing on Imagery Hybrid.")
        // The overview keeps the web map's own: the gallery's is for the map view.
        #expect(state.overviewBasemap == state.catalog.webMap?.basemap && !effects.contains { if case .map(.drawOverview) = $0 { true } else { false } })
        // Opened, the map keeps the view instead of going home.
        let drawn = App.update(&state, .map(.mapOpened(session: 2, MapSourceSummary(layerNames: ["Imagery"], extent: nil))))
        guard case .map(.drawMap(2, let request))? = drawn.first else { Issue.record("no drawing: \(drawn)"); return }
        #expect(request.viewport == view)
        // Back on the web map's own basemap: the choice is forgotten.
        _ = Fixture.keys(&state, .character("B"))
        #expect(state.mapPanelRows[2] == "● Imagery Hybrid · raster + reference")
        let back = Fixture.keys(&state, .up, .up, .enter)
        #expect(back.contains(.map(.rememberBasemap(nil))) && state.basemaps.chosen == nil)
    }

    @Test func theChoiceKeptInTheLibraryIsTheBasemapAfterARestart() {
        var state = AppState(portalHost: "p", webMapID: Fixture.webMapID)
        _ = App.update(&state, .catalog(.libraryRead(LibrarySnapshot(catalog: Fixture.catalog, downloads: [:], partialBytes: [:],
                                                            chosenBasemap: Self.dark))))
        #expect(state.onlineBasemap == Self.dark)
    }

    @Test func aGalleryThatFailsSaysWhyAndIsAskedForAgain() {
        var state = Fixture.loaded()
        _ = Fixture.keys(&state, .enter, .character("B"))
        _ = App.update(&state, .map(.basemapGallery(.failure(LoadFailure(sentence: "The portal had a problem.", network: .online, host: "p")))))
        #expect(state.mapPanelRows.last == "  The portal had a problem.")
        #expect(Fixture.keys(&state, .down, .enter).isEmpty, "a message row is not a choice")
        _ = Fixture.keys(&state, .escape)
        #expect(Fixture.keys(&state, .character("B")) == [.map(.loadBasemapGallery)])
    }

    @Test func theCurrentOneOnlyClosesTheList() {
        var state = mapWithGallery()
        #expect(Fixture.keys(&state, .enter).isEmpty)
        #expect(state.map?.panel == nil && state.map?.session == 1)
    }

    @Test func offlineTheListHoldsTheDownloadedAreas() throws {
        var state = Fixture.loaded(downloaded: [Fixture.acadia])
        Fixture.select(&state, "Acadia")
        _ = Fixture.keys(&state, .character("m"))
        _ = App.update(&state, .catalog(.network(.offline)))
        #expect(Fixture.keys(&state, .character("B")).isEmpty, "no gallery without the network")
        #expect(state.mapPanelRows == ["● Acadia · on this device"])
    }

    @Test func aWebMapWhoseBasemapCannotBeDrawnStillOpensItsMapForB() {
        var state = Fixture.loaded()
        var webMap = state.catalog.webMap!
        webMap.basemapLayers = [WebMapLayer(title: "Relief", layerType: "WMS")]
        state.catalog.webMap = webMap
        #expect(Fixture.keys(&state, .enter) == [.map(.openMap(session: 1, .outline))], "the world outline stands in")
        #expect(state.map?.status?.hasPrefix("This web map's basemap, “Relief” (WMS), is of a kind mapbook does not draw") == true)
        #expect(Fixture.keys(&state, .character("B")) == [.map(.loadBasemapGallery)])
    }
}

@Suite("update: the overview offline")
struct OfflineOverviewTests {
    @Test func offlineTheOverviewTriesTheKeptBasemapThenTheDownloadedPackages() throws {
        var state = Fixture.loaded(downloaded: [Fixture.acadia, Fixture.bangor])
        _ = App.update(&state, .map(.overviewDrawn(nil)))
        let effects = App.update(&state, .catalog(.network(.offline)))
        let sources = try #require(effects.lazy.compactMap { effect -> [MapSourceChoice]? in
            if case .map(.drawOverview(_, let sources)) = effect { return sources }
            return nil
        }.first)
        let bangor = state.library.downloads[Fixture.bangor]!.mapPackages[0], acadia = state.library.downloads[Fixture.acadia]!.mapPackages[0]
        // Acadia's extent is the larger: its package first.
        #expect(sources == [.basemap(state.overviewBasemap!), .package(area: Fixture.acadia, acadia), .package(area: Fixture.bangor, bangor)])
    }
}
