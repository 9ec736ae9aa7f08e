import Foundation
import Geometry
import SharedTestData
import TerminalCanvas
import Testing
import TileFormats
@testable import MapRender
@testable import MapSources

/// Real packages mapbook did not make leave no black hole: at every zoom from the package's first
/// level to three past its last, over a grid of views across and around its data, every map cell
/// has a background of its own, never the terminal's (black on most) — drawn from the tile, from
/// the nearest ancestor present (overzoom), or the style's background or the neutral no-data fill
/// where nothing covers it. (Dark pixels of a raster map are its picture, not holes.) Without
/// colour (`NO_COLOR`) views across the same grid carry no colour at all, and where there is no data they show
/// the no-data texture, never blank.
@Suite(.enabled(if: SharedData.available, SharedData.skipMessage))
struct RealPackageCoverageTests {
    @Test(arguments: ["vector/vtpk/basemapde_sample_L00-L07_nofonts.vtpk", "raster/tpkx/Usa.tpkx", "raster/tpk/states_filled.tpk"])
    func noCellIsBlackAtAnyZoomOverAGridAroundTheData(_ path: String) async throws {
        let source = try PackageMapSource(path: SharedData.url(path).path)
        let stack = MapStack(source)
        let extent = try #require(source.extent)
        let zooms = source.zooms.lowerBound...(source.zooms.upperBound + 3)
        var holes: [String] = []
        for zoom in zooms {
            // Five by five views from a quarter beyond the extent on each side.
            let width = extent.xmax - extent.xmin, height = extent.ymax - extent.ymin
            for i in 0..<5 {
                for j in 0..<5 {
                    let lon = extent.xmin - width / 4 + width * 1.5 * Double(i) / 4
                    let lat = max(min(extent.ymin - height / 4 + height * 1.5 * Double(j) / 4, 84), -84)
                    let request = MapRequest(viewport: MapViewport(center: MercatorPoint(GeoPoint(longitude: lon, latitude: lat)),
                                                                   zoom: Double(zoom)), columns: 40, rows: 12)
                    let image = await stack.render(request)
                    let bare = image.frame.cells.filter { $0.style.background == nil }.count
                    if bare > 0 { holes.append(String(format: "z%d at %.2f,%.2f: %d cells", zoom, lon, lat, bare)) }
                    // Without colour, at the corners and middle of the grid (two more drawings a view:
                    // the whole grid would triple the suite's heaviest test).
                    if i % 2 == 0, j % 2 == 0, let wrong = await Self.monochromeProblem(stack, request, colour: image.frame) {
                        holes.append(String(format: "z%d at %.2f,%.2f without colour: %@", zoom, lon, lat, wrong))
                    }
                }
            }
        }
        let byZoom = Dictionary(grouping: holes) { $0.split(separator: " ")[0] }.mapValues(\.count).sorted { $0.key < $1.key }
        #expect(holes.isEmpty, "\(path): \(holes.count) views with bare cells (\(byZoom)), e.g. \(holes.prefix(3))")
    }

    /// What is wrong with a view drawn without colour, against the same view in colour: a cell with
    /// a colour, or a cell of no data that is not the texture. A cell of no data is the no-data grey
    /// alone on both themes (a grey of the picture itself does not change with the theme).
    static func monochromeProblem(_ stack: MapStack, _ request: MapRequest, colour: Frame) async -> String? {
        var mono = request, light = request
        mono.colors = false
        light.lightTheme = true
        let (monoFrame, lightFrame) = (await stack.render(mono).frame, await stack.render(light).frame)
        let coloured = monoFrame.cells.filter { $0.style.foreground != nil || $0.style.background != nil }.count
        if coloured > 0 { return "\(coloured) cells with a colour" }
        var noData = 0, blank = 0
        for index in colour.cells.indices {
            let dark = colour.cells[index], pale = lightFrame.cells[index]
            guard dark.character == " ", pale.character == " ", dark.style.background == MapComposer.noDataOnDark,
                  pale.style.background == MapComposer.noDataOnLight
            else { continue }
            noData += 1
            if monoFrame.cells[index].character != "." { blank += 1 }
        }
        return blank > 0 ? "\(blank) of \(noData) cells of no data not textured" : nil
    }
}
