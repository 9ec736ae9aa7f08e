import AppModel
import Foundation
import LibraryModel
import MapbookCore
import Testing
import ArcGISModel
import Geometry

/// A web map whose basemap mapbook cannot draw still shows its layers: over the world outline,
/// with one sentence on why the basemap is absent, opened where its initial view says.
@Suite("update: web maps in other projections")
struct OtherProjectionTests {
    /// A city map in NAD83 / MTM zone 7 (as Québec's are): a tiled basemap in that zone, and
    /// feature layers in a group.
    static func quebec(basemapType: String = "ArcGISTiledMapServiceLayer", wkid: Int = 32187) -> AppState {
        var state = AppState(portalHost: "start", webMapID: Fixture.webMapID)
        _ = App.update(&state, .terminal(.resized(Display(width: 120, height: 40))))
        _ = App.update(&state, .catalog(.connected(host: "portal.example.com")))
        let data = try! JSONValue(parsing: Data("""
        {"baseMap":{"title":"Carte de base","baseMapLayers":[{"id":"b","layerType":"\(basemapType)","title":"Carte de base",
          "url":"https://carto.example.ca/arcgis/rest/services/Base/MapServer"}]},
         "operationalLayers":[{"id":"g","layerType":"GroupLayer","title":"Quartiers","layers":[
           {"id":"f","layerType":"ArcGISFeatureLayer","title":"Parcs","url":"https://carto.example.ca/arcgis/rest/services/Parcs/FeatureServer/0"}]}],
         "initialState":{"viewpoint":{"targetGeometry":{"xmin":240000,"ymin":5170000,"xmax":260000,"ymax":5190000,
           "spatialReference":{"wkid":\(wkid)}}}},
         "spatialReference":{"wkid":\(wkid)}}
        """.utf8))
        let item = PortalItem(id: Fixture.webMapID, title: "Ville de Québec", type: "Web Map",
                              extent: GeoExtent(xmin: -71.6, ymin: 46.6, xmax: -71.0, ymax: 47.0))
        let catalog = LibraryCatalog(webMapItem: item, webMapData: data, areas: [], syncedAt: nil)
        _ = App.update(&state, .catalog(.webMapLoaded(WebMapSnapshot(catalog: catalog, library: LibrarySnapshot(catalog: nil, downloads: [:], partialBytes: [:]),
                                                            host: "portal.example.com"))))
        return state
    }

    /// PROJ knows the zone: the web map opens on its own basemap (its tiles placed by their scheme).
    @Test func itOpensOnItsOwnBasemapAtItsInitialView() throws {
        var state = Self.quebec()
        let effects = Fixture.keys(&state, .enter)
        #expect(effects.contains { if case .map(.openMap(1, .basemap)) = $0 { true } else { false } })
        #expect(state.basemapNotShown == nil && state.message == nil)
        // Home is the initial view, projected from the zone: Québec City, not the item's wider box.
        let home = try #require(state.map?.homeExtent)
        #expect(home.xmin > -71.4 && home.xmax < -71.0 && home.ymin > 46.6 && home.ymax < 46.9)
    }

    /// A system PROJ does not know: the layers over the world outline, with the reason.
    @Test func itsLayersOpenOverTheWorldOutlineWithTheReason() throws {
        var state = Self.quebec(wkid: 99999)
        let effects = Fixture.keys(&state, .enter)
        #expect(effects.contains(.map(.openMap(session: 1, .outline))))
        let layers = try #require(effects.compactMap { effect -> OperationalLayers? in
            if case .map(.openFeatureLayers(1, let layers)) = effect { layers } else { nil }
        }.first, "the operational layers open with the outline")
        #expect(layers.layers.map(\.title) == ["Parcs"], "the group's feature layer")
        #expect(state.map?.sourceName == "world outline")
        #expect(state.message == "This web map is in a coordinate system mapbook cannot use: wkid 99999 is not a coordinate system PROJ knows; "
                + "its layers are drawn over the world outline; B offers the portal's basemaps.")
        // L lists the operational layers and the outline once both are open.
        _ = App.update(&state, .map(.mapOpened(session: 1, MapSourceSummary(layerNames: ["World outline"], extent: nil))))
        _ = App.update(&state, .map(.featureLayersOpened(session: 1, FeatureLayersSummary(titles: ["Parcs"], hidden: [], legend: [:], problems: []))))
        _ = Fixture.keys(&state, .character("L"))
        #expect(state.mapPanelRows.contains { $0.contains("Parcs") } && state.mapPanelRows.contains { $0.contains("World outline") })
    }

    @Test func aBasemapOfAKindMapbookDoesNotDrawAlsoGivesWayToTheOutline() {
        var state = Self.quebec(basemapType: "WMS", wkid: 102100)
        let effects = Fixture.keys(&state, .enter)
        #expect(effects.contains(.map(.openMap(session: 1, .outline))))
        #expect(state.message?.hasPrefix("This web map's basemap, “Carte de base” (WMS), is of a kind mapbook does not draw") == true)
    }

    @Test func aWebMercatorWebMapStillOpensOnItsBasemap() {
        var state = Fixture.loaded()
        let effects = Fixture.keys(&state, .enter)
        #expect(effects.contains { if case .map(.openMap(1, .basemap)) = $0 { true } else { false } })
        #expect(state.basemapNotShown == nil)
    }
}
