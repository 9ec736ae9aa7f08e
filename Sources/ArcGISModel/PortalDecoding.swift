import Foundation
import MapbookCore
import Geometry

/// Turns REST JSON into mapbook's value types, forgiving where real portals vary: missing fields,
/// `null`s, `[]` extents, numbers as strings, unknown layer types, extra fields.
package enum PortalDecoding {
    /// An item; nil when it has no usable id (nothing else is required).
    package static func item(_ json: JSONValue) -> PortalItem? {
        guard let id = json["id"]?.string.flatMap(ItemID.init) else { return nil }
        let properties = json["properties"].flatMap { $0.object == nil ? nil : $0 }
        return PortalItem(
            id: id,
            title: json["title"]?.string ?? json["name"]?.string ?? id.rawValue,
            type: json["type"]?.string ?? "",
            typeKeywords: json["typeKeywords"]?.stringArray ?? [],
            owner: json["owner"]?.string,
            snippet: json["snippet"]?.string,
            description: json["description"]?.string,
            thumbnail: json["thumbnail"]?.string,
            extent: cornerExtent(json["extent"]) ?? properties.flatMap(areaExtent),
            created: json["created"]?.epochMillisecondsDate,
            modified: json["modified"]?.epochMillisecondsDate,
            size: json["size"]?.int64.flatMap { $0 >= 0 ? $0 : nil },
            access: json["access"]?.string,
            url: json["url"]?.string,
            tags: json["tags"]?.stringArray ?? [],
            properties: properties,
            name: json["name"]?.string)
    }

    /// A map area: its item, `properties.status`, and its packages.
    /// A package listed twice is kept once. `pending`: its packages have not been asked for yet.
    package static func mapArea(_ item: PortalItem, packages: [PortalItem], unavailableReason: String? = nil, pending: Bool = false) -> MapArea {
        var seen = Set<ItemID>()
        var area = MapArea(item: item, status: PackagingStatus(portalValue: item.properties?["status"]?.string),
                           packages: packages.filter { seen.insert($0.id).inserted }.map(AreaPackage.init),
                           unavailableReason: unavailableReason)
        area.packagesPending = pending
        return area
    }

    /// `[[xmin, ymin], [xmax, ymax]]` in degrees; nil for `[]`, `null` or anything out of range.
    package static func cornerExtent(_ json: JSONValue?) -> GeoExtent? {
        guard let json, let x0 = json[0]?[0]?.double, let y0 = json[0]?[1]?.double,
              let x1 = json[1]?[0]?.double, let y1 = json[1]?[1]?.double else { return nil }
        let extent = GeoExtent(xmin: min(x0, x1), ymin: min(y0, y1), xmax: max(x0, x1), ymax: max(y0, y1))
        guard extent.xmin >= -180, extent.xmax <= 180, extent.ymin >= -90, extent.ymax <= 90 else { return nil }
        return extent
    }

    /// A map area item without an item extent may describe itself in `properties.extent` (an envelope)
    /// or `properties.area` (a polygon, or an envelope).
    package static func areaExtent(_ properties: JSONValue) -> GeoExtent? {
        if let envelope = Envelope(json: properties["extent"], default: .wgs84)?.geographic { return envelope }
        guard let area = properties["area"] else { return nil }
        if let envelope = Envelope(json: area, default: .wgs84)?.geographic { return envelope }
        let sr = SpatialReference(json: area["spatialReference"]) ?? .wgs84
        let points = area["rings"]?.array.flatMap(\.array).compactMap { p -> (Double, Double)? in
            guard let x = p[0]?.double, let y = p[1]?.double else { return nil }
            return (x, y)
        } ?? []
        guard let first = points.first else { return nil }
        var box = (first.0, first.1, first.0, first.1)
        for (x, y) in points { box = (min(box.0, x), min(box.1, y), max(box.2, x), max(box.3, y)) }
        return Envelope(xmin: box.0, ymin: box.1, xmax: box.2, ymax: box.3, spatialReference: sr).geographic
    }

    /// The most layers read from one list of a map (its basemap's, its operational ones, a group's).
    package static let mostLayers = 1_000

    package static func webMap(_ json: JSONValue) -> WebMap {
        let sr = SpatialReference(json: json["spatialReference"])
        let offline = json["applicationProperties"]?["offline"]
        let basemapLayers = json["baseMap"]?["baseMapLayers"]?.array ?? [], operationalLayers = json["operationalLayers"]?.array ?? []
        var map = WebMap(
            version: json["version"]?.string,
            basemapTitle: json["baseMap"]?["title"]?.string,
            basemapLayers: basemapLayers.prefix(mostLayers).compactMap(layer),
            operationalLayers: operationalLayers.prefix(mostLayers).compactMap(layer),
            spatialReference: sr,
            initialExtent: Envelope(json: json["initialState"]?["viewpoint"]?["targetGeometry"], default: sr ?? .webMercator),
            bookmarks: json["bookmarks"]?.array.compactMap { mark in
                guard let extent = Envelope(json: mark["extent"], default: sr ?? .webMercator) else { return nil }
                return Bookmark(name: mark["name"]?.string ?? "Bookmark", extent: extent)
            } ?? [],
            offline: offline.map { offline in
                OfflineSettings(referenceBasemapName: offline["offlinebasemap"]?["referenceBasemapName"]?.string,
                                editableLayersDownload: offline["editableLayers"]?["download"]?.string,
                                downloadReadOnlyAttachments: offline["readonlyLayers"]?["downloadAttachments"]?.bool)
            })
        map.layersLeftOut = max(basemapLayers.count - mostLayers, 0) + max(operationalLayers.count - mostLayers, 0)
        return map
    }

    /// A layer of any type; nil only for entries that are not objects at all.
    package static func layer(_ json: JSONValue) -> WebMapLayer? {
        guard json.object != nil else { return nil }
        let csv = json["layerType"]?.string == "CSV" ? CSVLayout(
            delimiter: json["columnDelimiter"]?.string.flatMap { $0.count == 1 ? $0.first : nil } ?? ",",
            latitudeField: json["locationInfo"]?["latitudeFieldName"]?.string,
            longitudeField: json["locationInfo"]?["longitudeFieldName"]?.string) : nil
        var layer = WebMapLayer(
            id: json["id"]?.string,
            title: json["title"]?.string,
            layerType: json["layerType"]?.string ?? "Unknown",
            url: json["url"]?.string,
            path: json["path"]?.string,
            styleURL: json["styleUrl"]?.string,
            templateURL: json["templateUrl"]?.string,
            subDomains: json["subDomains"]?.array.compactMap(\.string) ?? [],
            itemID: json["itemId"]?.string.flatMap(ItemID.init),
            visible: json["visibility"]?.bool ?? true,
            opacity: json["opacity"]?.double.map { min(max($0, 0), 1) } ?? 1,
            isReference: json["isReference"]?.bool ?? false,
            layers: json["layers"]?.array.prefix(mostLayers).compactMap(layer) ?? [],
            layerDefinition: json["layerDefinition"].flatMap { $0.object == nil ? nil : $0 },
            popupInfo: json["popupInfo"].flatMap { $0.object == nil ? nil : $0 },
            visibleLayers: json["visibleLayers"].map { $0.array.compactMap(\.int64).map { Int(clamping: $0) } },
            featureCollection: json["featureCollection"].flatMap { $0.object == nil ? nil : $0 },
            csv: csv)
        layer.formInfo = json["formInfo"].flatMap { $0.object == nil ? nil : $0 }
        return layer
    }
}
