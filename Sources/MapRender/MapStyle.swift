import Foundation
import MapbookCore
import Synchronization
import TileFormats

/// The style a map view draws with: a package's Mapbox GL style, or a plain one for packages
/// without, which draws every layer (areas filled, lines and outlines, points, `name` labels).
public struct MapStyle: Sendable {
    public let layers: [StyleLayer]
    /// Each layer's filter, compiled: `filters[i]` is `layers[i].filter`'s.
    let filters: [FeatureFilter]
    /// Whether this is the stand-in for a package without a style.
    public let isDefault: Bool
    /// Which style this is, for what a tile keeps of its drawing by it (`PreparedLayer.names`).
    let id: UInt64

    private static let made = Atomic<UInt64>(0)

    public init(_ style: VectorStyle) {
        self.init(layers: style.layers, isDefault: false)
    }

    init(defaultLayers: [StyleLayer]) {
        self.init(layers: defaultLayers, isDefault: true)
    }

    private init(layers: [StyleLayer], isDefault: Bool) {
        self.layers = layers
        filters = layers.map { FeatureFilter($0.filter) }
        self.isDefault = isDefault
        id = Self.made.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// Source layers in the order the style first draws them: what the layer list toggles.
    public var sourceLayers: [String] {
        var seen = Set<String>()
        return layers.compactMap { layer in
            guard let name = layer.sourceLayer, layer.isVisible, !seen.contains(name) else { return nil }
            seen.insert(name)
            return name
        }
    }

    /// For tiles without a style, whose layer names are unknown: every layer drawn alike (layers
    /// without a `source-layer` apply to all of them).
    public static let plain = MapStyle(defaultLayers: PlainStyle.layers(for: nil))

    /// For tiles without a style whose layer names are known: water blue, green spaces green,
    /// roads grey, borders dashed-dim, contours and hillshading left out, places named last (so
    /// they win over road names).
    public static func plain(layerNames: [String]) -> MapStyle {
        layerNames.isEmpty ? plain : MapStyle(defaultLayers: PlainStyle.layers(for: layerNames))
    }
}

/// The default style, as style JSON so it goes through the same evaluator as any package's.
enum PlainStyle {
    enum Role: CaseIterable { case water, land, building, waterway, road, boundary, other, points, skip }

    static func role(of name: String) -> Role {
        let n = name.lowercased()
        func has(_ words: String...) -> Bool { words.contains { n.contains($0) } }
        if has("contour", "hillshade", "terrain", "elevation") { return .skip }
        if has("waterway", "river", "stream") { return .waterway }
        if has("water", "ocean", "sea", "lake") { return .water }
        if has("building") { return .building }
        if has("road", "street", "transport", "highway", "rail", "path", "tunnel", "bridge", "aeroway") { return .road }
        if has("admin", "boundary", "border") { return .boundary }
        if has("place", "poi", "label", "housenum", "name") { return .points }
        if has("land", "park", "green", "wood", "forest", "grass") { return .land }
        return .other
    }

    static func layers(for names: [String]?) -> [StyleLayer] {
        func layer(_ id: String, _ type: String, source: String?, filter: JSONValue? = nil, paint: [String: JSONValue],
                   layout: [String: JSONValue] = [:]) -> JSONValue {
            var object: [String: JSONValue] = ["id": .string(id), "type": .string(type), "paint": .object(paint),
                                               "layout": .object(layout)]
            if let source { object["source-layer"] = .string(source) }
            if let filter { object["filter"] = filter }
            return .object(object)
        }
        func type(_ name: String) -> JSONValue { .array([.string("=="), .string("$type"), .string(name)]) }
        func color(_ hex: String) -> JSONValue { .string(hex) }
        var layers: [JSONValue] = [layer("background", "background", source: nil, paint: ["background-color": color("#f2efe9")])]
        let groups: [(Role, [String?])]
        if let names {
            groups = Role.allCases.map { role in (role, names.filter { Self.role(of: $0) == role }.map(Optional.some)) }
        } else {
            groups = [(.other, [nil])]
        }
        var labels: [JSONValue] = []
        for (role, sources) in groups where role != .skip {
            for source in sources {
                let id = source ?? "all"
                switch role {
                case .water:
                    layers.append(layer("\(id) fill", "fill", source: source, filter: type("Polygon"), paint: ["fill-color": color("#a9cbe0")]))
                    layers.append(layer("\(id) line", "line", source: source, filter: type("LineString"), paint: ["line-color": color("#6a9cc0")]))
                case .waterway:
                    layers.append(layer(id, "line", source: source, paint: ["line-color": color("#6a9cc0")]))
                case .land:
                    layers.append(layer(id, "fill", source: source, filter: type("Polygon"), paint: ["fill-color": color("#d9e6c9")]))
                case .building:
                    layers.append(layer(id, "fill", source: source, filter: type("Polygon"), paint: ["fill-color": color("#d8d0c8")]))
                case .road:
                    layers.append(layer(id, "line", source: source, filter: type("LineString"), paint: ["line-color": color("#8a8a8a")]))
                case .boundary:
                    layers.append(layer(id, "line", source: source, filter: type("LineString"), paint: ["line-color": color("#a07aa0")]))
                case .other:
                    layers.append(layer("\(id) fill", "fill", source: source, filter: type("Polygon"), paint: ["fill-color": color("#e4e0d4")]))
                    layers.append(layer("\(id) line", "line", source: source, filter: type("LineString"), paint: ["line-color": color("#6d6d6d")]))
                    layers.append(layer("\(id) point", "circle", source: source, filter: type("Point"), paint: ["circle-color": color("#303030")]))
                case .points:
                    layers.append(layer("\(id) point", "circle", source: source, filter: type("Point"), paint: ["circle-color": color("#303030")]))
                case .skip:
                    break
                }
                labels.append(layer("\(id) labels", "symbol", source: source, paint: ["text-color": color("#202020")],
                                    layout: ["text-field": .string("{name}")]))
            }
        }
        let json: JSONValue = .object(["version": .number(8), "layers": .array(layers + labels)])
        let data = (try? JSONEncoder().encode(json)) ?? Data()
        return (try? VectorStyle(data: data))?.layers ?? []
    }
}
