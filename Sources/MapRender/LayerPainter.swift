import Foundation
import MapbookCore
import TileFormats
import TerminalCanvas

/// One style layer's paint and layout, evaluated at a zoom; values that depend only on the zoom
/// are worked out once per drawing, the rest per feature.
struct LayerPainter {
    let layer: StyleLayer
    let zoom: Double
    /// The colour under translucent paint (the style's background).
    let base: StyleColor
    private let zoomContext: FeatureContext
    /// Paint values that do not depend on the feature, worked out once for the drawing (and their
    /// colours parsed once): most styles colour a layer the same for every feature.
    private let fixedPaint: [String: JSONValue]
    private let fixedColors: [String: StyleColor]

    init(layer: StyleLayer, zoom: Double, base: StyleColor) {
        self.layer = layer; self.zoom = zoom; self.base = base
        let zoomContext = FeatureContext.zoom(zoom)
        self.zoomContext = zoomContext
        var paint: [String: JSONValue] = [:]
        var colors: [String: StyleColor] = [:]
        for (key, value) in layer.paint.object ?? [:] where !Self.dependsOnFeature(value) {
            let evaluated = StyleExpression.evaluate(value, zoomContext)
            paint[key] = evaluated
            if let text = evaluated.string, let color = StyleColor(parsing: text) { colors[key] = color }
        }
        fixedPaint = paint
        fixedColors = colors
    }

    /// Whether a value reads the feature (its properties, type or id).
    static func dependsOnFeature(_ value: JSONValue) -> Bool {
        switch value {
        case .array(let items):
            if case .string(let op)? = items.first, ["get", "has", "!has", "in", "!in", "geometry-type", "id", "properties"].contains(op) {
                return true
            }
            return items.contains(where: dependsOnFeature)
        case .object(let members):
            return members["property"] != nil || members.values.contains(where: dependsOnFeature)
        default:
            return false
        }
    }

    /// A colour property blended by its opacity over the base; nil when absent or nearly invisible.
    func color(_ key: String, opacity opacityKey: String, _ context: FeatureContext? = nil) -> StyleColor? {
        let color: StyleColor
        if let fixed = fixedColors[key] {
            color = fixed
        } else {
            guard fixedPaint[key] == nil, let value = layer.paint[key],
                  let text = StyleExpression.evaluate(value, context ?? zoomContext).string,
                  let parsed = StyleColor(parsing: text) else { return nil }
            color = parsed
        }
        let opacity: Double
        if let fixed = fixedPaint[opacityKey] {
            opacity = fixed.double ?? 1
        } else {
            opacity = layer.paint[opacityKey].flatMap { StyleExpression.evaluate($0, context ?? zoomContext).double } ?? 1
        }
        guard color.a * opacity >= 0.15 else { return nil }
        return color.over(base, opacity: opacity)
    }

    /// A paint value that is a number, at this zoom for this feature.
    func number(_ key: String, _ context: FeatureContext) -> Double? {
        if let fixed = fixedPaint[key] { return fixed.double }
        return layer.paint[key].flatMap { StyleExpression.evaluate($0, context).double }
    }

    /// `line-width` (style pixels) and `line-dasharray` (in line widths).
    func lineWidth(_ context: FeatureContext) -> (width: Double, dasharray: [Double]) {
        let dashes: [Double]
        if let fixed = fixedPaint["line-dasharray"] {
            dashes = fixed.array.compactMap(\.double)
        } else {
            dashes = layer.paint["line-dasharray"].map { StyleExpression.evaluate($0, context) }?.array.compactMap(\.double) ?? []
        }
        return (number("line-width", context) ?? 1, dashes)
    }

    static let labelSourceLimit = 256

    /// The label text: `text-field` with `{property}` tokens filled in, sanitized (packages are not
    /// trusted) and shortened.
    func label(_ context: FeatureContext) -> String? {
        guard let field = layer.layout["text-field"] else { return nil }
        let evaluated = StyleExpression.evaluate(field, context)
        // Labels show 32 characters: a longer template or value (a hostile style's can be 200,000)
        // is cut before any work is done on it, once per feature.
        var text = String(StyleExpression.text(evaluated).prefix(Self.labelSourceLimit))
        // Characters, not strings: `contains("{")` and trimming go through Foundation's NSString, a
        // tenth of a dense style's drawing when every feature has a name.
        if text.contains(where: { $0 == "{" }) {
            var result = ""
            var rest = Substring(text)
            while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
                result += rest[..<open]
                let name = String(rest[rest.index(after: open)..<close])
                result += context.property(name).map { StyleExpression.text(StyleExpression.json($0)).prefix(Self.labelSourceLimit) } ?? ""
                rest = rest[rest.index(after: close)...]
            }
            text = result + rest
        }
        if layer.layout["text-transform"]?.string == "uppercase" { text = text.uppercased() }
        let clean = TerminalText.sanitizedLine(text, maxLength: 32)
        return clean.allSatisfy(\.isWhitespace) ? nil : clean
    }
}
