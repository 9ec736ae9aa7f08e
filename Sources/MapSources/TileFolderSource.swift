import Foundation
import MapRender
import MapbookCore
import TileFormats
import Geometry

/// A folder of loose tiles, as tile servers and tools lay them out: `{z}/{x}/{y}.pbf` (or `.mvt`,
/// `.png`, `.jpg`) or flat `{z}-{x}-{y}.mvt`. The folder is listed once; tiles are read on demand.
public struct TileFolderSource: MapSource {
    public let name: String
    public let isVector: Bool
    public let tileSize: Int
    public let zooms: ClosedRange<Int>
    public let extent: GeoExtent?
    public let style: MapStyle
    public let attribution: String? = nil
    private let paths: [TileKey: String]

    private static let vectorExtensions: Set<String> = ["pbf", "mvt"]
    private static let imageExtensions: Set<String> = ["png", "jpg", "jpeg"]

    public init(path: String) throws {
        let root = URL(fileURLWithPath: path)
        name = TerminalText.sanitizedLine(root.lastPathComponent, maxLength: 120)
        var found: [TileKey: String] = [:]
        var vector = 0, images = 0
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: FolderBoundary.keys)
        let boundary = FolderBoundary(path)
        while let file = files?.nextObject() as? URL, found.count < 100_000 {
            let ext = file.pathExtension.lowercased()
            // A symbolic link that leads out of the folder is not read.
            guard Self.vectorExtensions.contains(ext) || Self.imageExtensions.contains(ext),
                  let key = Self.key(of: file, under: root), boundary.admits(file) else { continue }
            found[key] = file.path
            if Self.vectorExtensions.contains(ext) { vector += 1 } else { images += 1 }
        }
        guard let low = found.keys.map(\.z).min(), let high = found.keys.map(\.z).max() else {
            throw MapSourceError("\(name) holds no tiles named {z}/{x}/{y}.pbf or {z}-{x}-{y}.mvt.")
        }
        paths = found
        isVector = vector >= images
        tileSize = isVector ? 512 : 256
        zooms = low...high
        // The deepest level's tiles bound the data most tightly.
        extent = found.keys.filter { $0.z == high }.map(Self.extent(of:)).union
        // Loose tiles carry no style: the plain one, fitted to the layer names of a few tiles.
        var names = Set<String>()
        if isVector {
            for key in found.keys.sorted().suffix(4) {
                guard let data = try? FileByteSource.contents(of: found[key]!, limit: TileContent.maxVectorTileSize),
                      let tile = try? TileContent.decodeVectorTile(data) else { continue }
                names.formUnion(tile.layers.map(\.name))
            }
        }
        style = .plain(layerNames: names.sorted())
    }

    public func tile(_ key: TileKey) async throws -> MapTile? {
        guard let path = paths[key] else { return nil }
        let bytes: Data
        do {
            // Opened without blocking and read only if a plain file: a FIFO in a tile's place never hangs the map.
            bytes = try FileByteSource.contents(of: path, limit: TileContent.maxVectorTileSize)
        } catch {
            throw MapSourceError("\(URL(fileURLWithPath: path).lastPathComponent) cannot be read as a tile: \(error.description).")
        }
        return try MapTile(key: key, bytes: bytes, vector: isVector)
    }

    /// `…/z/x/y.ext` or `…/z-x-y.ext`, with every number in range for its zoom.
    static func key(of file: URL, under root: URL) -> TileKey? {
        let stem = file.deletingPathExtension().lastPathComponent
        let flat = stem.split(separator: "-").compactMap { Int($0) }
        var numbers: [Int]
        if flat.count == 3, stem.split(separator: "-").count == 3 {
            numbers = flat
        } else {
            let components = file.deletingPathExtension().pathComponents.suffix(3)
            numbers = components.compactMap { Int($0) }
            guard numbers.count == 3, file.path.hasPrefix(root.path) else { return nil }
        }
        let (z, x, y) = (numbers[0], numbers[1], numbers[2])
        guard (0...24).contains(z), (0..<(1 << z)).contains(x), (0..<(1 << z)).contains(y) else { return nil }
        return TileKey(z: z, x: x, y: y)
    }

    static func extent(of key: TileKey) -> GeoExtent {
        let span = 2 * WebMercator.originShift / Double(1 << key.z)
        let west = -WebMercator.originShift + Double(key.x) * span, north = WebMercator.originShift - Double(key.y) * span
        let nw = WebMercator.geographic(x: west, y: north), se = WebMercator.geographic(x: west + span, y: north - span)
        return GeoExtent(xmin: nw.longitude, ymin: se.latitude, xmax: se.longitude, ymax: nw.latitude)
    }
}
