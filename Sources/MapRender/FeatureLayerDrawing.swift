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

/// A symbol as the terminal draws it, worked out once per symbol: its palette colours, its glyph,
/// its line style.
struct SymbolPaint: Sendable {
    let kind: FeatureSymbol.Kind
    /// A fill's colour (blended with what is below by its alpha).
    let fill: SymbolColor?
    /// A marker's colour, or a line's, or a fill's outline.
    let color: PaletteIndex?
    let line: LineStyle
    /// A marker that shows nothing (a transparent picture or colour): not drawn at all.
    let isInvisible: Bool

    init(_ symbol: FeatureSymbol) {
        kind = symbol.kind
        func palette(_ c: SymbolColor?) -> PaletteIndex? { c.map { XtermPalette.nearest(r: Int($0.r), g: Int($0.g), b: Int($0.b)) } }
        switch symbol.kind {
        case .fill:
            fill = symbol.color
            color = symbol.outline.flatMap { $0.a > 25 ? palette($0) : nil }
        case .line:
            fill = nil
            color = symbol.color.flatMap { $0.a > 25 ? palette($0) : nil }
        case .marker, .text:
            fill = nil
            color = palette(symbol.color)
        }
        isInvisible = symbol.color.map { $0.a <= 25 } ?? false
        line = LineStyle(width: symbol.size * 96 / 72, dasharray: FeatureLayerPainter.dashes(symbol.kind))
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
    /// Fills and lines, onto the canvas (under the basemap's reference layers and every label).
    static func drawShapes(_ scenes: [FeatureLayerScene], projection: MapProjection, canvas: inout MapCanvas, colors: Bool) -> Int {
        var drawn = 0
        let width = Double(canvas.dotWidth), height = Double(canvas.dotHeight)
        for scene in scenes {
            let layer = scene.layer
            guard layer.info.geometryType == .polygon || layer.info.geometryType == .polyline else { continue }
            // Each symbol's fill blended over each colour below, worked out once per drawing: a
            // flat table per symbol (256 colours, and "nothing below").
            var blends = [[Int16]](repeating: [], count: layer.paints.count)
            for index in layer.features.indices {
                let box = layer.boxes[index]
                let x0 = (box.minX - projection.left) * projection.scale, x1 = (box.maxX - projection.left) * projection.scale
                let y0 = (projection.top - box.maxY) * projection.scale, y1 = (projection.top - box.minY) * projection.scale
                guard x1 >= 0, y1 >= 0, x0 <= width, y0 <= height else { continue }
                let symbol = layer.symbolIndex[index]
                let paint = layer.paints[symbol]
                let rings = layer.parts[index].map { part in part.map { ((($0.x - projection.left) * projection.scale), (projection.top - $0.y) * projection.scale) } }
                if colors, let color = paint.fill {
                    let alpha = Double(color.a) / 255 * scene.opacity
                    if alpha >= 0.05 {
                        if blends[symbol].isEmpty { blends[symbol] = [Int16](repeating: -1, count: 257) }
                        canvas.fill(rings: rings) { below in
                            let slot = below.map { Int($0) } ?? 256
                            if blends[symbol][slot] >= 0 { return PaletteIndex(blends[symbol][slot]) }
                            let blended = blend(color, alpha: alpha, over: below)
                            blends[symbol][slot] = Int16(blended)
                            return blended
                        }
                    }
                }
                if let line = paint.color {
                    for ring in rings where ring.count >= 2 {
                        var phase = 0.0
                        for (a, b) in zip(ring, ring.dropFirst()) { canvas.line(from: a, to: b, color: line, style: paint.line, phase: &phase) }
                    }
                }
                drawn += 1
            }
        }
        return drawn
    }

    static func blend(_ color: SymbolColor, alpha: Double, over below: PaletteIndex?) -> PaletteIndex {
        guard let below, alpha < 0.95 else { return XtermPalette.nearest(r: Int(color.r), g: Int(color.g), b: Int(color.b)) }
        let under = XtermPalette.rgb(below)
        func mix(_ a: UInt8, _ b: Int) -> Int { (Double(a) * alpha + Double(b) * (1 - alpha)).clampedInt(in: 0...255) }
        return XtermPalette.nearest(r: mix(color.r, under.r), g: mix(color.g, under.g), b: mix(color.b, under.b))
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
    static func marks(_ scenes: [FeatureLayerScene], projection: MapProjection, columns: Int, rows: Int, ascii: Bool, scale: Double,
                      order: Int) -> (marks: [MapMark], labels: [MapLabel], drawn: Int) {
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
                        let x = ((p.x - projection.left) * projection.scale / 2).rounded(.down)
                        let y = ((projection.top - p.y) * projection.scale / 4).rounded(.down)
                        guard x >= 0, y >= 0, x < Double(columns), y < Double(rows) else { continue }
                        marks.append(MapMark(column: Int(x), row: Int(y), glyph: glyphs[layer.symbolIndex[index]], color: color))
                    }
                }
                guard labelsShown, let text = layer.labels[index] else { continue }
                let box = layer.boxes[index]
                let cx = ((box.minX + box.maxX) / 2 - projection.left) * projection.scale / 2
                let cy = (projection.top - (box.minY + box.maxY) / 2) * projection.scale / 4
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
