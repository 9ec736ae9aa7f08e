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
        /// Where the picture lies on the world's pixel grid at its resolution (metres a pixel):
        /// its top left pixel, counted from the world's top left. Pictures of one resolution share
        /// the grid: a pixel of one is a pixel of the other (kitty's tiles are cut along it).
        public let grid: PixelGrid

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
            let column = ((exact.left + WebMercator.originShift) / resolution).rounded(), row = ((WebMercator.originShift - exact.top) / resolution).rounded()
            grid = PixelGrid(resolution: resolution, x: column.clampedInt(), y: row.clampedInt())
            let left = column * resolution - WebMercator.originShift
            let top = WebMercator.originShift - row * resolution
            projection = MapProjection(center: MercatorPoint(x: left + Double(width) / 2 * resolution, y: top - Double(height) / 2 * resolution),
                                       resolution: resolution, dotWidth: width, dotHeight: height)
        }
    }

    /// Draws `stack`'s view `cells` in pixels: throws (one sentence) when it cannot be drawn so,
    /// and the caller draws cells. `after`: the last picture drawn of the stack; a pan keeps what
    /// it shares with it (`kept`) and Cairo draws only what came into view.
    public static func render(_ stack: MapStack, _ cells: MapRequest, cell: (width: Int, height: Int),
                              after last: MapImage? = nil) async throws(PixelMapError) -> PixelMap {
        let geometry = Geometry(cells, cell: cell)
        var canvas = try PixelCanvas(width: geometry.width, height: geometry.height, cell: cell)
        // Kept before the drawing, so that the style's pass leaves out the lines and fills it keeps.
        if let last, stack.drawsAlikeWhenMoved, let kept = kept(from: last, for: cells) { canvas.keep(kept) }
        let (names, report, problems) = await stack.render(geometry.request, onto: &canvas, projection: geometry.projection)
        return PixelMap(canvas: canvas, names: names, report: report, problems: problems)
    }

    /// What a pan's picture keeps of `drawn`: its pixels moved by whole pixels to where the view
    /// `cells` puts them (both corners lie on the world's pixel grid, so they are the pixels a
    /// drawing of `cells` makes there), and the regions that came into view, to be drawn. Nil
    /// unless `drawn` is a whole drawing with nothing missing (no sentence said), of the same
    /// content, and `cells` its view moved.
    public static func kept(from drawn: MapImage, for cells: MapRequest) -> KeptPixels? {
        guard let picture = drawn.pixels, !drawn.isAtHand, drawn.problems.isEmpty, drawn.request.content == cells.content,
              let moved = placement(from: drawn.request, to: cells, picture: (picture.width, picture.height))?.movement else { return nil }
        let (width, height) = (picture.width, picture.height)
        // The columns that came into view, all their rows; then the rows that did, across the other columns.
        var regions: [PixelRect] = []
        if moved.x > 0 { regions.append(PixelRect(x: 0, y: 0, width: moved.x, height: height)) }
        if moved.x < 0 { regions.append(PixelRect(x: width + moved.x, y: 0, width: -moved.x, height: height)) }
        let left = max(moved.x, 0), right = width + min(moved.x, 0)
        if moved.y > 0 { regions.append(PixelRect(x: left, y: 0, width: right - left, height: moved.y)) }
        if moved.y < 0 { regions.append(PixelRect(x: left, y: height + moved.y, width: right - left, height: -moved.y)) }
        return KeptPixels(pixels: picture, moved: moved, regions: regions)
    }

    /// The drawing as the map view keeps it: blank cells (the picture shows through them) holding
    /// the names placed for the pixels, and the pixels.
    public func image(for cells: MapRequest) -> MapImage {
        var image = MapImage(picture: MapPicture(frame: Frame(width: cells.columns, height: cells.rows), names: names, colors: cells.colors),
                             request: cells, report: report, problems: problems)
        image.pixels = canvas.image()
        return image
    }

    /// A pan's or a zoom's picture at once, while its own is drawn: `drawn`'s pixels where the new
    /// view puts them, what comes into view in the picture's mean colour. A pan moves them by whole
    /// pixels (both corners are on the world's pixel grid, so what shows in both is exactly where
    /// the new drawing puts it) and its names by the nearest whole cells; a zoom scales them and
    /// leaves the names out (they are placed for the new scale). Nil unless `cells` is `drawn`'s
    /// view moved or zoomed (within sixteen times) so that some of it still shows, at the same
    /// size, drawn the same way.
    public static func atHand(from drawn: MapImage, for cells: MapRequest) -> MapImage? {
        guard let picture = drawn.pixels, !drawn.isAtHand,
              let placed = placement(from: drawn.request, to: cells, picture: (picture.width, picture.height)) else { return nil }
        let names: LabelPass
        let pixels: RasterImage
        if let moved = placed.movement {
            let cell = (width: picture.width / cells.columns, height: picture.height / cells.rows)
            names = drawn.picture.names.moved(columns: (Double(moved.x) / Double(cell.width)).clampedInt(),
                                              rows: (Double(moved.y) / Double(cell.height)).clampedInt())
            pixels = picture.moved(x: moved.x, y: moved.y, filling: picture.meanColor())
        } else {
            names = LabelPass(attribution: drawn.picture.names.attribution)
            pixels = picture.scaled(placed.scale, to: (placed.x, placed.y), width: picture.width, height: picture.height, filling: picture.meanColor())
        }
        var image = MapImage(picture: MapPicture(frame: Frame(width: cells.columns, height: cells.rows), names: names, colors: cells.colors),
                             request: cells, report: drawn.report, problems: drawn.problems)
        image.pixels = pixels
        image.isAtHand = true
        return image
    }

    /// Where a picture drawn for one view lies in another's: scaled `scale` times, its top left
    /// corner at (`x`, `y`) pixels of the other's picture.
    public struct Placement: Sendable, Equatable {
        public let scale: Double, x: Double, y: Double

        /// The whole pixels it moves right and down, when it is not scaled.
        public var movement: (x: Int, y: Int)? {
            scale == 1 ? (x.rounded().clampedInt(), y.rounded().clampedInt()) : nil
        }
    }

    /// Where a picture of `picture` pixels drawn for the view `before` lies in the view `cells`:
    /// nil unless `cells` is `before` moved or zoomed (within sixteen times) so that some of it
    /// still shows, at the same size, drawn the same way.
    public static func placement(from before: MapRequest, to cells: MapRequest, picture: (width: Int, height: Int)) -> Placement? {
        guard cells.columns == before.columns, cells.rows == before.rows, cells.columns > 0, cells.rows > 0,
              cells.mode == before.mode, cells.hiddenLayers == before.hiddenLayers,
              cells.colors == before.colors, cells.lightTheme == before.lightTheme,
              picture.width % cells.columns == 0, picture.height % cells.rows == 0 else { return nil }
        let cell = (width: picture.width / cells.columns, height: picture.height / cells.rows)
        let old = Geometry(before, cell: cell).projection, new = Geometry(cells, cell: cell).projection
        var scale = new.scale / old.scale
        // The same level gives the same resolution to the last bits; a zoom changes it far more.
        if abs(scale - 1) < 1e-9 { scale = 1 }
        var x = (old.left - new.left) * new.scale, y = (new.top - old.top) * new.scale
        if scale == 1 { (x, y) = (x.rounded(), y.rounded()) }
        let (width, height) = (Double(picture.width), Double(picture.height))
        guard scale.isFinite, x.isFinite, y.isFinite, scale >= 1.0 / 16, scale <= 16, x != 0 || y != 0 || scale != 1,
              x < width, y < height, x + width * scale > 0, y + height * scale > 0 else { return nil }
        return Placement(scale: scale, x: x, y: y)
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
