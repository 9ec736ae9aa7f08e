import Foundation
import MapRender
import MapbookCore
import TileFormats
import ArcGISModel
import Geometry

extension MapStack {
    /// The most hits one identify returns.
    public static let identifyLimit = 20

    /// What lies under `point` in the view of `request`, within one cell: operational features
    /// first (upper layers first), then map services' (their `identify`), then the world outline's
    /// when it stands in for a basemap, then the basemap's vector tile features (points and labels, then
    /// lines, then areas; upper layers first).
    public func identify(at point: GeoPoint, request: MapRequest) async -> [IdentifyHit] {
        let target = MercatorPoint(point)
        // A cell is 2 × 4 dots; one dot is `resolution` metres.
        let tolerance = request.viewport.resolution * 4
        var hits: [IdentifyHit] = []
        func featureHits(_ loaders: [FeatureLayerLoader]) async {
            for loader in loaders.reversed() where !request.hiddenLayers.contains(loader.title) && hits.count < Self.identifyLimit {
                guard loader.info.isVisible(atScale: request.viewport.scale), let layer = await loader.current else { continue }
                for index in layer.hits(at: target, tolerance: tolerance).prefix(Self.identifyLimit - hits.count) {
                    let feature = layer.features[index]
                    var card = PopupCard.make(layer: loader.title, attributes: feature.attributes, fields: layer.info.fields,
                                              popup: layer.info.popup, displayField: layer.info.displayField)
                    card.rows += PopupCard.measureRows(z: feature.z, m: feature.m)
                    let objectID = layer.info.objectIDField.flatMap { feature.attributes[$0]?.int64 }
                    hits.append(IdentifyHit(card: card, geometry: feature.geometry, feature: objectID.map { .init(layer: loader.title, objectID: $0) }))
                }
            }
        }
        await featureHits(features)
        // Then what the servers of map services say lies there (upper layers first), then what
        // stands in for a basemap (the world outline).
        for layer in images.reversed().map(\.layer) where !request.hiddenLayers.contains(layer.title) && hits.count < Self.identifyLimit {
            hits += await layer.identify(at: point, viewport: request.viewport, columns: request.columns, rows: request.rows)
                .prefix(Self.identifyLimit - hits.count)
        }
        await featureHits(baseFeatures)
        if hits.count >= Self.identifyLimit { return hits }
        for layer in layers.reversed() where layer.loader.source.isVector {
            let loaded = await layer.loader.tiles(for: request.viewport, columns: request.columns, rows: request.rows)
            hits += Self.tileHits(loaded.tiles, at: target, tolerance: tolerance, hidden: request.hiddenLayers,
                                  limit: Self.identifyLimit - hits.count)
            if hits.count >= Self.identifyLimit { break }
        }
        return hits
    }

    /// Features of vector tiles near a point, from the deepest tile that holds it.
    static func tileHits(_ tiles: [MapTile], at target: MercatorPoint, tolerance: Double, hidden: Set<String>, limit: Int) -> [IdentifyHit] {
        guard limit > 0 else { return [] }
        let holding = tiles.filter { tile in
            let span = 2 * WebMercator.originShift / Double(1 << min(max(tile.key.z, 0), 30))
            let left = -WebMercator.originShift + Double(tile.key.x) * span, top = WebMercator.originShift - Double(tile.key.y) * span
            return target.x >= left && target.x < left + span && target.y <= top && target.y > top - span
        }
        guard let tile = holding.max(by: { $0.key.z < $1.key.z }), case .vector(let layers) = tile.content else { return [] }
        let span = 2 * WebMercator.originShift / Double(1 << min(max(tile.key.z, 0), 30))
        let left = -WebMercator.originShift + Double(tile.key.x) * span, top = WebMercator.originShift - Double(tile.key.y) * span
        var found: [(rank: Int, hit: IdentifyHit)] = []
        for (name, prepared) in layers.sorted(by: { $0.key < $1.key }) where !hidden.contains(name) {
            let layer = prepared.layer
            let k = span / Double(max(layer.extent, 1))
            func metres(_ p: MVTPoint) -> MercatorPoint { MercatorPoint(x: left + Double(p.x) * k, y: top - Double(p.y) * k) }
            for feature in layer.features where feature.geometryError == nil {
                var start = 0
                var parts: [[MercatorPoint]] = []
                for end in feature.geometry.partEnds {
                    parts.append(feature.geometry.points[start..<min(end, feature.geometry.points.count)].map(metres))
                    start = end
                }
                let rank: Int
                switch feature.type {
                case .point:
                    guard parts.joined().contains(where: { hypot($0.x - target.x, $0.y - target.y) <= tolerance }) else { continue }
                    rank = 0
                case .lineString:
                    guard parts.contains(where: { PreparedFeatureLayer.distance(target, toPath: $0) <= tolerance }) else { continue }
                    rank = 1
                case .polygon:
                    guard PreparedFeatureLayer.covers(target, rings: parts) else { continue }
                    rank = 2
                case .unknown:
                    continue
                }
                var attributes: FeatureAttributes = [:]
                var i = 0
                while i + 1 < feature.tags.count {
                    let key = Int(feature.tags[i]), value = Int(feature.tags[i + 1])
                    if key < layer.keys.count, value < layer.values.count { attributes[layer.keys[key]] = StyleExpression.json(layer.values[value]) }
                    i += 2
                }
                let geographic = parts.map { $0.map(\.geographic) }
                let geometry: GeoGeometry = switch feature.type {
                case .point: .points(geographic.flatMap { $0 })
                case .lineString: .lines(geographic)
                default: .polygons([geographic.map { ring in ring.first.map { ring + [$0] } ?? ring }])
                }
                let title = ["_name", "name", "name_en", "name:en", "NAME", "Name"].lazy.compactMap { attributes[$0]?.string }.first
                var card = PopupCard.make(layer: name, attributes: attributes, fields: [], popup: nil)
                if let title { card.title = TerminalText.sanitizedLine(title, maxLength: 120) }
                card.layer = TerminalText.sanitizedLine(name, maxLength: 80) + " · basemap"
                found.append((rank, IdentifyHit(card: card, geometry: geometry)))
            }
        }
        return found.enumerated().sorted { ($0.element.rank, $0.offset) < ($1.element.rank, $1.offset) }.prefix(limit).map(\.element.hit)
    }
}

