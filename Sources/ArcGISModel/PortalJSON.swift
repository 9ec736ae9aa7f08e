import Foundation
import MapbookCore

/// Items and web maps as ArcGIS JSON, for keeping them on disk (the offline library) and reading
/// them back with the same decoders the REST answers go through.
extension PortalItem {
    /// Reads an item in the REST API's shape; nil without a usable id.
    public init?(arcGISJSON json: JSONValue) {
        guard let item = PortalDecoding.item(json) else { return nil }
        self = item
    }

    /// The item in the REST API's shape (`content/items/{id}?f=json`): dates in epoch milliseconds,
    /// the extent as two corners. Fields mapbook does not model are not kept.
    public var arcGISJSON: JSONValue {
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        func millis(_ date: Date?) -> JSONValue { date.map { .number(($0.timeIntervalSince1970 * 1000).rounded()) } ?? .null }
        var fields: [String: JSONValue] = [
            "id": .string(id.rawValue), "title": .string(title), "type": .string(type),
            "typeKeywords": .array(typeKeywords.map(JSONValue.string)), "owner": text(owner), "snippet": text(snippet),
            "description": text(description), "thumbnail": text(thumbnail), "created": millis(created),
            "modified": millis(modified), "size": size.map { .number(Double($0)) } ?? .number(-1),
            "access": text(access), "url": text(url), "tags": .array(tags.map(JSONValue.string)),
            "properties": properties ?? .null, "name": text(name),
        ]
        if let extent {
            fields["extent"] = .array([.array([.number(extent.xmin), .number(extent.ymin)]),
                                       .array([.number(extent.xmax), .number(extent.ymax)])])
        } else {
            fields["extent"] = .array([])
        }
        return .object(fields)
    }
}

extension WebMap {
    /// Reads a web map's data JSON (`content/items/{id}/data?f=json`).
    public init(arcGISJSON json: JSONValue) { self = PortalDecoding.webMap(json) }
}

extension Basemap {
    /// Reads a web map's `baseMap` object.
    public init(arcGISJSON json: JSONValue) {
        self = PortalDecoding.webMap(.object(["baseMap": json])).basemap
    }

    /// The `baseMap` object of the web map spec, with the layer fields mapbook reads.
    public var arcGISJSON: JSONValue {
        func encode(_ layer: WebMapLayer) -> JSONValue {
            var fields: [String: JSONValue] = ["layerType": .string(layer.layerType), "visibility": .bool(layer.visible),
                                               "opacity": .number(layer.opacity)]
            let optional: [(String, String?)] = [("id", layer.id), ("title", layer.title), ("url", layer.url),
                                                 ("styleUrl", layer.styleURL), ("templateUrl", layer.templateURL),
                                                 ("itemId", layer.itemID?.rawValue)]
            for (key, value) in optional { if let value { fields[key] = .string(value) } }
            if !layer.subDomains.isEmpty { fields["subDomains"] = .array(layer.subDomains.map(JSONValue.string)) }
            if layer.isReference { fields["isReference"] = .bool(true) }
            if !layer.layers.isEmpty { fields["layers"] = .array(layer.layers.map(encode)) }
            return .object(fields)
        }
        var fields: [String: JSONValue] = ["baseMapLayers": .array(layers.map(encode))]
        if let title { fields["title"] = .string(title) }
        return .object(fields)
    }
}

extension MapArea {
    /// A map area from its item and its packages' items, as Map2Area and Area2Package give them.
    public init(areaItem: PortalItem, packageItems: [PortalItem], unavailableReason: String? = nil) {
        self = PortalDecoding.mapArea(areaItem, packages: packageItems, unavailableReason: unavailableReason)
    }
}
