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
    /// Mount Desert Island: land, sea and islands in every view.
    static let coast = GeoPoint(longitude: -68.30, latitude: 44.33)

    @Test func aNewViewIsDrawnFromTheCoarserTilesInMemoryUntilItsOwnCome() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let stack = try await SampleBasemapCoverageTests.sampleBasemap(portal)
        let request = MapRequest(viewport: MapViewport(center: MercatorPoint(Self.coast), zoom: 7), columns: 60, rows: 20)
        #expect(await stack.renderAtHand(request) == nil, "nothing in memory: nothing drawn until the tiles come")
        let whole = await stack.render(request)
        #expect(!whole.isAtHand)
        #expect(await stack.renderAtHand(request) == nil, "every tile in memory: the whole drawing is as quick")

        // Closer in: the tiles of zoom 7 stand in for those of zoom 9 until they come.
        var closer = request
        closer.viewport = MapViewport(center: MercatorPoint(Self.coast), zoom: 9)
        // The tiles asked for at the closer view's level (`…/tile/{z}/{y}/{x}.pbf`); the ring prefetched
        // around the first view is of its own level.
        func closerTilesAsked() -> Int {
            portal.requests.filter { $0.path.contains("/tile/") && (Int($0.path.split(separator: "/").dropLast(2).last ?? "") ?? 0) >= 8 }.count
        }
        let atHand = try #require(await stack.renderAtHand(closer))
        #expect(closerTilesAsked() == 0 && atHand.isAtHand && atHand.problems.isEmpty, "drawn without asking for the view's own tiles")
        let sharp = await stack.render(closer)
        #expect(closerTilesAsked() > 0 && !sharp.isAtHand, "then drawn from its own tiles, asked for")
        // The coarser tiles stood in for the view's own: land and water where they are.
        let alike = zip(atHand.frame.cells, sharp.frame.cells).filter { $0.style.background == $1.style.background }.count
        // More alike than any one flat colour would be: the coast is where it is.
        let flat = Dictionary(grouping: sharp.frame.cells, by: \.style.background).values.map(\.count).max() ?? 0
        #expect(alike > flat && flat < sharp.frame.cells.count * 9 / 10, "\(alike) cells alike; one colour alone: \(flat)")
        #expect(await stack.renderAtHand(closer) == nil)
    }

    @Test func aPackageOnDiskIsNeverDrawnTwice() async throws {
        let stack = MapStack(try PackageMapSource(path: SampleFixture.acadiaPackagePath))
        let request = MapRequest(viewport: MapViewport(center: MercatorPoint(GeoPoint(longitude: -68.25, latitude: 44.35)), zoom: 11),
                                 columns: 60, rows: 20)
        #expect(await stack.renderAtHand(request) == nil)
    }
}
