import AppModel
import ArcGISPortal
import Foundation
import HTTP
import MapbookCore
import OfflineLibrary
import PortalFixtures
import SamplePortal
import Testing
@testable import AppRuntime
import ArcGISModel

/// The Packages tab's rows as the runtime makes them: the portal's package, then the same package
/// once on this device (with "update available" when the portal's item changes), and this device's
/// packages alone, saying why, when the portal cannot be asked.
@Suite("The Packages tab's rows")
struct PackageShelfTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-shelf-\(UUID())").path

    func rows(_ client: PortalClient?) async throws -> WebMapsPage {
        try await PackagesHandler.page(client: client, root: root).get()
    }

    @Test func portalThenDeviceThenUpdateThenOffline() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(try await rows(nil).note == "Not connected to the portal: the packages on this device.")
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let client = PortalClient(portal: portal.baseURL, http: HTTPClient(configuration: HTTPConfiguration(retry: .none)))
        var page = try await rows(client)
        #expect(page.note == nil && page.listings.map(\.title) == ["Maine Places"] && page.listings.first?.package?.path == nil)

        let item = try await client.item(ItemID(SampleMobilePackage.id)!)
        _ = try await PortalPackageDownload(item: item, libraryRoot: root, client: client).run { _, _ in }
        page = try await rows(client)
        #expect(page.listings.count == 1, "the download and the portal's item are one row")
        let here = try #require(page.listings.first?.package)
        #expect(here.path?.hasSuffix("/packages/\(SampleMobilePackage.id).mmpk") == true && here.maps == 1 && !here.updateAvailable)

        try portal.updateFaults { try $0.apply("update=Maine Places") }
        #expect(try await rows(client).listings.first?.package?.updateAvailable == true)

        portal.stop()
        page = try await rows(client)
        #expect(page.listings.map(\.title) == ["Maine Places"] && page.listings.first?.package?.path != nil)
        #expect(page.note?.hasSuffix("The packages on this device:") == true, "\(page.note ?? "")")
    }
}
