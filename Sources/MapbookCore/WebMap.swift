import Foundation

/// A layer of a web map, basemap or operational. Unknown layer types are kept by name.
public struct WebMapLayer: Sendable, Equatable {
    public var id: String?
    public var title: String?
    /// `layerType` in the web map spec: `VectorTileLayer`, `ArcGISTiledMapServiceLayer`,
    /// `ArcGISFeatureLayer`, `GroupLayer`, …
    public var layerType: String
    public var url: String?
    /// Vector tile layers point at a Mapbox GL style.
    public var styleURL: String?
    public var itemID: ItemID?
    public var visible: Bool
    public var opacity: Double
    /// Sub-layers of a group layer.
    public var layers: [WebMapLayer]

    public init(id: String? = nil, title: String? = nil, layerType: String, url: String? = nil,
                styleURL: String? = nil, itemID: ItemID? = nil, visible: Bool = true, opacity: Double = 1,
                layers: [WebMapLayer] = []) {
        self.id = id; self.title = title; self.layerType = layerType; self.url = url
        self.styleURL = styleURL; self.itemID = itemID; self.visible = visible; self.opacity = opacity
        self.layers = layers
    }
}

public struct Bookmark: Sendable, Equatable {
    public var name: String
    public var extent: Envelope

    public init(name: String, extent: Envelope) { self.name = name; self.extent = extent }
}

/// What the web map says about taking it offline (`applicationProperties.offline`).
public struct OfflineSettings: Sendable, Equatable {
    /// Whether the map's author enabled offline use; nil when the map does not say.
    public var mapAreasEnabled: Bool?
    /// The basemap to use offline instead of the online one, when the author named one.
    public var referenceBasemapName: String?

    public init(mapAreasEnabled: Bool? = nil, referenceBasemapName: String? = nil) {
        self.mapAreasEnabled = mapAreasEnabled; self.referenceBasemapName = referenceBasemapName
    }
}

/// A web map's JSON (`content/items/{id}/data`), reduced to what mapbook shows and draws.
public struct WebMap: Sendable, Equatable {
    public var version: String?
    public var basemapTitle: String?
    public var basemapLayers: [WebMapLayer]
    public var operationalLayers: [WebMapLayer]
    public var spatialReference: SpatialReference?
    /// `initialState.viewpoint.targetGeometry`.
    public var initialExtent: Envelope?
    public var bookmarks: [Bookmark]
    public var offline: OfflineSettings?

    public init(version: String? = nil, basemapTitle: String? = nil, basemapLayers: [WebMapLayer] = [],
                operationalLayers: [WebMapLayer] = [], spatialReference: SpatialReference? = nil,
                initialExtent: Envelope? = nil, bookmarks: [Bookmark] = [], offline: OfflineSettings? = nil) {
        self.version = version; self.basemapTitle = basemapTitle; self.basemapLayers = basemapLayers
        self.operationalLayers = operationalLayers; self.spatialReference = spatialReference
        self.initialExtent = initialExtent; self.bookmarks = bookmarks; self.offline = offline
    }
}
