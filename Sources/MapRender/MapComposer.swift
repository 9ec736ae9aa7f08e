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
    public static func compose(_ scenes: [MapScene], images: [PlacedImage] = [], features: [FeatureLayerScene] = [],
                               referenceFrom: Int? = nil, into frame: inout Frame, rect: Rect) -> (names: LabelPass, report: MapDrawReport) {
        guard !rect.isEmpty, let first = scenes.first else { return (LabelPass(), MapDrawReport()) }
        var canvas = MapCanvas(columns: rect.width, rows: rect.height)
        canvas.linesAsPixels = first.mode == .blocks
        let drawn = compose(scenes, images: images, features: features, referenceFrom: referenceFrom, onto: &canvas,
                            projection: first.viewport.projection(columns: rect.width, rows: rect.height))
        canvas.draw(into: &frame, at: (rect.x, rect.y), glyphs: first.mode == .ascii ? .ascii : .unicode, colors: first.colors,
                    shadeWithoutColor: true)
        return drawn
    }

    /// The drawing pass itself, onto any surface whose top left `projection` places: the basemap's
    /// layers bottom first; operational `images` and then `features` over the basemap and under the
    /// scenes from `referenceFrom` on (its reference layers); the names for the cells over it, the
    /// features' ranked above the basemap's.
    public static func compose<Surface: MapSurface>(_ scenes: [MapScene], images: [PlacedImage] = [], features: [FeatureLayerScene] = [],
                                                    referenceFrom: Int? = nil, onto surface: inout Surface,
                                                    projection: MapProjection) -> (names: LabelPass, report: MapDrawReport) {
        var report = MapDrawReport()
        guard let first = scenes.first, surface.dotWidth > 0, surface.dotHeight > 0 else { return (LabelPass(), report) }
        var names = LabelPass()
        let referenceStart = min(referenceFrom ?? scenes.count, scenes.count)
        for (index, scene) in scenes.enumerated() {
            // Where the basemap has nothing (no tile at any level, past its data, beyond the poles,
            // not reachable; a vector style without a background layer), a neutral grey shows, never
            // the terminal's own background. A vector style's background paints over it.
            if index == 0, !scene.paintsBackground { surface.paintAll(noData(first)) }
            if index == referenceStart {
                drawOperational(images, features, projection: projection, surface: &surface, colors: first.colors, report: &report)
            }
            draw(scene, projection: projection, onto: &surface, labels: &names.labels, labelOrder: index * 100_000, report: &report)
        }
        if referenceStart == scenes.count {
            drawOperational(images, features, projection: projection, surface: &surface, colors: first.colors, report: &report)
        }
        let columns = (Double(surface.dotWidth) / surface.dotsPerCell.x).clampedInt(rounding: .down)
        let rows = (Double(surface.dotHeight) / surface.dotsPerCell.y).clampedInt(rounding: .down)
        let points = FeatureLayerPainter.marks(features, projection: projection, dotsPerCell: surface.dotsPerCell, columns: columns, rows: rows,
                                               ascii: first.mode == .ascii, scale: first.viewport.scale, order: scenes.count * 100_000)
        report.featuresDrawn += points.drawn
        names.marks = points.marks
        names.labels += points.labels
        let credits = scenes.compactMap(\.attribution).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        names.attribution = credits.isEmpty ? nil : credits.joined(separator: " | ")
        return (names, report)
    }

    private static func drawOperational<Surface: MapSurface>(_ images: [PlacedImage], _ features: [FeatureLayerScene], projection: MapProjection,
                                                              surface: inout Surface, colors: Bool, report: inout MapDrawReport) {
        // Pictures and feature layers in their order: each picture over the feature layers under it.
        var pending = images.enumerated().sorted { ($0.element.featuresBelow, $0.offset) < ($1.element.featuresBelow, $1.offset) }.map(\.element)[...]
        for index in 0...features.count {
            while let image = pending.first, image.featuresBelow <= index || index == features.count {
                pending.removeFirst()
                if surface.drawImage(image, projection: projection) { report.rasterTilesDrawn += 1 }
            }
            guard index < features.count else { break }
            report.featuresDrawn += FeatureLayerPainter.drawShapes([features[index]], projection: projection, surface: &surface, colors: colors)
        }
    }

    /// The grey where the basemap has nothing to draw: a mid grey on a dark terminal, a pale one on
    /// a light terminal — apart from the terminal's own background either way, and from a map's
    /// colours. Without colour, the pale one, whose shade is a sparse dotted texture (`.`): "no data",
    /// never blank like light land.
    static func noData(_ scene: MapScene) -> StyleColor {
        let rgb = XtermPalette.rgb(scene.colors && !scene.lightTheme ? noDataOnDark : noDataOnLight)
        return StyleColor(r: Double(rgb.r), g: Double(rgb.g), b: Double(rgb.b))
    }

    static let noDataOnDark: PaletteIndex = 239
    static let noDataOnLight: PaletteIndex = 253

    private static func draw<Surface: MapSurface>(_ scene: MapScene, projection: MapProjection, onto surface: inout Surface,
                                                  labels: inout [MapLabel], labelOrder: Int, report: inout MapDrawReport) {
        let zoom = scene.styleZoom
        var base = StyleColor(r: 242, g: 239, b: 233)
        var rasters: [TileKey: RasterImage] = [:]
        for tile in scene.tiles {
            if case .raster(let image) = tile.content { rasters[tile.key] = image }
        }
        if !rasters.isEmpty, !scene.hiddenLayers.contains(rasterLayerName) {
            surface.drawTiles(rasters, projection: projection, opacity: scene.opacity)
            report.rasterTilesDrawn += rasters.count
        }
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
                    surface.paintAll(color)
                }
                continue
            }
            guard [.fill, .line, .circle, .symbol, .fillExtrusion].contains(layer.type) else { continue }
            for (tile, layers) in vectorTiles {
                let sources = layer.sourceLayer.map { layers[$0].map { [$0] } ?? [] } ?? Array(layers.values)
                for source in sources {
                    let place = TilePlace(tile.key, extent: source.layer.extent, projection: projection)
                    // A tile wholly off the canvas (with its buffer) draws nothing.
                    guard place.reaches(width: surface.dotWidth, height: surface.dotHeight) else { continue }
                    if layer.type == .symbol {
                        report.featuresDrawn += placeNames(source, at: place, style: scene.style, layer: order, with: painter,
                                                           order: labelOrder + order, surface: surface, labels: &labels)
                    } else {
                        report.featuresDrawn += paint(source, at: place, with: painter, filter: scene.style.filters[order], surface: &surface)
                    }
                }
            }
        }
    }

    /// The layer list's name for raster tiles.
    public static let rasterLayerName = "Tiles"

    // MARK: Vector layers

    /// Lines, fills and circles of one tile's layer: those that show and are drawn at all (what a
    /// pan keeps is not drawn again).
    private static func paint<Surface: MapSurface>(_ source: PreparedLayer, at place: TilePlace, with painter: LayerPainter, filter: FeatureFilter,
                                                   surface canvas: inout Surface) -> Int {
        let layer = source.layer
        func dot(_ p: MVTPoint) -> (x: Double, y: Double) { place.dot(p) }
        canvas.clipBox = (place.x, place.y, place.x + place.side, place.y + place.side)
        defer { canvas.clipBox = nil }

        var drawn = 0
        let style = painter.layer
        // How far past its box a feature's drawing reaches: half the widest line, a point's largest radius.
        let reach = 34.0
        let filter = filter.bound(to: source)
        if case .constant(false) = filter { return 0 }
        // By index, and the feature copied out only once it passes: copying each of the features a
        // dense style's hundreds of filters look at was a fifth of a drawing (retains of its arrays).
        for index in layer.features.indices {
            // The feature's box in dots: wholly off the canvas, it draws nothing, so its filter is
            // not even asked; nor where the canvas keeps its pixels.
            let box = place.box(source.bounds[index])
            guard place.shows(box, on: canvas),
                  // Where the surface keeps what it has, nothing is drawn again.
                  canvas.draws(in: (box.minX - reach, box.minY - reach, box.maxX + reach, box.maxY + reach)),
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
                if canvas.fillShows(from: box.minY, to: box.maxY),
                   let color = painter.color(fillKey, opacity: opacityKey, context) {
                    var rings: [[(x: Double, y: Double)]] = []
                    parts { rings.append($0.map(dot)) }
                    canvas.fill(rings: rings, color: color, alpha: 1)
                }
                if let outline = painter.color("fill-outline-color", opacity: opacityKey, context) {
                    parts { ring in canvas.stroke(ring.map(dot), color: outline, width: 1, dasharray: [], closed: true) }
                }
            case .line:
                guard feature.type == .lineString || feature.type == .polygon,
                      let color = painter.color("line-color", opacity: "line-opacity", context) else { continue }
                let (width, dasharray) = painter.lineWidth(context)
                parts { line in
                    canvas.stroke(line.map(dot), color: color, width: width, dasharray: dasharray, closed: feature.type == .polygon)
                }
            case .circle:
                guard feature.type == .point, let color = painter.color("circle-color", opacity: "circle-opacity", context) else { continue }
                let radius = painter.number("circle-radius", context) ?? 5
                for p in geometry.points { canvas.dot(at: dot(p), color: color, radius: radius) }
            default:
                continue
            }
            drawn += 1
        }
        return drawn
    }
}

/// Where a vector tile lies on a surface: its units `k` dots each, its top left corner at (`x`, `y`) dots.
struct TilePlace {
    let x: Double, y: Double, k: Double
    /// The tile's side in dots.
    let side: Double

    init(_ key: TileKey, extent: Int, projection: MapProjection) {
        let span = 2 * WebMercator.originShift / Double(1 << min(max(key.z, 0), 30))
        side = span * projection.scale
        k = side / Double(max(extent, 1))
        x = (-WebMercator.originShift + Double(key.x) * span - projection.left) * projection.scale
        y = (projection.top - (WebMercator.originShift - Double(key.y) * span)) * projection.scale
    }

    func dot(_ p: MVTPoint) -> (x: Double, y: Double) { (x + Double(p.x) * k, y + Double(p.y) * k) }

    /// A feature's box in dots.
    func box(_ bounds: FeatureBounds) -> (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        (x + Double(bounds.minX) * k, y + Double(bounds.minY) * k, x + Double(bounds.maxX) * k, y + Double(bounds.maxY) * k)
    }

    /// Whether any of the tile, with a buffer as wide as the tile, reaches a surface of `width × height` dots.
    func reaches(width: Int, height: Int) -> Bool {
        x <= Double(width) + side && y <= Double(height) + side && x + 2 * side >= 0 && y + 2 * side >= 0
    }

    /// Whether a feature's box touches the surface (within two dots).
    func shows(_ box: (minX: Double, minY: Double, maxX: Double, maxY: Double), on surface: some MapSurface) -> Bool {
        box.maxX >= -2 && box.maxY >= -2 && box.minX <= Double(surface.dotWidth) + 2 && box.minY <= Double(surface.dotHeight) + 2
    }
}
