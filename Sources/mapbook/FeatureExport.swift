import ArcGISModel
import Foundation
import Geodatabase
import Geometry
import MapbookCore

/// `mapbook package features`: a geodatabase layer's features as GeoJSON that GIS tools read as a
/// layer — one geometry type for all of it (the Multi form when any feature has several parts),
/// each feature's object id as its `id`, the properties in the layer's field order, and the fields
/// with their aliases and types beside the features (`fields`, a foreign member RFC 7946 allows).
/// One feature a line by default; `--pretty` indents for people.
struct FeatureExport {
    let layer: GeodatabaseLayer
    /// The properties written, in order (`--fields`, else every field of the layer).
    let fields: [FeatureField]
    let pretty: Bool
    /// `--crs`: coordinates written in that system instead of longitude and latitude.
    var output: (system: NamedCoordinateSystem, transform: CoordinateTransform)?

    /// The layer's fields named in `names` (any case), in that order; all of them without names.
    static func fields(of layer: GeodatabaseLayer, named names: [String]?) throws -> [FeatureField] {
        let all = layer.info.fields.filter { $0.type != "esriFieldTypeGeometry" }
        guard let names else { return all }
        return try names.map { name in
            guard let field = all.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) else {
                throw PackageCommandError.noField(TerminalText.sanitizedLine(name, maxLength: 80),
                                                  all.map { TerminalText.sanitizedLine($0.name, maxLength: 80) }.joined(separator: ", "))
            }
            return field
        }
    }

    /// The collection, whole: the geometry type is chosen once every feature is known.
    func document(_ features: [LayerFeature]) -> String {
        let multi = features.contains { feature in
            switch feature.geometry {
            case .points(let p)?: p.count > 1
            case .lines(let l)?: l.count > 1
            case .polygons(let p)?: p.count > 1
            case nil: false
            }
        }
        let described = fields.map { field in
            JSON.object([("name", .value(.string(field.name))), ("alias", .value(field.alias.map(JSONValue.string) ?? .null)),
                         ("type", .value(.string(field.type)))])
        }
        var out = "{\"type\":\"FeatureCollection\",\"name\":\(JSON.value(.string(layer.info.name)).text(pretty: false)),"
        if let output { out += "\"crs\":{\"type\":\"name\",\"properties\":{\"name\":\"\(output.system.urn)\"}}," }
        out += "\"fields\":" + JSON.array(described).text(pretty: false) + ",\"features\":[\n"
        out += features.map { feature(of: $0, multi: multi).text(pretty: pretty) }.joined(separator: ",\n")
        return out + "\n]}\n"
    }

    private func feature(of feature: LayerFeature, multi: Bool) -> JSON {
        let id = layer.info.objectIDField.flatMap { feature.attributes[$0]?.int64 }
        let properties = fields.map { ($0.name, JSON.value(feature.attributes[$0.name] ?? .null)) }
        return .object([("type", .value(.string("Feature"))), ("id", .value(id.map { .number(Double($0)) } ?? .null)),
                        ("geometry", feature.geometry.map { geometry($0, multi: multi, z: feature.z) } ?? .value(.null)),
                        ("properties", .object(properties))])
    }

    /// A geometry with each point's height as its third coordinate, when the layer keeps heights.
    private func geometry(_ geometry: GeoGeometry, multi: Bool, z: [Double]?) -> JSON {
        var heights = z?.makeIterator()
        func position(_ p: GeoPoint) -> JSON {
            let height = heights?.next().flatMap { $0.isFinite ? JSONValue.number($0) : nil }
            let (x, y) = output.map { $0.transform(x: p.longitude, y: p.latitude) } ?? (p.longitude, p.latitude)
            // Outside the system's area PROJ gives no point: null, never infinity, which JSON cannot hold.
            let position: [JSONValue] = x.isFinite && y.isFinite ? [.number(x), .number(y)] : [.null, .null]
            return .value(.array(position + (height.map { [$0] } ?? [])))
        }
        func line(_ points: [GeoPoint]) -> JSON { .array(points.map(position)) }
        func polygon(_ rings: [[GeoPoint]]) -> JSON { .array(rings.map(line)) }
        let (type, coordinates): (String, JSON) = switch geometry {
        case .points(let p): multi ? ("MultiPoint", line(p)) : ("Point", position(p[0]))
        case .lines(let l): multi ? ("MultiLineString", .array(l.map(line))) : ("LineString", line(l[0]))
        case .polygons(let p): multi ? ("MultiPolygon", .array(p.map(polygon))) : ("Polygon", polygon(p[0]))
        }
        return .object([("type", .value(.string(type))), ("coordinates", coordinates)])
    }
}

/// JSON written in the order given (JSONEncoder sorts or scrambles keys), strings with every
/// control and format character escaped: a terminal shows the file's text inert, a tool reads it whole.
enum JSON {
    case value(JSONValue)
    case object([(String, JSON)])
    case array([JSON])

    func text(pretty: Bool, indent: String = "") -> String {
        let inner = indent + "  ", gap = pretty ? ": " : ":"
        switch self {
        case .object(let members):
            guard !members.isEmpty else { return "{}" }
            let parts = members.map { Self.quoted($0.0) + gap + $0.1.text(pretty: pretty, indent: inner) }
            return pretty ? "{\n" + inner + parts.joined(separator: ",\n" + inner) + "\n" + indent + "}" : "{" + parts.joined(separator: ",") + "}"
        case .array(let items):
            let parts = items.map { $0.text(pretty: false) }
            return "[" + parts.joined(separator: ",") + "]"
        case .value(let value):
            switch value {
            case .null: return "null"
            case .bool(let b): return b ? "true" : "false"
            case .number(let n): return Self.number(n)
            case .string(let s): return Self.quoted(s)
            case .array(let items): return JSON.array(items.map(JSON.value)).text(pretty: false)
            case .object(let members): return JSON.object(members.sorted { $0.key < $1.key }.map { ($0.key, .value($0.value)) }).text(pretty: pretty, indent: indent)
            }
        }
    }

    /// Whole numbers as integers, others in the shortest form that reads back the same; not-a-number as null.
    static func number(_ n: Double) -> String {
        guard n.isFinite else { return "null" }
        if n == n.rounded(), abs(n) < 1e15, let whole = n.int64() { return String(whole) }
        return "\(n)"
    }

    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.properties.generalCategory == .format:
                for unit in String(scalar).utf16 { out += String(format: "\\u%04x", unit) }
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
