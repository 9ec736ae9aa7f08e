import CCairo
import Foundation
import Geometry
import MapRender
import MapbookCore
import TerminalCanvas
import TileFormats

/// Why a map could not be drawn in pixels: one sentence, and the caller falls back to cells.
public struct PixelMapError: UserFacingError, Equatable {
    public let userMessage: String
    public init(_ sentence: String) { userMessage = sentence }
}

/// A map drawn in true pixels with Cairo: anti-aliased fills, lines at their style widths with
/// their dashes, round points, raster tiles and servers' pictures scaled smoothly from their own
/// pixels. One pixel is one of the surface's dots (`MapSurface`); a terminal cell is `cell` pixels.
public struct PixelCanvas: MapSurface {
    public let dotWidth: Int
    public let dotHeight: Int
    public let dotsPerCell: (x: Double, y: Double)
    private let picture: CairoPicture

    /// The largest picture drawn: 8,192 pixels a side and 32 million in all (128 MiB of RGBA) —
    /// a 400-column terminal of 20-pixel cells fits; a window claiming more falls back to cells.
    public static let maxSide = 8_192
    public static let maxPixels = 32 * 1_048_576
    /// Wider lines are drawn this wide: a style asking for a 1,000-pixel line gets a broad band, not a flood.
    public static let maxLineWidth = 64.0

    public var clipBox: (minX: Double, minY: Double, maxX: Double, maxY: Double)? {
        didSet { picture.clip(to: clipBox) }
    }

    /// A picture of `width × height` pixels whose cells are `cell` pixels; throws when Cairo is not
    /// on this machine or the size is not one to draw.
    public init(width: Int, height: Int, cell: (width: Int, height: Int)) throws(PixelMapError) {
        try Self.check(width: width, height: height, cell: cell)
        picture = try CairoPicture(width: width, height: height)
        dotWidth = width; dotHeight = height
        dotsPerCell = (Double(cell.width), Double(cell.height))
    }

    /// A picture holding `image`'s pixels, to draw more on.
    public init(copying image: RasterImage, cell: (width: Int, height: Int)) throws(PixelMapError) {
        try Self.check(width: image.width, height: image.height, cell: cell)
        picture = try CairoPicture(copying: image)
        dotWidth = image.width; dotHeight = image.height
        dotsPerCell = (Double(cell.width), Double(cell.height))
    }

    private static func check(width: Int, height: Int, cell: (width: Int, height: Int)) throws(PixelMapError) {
        guard width >= 1, height >= 1, width <= maxSide, height <= maxSide, width * height <= maxPixels else {
            throw PixelMapError("A picture of \(width)×\(height) pixels is outside what mapbook draws (1 to \(maxSide) a side).")
        }
        guard (1...256).contains(cell.width), (1...512).contains(cell.height) else {
            throw PixelMapError("A terminal cell of \(cell.width)×\(cell.height) pixels is not one mapbook can draw for.")
        }
        guard mb_cairo_available() != 0 else {
            throw PixelMapError("Cairo (libcairo2) is not installed, so the map is drawn in characters.")
        }
    }

    public mutating func paintAll(_ color: StyleColor) {
        picture.withContext { cr in
            Self.set(cr, color, alpha: 1)
            mb_cairo_paint(cr)
        }
    }

    /// Filled without anti-aliasing, so two areas that share an edge leave no faint line of what
    /// is below between them; an opaque fill is then filled again anti-aliased, which smooths its
    /// edge over what the first fill left there (half the time of smoothing it with a hairline
    /// stroke, as Mapbox GL's `fill-antialias` does: docs/benchmarks.md). Fills and lines are
    /// anti-aliased Cairo's fast way: a quarter off a vector map's drawing, edges alike to the eye.
    public mutating func fill(rings: [[(x: Double, y: Double)]], color: StyleColor, alpha: Double) {
        guard alpha >= 0.01 else { return }
        picture.withContext(box: Self.box(of: rings.joined(), margin: 1)) { cr in
            mb_cairo_new_path(cr)
            for ring in rings where ring.count > 2 && ring.allSatisfy({ Self.drawable($0) }) {
                Self.path(cr, ring, closed: true)
            }
            mb_cairo_set_fill_rule(cr, CAIRO_FILL_RULE_EVEN_ODD)
            Self.set(cr, color, alpha: alpha)
            mb_cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE)
            mb_cairo_fill_preserve(cr)
            mb_cairo_set_antialias(cr, CAIRO_ANTIALIAS_FAST)
            if alpha * color.a >= 0.95 {
                mb_cairo_fill_preserve(cr)
            }
            mb_cairo_new_path(cr)
        }
    }

    public mutating func stroke(_ points: [(x: Double, y: Double)], color: StyleColor, width: Double, dasharray: [Double], closed: Bool) {
        guard points.count > 1, points.allSatisfy({ Self.drawable($0) }) else { return }
        let lineWidth = min(max(width.isFinite ? width : 1, 0.5), Self.maxLineWidth)
        // Dashes are in line widths (as styles give them); a pattern without a gap draws solid.
        let dashes = dasharray.map { $0.isFinite ? min(max($0, 0), 1_000) * max(lineWidth, 1) : 0 }
        let dashed = dashes.count >= 2 && dashes.reduce(0, +) >= 1 && dashes.enumerated().contains { $0.offset % 2 == 1 && $0.element > 0 }
        let box = clipBox
        picture.withContext(box: Self.box(of: points, margin: lineWidth)) { cr in
            mb_cairo_new_path(cr)
            Self.strokePath(cr, points, closed: closed, clipBox: box)
            mb_cairo_set_line_width(cr, lineWidth)
            mb_cairo_set_antialias(cr, CAIRO_ANTIALIAS_FAST)
            mb_cairo_set_line_cap(cr, dashed ? CAIRO_LINE_CAP_BUTT : CAIRO_LINE_CAP_ROUND)
            mb_cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
            if dashed { dashes.withUnsafeBufferPointer { mb_cairo_set_dash(cr, $0.baseAddress, Int32($0.count), 0) } }
            Self.set(cr, color, alpha: 1)
            mb_cairo_stroke(cr)
            mb_cairo_set_dash(cr, nil, 0, 0)
        }
    }

    public mutating func dot(at point: (x: Double, y: Double), color: StyleColor, radius: Double) {
        guard Self.drawable(point) else { return }
        let r = min(max(radius.isFinite ? radius : 1, 1), 32)
        picture.withContext(box: PixelBox(left: point.x - r - 1, top: point.y - r - 1, right: point.x + r + 1, bottom: point.y + r + 1)) { cr in
            mb_cairo_new_path(cr)
            mb_cairo_arc(cr, point.x, point.y, r, 0, 2 * Double.pi)
            // Set here, not left from the step before: a part runs only the steps that reach it.
            mb_cairo_set_antialias(cr, CAIRO_ANTIALIAS_FAST)
            Self.set(cr, color, alpha: 1)
            mb_cairo_fill(cr)
        }
    }

    /// The deepest level at hand shows wherever it has a tile, whatever its pixels' alpha (as on the
    /// cells); a coarser one only where no deeper tile lies (yet). Scaled smoothly from the tile's pixels.
    public mutating func drawTiles(_ tiles: [TileKey: RasterImage], projection: MapProjection, opacity: Double) {
        /// Tiles' boxes in metres already drawn (a deeper tile lies inside a coarser one or apart).
        var covered: [(left: Double, top: Double, right: Double, bottom: Double)] = []
        for (key, image) in tiles.sorted(by: { $0.key.z > $1.key.z }) {
            let n = Double(1 << min(max(key.z, 0), 30)), span = 2 * WebMercator.originShift / n
            let left = -WebMercator.originShift + Double(key.x) * span, top = WebMercator.originShift - Double(key.y) * span
            let box = (left: left, top: top, right: left + span, bottom: top - span)
            let inside = covered.filter { $0.left >= box.left && $0.right <= box.right && $0.top <= box.top && $0.bottom >= box.bottom }
            _ = place(image, left: box.left, top: box.top, right: box.right, bottom: box.bottom, opacity: opacity, projection: projection,
                      holes: inside)
            covered.removeAll { c in inside.contains { $0 == c } }
            covered.append(box)
        }
    }

    public mutating func drawImage(_ placed: PlacedImage, projection: MapProjection) -> Bool {
        place(placed.image, left: placed.left, top: placed.top, right: placed.right, bottom: placed.bottom, opacity: placed.opacity,
              projection: projection)
    }

    /// Anti-aliased, any sliver shows.
    public func fillShows(from top: Double, to bottom: Double) -> Bool { bottom > top }

    /// Everywhere, but in the regions alone when the picture keeps the last one's pixels.
    public func draws(in box: (minX: Double, minY: Double, maxX: Double, maxY: Double)) -> Bool {
        picture.draws(in: PixelBox(left: box.minX, top: box.minY, right: box.maxX, bottom: box.maxY))
    }

    /// The picture's pixels, red, green, blue and alpha.
    public func image() -> RasterImage { picture.rgba() }

    /// The picture is `kept`'s pixels moved but in its regions, where it is drawn: a pan's picture
    /// keeps what the last one drew of what both show and draws only what came into view. The
    /// kept pixels must be the picture's size.
    public mutating func keep(_ kept: KeptPixels) {
        guard kept.pixels.width == dotWidth, kept.pixels.height == dotHeight else { return }
        picture.keep(kept)
    }

    /// The pixels drawn on up to `bands` parts (tests: any number of parts draws the same).
    func image(bands: Int) -> RasterImage { picture.rgba(bands: bands) }

    /// Text in cells over the picture (names, marks): each cell's character in its colour, in the
    /// terminal's monospace font, where a terminal would write it.
    public mutating func write(_ frame: Frame, origin: (x: Int, y: Int) = (0, 0)) {
        let (cw, ch) = dotsPerCell
        picture.withContext { cr in
            mb_cairo_select_font_face(cr, "monospace", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD)
            mb_cairo_set_font_size(cr, ch * 0.8)
            for y in 0..<frame.height {
                for x in 0..<frame.width {
                    let cell = frame[x, y]
                    guard !cell.isContinuation, cell.character != " " else { continue }
                    let px = Double(origin.x + x) * cw, py = Double(origin.y + y) * ch
                    if let background = cell.style.background {
                        Self.set(cr, Self.color(background), alpha: 1)
                        mb_cairo_rectangle(cr, px, py, cw * Double(max(DisplayWidth.of(String(cell.character)), 1)), ch)
                        mb_cairo_fill(cr)
                    }
                    Self.set(cr, Self.color(cell.style.foreground ?? 255), alpha: 1)
                    mb_cairo_move_to(cr, px, py + ch * 0.78)
                    String(cell.character).withCString { mb_cairo_show_text(cr, $0) }
                }
            }
        }
    }

    // MARK: Drawing helpers

    /// A picture placed by its box in metres, scaled to the pixels it covers; whether any of it showed.
    private mutating func place(_ image: RasterImage, left: Double, top: Double, right: Double, bottom: Double, opacity: Double,
                                projection: MapProjection, holes: [(left: Double, top: Double, right: Double, bottom: Double)] = []) -> Bool {
        let (x0, y0) = projection.dot(MercatorPoint(x: left, y: top))
        let (x1, y1) = projection.dot(MercatorPoint(x: right, y: bottom))
        guard image.width > 0, image.height > 0, x1 > x0, y1 > y0, x1 > 0, y1 > 0, x0 < Double(dotWidth), y0 < Double(dotHeight),
              x0.isFinite, y0.isFinite, x1.isFinite, y1.isFinite, opacity > 0 else { return false }
        let sx = (x1 - x0) / Double(image.width), sy = (y1 - y0) / Double(image.height)
        // Outside what the picture draws (it keeps the last one's pixels there): shown, not copied for Cairo.
        guard picture.draws(in: PixelBox(left: x0 - 1, top: y0 - 1, right: x1 + 1, bottom: y1 + 1)) else { return true }
        guard let source = try? CairoImage(image) else { return false }
        picture.withContext(box: PixelBox(left: x0 - 1, top: y0 - 1, right: x1 + 1, bottom: y1 + 1)) { cr in
            mb_cairo_save(cr)
            mb_cairo_new_path(cr)
            let edges = CairoPicture.pixelEdges((x0, y0, x1, y1))
            mb_cairo_rectangle(cr, edges.0, edges.1, edges.2 - edges.0, edges.3 - edges.1)
            // Where deeper tiles lie, this one does not show (the even-odd rule cuts them out).
            for hole in holes {
                let (a, b) = (projection.dot(MercatorPoint(x: hole.left, y: hole.top)), projection.dot(MercatorPoint(x: hole.right, y: hole.bottom)))
                let cut = CairoPicture.pixelEdges((a.x, a.y, b.x, b.y))
                mb_cairo_rectangle(cr, cut.0, cut.1, cut.2 - cut.0, cut.3 - cut.1)
            }
            mb_cairo_set_fill_rule(cr, CAIRO_FILL_RULE_EVEN_ODD)
            mb_cairo_clip(cr)
            mb_cairo_translate(cr, x0, y0)
            mb_cairo_scale(cr, sx, sy)
            mb_cairo_set_source_surface(cr, source.surface, 0, 0)
            // Past a tile's edge its own last pixels, so neighbours meet without a seam.
            mb_cairo_pattern_set_extend(mb_cairo_get_source(cr), CAIRO_EXTEND_PAD)
            mb_cairo_pattern_set_filter(mb_cairo_get_source(cr), sx >= 2 || sy >= 2 ? CAIRO_FILTER_BILINEAR : CAIRO_FILTER_GOOD)
            mb_cairo_paint_with_alpha(cr, min(opacity, 1))
            mb_cairo_restore(cr)
        }
        return true
    }

    /// A line's path without the stretches that run along the clip box's edge: there a tile cut an
    /// area's outline, and drawn they would show the tiles' squares as faint lines.
    private static func strokePath(_ cr: OpaquePointer, _ points: [(x: Double, y: Double)], closed: Bool,
                                   clipBox box: (minX: Double, minY: Double, maxX: Double, maxY: Double)?) {
        guard let box else { return path(cr, points, closed: closed) }
        func onEdge(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Bool {
            func near(_ u: Double, _ v: Double) -> Bool { abs(u - v) < 0.01 }
            return (near(a.x, box.minX) && near(b.x, box.minX)) || (near(a.x, box.maxX) && near(b.x, box.maxX))
                || (near(a.y, box.minY) && near(b.y, box.minY)) || (near(a.y, box.maxY) && near(b.y, box.maxY))
        }
        let all = closed ? points + [points[0]] : points
        mb_cairo_move_to(cr, all[0].x, all[0].y)
        for (a, b) in zip(all, all.dropFirst()) {
            if onEdge(a, b) { mb_cairo_move_to(cr, b.x, b.y) } else { mb_cairo_line_to(cr, b.x, b.y) }
        }
    }

    private static func path(_ cr: OpaquePointer, _ points: [(x: Double, y: Double)], closed: Bool) {
        mb_cairo_move_to(cr, points[0].x, points[0].y)
        for p in points.dropFirst() { mb_cairo_line_to(cr, p.x, p.y) }
        if closed { mb_cairo_close_path(cr) }
    }

    private static func set(_ cr: OpaquePointer, _ color: StyleColor, alpha: Double) {
        mb_cairo_set_source_rgba(cr, color.r / 255, color.g / 255, color.b / 255, min(max(color.a * alpha, 0), 1))
    }

    /// The pixels `points` reach, `margin` beyond (a part drawn elsewhere skips their drawing).
    private static func box<Points: Sequence>(of points: Points, margin: Double) -> PixelBox
        where Points.Element == (x: Double, y: Double) {
        var box = PixelBox(left: .infinity, top: .infinity, right: -.infinity, bottom: -.infinity)
        for point in points {
            box.left = min(box.left, point.x); box.right = max(box.right, point.x)
            box.top = min(box.top, point.y); box.bottom = max(box.bottom, point.y)
        }
        return PixelBox(left: box.left - margin, top: box.top - margin, right: box.right + margin, bottom: box.bottom + margin)
    }

    /// Coordinates Cairo's 24.8 fixed point holds: far-away vertices (a hostile tile's) are left out.
    private static func drawable(_ p: (x: Double, y: Double)) -> Bool {
        p.x.isFinite && p.y.isFinite && abs(p.x) < 4_000_000 && abs(p.y) < 4_000_000
    }

    static func color(_ index: PaletteIndex) -> StyleColor {
        let rgb = XtermPalette.rgb(index)
        return StyleColor(r: Double(rgb.r), g: Double(rgb.g), b: Double(rgb.b))
    }
}

/// The picture's drawing, recorded in order and run when its pixels are asked for: on parts of it
/// at once, one a processor, each its own Cairo surface running only the steps that reach it
/// (Cairo is most of a vector map's time; two parts take about a third off it:
/// docs/benchmarks.md) — and, after a pan, only on what came into view. Every step draws in the
/// whole picture's pixels; a part's context is moved so that its pixels are the ones drawn.
final class CairoPicture: @unchecked Sendable {
    typealias Step = (OpaquePointer) -> Void
    let width: Int, height: Int
    /// Pixels the picture starts from (a drawing to add lines to), else transparent.
    private let base: RasterImage?
    /// Pixels kept but in the regions named (a pan's picture: the last one's, moved).
    private var kept: KeptPixels?
    /// Each step, and the pixels it draws on (nil: any, as a clip or a paint).
    private var steps: [(step: Step, box: PixelBox?)] = []
    /// The last pixels made, and how many steps they hold.
    private var made: (steps: Int, image: RasterImage)?

    init(width: Int, height: Int) throws(PixelMapError) {
        // Cairo's own limit: a surface it would refuse is refused here, before anything is drawn.
        guard mb_cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, Int32(width)) > 0 else {
            throw PixelMapError("Cairo could not make a picture of \(width)×\(height) pixels.")
        }
        self.width = width; self.height = height; base = nil
    }

    /// A picture that starts as `image`'s pixels.
    init(copying image: RasterImage) throws(PixelMapError) {
        width = image.width; height = image.height; base = image
    }

    /// Records a drawing step, run on each part of the picture it draws on when the pixels are asked for.
    func withContext(box: PixelBox? = nil, _ body: @escaping Step) {
        steps.append((body, box))
    }

    func keep(_ pixels: KeptPixels) {
        kept = pixels
        made = nil
    }

    func draws(in box: PixelBox) -> Bool {
        guard let kept else { return true }
        return kept.regions.contains { box.meets($0) }
    }

    func clip(to box: (minX: Double, minY: Double, maxX: Double, maxY: Double)?) {
        withContext { context in
            mb_cairo_reset_clip(context)
            guard let box else { return }
            mb_cairo_new_path(context)
            let (x0, y0, x1, y1) = Self.pixelEdges(box)
            mb_cairo_rectangle(context, x0, y0, max(x1 - x0, 0), max(y1 - y0, 0))
            mb_cairo_clip(context)
        }
    }

    /// A box's edges moved to whole pixels: two tiles that meet then share whole pixels, and no
    /// half-covered seam shows between them.
    static func pixelEdges(_ box: (minX: Double, minY: Double, maxX: Double, maxY: Double)) -> (Double, Double, Double, Double) {
        (box.minX.rounded(), box.minY.rounded(), box.maxX.rounded(), box.maxY.rounded())
    }

    /// The picture's pixels: every step run on up to `bands` parts at once (one a processor, cut
    /// across the longer side, at least 64 pixels each; only the kept picture's regions, when it
    /// has one), red, green, blue and alpha, not premultiplied. A part Cairo cannot make (out of
    /// memory) stays transparent.
    func rgba(bands: Int? = nil) -> RasterImage {
        if bands == nil, let made, made.steps == steps.count { return made.image }
        let count = max(1, bands ?? ProcessInfo.processInfo.activeProcessorCount)
        let whole = PixelRect(x: 0, y: 0, width: width, height: height)
        let parts = (kept?.regions ?? [whole]).flatMap { $0.clamped(to: whole).split(into: count) }
        var out = [UInt8](repeating: 0, count: width * height * 4)
        if let kept { kept.pixels.copyMoved(x: kept.moved.x, y: kept.moved.y, into: &out) }
        out.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let rgba = buffer
            nonisolated(unsafe) let steps = steps
            let (width, base) = (width, base)
            DispatchQueue.concurrentPerform(iterations: parts.count) { index in
                let part = parts[index]
                guard let surface = mb_cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(part.width), Int32(part.height)) else { return }
                defer { mb_cairo_surface_destroy(surface) }
                guard mb_cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let context = mb_cairo_create(surface) else { return }
                defer { mb_cairo_destroy(context) }
                if let base { Self.copy(base, part, into: surface) }
                mb_cairo_translate(context, -Double(part.x), -Double(part.y))
                for (step, box) in steps where box.map({ $0.meets(part) }) ?? true { step(context) }
                Self.copy(surface, into: rgba, width: width, at: part)
            }
        }
        let image = RasterImage(width: width, height: height, rgba: out)
        made = (steps.count, image)
        return image
    }

    /// `image`'s pixels in `part` into `surface`, the part's size (premultiplied ARGB32 in the
    /// machine's byte order, as Cairo keeps them).
    static func copy(_ image: RasterImage, _ part: PixelRect, into surface: OpaquePointer) {
        mb_cairo_surface_flush(surface)
        guard let data = mb_cairo_image_surface_get_data(surface) else { return }
        let stride = Int(mb_cairo_image_surface_get_stride(surface)), width = image.width
        image.rgba.withUnsafeBufferPointer { rgba in
            for y in part.y..<part.y + part.height {
                let row = data + (y - part.y) * stride
                for x in part.x..<part.x + part.width {
                    let i = (y * width + x) * 4
                    let a = UInt32(rgba[i + 3])
                    let r = UInt32(rgba[i]) * a / 255, g = UInt32(rgba[i + 1]) * a / 255, b = UInt32(rgba[i + 2]) * a / 255
                    UnsafeMutableRawPointer(row + (x - part.x) * 4).storeBytes(of: a << 24 | r << 16 | g << 8 | b, as: UInt32.self)
                }
            }
        }
        mb_cairo_surface_mark_dirty(surface)
    }

    /// `surface`'s pixels into `rgba` (`width` pixels a row) at `part`, not premultiplied: the picture's own colours.
    private static func copy(_ surface: OpaquePointer, into rgba: UnsafeMutableBufferPointer<UInt8>, width: Int, at part: PixelRect) {
        mb_cairo_surface_flush(surface)
        guard let data = mb_cairo_image_surface_get_data(surface) else { return }
        let stride = Int(mb_cairo_image_surface_get_stride(surface))
        for y in 0..<part.height {
            let row = data + y * stride
            for x in 0..<part.width {
                let pixel = UnsafeRawPointer(row + x * 4).load(as: UInt32.self)
                let a = pixel >> 24
                let i = ((part.y + y) * width + part.x + x) * 4
                if a == 255 {
                    // Opaque (most of a map): the colours as they are.
                    rgba[i] = UInt8(truncatingIfNeeded: pixel >> 16); rgba[i + 1] = UInt8(truncatingIfNeeded: pixel >> 8)
                    rgba[i + 2] = UInt8(truncatingIfNeeded: pixel); rgba[i + 3] = 255
                    continue
                }
                func channel(_ shift: UInt32) -> UInt8 {
                    let v = (pixel >> shift) & 0xFF
                    return a == 0 ? 0 : UInt8(min(v * 255 / a, 255))
                }
                rgba[i] = channel(16); rgba[i + 1] = channel(8); rgba[i + 2] = channel(0); rgba[i + 3] = UInt8(a)
            }
        }
    }
}

/// A picture's pixels as a Cairo surface to draw from (a tile, a server's picture); only read
/// once made, so the parts may draw from it at once.
final class CairoImage: @unchecked Sendable {
    let surface: OpaquePointer

    init(_ image: RasterImage) throws(PixelMapError) {
        guard let surface = mb_cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(image.width), Int32(image.height)),
              mb_cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            throw PixelMapError("Cairo could not make a picture of \(image.width)×\(image.height) pixels (out of memory?).")
        }
        self.surface = surface
        CairoPicture.copy(image, PixelRect(x: 0, y: 0, width: image.width, height: image.height), into: surface)
    }

    deinit { mb_cairo_surface_destroy(surface) }
}

/// A rectangle of whole pixels of a picture.
public struct PixelRect: Sendable, Equatable {
    public var x: Int, y: Int, width: Int, height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    var maxX: Int { x + width }
    var maxY: Int { y + height }

    func contains(_ other: PixelRect) -> Bool {
        other.x >= x && other.y >= y && other.maxX <= maxX && other.maxY <= maxY
    }

    func clamped(to bounds: PixelRect) -> PixelRect {
        let left = min(max(x, bounds.x), bounds.x + bounds.width), top = min(max(y, bounds.y), bounds.y + bounds.height)
        let right = min(max(x + width, left), bounds.x + bounds.width), bottom = min(max(y + height, top), bounds.y + bounds.height)
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// Up to `count` parts across its longer side, each at least 64 pixels on it (none when empty).
    func split(into count: Int) -> [PixelRect] {
        guard width > 0, height > 0 else { return [] }
        let across = width > height
        let side = across ? width : height
        let parts = max(1, min(count, side / 64, 8))
        return (0..<parts).map { part in
            let start = side * part / parts, end = side * (part + 1) / parts
            return across ? PixelRect(x: x + start, y: y, width: end - start, height: height)
                : PixelRect(x: x, y: y + start, width: width, height: end - start)
        }
    }
}

/// The pixels a drawing step reaches, in the picture's pixels (not whole).
struct PixelBox {
    var left: Double, top: Double, right: Double, bottom: Double

    func meets(_ rect: PixelRect) -> Bool {
        right >= Double(rect.x) && left <= Double(rect.x + rect.width) && bottom >= Double(rect.y) && top <= Double(rect.y + rect.height)
    }
}

/// What a pan's picture keeps of the last one (`PixelMap.kept`): its pixels, moved by whole
/// pixels, and the regions that came into view, which are drawn.
public struct KeptPixels: Sendable {
    public let pixels: RasterImage
    public let moved: (x: Int, y: Int)
    public let regions: [PixelRect]
}
