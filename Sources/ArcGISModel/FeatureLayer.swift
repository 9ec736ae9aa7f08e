import Foundation
import MapbookCore
import Geometry

/// A colour of an ArcGIS symbol: `[r, g, b, a]`, each 0–255.
public struct SymbolColor: Sendable, Equatable, Hashable {
    public var r: UInt8, g: UInt8, b: UInt8, a: UInt8

    public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255) { self.r = r; self.g = g; self.b = b; self.a = a }

    /// A colour channel from a file or a server (0…255; anything else brought in).
    static func byte(_ value: Double) -> UInt8 { UInt8(value.clampedInt(in: 0...255)) }

    init?(json: JSONValue?) {
        let parts = json?.array.compactMap(\.double) ?? []
        guard parts.count >= 3 else { return nil }
        let byte = Self.byte
        self.init(r: byte(parts[0]), g: byte(parts[1]), b: byte(parts[2]), a: parts.count > 3 ? byte(parts[3]) : 255)
    }
}

/// An ArcGIS symbol reduced to what a terminal can show: what it marks, its colour and outline,
/// its size. Picture symbols keep their kind and draw in a default colour.
public struct FeatureSymbol: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// `esriSMS`, `esriPMS`: a point's glyph; `style` is `esriSMSCircle`, `esriSMSSquare`, …
        case marker(style: String)
        /// `esriSLS`.
        case line(style: String)
        /// `esriSFS`, `esriPFS`.
        case fill(style: String)
        case text
    }

    public var kind: Kind
    public var color: SymbolColor?
    public var outline: SymbolColor?
    /// Points for markers, line width for lines.
    public var size: Double
    /// A picture marker's image as stored (PNG or JPEG bytes): what its colour is taken from.
    public var picture: Data?

    public init(kind: Kind, color: SymbolColor?, outline: SymbolColor? = nil, size: Double = 1, picture: Data? = nil) {
        self.kind = kind; self.color = color; self.outline = outline; self.size = size; self.picture = picture
    }

    /// The largest picture taken from a symbol, encoded: marker images are a few kilobytes.
    public static let largestPicture = 1 << 20

    /// The bytes of a picture given as base64 (`imageData`) or a `data:` address (CIM's `url`),
    /// when they are no larger than `largestPicture`.
    static func picture(base64 text: String?) -> Data? {
        guard var text else { return nil }
        if text.hasPrefix("data:"), let comma = text.firstIndex(of: ",") { text = String(text[text.index(after: comma)...]) }
        guard text.utf8.count <= largestPicture * 4 / 3 + 4 else { return nil }
        return Data(base64Encoded: text, options: .ignoreUnknownCharacters)
    }

    init?(json: JSONValue?) {
        guard let json, let type = json["type"]?.string else { return nil }
        let outline = json["outline"].flatMap { SymbolColor(json: $0["color"]) }
        switch type {
        case "esriSMS":
            self.init(kind: .marker(style: json["style"]?.string ?? "esriSMSCircle"), color: SymbolColor(json: json["color"]),
                      outline: outline, size: json["size"]?.double ?? 8)
        case "esriPMS":
            self.init(kind: .marker(style: "picture"), color: nil, size: json["height"]?.double ?? 12,
                      picture: Self.picture(base64: json["imageData"]?.string))
        case "esriSLS":
            self.init(kind: .line(style: json["style"]?.string ?? "esriSLSSolid"), color: SymbolColor(json: json["color"]),
                      size: json["width"]?.double ?? 1)
        case "esriSFS", "esriPFS":
            self.init(kind: .fill(style: json["style"]?.string ?? "esriSFSSolid"), color: SymbolColor(json: json["color"]),
                      outline: outline, size: json["outline"]?["width"]?.double ?? 1)
        case "esriTS":
            self.init(kind: .text, color: SymbolColor(json: json["color"]))
        case let type where type.hasPrefix("CIM"):
            // Pro's symbols inside a classic renderer, as a mobile geodatabase's AdvancedDrawingInfo has them.
            self.init(cim: json)
        default:
            return nil
        }
    }

    /// What a feature of this geometry is drawn with when the renderer gives nothing usable.
    public static func fallback(for geometry: FeatureGeometryType) -> FeatureSymbol {
        let orange = SymbolColor(r: 230, g: 120, b: 20)
        switch geometry {
        case .point, .multipoint: return FeatureSymbol(kind: .marker(style: "esriSMSCircle"), color: orange, size: 8)
        case .polyline: return FeatureSymbol(kind: .line(style: "esriSLSSolid"), color: orange, size: 1)
        case .polygon: return FeatureSymbol(kind: .fill(style: "esriSFSSolid"), color: SymbolColor(r: 230, g: 120, b: 20, a: 90),
                                            outline: orange)
        }
    }
}

public enum FeatureGeometryType: String, Sendable, Equatable {
    case point = "esriGeometryPoint", multipoint = "esriGeometryMultipoint"
    case polyline = "esriGeometryPolyline", polygon = "esriGeometryPolygon"
}

/// One class of a renderer: the features it takes, its symbol and its legend label.
public struct RendererClass: Sendable, Equatable {
    public enum Match: Sendable, Equatable {
        /// Unique values: the attribute (or the fields joined by the delimiter), as text.
        case value(String)
        /// Class breaks: `lower < value <= upper` (the first class also takes its lower bound).
        case range(lower: Double, upper: Double, inclusiveLower: Bool)
    }

    public var match: Match
    public var label: String
    public var symbol: FeatureSymbol

    public init(match: Match, label: String, symbol: FeatureSymbol) { self.match = match; self.label = label; self.symbol = symbol }
}

/// A layer's `drawingInfo.renderer`: simple, unique value or class breaks, classic or CIM
/// (`CIMSymbology`). Other types (heat maps,
/// dot density, Arcade expressions) draw everything with the default symbol and say so.
public struct FeatureRenderer: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case simple
        case uniqueValue(fields: [String], delimiter: String)
        case classBreaks(field: String)
        case unsupported(type: String)
    }

    public var kind: Kind
    public var classes: [RendererClass]
    public var defaultSymbol: FeatureSymbol?
    public var defaultLabel: String?

    /// The renderer's type as the REST API names it: `simple`, `uniqueValue`, `classBreaks`, or what it was.
    public var kindName: String {
        switch kind {
        case .simple: "simple"
        case .uniqueValue: "uniqueValue"
        case .classBreaks: "classBreaks"
        case .unsupported(let type): TerminalText.sanitizedLine(type, maxLength: 40)
        }
    }

    public init(kind: Kind, classes: [RendererClass], defaultSymbol: FeatureSymbol? = nil, defaultLabel: String? = nil) {
        self.kind = kind; self.classes = classes; self.defaultSymbol = defaultSymbol; self.defaultLabel = defaultLabel
    }

    public init?(json: JSONValue?) {
        guard let json, let type = json["type"]?.string else { return nil }
        if type.hasPrefix("CIM") {
            self.init(cim: json)
            return
        }
        let defaultSymbol = FeatureSymbol(json: json["defaultSymbol"])
        let defaultLabel = json["defaultLabel"]?.string
        switch type {
        case "simple":
            let symbol = FeatureSymbol(json: json["symbol"])
            self.init(kind: .simple, classes: symbol.map { [RendererClass(match: .value(""), label: json["label"]?.string ?? "", symbol: $0)] } ?? [])
        case "uniqueValue" where json["field1"]?.string != nil:
            let fields = ["field1", "field2", "field3"].compactMap { json[$0]?.string }
            let classes = json["uniqueValueInfos"]?.array.compactMap { info -> RendererClass? in
                guard let value = info["value"]?.string, let symbol = FeatureSymbol(json: info["symbol"]) else { return nil }
                return RendererClass(match: .value(value), label: info["label"]?.string ?? value, symbol: symbol)
            } ?? []
            self.init(kind: .uniqueValue(fields: fields, delimiter: json["fieldDelimiter"]?.string ?? ","), classes: classes,
                      defaultSymbol: defaultSymbol, defaultLabel: defaultLabel)
        case "classBreaks" where json["field"]?.string != nil && json["normalizationType"]?.string.map({ $0 == "esriNormalizeNone" }) ?? true:
            var lower = json["minValue"]?.double ?? -Double.infinity
            var classes: [RendererClass] = []
            for info in json["classBreakInfos"]?.array ?? [] {
                guard let upper = info["classMaxValue"]?.double, let symbol = FeatureSymbol(json: info["symbol"]) else { continue }
                let from = info["classMinValue"]?.double ?? lower
                classes.append(RendererClass(match: .range(lower: from, upper: upper, inclusiveLower: classes.isEmpty), label: info["label"]?.string ?? "",
                                             symbol: symbol))
                lower = upper
            }
            self.init(kind: .classBreaks(field: json["field"]?.string ?? ""), classes: classes, defaultSymbol: defaultSymbol,
                      defaultLabel: defaultLabel)
        default:
            let symbol = FeatureSymbol(json: json["symbol"]) ?? defaultSymbol
            self.init(kind: .unsupported(type: type), classes: [], defaultSymbol: symbol, defaultLabel: defaultLabel)
        }
    }

    /// The class a feature falls in (its index into `classes`), nil for the default symbol.
    public func classIndex(of attributes: FeatureAttributes) -> Int? {
        switch kind {
        case .simple: return classes.isEmpty ? nil : 0
        case .unsupported: return nil
        case .uniqueValue(let fields, let delimiter):
            let parts = fields.map { attributes[$0]?.textValue ?? "<Null>" }
            let value = parts.joined(separator: delimiter)
            return classes.firstIndex { if case .value(let v) = $0.match { return v == value }; return false }
        case .classBreaks(let field):
            guard let number = attributes[field]?.double else { return nil }
            return classes.firstIndex { rendererClass in
                guard case .range(let lower, let upper, let inclusive) = rendererClass.match else { return false }
                return number <= upper && (number > lower || (inclusive && number == lower))
            }
        }
    }
}

/// A feature's attributes by field name.
public typealias FeatureAttributes = [String: JSONValue]

extension JSONValue {
    /// An attribute as a unique-value renderer compares it: numbers without a needless `.0`.
    var textValue: String? {
        switch self {
        case .string(let s): return s
        case .number, .bool: return string ?? (bool.map { $0 ? "true" : "false" })
        default: return nil
        }
    }
}

/// A field of a layer's schema.
public struct FeatureField: Sendable, Equatable {
    public var name: String
    public var alias: String?
    /// `esriFieldTypeString`, `esriFieldTypeDate`, `esriFieldTypeInteger`, …
    public var type: String
    /// A coded-value domain's names by code (the code's text: `3`, `"PAVED"`): shown instead of the code.
    public var codedValues: [String: String]
    /// What an editor may do with it: change it (`editable`), leave it empty (`nullable`), how many
    /// characters a text holds (`length`), the bounds of a range domain, the value a new feature gets.
    public var editable: Bool
    public var nullable: Bool
    public var length: Int?
    public var range: ClosedRange<Double>?
    public var defaultValue: JSONValue?

    public init(name: String, alias: String? = nil, type: String, codedValues: [String: String] = [:], editable: Bool = true,
                nullable: Bool = true, length: Int? = nil, range: ClosedRange<Double>? = nil, defaultValue: JSONValue? = nil) {
        self.name = name; self.alias = alias; self.type = type; self.codedValues = codedValues
        self.editable = editable; self.nullable = nullable; self.length = length; self.range = range; self.defaultValue = defaultValue
    }

    /// A field as a layer description gives it (`{name, alias, type, domain}`); nil without a name.
    public init?(json field: JSONValue) {
        guard let name = field["name"]?.string else { return nil }
        let domain = FieldDomain(json: field["domain"])
        let type = field["type"]?.string ?? "esriFieldTypeString"
        // Kept by the server, never by an editor: the object id, the GlobalID, shapes' own measures.
        let serverKept = ["esriFieldTypeOID", "esriFieldTypeGlobalID", "esriFieldTypeGeometry"].contains(type)
        let length = field["length"]?.double.flatMap { $0 >= 1 && $0 <= 1_073_741_824 ? Int($0) : nil }
        self.init(name: name, alias: field["alias"]?.string, type: type, codedValues: domain?.codedValues ?? [:],
                  editable: !serverKept && (field["editable"]?.bool ?? true), nullable: field["nullable"]?.bool ?? true,
                  length: type == "esriFieldTypeString" ? length : nil, range: domain?.range,
                  defaultValue: field["defaultValue"].flatMap { $0 == .null ? nil : $0 })
    }

    /// A code as the domain's table keys it: numbers without a needless `.0`.
    public static func codeText(_ value: JSONValue) -> String? {
        switch value {
        case .number(let n) where n.isFinite: return n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
        case .string(let s): return s
        default: return nil
        }
    }

    public var isDate: Bool { type == "esriFieldTypeDate" || type == "esriFieldTypeDateOnly" || type == "esriFieldTypeTimestampOffset" }
}

/// A layer's labels: the attribute text of `labelingInfo`'s first class (`[FIELD]` expressions, or
/// Arcade that is `$feature.FIELD`), and the scales it shows at.
public struct FeatureLabeling: Sendable, Equatable {
    /// Literal text and field names, in order.
    public enum Part: Sendable, Equatable { case text(String), field(String) }

    public var parts: [Part]
    public var color: SymbolColor?
    public var minScale: Double
    public var maxScale: Double

    public init(parts: [Part], color: SymbolColor? = nil, minScale: Double = 0, maxScale: Double = 0) {
        self.parts = parts; self.color = color; self.minScale = minScale; self.maxScale = maxScale
    }

    public init?(json: JSONValue?) {
        guard let info = json?.array.first else { return nil }
        var parts: [Part] = []
        if let arcade = info["labelExpressionInfo"]?["expression"]?.string {
            parts = Self.arcadeParts(arcade)
        }
        if parts.isEmpty, let expression = info["labelExpression"]?.string {
            parts = Self.bracketParts(expression)
        }
        guard parts.contains(where: { if case .field = $0 { return true }; return false }) else { return nil }
        self.init(parts: parts, color: SymbolColor(json: info["symbol"]?["color"]), minScale: info["minScale"]?.double ?? 0,
                  maxScale: info["maxScale"]?.double ?? 0)
    }

    /// `[NAME] [TYPE]`: fields in brackets, text between.
    static func bracketParts(_ expression: String) -> [Part] {
        var parts: [Part] = []
        var rest = Substring(expression)
        while let open = rest.firstIndex(of: "["), let close = rest[open...].firstIndex(of: "]") {
            if open > rest.startIndex { parts.append(.text(String(rest[..<open]))) }
            parts.append(.field(String(rest[rest.index(after: open)..<close])))
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { parts.append(.text(String(rest))) }
        return parts
    }

    /// Arcade of the simplest kind: `$feature.NAME`, `$feature["NAME"]`, joined by `+` with string
    /// literals. Anything else gives no parts (the layer then goes without labels).
    static func arcadeParts(_ expression: String) -> [Part] {
        var parts: [Part] = []
        for term in expression.split(separator: "+") {
            let t = term.trimmingCharacters(in: .whitespacesAndNewlines)
            if t.hasPrefix("$feature.") {
                let name = t.dropFirst("$feature.".count)
                guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { return [] }
                parts.append(.field(String(name)))
            } else if t.hasPrefix("$feature["), t.hasSuffix("]") {
                let inner = t.dropFirst("$feature[".count).dropLast().trimmingCharacters(in: CharacterSet(charactersIn: "\"' "))
                guard !inner.isEmpty else { return [] }
                parts.append(.field(inner))
            } else if t.count >= 2, let q = t.first, q == "\"" || q == "'", t.last == q {
                parts.append(.text(String(t.dropFirst().dropLast())))
            } else {
                return []
            }
        }
        return parts
    }

    /// The label of a feature; nil when every field it names is empty.
    public func text(for attributes: FeatureAttributes) -> String? {
        var out = "", anyValue = false
        for part in parts {
            switch part {
            case .text(let t): out += t
            case .field(let name):
                if let value = attributes[name]?.textValue, !value.isEmpty { out += value; anyValue = true }
            }
        }
        let line = TerminalText.sanitizedLine(out, maxLength: 60).trimmingCharacters(in: .whitespaces)
        return anyValue && !line.isEmpty ? line : nil
    }
}

/// What a layer's `capabilities` allow of editing: features added (`Create`), changed (`Update`),
/// deleted (`Delete`). A description that does not say allows them (the server decides at sync).
public struct EditCapabilities: Sendable, Equatable {
    public enum Edit: String, Sendable { case add, update, delete }

    /// The capabilities listed, lower-cased; nil when the description lists none.
    public var listed: Set<String>?

    public init(listed: Set<String>? = nil) { self.listed = listed }

    public init(json: JSONValue) {
        listed = json["capabilities"]?.string.map { Set($0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }) }
    }

    /// Why `layer` takes no edit of this kind, or nil when it does.
    public func refusal(of edit: Edit, layer: String) -> String? {
        let needed = switch edit { case .add: "create"; case .update: "update"; case .delete: "delete" }
        guard let listed, !listed.contains(needed) else { return nil }
        let done = switch edit { case .add: "added"; case .update: "changed"; case .delete: "deleted" }
        let allowed = listed.isEmpty ? "nothing" : listed.sorted().joined(separator: ", ")
        return "\(TerminalText.sanitizedLine(layer, maxLength: 60)) is read-only on its service: features cannot be \(done) (it allows \(TerminalText.sanitizedLine(allowed, maxLength: 120)))."
    }
}

/// A feature layer's description (`{layer url}?f=json`), with the web map's overrides applied:
/// what mapbook needs to query, draw, label and identify it.
public struct FeatureLayerInfo: Sendable, Equatable {
    public var name: String
    public var geometryType: FeatureGeometryType
    public var fields: [FeatureField]
    public var objectIDField: String?
    public var displayField: String?
    public var renderer: FeatureRenderer
    public var labeling: FeatureLabeling?
    /// Visible at scales finer than `minScale` and coarser than `maxScale`; 0 means no limit.
    public var minScale: Double
    public var maxScale: Double
    public var maxRecordCount: Int
    public var supportsPagination: Bool
    public var definitionExpression: String?
    public var popup: PopupInfo?
    public var editCapabilities = EditCapabilities()
    /// Whether the service keeps attachments for the layer's features; nil when its description does not say.
    public var hasAttachments: Bool?
    /// Its feature types (subtypes), each with its own domains and defaults.
    public var types: FeatureTypes?

    public init(name: String, geometryType: FeatureGeometryType, fields: [FeatureField] = [], objectIDField: String? = nil,
                displayField: String? = nil, renderer: FeatureRenderer, labeling: FeatureLabeling? = nil, minScale: Double = 0,
                maxScale: Double = 0, maxRecordCount: Int = 1000, supportsPagination: Bool = true, definitionExpression: String? = nil,
                popup: PopupInfo? = nil) {
        self.name = name; self.geometryType = geometryType; self.fields = fields; self.objectIDField = objectIDField
        self.displayField = displayField; self.renderer = renderer; self.labeling = labeling; self.minScale = minScale
        self.maxScale = maxScale; self.maxRecordCount = maxRecordCount; self.supportsPagination = supportsPagination
        self.definitionExpression = definitionExpression; self.popup = popup
    }

    /// Reads a layer description. `overrides` is the web map's `layerDefinition` (its renderer,
    /// labels, scales and definition expression win); `popupInfo` the web map's popup for the layer.
    /// Nil for layers that are not feature layers with a geometry (tables, group layers).
    public init?(json: JSONValue, overrides: JSONValue? = nil, popupInfo: JSONValue? = nil, title: String? = nil) {
        guard let geometry = json["geometryType"]?.string.flatMap(FeatureGeometryType.init(rawValue:)) else { return nil }
        func pick(_ key: String) -> JSONValue? { overrides?[key] ?? json[key] }
        let drawing = overrides?["drawingInfo"] ?? json["drawingInfo"]
        let fields = (json["fields"]?.array ?? []).compactMap(FeatureField.init(json:))
        let renderer = FeatureRenderer(json: drawing?["renderer"])
            ?? FeatureRenderer(kind: .unsupported(type: "none"), classes: [], defaultSymbol: nil)
        let expression = (overrides?["definitionExpression"]?.string ?? json["definitionExpression"]?.string)
            .flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
        let pagination = json["advancedQueryCapabilities"]?["supportsPagination"]?.bool ?? (json["supportsPagination"]?.bool ?? false)
        let name = title ?? json["name"]?.string ?? "Layer"
        self.init(name: name, geometryType: geometry, fields: fields,
                  objectIDField: json["objectIdField"]?.string ?? fields.first { $0.type == "esriFieldTypeOID" }?.name,
                  displayField: json["displayField"]?.string, renderer: renderer,
                  labeling: (overrides?["showLabels"]?.bool ?? true) ? FeatureLabeling(json: drawing?["labelingInfo"]) : nil,
                  minScale: max(pick("minScale")?.double ?? 0, 0), maxScale: max(pick("maxScale")?.double ?? 0, 0),
                  // 0 or less is no limit said: ArcGIS's default, not one feature a page.
                  maxRecordCount: json["maxRecordCount"]?.int64.map { Int(clamping: $0) }.flatMap { $0 > 0 ? $0 : nil } ?? 1000,
                  supportsPagination: pagination, definitionExpression: expression,
                  popup: popupInfo.flatMap(PopupInfo.init(json:)))
        editCapabilities = EditCapabilities(json: json)
        hasAttachments = json["hasAttachments"]?.bool
        types = FeatureTypes(json: json)
        if json["type"]?.string == "Annotation Layer", let annotation = asAnnotation() { self = annotation }
    }

    /// An annotation class (text its author placed, `TextString` in a box the shape outlines) as
    /// mapbook draws it: the text where it was placed, through the label pass (never over another
    /// name), the box itself not drawn. Nil when the layer has no `TextString` field.
    public func asAnnotation() -> FeatureLayerInfo? {
        guard let text = field("TextString") else { return nil }
        var info = self
        let nothing = FeatureSymbol(kind: .fill(style: "esriSFSNull"), color: SymbolColor(r: 0, g: 0, b: 0, a: 0))
        info.renderer = FeatureRenderer(kind: .simple, classes: [RendererClass(match: .value(""), label: name, symbol: nothing)], defaultSymbol: nil)
        info.labeling = FeatureLabeling(parts: [.field(text.name)], color: labeling?.color)
        return info
    }

    /// Whether the layer shows at a map scale (1:scale).
    public func isVisible(atScale scale: Double) -> Bool {
        (minScale == 0 || scale <= minScale) && (maxScale == 0 || scale >= maxScale)
    }

    public func field(_ name: String) -> FeatureField? { fields.first { $0.name == name } ?? fields.first { $0.name.lowercased() == name.lowercased() } }

    /// The symbol and class of a feature: its renderer class, else the default symbol, else a
    /// fallback for the geometry (a renderer mapbook cannot read still draws its features).
    public func symbol(for attributes: FeatureAttributes) -> (symbol: FeatureSymbol, classIndex: Int?) {
        if let index = renderer.classIndex(of: attributes) { return (renderer.classes[index].symbol, index) }
        return (renderer.defaultSymbol ?? .fallback(for: geometryType), nil)
    }

    /// A sentence for the footer when the renderer could not be read.
    public var rendererProblem: String? {
        guard case .unsupported(let type) = renderer.kind else { return nil }
        return "\(TerminalText.sanitizedLine(name, maxLength: 60)): its \(TerminalText.sanitizedLine(type, maxLength: 40)) renderer is drawn with one symbol."
    }
}

/// A feature of a feature layer: its geometry in longitude/latitude (nil when it had none or it was
/// unusable) and its attributes.
public struct LayerFeature: Sendable, Equatable {
    public var geometry: GeoGeometry?
    public var attributes: FeatureAttributes
    /// Its points' heights (Z) and measures (M), when its source keeps them: one per point in the
    /// order the source stored them (NaN where a point has none). Drawing is flat; these are data.
    public var z: [Double]?
    public var m: [Double]?

    public init(geometry: GeoGeometry?, attributes: FeatureAttributes, z: [Double]? = nil, m: [Double]? = nil) {
        self.geometry = geometry; self.attributes = attributes; self.z = z; self.m = m
    }

    public var extent: GeoExtent? { geometry?.extent }
}
