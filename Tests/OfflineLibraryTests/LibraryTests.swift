import ArcGISPortal
import Foundation
import MapbookCore
@testable import OfflineLibrary
import PortalFixtures
import Testing
import TileFormats
import ArcGISModel
import LibraryModel

@Suite struct LibraryLocationTests {
    @Test func dataDirectoryFollowsTheFlagThenTheEnvironmentThenXDG() {
        #expect(LibraryLocation.root(dataDir: "/a", environment: ["MAPBOOK_DATA_DIR": "/b"]) == "/a")
        #expect(LibraryLocation.root(dataDir: nil, environment: ["MAPBOOK_DATA_DIR": "/b", "XDG_DATA_HOME": "/c"]) == "/b")
        #expect(LibraryLocation.root(dataDir: nil, environment: ["XDG_DATA_HOME": "/c"]) == "/c/mapbook")
        #expect(LibraryLocation.root(dataDir: nil, environment: ["XDG_DATA_HOME": "relative", "HOME": "/h"]) == "/h/.local/share/mapbook")
    }

    @Test func portalFoldersAreSafeNames() {
        #expect(LibraryLocation.portalKey(for: URL(string: "https://www.arcgis.com")!) == "www.arcgis.com")
        #expect(LibraryLocation.portalKey(for: URL(string: "http://127.0.0.1:8080/sharing/rest")!) == "127.0.0.1_8080")
        #expect(LibraryLocation.portalKey(for: URL(string: "https://gis.example.org/portal")!) == "gis.example.org_portal")
        #expect(LibraryLocation.portalKey(for: URL(string: "https://x.org/a/../..%2Fetc")!).allSatisfy { $0 != "/" })
    }
}

@Suite struct CatalogTests {
    @Test func catalogRoundTripsThroughDisk() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.cleanUp() }
        let id = ItemID(SampleFixture.webMapID)!
        let catalog = LibraryCatalog(webMapItem: try await fixture.client.webMapItem(id),
                                     webMapData: try await fixture.client.itemDataJSON(id),
                                     areas: try await fixture.client.mapAreas(of: id), syncedAt: Date(timeIntervalSince1970: 1_700_000_000))
        try fixture.library.saveCatalog(catalog)
        let loaded = try #require(try fixture.library.loadCatalog(records: [:]))
        #expect(loaded.webMapItem == catalog.webMapItem)
        #expect(loaded.areas == catalog.areas)
        #expect(loaded.webMap == catalog.webMap)
        #expect(loaded.webMap.bookmarks.count == 7)
        #expect(loaded.syncedAt == catalog.syncedAt)
        // No temporary files are left behind by the atomic writes.
        let names = try FileManager.default.contentsOfDirectory(atPath: fixture.library.directory)
        #expect(names.allSatisfy { !$0.contains(".tmp-") })
    }

    /// The Maps card's Recent tab offline: the portal's web maps kept here, each with how many of
    /// its areas are downloaded; a folder that is not a web map's is passed over.
    @Test func keptWebMapsAreListedWithTheirDownloadsWithoutThePortal() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.cleanUp() }
        let id = ItemID(SampleFixture.webMapID)!
        try fixture.library.saveCatalog(LibraryCatalog(webMapItem: try await fixture.client.webMapItem(id),
                                                       webMapData: try await fixture.client.itemDataJSON(id),
                                                       areas: try await fixture.client.mapAreas(of: id), syncedAt: Date()))
        #expect(try await fixture.downloadPortland(with: fixture.queue()).record != nil)
        try FileManager.default.createDirectory(atPath: fixture.library.directory + "/../not-a-web-map", withIntermediateDirectories: true)
        fixture.portal.stop()
        let kept = OfflineLibrary.keptWebMaps(root: fixture.root, portalKey: fixture.library.portalKey)
        #expect(kept.map(\.item.title) == ["Explore Maine"] && kept.map(\.downloadedAreas) == [1])
        #expect(OfflineLibrary.keptWebMaps(root: fixture.root, portalKey: "elsewhere").isEmpty)
    }

    @Test func aLibraryThatWasNeverSavedHasNoCatalog() throws {
        let library = OfflineLibrary(root: LibraryFixture.temporaryFolder(), portalKey: "nowhere", webMap: .exploreMaine)
        #expect(try library.loadCatalog(records: [:]) == nil)
    }

    @Test func aDamagedCatalogIsAClearError() throws {
        let library = OfflineLibrary(root: LibraryFixture.temporaryFolder(), portalKey: "damaged", webMap: .exploreMaine)
        try FileManager.default.createDirectory(atPath: library.directory, withIntermediateDirectories: true)
        try Data("{\"id\": tru".utf8).write(to: URL(fileURLWithPath: library.directory + "/item.json"))
        #expect(throws: LibraryError.self) { try library.loadCatalog(records: [:]) }
        do { _ = try library.loadCatalog(records: [:]) } catch { #expect(error.userSentence.contains("item.json is damaged")) }
    }

    @Test func updateCheckComparesIdModifiedAndSize() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.cleanUp() }
        let events = try await fixture.downloadPortland(with: fixture.queue())
        let record = try #require(events.record)
        #expect(!record.needsUpdate(comparedWith: try await fixture.area(SampleFixture.portlandID)))
        try fixture.portal.updateFaults { try $0.apply("update=Greater Portland") }
        #expect(record.needsUpdate(comparedWith: try await fixture.area(SampleFixture.portlandID)))
    }
}

@Suite struct ProgressTests {
    /// A package is kept under the extension of the item's own file name: a Tile Package item
    /// holding a `.tpkx` is not saved as `.tpk`.
    @Test func packagesKeepTheirOwnFileNameExtension() throws {
        let id = try #require(ItemID("0123456789abcdef0123456789abcdef"))
        func named(_ name: String?, type: String) -> AreaPackage {
            AreaPackage(item: PortalItem(id: id, title: "Basemap", type: type, modified: Date(timeIntervalSince1970: 1), name: name))
        }
        #expect(OfflineLibrary.fileName(for: named("Usa.tpkx", type: "Tile Package")).hasSuffix(".tpkx"))
        #expect(OfflineLibrary.fileName(for: named("states.tpk", type: "Tile Package")).hasSuffix(".tpk"))
        #expect(OfflineLibrary.fileName(for: named(nil, type: "Vector Tile Package")).hasSuffix(".vtpk"))
        #expect(OfflineLibrary.fileName(for: named("evil.sh", type: "Vector Tile Package")).hasSuffix(".vtpk"))
        // Kept in the record and read back.
        #expect(PortalItem(arcGISJSON: named("Usa.tpkx", type: "Tile Package").item.arcGISJSON)?.name == "Usa.tpkx")
    }

    @Test func rateIsAveragedOverTheWindow() {
        var meter = RateMeter(window: 5)
        _ = meter.adding(bytes: 0, at: 0)
        #expect(meter.adding(bytes: 100, at: 0.2) == nil, "less than half a second of samples says nothing")
        _ = meter.adding(bytes: 1_000, at: 1)
        #expect(meter.adding(bytes: 2_000, at: 2) == 1_000)
        // Samples older than the window stop counting: a fast start does not flatter a slow link.
        _ = meter.adding(bytes: 9_000, at: 3)
        _ = meter.adding(bytes: 9_100, at: 9)
        #expect(meter.adding(bytes: 9_200, at: 10) == 100)
        // A count that goes back (the download restarted from zero) starts the rate over.
        #expect(meter.adding(bytes: 10, at: 10.1) == nil)
    }

    @Test func progressFiguresFollowTheBytes() {
        let p = DownloadProgress(bytes: 2_000, total: 10_000, bytesPerSecond: 1_000)
        #expect(p.secondsRemaining == 8)
        #expect(p.fraction == 0.2)
    }

    @Test func finishedPackagesCountTowardTheArea() {
        let count = AreaByteCount()
        _ = count.update(bytes: 100, validator: "\"v\"")
        #expect(count.current.validator == "\"v\"")
        count.finishPackage(size: 100)
        #expect(count.update(bytes: 50, validator: nil) == 150)
        #expect(count.current.bytes == 50 && count.current.validator == nil)
    }
}

@Suite struct LibraryErrorTests {
    @Test func namesFromThePortalOrAPackageCannotReachTheTerminalRaw() {
        let sentence = LibraryError.damaged(package: "Evil\u{1B}[2J map", detail: "p12/\u{1B}]0;owned\u{07}x fails its CRC check").userSentence
        #expect(!sentence.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(sentence.contains("Evil") && sentence.contains("fails its CRC check"))
    }
}

@Suite struct PackageVerifierTests {
    /// A resumed download: the bytes already on disk are read once at the start, the rest checked as
    /// they arrive, and together they cover the whole package.
    @Test func aResumedDownloadsChecksumsCoverTheWholePackage() throws {
        let path = LibraryFixture.temporaryFolder() + "/p.vtpk"
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let tiles = Data((0..<500_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let writer = try ZipWriter(path: path)
        try writer.add("root.json", Data("{}".utf8))
        try writer.add("p12/tile/L00/R0000C0000.bundle", tiles)
        try writer.finish()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))

        let checksums = StreamingChecksums(resumingFrom: path, count: 200_000)
        bytes[200_000...].withUnsafeBytes { (rest: UnsafeRawBufferPointer) in checksums.consume(rest, at: 200_000) }
        #expect(checksums.result.entries.count == 2)
        #expect(try ZipArchive(source: FileByteSource(path: path)).verifyChecksums(streamed: checksums.result) == 0)
        #expect(try PackageVerifier.verify(path: path, name: "p", expectedSize: Int64(bytes.count), fileName: "p.vtpk",
                                           streamed: checksums.result) == "zip CRC-32")
    }
}
