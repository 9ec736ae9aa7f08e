import Foundation
import Geometry
import MapRender
import MapSources
import MapbookCore
import TerminalCanvas
import TileFormats

/// A map view drawn in pixels for a terminal of `columns × rows` cells of `cell` pixels: the same
/// view as the cells show (centre, and width on the ground), its tiles at the level whose pixels
/// are the screen's, so raster basemaps show at their own resolution and vector styles at the
/// detail a screen of that size shows. Names are placed in cells, to be written as text over it.
public struct PixelMap {
    public var canvas: PixelCanvas
    public var names: LabelPass
    public var report: MapDrawReport
    public var problems: [String]

    /// The picture's size in pixels, and how it is loaded and placed.
    public struct Geometry: Sendable, Equatable {
        public let width: Int, height: Int
        /// What the loaders are asked for: the view at the pixel level, sized in its dots (one a pixel).
        public let request: MapRequest
        public let projection: MapProjection

        /// The cells' view `cells` at `cell` pixels a cell.
        public init(_ cells: MapRequest, cell: (width: Int, height: Int)) {
            width = cells.columns * cell.width; height = cells.rows * cell.height
            // A braille dot is half a cell across: a pixel is `cell.width / 2` times finer.
            let resolution = cells.viewport.resolution * 2 / Double(max(cell.width, 1))
            let viewport = MapViewport(center: cells.viewport.center, zoom: log2(WebMercator.resolution(zoom: 0) / resolution))
            var request = cells
            request.viewport = viewport
            request.columns = (width + 1) / 2
            request.rows = (height + 3) / 4
            self.request = request
            // The picture's corner on the world's pixel grid: at whole levels every tile's edge then
            // falls between two pixels, and neighbouring tiles' anti-aliased edges leave no seam.
            let exact = MapProjection(center: cells.viewport.center, resolution: resolution, dotWidth: width, dotHeight: height)
            let left = ((exact.left + WebMercator.originShift) / resolution).rounded() * resolution - WebMercator.originShift
            let top = WebMercator.originShift - ((WebMercator.originShift - exact.top) / resolution).rounded() * resolution
            projection = MapProjection(center: MercatorPoint(x: left + Double(width) / 2 * resolution, y: top - Double(height) / 2 * resolution),
                                       resolution: resolution, dotWidth: width, dotHeight: height)
        }
    }

    /// Draws `stack`'s view `cells` in pixels: throws (one sentence) when it cannot be drawn so,
    /// and the caller draws cells.
    public static func render(_ stack: MapStack, _ cells: MapRequest, cell: (width: Int, height: Int)) async throws(PixelMapError) -> PixelMap {
        let geometry = Geometry(cells, cell: cell)
        var canvas = try PixelCanvas(width: geometry.width, height: geometry.height, cell: cell)
        let (names, report, problems) = await stack.render(geometry.request, onto: &canvas, projection: geometry.projection)
        return PixelMap(canvas: canvas, names: names, report: report, problems: problems)
    }

    /// The names placed in `columns × rows` cells, as a terminal would write them over the picture
    /// (cells without a name are blank).
    public func text(columns: Int, rows: Int, colors: Bool = true) -> Frame {
        var frame = Frame(width: columns, height: rows)
        _ = names.draw(into: &frame, rect: frame.bounds, colors: colors)
        return frame
    }

    /// `picture`, drawn for the cells' view `cells`, with `lines` (a route, a ruler…) drawn into a
    /// copy of it; nil when it cannot be (a picture not of that view, Cairo out of memory).
    public static func overlaid(_ picture: RasterImage, view cells: MapRequest, lines: [MapOverlays.Line]) -> RasterImage? {
        guard cells.columns > 0, cells.rows > 0, picture.width % cells.columns == 0, picture.height % cells.rows == 0 else { return nil }
        let cell = (width: picture.width / cells.columns, height: picture.height / cells.rows)
        let geometry = Geometry(cells, cell: cell)
        guard geometry.width == picture.width, geometry.height == picture.height,
              var canvas = try? PixelCanvas(copying: picture, cell: cell) else { return nil }
        MapOverlays.stroke(lines, onto: &canvas, projection: geometry.projection)
        return canvas.image()
    }

    /// The picture with its names written on it: what `snapshot --png` saves.
    public func finished(columns: Int, rows: Int) -> RasterImage {
        var canvas = canvas
        canvas.write(text(columns: columns, rows: rows))
        return canvas.image()
    }
}
