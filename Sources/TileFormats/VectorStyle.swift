import Foundation
import MapbookCore

/// A Mapbox GL style (version 8), as `.vtpk` packages and vector tile services carry it: the layers
/// in drawing order, each with its source layer, zoom range, filter, layout and paint. Expressions
/// stay JSON here; the renderer evaluates them.
public struct VectorStyle: Sendable, Equatable {
    public var version: Int
    public var name: String?
    public var layers: [StyleLayer]
    /// Layers without an id or a type, which the style spec requires: left out, and counted.
    public var skippedLayerCount: Int
    /// The first credit line among the style's sources, as written (may hold HTML).
    public var attribution: String?

    public init(data: Data) throws(TileFormatError) {
        let json: JSONValue
        do { json = try JSONValue(parsing: data) } catch { throw .malformed("the style is not valid JSON") }
        guard json.object != nil, let layers = json["layers"], case .array(let items) = layers else {
            throw .malformed("the style has no layers")
        }
        version = Int(json["version"]?.int64 ?? 8)
        name = json["name"]?.string
        self.layers = items.compactMap(StyleLayer.init(json:))
        skippedLayerCount = items.count - self.layers.count
        attribution = json["sources"]?.object?.keys.sorted().lazy.compactMap { json["sources"]?[$0]?["attribution"]?.string }.first
    }
}

public struct StyleLayer: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case background, fill, line, symbol, circle, raster, hillshade, heatmap
        case fillExtrusion = "fill-extrusion"
        case unknown
    }

    public var id: String
    public var type: Kind
    public var source: String?
    public var sourceLayer: String?
    public var minZoom: Double?
    public var maxZoom: Double?
    public var filter: JSONValue?
    public var layout: JSONValue
    public var paint: JSONValue

    public var isVisible: Bool { layout["visibility"]?.string != "none" }

    init?(json: JSONValue) {
        guard let id = json["id"]?.string, let type = json["type"]?.string else { return nil }
        self.id = id
        self.type = Kind(rawValue: type) ?? .unknown
        source = json["source"]?.string
        sourceLayer = json["source-layer"]?.string
        minZoom = json["minzoom"]?.double
        maxZoom = json["maxzoom"]?.double
        filter = json["filter"]
        layout = json["layout"] ?? .object([:])
        paint = json["paint"] ?? .object([:])
    }
}
