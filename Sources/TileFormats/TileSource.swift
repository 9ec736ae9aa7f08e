import Foundation
import MapbookCore
import Geometry

/// One level of detail of a tile set. `level` is the package's own id (the `Lnn` folder); `zoom` is
/// the web zoom it corresponds to (2^zoom tiles across the world), nil when the tiling scheme is not
/// web-aligned.
public struct TileLevel: Sendable, Equatable {
    public var level: Int
    public var zoom: Int?
    public var resolution: Double
    public var scale: Double

    public init(level: Int, zoom: Int?, resolution: Double, scale: Double) {
        self.level = level; self.zoom = zoom; self.resolution = resolution; self.scale = scale
    }

    /// The web zoom of a level whose tiles start at the Web Mercator origin, when its resolution
    /// divides the world into a power of two of tiles.
    static func webZoom(resolution: Double, tileSize: Int, origin: (x: Double, y: Double)?,
                        spatialReference: SpatialReference?) -> Int? {
        guard let origin, spatialReference?.isWebMercator ?? false, resolution > 0, tileSize > 0,
              abs(origin.x + WebMercator.originShift) < 1, abs(origin.y - WebMercator.originShift) < 1 else { return nil }
        let zoom = log2(2 * WebMercator.originShift / (Double(tileSize) * resolution))
        guard let level = zoom.int(in: 0...30), abs(zoom - Double(level)) < 0.01 else { return nil }
        return level
    }
}

/// Where a tiling scheme's column 0 and row 0 begin: its top left corner.
public struct TileOrigin: Sendable, Equatable {
    public var x: Double, y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }
}

/// What a tile set holds, as its metadata declares it.
public struct TileSetInfo: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case vectorTilePackage = "vtpk", tilePackage = "tpkx", compactV1TilePackage = "tpk"
        /// An ArcGIS cache folder on disk: `conf.xml` beside `_alllayers`, bundled or exploded.
        case cacheFolder = "cache"
        /// A tiled MapServer or ImageServer online, as its description (`tileInfo`) declares it.
        case tileService = "service"
    }

    /// How bundles store tiles: V1 (`.bundle` + `.bundlx`) or V2 (index inside the bundle).
    public enum BundleFormat: String, Sendable {
        case compactV1, compactV2
    }

    public var kind: Kind
    public var bundleFormat: BundleFormat
    public var name: String
    /// The declared tile format, lowercased: `pbf`, `png`, `png8`, `jpeg`, `mixed`, …
    public var tileFormat: String
    public var tileSize: Int
    public var levels: [TileLevel]
    public var fullExtent: Envelope?
    public var spatialReference: SpatialReference?
    /// The tiling scheme's origin (its top left corner), in `spatialReference`'s units.
    public var origin: TileOrigin?

    public var isVector: Bool { kind == .vectorTilePackage }

    /// The level that holds web zoom `z`; for tile sets not aligned to the web grid, the level whose id is `z`.
    public func level(forZoom z: Int) -> TileLevel? {
        levels.first { $0.zoom == z } ?? levels.first { $0.zoom == nil && $0.level == z }
    }

    /// The level of the tile at web zoom `z`, column `x`, row `y`; nil when there is none or the
    /// tile lies outside the web grid.
    func level(z: Int, x: Int, y: Int) -> TileLevel? {
        guard let level = level(forZoom: z), x >= 0, y >= 0 else { return nil }
        if level.zoom != nil, x >= 1 << z || y >= 1 << z { return nil }
        return level
    }
}

/// Anything that hands out tiles by web zoom, column and row: packages on disk now, services later.
public protocol TileSource: Sendable {
    var info: TileSetInfo { get }
    /// The tile's bytes as stored (for vector tiles usually gzip'd MVT); nil where there is no tile.
    func tile(z: Int, x: Int, y: Int) throws(TileFormatError) -> Data?
    /// The levels (the source's own ids) that hold any tile, when the source knows without reading
    /// tiles; nil when it does not. A package's scheme often lists levels it has no tiles at.
    var populatedLevels: Set<Int>? { get }
}

extension TileSource {
    public var populatedLevels: Set<Int>? { nil }

    /// The levels drawn from: those holding tiles when that is known, else every level listed.
    public var levelsWithTiles: [TileLevel] {
        guard let populated = populatedLevels else { return info.levels }
        return info.levels.filter { populated.contains($0.level) }
    }

    /// A vector tile decoded, gunzipped first when it is compressed.
    public func vectorTile(z: Int, x: Int, y: Int) throws(TileFormatError) -> MVTTile? {
        guard let stored = try tile(z: z, x: x, y: y) else { return nil }
        return try TileContent.decodeVectorTile(stored)
    }
}

/// What a tile's bytes turn out to be, judged from their content rather than the package's claim.
public enum TileContent: Sendable, Equatable {
    case png, jpeg, vector
    case undecodable(String)

    /// Largest vector tile we inflate; real ones are well under 1 MiB.
    public static let maxVectorTileSize = 16 << 20

    public static func decodeVectorTile(_ stored: Data) throws(TileFormatError) -> MVTTile {
        let raw = Deflate.isGzip(stored) ? try Deflate.inflate(stored, limit: maxVectorTileSize) : stored
        do {
            return try MVTTile(decoding: raw)
        } catch {
            throw .malformed("the vector tile does not decode: \(error.description)")
        }
    }

    /// Checks a tile: vector tiles are decoded in full; images must carry a PNG or JPEG signature
    /// (and a PNG its header chunk) — pixels are decoded by the renderer, not here.
    public static func classify(_ data: Data, vector: Bool) -> TileContent {
        if vector {
            do {
                _ = try decodeVectorTile(data)
                return .vector
            } catch {
                return .undecodable(error.description)
            }
        }
        let bytes = [UInt8](data.prefix(16))
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            return bytes.count == 16 && bytes[12...15].elementsEqual(Array("IHDR".utf8))
                ? .png : .undecodable("a PNG without its header chunk")
        }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        return .undecodable("neither a PNG nor a JPEG signature")
    }
}
