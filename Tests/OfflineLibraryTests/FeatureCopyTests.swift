import ArcGISPortal
import Foundation
import LoopbackHTTP
import MapbookCore
import PortalFixtures
import SamplePortal
import Testing
import TestScheduling
@testable import OfflineLibrary
import ArcGISModel
import LibraryModel
import TileFormats
import SharedTestData

/// A downloaded area keeps its web map's operational layers beside its packages, read back with
/// the portal gone; a layer that cannot be copied is named, a damaged copy is named, a cap is kept.
@Suite("Feature copies with downloaded areas", .aheadOfQueuedTests)
struct FeatureCopyTests {
    /// Portland downloaded with the feature layers of a web map, then the portal stopped; whether it finished.
    static func downloadPortland(_ fixture: LibraryFixture, copying webMap: String) async throws -> Bool {
        let queue = fixture.queue()
        await queue.setKeptLayers(try await fixture.client.webMap(ItemID(webMap)!).keptLayers)
        let events = try await fixture.downloadPortland(with: queue)
        fixture.portal.stop()
        guard case .finished? = events.last else { Issue.record("\(events)"); return false }
        return true
    }

    @Test func aDownloadCopiesTheOperationalLayersWhichReadBackWithThePortalGone() async throws {
        let fixture = try LibraryFixture()
        guard try await Self.downloadPortland(fixture, copying: SampleFixture.webMapID) else { return }

        let (copies, problems) = fixture.library.featureCopies(fixture.portlandID)
        #expect(problems.isEmpty && copies.map(\.title) == ["Counties", "Places"])
        let places = copies[1]
        #expect(!places.capped && places.info.popup?.title == "{name}" && places.opacity == 1)
        // The places within Portland's area, Portland among them; the county polygons meeting it.
        let extent = fixture.portland.extent
        #expect(places.features.contains { $0.attributes["name"]?.string == "Portland" })
        #expect(places.features.allSatisfy { feature in
            guard case .points(let points)? = feature.geometry, let p = points.first else { return false }
            return extent.contains(p)
        })
        #expect(copies[0].features.contains { $0.attributes["NAME"]?.string == "Cumberland" } && copies[0].opacity == 0.8)
        let card = PopupCard.make(layer: places.title, attributes: places.features.first { $0.attributes["name"]?.string == "Portland" }!.attributes,
                                  fields: places.info.fields, popup: places.info.popup)
        #expect(card.title == "Portland" && card.rows.contains(PopupCard.Row(label: "County", value: "Cumberland")))
        // An update (the area downloaded again) refreshes the copies: a damaged one is replaced.
        // (The portal back, at another address: the same library folder, downloading from it.)
        let back = try LibraryFixture()
        let again = DownloadQueue(library: fixture.library, client: back.client, http: LibraryFixture.http())
        await again.setKeptLayers(try await back.client.webMap(ItemID(SampleFixture.webMapID)!).keptLayers)
        FileManager.default.createFile(atPath: fixture.library.featuresDirectory(fixture.portlandID) + "/01.json", contents: Data("{".utf8))
        #expect(fixture.library.featureCopies(fixture.portlandID).problems.count == 1)
        await again.enqueue(try await back.area(SampleFixture.portlandID))
        guard case .finished? = await LibraryFixture.events(of: again, until: fixture.portlandID).last else { Issue.record("no update"); return }
        let refreshed = fixture.library.featureCopies(fixture.portlandID)
        #expect(refreshed.problems.isEmpty && refreshed.copies.count == 2)
        #expect(back.portal.requests.contains { $0.path.hasSuffix("/FeatureServer/0/query") })
        // Removing the area takes its copies with it.
        try fixture.library.removeDownload(fixture.portlandID, title: "Portland")
        #expect(!fixture.library.hasFeatureCopies(fixture.portlandID))
    }

    /// A feature collection's features, a CSV file's rows and a map service's picture of the area
    /// are kept with the area too, and read back with the portal gone.
    @Test func featureCollectionsCSVFilesAndMapServicePicturesAreKeptWithTheArea() async throws {
        let fixture = try LibraryFixture()
        guard try await Self.downloadPortland(fixture, copying: SampleServicesMap.id) else { return }
        let (copies, problems) = fixture.library.featureCopies(fixture.portlandID)
        #expect(problems.isEmpty && copies.map(\.title) == ["Maine boundaries", "Lighthouses", "Ferry terminals"]
                && copies.allSatisfy { $0.problem == nil })
        // The service's picture of the whole area, 2048 pixels on its longest side, its box the area's.
        let picture = try #require(copies[0].picture)
        let view = KeptPicture.view(of: fixture.portland.extent)
        #expect(max(view.width, view.height) == 2048 && copies[0].features.isEmpty)
        #expect(picture.xmin == view.xmin && picture.ymax == view.ymax)
        let image = try RasterImage(decoding: picture.image)
        #expect(image.width == view.width && image.height == view.height)
        let export = try #require(fixture.portal.requests.first { $0.path.hasSuffix("/MapServer/export") })
        #expect(export.query["size"] == "\(view.width),\(view.height)" && export.query["transparent"] == "true"
                && export.query["layers"] == "show:0,1" && export.query["f"] == "image")
        let lights = copies[1], ferries = copies[2]
        #expect(lights.features.count == 6 && lights.info.popup?.title == "{name}")
        guard case .points(let points)? = lights.features.first?.geometry else { Issue.record("no point"); return }
        #expect(abs(points[0].longitude + 70.2078) < 1e-6, "kept in degrees")
        #expect(ferries.features.count == 5 && ferries.info.popup?.title == "{Name} ferry terminal")
        #expect(ferries.info.symbol(for: [:]).symbol.color == SymbolColor(r: 30, g: 90, b: 200), "the web map's renderer")
    }

    @Test func aLayerThatCannotBeCopiedIsNamedAndTheAreaStillDownloads() async throws {
        let fixture = try LibraryFixture(faults: "featuresDown")
        let layers = try await fixture.client.webMap(ItemID(SampleFixture.webMapID)!).keptLayers
        let queue = fixture.queue()
        await queue.setKeptLayers(layers)
        let events = try await fixture.downloadPortland(with: queue)
        guard case .finished? = events.last else { Issue.record("\(events)"); return }
        let (copies, _) = fixture.library.featureCopies(fixture.portlandID)
        #expect(copies.count == 2 && copies.allSatisfy { $0.problem != nil && $0.features.isEmpty })
    }

    /// A feature service of `count` points with long attributes, and the web map layer naming it.
    static func bigLayer(count: Int) throws -> (LoopbackServer, WebMapLayer) {
        let description = #"{"name":"Big","geometryType":"esriGeometryPoint","objectIdField":"OBJECTID","maxRecordCount":50000,"# +
            #""advancedQueryCapabilities":{"supportsPagination":true},"fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"},{"name":"note","type":"esriFieldTypeString"}]}"#
        let note = String(repeating: "n", count: 400)
        let features = (0..<count).map { #"{"attributes":{"OBJECTID":\#($0),"note":"\#(note)"},"geometry":{"x":-70.25,"y":43.66}}"# }
        let page = Data((#"{"features":["# + features.joined(separator: ",") + "]}").utf8)
        let server = try LoopbackServer { request in
            request.path.hasSuffix("/query") ? .json(data: page) : .json(description)
        }
        return (server, WebMapLayer(title: "Big", layerType: "ArcGISFeatureLayer", url: server.baseURL.absoluteString + "/arcgis/rest/services/Big/FeatureServer/0"))
    }

    /// The disk fills while the feature copies are written: the area is not recorded, nothing is
    /// left half-written, and once there is room the next download adopts the verified package and
    /// fetches the copies again.
    @Test func aDiskThatFillsWithTheFeatureCopiesLeavesTheAreaNotDownloaded() async throws {
        let mountPoint = LibraryFixture.temporaryFolder()
        defer { umountTmpfs(mountPoint) }
        let packageBytes = SampleFixture.content.packages[SampleFixture.portland.packageID]!.data.count
        guard mountTmpfs(mountPoint, options: "size=\(packageBytes + 400 << 10)") else {
            print("skipped: a full disk is simulated with a small tmpfs, which needs root (mount -t tmpfs)")
            return
        }
        let (server, layer) = try Self.bigLayer(count: 5_000)
        defer { server.stop() }
        let fixture = try LibraryFixture(root: mountPoint)
        defer { fixture.portal.stop() }
        let queue = fixture.queue()
        await queue.setKeptLayers([layer])
        let events = try await fixture.downloadPortland(with: queue)
        guard case .failed(_, let failure)? = events.last else { Issue.record("\(events)"); return }
        #expect(failure.isDiskFull, "\(failure.sentence)")
        #expect(fixture.library.downloadRecord(fixture.portlandID) == nil && fixture.library.storedRecord(fixture.portlandID) == nil)
        let areaFolder = fixture.library.areaDirectory(fixture.portlandID)
        #expect(!FileManager.default.fileExists(atPath: areaFolder + "/features.new"))

        // Room again: the package is adopted, not fetched again, and the copies arrive.
        #expect(mountTmpfs(mountPoint, options: "remount,size=32m"))
        let packageRequests = fixture.portal.requests.count { $0.path.hasSuffix("/data") && !$0.path.contains(SampleFixture.portlandID) }
        let again = try await fixture.downloadPortland(with: queue)
        guard case .finished? = again.last else { Issue.record("\(again)"); return }
        #expect(fixture.portal.requests.count { $0.path.hasSuffix("/data") && !$0.path.contains(SampleFixture.portlandID) } == packageRequests)
        let record = try #require(fixture.library.downloadRecord(fixture.portlandID))
        #expect(record.featureCopies == 1 && fixture.library.featureCopies(fixture.portlandID).copies.first?.features.count == 5_000)
    }

    /// Copies deleted after the download: the area is no longer whole — verify says so, and the
    /// next download fetches them again.
    @Test func missingCopiesAreSeenAndFetchedAgain() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.portal.stop() }
        let layers = try await fixture.client.webMap(ItemID(SampleFixture.webMapID)!).keptLayers
        let queue = fixture.queue()
        await queue.setKeptLayers(layers)
        guard case .finished? = try await fixture.downloadPortland(with: queue).last else { Issue.record("no download"); return }
        let record = try #require(fixture.library.downloadRecord(fixture.portlandID))
        #expect(record.featureCopies == 2 && fixture.library.verify(record).isEmpty)
        try FileManager.default.removeItem(atPath: fixture.library.featuresDirectory(fixture.portlandID))
        #expect(fixture.library.downloadRecord(fixture.portlandID) == nil)
        #expect(fixture.library.verify(record) == [.featureCopiesMissing(count: 2, of: 2)])
        guard case .finished? = try await fixture.downloadPortland(with: queue).last else { Issue.record("no repair"); return }
        #expect(fixture.library.featureCopies(fixture.portlandID).copies.count == 2)
        #expect(fixture.library.downloadRecord(fixture.portlandID) != nil)
    }

    /// After the packages, the download's progress says the layers are being copied (not silence
    /// at 100 %), one by one.
    @Test func theCopiesArePartOfTheProgress() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.portal.stop() }
        try fixture.portal.updateFaults { $0.latencyMilliseconds = 400 }
        let layers = try await fixture.client.webMap(ItemID(SampleFixture.webMapID)!).keptLayers
        let queue = fixture.queue()
        await queue.setKeptLayers(layers)
        let events = try await fixture.downloadPortland(with: queue)
        guard case .finished? = events.last else { Issue.record("no download: \(events)"); return }
        var seen: [FeatureCopyCount] = []
        for case .progress(fixture.portlandID, let progress) in events {
            if let count = progress.featureCopies, seen.last != count { seen.append(count) }
        }
        // (How many steps the ticker saw depends on the machine; that they are copies of two does not.)
        #expect(!seen.isEmpty && seen.allSatisfy { $0.total == 2 && $0.done <= 2 }, "\(seen)")
        #expect(seen.map(\.done) == seen.map(\.done).sorted())
    }

    @Test func aCopyStopsAtItsLimitAndSaysSo() async throws {
        let fixture = try LibraryFixture()
        let layers = try await fixture.client.webMap(ItemID(SampleFixture.webMapID)!).keptLayers
        let files = await FeatureCopies.fetch([layers[1]], within: SampleCatalog.extent, client: fixture.client, limit: 120)
        let copy = try #require(FeatureCopies.read(files[0]))
        #expect(copy.capped && copy.features.count == 120)
    }

    @Test func damagedOrForeignCopiesAreNamedNotTrusted() throws {
        let root = LibraryFixture.temporaryFolder()
        let library = OfflineLibrary(root: root, portal: URL(string: "https://example.com")!, webMap: ItemID(SampleFixture.webMapID)!)
        let area = ItemID(SampleFixture.portlandID)!
        try library.saveFeatureCopies([Data(#"{"format":"mapbook-feature-copy","layer":{"name":"x","geometryType":"esriGeometryPoint"},"#.utf8),
                                       Data(#"{"format":"something else"}"#.utf8)], for: area)
        let (copies, problems) = library.featureCopies(area)
        #expect(copies.isEmpty && problems.count == 2 && problems[0].contains("00.json"))
        // Saving again replaces the whole set.
        try library.saveFeatureCopies([], for: area)
        #expect(library.featureCopies(area).problems.isEmpty && !library.hasFeatureCopies(area))
    }
}
