import Foundation
import HTTP
import MapbookCore
import ArcGISModel
import Geometry

/// A map or image service whose pictures the server draws for each view (`ArcGISMapServiceLayer`,
/// an `ArcGISImageServiceLayer` that is not tiled): its description as mapbook uses it.
public struct MapServiceDescription: Sendable {
    public var url: URL
    public var isImageService: Bool
    /// The sublayers drawn: the web map's `visibleLayers`, else those the service shows by default.
    public var shownLayers: [Int]?
    public var copyright: String?
    /// Each sublayer's popup from the web map (`layers[].popupInfo`), by its id.
    public var popups: [Int: JSONValue]

    public init(url: URL, isImageService: Bool, shownLayers: [Int]?, copyright: String?, popups: [Int: JSONValue] = [:]) {
        self.url = url; self.isImageService = isImageService; self.shownLayers = shownLayers; self.copyright = copyright
        self.popups = popups
    }
}

/// One picture asked of a service: a box in Web Mercator metres and its size in pixels.
public struct ServiceView: Sendable, Hashable {
    public var xmin: Double, ymin: Double, xmax: Double, ymax: Double
    public var width: Int, height: Int

    public init(xmin: Double, ymin: Double, xmax: Double, ymax: Double, width: Int, height: Int) {
        self.xmin = xmin; self.ymin = ymin; self.xmax = xmax; self.ymax = ymax; self.width = width; self.height = height
    }

    /// The box in longitude/latitude.
    public var geographic: GeoExtent {
        let sw = WebMercator.geographic(x: xmin, y: ymin), ne = WebMercator.geographic(x: xmax, y: ymax)
        return GeoExtent(xmin: sw.longitude, ymin: sw.latitude, xmax: ne.longitude, ymax: ne.latitude)
    }
}

/// What a service's `identify` found: a sublayer's feature.
public struct ServiceIdentifyResult: Sendable, Equatable {
    public var layerID: Int
    public var layerName: String
    public var displayField: String?
    public var attributes: FeatureAttributes
    public var geometry: GeoGeometry?
}

public struct MapServiceError: UserFacingError, Equatable {
    public let userMessage: String
    public init(_ message: String) { userMessage = message }
}

/// The map service operations mapbook uses: the description, `export` (`exportImage`), `identify`
/// and `legend`.
extension PortalClient {
    /// The largest picture taken: a view of a 200-column terminal is a few hundred kilobytes.
    public static let maxServiceImageBytes = 16 << 20
    /// A picture's pixel is two of the map's dots wide, and the map's scale counts a dot as a pixel
    /// at 96 dpi: at 48 dpi the server works at the scale the footer shows (sublayers' scale ranges
    /// agree) and sizes its symbols for it.
    public static let serviceImageDPI = 48
    /// The longest a picture, an identify or a CSV file may take, retries included.
    public static let serviceDeadline = Duration.seconds(20)
    /// Identify looks this many pixels around the point: within a cell of the map.
    public static let identifyTolerance = 2

    /// `{url}?f=json`: what the service is and which of its layers it shows.
    public func mapService(_ layer: WebMapLayer) async throws -> MapServiceDescription {
        guard let text = layer.url, let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
            throw MapServiceError("\(Self.layerTitle(layer)) has no address mapbook can ask.")
        }
        await learnFederation(of: url)
        let json = try await getJSON(url, [], query: [])
        let image = layer.layerType == "ArcGISImageServiceLayer" || url.path.lowercased().hasSuffix("/imageserver")
        // Group layers draw their children; a map service is asked to show its leaf layers.
        let sublayers = json["layers"]?.array ?? []
        let defaults = sublayers.filter { $0["defaultVisibility"]?.bool ?? true }.compactMap { $0["id"]?.int64.map { Int(clamping: $0) } }
        var popups: [Int: JSONValue] = [:]
        for sublayer in layer.layers {
            if let id = sublayer.id.flatMap({ Int($0) }), let popup = sublayer.popupInfo { popups[id] = popup }
        }
        return MapServiceDescription(url: url, isImageService: image,
                                     shownLayers: image ? nil : layer.visibleLayers ?? (sublayers.isEmpty ? nil : defaults),
                                     copyright: json["copyrightText"]?.string, popups: popups)
    }

    /// `export` (`exportImage` for an image service): the service's picture of `view`, PNG with
    /// transparency, `f=image`. An ArcGIS error body in its place is thrown as one.
    public func exportImage(_ service: MapServiceDescription, view: ServiceView) async throws -> Data {
        var asked = request(base: service.url, [service.isImageService ? "exportImage" : "export"],
                            query: Self.exportQuery(service, view: view), json: false)
        asked.maxBodyBytes = Self.maxServiceImageBytes
        // A drawing waits for the picture: a server that drips is given up on well before the API's 2 minutes.
        asked.deadline = Self.serviceDeadline
        return try await send(asked, about: nil) { response in
            if response.body.first == UInt8(ascii: "{"), let json = try? JSONValue(parsing: response.body),
               let error = arcGISError(json, about: nil, redacting: [], request: asked) {
                throw error
            }
            return response.body
        }
    }

    static func exportQuery(_ service: MapServiceDescription, view: ServiceView) -> [(String, String)] {
        var query: [(String, String)] = [
            ("bbox", "\(view.xmin),\(view.ymin),\(view.xmax),\(view.ymax)"), ("bboxSR", "3857"), ("imageSR", "3857"),
            ("size", "\(view.width),\(view.height)"), ("format", service.isImageService ? "png" : "png32"),
        ]
        if !service.isImageService {
            query += [("transparent", "true"), ("dpi", String(Self.serviceImageDPI))]
            if let shown = service.shownLayers { query.append(("layers", "show:" + shown.map(String.init).joined(separator: ","))) }
        }
        query.append(("f", "image"))
        return query
    }

    /// `identify` at a point of a view: the features of the shown sublayers within
    /// `identifyTolerance` pixels, geometry in WGS84. An image service has no sublayers to identify.
    public func identify(_ service: MapServiceDescription, at point: GeoPoint, view: ServiceView) async throws -> [ServiceIdentifyResult] {
        guard !service.isImageService else { return [] }
        let box = view.geographic
        let shown = service.shownLayers.map { "visible:" + $0.map(String.init).joined(separator: ",") } ?? "visible"
        let json = try await getJSON(service.url, ["identify"], query: [
            ("geometry", "\(point.longitude),\(point.latitude)"), ("geometryType", "esriGeometryPoint"), ("sr", "4326"),
            ("layers", shown), ("tolerance", String(Self.identifyTolerance)),
            ("mapExtent", "\(box.xmin),\(box.ymin),\(box.xmax),\(box.ymax)"), ("imageDisplay", "\(view.width),\(view.height),\(Self.serviceImageDPI)"),
            ("returnGeometry", "true"),
        ], deadline: Self.serviceDeadline)
        return (json["results"]?.array ?? []).prefix(50).map { result in
            ServiceIdentifyResult(layerID: result["layerId"]?.int64.map { Int(clamping: $0) } ?? -1,
                                  layerName: result["layerName"]?.string ?? "Layer",
                                  displayField: result["displayFieldName"]?.string,
                                  attributes: result["attributes"]?.object ?? [:],
                                  geometry: EsriFeatures.geometry(result["geometry"], reference: .wgs84))
        }
    }

    /// `legend?f=json`; nil for a service without one (an image service, an old server).
    public func legend(of service: MapServiceDescription) async -> JSONValue? {
        guard !service.isImageService else { return nil }
        return try? await getJSON(service.url, ["legend"], query: [], deadline: .seconds(15))
    }

    /// A `CSV` layer's file, fetched once (at most `EmbeddedFeatureLayer`'s limit of rows) and read.
    public func csvLayer(_ layer: WebMapLayer) async throws -> EmbeddedFeatureLayer {
        guard let text = layer.url, let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
            throw MapServiceError("\(Self.layerTitle(layer)) has no address mapbook can ask.")
        }
        await learnFederation(of: url)
        var asked = request(url: url)
        asked.maxBodyBytes = Self.maxCSVBytes
        asked.deadline = Self.serviceDeadline
        let data = try await send(asked, about: nil) { response in
            if response.body.first == UInt8(ascii: "{"), let json = try? JSONValue(parsing: response.body),
               let error = arcGISError(json, about: nil, redacting: [], request: asked) {
                throw error
            }
            return response.body
        }
        return try CSVLayer.read(data, layer: layer)
    }

    /// The largest CSV file taken.
    public static let maxCSVBytes = 16 << 20
}
