import Foundation
import MapRender
import MapSources
import MapbookCore
import PortalFixtures
import SharedTestData
import SnapshotSupport
import Testing
import Geometry

/// Golden pictures of real packages in each drawing mode, drawn the way `mapbook snapshot` draws
/// them (without colour, so fills show as a density ramp).
@Suite struct MapSnapshotTests {
    static let snapshots = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")

    static func picture(_ source: any MapSource, center: (Double, Double)? = nil, zoom: Double? = nil, mode: MapMode,
                        columns: Int = 120, rows: Int = 40) async -> MapImage {
        var viewport = MapViewport(fitting: source.extent!, columns: columns, rows: rows)
        if let center { viewport.center = MercatorPoint(GeoPoint(longitude: center.0, latitude: center.1)) }
        if let zoom { viewport = MapViewport(center: viewport.center, zoom: zoom) }
        return await MapStack(source).render(MapRequest(viewport: viewport, columns: columns, rows: rows, mode: mode, colors: false))
    }


    @Test(arguments: MapMode.allCases)
    func sampleArea(mode: MapMode) async throws {
        let image = await Self.picture(try PackageMapSource(path: SampleFixture.acadiaPackagePath), center: (-68.25, 44.37), zoom: 10.5, mode: mode)
        #expect(image.problems.isEmpty)
        #expect(image.report.featuresDrawn > 0)
        #expect(image.frame.text.contains("Bar Harbor"), "town names from the package's style")
        expectTextSnapshot(image.frame.text, named: "sample-acadia-\(mode.rawValue)", in: Self.snapshots)
    }

    @Test(.enabled(if: SharedData.available, SharedData.skipMessage), arguments: MapMode.allCases)
    func usaTilePackageOverMaine(mode: MapMode) async throws {
        let source = try PackageMapSource(path: SharedData.url("raster/tpkx/Usa.tpkx").path)
        let image = await Self.picture(source, center: (-69.2, 45.3), zoom: 6, mode: mode)
        #expect(image.problems.isEmpty)
        expectTextSnapshot(image.frame.text, named: "usa-tpkx-maine-\(mode.rawValue)", in: Self.snapshots)
    }

    @Test(.enabled(if: SharedData.available, SharedData.skipMessage), arguments: MapMode.allCases)
    func basemapDeVectorTilePackage(mode: MapMode) async throws {
        let source = try PackageMapSource(path: SharedData.url("vector/vtpk/basemapde_sample_L00-L07_nofonts.vtpk").path)
        let image = await Self.picture(source, zoom: 6.5, mode: mode)
        #expect(image.problems.isEmpty)
        #expect(image.frame.text.contains("basemap.de"), "the style's attribution is shown")
        expectTextSnapshot(image.frame.text, named: "basemapde-vtpk-\(mode.rawValue)", in: Self.snapshots)
    }

    /// Four `+` from the package's home: its level-7 tiles are absent in places, and their level-6
    /// ancestors stand in (no cell left to the terminal's background).
    @Test(.enabled(if: SharedData.available, SharedData.skipMessage))
    func basemapDeWhereLevelSevenIsMissing() async throws {
        let source = try PackageMapSource(path: SharedData.url("vector/vtpk/basemapde_sample_L00-L07_nofonts.vtpk").path)
        let viewport = MapViewport(center: MercatorPoint(GeoPoint(longitude: 10.9359, latitude: 51.0181)), zoom: 6.9)
        let image = await MapStack(source).render(MapRequest(viewport: viewport, columns: 120, rows: 38))
        #expect(image.frame.cells.allSatisfy { $0.style.background != nil })
        expectTextSnapshot(image.frame.text, named: "basemapde-vtpk-z6.9", in: Self.snapshots)
    }

    @Test(.enabled(if: SharedData.available, SharedData.skipMessage), arguments: MapMode.allCases)
    func realWorldTiles(mode: MapMode) async throws {
        let source = try TileFolderSource(path: SharedData.url("vector/mvt-real-world/norway").path)
        let image = await Self.picture(source, mode: mode)
        #expect(image.problems.isEmpty)
        #expect(image.picture.finished().placed.count > 3)
        expectTextSnapshot(image.frame.text, named: "norway-mvt-\(mode.rawValue)", in: Self.snapshots)
    }

    @Test(.enabled(if: SharedData.available, SharedData.skipMessage))
    func statesTilePackageWithLegacyBundles() async throws {
        let source = try PackageMapSource(path: SharedData.url("raster/tpk/states_filled.tpk").path)
        let image = await Self.picture(source, mode: .blocks, columns: 80, rows: 24)
        #expect(image.problems.isEmpty)
        #expect(image.frame.text.contains { "@%#*+=".contains($0) }, "the states' fills show through the density ramp")
    }
}
