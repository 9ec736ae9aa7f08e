import ArcGISModel
import ArcGISPortal
import Foundation
import Geometry
import LibraryModel
import LoopbackHTTP
import MapbookCore
import OfflineLibrary
import PortalFixtures
import SamplePortal
import Testing
import TestScheduling
import TileFormats

/// Areas of the user's own against the sample portal: the plan, the estimate, each job type with its
/// request parameters, jobs resumed after a restart, the tile cap, and the jobs' faults.
@Suite("On-demand areas", .aheadOfQueuedTests)
struct OnDemandExportTests {
    static let camden = GeoExtent(xmin: -69.075, ymin: 44.195, xmax: -69.035, ymax: 44.225)

    static func spec(_ name: String = "Camden harbor", extent: GeoExtent = camden, detail: DetailLevel = .street) -> OnDemandSpec {
        OnDemandSpec(name: name, extent: extent, maxLevel: detail.level, detail: detail, createdAt: Date(timeIntervalSince1970: 1_800_000_000))
    }

    static func maker(_ fixture: LibraryFixture) -> OnDemandExport {
        var maker = OnDemandExport(library: fixture.library, client: fixture.client)
        maker.firstPoll = .milliseconds(20)
        maker.longestPoll = .milliseconds(50)
        return maker
    }

    /// Downloads the prepared area through the queue, as the CLI and the browser do.
    static func download(_ area: MapArea, _ fixture: LibraryFixture) async throws -> DownloadRecord? {
        let queue = fixture.queue()
        await queue.enqueue(area)
        let events = await LibraryFixture.events(of: queue, until: area.item.id)
        guard case .finished(_, let record)? = events.last else { Issue.record("the download did not finish: \(events)"); return nil }
        return record
    }

    /// A service's numbers that no tile service has (a cap of 1e30 tiles, or −1; a level of 1e30)
    /// do not stop the plan (once: exit 132) and are not shown as they are.
    @Test func aServicesImpossibleNumbersAreNotTaken() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.portal.stop() }
        for (cap, level, expected) in [("1e30", "5", nil), ("-1", "5", nil), ("5000", "1e30", 5000), ("0", "7", nil)] as [(String, String, Int?)] {
            let server = try LoopbackServer { _ in .json(#"""
                {"exportTilesAllowed":true,"maxExportTilesCount":\#(cap),"tileInfo":{"lods":[{"level":0},{"level":\#(level)}]}}
                """#) }
            defer { server.stop() }
            let basemap = WebMapLayer(title: "Hostile", layerType: "ArcGISTiledMapServiceLayer", url: server.baseURL.appendingPathComponent("MapServer").absoluteString)
            let plan = await Self.maker(fixture).plan(WebMap(basemapLayers: [basemap]))
            #expect(plan.layers.count == 1 && plan.layers.first?.maxTiles == expected, "\(cap): \(plan.layers)")
            #expect(plan.layers.first?.deepestLevel == (level == "1e30" ? 0 : Int(level)))
        }
    }

    @Test func thePlanTakesTheBasemapAndTheFeatureServiceAndTheEstimateIsNearTheBytes() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.portal.stop() }
        let maker = Self.maker(fixture)
        let plan = await maker.plan(try await fixture.client.webMap(.exploreMaine))
        #expect(plan.refused.isEmpty, "\(plan.refused)")
        #expect(plan.layers.map(\.kind) == [.vectorTiles, .features])
        #expect(plan.layers[0].serviceURL.hasSuffix("/Explore_Maine_Basemap/VectorTileServer") && plan.layers[0].maxTiles == 100_000)
        #expect(plan.layers[1].layerIDs == [0, 1] && plan.layers[1].title == "Counties, Places")

        let estimates = await maker.estimate(plan, spec: Self.spec())
        #expect(estimates[0].basis == "the server's estimate" && (1...TileGrid.tileCount(Self.camden, levels: 0...14)).contains(estimates[0].tiles ?? 0))
        #expect(estimates[1].features == 3)
        let estimate = fixture.portal.requests.first { $0.path.hasSuffix("/estimateExportTilesSize") }
        #expect(estimate?.query["levels"] == "0-16" && estimate?.query["exportExtent"]?.contains(#""wkid":4326"#) == true)

        let export = try await maker.start(Self.spec(), plan: plan)
        let area = try await maker.prepare(export)
        let record = try #require(try await Self.download(area, fixture))
        maker.finished(export)
        for (estimate, package) in zip(estimates, record.packages) {
            let off = abs(Double(estimate.bytes - package.size)) / Double(package.size)
            #expect(off < 0.10, "\(estimate.layer.title): estimated \(estimate.bytes), downloaded \(package.size)")
        }
        #expect(record.area?.onDemand == Self.spec())
        #expect(record.packages.map(\.type) == ["Vector Tile Package", "SQLite Geodatabase"])
        #expect(record.heldFeatures == "Places: 1 feature · Counties: 2 features")
        #expect(fixture.library.pendingExports().isEmpty)
        // Kept like a preplanned area: listed, checked, opened from the files.
        #expect(fixture.library.verify(record).isEmpty)
        #expect(try TilePackage(path: fixture.library.mapPackagePaths(record)[0]).info.levels.map(\.level).max() == 14)
        #expect(fixture.library.geodatabases(record.areaID).table(forURL: fixture.portal.baseURL.absoluteString
            + "/arcgis/rest/services/Explore_Maine_Places/FeatureServer/0") != nil, "the replica stands for the service's layer")
    }

    @Test func aServiceThatCannotBeAskedIsRefusedForNowAndThePlanSaysSo() async throws {
        let fixture = try LibraryFixture(faults: "featuresDown")
        defer { fixture.portal.stop() }
        let plan = await Self.maker(fixture).plan(try await fixture.client.webMap(.exploreMaine))
        #expect(plan.layers.map(\.kind) == [.vectorTiles] && !plan.isComplete, "asked again, it may answer")
        #expect(plan.refused.map(\.title) == ["Counties, Places"] && plan.refused[0].reason.hasPrefix("its service could not be asked: "))
        try fixture.portal.updateFaults { try $0.apply("reset") }
        #expect(await Self.maker(fixture).plan(try await fixture.client.webMap(.exploreMaine)).isComplete)
    }

    @Test func eachJobIsAskedInArcGISsShape() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.portal.stop() }
        let maker = Self.maker(fixture)
        let plan = await maker.plan(try await fixture.client.webMap(.exploreMaine))
        let export = try await maker.start(Self.spec(), plan: plan)
        _ = try await maker.prepare(export)
        let tiles = try #require(fixture.portal.requests.first { $0.path.hasSuffix("/VectorTileServer/exportTiles") })
        #expect(tiles.method == "GET" && tiles.query["f"] == "json" && tiles.query["levels"] == "0-16" && tiles.query["exportBy"] == "LevelID")
        let extent = try JSONValue(parsing: Data((tiles.query["exportExtent"] ?? "").utf8))
        #expect(extent["xmin"]?.double == -69.075 && extent["ymax"]?.double == 44.225 && extent["spatialReference"]?["wkid"]?.double == 4326)
        let replica = try #require(fixture.portal.requests.first { $0.path.hasSuffix("/FeatureServer/createReplica") })
        let form = String(decoding: replica.body, as: UTF8.self)
        #expect(replica.method == "POST")
        for pair in ["layers=0%2C1", "geometryType=esriGeometryEnvelope", "inSR=4326", "syncModel=perLayer", "dataFormat=sqlite",
                     "async=true", "returnAttachments=false", "f=json"] {
            #expect(form.contains(pair), "createReplica sends \(pair): \(form)")
        }
        #expect(fixture.portal.requests.contains { $0.path.contains("/VectorTileServer/jobs/") && $0.path.hasSuffix("/results/out_service_url") })
        #expect(fixture.portal.requests.contains { $0.path.contains("/FeatureServer/replicas/jobs/") })
    }

    @Test func jobsAreResumedByIdAfterARestart() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.portal.stop() }
        let plan = await Self.maker(fixture).plan(try await fixture.client.webMap(.exploreMaine))
        let export = try await Self.maker(fixture).start(Self.spec(), plan: plan)
        // mapbook stops here; a new one finds the export on disk and follows the same jobs.
        let found = try #require(fixture.library.pendingExports().first)
        #expect(found == export && found.jobs.allSatisfy { $0.job != nil })
        let area = try await Self.maker(fixture).prepare(found)
        #expect(fixture.portal.requests.filter { $0.path.hasSuffix("/exportTiles") || $0.path.hasSuffix("/createReplica") }.count == 2,
                "no job submitted twice")
        #expect(area.item.id == export.areaID && area.packages.count == 2)
        _ = try #require(try await Self.download(area, fixture))
    }

    @Test func tooManyTilesIsRefusedWithTheNumbersAndWhatFits() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.portal.stop() }
        let maker = Self.maker(fixture)
        let plan = await maker.plan(try await fixture.client.webMap(.exploreMaine))
        let maine = Self.spec("Coast", extent: GeoExtent(xmin: -70.7, ymin: 43.0, xmax: -67.0, ymax: 45.0))
        let refusal = try #require(OnDemandExport.tooManyTiles(plan, spec: maine))
        let count = TileGrid.tileCount(maine.extent, levels: 0...16)
        #expect(refusal.userSentence == "Coast cannot be made: Explore Maine Basemap would be \(count.formatted()) tiles at Street (level 16), and its service exports at most 100,000 at once; choose a smaller area or less detail (Neighborhood, level 14, fits).")
        await #expect(throws: LibraryError.self) { _ = try await maker.start(maine, plan: plan) }
        #expect(!fixture.portal.requests.contains { $0.path.hasSuffix("/exportTiles") }, "refused before any job")
    }

    @Test func aJobThatFailsIsOneSentenceAndKeptToRetry() async throws {
        let fixture = try LibraryFixture(faults: "jobs=fail")
        defer { fixture.portal.stop() }
        let maker = Self.maker(fixture)
        let plan = await maker.plan(try await fixture.client.webMap(.exploreMaine))
        let export = try await maker.start(Self.spec(), plan: plan)
        do {
            _ = try await maker.prepare(export)
            Issue.record("a failed job must end the export")
        } catch let error as LibraryError {
            // Whichever job the server ends first is the one named.
            #expect(["Camden harbor cannot be made: Explore Maine Basemap failed on the server: Error exporting tiles: the cache storage could not be written.",
                     "Camden harbor cannot be made: Counties, Places failed on the server: Unable to create replica: the geodatabase could not be written."]
                .contains(error.userSentence), "\(error.userSentence)")
        }
        #expect(fixture.library.pendingExport(export.areaID) != nil, "kept, to be forgotten or tried again")
        await maker.forget(export)
        #expect(fixture.library.pendingExports().isEmpty)
        #expect(fixture.portal.requests.contains { $0.path.hasSuffix("/cancel") }, "the unfinished tile job is cancelled")
    }

    @Test func aJobThatNeverFinishesEndsWithinThePatience() async throws {
        let fixture = try LibraryFixture(faults: "jobs=stuck")
        defer { fixture.portal.stop() }
        var maker = Self.maker(fixture)
        maker.patience = .seconds(2)
        let plan = await maker.plan(try await fixture.client.webMap(.exploreMaine))
        let export = try await maker.start(Self.spec(), plan: plan)
        let seen = Progress()
        await #expect(throws: LibraryError.cannotMake(title: "Camden harbor", reason:
            "the server has not finished preparing it after 1 minute; ask again to keep waiting (the server's jobs are kept)")) {
            _ = try await maker.prepare(export) { seen.add($0.label) }
        }
        #expect(seen.labels.contains { $0.hasPrefix("Preparing on the server") }, "\(seen.labels)")
    }

    @Test func aResultThatIsGoneFailsTheDownloadClearly() async throws {
        let fixture = try LibraryFixture(faults: "jobs=lost")
        defer { fixture.portal.stop() }
        let maker = Self.maker(fixture)
        let plan = await maker.plan(try await fixture.client.webMap(.exploreMaine))
        let area = try await maker.prepare(try await maker.start(Self.spec(), plan: plan))
        let queue = fixture.queue()
        await queue.enqueue(area)
        let events = await LibraryFixture.events(of: queue, until: area.item.id)
        guard case .failed(_, let failure)? = events.last else { Issue.record("\(events)"); return }
        #expect(failure.sentence.contains("404"), "\(failure.sentence)")
        #expect(fixture.library.downloadRecord(area.item.id) == nil)
    }
}

private final class Progress: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [String] = []
    func add(_ label: String) { lock.withLock { seen.append(label) } }
    var labels: [String] { lock.withLock { seen } }
}
