import Foundation
import MapbookCore
import TileFormats
import TerminalCanvas
import Geometry

/// Where `MapComposer` draws a map: the terminal's cells (`MapCanvas`: braille dots over half-block
/// pixels) or true pixels (PixelRender's Cairo picture). One pass decides what shows — which style
/// layers, features, colours, widths, dashes and names — for both; a surface only says how a fill,
/// a line, a point and a picture look on it. Coordinates are the surface's own "dots": a cell is
/// 2×4 of them on `MapCanvas`, and a pixel is one on a picture.
public protocol MapSurface {
    var dotWidth: Int { get }
    var dotHeight: Int { get }
    /// How many dots one terminal cell spans: names are written in cells over the drawing.
    var dotsPerCell: (x: Double, y: Double) { get }
    /// Lines and fills stay inside this box when set: a vector tile's own square, so what a tile
    /// carries past its edge (its buffer, the cut edges there) is not drawn.
    var clipBox: (minX: Double, minY: Double, maxX: Double, maxY: Double)? { get set }
    /// The whole surface in one colour (a style's background, the grey where there is no data).
    mutating func paintAll(_ color: StyleColor)
    /// Rings filled by the even-odd rule; with `alpha` below 1 what is below shows through.
    mutating func fill(rings: [[(x: Double, y: Double)]], color: StyleColor, alpha: Double)
    /// Consecutive points joined (back to the first when `closed`), `width` style pixels wide,
    /// dashed by `dasharray` (in line widths, as styles give it; empty for solid).
    mutating func stroke(_ points: [(x: Double, y: Double)], color: StyleColor, width: Double, dasharray: [Double], closed: Bool)
    /// A round point `radius` style pixels across its half.
    mutating func dot(at point: (x: Double, y: Double), color: StyleColor, radius: Double)
    /// Raster tiles, each where its key puts it, the deepest level showing wherever it has a tile,
    /// blended by `opacity` (and each pixel's alpha) with what is below.
    mutating func drawTiles(_ tiles: [TileKey: RasterImage], projection: MapProjection, opacity: Double)
    /// A server's picture, placed by its box in metres; whether any of it fell in the view.
    mutating func drawImage(_ placed: PlacedImage, projection: MapProjection) -> Bool
    /// Whether a fill spanning `top...bottom` can show at all: one too thin for the surface's
    /// pixels is passed over before its rings are even built.
    func fillShows(from top: Double, to bottom: Double) -> Bool
    /// Whether what lies in `box` (in dots) is drawn at all: a pan's picture draws only what came
    /// into view (the rest is the last picture's), so lines and fills elsewhere are passed over.
    func draws(in box: (minX: Double, minY: Double, maxX: Double, maxY: Double)) -> Bool
}

extension MapSurface {
    /// The cell a dot lies in, from the surface's top left.
    func cell(_ x: Double, _ y: Double) -> (column: Int, row: Int) {
        ((x / dotsPerCell.x).clampedInt(rounding: .down), (y / dotsPerCell.y).clampedInt(rounding: .down))
    }
}

// MARK: The terminal's cells

extension MapCanvas: MapSurface {
    public var dotsPerCell: (x: Double, y: Double) { (2, 4) }

    /// The cells are drawn whole, every time.
    public func draws(in box: (minX: Double, minY: Double, maxX: Double, maxY: Double)) -> Bool { true }

    public mutating func paintAll(_ color: StyleColor) {
        fill(from: (0, 0), to: (Double(dotWidth), Double(dotHeight)), color: color.paletteIndex)
    }

    /// A see-through fill is blended per half-cell pixel with the palette colour below, to the
    /// nearest palette colour (a fill's 257 blends — over each colour and over nothing — worked out
    /// once per drawing); below 5 % it is not drawn.
    public mutating func fill(rings: [[(x: Double, y: Double)]], color: StyleColor, alpha: Double) {
        guard alpha < 0.95 else { return fill(rings: rings, color: color.paletteIndex) }
        guard alpha >= 0.05 else { return }
        let key = BlendKey(color: color, alpha: alpha)
        var table = blends[key] ?? [Int16](repeating: -1, count: 257)
        fill(rings: rings) { below in
            let slot = below.map { Int($0) } ?? 256
            if table[slot] >= 0 { return PaletteIndex(table[slot]) }
            let blended = Self.blend(color, alpha: alpha, over: below)
            table[slot] = Int16(blended)
            return blended
        }
        blends[key] = table
    }

    static func blend(_ color: StyleColor, alpha: Double, over below: PaletteIndex?) -> PaletteIndex {
        guard let below else { return color.paletteIndex }
        let under = XtermPalette.rgb(below)
        func mix(_ a: Double, _ b: Int) -> Int { (a * alpha + Double(b) * (1 - alpha)).clampedInt(in: 0...255) }
        return XtermPalette.nearest(r: mix(color.r, under.r), g: mix(color.g, under.g), b: mix(color.b, under.b))
    }

    /// Braille shows one to three dots across (`LineStyle`).
    public mutating func stroke(_ points: [(x: Double, y: Double)], color: StyleColor, width: Double, dasharray: [Double], closed: Bool) {
        polyline(points, color: color.paletteIndex, style: LineStyle(width: width, dasharray: dasharray), closed: closed)
    }

    /// One dot, whatever its radius: a braille dot is already several style pixels.
    public mutating func dot(at point: (x: Double, y: Double), color: StyleColor, radius: Double) {
        guard point.x.isFinite, point.y.isFinite, abs(point.x) < 1e7, abs(point.y) < 1e7 else { return }
        setDot(x: point.x.clampedInt(rounding: .down), y: point.y.clampedInt(rounding: .down), color: color.paletteIndex)
    }

    /// Each half-cell pixel takes the colour of the tile pixel under its centre.
    public mutating func drawTiles(_ tiles: [TileKey: RasterImage], projection: MapProjection, opacity: Double) {
        let zooms = Set(tiles.keys.map(\.z)).sorted(by: >)
        var blender = PixelBlender()
        for py in 0..<(rows * 2) {
            let my = projection.top - (Double(py) * 2 + 1) / projection.scale
            for px in 0..<columns {
                let mx = projection.left + (Double(px) * 2 + 1) / projection.scale
                // The deepest level that has a tile here wins.
                for z in zooms {
                    let n = Double(1 << z), span = 2 * WebMercator.originShift / n
                    let fx = (mx + WebMercator.originShift) / span, fy = (WebMercator.originShift - my) / span
                    guard fx >= 0, fy >= 0, fx < n, fy < n,
                          let image = tiles[TileKey(z: z, x: Int(fx), y: Int(fy))] else { continue }
                    let ix = ((fx - fx.rounded(.down)) * Double(image.width)).clampedInt(in: 0...image.width - 1, rounding: .down)
                    let iy = ((fy - fy.rounded(.down)) * Double(image.height)).clampedInt(in: 0...image.height - 1, rounding: .down)
                    blender.blend(image.pixel(x: ix, y: iy), opacity: opacity, atX: px, y: py, into: &self)
                    break
                }
            }
        }
    }

    /// Each half-cell pixel from the image pixel under its centre.
    public mutating func drawImage(_ placed: PlacedImage, projection: MapProjection) -> Bool {
        let image = placed.image
        let spanX = placed.right - placed.left, spanY = placed.top - placed.bottom
        guard spanX > 0, spanY > 0, image.width > 0, image.height > 0 else { return false }
        var blender = PixelBlender()
        var drawn = false
        for py in 0..<(rows * 2) {
            let my = projection.top - (Double(py) * 2 + 1) / projection.scale
            let fy = (placed.top - my) / spanY
            guard fy >= 0, fy < 1 else { continue }
            let iy = (fy * Double(image.height)).clampedInt(in: 0...image.height - 1, rounding: .down)
            for px in 0..<columns {
                let mx = projection.left + (Double(px) * 2 + 1) / projection.scale
                let fx = (mx - placed.left) / spanX
                guard fx >= 0, fx < 1 else { continue }
                blender.blend(image.pixel(x: (fx * Double(image.width)).clampedInt(in: 0...image.width - 1, rounding: .down), y: iy),
                              opacity: placed.opacity, atX: px, y: py, into: &self)
                drawn = true
            }
        }
        return drawn
    }

    /// A fill shows only where it covers a fill pixel's centre (see `fill(rings:)`): a box between
    /// two rows of centres covers none.
    public func fillShows(from top: Double, to bottom: Double) -> Bool { Self.fillCrossesRows(from: top, to: bottom) }
}

/// A see-through fill's colour and alpha: the key of its blends.
struct BlendKey: Hashable {
    let r: Double, g: Double, b: Double, alpha: Double
    init(color: StyleColor, alpha: Double) { r = color.r; g = color.g; b = color.b; self.alpha = alpha }
}

/// Lays a picture's pixel over a canvas pixel: blended by the layer's opacity and the pixel's alpha
/// with what is below, to the nearest palette colour (remembered: pictures repeat their colours).
struct PixelBlender {
    private var cache: [Int: PaletteIndex] = [:]

    mutating func blend(_ p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8), opacity: Double, atX px: Int, y py: Int, into canvas: inout MapCanvas) {
        let alpha = opacity * Double(p.a) / 255
        let below = alpha < 0.85 ? canvas.pixel(x: px, y: py) : nil
        // Over nothing, a pixel shows only when it is more there than not.
        guard alpha >= (below == nil ? 0.5 : 0.15) else { return }
        // The cache's key: the pixel, and what it is blended over.
        let packed = Int(p.r) << 16 | Int(p.g) << 8 | Int(p.b) | (below.map { (Int($0) + 1) << 24 } ?? 0)
        let index = cache[packed] ?? {
            var (r, g, b) = (Double(p.r), Double(p.g), Double(p.b))
            if let below {
                let under = XtermPalette.rgb(below)
                r = r * alpha + Double(under.r) * (1 - alpha)
                g = g * alpha + Double(under.g) * (1 - alpha)
                b = b * alpha + Double(under.b) * (1 - alpha)
            }
            return XtermPalette.nearest(r: r.clampedInt(in: 0...255), g: g.clampedInt(in: 0...255), b: b.clampedInt(in: 0...255))
        }()
        cache[packed] = index
        canvas.setPixel(x: px, y: py, color: index)
    }
}
