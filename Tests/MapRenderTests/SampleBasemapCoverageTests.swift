import Foundation
import HTTP
import MapbookCore
import PortalFixtures
import SnapshotSupport
import SamplePortal
import TerminalCanvas
import Testing
@testable import MapRender
@testable import MapSources
import ArcGISModel
import Geometry

/// The sample basemap covers its data extent at every zoom a user reaches: no cell is left without
/// a background (the terminal's own, black on most) or drawn black, from zoom 5 to 14, on land and
/// on the sea — deeper than the service's tiles (10), the coarser tiles stand in; past an area
/// package's own tiles, a neutral grey.
@Suite struct SampleBasemapCoverageTests {
    static let places: [(String, GeoPoint)] = [
        ("Acadia", GeoPoint(longitude: -68.27, latitude: 44.33)),
        ("the Gulf of Maine", GeoPoint(longitude: -68.6, latitude: 43.2)),
        ("Moosehead Lake", GeoPoint(longitude: -69.6, latitude: 45.6)),
        ("Boston", GeoPoint(longitude: -71.05, latitude: 42.36)),
        ("the New Brunswick border", GeoPoint(longitude: -67.8, latitude: 46.5)),
        // Past the data: no tile at any level, so the neutral background.
        ("the open Atlantic", GeoPoint(longitude: -50, latitude: 38)),
    ]

    @Test func noCellIsBlackOrBareInsideTheDataExtentAtZoomsFiveToFourteen() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let online = try await Self.sampleBasemap(portal)
        // An area's package holds tiles over the area only: elsewhere there is nothing to draw, and
        // that shows as the neutral background too.
        let acadia = MapStack(try PackageMapSource(path: SampleFixture.acadiaPackagePath))
        for stack in [online, acadia] { await check(stack) }
    }

    /// The first view of `mapbook demo`'s map (the web map's extent, 120×38): the Gulf of Maine is
    /// sea, never the terminal's black.
    @Test func theGulfOfMaineInTheFirstViewIsSea() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let stack = try await Self.sampleBasemap(portal)
        let viewport = MapViewport(fitting: SampleCatalog.extent, columns: 120, rows: 38)
        let image = await stack.render(MapRequest(viewport: viewport, columns: 120, rows: 38))
        #expect(image.frame.cells.allSatisfy { $0.style.background != nil })
        expectTextSnapshot(image.frame.text, named: "sample-basemap-first-view", in: MapSnapshotTests.snapshots)
    }

    /// The sample portal's basemap, online.
    static func sampleBasemap(_ portal: SamplePortal) async throws -> MapStack {
        let basemap = Basemap(title: "Explore Maine Basemap", layers: [
            WebMapLayer(title: "Explore Maine Basemap", layerType: "VectorTileLayer",
                        styleURL: portal.baseURL.absoluteString + SampleCatalog.basemapServicePath + "/resources/styles/root.json"),
        ])
        return try await MapStack.connect(basemap, http: HTTPClient(), cacheDirectory: nil)
    }

    private func check(_ stack: MapStack) async {
        let black: Set<PaletteIndex> = [0, 16, 232, 233]
        for zoom in 5...14 {
            for (name, point) in Self.places {
                let request = MapRequest(viewport: MapViewport(center: MercatorPoint(point), zoom: Double(zoom)), columns: 60, rows: 20)
                let image = await stack.render(request)
                let bare = image.frame.cells.filter { $0.style.background == nil || black.contains($0.style.background!) }
                #expect(bare.isEmpty, "\(name) at zoom \(zoom): \(bare.count) cells without a colour or black")
                #expect(image.problems.isEmpty, "\(name) at zoom \(zoom): \(image.problems)")
                let problem = await RealPackageCoverageTests.monochromeProblem(stack, request, colour: image.frame)
                #expect(problem == nil, "\(name) at zoom \(zoom) without colour: \(problem ?? "")")
            }
        }
    }
}
