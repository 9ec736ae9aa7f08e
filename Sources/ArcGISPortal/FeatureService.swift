import Foundation
import MapbookCore
import ArcGISModel
import Geometry

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
    /// Why paging stopped before the service said it was done, when it did: one sentence.
    public var stopped: String?
    /// How many matching features were left out at the limit, when the service told (by id).
    public var leftOut: Int?

    public init(features: [LayerFeature], featureJSON: [JSONValue], isCapped: Bool, stopped: String? = nil, leftOut: Int? = nil) {
        self.features = features; self.featureJSON = featureJSON; self.isCapped = isCapped; self.stopped = stopped
        self.leftOut = leftOut
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

    /// The most `query` requests one call makes, and the longest it pages: a service that keeps
    /// saying it held features back must not keep mapbook asking for minutes.
    public static let maxQueryPages = 100
    public static let queryBudget = Duration.seconds(90)

    /// The layer's features that meet `extent` (WGS84 in and out), all fields, the layer's
    /// definition expression applied, paged by `resultOffset` while the service says it held some
    /// back, and at most `limit`. Paging stops, saying why, when a page brings no feature not seen
    /// before (by object id), at `maxQueryPages`, or when `budget` has passed.
    public func queryFeatures(_ layer: FeatureLayerDescription, within extent: GeoExtent, limit: Int,
                              budget: Duration = PortalClient.queryBudget) async throws -> FeatureQueryResult {
        let pageSize = max(min(layer.info.maxRecordCount, 2000, limit), 1)
        let started = ContinuousClock.now
        var features: [LayerFeature] = [], raw: [JSONValue] = [], seen: Set<String> = []
        var offset = 0
        func result(capped: Bool, stopped: String? = nil) -> FeatureQueryResult {
            FeatureQueryResult(features: Array(features.prefix(limit)), featureJSON: Array(raw.prefix(limit)),
                               isCapped: capped || features.count > limit, stopped: stopped)
        }
        for pageNumber in 1...Self.maxQueryPages {
            var query = Self.filter(layer, extent) + Self.featuresWanted
            if layer.info.supportsPagination {
                query += [("resultOffset", String(offset)), ("resultRecordCount", String(min(pageSize, limit - features.count)))]
            }
            let json = try await getJSON(layer.url, ["query"], query: query)
            let page = EsriFeatures.features(in: json)
            let pageJSON = json["features"]?.array ?? []
            var fresh = 0
            for (feature, json) in zip(page.features, pageJSON) {
                // A feature already taken (the same page sent again) is not taken twice.
                if let id = Self.objectID(of: feature, field: layer.info.objectIDField) {
                    guard seen.insert(id).inserted else { continue }
                }
                features.append(feature)
                raw.append(json)
                fresh += 1
            }
            offset += page.features.count
            if features.count >= limit { return result(capped: page.exceededTransferLimit || features.count > limit) }
            guard page.exceededTransferLimit else { return result(capped: false) }
            // A service that holds features back but cannot page: the rest by object id.
            guard layer.info.supportsPagination else {
                return try await restByObjectID(layer, extent: extent, limit: limit, pageSize: pageSize, started: started, budget: budget,
                                                features: &features, raw: &raw, seen: &seen)
            }
            guard !page.features.isEmpty else { return result(capped: true) }
            guard fresh > 0 else {
                return result(capped: true, stopped: "The service kept saying it held features back but sent none not seen before; stopped after \(pageNumber) pages.")
            }
            if ContinuousClock.now - started > budget {
                return result(capped: true, stopped: "Paging through the service took over \(budget.components.seconds) s; stopped after \(pageNumber) pages.")
            }
        }
        return result(capped: true, stopped: "The service kept saying it held features back; stopped after \(Self.maxQueryPages) pages.")
    }

    /// Object ids at most per request: ids go in the address (a GET), which some servers cut at a
    /// few kilobytes.
    static let idsPerRequest = 250

    /// For a layer without pagination: every matching object id (`returnIdsOnly`, the same where
    /// and envelope), then the features not yet taken, in batches of its page size, up to `limit`.
    /// Past the limit, the result says how many were left out.
    private func restByObjectID(_ layer: FeatureLayerDescription, extent: GeoExtent, limit: Int, pageSize: Int, started: ContinuousClock.Instant,
                                budget: Duration, features: inout [LayerFeature], raw: inout [JSONValue],
                                seen: inout Set<String>) async throws -> FeatureQueryResult {
        let answer = try await getJSON(layer.url, ["query"], query: Self.filter(layer, extent) + [("returnIdsOnly", "true")])
        let idField = answer["objectIdFieldName"]?.string ?? layer.info.objectIDField
        let ids = (answer["objectIds"]?.array ?? []).compactMap { $0.int64 }.sorted().map(String.init)
        let wanted = ids.filter { !seen.contains($0) }
        let asked = wanted.prefix(max(limit - features.count, 0))
        let batchSize = max(min(pageSize, Self.idsPerRequest), 1)
        let before = features.count
        var stopped: String?
        for (number, batch) in stride(from: asked.startIndex, to: asked.endIndex, by: batchSize).enumerated() {
            if ContinuousClock.now - started > budget {
                stopped = "Fetching the service's features by id took over \(budget.components.seconds) s; stopped."
                break
            }
            if number == Self.maxQueryPages {
                stopped = "The service's features by id took over \(Self.maxQueryPages) requests; stopped."
                break
            }
            let chunk = asked[batch..<min(batch + batchSize, asked.endIndex)]
            let json = try await getJSON(layer.url, ["query"], query: [("objectIds", chunk.joined(separator: ","))] + Self.featuresWanted)
            let page = EsriFeatures.features(in: json)
            for (feature, json) in zip(page.features, json["features"]?.array ?? []) {
                if let id = Self.objectID(of: feature, field: idField) {
                    guard seen.insert(id).inserted else { continue }
                }
                features.append(feature)
                raw.append(json)
            }
        }
        // Those past the limit, and any the service did not send when asked by id.
        let leftOut = max(wanted.count - (features.count - before), 0)
        return FeatureQueryResult(features: Array(features.prefix(limit)), featureJSON: Array(raw.prefix(limit)),
                                  isCapped: leftOut > 0 || stopped != nil, stopped: stopped, leftOut: leftOut > 0 ? leftOut : nil)
    }

    /// Which features a query meets: the layer's definition and an envelope in WGS84.
    static func filter(_ layer: FeatureLayerDescription, _ extent: GeoExtent) -> [(String, String)] {
        filter(extent, where: layer.info.definitionExpression ?? "1=1")
    }

    /// The features that meet `extent` (WGS84) and `where`.
    static func filter(_ extent: GeoExtent, where clause: String) -> [(String, String)] {
        [("where", clause), ("geometry", "\(extent.xmin),\(extent.ymin),\(extent.xmax),\(extent.ymax)"),
         ("geometryType", "esriGeometryEnvelope"), ("inSR", "4326"), ("spatialRel", "esriSpatialRelIntersects")]
    }

    /// How many features of the layer at `url` meet `extent` (`returnCountOnly`).
    public func countFeatures(at url: URL, within extent: GeoExtent) async throws -> Int {
        let query = Self.filter(extent, where: "1=1") + [("returnCountOnly", "true")]
        guard let count = try await getJSON(url, ["query"], query: query)["count"]?.double, count >= 0, count < 1e12 else {
            throw FeatureServiceError("The service did not count its features.")
        }
        return Int(count)
    }

    /// What a query sends back of each feature: every field and its geometry in WGS84.
    static let featuresWanted = [("outFields", "*"), ("returnGeometry", "true"), ("outSR", "4326")]

    /// A feature's object id as text ("17", whether the service wrote 17 or 17.0), to tell features apart.
    static func objectID(of feature: LayerFeature, field: String?) -> String? {
        guard let field, let value = feature.attributes[field] else { return nil }
        return value.int64.map(String.init) ?? value.string
    }

    static func layerTitle(_ layer: WebMapLayer) -> String {
        TerminalText.sanitizedLine(layer.title ?? layer.id ?? "A layer", maxLength: 80)
    }
}
