import Foundation
import Geometry
import MapbookCore
import Synchronization

/// A raster tile set in another tiling scheme (a State Plane or UTM cache, or Web Mercator from
/// another origin) seen as Web Mercator tiles of 256 pixels, so the map view, its zooms, `snapshot`
/// and everything drawn over it stay in one system. Each Web Mercator tile is resampled from the
/// source's tiles through a coarse grid of PROJ transforms (`gridCells`² cells, bilinear between
/// them), nearest pixel: a tile costs (gridCells + 1)² transforms, not one a pixel. Why this and
/// not the map in the basemap's own system: docs/architecture.md.
public final class ReprojectedTiles: Sendable {
    /// The source's levels that hold tiles.
    private let levels: [TileLevel]
    /// The Web Mercator zooms the source's levels come to, coarsest to finest.
    public let zooms: ClosedRange<Int>
    private let tilePixels: Int
    private let origin: TileOrigin
    private let toSource: CoordinateTransform
    private let sourceBox: (xmin: Double, ymin: Double, xmax: Double, ymax: Double)?
    private let decoded = Mutex(DecodedTiles())

    public static let tileSize = 256
    /// 8 × 8 cells of 32 pixels: within a tile a projection's curvature is far under a pixel.
    static let gridCells = 8
    /// Decoded source tiles kept for the next Web Mercator tile (a view's tiles share them).
    static let keptDecoded = 24
    /// More source tiles than one Web Mercator tile can honestly need (a scheme whose levels lie).
    static let mostSourceTiles = 64

    /// A package's or cache folder's tiles, when their scheme can be drawn.
    public convenience init(_ source: any TileSource) throws(TileFormatError) {
        try self.init(info: source.info, levels: source.levelsWithTiles.isEmpty ? source.info.levels : source.levelsWithTiles)
    }

    /// A tiling scheme (`levels`: those holding tiles), when it can be drawn; the sentence that
    /// says why not otherwise.
    public init(info: TileSetInfo, levels: [TileLevel]) throws(TileFormatError) {
        guard let reference = info.spatialReference else { throw .unsupported("its tiling scheme names no coordinate system") }
        guard let origin = info.origin, origin.x.isFinite, origin.y.isFinite, abs(origin.x) < 1e12, abs(origin.y) < 1e12 else {
            throw .unsupported("its tiling scheme has no usable origin")
        }
        guard !info.isVector else { throw .unsupported("its vector tiles are in \(reference.summary), and mapbook draws vector tiles in Web Mercator only") }
        guard (16...4096).contains(info.tileSize) else { throw .unsupported("its tiles are \(info.tileSize) pixels wide") }
        let levels = levels.filter { $0.resolution.isFinite && $0.resolution > 0 && $0.resolution < 1e9 }
        guard !levels.isEmpty else { throw .unsupported("its tiling scheme has no level with a usable resolution") }
        do {
            toSource = try CoordinateTransform.between(.webMercator, reference)
        } catch {
            throw .unsupported(error.clause(about: "it"))
        }
        tilePixels = info.tileSize
        self.origin = origin
        self.levels = levels
        if let extent = info.fullExtent, extent.spatialReference == reference,
           [extent.xmin, extent.ymin, extent.xmax, extent.ymax].allSatisfy(\.isFinite), extent.xmin < extent.xmax, extent.ymin < extent.ymax {
            sourceBox = (extent.xmin, extent.ymin, extent.xmax, extent.ymax)
        } else {
            sourceBox = nil
        }
        // Web Mercator metres per source unit where the data is: the zooms its levels come to.
        let centre = sourceBox.map { (x: ($0.xmin + $0.xmax) / 2, y: ($0.ymin + $0.ymax) / 2) }
            ?? (x: origin.x + levels[0].resolution * Double(info.tileSize), y: origin.y - levels[0].resolution * Double(info.tileSize))
        let a = toSource.inverse(x: centre.x, y: centre.y), b = toSource.inverse(x: centre.x + 100, y: centre.y)
        let metresPerUnit = hypot(b.x - a.x, b.y - a.y) / 100
        guard metresPerUnit.isFinite, metresPerUnit > 0 else { throw .unsupported("its tiles lie where \(reference.summary) gives no position") }
        // Levels past the zooms mapbook draws are drawn at its nearest (levels is not empty).
        let webZooms = levels.map { log2(WebMercator.resolution(zoom: 0) / ($0.resolution * metresPerUnit)) }
        let low = webZooms.min()!.clampedInt(in: 0...22, rounding: .down), high = webZooms.max()!.clampedInt(in: 0...22)
        zooms = low...max(low, high)
    }

    /// A package's Web Mercator tile, read from its own tiles.
    public func tile(z: Int, x: Int, y: Int, from source: any TileSource) async throws -> RasterImage? {
        try await tile(z: z, x: x, y: y) { level, column, row in
            try source.tile(z: level, x: column, y: row).map { data throws(TileFormatError) in try RasterImage(decoding: data) }
        }
    }

    /// The Web Mercator tile `z/x/y` drawn from the source's tiles, each fetched and decoded (by
    /// its level id, column and row) once; nil where the source has none.
    public func tile(z: Int, x: Int, y: Int, fetch: (_ level: Int, _ column: Int, _ row: Int) async throws -> RasterImage?) async throws -> RasterImage? {
        guard (0...30).contains(z), x >= 0, y >= 0, x < 1 << z, y < 1 << z else { return nil }
        let n = Self.gridCells, size = Self.tileSize
        let span = 2 * WebMercator.originShift / Double(1 << z)
        let left = -WebMercator.originShift + Double(x) * span, top = WebMercator.originShift - Double(y) * span
        var xs: [Double] = [], ys: [Double] = []
        for row in 0...n {
            for column in 0...n {
                xs.append(left + Double(column) * span / Double(n)); ys.append(top - Double(row) * span / Double(n))
            }
        }
        toSource.transform(xs: &xs, ys: &ys)
        guard xs.allSatisfy(\.isFinite), ys.allSatisfy(\.isFinite) else { return nil }
        if let box = sourceBox, xs.max()! < box.xmin || xs.min()! > box.xmax || ys.max()! < box.ymin || ys.min()! > box.ymax { return nil }
        // The level whose pixels are nearest the tile's, in source units.
        let middle = (n / 2) * (n + 1)
        let needed = hypot(xs[middle + n] - xs[middle], ys[middle + n] - ys[middle]) / Double(size)
        guard needed > 0, let level = levels.min(by: { abs(log2($0.resolution / needed)) < abs(log2($1.resolution / needed)) }) else { return nil }

        // Each pixel's source pixel (bilinear between the grid's corners), and the tiles they lie in.
        var sourcePixels = [(column: Int, row: Int)?](repeating: nil, count: size * size)
        var wanted = Set<DecodedTiles.Key>()
        let cell = size / n
        for py in 0..<size {
            let gy = py / cell, fy = (Double(py % cell) + 0.5) / Double(cell)
            for px in 0..<size {
                let gx = px / cell, fx = (Double(px % cell) + 0.5) / Double(cell)
                let i = gy * (n + 1) + gx
                let sx = (xs[i] * (1 - fx) + xs[i + 1] * fx) * (1 - fy) + (xs[i + n + 1] * (1 - fx) + xs[i + n + 2] * fx) * fy
                let sy = (ys[i] * (1 - fx) + ys[i + 1] * fx) * (1 - fy) + (ys[i + n + 1] * (1 - fx) + ys[i + n + 2] * fx) * fy
                guard let column = ((sx - origin.x) / level.resolution).rounded(.down).int(in: 0...Int(Int32.max)),
                      let row = ((origin.y - sy) / level.resolution).rounded(.down).int(in: 0...Int(Int32.max)) else { continue }
                sourcePixels[py * size + px] = (column, row)
                wanted.insert(DecodedTiles.Key(level: level.level, column: column / tilePixels, row: row / tilePixels))
            }
        }
        guard wanted.count <= Self.mostSourceTiles else { throw TileFormatError.unsupported("one tile of the view needs \(wanted.count) of the package's") }
        var images: [DecodedTiles.Key: RasterImage] = [:]
        for key in wanted {
            if let image = try await sourceTile(key, fetch: fetch) { images[key] = image }
        }
        guard !images.isEmpty else { return nil }

        var rgba = [UInt8](repeating: 0, count: size * size * 4)
        var drawn = false
        for (index, pixel) in sourcePixels.enumerated() {
            guard let pixel else { continue }
            let key = DecodedTiles.Key(level: level.level, column: pixel.column / tilePixels, row: pixel.row / tilePixels)
            guard let image = images[key] else { continue }
            let ix = (pixel.column - key.column * tilePixels) * image.width / tilePixels
            let iy = (pixel.row - key.row * tilePixels) * image.height / tilePixels
            let from = (iy * image.width + ix) * 4, to = index * 4
            guard image.rgba[from + 3] > 0 else { continue }
            rgba[to] = image.rgba[from]; rgba[to + 1] = image.rgba[from + 1]; rgba[to + 2] = image.rgba[from + 2]; rgba[to + 3] = image.rgba[from + 3]
            drawn = true
        }
        return drawn ? RasterImage(width: size, height: size, rgba: rgba) : nil
    }

    /// A source tile decoded, from those kept when a neighbour needed it too.
    private func sourceTile(_ key: DecodedTiles.Key, fetch: (Int, Int, Int) async throws -> RasterImage?) async throws -> RasterImage? {
        if let kept = decoded.withLock({ $0.tiles[key] }) { return kept }
        let image = try await fetch(key.level, key.column, key.row)
        decoded.withLock { $0.keep(image, for: key, most: Self.keptDecoded) }
        return image
    }

    private struct DecodedTiles {
        struct Key: Hashable { var level: Int, column: Int, row: Int }
        var tiles: [Key: RasterImage?] = [:]
        var order: [Key] = []

        mutating func keep(_ image: RasterImage?, for key: Key, most: Int) {
            guard tiles.updateValue(image, forKey: key) == nil else { return }
            order.append(key)
            if order.count > most { tiles[order.removeFirst()] = nil }
        }
    }
}
