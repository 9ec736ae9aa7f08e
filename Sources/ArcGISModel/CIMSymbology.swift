import Foundation
import MapbookCore

/// ArcGIS Pro's symbology (the Cartographic Information Model, Esri/cim-spec) reduced to the nearest
/// classic renderer and symbols: what a mobile geodatabase's `AdvancedDrawingInfo` or a Pro-made map
/// holds when no classic `drawingInfo` is there. Simple, unique value and class breaks renderers
/// keep their classes; a symbol keeps its kind, colour, outline and size; anything else (heat maps,
/// dictionaries, charts) becomes a renderer of one symbol that says so, as a classic one would.
extension FeatureRenderer {
    /// A CIM renderer (`CIMSimpleRenderer`, `CIMUniqueValueRenderer`, `CIMClassBreaksRenderer`, …).
    init?(cim json: JSONValue) {
        guard let type = json["type"]?.string, type.hasPrefix("CIM") else { return nil }
        let defaultSymbol = (json["useDefaultSymbol"]?.bool ?? true) ? FeatureSymbol(cim: json["defaultSymbol"]) : nil
        let defaultLabel = json["defaultLabel"]?.string
        switch type {
        case "CIMSimpleRenderer":
            let symbol = FeatureSymbol(cim: json["symbol"])
            self.init(kind: .simple, classes: symbol.map { [RendererClass(match: .value(""), label: json["label"]?.string ?? "", symbol: $0)] } ?? [])
        case "CIMUniqueValueRenderer" where !(json["fields"]?.array ?? []).isEmpty && json["valueExpressionInfo"] == nil:
            let fields = (json["fields"]?.array ?? []).compactMap(\.string)
            var classes: [RendererClass] = []
            for group in json["groups"]?.array ?? [] {
                for entry in group["classes"]?.array ?? [] {
                    guard let symbol = FeatureSymbol(cim: entry["symbol"]) else { continue }
                    // A class may take several combinations of values; each is one classic value.
                    for value in entry["values"]?.array ?? [] {
                        let parts = (value["fieldValues"]?.array ?? []).map { $0.string ?? "<Null>" }
                        guard !parts.isEmpty else { continue }
                        let joined = parts.joined(separator: ",")
                        classes.append(RendererClass(match: .value(joined), label: entry["label"]?.string ?? joined, symbol: symbol))
                    }
                }
            }
            self.init(kind: .uniqueValue(fields: fields, delimiter: ","), classes: classes, defaultSymbol: defaultSymbol, defaultLabel: defaultLabel)
        case "CIMClassBreaksRenderer" where json["field"]?.string != nil && json["valueExpressionInfo"] == nil
            && (json["normalizationType"]?.string).map({ $0 == "Nothing" }) ?? true:
            var lower = json["minimumBreak"]?.double ?? -Double.infinity
            var classes: [RendererClass] = []
            for entry in json["breaks"]?.array ?? [] {
                guard let upper = entry["upperBound"]?.double, let symbol = FeatureSymbol(cim: entry["symbol"]) else { continue }
                classes.append(RendererClass(match: .range(lower: lower, upper: upper, inclusiveLower: classes.isEmpty),
                                             label: entry["label"]?.string ?? "", symbol: symbol))
                lower = upper
            }
            self.init(kind: .classBreaks(field: json["field"]?.string ?? ""), classes: classes, defaultSymbol: defaultSymbol,
                      defaultLabel: defaultLabel)
        default:
            // The one symbol such a renderer has, if any, draws every feature.
            let symbol = FeatureSymbol(cim: json["symbol"]) ?? FeatureSymbol(cim: json["baseSymbol"]) ?? defaultSymbol
            self.init(kind: .unsupported(type: type), classes: [], defaultSymbol: symbol, defaultLabel: defaultLabel)
        }
    }
}

extension FeatureSymbol {
    /// A CIM symbol, or a `CIMSymbolReference` to one: a point, line, polygon or text symbol read
    /// from its symbol layers (the first enabled layer of each kind: CIM draws `symbolLayers[0]` on top).
    init?(cim json: JSONValue?) {
        guard var symbol = json else { return nil }
        if symbol["type"]?.string == "CIMSymbolReference" { symbol = symbol["symbol"] ?? .null }
        let layers = (symbol["symbolLayers"]?.array ?? []).filter { $0["enable"]?.bool ?? true }
        func first(_ types: Set<String>) -> JSONValue? { layers.first { types.contains($0["type"]?.string ?? "") } }
        switch symbol["type"]?.string {
        case "CIMPointSymbol":
            guard let marker = first(["CIMVectorMarker", "CIMSimpleMarker", "CIMCharacterMarker", "CIMPictureMarker"]) else { return nil }
            self = Self.marker(marker)
        case "CIMLineSymbol":
            guard let stroke = first(Self.strokes) else { return nil }
            self.init(kind: .line(style: Self.lineStyle(stroke)), color: Self.strokeColor(stroke), size: stroke["width"]?.double ?? 1)
        case "CIMPolygonSymbol":
            let fill = first(Self.fills), stroke = first(Self.strokes)
            guard fill != nil || stroke != nil else { return nil }
            let style = switch fill?["type"]?.string {
            case "CIMHatchFill": "esriSFSForwardDiagonal"
            case nil: "esriSFSNull"
            default: "esriSFSSolid"
            }
            self.init(kind: .fill(style: style), color: fill.flatMap(Self.fillColor), outline: stroke.flatMap(Self.strokeColor),
                      size: stroke?["width"]?.double ?? 1)
        case "CIMTextSymbol":
            let fill = symbol["symbol"]?["symbolLayers"]?.array.first { Self.fills.contains($0["type"]?.string ?? "") }
            self.init(kind: .text, color: fill.flatMap(Self.fillColor))
        default:
            return nil
        }
    }

    private static let strokes: Set<String> = ["CIMSolidStroke", "CIMFilledStroke", "CIMGradientStroke", "CIMPictureStroke"]
    private static let fills: Set<String> = ["CIMSolidFill", "CIMFill", "CIMHatchFill", "CIMGradientFill", "CIMPictureFill"]

    /// A marker layer: a vector marker's colour is its first graphic's fill; a simple marker (the
    /// older form) names its shape.
    private static func marker(_ layer: JSONValue) -> FeatureSymbol {
        let size = layer["size"]?.double ?? 8
        switch layer["type"]?.string {
        case "CIMPictureMarker":
            return FeatureSymbol(kind: .marker(style: "picture"), color: nil, size: size, picture: FeatureSymbol.picture(base64: layer["url"]?.string))
        case "CIMSimpleMarker":
            let shape = layer["simpleMarkerType"]?.string ?? "Circle"
            return FeatureSymbol(kind: .marker(style: "esriSMS\(shape)"), color: color(layer["fillColor"]), outline: color(layer["outlineColor"]),
                                 size: size)
        default:
            // A vector marker draws graphics, a character marker a glyph: each with a polygon symbol.
            let graphic = layer["markerGraphics"]?.array.first?["symbol"] ?? layer["symbol"]
            let painted = FeatureSymbol(cim: graphic)
            return FeatureSymbol(kind: .marker(style: "esriSMSCircle"), color: painted?.color, outline: painted?.outline, size: size)
        }
    }

    /// A line's style: dashed when a dash effect is applied to it.
    private static func lineStyle(_ stroke: JSONValue) -> String {
        let dashed = (stroke["effects"]?.array ?? []).contains { $0["type"]?.string == "CIMGeometricEffectDashes" }
        return dashed ? "esriSLSDash" : "esriSLSSolid"
    }

    private static func strokeColor(_ stroke: JSONValue) -> SymbolColor? {
        color(stroke["color"]) ?? color(stroke["pattern"]?["color"])
    }

    private static func fillColor(_ fill: JSONValue) -> SymbolColor? {
        switch fill["type"]?.string {
        case "CIMHatchFill": return fill["lineSymbol"].flatMap { FeatureSymbol(cim: $0)?.color }
        case "CIMGradientFill": return (fill["colorRamp"]?["fromColor"]).flatMap(color)
        default: return color(fill["color"]) ?? color(fill["pattern"]?["color"])
        }
    }

    /// A CIM colour: RGB, HSV, CMYK or grey with an alpha of 0–100; or, in the older form, an
    /// `[r, g, b, a]` array of 0–255.
    static func color(_ json: JSONValue?) -> SymbolColor? {
        guard let json else { return nil }
        if case .array = json { return SymbolColor(json: json) }
        let values = json["values"]?.array.compactMap(\.double) ?? []
        let byte = SymbolColor.byte
        func alpha(_ index: Int) -> UInt8 { values.count > index ? byte(values[index] / 100 * 255) : 255 }
        switch json["type"]?.string {
        case "CIMRGBColor" where values.count >= 3:
            return SymbolColor(r: byte(values[0]), g: byte(values[1]), b: byte(values[2]), a: alpha(3))
        case "CIMGrayColor" where values.count >= 1:
            return SymbolColor(r: byte(values[0]), g: byte(values[0]), b: byte(values[0]), a: alpha(1))
        case "CIMCMYKColor" where values.count >= 4:
            let k = 1 - values[3] / 100
            func channel(_ v: Double) -> UInt8 { byte(255 * (1 - v / 100) * k) }
            return SymbolColor(r: channel(values[0]), g: channel(values[1]), b: channel(values[2]), a: alpha(4))
        case "CIMHSVColor" where values.count >= 3:
            let (r, g, b) = hsv(hue: values[0], saturation: values[1] / 100, value: values[2] / 100)
            return SymbolColor(r: byte(r * 255), g: byte(g * 255), b: byte(b * 255), a: alpha(3))
        default:
            return nil
        }
    }

    private static func hsv(hue: Double, saturation s: Double, value v: Double) -> (Double, Double, Double) {
        let h = (hue.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) / 60
        let c = v * s, x = c * (1 - abs(h.truncatingRemainder(dividingBy: 2) - 1)), m = v - c
        let (r, g, b): (Double, Double, Double) = switch h.clampedInt(in: 0...5, rounding: .towardZero) {
        case 0: (c, x, 0)
        case 1: (x, c, 0)
        case 2: (0, c, x)
        case 3: (0, x, c)
        case 4: (x, 0, c)
        default: (c, 0, x)
        }
        return (r + m, g + m, b + m)
    }
}
