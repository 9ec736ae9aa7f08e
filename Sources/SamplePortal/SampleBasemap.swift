import Foundation
import MapbookAssets
import MapbookCore
import TileFormats
import ArcGISModel
import Geometry

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
    public func packageTiles(for extent: GeoExtent, upTo deepest: Int = SampleBasemap.areaZooms.upperBound) -> [TileKey: MVTTile] {
        var result = tiles.filter { $0.key.z <= deepest && Self.tile($0.key, meets: extent) }
        guard deepest >= Self.areaZooms.lowerBound else { return result }
        var tiler = VectorTiler()
        tiler.bounds = extent
        let zooms = Self.areaZooms.lowerBound...min(deepest, Self.areaZooms.upperBound)
        result.merge(tiler.tiles(for: Self.layers(geography, zooms: zooms))) { basemap, _ in basemap }
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
    public static let style = style(.light)

    /// The colours of a style of the sample basemap.
    struct Colors {
        var name: String
        var water, neighbours, neighbourBorders, maine, counties, coast, towns, cities, townNames, cityNames: String

        static let light = Colors(name: "Explore Maine Basemap", water: "#a9cbe0", neighbours: "#e8e4d8", neighbourBorders: "#9c9480",
                                  maine: "#d6e4c4", counties: "#8fa37a", coast: "#5b7a45", towns: "#444444", cities: "#222222",
                                  townNames: "#333333", cityNames: "#111111")
        static let dark = Colors(name: "Explore Maine Dark", water: "#1c2833", neighbours: "#2e3033", neighbourBorders: "#55585c",
                                 maine: "#3a4036", counties: "#5c6652", coast: "#8fa37a", towns: "#b0b0b0", cities: "#dddddd",
                                 townNames: "#c8c8c8", cityNames: "#f0f0f0")
    }

    /// Only the places and their names, without background: the reference layer over a raster basemap.
    static let labelsStyle: JSONValue = {
        var labels = style(.light)
        let kept = labels["layers"]?.array.filter { ["circle", "symbol"].contains($0["type"]?.string) } ?? []
        if case .object(var fields) = labels {
            fields["name"] = .string("Explore Maine Places")
            fields["layers"] = .array(kept)
            labels = .object(fields)
        }
        return labels
    }()

    static func style(_ colors: Colors) -> JSONValue {
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
            "name": .string(colors.name),
            "sources": .object(["esri": .object(["type": .string("vector"), "url": .string("../../"),
                                                 "attribution": .string(MapbookAssets.attribution)])]),
            "layers": .array([
                layer("water", "background", nil, paint: ["background-color": .string(colors.water)]),
                layer("neighbours", "fill", "region", paint: ["fill-color": .string(colors.neighbours)]),
                layer("neighbour borders", "line", "region", paint: ["line-color": .string(colors.neighbourBorders), "line-width": .number(1)]),
                layer("maine", "fill", "state", paint: ["fill-color": .string(colors.maine)]),
                layer("counties", "line", "counties", minzoom: 6,
                      paint: ["line-color": .string(colors.counties), "line-width": .number(0.5)]),
                layer("maine coast", "line", "state", paint: ["line-color": .string(colors.coast), "line-width": .number(1)]),
                layer("towns", "circle", "places", minzoom: 9, paint: ["circle-color": .string(colors.towns), "circle-radius": .number(2)]),
                layer("cities", "circle", "places", minzoom: 6, filter: bigTowns,
                      paint: ["circle-color": .string(colors.cities), "circle-radius": .number(3)]),
                layer("town names", "symbol", "places", minzoom: 9, paint: ["text-color": .string(colors.townNames)],
                      layout: ["text-field": .string("{name}")]),
                layer("city names", "symbol", "places", minzoom: 6, filter: bigTowns, paint: ["text-color": .string(colors.cityNames)],
                      layout: ["text-field": .string("{name}")]),
            ]),
        ])
    }
}
