import Foundation
import MapbookCore

/// A web map's feature layer as its service describes it: the description's JSON (kept for
/// offline copies), and what it reads as with the web map's overrides.
public struct FeatureLayerDescription: Sendable {
    public var url: URL
    public var json: JSONValue
    public var info: FeatureLayerInfo

    public init(url: URL, json: JSONValue, info: FeatureLayerInfo) { self.url = url; self.json = json; self.info = info }
}

/// The features of one query, paged: decoded, and as the service sent them (for offline copies).
public struct FeatureQueryResult: Sendable {
    public var features: [LayerFeature]
    public var featureJSON: [JSONValue]
    /// More matched than `limit` (or than a service without paging sends at once).
    public var isCapped: Bool

    public init(features: [LayerFeature], featureJSON: [JSONValue], isCapped: Bool) {
        self.features = features; self.featureJSON = featureJSON; self.isCapped = isCapped
    }
}

public struct FeatureServiceError: UserFacingError, Equatable {
    public let userMessage: String
    public init(_ message: String) { userMessage = message }
}

/// The feature service REST operations mapbook uses: a layer's description and `query`.
extension PortalClient {
    /// `{url}?f=json` for a web map layer, read with the web map's `layerDefinition` and `popupInfo`.
    public func featureLayer(_ layer: WebMapLayer) async throws -> FeatureLayerDescription {
        guard let text = layer.url, let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
            throw FeatureServiceError("\(Self.layerTitle(layer)) has no address mapbook can ask.")
        }
        await learnFederation(of: url)
        let json = try await getJSON(url, [], query: [])
        guard let info = FeatureLayerInfo(json: json, overrides: layer.layerDefinition, popupInfo: layer.popupInfo, title: layer.title) else {
            throw FeatureServiceError("\(Self.layerTitle(layer)) is not a layer of features with a geometry.")
        }
        return FeatureLayerDescription(url: url, json: json, info: info)
    }

    /// The layer's features that meet `extent` (WGS84 in and out), all fields, the layer's
    /// definition expression applied, paged by `resultOffset` while the service says it held some
    /// back, and at most `limit`.
    public func queryFeatures(_ layer: FeatureLayerDescription, within extent: GeoExtent, limit: Int) async throws -> FeatureQueryResult {
        let pageSize = max(min(layer.info.maxRecordCount, 2000, limit), 1)
        var features: [LayerFeature] = [], raw: [JSONValue] = []
        var offset = 0
        while true {
            var query = [
                ("where", layer.info.definitionExpression ?? "1=1"),
                ("geometry", "\(extent.xmin),\(extent.ymin),\(extent.xmax),\(extent.ymax)"),
                ("geometryType", "esriGeometryEnvelope"), ("inSR", "4326"), ("spatialRel", "esriSpatialRelIntersects"),
                ("outFields", "*"), ("returnGeometry", "true"), ("outSR", "4326"),
            ]
            if layer.info.supportsPagination {
                query += [("resultOffset", String(offset)), ("resultRecordCount", String(min(pageSize, limit - features.count)))]
            }
            let json = try await getJSON(layer.url, ["query"], query: query)
            let page = EsriFeatures.features(in: json)
            let pageJSON = json["features"]?.array ?? []
            features += page.features
            raw += pageJSON
            offset += page.features.count
            if features.count >= limit {
                return FeatureQueryResult(features: Array(features.prefix(limit)), featureJSON: Array(raw.prefix(limit)),
                                          isCapped: page.exceededTransferLimit || features.count > limit)
            }
            // A service without paging, or a page that brought nothing, ends it: what was sent is all there is.
            guard page.exceededTransferLimit else { return FeatureQueryResult(features: features, featureJSON: raw, isCapped: false) }
            guard layer.info.supportsPagination, !page.features.isEmpty else {
                return FeatureQueryResult(features: features, featureJSON: raw, isCapped: true)
            }
        }
    }

    static func layerTitle(_ layer: WebMapLayer) -> String {
        TerminalText.sanitizedLine(layer.title ?? layer.id ?? "A layer", maxLength: 80)
    }
}
