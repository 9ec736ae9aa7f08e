import Foundation
import MapRender
import MapbookCore
import TileFormats
import Geometry

/// Where a map view's tiles come from: a package on disk, a folder of loose tiles, or a
/// VectorTileServer. Reading and decoding happen in `tile(_:)`, which callers run off the UI thread.
public protocol MapSource: Sendable {
    /// What the footer calls it: a file name, or the service's.
    var name: String { get }
    var isVector: Bool { get }
    /// Tile size in pixels (512 for vector tiles, usually 256 for raster).
    var tileSize: Int { get }
    /// The tile zooms (2^z tiles across the world) the source has.
    var zooms: ClosedRange<Int> { get }
    /// What the view shows at first and on `0`; nil for "the whole world".
    var extent: GeoExtent? { get }
    var style: MapStyle { get }
    /// Sanitized credit line for the map's corner.
    var attribution: String? { get }
    /// A decoded tile; nil where the source has none. Damaged tiles throw.
    func tile(_ key: TileKey) async throws -> MapTile?
    /// What a raster source's colours mean, when it says (a MapServer's legend).
    var legend: [LegendEntry] { get }
    /// Its tiles come over the network (a file's are at hand).
    var isRemote: Bool { get }
}

extension MapSource {
    public var legend: [LegendEntry] { [] }
    public var isRemote: Bool { false }

    /// The layers the layer list offers: the style's source layers, or one entry for raster tiles.
    public var layerNames: [String] { isVector ? style.sourceLayers : [MapComposer.rasterLayerName] }
}

/// A source that could not be opened, in one sentence.
public struct MapSourceError: UserFacingError, Equatable {
    public let userMessage: String
    public init(_ message: String) { userMessage = message }
}

enum Attribution {
    /// Credits come from packages and services: HTML entities and tags out, control characters out.
    static func clean(_ text: String?) -> String? {
        guard let text else { return nil }
        let plain = HTMLText.plainText(text)
        let line = TerminalText.sanitizedLine(plain, maxLength: 120).trimmingCharacters(in: .whitespaces)
        return line.isEmpty ? nil : line
    }
}

public enum MapSources {
    /// A side-loaded file or folder: a tile package, an ArcGIS cache folder, or a folder of loose tiles.
    public static func open(path: String) throws -> any MapSource {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw MapSourceError("\(TerminalText.sanitizedLine(path, maxLength: 200)) does not exist.")
        }
        guard isDirectory.boolValue, TileCacheFolder.configuration(in: path) == nil else { return try PackageMapSource(path: path) }
        return try TileFolderSource(path: path)
    }
}
