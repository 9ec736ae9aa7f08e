import ArcGISPortal
import Foundation
import HTTP
import MapbookCore
import MobilePackages
import OfflineLibrary
import PortalFixtures
import SamplePortal
import Testing
import TestScheduling
import ArcGISModel
import LibraryModel

/// A portal's "Mobile Map Package" item taken onto the device: found by the Offline Mapbook's
/// keyword, downloaded with resume and checks, kept beside the imported packages, and known to be
/// out of date when the portal's item changes.
@Suite(.aheadOfQueuedTests) struct PortalPackageDownloadTests {
    static let packageID = ItemID(SampleMobilePackage.id)!

    func item(_ fixture: LibraryFixture) async throws -> PortalItem { try await fixture.client.item(Self.packageID) }

    func download(_ fixture: LibraryFixture, http: HTTPClient = LibraryFixture.http()) async throws -> DevicePackages.Entry {
        try await PortalPackageDownload(item: try await item(fixture), libraryRoot: fixture.root, client: fixture.client, http: http)
            .run { _, _ in }
    }

    @Test func theOfflineMapbookKeywordFindsThePackage() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.cleanUp() }
        let found = try await fixture.client.allMobileMapPackages(from: .search("\"\(PortalItem.offlineMapbookKeyword)\""))
        #expect(found.map(\.item.title) == ["Maine Places"])
        #expect(found.first?.item.size ?? 0 > 1_000_000)
        // Web maps are not packages, and packages are not web maps.
        #expect(try await fixture.client.allWebMaps(from: .search("\"Offline Mapbook\"")).isEmpty)
    }

    @Test func aDownloadedPackageIsKeptCheckedAndOpens() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.cleanUp() }
        let entry = try await download(fixture)
        #expect(entry.fileName == "\(Self.packageID.rawValue).mmpk" && entry.problem == nil)
        #expect(entry.info?.title == "Maine Places" && entry.mapNames == ["Maine"])
        #expect(entry.origin?.itemID == Self.packageID.rawValue)
        let package = try MobileMapPackage(path: entry.path)
        try package.verifyChecksums()
        #expect(package.maps.first?.webMap.bookmarks.map(\.name) == ["All of Maine", "Greater Portland"])
        // Nothing of the transfer is left, and nothing hidden is listed.
        let listed = DevicePackages(libraryRoot: fixture.root).list()
        #expect(listed.map(\.fileName) == [entry.fileName])
        #expect(!FileManager.default.fileExists(atPath: fixture.root + "/packages/.downloads/\(Self.packageID.rawValue)"))
        #expect(PortalPackageDownload(item: try await item(fixture), libraryRoot: fixture.root, client: fixture.client).currentCopy != nil)
    }

    @Test func aNewerVersionOnThePortalIsAnUpdate() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.cleanUp() }
        let first = try await download(fixture)
        try fixture.portal.updateFaults { try $0.apply("update=Maine Places") }
        let newer = try await item(fixture)
        #expect(first.isOutdated(by: newer))
        #expect(PortalPackageDownload(item: newer, libraryRoot: fixture.root, client: fixture.client).currentCopy == nil)
        let second = try await download(fixture)
        #expect(!second.isOutdated(by: newer) && second.size == newer.size && second.size != first.size)
        #expect(DevicePackages(libraryRoot: fixture.root).list().count == 1)
    }

    /// The link drops part way: the next try asks only for the rest, and the result is whole.
    @Test func aDroppedDownloadResumes() async throws {
        let fixture = try LibraryFixture(faults: "drop=400k")
        defer { fixture.cleanUp() }
        await #expect(throws: (any Error).self) { try await download(fixture, http: LibraryFixture.http(retry: .none)) }
        #expect(DevicePackages(libraryRoot: fixture.root).list().isEmpty)
        try fixture.portal.updateFaults { $0 = .init() }
        let entry = try await download(fixture)
        let ranges = fixture.portal.requests.filter { $0.path.hasSuffix("\(Self.packageID.rawValue)/data") }.map { $0.headers["range"] }
        #expect(ranges.count == 2 && ranges.last??.hasPrefix("bytes=") == true && ranges.last != "bytes=0-")
        try MobileMapPackage(path: entry.path).verifyChecksums()
    }

    /// Bytes damaged on the way: refused with a sentence, nothing put in the packages, nothing kept to resume.
    @Test func damagedBytesAreRefused() async throws {
        let fixture = try LibraryFixture(faults: "corrupt")
        defer { fixture.cleanUp() }
        do {
            _ = try await download(fixture)
            Issue.record("a damaged package was accepted")
        } catch {
            #expect(error.userSentence.hasPrefix("Maine Places arrived damaged"), "\(error.userSentence)")
        }
        #expect(DevicePackages(libraryRoot: fixture.root).list().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: fixture.root + "/packages/.downloads/\(Self.packageID.rawValue)/package.part"))
    }

    @Test func anItemOfAnotherTypeIsNotDownloadedAsAPackage() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.cleanUp() }
        let webMap = try await fixture.client.item(ItemID(SampleFixture.webMapID)!)
        await #expect(throws: LibraryError.self) {
            try await PortalPackageDownload(item: webMap, libraryRoot: fixture.root, client: fixture.client).run { _, _ in }
        }
    }
}
