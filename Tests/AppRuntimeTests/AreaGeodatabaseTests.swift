import AppModel
import AppRuntime
import ArcGISModel
import ArcGISPortal
import Foundation
import Geometry
import HTTP
import LibraryModel
import MapRender
import MapSources
import MapbookCore
import OfflineLibrary
import PortalFixtures
import SamplePortal
import Testing
import MapbookServices

/// A preplanned area whose packages include a SQLite Geodatabase of the web map's feature layers
/// (the sample's Caribou, as ArcGIS prepares areas): the download copies nothing of those layers
/// from the service, and the area's map draws and identifies them from the file, portal stopped.
@Suite("A map area's own geodatabase")
struct AreaGeodatabaseTests {
    static let caribou = GeoPoint(longitude: -68.0159, latitude: 46.8606)

    /// Caribou downloaded with the web map's feature layers set to be copied; the portal, the library and the web map.
    static func downloadCaribou() async throws -> (SamplePortal, OfflineLibrary, WebMap, ItemID) {
        let portal = try SampleFixture.start()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-area-gdb-\(UUID())").path
        let library = OfflineLibrary(root: root, portal: portal.baseURL, webMap: ItemID(SampleFixture.webMapID)!)
        let http = HTTPClient(configuration: HTTPConfiguration(stallTimeout: .seconds(5),
                                                               retry: RetryPolicy(maxRetries: 2, initialDelay: .milliseconds(50), maxDelay: .milliseconds(100),
                                                                                  totalTimeLimit: .seconds(60))))
        let client = PortalClient(portal: portal.baseURL, http: http)
        let webMap = try await client.webMap(ItemID(SampleFixture.webMapID)!)
        let area = try #require(try await client.mapAreas(of: ItemID(SampleFixture.webMapID)!).first { $0.item.title == "Caribou" })
        #expect(area.packages.map(\.kind) == [.vectorTilePackage, .sqliteGeodatabase])
        let queue = DownloadQueue(library: library, client: client, http: http)
        await queue.setKeptLayers(webMap.keptLayers)
        await queue.enqueue(area)
        for await event in queue.events {
            if case .finished(area.item.id, _) = event { break }
            if case .failed(area.item.id, let error) = event { Issue.record("\(error)"); break }
        }
        return (portal, library, webMap, area.item.id)
    }

    @Test func theAreasGeodatabaseStandsForTheWebMapsLayersOffline() async throws {
        let (portal, library, webMap, id) = try await Self.downloadCaribou()
        portal.stop()
        let record = try #require(library.downloadRecord(id))
        let held = try #require(record.geodatabasePackages.first?.layers)
        #expect(held.map(\.title) == ["Places", "Counties"] && held[1].features == 1 && held[0].features >= 2, "\(held)")
        #expect(record.heldFeatures == "Places: \(held[0].features) features · Counties: 1 feature", "as details and `mapbook library` say it")
        #expect(record.geodatabasePackages.first?.verifiedBy == "size, SQLite check")
        #expect(library.verify(record).isEmpty)
        #expect(!library.hasFeatureCopies(id), "nothing copied of the layers the geodatabase holds")
        #expect(!portal.requests.contains { $0.path.contains("/FeatureServer/") }, "the feature service was never asked")

        let opened = await OperationalLayerLoaders.open(OperationalLayers(area: id, layers: webMap.flatOperationalLayers, online: false),
                                                        library: library, client: nil)
        #expect(opened.features.map(\.title) == ["Counties", "Places"], "in the web map's order, by its titles")
        #expect(opened.problems.isEmpty && opened.listedOnly.isEmpty, "\(opened.problems) \(opened.listedOnly)")
        #expect(opened.features[0].opacity == 0.8, "the web map's opacity")
        #expect(opened.features[1].info.popup?.title == "{name}", "the web map's popup")

        var stack = MapStack(try PackageMapSource(path: library.mapPackagePaths(record)[0]))
        opened.add(to: &stack)
        let request = MapRequest(viewport: MapViewport(center: MercatorPoint(Self.caribou), zoom: 10), columns: 100, rows: 30)
        let image = await stack.render(request)
        #expect(image.report.featuresDrawn > 0)
        let hits = await stack.identify(at: Self.caribou, request: request)
        #expect(hits.first?.card.title == "Caribou", "\(hits.map(\.card.title))")
        #expect(hits.first?.card.rows.contains(PopupCard.Row(label: "Population", value: "7,816")) == true)
        #expect(hits.contains { $0.card.title == "Aroostook" && $0.card.layer == "Counties" })
        // Its features are found by name on this device, with their layer, a county framed whole.
        let found = await PlaceFinder(client: { nil }, library: library, bundled: { [] }).places(for: "Aroostook", near: nil, limit: 10, online: false)
        #expect(found.source == .device)
        #expect(found.value.contains { $0.label == "Aroostook" && $0.type == "Counties, a layer on this device" && $0.extent != nil },
                "\(found.value.map { ($0.label, $0.type) })")
        let caribou = await PlaceFinder(client: { nil }, library: library, bundled: { [] }).places(for: "Caribou", near: nil, limit: 10, online: false)
        #expect(caribou.value.contains { $0.type == "Places, a layer on this device" && $0.extent == nil })
        try await Self.anOlderCopyIsNotDrawnTwiceAndABrokenFileIsSaid(library, webMap, id)
    }

    /// An area downloaded before mapbook read its geodatabase kept copies of every layer: those the
    /// geodatabase holds are drawn once, from the file; an unreadable geodatabase is said. (On the
    /// same download: each one reads every tile of its package, CPU other suites wait for.)
    static func anOlderCopyIsNotDrawnTwiceAndABrokenFileIsSaid(_ library: OfflineLibrary, _ webMap: WebMap, _ id: ItemID) async throws {
        let layers = webMap.flatOperationalLayers
        let copy = #"{"format":"mapbook-feature-copy","version":1,"title":"Places","url":"\#(layers[1].url!)","# +
            #""layer":{"name":"Places","geometryType":"esriGeometryPoint","fields":[]},"features":[]}"#
        try FileManager.default.createDirectory(atPath: library.featuresDirectory(id), withIntermediateDirectories: true)
        try Data(copy.utf8).write(to: URL(fileURLWithPath: library.featuresDirectory(id) + "/00.json"))
        var opened = await OperationalLayerLoaders.open(OperationalLayers(area: id, layers: layers, online: false), library: library, client: nil)
        #expect(opened.features.map(\.title) == ["Counties", "Places"])

        let record = try #require(library.downloadRecord(id))
        let path = library.packagePath(id, record.geodatabasePackages[0])
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        // Same size (the record still holds), other bytes: not a database.
        try Data(repeating: 0x41, count: size).write(to: URL(fileURLWithPath: path))
        #expect(library.verify(record).map(\.userSentence) == ["Caribou features on this device is damaged (it is not a geodatabase: no SQLite header); `mapbook verify --repair` downloads it again."], "\(library.verify(record))")
        opened = await OperationalLayerLoaders.open(OperationalLayers(area: id, layers: layers, online: false), library: library, client: nil)
        #expect(opened.problems.first?.hasPrefix("The area's features Caribou features could not be read:") == true, "\(opened.problems)")
        #expect(opened.features.map(\.title) == ["Places"], "the older copy, now that no file stands for it")
    }
}
