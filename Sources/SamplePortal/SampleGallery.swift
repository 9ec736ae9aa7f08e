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

/// A tiled raster MapServer of the sample portal: `Maine_Topographic`, a cache of 256-pixel PNG
/// tiles in the Web Mercator grid whose levels start at zoom 2 (level 0 is zoom 2), as caches built
/// for a range of scales do; and `Maine_Survey_UTM`, the same geography cached in NAD83 / UTM
/// zone 19N (wkid 26919) on Esri's UTM tiling origin, as a state agency's basemap is.
struct SampleMapServer {
    let path: String
    let name: String
    let tiles: SampleRasterTiles
    var scheme: SampleTilingScheme { tiles.scheme }

    static let zooms = 2...12
    static let surveyPath = "/arcgis/rest/services/Maine_Survey_UTM/MapServer"

    static func topographic(_ tiles: SampleRasterTiles) -> SampleMapServer {
        SampleMapServer(path: SampleGallery.rasterServicePath, name: "Maine Topographic", tiles: tiles)
    }

    static func survey(_ tiles: SampleRasterTiles) -> SampleMapServer {
        SampleMapServer(path: surveyPath, name: "Maine Survey", tiles: tiles)
    }

    func respond(_ request: LoopbackRequest) -> LoopbackResponse {
        let rest = request.path.dropFirst(path.count).split(separator: "/").map(String.init)
        switch rest.first {
        case nil:
            guard request.query["f"] == "json" || request.query["f"] == "pjson" else { return SampleREST.html }
            return SampleREST.json(serviceJSON, pretty: request.query["f"] == "pjson")
        case "legend"? where rest.count == 1:
            guard request.query["f"] == "json" || request.query["f"] == "pjson" else { return SampleREST.html }
            return SampleREST.json(Self.legendJSON(name), pretty: request.query["f"] == "pjson")
        case "tile"? where rest.count == 4:
            guard let level = Int(rest[1]), let row = Int(rest[2]), let column = Int(rest[3]),
                  let png = tiles.png(level: level, row: row, column: column) else {
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
    static func legendJSON(_ name: String) -> JSONValue {
        let colors = SampleRasterTiles.colors
        func swatch(_ c: Thumbnail.Colors.RGB) -> JSONValue {
            let png = PNG.encode(width: 20, height: 20, rgba: Array(repeating: [c.0, c.1, c.2, 255], count: 400).flatMap { $0 })
            return .string(png.base64EncodedString())
        }
        let entries: [(String, Thumbnail.Colors.RGB)] = [("Water", colors.water), ("Land", colors.land), ("Maine", colors.maine)]
        return .object(["layers": .array([.object([
            "layerId": .number(0), "layerName": .string(name), "layerType": .string("Raster Layer"),
            "minScale": .number(0), "maxScale": .number(0),
            "legend": .array(entries.map { label, color in
                .object(["label": .string(label), "url": .string(label.lowercased()), "imageData": swatch(color),
                         "contentType": .string("image/png"), "height": .number(20), "width": .number(20)])
            }),
        ])])])
    }

    var serviceJSON: JSONValue {
        let lods: [JSONValue] = scheme.resolutions.enumerated().map { level, resolution in
            .object(["level": .number(Double(level)), "resolution": .number(resolution),
                     "scale": .number(resolution * 96 / 0.0254)])
        }
        let box = scheme.extent
        let extent: JSONValue = .object(["xmin": .number(box.xmin), "ymin": .number(box.ymin), "xmax": .number(box.xmax), "ymax": .number(box.ymax),
                                         "spatialReference": scheme.reference])
        return .object([
            "currentVersion": .number(11.3), "serviceDescription": .string("Maine's land and water, drawn from Natural Earth."),
            "mapName": .string(name), "copyrightText": .string(MapbookAssets.attribution),
            "singleFusedMapCache": .bool(true), "capabilities": .string("Map,TilesOnly"), "units": .string("esriMeters"),
            "spatialReference": scheme.reference, "initialExtent": extent, "fullExtent": extent,
            "minScale": .number(scheme.resolutions.first! * 96 / 0.0254), "maxScale": .number(scheme.resolutions.last! * 96 / 0.0254),
            "tileInfo": .object([
                "rows": .number(256), "cols": .number(256), "dpi": .number(96), "format": .string("PNG32"),
                "compressionQuality": .number(0),
                "origin": .object(["x": .number(scheme.origin.x), "y": .number(scheme.origin.y)]),
                "spatialReference": scheme.reference, "lods": .array(lods),
            ]),
        ])
    }
}

/// Where a sample cache's tiles lie: its system, origin, levels' resolutions and the box it covers.
struct SampleTilingScheme: Sendable {
    var reference: JSONValue
    var origin: (x: Double, y: Double)
    /// Units a pixel, level 0 first.
    var resolutions: [Double]
    var extent: (xmin: Double, ymin: Double, xmax: Double, ymax: Double)
    /// A point of longitude and latitude in the scheme's system.
    var project: @Sendable (GeoPoint) -> (x: Double, y: Double)

    static let webMercator: SampleTilingScheme = {
        let sw = WebMercator.projected(longitude: SampleCatalog.extent.xmin, latitude: SampleCatalog.extent.ymin)
        let ne = WebMercator.projected(longitude: SampleCatalog.extent.xmax, latitude: SampleCatalog.extent.ymax)
        return SampleTilingScheme(reference: .object(["wkid": .number(102100), "latestWkid": .number(3857)]),
                                  origin: (-WebMercator.originShift, WebMercator.originShift),
                                  resolutions: SampleMapServer.zooms.map { WebMercator.resolution(zoom: Double($0)) },
                                  extent: (sw.x, sw.y, ne.x, ne.y),
                                  project: { WebMercator.projected(longitude: $0.longitude, latitude: $0.latitude) })
    }()

    /// NAD83 / UTM zone 19N by PROJ, on the origin ArcGIS gives UTM caches; nil without PROJ.
    static func utm19N() -> SampleTilingScheme? {
        guard let toUTM = try? CoordinateTransform.between(.wgs84, SpatialReference(wkid: 26919)) else { return nil }
        let project: @Sendable (GeoPoint) -> (x: Double, y: Double) = { toUTM(x: $0.longitude, y: $0.latitude) }
        let e = SampleCatalog.extent
        let corners = [GeoPoint(longitude: e.xmin, latitude: e.ymin), GeoPoint(longitude: e.xmin, latitude: e.ymax),
                       GeoPoint(longitude: e.xmax, latitude: e.ymin), GeoPoint(longitude: e.xmax, latitude: e.ymax)].map(project)
        return SampleTilingScheme(reference: .object(["wkid": .number(26919), "latestWkid": .number(26919)]),
                                  origin: (-5_120_900, 9_998_100), resolutions: [4_000, 2_000, 1_000, 500, 250, 125, 62.5],
                                  extent: (corners.map(\.x).min()!, corners.map(\.y).min()!, corners.map(\.x).max()!, corners.map(\.y).max()!),
                                  project: project)
    }
}

/// A cache's raster tiles, drawn from the geography (projected into the cache's system) on first
/// request and kept.
final class SampleRasterTiles: Sendable {
    typealias Ring = [(x: Double, y: Double)]
    private struct Shape { var rings: [Ring]; var box: (minX: Double, minY: Double, maxX: Double, maxY: Double) }
    private struct Layers { var land: [Shape], maine: [Shape], counties: [Shape], places: [(x: Double, y: Double, big: Bool)] }

    static let colors = Thumbnail.Colors(water: (160, 196, 222), land: (236, 231, 214), maine: (196, 219, 170))
    private static let countyColor: Thumbnail.Colors.RGB = (140, 150, 120)
    private static let placeColor: Thumbnail.Colors.RGB = (60, 60, 60)

    let scheme: SampleTilingScheme
    private let layers: Layers
    private let drawn = Mutex<[TileKey: Data]>([:])

    init(_ basemap: SampleBasemap, scheme: SampleTilingScheme) {
        self.scheme = scheme
        func shapes(_ layer: String) -> [Shape] {
            basemap.features(of: layer).flatMap { feature -> [Shape] in
                guard case .polygons(let polygons) = feature.geometry else { return [] }
                return polygons.map { polygon in
                    let rings = polygon.map { $0.map(scheme.project) }
                    let points = rings.flatMap { $0 }
                    return Shape(rings: rings, box: (points.map(\.x).min() ?? 0, points.map(\.y).min() ?? 0,
                                                     points.map(\.x).max() ?? 0, points.map(\.y).max() ?? 0))
                }
            }
        }
        let places = basemap.features(of: "places").flatMap { feature -> [(x: Double, y: Double, big: Bool)] in
            guard case .points(let points) = feature.geometry else { return [] }
            let big = (feature.property("population")?.double ?? 0) >= 10_000
            return points.map { let m = scheme.project($0); return (m.x, m.y, big) }
        }
        layers = Layers(land: shapes("region"), maine: shapes("state"), counties: shapes("counties"), places: places)
    }

    /// The tile's PNG; nil outside the cache's levels and the web map's extent.
    func png(level: Int, row: Int, column: Int) -> Data? {
        guard scheme.resolutions.indices.contains(level), row >= 0, column >= 0 else { return nil }
        let span = 256 * scheme.resolutions[level]
        let left = scheme.origin.x + Double(column) * span, top = scheme.origin.y - Double(row) * span
        let box = scheme.extent
        guard left <= box.xmax, left + span >= box.xmin, top >= box.ymin, top - span <= box.ymax else { return nil }
        let key = TileKey(z: level, x: column, y: row)
        if let kept = drawn.withLock({ $0[key] }) { return kept }
        let png = draw(left: left, top: top, span: span, resolution: scheme.resolutions[level])
        drawn.withLock { $0[key] = png }
        return png
    }

    private func draw(left: Double, top: Double, span: Double, resolution: Double) -> Data {
        // The canvas is planar: Web Mercator's metres or the UTM zone's alike.
        var canvas = Thumbnail.Canvas(width: 256, height: 256, left: left, top: top, scale: 256 / span)
        let margin = span / 64
        func meets(_ shape: Shape) -> Bool {
            shape.box.maxX >= left - margin && shape.box.minX <= left + span + margin
                && shape.box.maxY >= top - span - margin && shape.box.minY <= top + margin
        }
        canvas.fill(color: Self.colors.water)
        for shape in layers.land where meets(shape) { canvas.fill(mercatorRings: shape.rings, color: Self.colors.land) }
        for shape in layers.maine where meets(shape) { canvas.fill(mercatorRings: shape.rings, color: Self.colors.maine) }
        // County lines from zoom 6's detail, small places from zoom 9's.
        if resolution <= WebMercator.resolution(zoom: 6) * 1.01 {
            for shape in layers.counties where meets(shape) {
                for ring in shape.rings { for (a, b) in zip(ring, ring.dropFirst()) { canvas.line(a, b, color: Self.countyColor) } }
            }
        }
        for place in layers.places where place.big || resolution <= WebMercator.resolution(zoom: 9) * 1.01 {
            let p = canvas.pixel(mercator: (place.x, place.y))
            for dx in -1...1 { for dy in -1...1 { canvas.set(Int(p.x) + dx, Int(p.y) + dy, Self.placeColor) } }
        }
        return PNG.encode(width: 256, height: 256, rgba: canvas.pixels)
    }
}
