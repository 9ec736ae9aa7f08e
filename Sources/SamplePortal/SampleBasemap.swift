import Foundation
import MapbookAssets
import MapbookCore
import TileFormats

/// The sample basemap: the bundled geography cut into vector tiles. The VectorTileServer serves its
/// tiles; each map area's package holds the tiles over that area, from zoom 0 to `areaZooms`.
public struct SampleBasemap: Sendable {
    /// Zooms tiled over the whole web map extent, and those tiled only over each area.
    public static let basemapZooms = 0...10
    public static let areaZooms = 11...14

    public let tiles: [TileKey: MVTTile]
    private let geography: [(name: String, features: [GeoFeature], minZoom: Int)]

    public init() throws {
        let places = try MapbookAssets.features(.places)
        geography = [
            ("region", try MapbookAssets.features(.region), 0),
            ("state", try MapbookAssets.features(.state), 0),
            ("counties", try MapbookAssets.features(.counties), 6),
            ("places", places, 6),
        ]
        var tiler = VectorTiler()
        tiler.bounds = SampleCatalog.extent
        tiles = tiler.tiles(for: Self.layers(geography, zooms: Self.basemapZooms))
    }

    /// One layer of the geography the basemap is cut from (`region`, `state`, `counties`, `places`).
    func features(of layer: String) -> [GeoFeature] { geography.first { $0.name == layer }?.features ?? [] }

    private static func layers(_ geography: [(name: String, features: [GeoFeature], minZoom: Int)],
                               zooms: ClosedRange<Int>) -> [VectorTiler.Layer] {
        geography.compactMap { layer in
            let from = max(layer.minZoom, zooms.lowerBound)
            return from <= zooms.upperBound ? VectorTiler.Layer(name: layer.name, features: layer.features, zooms: from...zooms.upperBound) : nil
        }
    }

    /// The tiles of an area's package: the basemap's tiles that meet the area, and deeper zooms cut
    /// for the area alone.
    public func packageTiles(for extent: GeoExtent) -> [TileKey: MVTTile] {
        var result = tiles.filter { Self.tile($0.key, meets: extent) }
        var tiler = VectorTiler()
        tiler.bounds = extent
        result.merge(tiler.tiles(for: Self.layers(geography, zooms: Self.areaZooms))) { basemap, _ in basemap }
        return result
    }

    static func tile(_ key: TileKey, meets extent: GeoExtent) -> Bool {
        let nw = WebMercator.projected(longitude: extent.xmin, latitude: extent.ymax)
        let se = WebMercator.projected(longitude: extent.xmax, latitude: extent.ymin)
        let first = WebMercator.tile(containingX: nw.x, y: nw.y, zoom: key.z)
        let last = WebMercator.tile(containingX: se.x, y: se.y, zoom: key.z)
        return (first.column...last.column).contains(key.x) && (first.row...last.row).contains(key.y)
    }

    /// The basemap's Mapbox GL style: water, land, Maine, county lines, places by size.
    public static let style: JSONValue = {
        func layer(_ id: String, _ type: String, _ source: String?, minzoom: Int? = nil, filter: JSONValue? = nil,
                   paint: [String: JSONValue], layout: [String: JSONValue] = [:]) -> JSONValue {
            var object: [String: JSONValue] = ["id": .string(id), "type": .string(type), "paint": .object(paint)]
            if let source { object["source"] = .string("esri"); object["source-layer"] = .string(source) }
            if let minzoom { object["minzoom"] = .number(Double(minzoom)) }
            if let filter { object["filter"] = filter }
            if !layout.isEmpty { object["layout"] = .object(layout) }
            return .object(object)
        }
        let bigTowns: JSONValue = .array([.string(">="), .string("population"), .number(10_000)])
        return .object([
            "version": .number(8),
            "name": .string("Explore Maine Basemap"),
            "sources": .object(["esri": .object(["type": .string("vector"), "url": .string("../../"),
                                                 "attribution": .string(MapbookAssets.attribution)])]),
            "layers": .array([
                layer("water", "background", nil, paint: ["background-color": .string("#a9cbe0")]),
                layer("neighbours", "fill", "region", paint: ["fill-color": .string("#e8e4d8")]),
                layer("neighbour borders", "line", "region", paint: ["line-color": .string("#9c9480"), "line-width": .number(1)]),
                layer("maine", "fill", "state", paint: ["fill-color": .string("#d6e4c4")]),
                layer("counties", "line", "counties", minzoom: 6,
                      paint: ["line-color": .string("#8fa37a"), "line-width": .number(0.5)]),
                layer("maine coast", "line", "state", paint: ["line-color": .string("#5b7a45"), "line-width": .number(1)]),
                layer("towns", "circle", "places", minzoom: 9, paint: ["circle-color": .string("#444444"), "circle-radius": .number(2)]),
                layer("cities", "circle", "places", minzoom: 6, filter: bigTowns,
                      paint: ["circle-color": .string("#222222"), "circle-radius": .number(3)]),
                layer("town names", "symbol", "places", minzoom: 9, paint: ["text-color": .string("#333333")],
                      layout: ["text-field": .string("{name}")]),
                layer("city names", "symbol", "places", minzoom: 6, filter: bigTowns, paint: ["text-color": .string("#111111")],
                      layout: ["text-field": .string("{name}")]),
            ]),
        ])
    }()
}
