import Foundation
import LoopbackHTTP
import MapbookAssets
import MapbookCore
import Synchronization
import TileFormats
import ArcGISModel
import Geometry

/// The sample portal's basemap gallery, found as on ArcGIS Online: `portals/self` names the group
/// by a query, the group holds one web map per basemap. Three basemaps: the vector Explore Maine
/// style, a raster tiled MapServer drawn from the same geography (with the places as a vector
/// reference layer on top), and a dark vector style.
enum SampleGallery {
    static let groupID = "9a1b2c3d4e5f40718293a4b5c6d7e8f9"
    static let groupTitle = "Explore Maine Basemaps"
    static let rasterServicePath = "/arcgis/rest/services/Maine_Topographic/MapServer"

    struct Item {
        var id: String
        var title: String
        var snippet: String
        var thumbnail: Thumbnail.Colors
        /// The `baseMapLayers`, given the portal's address.
        var layers: @Sendable (String) -> [JSONValue]
    }

    static let items: [Item] = [
        Item(id: "5b1e2a3c4d5e4f6a8b9c0d1e2f3a4b5c", title: "Explore Maine Basemap",
             snippet: "Water, land, counties and places of Maine, as vector tiles.", thumbnail: .light) { base in
            [vectorLayer(id: "explore-maine-basemap", title: "Explore Maine Basemap", style: base + styleURL("root"))]
        },
        Item(id: "6c2f3b4d5e6f4a7b9c0d1e2f3a4b5c6d", title: "Maine Topographic",
             snippet: "A raster tiled map service of Maine, with place names on top.", thumbnail: .topographic) { base in
            [.object(["id": .string("maine-topographic"), "layerType": .string("ArcGISTiledMapServiceLayer"),
                      "title": .string("Maine Topographic"), "url": .string(base + rasterServicePath),
                      "visibility": .bool(true), "opacity": .number(1)]),
             vectorLayer(id: "maine-places", title: "Maine Places", style: base + styleURL("labels"), reference: true)]
        },
        Item(id: "7d3a4c5e6f7a4b8c0d1e2f3a4b5c6d7e", title: "Explore Maine Dark",
             snippet: "The Explore Maine basemap in dark colours, for night use.", thumbnail: .dark) { base in
            [vectorLayer(id: "explore-maine-dark", title: "Explore Maine Dark", style: base + styleURL("dark"))]
        },
        Item(id: "8e4b5d6f7a8b4c9d1e2f3a4b5c6d7e8f", title: "Maine Relief with Boundaries",
             snippet: "The raster tiles of Maine, with towns and counties drawn for each view by a dynamic map service.",
             thumbnail: .topographic) { base in
            [.object(["id": .string("maine-topographic"), "layerType": .string("ArcGISTiledMapServiceLayer"),
                      "title": .string("Maine Topographic"), "url": .string(base + rasterServicePath),
                      "visibility": .bool(true), "opacity": .number(1)]),
             .object(["id": .string("maine-boundaries"), "layerType": .string("ArcGISMapServiceLayer"),
                      "title": .string("Maine Boundaries"), "url": .string(base + SampleMapService.path),
                      "visibility": .bool(true), "opacity": .number(1)])]
        },
    ]

    static func item(_ id: String) -> Item? { items.first { $0.id == id } }

    /// Styles of the sample VectorTileServer, by file name.
    static func style(named name: String) -> JSONValue? {
        switch name {
        case "root": SampleBasemap.style
        case "dark": SampleBasemap.style(.dark)
        case "labels": SampleBasemap.labelsStyle
        default: nil
        }
    }

    private static func styleURL(_ name: String) -> String { SampleCatalog.basemapServicePath + "/resources/styles/\(name).json" }

    private static func vectorLayer(id: String, title: String, style: String, reference: Bool = false) -> JSONValue {
        var layer: [String: JSONValue] = ["id": .string(id), "layerType": .string("VectorTileLayer"), "title": .string(title),
                                          "styleUrl": .string(style), "visibility": .bool(true), "opacity": .number(1)]
        if reference { layer["isReference"] = .bool(true) }
        return .object(layer)
    }

    /// A basemap's web map data: no operational layers, its `baseMap`.
    static func data(of item: Item, baseURL: String) -> JSONValue {
        .object([
            "version": .string("2.31"), "authoringApp": .string("mapbook sample portal"),
            "spatialReference": .object(["wkid": .number(102100), "latestWkid": .number(3857)]),
            "operationalLayers": .array([]),
            "baseMap": .object(["title": .string(item.title), "baseMapLayers": .array(item.layers(baseURL))]),
        ])
    }

    /// The sample portal's id, as `portals/self` gives it.
    static let portalID = "mApBoOkSaMpLe0001"

    /// `portals/self`, the fields a client needs to find the gallery and the geocoder.
    static func portalSelf(baseURL: String, enterprise: Bool = false) -> JSONValue {
        .object([
        "id": .string(portalID), "name": .string("mapbook sample portal"), "isPortal": .bool(enterprise),
        "helperServices": .object(["geocode": .array([.object([
            "url": .string(baseURL + SampleGeocoder.path), "name": .string("Maine Places"), "suggest": .bool(true),
            "placefinding": .bool(true), "batch": .bool(false),
            "northLat": .string("Ymax"), "southLat": .string("Ymin"), "eastLon": .string("Xmax"), "westLon": .string("Xmin"),
        ])]),
        "route": .object(["url": .string(baseURL + SampleRouteService.path)]),
        "routingUtilities": .object(["url": .string(baseURL + SampleRouteService.utilitiesPath)]),
        ]),
        "basemapGalleryGroupQuery": .string("title:\"\(groupTitle)\" AND owner:\(SampleCatalog.owner)"),
        "vectorBasemapGalleryGroupQuery": .string("title:\"\(groupTitle)\" AND owner:\(SampleCatalog.owner)"),
        "useVectorBasemaps": .bool(false), "culture": .string("en-us"), "units": .string("english"),
        ])
    }

    /// `community/groups?q=…`: the gallery's group when the query names its title.
    static func groups(_ query: [String: String]) -> JSONValue {
        let terms = SampleREST.terms(query["q"] ?? "")
        let matches = terms.allSatisfy { field, value in
            switch field {
            case "title"?, nil: groupTitle.localizedCaseInsensitiveContains(value)
            case "owner"?: value == SampleCatalog.owner
            case "id"?: value == groupID
            default: false
            }
        }
        let group: JSONValue = .object(["id": .string(groupID), "title": .string(groupTitle), "owner": .string(SampleCatalog.owner),
                                        "access": .string("public"), "isViewOnly": .bool(true)])
        let results: [JSONValue] = matches && !terms.isEmpty ? [group] : []
        return .object(["query": .string(query["q"] ?? ""), "total": .number(Double(results.count)), "start": .number(1),
                        "num": .number(10), "nextStart": .number(-1), "results": .array(results)])
    }
}

/// The raster MapServer `Maine_Topographic`: a cache of 256-pixel PNG tiles in the Web Mercator
/// grid whose levels start at zoom 2 (level 0 is zoom 2), as caches built for a range of scales do.
struct SampleMapServer {
    let tiles: SampleRasterTiles

    static let zooms = 2...12

    func respond(_ request: LoopbackRequest) -> LoopbackResponse {
        let rest = request.path.dropFirst(SampleGallery.rasterServicePath.count).split(separator: "/").map(String.init)
        switch rest.first {
        case nil:
            guard request.query["f"] == "json" || request.query["f"] == "pjson" else { return SampleREST.html }
            return SampleREST.json(Self.serviceJSON, pretty: request.query["f"] == "pjson")
        case "legend"? where rest.count == 1:
            guard request.query["f"] == "json" || request.query["f"] == "pjson" else { return SampleREST.html }
            return SampleREST.json(Self.legendJSON, pretty: request.query["f"] == "pjson")
        case "tile"? where rest.count == 4:
            guard let level = Int(rest[1]), let row = Int(rest[2]), let column = Int(rest[3]),
                  let png = tiles.png(TileKey(z: level + Self.zooms.lowerBound, x: column, y: row)) else {
                return LoopbackResponse(status: 404, headers: [("Content-Type", "application/json")],
                                        body: Data(#"{"error":{"code":404,"message":"Tile not found","details":[]}}"#.utf8))
            }
            return LoopbackResponse(status: 200, headers: [("Content-Type", "image/png")], body: png)
        default:
            return .text("Not Found", status: 404)
        }
    }

    /// `legend?f=json` as a MapServer answers it: one layer, an entry per colour with a 20-pixel
    /// PNG swatch in base64.
    static let legendJSON: JSONValue = {
        let colors = SampleRasterTiles.colors
        func swatch(_ c: Thumbnail.Colors.RGB) -> JSONValue {
            let png = PNG.encode(width: 20, height: 20, rgba: Array(repeating: [c.0, c.1, c.2, 255], count: 400).flatMap { $0 })
            return .string(png.base64EncodedString())
        }
        let entries: [(String, Thumbnail.Colors.RGB)] = [("Water", colors.water), ("Land", colors.land), ("Maine", colors.maine)]
        return .object(["layers": .array([.object([
            "layerId": .number(0), "layerName": .string("Maine Topographic"), "layerType": .string("Raster Layer"),
            "minScale": .number(0), "maxScale": .number(0),
            "legend": .array(entries.map { label, color in
                .object(["label": .string(label), "url": .string(label.lowercased()), "imageData": swatch(color),
                         "contentType": .string("image/png"), "height": .number(20), "width": .number(20)])
            }),
        ])])])
    }()

    static let serviceJSON: JSONValue = {
        let webMercator: JSONValue = .object(["wkid": .number(102100), "latestWkid": .number(3857)])
        let lods: [JSONValue] = zooms.map { zoom in
            .object(["level": .number(Double(zoom - zooms.lowerBound)),
                     "resolution": .number(WebMercator.resolution(zoom: Double(zoom))),
                     "scale": .number(591_657_527.591555 / Double(1 << zoom))])
        }
        let sw = WebMercator.projected(longitude: SampleCatalog.extent.xmin, latitude: SampleCatalog.extent.ymin)
        let ne = WebMercator.projected(longitude: SampleCatalog.extent.xmax, latitude: SampleCatalog.extent.ymax)
        let extent: JSONValue = .object(["xmin": .number(sw.x), "ymin": .number(sw.y), "xmax": .number(ne.x), "ymax": .number(ne.y),
                                         "spatialReference": webMercator])
        return .object([
            "currentVersion": .number(11.3), "serviceDescription": .string("Maine's land and water, drawn from Natural Earth."),
            "mapName": .string("Maine Topographic"), "copyrightText": .string(MapbookAssets.attribution),
            "singleFusedMapCache": .bool(true), "capabilities": .string("Map,TilesOnly"), "units": .string("esriMeters"),
            "spatialReference": webMercator, "initialExtent": extent, "fullExtent": extent,
            "minScale": .number(591_657_527.591555 / 4), "maxScale": .number(591_657_527.591555 / 4096),
            "tileInfo": .object([
                "rows": .number(256), "cols": .number(256), "dpi": .number(96), "format": .string("PNG32"),
                "compressionQuality": .number(0),
                "origin": .object(["x": .number(-WebMercator.originShift), "y": .number(WebMercator.originShift)]),
                "spatialReference": webMercator, "lods": .array(lods),
            ]),
        ])
    }()
}

/// The raster tiles, drawn from the geography on first request and kept.
final class SampleRasterTiles: Sendable {
    typealias Ring = [(x: Double, y: Double)]
    private struct Shape { var rings: [Ring]; var box: (minX: Double, minY: Double, maxX: Double, maxY: Double) }
    private struct Layers { var land: [Shape], maine: [Shape], counties: [Shape], places: [(x: Double, y: Double, big: Bool)] }

    static let colors = Thumbnail.Colors(water: (160, 196, 222), land: (236, 231, 214), maine: (196, 219, 170))
    private static let countyColor: Thumbnail.Colors.RGB = (140, 150, 120)
    private static let placeColor: Thumbnail.Colors.RGB = (60, 60, 60)

    private let layers: Layers
    private let drawn = Mutex<[TileKey: Data]>([:])

    init(_ basemap: SampleBasemap) {
        func shapes(_ layer: String) -> [Shape] {
            basemap.features(of: layer).flatMap { feature -> [Shape] in
                guard case .polygons(let polygons) = feature.geometry else { return [] }
                return polygons.map { polygon in
                    let rings = polygon.map { $0.map { WebMercator.projected(longitude: $0.longitude, latitude: $0.latitude) } }
                    let points = rings.flatMap { $0 }
                    return Shape(rings: rings, box: (points.map(\.x).min() ?? 0, points.map(\.y).min() ?? 0,
                                                     points.map(\.x).max() ?? 0, points.map(\.y).max() ?? 0))
                }
            }
        }
        let places = basemap.features(of: "places").flatMap { feature -> [(x: Double, y: Double, big: Bool)] in
            guard case .points(let points) = feature.geometry else { return [] }
            let big = (feature.property("population")?.double ?? 0) >= 10_000
            return points.map { let m = WebMercator.projected(longitude: $0.longitude, latitude: $0.latitude); return (m.x, m.y, big) }
        }
        layers = Layers(land: shapes("region"), maine: shapes("state"), counties: shapes("counties"), places: places)
    }

    /// The tile's PNG; nil outside the service's zooms and the web map's extent.
    func png(_ key: TileKey) -> Data? {
        guard SampleMapServer.zooms.contains(key.z), SampleBasemap.tile(key, meets: SampleCatalog.extent) else { return nil }
        if let kept = drawn.withLock({ $0[key] }) { return kept }
        let png = draw(key)
        drawn.withLock { $0[key] = png }
        return png
    }

    private func draw(_ key: TileKey) -> Data {
        let span = 2 * WebMercator.originShift / Double(1 << key.z)
        let left = -WebMercator.originShift + Double(key.x) * span, top = WebMercator.originShift - Double(key.y) * span
        var canvas = Thumbnail.Canvas(width: 256, height: 256, left: left, top: top, scale: 256 / span)
        let margin = span / 64
        func meets(_ shape: Shape) -> Bool {
            shape.box.maxX >= left - margin && shape.box.minX <= left + span + margin
                && shape.box.maxY >= top - span - margin && shape.box.minY <= top + margin
        }
        canvas.fill(color: Self.colors.water)
        for shape in layers.land where meets(shape) { canvas.fill(mercatorRings: shape.rings, color: Self.colors.land) }
        for shape in layers.maine where meets(shape) { canvas.fill(mercatorRings: shape.rings, color: Self.colors.maine) }
        if key.z >= 6 {
            for shape in layers.counties where meets(shape) {
                for ring in shape.rings { for (a, b) in zip(ring, ring.dropFirst()) { canvas.line(a, b, color: Self.countyColor) } }
            }
        }
        for place in layers.places where place.big || key.z >= 9 {
            let p = canvas.pixel(mercator: (place.x, place.y))
            for dx in -1...1 { for dy in -1...1 { canvas.set(Int(p.x) + dx, Int(p.y) + dy, Self.placeColor) } }
        }
        return PNG.encode(width: 256, height: 256, rgba: canvas.pixels)
    }
}
