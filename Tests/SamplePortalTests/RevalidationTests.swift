import ArcGISPortal
import Foundation
import HTTP
import MapbookCore
import PortalFixtures
import SamplePortal
import Testing
import ArcGISModel

/// Portal answers kept with their validators are asked about, not fetched again: the second
/// listing costs 304s and gives the same areas; tokens and ArcGIS error bodies never reach the cache.
@Suite struct RevalidationTests {
    private let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-revalidation-\(UUID())").path

    @Test func aSecondListingIsAskedAboutAndTheSame() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let client = PortalClient(portal: portal.baseURL, cache: HTTPCache(directory: folder))
        let first = try await client.mapAreas(of: .exploreMaine)
        let asked = portal.requests.count
        let second = try await client.mapAreas(of: .exploreMaine)
        #expect(second.map(\.item.id) == first.map(\.item.id))
        #expect(second.map(\.packages.count) == first.map(\.packages.count))
        let again = portal.requests.dropFirst(asked)
        #expect(!again.isEmpty && again.allSatisfy { $0.headers["if-none-match"] != nil }, "every answer was asked about")
        // And the thumbnails.
        let item = try #require(first.first?.item)
        let picture = try await client.thumbnail(of: item)
        let count = portal.requests.count
        #expect(try await client.thumbnail(of: item) == picture)
        #expect(portal.requests.dropFirst(count).allSatisfy { $0.headers["if-none-match"] != nil })
    }

    @Test func tokensAndErrorBodiesNeverReachTheCache() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let client = PortalClient(portal: portal.baseURL, token: SampleCatalog.validToken, cache: HTTPCache(directory: folder))
        _ = try await client.item(ItemID(SampleCatalog.protectedID)!)
        _ = try await client.webMapItem(.exploreMaine)
        let anonymous = PortalClient(portal: portal.baseURL, cache: HTTPCache(directory: folder))
        await #expect(throws: PortalError.self) { try await anonymous.item(ItemID("0000000000000000000000000000dead")!) }
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder).filter { $0.hasSuffix(".answer") }
        #expect(!files.isEmpty)
        for file in files {
            let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: folder + "/" + file)), as: UTF8.self)
            #expect(!text.contains(SampleCatalog.validToken))
            #expect(!text.contains("\"error\""), "an ArcGIS error body is never kept")
        }
    }
}
