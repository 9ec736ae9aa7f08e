import Foundation
import MapbookCore
import Synchronization
import TileFormats

/// A decoded tile ready to draw: vector layers indexed by name (and each layer's keys by name, so a
/// style's property lookups do not build a dictionary per feature), or raster pixels.
public struct MapTile: Sendable {
    public enum Content: Sendable {
        case vector([String: PreparedLayer])
        case raster(RasterImage)
    }

    public let key: TileKey
    public let content: Content
    /// Features whose geometry did not decode: left out of the drawing and reported.
    public let damagedFeatures: Int

    public init(key: TileKey, vector tile: MVTTile) {
        self.key = key
        var layers: [String: PreparedLayer] = [:]
        for layer in tile.layers where layers[layer.name] == nil { layers[layer.name] = PreparedLayer(layer) }
        content = .vector(layers)
        damagedFeatures = tile.layers.reduce(0) { $0 + $1.features.count { $0.geometryError != nil } }
    }

    public init(key: TileKey, raster image: RasterImage) {
        self.key = key
        content = .raster(image)
        damagedFeatures = 0
    }

    public var isRaster: Bool {
        if case .raster = content { return true }
        return false
    }

    /// Decodes stored tile bytes: vector tiles (gzip'd or not) or PNG/JPEG images.
    public init(key: TileKey, bytes: Data, vector: Bool) throws(TileFormatError) {
        if vector {
            self.init(key: key, vector: try TileContent.decodeVectorTile(bytes))
        } else {
            self.init(key: key, raster: try RasterImage(decoding: bytes))
        }
    }
}

public final class PreparedLayer: Sendable {
    public let layer: MVTLayer
    let keyIndex: [String: UInt32]
    /// Each feature's bounding box in tile units, so a drawing can pass over features that cannot
    /// show (off the canvas, or too small to cover a fill pixel's centre) without their geometry.
    let bounds: [FeatureBounds]
    /// The names symbol layers find in this layer, by scale, then by style layer (`TileName`).
    private let names = Mutex<[TileName.Scale: [Int: [TileName]]]>([:])

    init(_ layer: MVTLayer) {
        self.layer = layer
        var index: [String: UInt32] = [:]
        for (i, key) in layer.keys.enumerated() where index[key] == nil { index[key] = UInt32(i) }
        keyIndex = index
        bounds = layer.features.map { FeatureBounds($0.geometry.points) }
    }

    /// The names style layer `layer` finds here at `scale`, worked out by `make` the first time
    /// they are asked for. A few scales' worth are kept: a tile shows at one or two at a time.
    func names(_ scale: TileName.Scale, layer: Int, _ make: () -> [TileName]) -> [TileName] {
        if let kept = names.withLock({ $0[scale]?[layer] }) { return kept }
        let made = make()
        names.withLock { kept in
            if kept[scale] == nil, kept.count >= 4 { kept.removeAll() }
            kept[scale, default: [:]][layer] = made
        }
        return made
    }

    func value(_ name: String, tags: [UInt32]) -> MVTValue? {
        guard let key = keyIndex[name] else { return nil }
        return value(key: key, tags: tags)
    }

    /// A feature's value for the key at `key` in this layer's keys.
    func value(key: UInt32, tags: [UInt32]) -> MVTValue? {
        var i = 0
        while i + 1 < tags.count {
            if tags[i] == key {
                let v = Int(tags[i + 1])
                return v < layer.values.count ? layer.values[v] : nil
            }
            i += 2
        }
        return nil
    }
}

/// A feature's extent in tile units (empty geometry: an inverted box that overlaps nothing).
struct FeatureBounds: Sendable {
    var minX = Int32.max, minY = Int32.max, maxX = Int32.min, maxY = Int32.min

    init(_ points: [MVTPoint]) {
        for p in points {
            minX = min(minX, p.x); maxX = max(maxX, p.x)
            minY = min(minY, p.y); maxY = max(maxY, p.y)
        }
    }
}
