import Foundation
import MapbookCore
import Geometry

/// A layer of a web map, basemap or operational. Unknown layer types are kept by name.
public struct WebMapLayer: Sendable, Equatable {
    public var id: String?
    public var title: String?
    /// `layerType` in the web map spec: `VectorTileLayer`, `ArcGISTiledMapServiceLayer`,
    /// `ArcGISFeatureLayer`, `GroupLayer`, …
    public var layerType: String
    public var url: String?
    /// A layer inside a mobile map package names its data by `path` instead of `url`:
    /// `file:./data.geodatabase?itemId=0`, `file:./basemap.tpkx`.
    public var path: String?
    /// Vector tile layers point at a Mapbox GL style.
    public var styleURL: String?
    /// `WebTiledLayer`: the tile address with `{level}`, `{col}`, `{row}` and `{subDomain}`.
    public var templateURL: String?
    public var subDomains: [String]
    public var itemID: ItemID?
    public var visible: Bool
    public var opacity: Double
    /// A basemap's reference layer (labels, boundaries): drawn above the operational layers.
    public var isReference: Bool
    /// Sub-layers of a group layer.
    public var layers: [WebMapLayer]
    /// An operational layer's `layerDefinition` (renderer, labels, scales, definition expression
    /// that override the service's) and `popupInfo`, kept as JSON for `FeatureLayerInfo`.
    public var layerDefinition: JSONValue?
    public var popupInfo: JSONValue?
    /// A Field Maps form (`formInfo`), kept as JSON for `FeatureFormDefinition`.
    public var formInfo: JSONValue?
    /// A map service layer's `visibleLayers`: the sublayers it shows (nil: the service's defaults).
    public var visibleLayers: [Int]?
    /// Features carried inside the web map (`featureCollection`: layers, each a `layerDefinition`
    /// and a `featureSet`), kept as JSON for `FeatureCollectionLayers`.
    public var featureCollection: JSONValue?
    /// A `CSV` layer's delimiter and coordinate fields.
    public var csv: CSVLayout?

    public init(id: String? = nil, title: String? = nil, layerType: String, url: String? = nil, path: String? = nil,
                styleURL: String? = nil, templateURL: String? = nil, subDomains: [String] = [], itemID: ItemID? = nil,
                visible: Bool = true, opacity: Double = 1, isReference: Bool = false, layers: [WebMapLayer] = [],
                layerDefinition: JSONValue? = nil, popupInfo: JSONValue? = nil, visibleLayers: [Int]? = nil,
                featureCollection: JSONValue? = nil, csv: CSVLayout? = nil) {
        self.id = id; self.title = title; self.layerType = layerType; self.url = url; self.path = path
        self.styleURL = styleURL; self.templateURL = templateURL; self.subDomains = subDomains; self.itemID = itemID
        self.visible = visible; self.opacity = opacity; self.isReference = isReference
        self.layers = layers; self.layerDefinition = layerDefinition; self.popupInfo = popupInfo
        self.visibleLayers = visibleLayers; self.featureCollection = featureCollection; self.csv = csv
    }

    /// How mapbook draws an operational layer.
    public enum Drawing: Sendable, Equatable {
        /// A feature service's layer, queried for the view (`ArcGISFeatureLayer` with a `url`).
        case featureService
        /// Features inside the web map (`featureCollection`): no request at all.
        case featureCollection
        /// A CSV file of points, fetched once (`CSV`).
        case csv
        /// A map or image service drawn by the server for each view (`export`, `exportImage`).
        case serviceImage
        /// Listed, not drawn.
        case none
    }

    public var drawing: Drawing {
        if featureCollection != nil { return .featureCollection }
        guard url != nil else { return .none }
        switch layerType {
        case "ArcGISFeatureLayer": return .featureService
        case "CSV": return .csv
        case "ArcGISMapServiceLayer", "ArcGISImageServiceLayer": return .serviceImage
        default: return .none
        }
    }

    /// The layer types mapbook draws as a basemap: tiled ones, and map services drawn by their server.
    public static let drawableBasemapTypes: Set<String> = [
        "VectorTileLayer", "ArcGISTiledMapServiceLayer", "ArcGISTiledImageServiceLayer", "ArcGISImageServiceLayer", "WebTiledLayer",
        "ArcGISMapServiceLayer",
    ]

    public var isDrawableBasemap: Bool { Self.drawableBasemapTypes.contains(layerType) }
}

/// A web map's `baseMap`: its title and layers, bottom first; reference layers come last.
public struct Basemap: Sendable, Equatable {
    public var title: String?
    public var layers: [WebMapLayer]

    public init(title: String?, layers: [WebMapLayer]) { self.title = title; self.layers = layers }

    /// The visible layers mapbook can draw, in drawing order (reference layers on top).
    public var drawableLayers: [WebMapLayer] {
        let shown = layers.filter { $0.visible && $0.isDrawableBasemap }
        return shown.filter { !$0.isReference } + shown.filter(\.isReference)
    }

    /// The visible layers mapbook cannot draw, to name them.
    public var undrawableLayers: [WebMapLayer] { layers.filter { $0.visible && !$0.isDrawableBasemap } }

    /// "vector", "raster + reference", "raster, 1 layer not drawable".
    public var composition: String {
        let drawable = drawableLayers
        var kinds = drawable.filter { !$0.isReference }.map { $0.layerType == "VectorTileLayer" ? "vector" : "raster" }
        kinds = kinds.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
        var text = kinds.isEmpty ? "no drawable layer" : kinds.joined(separator: " + ")
        if drawable.contains(where: \.isReference) { text += " + reference" }
        let undrawable = undrawableLayers.count
        if undrawable > 0 { text += ", \(undrawable) layer\(undrawable == 1 ? "" : "s") not drawable" }
        return text
    }
}

public struct Bookmark: Sendable, Equatable {
    public var name: String
    public var extent: Envelope

    public init(name: String, extent: Envelope) { self.name = name; self.extent = extent }
}

/// What the web map's author set for taking it offline (`applicationProperties.offline`). Whether
/// offline use is enabled at all is the item's `Offline` type keyword, not part of this object.
public struct OfflineSettings: Sendable, Equatable {
    /// A local basemap file to use instead of downloading one (`offlinebasemap.referenceBasemapName`).
    public var referenceBasemapName: String?
    /// `editableLayers.download`: `features`, `featuresAndAttachments`, `schemaOnly`, …
    public var editableLayersDownload: String?
    /// `readonlyLayers.downloadAttachments`.
    public var downloadReadOnlyAttachments: Bool?

    public init(referenceBasemapName: String? = nil, editableLayersDownload: String? = nil,
                downloadReadOnlyAttachments: Bool? = nil) {
        self.referenceBasemapName = referenceBasemapName
        self.editableLayersDownload = editableLayersDownload
        self.downloadReadOnlyAttachments = downloadReadOnlyAttachments
    }
}

/// A web map's JSON (`content/items/{id}/data`), reduced to what mapbook shows and draws.
public struct WebMap: Sendable, Equatable {
    public var version: String?
    public var basemapTitle: String?
    public var basemapLayers: [WebMapLayer]
    /// The basemap as one value: title and layers.
    public var basemap: Basemap { Basemap(title: basemapTitle, layers: basemapLayers) }
    public var operationalLayers: [WebMapLayer]
    public var spatialReference: SpatialReference?
    /// `initialState.viewpoint.targetGeometry`.
    public var initialExtent: Envelope?
    public var bookmarks: [Bookmark]
    public var offline: OfflineSettings?
    /// Layers past `PortalDecoding.mostLayers` in one list, not read (a real map has tens).
    public var layersLeftOut = 0

    public init(version: String? = nil, basemapTitle: String? = nil, basemapLayers: [WebMapLayer] = [],
                operationalLayers: [WebMapLayer] = [], spatialReference: SpatialReference? = nil,
                initialExtent: Envelope? = nil, bookmarks: [Bookmark] = [], offline: OfflineSettings? = nil) {
        self.version = version; self.basemapTitle = basemapTitle; self.basemapLayers = basemapLayers
        self.operationalLayers = operationalLayers; self.spatialReference = spatialReference
        self.initialExtent = initialExtent; self.bookmarks = bookmarks; self.offline = offline
    }

    /// The operational layers, bottom first, group layers opened (a hidden group hides its layers).
    public var flatOperationalLayers: [WebMapLayer] {
        func flatten(_ layers: [WebMapLayer], visible: Bool) -> [WebMapLayer] {
            layers.flatMap { layer -> [WebMapLayer] in
                if layer.layerType == "GroupLayer" { return flatten(layer.layers, visible: visible && layer.visible) }
                var shown = layer
                shown.visible = visible && layer.visible
                return [shown]
            }
        }
        return flatten(operationalLayers, visible: true)
    }

    /// The operational layers kept with a downloaded area, bottom first: the feature layers' copies,
    /// and the map services' pictures of the area.
    public var keptLayers: [WebMapLayer] {
        flatOperationalLayers.filter { [.featureService, .featureCollection, .csv, .serviceImage].contains($0.drawing) }
    }
}

/// How a `CSV` layer's file is laid out (`columnDelimiter`, `locationInfo`).
public struct CSVLayout: Sendable, Equatable {
    public var delimiter: Character
    /// `locationInfo.latitudeFieldName` and `longitudeFieldName`; nil: found by their usual names.
    public var latitudeField: String?
    public var longitudeField: String?

    public init(delimiter: Character = ",", latitudeField: String? = nil, longitudeField: String? = nil) {
        self.delimiter = delimiter; self.latitudeField = latitudeField; self.longitudeField = longitudeField
    }
}

/// One basemap of a portal's gallery: the web map item that carries it, and its layers.
public struct BasemapChoice: Sendable, Equatable {
    public var item: PortalItem
    public var basemap: Basemap

    public init(item: PortalItem, basemap: Basemap) { self.item = item; self.basemap = basemap }
}
