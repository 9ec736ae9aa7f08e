import Foundation
import MapbookCore
import TileFormats
import Geometry

extension PlaceIndex {
    /// Label fields of vector tiles, in order of preference.
    static let nameKeys = ["name", "_name", "name_en", "NAME", "Name", "_name_global", "name:latin"]

    /// The named features of a vector tile package: each name once per place (about a kilometre),
    /// at the coarsest zoom that shows it, placed at its point, a line's middle vertex or an area's
    /// middle. Raster packages have none.
    public static func names(in package: TilePackage) throws(TileFormatError) -> [PlaceName] {
        guard package.info.isVector else { return [] }
        var best: [String: PlaceName] = [:]
        for level in package.info.levels {
            guard let zoom = level.zoom else { continue }
            for position in try package.tilePositions(level: level.level) {
                guard let data = try? package.tile(level: level.level, row: position.row, column: position.column),
                      let tile = try? TileContent.decodeVectorTile(data) else { continue }
                for layer in tile.layers {
                    let nameKey = nameKeys.lazy.compactMap { key in layer.keys.firstIndex(of: key).map { UInt32($0) } }.first
                    guard let nameKey else { continue }
                    for feature in layer.features where feature.geometryError == nil {
                        guard let name = label(feature, key: nameKey, in: layer),
                              let point = anchor(feature, zoom: zoom, x: position.column, y: position.row, extent: layer.extent) else { continue }
                        let place = PlaceName(name: name, point: point, rank: Double(zoom))
                        let key = name + String(format: "|%.2f|%.2f", point.longitude, point.latitude)
                        if let known = best[key], known.rank <= place.rank { continue }
                        best[key] = place
                    }
                }
            }
        }
        return best.values.sorted { a, b in
            (a.name, a.point.longitude, a.point.latitude, a.rank) < (b.name, b.point.longitude, b.point.latitude, b.rank)
        }
    }

    private static func label(_ feature: MVTFeature, key: UInt32, in layer: MVTLayer) -> String? {
        var i = 0
        while i + 1 < feature.tags.count {
            if feature.tags[i] == key, Int(feature.tags[i + 1]) < layer.values.count, case .string(let text) = layer.values[Int(feature.tags[i + 1])] {
                let clean = TerminalText.sanitizedLine(text, maxLength: 120).trimmingCharacters(in: .whitespaces)
                return clean.isEmpty ? nil : clean
            }
            i += 2
        }
        return nil
    }

    /// Where the feature's name belongs, in WGS84.
    private static func anchor(_ feature: MVTFeature, zoom: Int, x: Int, y: Int, extent: Int) -> GeoPoint? {
        let points = feature.geometry.points
        guard !points.isEmpty, extent > 0 else { return nil }
        let local: (x: Double, y: Double)
        switch feature.type {
        case .point: local = (Double(points[0].x), Double(points[0].y))
        case .lineString:
            let end = feature.geometry.partEnds.first.map { min($0, points.count) } ?? points.count
            let middle = points[max(end, 1) / 2]
            local = (Double(middle.x), Double(middle.y))
        default:
            let xs = points.map(\.x), ys = points.map(\.y)
            local = ((Double(xs.min()!) + Double(xs.max()!)) / 2, (Double(ys.min()!) + Double(ys.max()!)) / 2)
        }
        // Features reach into the tile's buffer: their anchor must lie in the tile itself.
        guard (0...Double(extent)).contains(local.x), (0...Double(extent)).contains(local.y) else { return nil }
        let span = 2 * WebMercator.originShift / Double(1 << zoom)
        let mx = -WebMercator.originShift + (Double(x) + local.x / Double(extent)) * span
        let my = WebMercator.originShift - (Double(y) + local.y / Double(extent)) * span
        let geographic = WebMercator.geographic(x: mx, y: my)
        return GeoPoint(longitude: geographic.longitude, latitude: geographic.latitude)
    }
}
