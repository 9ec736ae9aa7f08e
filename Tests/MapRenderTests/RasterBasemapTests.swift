import ArcGISPortal
import Foundation
import HTTP
import MapbookCore
import PortalFixtures
import SamplePortal
import TerminalCanvas
import Testing
import TileFormats
@testable import MapRender
@testable import MapSources
import ArcGISModel
import Geometry

/// Raster basemaps: a cache's tiling scheme matched to Web Mercator zooms by resolution, the three
/// kinds of tile address, layers stacked with their opacity, and the sample portal's raster
/// MapServer and gallery drawn end to end.
@Suite struct RasterBasemapTests {
    /// ArcGIS Online's World Topographic Map tileInfo (shortened): levels equal zooms.
    static func tileInfo(firstZoom: Int, count: Int, wkid: Int = 102100, originX: Double = -20037508.342787,
                         format: String = "JPEG") -> JSONValue {
        .object([
            "rows": .number(256), "cols": .number(256), "format": .string(format),
            "origin": .object(["x": .number(originX), "y": .number(20037508.342787)]),
            "spatialReference": .object(["wkid": .number(Double(wkid))]),
            "lods": .array((0..<count).map { level in
                .object(["level": .number(Double(level)), "resolution": .number(156543.03392800014 / Double(1 << (firstZoom + level))),
                         "scale": .number(591657527.591555 / Double(1 << (firstZoom + level)))])
            }),
        ])
    }

    @Test func levelsAreMatchedToZoomsByResolutionNotByNumber() throws {
        let standard = try RasterTiling(tileInfo: Self.tileInfo(firstZoom: 0, count: 20), layerName: "World")
        #expect(standard.zooms == 0...19 && standard.levels[7] == 7)
        // A cache built from zoom 3 numbers its levels from 0: level 0 is zoom 3.
        let partial = try RasterTiling(tileInfo: Self.tileInfo(firstZoom: 3, count: 8), layerName: "Region")
        #expect(partial.zooms == 3...10 && partial.levels[3] == 0 && partial.levels[10] == 7 && partial.levels[2] == nil)
        let address = TileAddressing.tiledService(URL(string: "https://example.com/MapServer")!, levels: partial.levels)
        #expect(address.url(for: TileKey(z: 5, x: 9, y: 11))?.absoluteString == "https://example.com/MapServer/tile/2/11/9")
        #expect(address.url(for: TileKey(z: 1, x: 0, y: 0)) == nil, "no level there: no request")
    }

    @Test func tilingSchemesMapbookCannotDrawAreRefusedWithASentence() {
        #expect(throws: MapSourceError.self) { try RasterTiling(tileInfo: Self.tileInfo(firstZoom: 0, count: 5, wkid: 2154), layerName: "L") }
        #expect(throws: MapSourceError.self) {
            try RasterTiling(tileInfo: Self.tileInfo(firstZoom: 0, count: 5, originX: -5_000_000), layerName: "L")
        }
        do {
            _ = try RasterTiling(tileInfo: Self.tileInfo(firstZoom: 0, count: 5, wkid: 4326), layerName: "Elevation")
            Issue.record("a geographic tiling scheme was accepted")
        } catch {
            #expect(error.userSentence == "Elevation is not tiled in Web Mercator's grid, which is all mapbook draws.")
        }
    }

    @Test func webTiledTemplatesTakeTheTilesNumbersAndASubDomainOfTheirOwn() {
        let template = "https://{subDomain}.tile.example.org/{level}/{col}/{row}.png"
        let address = TileAddressing.template(template, subDomains: ["a", "b", "c"])
        #expect(address.url(for: TileKey(z: 3, x: 4, y: 2))?.absoluteString == "https://a.tile.example.org/3/4/2.png", "(4 + 2) % 3 = 0: a")
        #expect(address.url(for: TileKey(z: 3, x: 4, y: 2)) == address.url(for: TileKey(z: 3, x: 4, y: 2)), "the same tile, the same address")
        #expect(TileAddressing.fill("https://t.example.org/{z}/{x}/{y}.png", key: TileKey(z: 1, x: 1, y: 0), subDomains: [])
            == "https://t.example.org/1/1/0.png")
    }

    @Test func aBasemapDrawsItsTiledLayersInOrderWithReferenceLayersLast() {
        let basemap = Basemap(title: "Imagery Hybrid", layers: [
            WebMapLayer(title: "Labels", layerType: "VectorTileLayer", isReference: true),
            WebMapLayer(title: "Imagery", layerType: "ArcGISTiledMapServiceLayer"),
            WebMapLayer(title: "Hillshade", layerType: "WMS"),
            WebMapLayer(title: "Hidden", layerType: "WebTiledLayer", visible: false),
        ])
        #expect(basemap.drawableLayers.map(\.title) == ["Imagery", "Labels"])
        #expect(basemap.undrawableLayers.map(\.title) == ["Hillshade"])
        #expect(TileServiceSource.cannotDraw(basemap.undrawableLayers[0])
            == "Hillshade (WMS) cannot be drawn: mapbook draws tiled layers and map services.")
        #expect(Basemap(arcGISJSON: basemap.arcGISJSON) == basemap, "kept in the library as the web map spec's baseMap")
    }

    /// A half-transparent layer lets the one below show through; a missing tile shows neutral grey.
    @Test func rasterOpacityBlendsAndMissingTilesAreNeutralNotBlack() throws {
        func solid(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> RasterImage {
            RasterImage(width: 4, height: 4, rgba: Array([r, g, b, 255].repeated(16)))
        }
        let viewport = MapViewport(center: MercatorPoint(x: 1000, y: 1000), zoom: 2)
        let below = MapScene(viewport: viewport, tiles: [MapTile(key: TileKey(z: 0, x: 0, y: 0), raster: solid(0, 0, 255))], tileSize: 256)
        var above = below
        above.tiles = [MapTile(key: TileKey(z: 0, x: 0, y: 0), raster: solid(255, 0, 0))]
        above.opacity = 0.5
        var frame = Frame(width: 10, height: 4)
        MapComposer.draw([below, above], into: &frame, rect: frame.bounds)
        let blended = try #require(frame[5, 1].style.background)
        let rgb = XtermPalette.rgb(blended)
        #expect(rgb.r > 80 && rgb.b > 80 && rgb.g < 60, "half red over blue is purple, not \(rgb)")

        var empty = Frame(width: 10, height: 4)
        var missing = below
        missing.tiles = []
        MapComposer.draw([missing], into: &empty, rect: empty.bounds)
        #expect(empty.cells.allSatisfy { $0.style.background == MapComposer.noDataOnDark })
        // The theme decides the grey: pale on a light terminal; without colour, a dotted texture.
        missing.lightTheme = true
        MapComposer.draw([missing], into: &empty, rect: empty.bounds)
        #expect(empty.cells.allSatisfy { $0.style.background == MapComposer.noDataOnLight })
        missing.colors = false
        missing.lightTheme = false
        MapComposer.draw([missing], into: &empty, rect: empty.bounds)
        #expect(empty.cells.allSatisfy { $0.character == "." && $0.style == CellStyle() }, "\(empty.text)")
    }

    // MARK: Against the sample portal

    @Test func theSampleMapServerIsARasterSourceWhoseLevelsStartAtZoomTwo() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let layer = WebMapLayer(title: "Maine Topographic", layerType: "ArcGISTiledMapServiceLayer",
                                url: portal.baseURL.absoluteString + "/arcgis/rest/services/Maine_Topographic/MapServer")
        let source = try await TileServiceSource.connect(layer, http: HTTPClient(), cacheDirectory: nil)
        #expect(!source.isVector && source.tileSize == 256 && source.zooms == 2...12)
        #expect(source.attribution?.contains("Natural Earth") == true)
        // Maine at zoom 6: column 19, row 22 (the service's level 4).
        let tile = try #require(try await source.tile(TileKey(z: 6, x: 19, y: 22)))
        guard case .raster(let image) = tile.content else { Issue.record("not a raster tile"); return }
        #expect(image.width == 256 && image.height == 256)
        #expect(try await source.tile(TileKey(z: 6, x: 0, y: 0)) == nil, "outside the cache: no tile, no error")
    }

    @Test func theGalleryIsFoundAsArcGISOnlineFindsItAndEachBasemapDraws() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let client = PortalClient(portal: portal.baseURL)
        let gallery = try await client.basemapGallery()
        #expect(gallery.map(\.item.title) == ["Explore Maine Basemap", "Maine Topographic", "Explore Maine Dark", "Maine Relief with Boundaries"])
        let topographic = gallery[1].basemap
        #expect(topographic.drawableLayers.map(\.layerType) == ["ArcGISTiledMapServiceLayer", "VectorTileLayer"])
        #expect(topographic.drawableLayers.last?.isReference == true)

        let maine = GeoExtent(xmin: -71, ymin: 43, xmax: -67, ymax: 47.4)
        // Each basemap draws, a map service through the portal's client (as the browser asks it).
        let openImage: MapStack.ServiceImageOpener = { layer in
            let service = try await client.mapService(layer)
            return ServiceImageLayer(title: layer.title ?? "", fetch: { view in
                try await client.exportImage(service, view: ServiceView(xmin: view.left, ymin: view.bottom, xmax: view.right, ymax: view.top,
                                                                        width: view.width, height: view.height))
            })
        }
        for choice in gallery {
            let stack = try await MapStack.connect(choice.basemap, http: HTTPClient(), cacheDirectory: nil, openImage: openImage)
            #expect(stack.problems.isEmpty, "\(choice.item.title): \(stack.problems)")
            let request = MapRequest(viewport: MapViewport(fitting: maine, columns: 80, rows: 24), columns: 80, rows: 24)
            let image = await stack.render(request)
            #expect(image.report.featuresDrawn + image.report.rasterTilesDrawn > 0, "\(choice.item.title) drew nothing")
            #expect(image.problems.isEmpty, "\(choice.item.title): \(image.problems)")
        }
        // The raster layer and its reference layer are two layers of one stack, raster first.
        let stack = try await MapStack.connect(topographic, http: HTTPClient(), cacheDirectory: nil)
        #expect(stack.layers.map { $0.loader.source.isVector } == [false, true])
        let request = MapRequest(viewport: MapViewport(center: MercatorPoint(GeoPoint(longitude: -70.26, latitude: 43.66)), zoom: 9),
                                 columns: 80, rows: 24)
        let image = await stack.render(request)
        #expect(image.report.rasterTilesDrawn > 0 && !image.picture.finished().placed.isEmpty, "raster tiles with place names on top")
        // The layer list's legend: the MapServer's own (labels, swatches in its pictures' colours),
        // and the reference layer's style layers by source layer.
        let legend = stack.legend()
        let raster = try #require(legend[stack.layerNames[0]])
        #expect(raster.map(\.label) == ["Water", "Land", "Maine"])
        #expect(raster[0].color == XtermPalette.nearest(r: 160, g: 196, b: 222) && raster[2].color == XtermPalette.nearest(r: 196, g: 219, b: 170))
        #expect(legend["places"]?.map(\.label).contains("city names") == true)
        #expect(portal.requests.contains { $0.path.hasSuffix("/MapServer/legend") && $0.query["f"] == "json" })
    }

    @Test func aServiceLegendWithoutPicturesOrWithBrokenOnesKeepsItsLabels() throws {
        let json = try JSONValue(parsing: Data(#"""
            {"layers":[{"layerName":"Roads","legend":[{"label":"","imageData":"not base64!"},{"label":"Highway","imageData":"aGVsbG8="}]}]}
            """#.utf8))
        let entries = MapLegend.entries(serviceLegend: json)
        #expect(entries.map(\.label) == ["Roads", "Highway"] && entries.allSatisfy { $0.color == nil })
    }

    @Test func aLayerThatCannotBeOpenedIsNamedAndTheRestDraws() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let basemap = Basemap(title: "Mixed", layers: [
            WebMapLayer(title: "Maine Topographic", layerType: "ArcGISTiledMapServiceLayer",
                        url: portal.baseURL.absoluteString + "/arcgis/rest/services/Maine_Topographic/MapServer"),
            WebMapLayer(title: "Gone", layerType: "ArcGISTiledMapServiceLayer", url: portal.baseURL.absoluteString + "/arcgis/rest/services/Gone/MapServer"),
            WebMapLayer(title: "Relief", layerType: "WMS", url: portal.baseURL.absoluteString + "/wms"),
        ])
        let stack = try await MapStack.connect(basemap, http: HTTPClient(), cacheDirectory: nil)
        #expect(stack.layers.count == 1)
        #expect(stack.problems.count == 2)
        #expect(stack.problems.contains { $0 == "Relief (WMS) cannot be drawn: mapbook draws tiled layers and map services." })
        #expect(stack.problems.contains { $0.hasPrefix("Gone could not be opened:") })
    }
}

extension Array {
    fileprivate func repeated(_ times: Int) -> [Element] { (0..<times).flatMap { _ in self } }
}

/// A basemap opened once online draws offline from what it kept: its description and style beside
/// its tiles in the tile cache.
@Suite struct OfflineBasemapTests {
    @Test func aBasemapSeenOnlineOpensAndDrawsOfflineFromItsKeptTiles() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-offline-basemap-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let client = PortalClient(portal: portal.baseURL)
        let topographic = try #require(try await client.basemapGallery().first { $0.item.title == "Maine Topographic" }).basemap
        let request = MapRequest(viewport: MapViewport(center: MercatorPoint(GeoPoint(longitude: -70.26, latitude: 43.66)), zoom: 8),
                                 columns: 60, rows: 20)
        let online = try await MapStack.connect(topographic, http: HTTPClient(), cacheDirectory: cache)
        let seen = await online.render(request)
        #expect(seen.report.rasterTilesDrawn > 0 && seen.problems.isEmpty)

        try portal.setOutage(true)
        let offline = try await MapStack.connect(topographic, http: HTTPClient(), cacheDirectory: cache)
        #expect(offline.problems.isEmpty, "both layers opened from what they kept: \(offline.problems)")
        let again = await offline.render(request)
        #expect(again.frame.text == seen.frame.text, "the same picture from the kept tiles")
        let elsewhere = await offline.render(MapRequest(viewport: MapViewport(center: MercatorPoint(GeoPoint(longitude: -68.3, latitude: 44.3)),
                                                                              zoom: 11), columns: 60, rows: 20))
        // Said by host: the portal may answer while a basemap's own server does not.
        #expect(elsewhere.problems.contains("127.0.0.1 cannot be reached: only tiles seen before can be drawn."))

        let never = Basemap(title: "Dark", layers: [WebMapLayer(title: "Dark", layerType: "VectorTileLayer",
                                                                styleURL: portal.baseURL.absoluteString + "/never/seen.json")])
        do {
            _ = try await MapStack.connect(never, http: HTTPClient(), cacheDirectory: cache)
            Issue.record("a basemap never seen opened offline")
        } catch {
            #expect(error.userSentence == "The basemap's server 127.0.0.1 cannot be reached, and this basemap has not been opened on this device before.")
        }
    }
}
