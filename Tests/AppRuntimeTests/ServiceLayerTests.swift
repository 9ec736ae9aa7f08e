import AppModel
import AppRuntime
import ArcGISModel
import ArcGISPortal
import Foundation
import Geometry
import HTTP
import LoopbackHTTP
import MapRender
import MapSources
import MapbookCore
import OfflineLibrary
import PortalFixtures
import SamplePortal
import Synchronization
import Testing
import MapbookServices

/// A web map's other layer kinds, against the sample portal: a map service drawn by its server for
/// each view and identified through it, a feature collection, a CSV file, and a KML layer listed.
@Suite("Map services, feature collections and CSV layers")
struct ServiceLayerTests {
    static let rockland = GeoPoint(longitude: -69.1047, latitude: 44.1037)

    /// A web map of a hundred layers on a server that refuses every connection: eight are asked,
    /// the host is then known to be away, and the rest are said in one line, not a hundred.
    @Test func layersOnAnUnreachableHostAreAskedOnceAndSaidTogether() async throws {
        let closed = try LoopbackServer { _ in .json("{}") }
        let dead = closed.baseURL
        closed.stop()
        let layers = (0..<100).map { i in
            WebMapLayer(title: "Layer \(i)", layerType: "ArcGISFeatureLayer", url: dead.appendingPathComponent("arcgis/rest/services/S/FeatureServer/\(i)").absoluteString)
        }
        let opened = await OperationalLayerLoaders.open(OperationalLayers(layers: layers, online: true),
                                                        library: SampleFixture.scratchLibrary(),
                                                        client: PortalClient(portal: dead, http: HTTPClient(configuration: HTTPConfiguration(retry: .none))))
        #expect(opened.features.isEmpty)
        #expect(opened.problems.count <= 9, "\(opened.problems.count) sentences")
        #expect(opened.problems.last?.hasSuffix("more could not be opened either: Cannot reach 127.0.0.1: the connection was refused or the network is unreachable.") == true,
                "\(opened.problems.last ?? "")")
    }

    static func open(online: Bool = true) async throws -> (SamplePortal, OpenedOperationalLayers) {
        let portal = try SampleFixture.start()
        let client = PortalClient(portal: portal.baseURL)
        let webMap = try await client.webMap(ItemID(SampleServicesMap.id)!)
        let opened = await OperationalLayerLoaders.open(OperationalLayers(layers: webMap.flatOperationalLayers, online: online),
                                                        library: SampleFixture.scratchLibrary(), client: client)
        return (portal, opened)
    }

    static func query(_ request: LoopbackRequest) -> [String: String] { request.query }

    @Test func everyKindOpensInTheWebMapsOrder() async throws {
        let (portal, opened) = try await Self.open()
        defer { portal.stop() }
        #expect(opened.features.map(\.title) == ["Lighthouses", "Ferry terminals"])
        #expect(opened.images.map(\.layer.title) == ["Maine boundaries"])
        #expect(opened.listedOnly == ["Hiking trails (KML) · not drawn"])
        #expect(opened.problems.isEmpty, "\(opened.problems)")
        #expect(opened.images[0].layer.legend.map(\.label) == ["Towns", "Counties"], "the service's legend, for L")
        let ferries = try #require(await opened.features[1].current)
        #expect(ferries.features.count == 5 && ferries.info.popup?.title == "{Name} ferry terminal")
        #expect(portal.requests.filter { $0.path.hasSuffix("/data") && $0.path.contains(SampleServicesMap.csvID) }.count == 1,
                "the CSV file is fetched once")
    }

    @Test func theMapServiceDrawsItsPictureForTheViewAndKeepsIt() async throws {
        let (portal, opened) = try await Self.open()
        defer { portal.stop() }
        var stack = MapStack.worldOutline()
        opened.add(to: &stack)
        let request = MapRequest(viewport: MapViewport(center: MercatorPoint(Self.rockland), zoom: 9), columns: 80, rows: 24)
        let image = await stack.render(request)
        #expect(image.report.rasterTilesDrawn == 1, "the service's picture")
        #expect(image.problems.isEmpty, "\(image.problems)")
        let exports = portal.requests.filter { $0.path.hasSuffix("/MapServer/export") }
        let export = try #require(exports.first)
        #expect(exports.count == 1)
        let view = ServiceImageLayer.view(request.viewport, columns: 80, rows: 24)
        let box = try #require(export.query["bbox"]).split(separator: ",").compactMap { Double($0) }
        #expect(box.count == 4 && abs(box[0] - view.left) < 1e-3 && abs(box[1] - view.bottom) < 1e-3
                && abs(box[2] - view.right) < 1e-3 && abs(box[3] - view.top) < 1e-3)
        #expect(export.query["size"] == "80,48", "a cell's width by half its height: the grid pictures are drawn at")
        #expect(export.query["bboxSR"] == "3857" && export.query["imageSR"] == "3857" && export.query["format"] == "png32")
        #expect(export.query["transparent"] == "true" && export.query["layers"] == "show:0,1" && export.query["dpi"] == "48")
        #expect(export.query["f"] == "image")
        // The county lines the server drew show over the outline: the picture is laid where it belongs.
        let outlineOnly = await MapStack.worldOutline().render(request)
        #expect(image.frame.cells != outlineOnly.frame.cells)
        // The same view again is drawn from the picture kept; a hidden layer is not asked for.
        _ = await stack.render(request)
        var hidden = request
        hidden.hiddenLayers = ["Maine boundaries"]
        let without = await stack.render(hidden)
        #expect(without.report.rasterTilesDrawn == 0)
        #expect(portal.requests.filter { $0.path.hasSuffix("/MapServer/export") }.count == 1)
    }

    @Test func aMapServiceBasemapIsDrawnByItsServerUnderTheFeatures() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let client = PortalClient(portal: portal.baseURL)
        let basemap = Basemap(title: "Boundaries", layers: [
            WebMapLayer(title: "Maine boundaries", layerType: "ArcGISMapServiceLayer", url: portal.baseURL.absoluteString + "/arcgis/rest/services/Maine_Boundaries/MapServer"),
        ])
        let webMap = WebMap(basemapTitle: basemap.title, basemapLayers: basemap.layers)
        #expect(BasemapObstacle.of(webMap, chosen: nil) == nil, "a map service is a basemap mapbook draws")
        var stack = try await OperationalLayerLoaders.basemap(basemap, client: client, http: HTTPClient(), cacheDirectory: nil)
        #expect(stack.layerNames == ["Maine boundaries"] && stack.problems.isEmpty, "\(stack.layerNames) \(stack.problems)")
        #expect(stack.legend()["Maine boundaries"]?.map(\.label) == ["Towns", "Counties"], "its legend, for L")
        let (_, opened) = try await Self.open()
        opened.add(to: &stack)
        #expect(stack.images.map(\.isBasemap) == [true, false])
        let request = MapRequest(viewport: MapViewport(center: MercatorPoint(Self.rockland), zoom: 9), columns: 80, rows: 24)
        let image = await stack.render(request)
        #expect(image.report.rasterTilesDrawn == 2, "the basemap's picture and the operational one")
        #expect(image.problems.isEmpty, "\(image.problems)")
        // Without a portal to ask through, one sentence names the layer.
        await #expect {
            _ = try await MapStack.connect(basemap, http: HTTPClient(), cacheDirectory: nil)
        } throws: { error in
            error.userSentence == "Maine boundaries is drawn by its server, which cannot be asked here."
        }
    }

    @Test func identifyAsksTheServiceAndShowsItsSublayersPopups() async throws {
        let (portal, opened) = try await Self.open()
        defer { portal.stop() }
        var stack = MapStack.worldOutline()
        opened.add(to: &stack)
        let request = MapRequest(viewport: MapViewport(center: MercatorPoint(Self.rockland), zoom: 10), columns: 120, rows: 38)
        let hits = await stack.identify(at: Self.rockland, request: request)
        let titles = hits.map(\.card.title)
        #expect(Array(titles.prefix(3)) == ["Rockland ferry terminal", "Rockland", "Knox County"], "\(titles)")
        #expect(hits[1].card.layer == "Maine boundaries · Towns" && hits[1].card.rows.contains(PopupCard.Row(label: "County", value: "Knox")))
        #expect(hits[2].geometry != nil, "the county's outline, to highlight it")
        let identify = try #require(portal.requests.first { $0.path.hasSuffix("/MapServer/identify") })
        #expect(identify.query["geometry"] == "-69.1047,44.1037" && identify.query["geometryType"] == "esriGeometryPoint")
        #expect(identify.query["sr"] == "4326" && identify.query["layers"] == "visible:0,1" && identify.query["tolerance"] == "2")
        #expect(identify.query["imageDisplay"] == "120,76,48" && identify.query["returnGeometry"] == "true")
        #expect(identify.query["mapExtent"]?.split(separator: ",").count == 4)
    }

    @Test func withoutTheNetworkTheWebMapsOwnFeaturesStillDrawAndTheRestIsListed() async throws {
        let (portal, opened) = try await Self.open(online: false)
        defer { portal.stop() }
        #expect(opened.features.map(\.title) == ["Lighthouses"])
        #expect(opened.listedOnly == ["Maine boundaries (ArcGISMapServiceLayer) · needs the network",
                                      "Ferry terminals (CSV) · needs the network", "Hiking trails (KML) · not drawn"])
        #expect(!portal.requests.contains { $0.path.contains("MapServer") || $0.path.contains(SampleServicesMap.csvID) })
    }

    @Test func aDownloadedAreaDrawsTheMapServicesKeptPictureOffline() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let library = OfflineLibrary(root: FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-kept-picture-\(UUID())").path,
                                     portal: portal.baseURL, webMap: ItemID(SampleServicesMap.id)!)
        let client = PortalClient(portal: portal.baseURL)
        let webMap = try await client.webMap(ItemID(SampleServicesMap.id)!)
        let area = try #require(try await client.mapAreas(of: ItemID(SampleFixture.webMapID)!).first { $0.item.id.rawValue == SampleFixture.portlandID })
        let queue = DownloadQueue(library: library, client: client, http: HTTPClient())
        await queue.setKeptLayers(webMap.keptLayers)
        await queue.enqueue(area)
        for await event in queue.events {
            if case .finished(area.item.id, _) = event { break }
            if case .failed(area.item.id, let error) = event { Issue.record("\(error)"); return }
        }
        portal.stop()
        let opened = await OperationalLayerLoaders.open(OperationalLayers(area: area.item.id, layers: webMap.flatOperationalLayers, online: false),
                                                        library: library, client: nil)
        #expect(opened.images.map(\.layer.title) == ["Maine boundaries"] && opened.images[0].featuresBelow == 0)
        #expect(opened.features.map(\.title) == ["Lighthouses", "Ferry terminals"])
        #expect(opened.listedOnly == ["Hiking trails (KML) · not drawn"], "the map service is drawn from its picture, not listed")
        var stack = MapStack.worldOutline()
        opened.add(to: &stack)
        let portland = GeoPoint(longitude: -70.2553, latitude: 43.6615)
        let request = MapRequest(viewport: MapViewport(center: MercatorPoint(portland), zoom: 11), columns: 80, rows: 24)
        let image = await stack.render(request)
        #expect(image.report.rasterTilesDrawn == 1 && image.problems.isEmpty, "\(image.problems)")
        let outlineOnly = await MapStack.worldOutline().render(request)
        #expect(image.frame.cells != outlineOnly.frame.cells, "the kept picture's lines show")
    }

    /// A server that describes itself and then refuses to draw, and a CSV file that is not one.
    @Test func aServiceThatFailsIsNamedAndTheRestDraws() async throws {
        let server = try LoopbackServer { request in
            if request.path.hasSuffix("/MapServer") { return .json(#"{"layers":[{"id":0,"name":"Roads"}]}"#) }
            if request.path.hasSuffix("/export") { return .json(#"{"error":{"code":500,"message":"Map export failed.","details":[]}}"#) }
            if request.path.hasSuffix("/legend") { return .text("no", status: 404) }
            return .text("Not Found", status: 404)
        }
        defer { server.stop() }
        let base = server.baseURL.absoluteString
        let layers = [
            WebMapLayer(title: "Roads", layerType: "ArcGISMapServiceLayer", url: base + "/arcgis/rest/services/Roads/MapServer"),
            WebMapLayer(title: "Wells", layerType: "CSV", url: base + "/wells.csv"),
        ]
        let client = PortalClient(portal: server.baseURL)
        let opened = await OperationalLayerLoaders.open(OperationalLayers(layers: layers, online: true), library: SampleFixture.scratchLibrary(),
                                                        client: client)
        #expect(opened.images.map(\.layer.title) == ["Roads"] && opened.images[0].layer.legend.isEmpty, "a service without a legend still draws")
        #expect(opened.problems.count == 1 && opened.problems[0].hasPrefix("Wells could not be opened: "), "\(opened.problems)")
        var stack = MapStack.worldOutline()
        opened.add(to: &stack)
        let request = MapRequest(viewport: MapViewport(center: MercatorPoint(Self.rockland), zoom: 6), columns: 60, rows: 20)
        let image = await stack.render(request)
        #expect(image.report.featuresDrawn > 0, "the outline still draws")
        #expect(image.problems.contains { $0.hasPrefix("Roads could not be drawn: ") && $0.contains("Map export failed") }, "\(image.problems)")
        // Its identify fails too: a card says so, and the outline's answer still comes.
        let hits = await stack.identify(at: Self.rockland, request: request)
        #expect(hits.first?.card.title == "Not identified" && hits.first?.card.text?.hasPrefix("Roads could not be asked what lies here: ") == true)
        #expect(hits.dropFirst().contains { $0.card.title == "United States of America" })
    }

    /// Panning asks once, for where the view came to rest; a view seen before is not asked again.
    @Test func aNewerViewSupersedesTheOneBeforeAndKeptViewsAreNotAskedAgain() async throws {
        let asked = Mutex<[ServiceImageLayer.ImageView]>([])
        let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")!
        // A long settle, so a busy machine cannot make the second view come after the first one settled.
        let layer = ServiceImageLayer(title: "Roads", settle: .milliseconds(600)) { view in
            asked.withLock { $0.append(view) }
            try await Task.sleep(for: .milliseconds(50))
            return png
        }
        let first = MapViewport(center: MercatorPoint(Self.rockland), zoom: 9)
        let second = MapViewport(center: MercatorPoint(x: first.center.x + 5_000, y: first.center.y), zoom: 9)
        async let a = layer.image(for: first, columns: 40, rows: 10)
        try await Task.sleep(for: .milliseconds(20))
        async let b = layer.image(for: second, columns: 40, rows: 10)
        let (ra, rb) = await (a, b)
        #expect(asked.withLock { $0 } == [ServiceImageLayer.view(second, columns: 40, rows: 10)], "only the view that came to rest")
        #expect(ra.image == nil && ra.problem == nil, "nothing yet to show for the first")
        #expect(rb.image?.left == ServiceImageLayer.view(second, columns: 40, rows: 10).left)
        let again = await layer.image(for: second, columns: 40, rows: 10)
        #expect(again.image != nil && asked.withLock { $0.count } == 1)
        // Back at the first view: asked now; meanwhile the kept picture of the second is drawn where it belongs.
        let back = await layer.image(for: first, columns: 40, rows: 10)
        #expect(back.image?.left == ServiceImageLayer.view(first, columns: 40, rows: 10).left && asked.withLock { $0.count } == 2)
    }
}
