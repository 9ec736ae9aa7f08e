import Foundation
import MapbookCore
import TileFormats
import TerminalCanvas
import Geometry

/// Everything one map drawing needs. A value: `MapComposer.draw` is a pure function of it.
public struct MapScene: Sendable {
    public var viewport: MapViewport
    public var mode: MapMode
    public var style: MapStyle
    /// Tiles at whatever levels were at hand; each is placed by its own key.
    public var tiles: [MapTile]
    /// The tile size in pixels of the source (512 for vector services): style zooms follow it.
    public var tileSize: Int
    /// Source layers switched off in the layer list.
    public var hiddenLayers: Set<String>
    /// Shown at the bottom right, already sanitized.
    public var attribution: String?
    public var colors: Bool
    /// Drawn on a light terminal background (`MapRequest.lightTheme`).
    public var lightTheme: Bool
    /// A basemap layer's opacity over the layers below it (raster pixels are blended by it).
    public var opacity: Double

    public init(viewport: MapViewport, mode: MapMode = .braille, style: MapStyle = .plain, tiles: [MapTile],
                tileSize: Int = 512, hiddenLayers: Set<String> = [], attribution: String? = nil, colors: Bool = true,
                lightTheme: Bool = false, opacity: Double = 1) {
        self.viewport = viewport; self.mode = mode; self.style = style; self.tiles = tiles; self.tileSize = tileSize
        self.hiddenLayers = hiddenLayers; self.attribution = attribution; self.colors = colors; self.lightTheme = lightTheme
        self.opacity = opacity
    }

    /// The style has a background layer at this zoom over vector tiles: it covers the whole view,
    /// so nothing need lie under it.
    var paintsBackground: Bool {
        let zoom = styleZoom
        return tiles.contains { !$0.isRaster } && style.layers.contains { layer in
            layer.type == .background && layer.isVisible && layer.minZoom.map { zoom >= $0 } != false
                && layer.maxZoom.map { zoom < $0 } != false
        }
    }

    /// The zoom the style's `minzoom`/`maxzoom` and zoom functions see.
    public var styleZoom: Double { viewport.zoom - log2(Double(max(tileSize, 1)) / 256) }
}

/// A picture a server drew for a box of the map (a map service's `export`): placed by its own box in
/// Web Mercator metres, which may be an earlier view's while a new one is asked for.
public struct PlacedImage: Sendable {
    public var image: RasterImage
    public var left: Double, top: Double, right: Double, bottom: Double
    public var opacity: Double
    /// How many of the frame's feature layers are drawn under it (the rest over it).
    public var featuresBelow: Int

    public init(image: RasterImage, left: Double, top: Double, right: Double, bottom: Double, opacity: Double = 1, featuresBelow: Int = 0) {
        self.image = image; self.left = left; self.top = top; self.right = right; self.bottom = bottom; self.opacity = opacity
        self.featuresBelow = featuresBelow
    }
}

/// What a drawing left out, for the status bar.
public struct MapDrawReport: Sendable, Equatable {
    public var featuresDrawn = 0
    /// Raster tiles, and servers' pictures, that showed.
    public var rasterTilesDrawn = 0
    /// Features whose geometry could not be decoded.
    public var damagedFeatures = 0
    /// Names placed: by `MapComposer.draw`, which places them (a composed picture's are placed when shown).
    public var labelsPlaced = 0

    public init() {}
}

/// Draws map scenes, bottom first: raster tiles as half-block pixels (blended by the layer's
/// opacity), then each style's layers in order (background, fills, lines, circles). Their names,
/// feature layers' marks and the attribution go into the picture's `LabelPass`, placed last.
public enum MapComposer {
    /// Draws and names the map in `rect` in one go.
    @discardableResult
    public static func draw(_ scene: MapScene, into frame: inout Frame, rect: Rect) -> MapDrawReport {
        draw([scene], into: &frame, rect: rect)
    }

    /// `compose`, then its names placed, into `rect`.
    @discardableResult
    public static func draw(_ scenes: [MapScene], images: [PlacedImage] = [], features: [FeatureLayerScene] = [], referenceFrom: Int? = nil,
                            into frame: inout Frame, rect: Rect) -> MapDrawReport {
        let (names, composed) = compose(scenes, images: images, features: features, referenceFrom: referenceFrom, into: &frame, rect: rect)
        var report = composed
        report.labelsPlaced = names.draw(into: &frame, rect: rect, colors: scenes.first?.colors ?? true).count
        return report
    }

    /// Several layers of one view (a basemap and its reference layers), drawn into `rect`, and the
    /// pass that will name them: the first scene sets the viewport, mode and colours for all.
    /// Operational `images` and then `features` go over the basemap and under the scenes from
    /// `referenceFrom` on (its reference layers); the features' names rank above its.
    public static func compose(_ scenes: [MapScene], images: [PlacedImage] = [], features: [FeatureLayerScene] = [],
                               referenceFrom: Int? = nil, into frame: inout Frame, rect: Rect) -> (names: LabelPass, report: MapDrawReport) {
        var report = MapDrawReport()
        guard !rect.isEmpty, let first = scenes.first else { return (LabelPass(), report) }
        let (columns, rows) = (rect.width, rect.height)
        let projection = first.viewport.projection(columns: columns, rows: rows)
        var canvas = MapCanvas(columns: columns, rows: rows)
        canvas.linesAsPixels = first.mode == .blocks
        var names = LabelPass()
        let referenceStart = min(referenceFrom ?? scenes.count, scenes.count)
        for (index, scene) in scenes.enumerated() {
            // Where the basemap has nothing (no tile at any level, past its data, beyond the poles,
            // not reachable; a vector style without a background layer), a neutral grey shows, never
            // the terminal's own background. A vector style's background paints over it.
            if index == 0, !scene.paintsBackground {
                canvas.fill(from: (0, 0), to: (Double(canvas.dotWidth), Double(canvas.dotHeight)), color: noData(first))
            }
            if index == referenceStart {
                drawOperational(images, features, projection: projection, canvas: &canvas, colors: first.colors, report: &report)
            }
            draw(scene, projection: projection, into: &canvas, labels: &names.labels, labelOrder: index * 100_000, report: &report)
        }
        if referenceStart == scenes.count {
            drawOperational(images, features, projection: projection, canvas: &canvas, colors: first.colors, report: &report)
        }
        canvas.draw(into: &frame, at: (rect.x, rect.y), glyphs: first.mode == .ascii ? .ascii : .unicode, colors: first.colors,
                    shadeWithoutColor: true)
        let points = FeatureLayerPainter.marks(features, projection: projection, columns: columns, rows: rows, ascii: first.mode == .ascii,
                                               scale: first.viewport.scale, order: scenes.count * 100_000)
        report.featuresDrawn += points.drawn
        names.marks = points.marks
        names.labels += points.labels
        let credits = scenes.compactMap(\.attribution).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        names.attribution = credits.isEmpty ? nil : credits.joined(separator: " | ")
        return (names, report)
    }

    private static func drawOperational(_ images: [PlacedImage], _ features: [FeatureLayerScene], projection: MapProjection,
                                        canvas: inout MapCanvas, colors: Bool, report: inout MapDrawReport) {
        var blender = PixelBlender()
        // Pictures and feature layers in their order: each picture over the feature layers under it.
        var pending = images.enumerated().sorted { ($0.element.featuresBelow, $0.offset) < ($1.element.featuresBelow, $1.offset) }.map(\.element)[...]
        for index in 0...features.count {
            while let image = pending.first, image.featuresBelow <= index || index == features.count {
                pending.removeFirst()
                if drawImage(image, projection: projection, into: &canvas, blender: &blender) { report.rasterTilesDrawn += 1 }
            }
            guard index < features.count else { break }
            report.featuresDrawn += FeatureLayerPainter.drawShapes([features[index]], projection: projection, canvas: &canvas, colors: colors)
        }
    }

    /// The grey where the basemap has nothing to draw: a mid grey on a dark terminal, a pale one on
    /// a light terminal — apart from the terminal's own background either way, and from a map's
    /// colours. Without colour, the pale one, whose shade is a sparse dotted texture (`.`): "no data",
    /// never blank like light land.
    static func noData(_ scene: MapScene) -> PaletteIndex {
        scene.colors && !scene.lightTheme ? noDataOnDark : noDataOnLight
    }

    static let noDataOnDark: PaletteIndex = 239
    static let noDataOnLight: PaletteIndex = 253

    private static func draw(_ scene: MapScene, projection: MapProjection, into canvas: inout MapCanvas,
                             labels: inout [MapLabel], labelOrder: Int, report: inout MapDrawReport) {
        let zoom = scene.styleZoom
        var base = StyleColor(r: 242, g: 239, b: 233)
        report.rasterTilesDrawn += drawRasters(scene.tiles, projection: projection, into: &canvas, opacity: scene.opacity,
                                               hidden: scene.hiddenLayers.contains(rasterLayerName))
        let vectorTiles = scene.tiles.compactMap { tile -> (MapTile, [String: PreparedLayer])? in
            if case .vector(let layers) = tile.content { return (tile, layers) }
            return nil
        }
        report.damagedFeatures += vectorTiles.reduce(0) { $0 + $1.0.damagedFeatures }
        guard !vectorTiles.isEmpty else { return }
        for (order, layer) in scene.style.layers.enumerated() where layer.isVisible {
            if let minZoom = layer.minZoom, zoom < minZoom { continue }
            if let maxZoom = layer.maxZoom, zoom >= maxZoom { continue }
            if let source = layer.sourceLayer, scene.hiddenLayers.contains(source) { continue }
            let painter = LayerPainter(layer: layer, zoom: zoom, base: base)
            if layer.type == .background {
                if let color = painter.color("background-color", opacity: "background-opacity") {
                    base = color
                    canvas.fill(from: (0, 0), to: (Double(canvas.dotWidth), Double(canvas.dotHeight)), color: color.paletteIndex)
                }
                continue
            }
            guard [.fill, .line, .circle, .symbol, .fillExtrusion].contains(layer.type) else { continue }
            for (tile, layers) in vectorTiles {
                let sources = layer.sourceLayer.map { layers[$0].map { [$0] } ?? [] } ?? Array(layers.values)
                for source in sources {
                    report.featuresDrawn += paint(source, of: tile.key, with: painter, filter: scene.style.filters[order],
                                                  order: labelOrder + order, projection: projection, canvas: &canvas, labels: &labels)
                }
            }
        }
    }

    /// The layer list's name for raster tiles.
    public static let rasterLayerName = "Tiles"

    // MARK: Raster tiles

    /// Each half-cell pixel takes the colour of the tile pixel under its centre, blended by the
    /// layer's opacity (and the pixel's alpha) with what is below.
    /// Returns how many tiles it drew from.
    private static func drawRasters(_ tiles: [MapTile], projection: MapProjection, into canvas: inout MapCanvas, opacity: Double,
                                    hidden: Bool) -> Int {
        var byKey: [TileKey: RasterImage] = [:]
        var zooms = Set<Int>()
        for tile in tiles {
            if case .raster(let image) = tile.content { byKey[tile.key] = image; zooms.insert(tile.key.z) }
        }
        guard !byKey.isEmpty, !hidden else { return 0 }
        var blender = PixelBlender()
        for py in 0..<(canvas.rows * 2) {
            let my = projection.top - (Double(py) * 2 + 1) / projection.scale
            for px in 0..<canvas.columns {
                let mx = projection.left + (Double(px) * 2 + 1) / projection.scale
                // The deepest level that has a tile here wins.
                for z in zooms.sorted(by: >) {
                    let n = Double(1 << z), span = 2 * WebMercator.originShift / n
                    let fx = (mx + WebMercator.originShift) / span, fy = (WebMercator.originShift - my) / span
                    guard fx >= 0, fy >= 0, fx < n, fy < n,
                          let image = byKey[TileKey(z: z, x: Int(fx), y: Int(fy))] else { continue }
                    let ix = ((fx - fx.rounded(.down)) * Double(image.width)).clampedInt(in: 0...image.width - 1, rounding: .down)
                    let iy = ((fy - fy.rounded(.down)) * Double(image.height)).clampedInt(in: 0...image.height - 1, rounding: .down)
                    blender.blend(image.pixel(x: ix, y: iy), opacity: opacity, atX: px, y: py, into: &canvas)
                    break
                }
            }
        }
        return byKey.count
    }

    /// A server's picture over what is drawn, each half-cell pixel from the image pixel under its
    /// centre; whether any of it fell in the view.
    private static func drawImage(_ placed: PlacedImage, projection: MapProjection, into canvas: inout MapCanvas,
                                  blender: inout PixelBlender) -> Bool {
        let image = placed.image
        let spanX = placed.right - placed.left, spanY = placed.top - placed.bottom
        guard spanX > 0, spanY > 0, image.width > 0, image.height > 0 else { return false }
        var drawn = false
        for py in 0..<(canvas.rows * 2) {
            let my = projection.top - (Double(py) * 2 + 1) / projection.scale
            let fy = (placed.top - my) / spanY
            guard fy >= 0, fy < 1 else { continue }
            let iy = (fy * Double(image.height)).clampedInt(in: 0...image.height - 1, rounding: .down)
            for px in 0..<canvas.columns {
                let mx = projection.left + (Double(px) * 2 + 1) / projection.scale
                let fx = (mx - placed.left) / spanX
                guard fx >= 0, fx < 1 else { continue }
                blender.blend(image.pixel(x: (fx * Double(image.width)).clampedInt(in: 0...image.width - 1, rounding: .down), y: iy), opacity: placed.opacity,
                              atX: px, y: py, into: &canvas)
                drawn = true
            }
        }
        return drawn
    }

    // MARK: Vector layers

    private static func paint(_ source: PreparedLayer, of key: TileKey, with painter: LayerPainter, filter: FeatureFilter,
                              order: Int, projection: MapProjection, canvas: inout MapCanvas, labels: inout [MapLabel]) -> Int {
        let layer = source.layer
        let span = 2 * WebMercator.originShift / Double(1 << min(max(key.z, 0), 30))
        let extent = Double(max(layer.extent, 1))
        let k = span * projection.scale / extent
        let ox = (-WebMercator.originShift + Double(key.x) * span - projection.left) * projection.scale
        let oy = (projection.top - (WebMercator.originShift - Double(key.y) * span)) * projection.scale
        // A tile wholly off the canvas (with its buffer) draws nothing.
        let tileDots = span * projection.scale
        if ox > Double(canvas.dotWidth) + tileDots || oy > Double(canvas.dotHeight) + tileDots
            || ox + 2 * tileDots < 0 || oy + 2 * tileDots < 0 { return 0 }
        func dot(_ p: MVTPoint) -> (x: Double, y: Double) { (ox + Double(p.x) * k, oy + Double(p.y) * k) }
        canvas.clipBox = (ox, oy, ox + tileDots, oy + tileDots)
        defer { canvas.clipBox = nil }

        var drawn = 0
        let style = painter.layer
        let filter = filter.bound(to: source)
        if case .constant(false) = filter { return 0 }
        // By index, and the feature copied out only once it passes: copying each of the features a
        // dense style's hundreds of filters look at was a fifth of a drawing (retains of its arrays).
        for index in layer.features.indices {
            // The feature's box in dots: wholly off the canvas, it draws nothing (no line, fill,
            // circle or label), so its filter is not even asked.
            let bounds = source.bounds[index]
            let box = (minX: ox + Double(bounds.minX) * k, minY: oy + Double(bounds.minY) * k,
                       maxX: ox + Double(bounds.maxX) * k, maxY: oy + Double(bounds.maxY) * k)
            guard box.maxX >= -2, box.maxY >= -2, box.minX <= Double(canvas.dotWidth) + 2, box.minY <= Double(canvas.dotHeight) + 2,
                  layer.features[index].geometryError == nil,
                  filter.passes(FeatureFilter.Feature(type: layer.features[index].type, id: layer.features[index].id,
                                                      tags: layer.features[index].tags),
                                in: source, zoom: painter.zoom) else { continue }
            let feature = layer.features[index]
            let context = FeatureContext(zoom: painter.zoom, feature: feature, in: source)
            let geometry = feature.geometry
            var start = 0
            func parts(_ body: (ArraySlice<MVTPoint>) -> Void) {
                start = 0
                for end in geometry.partEnds where end <= geometry.points.count && end >= start {
                    body(geometry.points[start..<end])
                    start = end
                }
            }
            switch style.type {
            case .fill, .fillExtrusion:
                guard feature.type == .polygon else { continue }
                let fillKey = style.type == .fill ? "fill-color" : "fill-extrusion-color"
                let opacityKey = style.type == .fill ? "fill-opacity" : "fill-extrusion-opacity"
                // A fill shows only where it covers a fill pixel's centre (see `MapCanvas.fill`): a box
                // between two rows of centres covers none.
                if MapCanvas.fillCrossesRows(from: box.minY, to: box.maxY),
                   let color = painter.color(fillKey, opacity: opacityKey, context) {
                    var rings: [[(x: Double, y: Double)]] = []
                    parts { rings.append($0.map(dot)) }
                    canvas.fill(rings: rings, color: color.paletteIndex)
                }
                if let outline = painter.color("fill-outline-color", opacity: opacityKey, context) {
                    parts { ring in canvas.polyline(ring.map(dot), color: outline.paletteIndex, closed: true) }
                }
            case .line:
                guard feature.type == .lineString || feature.type == .polygon,
                      let color = painter.color("line-color", opacity: "line-opacity", context) else { continue }
                let style = painter.lineStyle(context)
                parts { line in
                    canvas.polyline(line.map(dot), color: color.paletteIndex, style: style, closed: feature.type == .polygon)
                }
            case .circle:
                guard feature.type == .point, let color = painter.color("circle-color", opacity: "circle-opacity", context) else { continue }
                for p in geometry.points {
                    let d = dot(p)
                    guard d.x.isFinite, d.y.isFinite, abs(d.x) < 1e7, abs(d.y) < 1e7 else { continue }
                    canvas.setDot(x: d.x.clampedInt(rounding: .down), y: d.y.clampedInt(rounding: .down), color: color.paletteIndex)
                }
            case .symbol:
                guard let text = painter.label(context) else { continue }
                let d: (x: Double, y: Double)
                if feature.type == .lineString {
                    // A road's or river's name lies along it where a stretch of it runs level for the
                    // name's length.
                    guard let along = lineLabelAnchor(geometry, dot: dot, cells: DisplayWidth.of(text)) else { continue }
                    d = along
                } else {
                    guard let anchor = labelAnchor(geometry, type: feature.type) else { continue }
                    d = dot(anchor)
                }
                guard d.x >= 0, d.y >= 0, d.x < Double(canvas.dotWidth), d.y < Double(canvas.dotHeight) else { continue }
                let color = painter.color("text-color", opacity: "text-opacity", context) ?? StyleColor(r: 0, g: 0, b: 0)
                let (column, row) = (Int(d.x / 2), Int(d.y / 4))
                // A point's name starts just right of it; a line's or an area's is centred.
                labels.append(feature.type == .point
                    ? MapLabel(text: text, spots: [MapLabel.Spot(column: column + 1, row: row)], rank: .map(order), color: color.paletteIndex, bold: true)
                    : .centred(column: column, row: row, text: text, rank: .map(order), color: color.paletteIndex))
            default:
                continue
            }
            drawn += 1
        }
        return drawn
    }
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
