import ArcGISPortal
import Foundation
import MapbookCore
@testable import OfflineLibrary
import PortalFixtures
import Testing
import TileFormats

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

@Suite struct ProgressMeterTests {
    @Test func rateIsAveragedOverTheWindow() {
        let meter = ProgressMeter(total: 10_000, window: 5)
        _ = meter.update(bytes: 0, validator: nil, now: 0)
        _ = meter.update(bytes: 1_000, validator: "\"v\"", now: 1)
        let p = meter.update(bytes: 2_000, validator: nil, now: 2)
        #expect(p.bytesPerSecond == 1_000)
        #expect(p.secondsRemaining == 8)
        #expect(p.fraction == 0.2)
        #expect(meter.current.validator == "\"v\"")
        // Samples older than the window stop counting: a fast start does not flatter a slow link.
        _ = meter.update(bytes: 9_000, validator: nil, now: 3)
        _ = meter.update(bytes: 9_100, validator: nil, now: 9)
        let later = meter.update(bytes: 9_200, validator: nil, now: 10)
        #expect(later.bytesPerSecond == 100)
    }

    @Test func finishedPackagesCountTowardTheArea() {
        let meter = ProgressMeter(total: 300)
        _ = meter.update(bytes: 100, validator: nil, now: 0)
        meter.finishPackage(size: 100)
        #expect(meter.update(bytes: 50, validator: nil, now: 1).bytes == 150)
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
        #expect(try PackageVerifier.verify(path: path, name: "p", expectedSize: Int64(bytes.count), mustBeZip: true,
                                           streamed: checksums.result) == "zip CRC-32")
    }
}
