import Foundation
import MapRender
import MapbookCore
import TileFormats
import Geometry

/// A `.vtpk`, `.tpkx` or `.tpk` on disk, read in place (a downloaded area's package or a
/// side-loaded file), or an ArcGIS cache folder.
public struct PackageMapSource: MapSource {
    public let tiles: any TileSource
    public let name: String
    public let zooms: ClosedRange<Int>
    public let extent: GeoExtent?
    public let style: MapStyle
    public let attribution: String?
    /// Why the package's own style is not used, when it has one that does not parse.
    public let styleProblem: String?
    /// A raster package tiled in another scheme (a State Plane or UTM cache), drawn as Web Mercator tiles.
    public let reprojected: ReprojectedTiles?

    public var isVector: Bool { tiles.info.isVector }
    public var tileSize: Int { reprojected == nil ? tiles.info.tileSize : ReprojectedTiles.tileSize }

    /// A package file, or a folder holding an ArcGIS cache (`conf.xml` beside `_alllayers`).
    public init(path: String) throws {
        let tiles: any TileSource
        do {
            tiles = TileCacheFolder.configuration(in: path) != nil ? try TileCacheFolder(path: path) : try TilePackage(path: path)
        } catch {
            throw MapSourceError("\(TerminalText.sanitizedLine(URL(fileURLWithPath: path).lastPathComponent, maxLength: 120)) cannot be opened: \(error.description).")
        }
        try self.init(tiles: tiles, path: path)
    }

    public init(tiles: any TileSource, path: String) throws {
        self.tiles = tiles
        let fileName = TerminalText.sanitizedLine(URL(fileURLWithPath: path).lastPathComponent, maxLength: 120)
        name = fileName
        let package = tiles as? TilePackage
        // The levels that hold tiles: a view drawn at an empty level would show nothing.
        let webZooms = (tiles.levelsWithTiles.isEmpty ? tiles.info.levels : tiles.levelsWithTiles).compactMap(\.zoom)
        if let low = webZooms.min(), let high = webZooms.max() {
            zooms = low...high
            reprojected = nil
        } else {
            do {
                let resampled = try ReprojectedTiles(tiles)
                zooms = resampled.zooms
                reprojected = resampled
            } catch {
                throw MapSourceError("\(fileName) cannot be drawn: \(error.description).")
            }
        }
        extent = tiles.info.fullExtent?.geographic
        var style = MapStyle.plain
        var problem: String?
        var credit: String?
        if tiles.info.isVector, let package {
            do {
                if let packaged = try package.style() {
                    style = MapStyle(packaged)
                    credit = packaged.attribution
                }
            } catch {
                problem = "The package's style does not read (\(error.description)); drawing with a plain style."
            }
        } else if let package {
            credit = Self.rasterCredit(package)
        }
        self.style = style
        styleProblem = problem
        attribution = Attribution.clean(credit)
    }

    public func tile(_ key: TileKey) async throws -> MapTile? {
        if let reprojected { return try await reprojected.tile(z: key.z, x: key.x, y: key.y, from: tiles).map { MapTile(key: key, raster: $0) } }
        guard let bytes = try tiles.tile(z: key.z, x: key.x, y: key.y) else { return nil }
        return try MapTile(key: key, bytes: bytes, vector: isVector)
    }

    /// A `.tpkx` credits its data in `iteminfo.json` (`accessInformation`).
    private static func rasterCredit(_ package: TilePackage) -> String? {
        guard let entry = package.archive.entry(named: "iteminfo.json"),
              let data = try? package.archive.contents(of: entry),
              let json = try? JSONValue(parsing: data) else { return nil }
        return json["accessInformation"]?.string
    }
}
