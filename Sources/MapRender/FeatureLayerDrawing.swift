import Foundation
import MapbookCore
import TerminalCanvas
import ArcGISModel
import Geometry

/// A feature layer's features made ready to draw and hit many times: each feature's parts in Web
/// Mercator metres, its box, its symbol and class, its label. Built once per set of features.
public final class PreparedFeatureLayer: Sendable {
    public let info: FeatureLayerInfo
    public let features: [LayerFeature]
    /// Per feature: its parts (a point each, paths, or rings) in metres; empty without geometry.
    let parts: [[[MercatorPoint]]]
    let boxes: [(minX: Double, minY: Double, maxX: Double, maxY: Double)]
    /// Per feature, its symbol's index in `paints`: a layer has a few symbols and many features.
    let symbolIndex: [Int]
    let paints: [SymbolPaint]
    let labels: [String?]
    /// Features without a usable geometry: left out of the drawing, counted for the footer.
    public let withoutGeometry: Int

    public init(info: FeatureLayerInfo, features: [LayerFeature]) {
        self.info = info
        self.features = features
        var parts: [[[MercatorPoint]]] = [], boxes: [(Double, Double, Double, Double)] = []
        var symbolIndex: [Int] = [], paints: [SymbolPaint] = [], labels: [String?] = []
        var known: [FeatureSymbol] = []
        parts.reserveCapacity(features.count)
        var missing = 0
        for feature in features {
            let shape: [[MercatorPoint]]
            switch feature.geometry {
            case .points(let points)?: shape = points.map { [MercatorPoint($0)] }
            case .lines(let lines)?: shape = lines.map { $0.map(MercatorPoint.init) }
            case .polygons(let polygons)?: shape = polygons.flatMap { $0.map { $0.map(MercatorPoint.init) } }
            case nil: shape = []
            }
            if shape.isEmpty { missing += 1 }
            var box = (Double.infinity, Double.infinity, -Double.infinity, -Double.infinity)
            for p in shape.joined() { box = (min(box.0, p.x), min(box.1, p.y), max(box.2, p.x), max(box.3, p.y)) }
            parts.append(shape)
            boxes.append(box)
            let symbol = info.symbol(for: feature.attributes).symbol
            if let seen = known.firstIndex(of: symbol) {
                symbolIndex.append(seen)
            } else {
                symbolIndex.append(known.count)
                known.append(symbol)
                paints.append(SymbolPaint(symbol))
            }
            labels.append(info.labeling?.text(for: feature.attributes))
        }
        self.parts = parts; self.boxes = boxes; self.symbolIndex = symbolIndex; self.paints = paints
        self.labels = labels
        withoutGeometry = missing
    }

    /// The features under `point` within `tolerance` metres, topmost (last drawn) first: points and
    /// lines within the tolerance, polygons that cover the point or whose edge is that near.
    public func hits(at point: MercatorPoint, tolerance: Double) -> [Int] {
        var found: [Int] = []
        for index in features.indices.reversed() {
            let box = boxes[index]
            guard point.x >= box.minX - tolerance, point.x <= box.maxX + tolerance,
                  point.y >= box.minY - tolerance, point.y <= box.maxY + tolerance else { continue }
            let shape = parts[index]
            let near: Bool
            switch features[index].geometry {
            case .points?: near = shape.joined().contains { hypot($0.x - point.x, $0.y - point.y) <= tolerance }
            case .lines?: near = shape.contains { Self.distance(point, toPath: $0) <= tolerance }
            case .polygons?: near = Self.covers(point, rings: shape) || shape.contains { Self.distance(point, toPath: $0) <= tolerance }
            case nil: near = false
            }
            if near { found.append(index) }
        }
        return found
    }

    public static func distance(_ p: MercatorPoint, toPath path: [MercatorPoint]) -> Double {
        guard var a = path.first else { return .infinity }
        var best = path.count == 1 ? hypot(p.x - a.x, p.y - a.y) : Double.infinity
        for b in path.dropFirst() {
            let dx = b.x - a.x, dy = b.y - a.y
            let length = dx * dx + dy * dy
            let t = length > 0 ? min(max(((p.x - a.x) * dx + (p.y - a.y) * dy) / length, 0), 1) : 0
            best = min(best, hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy)))
            a = b
        }
        return best
    }

    public static func covers(_ p: MercatorPoint, rings: [[MercatorPoint]]) -> Bool {
        var inside = false
        for ring in rings where ring.count >= 3 {
            var j = ring.count - 1
            for i in ring.indices {
                let a = ring[i], b = ring[j]
                if (a.y > p.y) != (b.y > p.y), p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
                j = i
            }
        }
        return inside
    }
}

/// A symbol as maps draw it, worked out once per symbol: its colours, its glyph, its line.
struct SymbolPaint: Sendable {
    let kind: FeatureSymbol.Kind
    /// A fill's colour, and its alpha (0…1) with which what is below shows through.
    let fill: (color: StyleColor, alpha: Double)?
    /// A marker's palette colour (marks are cells).
    let color: PaletteIndex?
    /// A line's colour, or a fill's outline.
    let stroke: StyleColor?
    /// The line's width in pixels and its dashes (in widths).
    let lineWidth: Double
    let dasharray: [Double]
    /// A marker that shows nothing (a transparent picture or colour): not drawn at all.
    let isInvisible: Bool

    init(_ symbol: FeatureSymbol) {
        kind = symbol.kind
        func style(_ c: SymbolColor) -> StyleColor { StyleColor(r: Double(c.r), g: Double(c.g), b: Double(c.b)) }
        // Lines and outlines show when more than a tenth there, opaque.
        func visible(_ c: SymbolColor?) -> StyleColor? { c.flatMap { $0.a > 25 ? style($0) : nil } }
        switch symbol.kind {
        case .fill:
            fill = symbol.color.map { (style($0), Double($0.a) / 255) }
            stroke = visible(symbol.outline)
            color = stroke?.paletteIndex
        case .line:
            fill = nil
            stroke = visible(symbol.color)
            color = stroke?.paletteIndex
        case .marker, .text:
            fill = nil
            stroke = nil
            color = symbol.color.map { style($0).paletteIndex }
        }
        isInvisible = symbol.color.map { $0.a <= 25 } ?? false
        lineWidth = symbol.size * 96 / 72
        dasharray = FeatureLayerPainter.dashes(symbol.kind)
    }
}

/// One operational layer in a drawing: its prepared features and its opacity.
public struct FeatureLayerScene: Sendable {
    public var layer: PreparedFeatureLayer
    public var opacity: Double

    public init(layer: PreparedFeatureLayer, opacity: Double = 1) { self.layer = layer; self.opacity = opacity }
}

/// Operational layers over the basemap: fills blended by their colour's alpha and the layer's
/// opacity, outlines and lines in braille, points as coloured glyphs, labels where the layer asks.
enum FeatureLayerPainter {
    /// Fills and lines, onto the surface (under the basemap's reference layers and every label).
    static func drawShapes<Surface: MapSurface>(_ scenes: [FeatureLayerScene], projection: MapProjection, surface: inout Surface,
                                                colors: Bool) -> Int {
        var drawn = 0
        let width = Double(surface.dotWidth), height = Double(surface.dotHeight)
        for scene in scenes {
            let layer = scene.layer
            guard layer.info.geometryType == .polygon || layer.info.geometryType == .polyline else { continue }
            for index in layer.features.indices {
                let box = layer.boxes[index]
                let x0 = (box.minX - projection.left) * projection.scale, x1 = (box.maxX - projection.left) * projection.scale
                let y0 = (projection.top - box.maxY) * projection.scale, y1 = (projection.top - box.minY) * projection.scale
                guard x1 >= 0, y1 >= 0, x0 <= width, y0 <= height else { continue }
                let symbol = layer.symbolIndex[index]
                let paint = layer.paints[symbol]
                let rings = layer.parts[index].map { part in part.map { ((($0.x - projection.left) * projection.scale), (projection.top - $0.y) * projection.scale) } }
                if colors, let fill = paint.fill {
                    surface.fill(rings: rings, color: fill.color, alpha: fill.alpha * scene.opacity)
                }
                if let line = paint.stroke {
                    for ring in rings where ring.count >= 2 {
                        surface.stroke(ring, color: line, width: paint.lineWidth, dasharray: paint.dasharray, closed: false)
                    }
                }
                drawn += 1
            }
        }
        return drawn
    }

    static func dashes(_ kind: FeatureSymbol.Kind) -> [Double] {
        guard case .line(let style) = kind else { return [] }
        switch style {
        case "esriSLSDash", "esriSLSLongDash", "esriSLSShortDash": return [3, 2]
        case "esriSLSDot", "esriSLSShortDot": return [1, 2]
        case "esriSLSDashDot", "esriSLSDashDotDot", "esriSLSShortDashDot", "esriSLSShortDashDotDot", "esriSLSLongDashDot": return [3, 1, 1, 1]
        default: return []
        }
    }

    /// The glyph of a marker style.
    public static func glyph(_ kind: FeatureSymbol.Kind, ascii: Bool) -> Character {
        guard case .marker(let style) = kind else { return ascii ? "o" : "●" }
        switch style {
        case "esriSMSSquare": return ascii ? "#" : "■"
        case "esriSMSTriangle": return ascii ? "^" : "▲"
        case "esriSMSDiamond": return ascii ? "*" : "◆"
        case "esriSMSCross": return "+"
        case "esriSMSX": return ascii ? "x" : "×"
        default: return ascii ? "o" : "●"
        }
    }

    /// Points as marks in their colour (the last drawn wins a cell), and every layer's names:
    /// points' beside them (one name a cell: the others could not be placed anyway), lines' and
    /// areas' at their box's centre. Returns them with how many points were marked.
    static func marks(_ scenes: [FeatureLayerScene], projection: MapProjection, dotsPerCell: (x: Double, y: Double) = (2, 4),
                      columns: Int, rows: Int, ascii: Bool, scale: Double, order: Int) -> (marks: [MapMark], labels: [MapLabel], drawn: Int) {
        var marks: [MapMark] = [], labels: [MapLabel] = []
        var labelled = [Bool](repeating: false, count: columns * rows)
        for (layerIndex, scene) in scenes.enumerated() {
            let layer = scene.layer
            let labelsShown = layer.info.labeling.map { ($0.minScale == 0 || scale <= $0.minScale) && ($0.maxScale == 0 || scale >= $0.maxScale) } ?? false
            let labelColor = layer.info.labeling?.color.map { XtermPalette.nearest(r: Int($0.r), g: Int($0.g), b: Int($0.b)) } ?? 236
            let isPoint = layer.info.geometryType == .point || layer.info.geometryType == .multipoint
            let glyphs = layer.paints.map { glyph($0.kind, ascii: ascii) }
            for index in layer.features.indices where !layer.parts[index].isEmpty {
                if isPoint, !layer.paints[layer.symbolIndex[index]].isInvisible {
                    let color = layer.paints[layer.symbolIndex[index]].color
                    for part in layer.parts[index] {
                        guard let p = part.first else { continue }
                        let x = ((p.x - projection.left) * projection.scale / dotsPerCell.x).rounded(.down)
                        let y = ((projection.top - p.y) * projection.scale / dotsPerCell.y).rounded(.down)
                        guard x >= 0, y >= 0, x < Double(columns), y < Double(rows) else { continue }
                        marks.append(MapMark(column: Int(x), row: Int(y), glyph: glyphs[layer.symbolIndex[index]], color: color))
                    }
                }
                guard labelsShown, let text = layer.labels[index] else { continue }
                let box = layer.boxes[index]
                let cx = ((box.minX + box.maxX) / 2 - projection.left) * projection.scale / dotsPerCell.x
                let cy = (projection.top - (box.minY + box.maxY) / 2) * projection.scale / dotsPerCell.y
                guard cx >= -40, cy >= 0, cx < Double(columns + 40), cy < Double(rows) else { continue }
                let column = cx.clampedInt(rounding: .down), row = cy.clampedInt(rounding: .down)
                let rank = MapLabel.Rank.map(order + layerIndex)
                if isPoint {
                    guard column >= 0, column < columns, !labelled[row * columns + column] else { continue }
                    labelled[row * columns + column] = true
                    labels.append(.beside(column: column, row: row, text: text, rank: rank, color: labelColor, standsOut: false))
                } else {
                    labels.append(.centred(column: column, row: row, text: text, rank: rank, color: labelColor))
                }
            }
        }
        return (marks, labels, marks.count)
    }
}

/// The identified feature, over the map and under every name, so it stands out whatever lies
/// below: its path or outline in a bright colour (`drawPath`), a point as a ringed mark, and its
/// name placed before any other (`names`).
public enum FeatureHighlight {
    public static let color: PaletteIndex = 201

    /// A line's path or an area's outline, two dots wide (or `dots`, up to three), over what
    /// `frame` holds in `rect` (a point is a mark: `names`).
    public static func drawPath(_ geometry: GeoGeometry, viewport: MapViewport, into frame: inout Frame, rect: Rect, ascii: Bool, colors: Bool,
                                color: PaletteIndex = FeatureHighlight.color, dots: Int = 2) {
        guard !rect.isEmpty else { return }
        let projection = viewport.projection(columns: rect.width, rows: rect.height)
        var canvas = MapCanvas(columns: rect.width, rows: rect.height)
        let style = LineStyle(width: Double(dots), dasharray: [])
        let paths: [[GeoPoint]]
        switch geometry {
        case .points: return
        case .lines(let lines): paths = lines
        case .polygons(let polygons): paths = Array(polygons.joined())
        }
        for path in paths {
            var phase = 0.0
            let d = path.map { projection.dot(MercatorPoint($0)) }
            for (a, b) in zip(d, d.dropFirst()) { canvas.line(from: a, to: b, color: color, style: style, phase: &phase) }
        }
        canvas.draw(into: &frame, at: (rect.x, rect.y), glyphs: ascii ? .ascii : .unicode, colors: colors, overlay: true)
    }

    /// A point's ringed marks, and `title` beside the first of them, else in the middle of the
    /// feature's box; in a map of `size` cells.
    public static func names(_ geometry: GeoGeometry, title: String, viewport: MapViewport, size: (columns: Int, rows: Int), ascii: Bool,
                             color: PaletteIndex = FeatureHighlight.color) -> LabelPass {
        let projection = viewport.projection(columns: size.columns, rows: size.rows)
        var pass = LabelPass()
        if case .points(let points) = geometry {
            for (index, point) in points.enumerated() {
                pass.mark(point, glyph: ascii ? "@" : "◉", label: index == 0 ? title : "", rank: .identified, color: color,
                          projection: projection, size: size)
            }
        } else if let extent = geometry.extent, !title.isEmpty {
            let middle = MercatorPoint(GeoPoint(longitude: (extent.xmin + extent.xmax) / 2, latitude: (extent.ymin + extent.ymax) / 2))
            if let (column, row) = projection.cell(middle) {
                pass.labels.append(.centred(column: column, row: row, text: DisplayWidth.truncated(title, to: 40), rank: .identified, color: color))
            }
        }
        return pass
    }
}
