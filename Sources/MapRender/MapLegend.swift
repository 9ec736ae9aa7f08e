import Foundation
import MapbookCore
import TileFormats
import TerminalCanvas
import ArcGISModel

/// One line of a legend: a swatch in a colour, and what it stands for (sanitized).
public struct LegendEntry: Sendable, Equatable {
    public enum Swatch: Sendable, Equatable {
        case marker(Character)
        case line
        case fill
    }

    public var swatch: Swatch
    public var color: PaletteIndex?
    public var label: String

    public init(swatch: Swatch, color: PaletteIndex?, label: String) { self.swatch = swatch; self.color = color; self.label = label }

    /// The swatch as one character.
    public func glyph(ascii: Bool) -> Character {
        switch swatch {
        case .marker(let character): return character
        case .line: return ascii ? "-" : "━"
        case .fill: return ascii ? "#" : "█"
        }
    }
}

/// What a layer's symbols mean: an operational layer's renderer classes, or a vector basemap's
/// style layers grouped by the source layer they draw.
public enum MapLegend {
    /// Each renderer class, and the default symbol when features can fall to it.
    public static func entries(for info: FeatureLayerInfo, ascii: Bool = false) -> [LegendEntry] {
        var entries = info.renderer.classes.map { entry($0.symbol, label: $0.label, ascii: ascii) }
        if let symbol = info.renderer.defaultSymbol, info.renderer.kind != .simple {
            entries.append(entry(symbol, label: info.renderer.defaultLabel ?? "Other", ascii: ascii))
        }
        if entries.isEmpty { entries.append(entry(.fallback(for: info.geometryType), label: "All features", ascii: ascii)) }
        // A simple renderer's one class often has no label: the layer's name says it.
        return entries.map { var e = $0; if e.label.isEmpty { e.label = TerminalText.sanitizedLine(info.name, maxLength: 60) }; return e }
    }

    static func entry(_ symbol: FeatureSymbol, label: String, ascii: Bool) -> LegendEntry {
        let color = (symbol.color ?? symbol.outline).map { XtermPalette.nearest(r: Int($0.r), g: Int($0.g), b: Int($0.b)) }
        let swatch: LegendEntry.Swatch = switch symbol.kind {
        case .marker, .text: .marker(FeatureLayerPainter.glyph(symbol.kind, ascii: ascii))
        case .line: .line
        case .fill: .fill
        }
        return LegendEntry(swatch: swatch, color: color, label: TerminalText.sanitizedLine(label, maxLength: 60))
    }

    /// A MapServer's `legend?f=json`: each entry's label (its layer's name when it has none) and,
    /// for a swatch, the mean colour of its picture's opaque pixels (none when the picture is missing
    /// or cannot be read: the label alone).
    public static func entries(serviceLegend json: JSONValue) -> [LegendEntry] {
        var entries: [LegendEntry] = []
        for layer in json["layers"]?.array ?? [] {
            for item in layer["legend"]?.array ?? [] {
                guard entries.count < 64 else { return entries }
                let label = item["label"]?.string ?? layer["layerName"]?.string ?? ""
                let color = item["imageData"]?.string.flatMap { Data(base64Encoded: $0) }.flatMap { try? RasterImage(decoding: $0) }.flatMap(meanColor)
                entries.append(LegendEntry(swatch: .fill, color: color, label: TerminalText.sanitizedLine(label, maxLength: 60)))
            }
        }
        return entries
    }

    static func meanColor(_ image: RasterImage) -> PaletteIndex? {
        var sum = (r: 0, g: 0, b: 0), count = 0
        for y in 0..<min(image.height, 64) {
            for x in 0..<min(image.width, 64) {
                let p = image.pixel(x: x, y: y)
                guard p.a >= 128 else { continue }
                sum = (sum.r + Int(p.r), sum.g + Int(p.g), sum.b + Int(p.b))
                count += 1
            }
        }
        return count == 0 ? nil : XtermPalette.nearest(r: sum.r / count, g: sum.g / count, b: sum.b / count)
    }

    /// For each source layer a style draws, its style layers' colours at `zoom` (one entry per
    /// style layer that has one), in the style's order.
    public static func entries(for style: MapStyle, zoom: Double) -> [String: [LegendEntry]] {
        var result: [String: [LegendEntry]] = [:]
        for layer in style.layers where layer.isVisible {
            guard let source = layer.sourceLayer else { continue }
            let painter = LayerPainter(layer: layer, zoom: zoom, base: StyleColor(r: 242, g: 239, b: 233))
            let (swatch, color): (LegendEntry.Swatch, StyleColor?) = switch layer.type {
            case .fill, .fillExtrusion: (.fill, painter.color("fill-color", opacity: "fill-opacity"))
            case .line: (.line, painter.color("line-color", opacity: "line-opacity"))
            case .circle: (.marker("●"), painter.color("circle-color", opacity: "circle-opacity"))
            case .symbol: (.marker("a"), painter.color("text-color", opacity: "text-opacity"))
            default: (.fill, nil)
            }
            guard let color else { continue }
            result[source, default: []].append(LegendEntry(swatch: swatch, color: color.paletteIndex,
                                                           label: TerminalText.sanitizedLine(layer.id, maxLength: 60)))
        }
        return result
    }
}
