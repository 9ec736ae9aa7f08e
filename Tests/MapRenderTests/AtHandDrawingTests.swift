import Foundation
import HTTP
import MapSources
import MapRender
import PortalFixtures
import SamplePortal
import Testing
import ArcGISModel
import Geometry
import TerminalCanvas

/// A view whose tiles are on their way over the network is drawn at once from what is in memory —
/// a coarser tile where the view's has not come — and again when they have come.
@Suite("Drawing from what is at hand")
struct AtHandDrawingTests {
    static let bangor = GeoPoint(longitude: -68.7778, latitude: 44.8012)

    @Test func aNewViewIsDrawnFromTheCoarserTilesInMemoryUntilItsOwnCome() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let stack = try await SampleBasemapCoverageTests.sampleBasemap(portal)
        let request = MapRequest(viewport: MapViewport(center: MercatorPoint(Self.bangor), zoom: 7), columns: 60, rows: 20)
        let nothingYet = try #require(await stack.renderAtHand(request), "nothing in memory: the tiles are on their way")
        #expect(nothingYet.isAtHand && nothingYet.problems.isEmpty)
        let whole = await stack.render(request)
        #expect(!whole.isAtHand)
        #expect(await stack.renderAtHand(request) == nil, "every tile in memory: the whole drawing is as quick")

        // Closer in: the tiles of zoom 7 stand in for those of zoom 9 until they come.
        var closer = request
        closer.viewport = MapViewport(center: MercatorPoint(Self.bangor), zoom: 9)
        let asked = portal.requests.count
        let atHand = try #require(await stack.renderAtHand(closer))
        #expect(portal.requests.count == asked, "drawn without asking the network")
        let noData = atHand.frame.cells.filter { $0.style.background == nothingYet.frame.cells.first?.style.background }.count
        #expect(noData < atHand.frame.cells.count / 4, "the coarser tiles cover the view: \(noData) of \(atHand.frame.cells.count) cells bare")
        let sharp = await stack.render(closer)
        #expect(portal.requests.count > asked && !sharp.isAtHand, "then drawn from its own tiles, asked for")
        #expect(await stack.renderAtHand(closer) == nil)
    }

    @Test func aPackageOnDiskIsNeverDrawnTwice() async throws {
        let stack = MapStack(try PackageMapSource(path: SampleFixture.acadiaPackagePath))
        let request = MapRequest(viewport: MapViewport(center: MercatorPoint(GeoPoint(longitude: -68.25, latitude: 44.35)), zoom: 11),
                                 columns: 60, rows: 20)
        #expect(await stack.renderAtHand(request) == nil)
    }
}
