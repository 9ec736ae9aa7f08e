import Foundation
import SharedTestData
import Testing
@testable import TileFormats

/// ArcGIS cache folders on disk, bundled (the Esri sample) and exploded (made here from it, with a
/// PNG among the JPEGs as a `MIXED` cache holds them): every tile byte-identical to the bundle's.
@Suite(.enabled(if: SharedData.available, SharedData.skipMessage)) struct CacheFolderTests {
    let sample = SharedData.url("raster/compactcache-v2-esri-sample").path

    /// Every tile of the sample's bundles, by level, row and column.
    func bundleTiles() throws -> [(level: Int, row: Int, column: Int, data: Data)] {
        try (0...2).flatMap { level -> [(level: Int, row: Int, column: Int, data: Data)] in
            let bundle = try CompactCacheV2Bundle(source: FileByteSource(path: sample + "/_alllayers/L0\(level)/R0000C0000.bundle"))
            return try bundle.presentTiles().map { p in (level, p.row, p.column, try #require(try bundle.tile(row: p.row, column: p.column))) }
        }
    }

    @Test func aBundledCacheFolderReadsItsTilesInPlace() throws {
        let folder = try TileCacheFolder(path: sample)
        #expect(folder.info.kind == .cacheFolder && folder.info.tileFormat == "jpeg")
        #expect(folder.info.levels.compactMap(\.zoom).prefix(3) == [0, 1, 2], "Web Mercator levels: zooms")
        let tiles = try bundleTiles()
        #expect(tiles.count == 21)
        for tile in tiles {
            #expect(try folder.tile(z: tile.level, x: tile.column, y: tile.row) == tile.data)
        }
        #expect(try folder.tile(z: 3, x: 0, y: 0) == nil)
    }

    @Test func anExplodedMixedCacheReadsPNGsAndJPEGsByteForByte() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-exploded-\(UUID())/Layers")
        defer { try? FileManager.default.removeItem(at: root.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        var conf = try String(contentsOfFile: sample + "/conf.xml", encoding: .utf8)
        conf = conf.replacingOccurrences(of: "esriMapCacheStorageModeCompactV2", with: "esriMapCacheStorageModeExploded")
            .replacingOccurrences(of: "<CacheTileFormat>JPEG</CacheTileFormat>", with: "<CacheTileFormat>MIXED</CacheTileFormat>")
        try conf.write(to: root.appendingPathComponent("conf.xml"), atomically: true, encoding: .utf8)
        let png = try Data(contentsOf: SharedData.url("raster/png-tiles-maine/Usa.tpkx_z4_x4_y5.png"))
        var expected: [(level: Int, row: Int, column: Int, data: Data)] = []
        for (index, tile) in try bundleTiles().enumerated() {
            // Every fifth tile a PNG, as a MIXED cache stores tiles with transparency.
            let isPNG = index % 5 == 0
            let data = isPNG ? png : tile.data
            // ArcGIS writes the level in decimal, row and column in eight hexadecimal digits.
            let folder = root.appendingPathComponent(String(format: "_alllayers/L%02d/R%08x", tile.level, tile.row))
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try data.write(to: folder.appendingPathComponent(String(format: "C%08x.%@", tile.column, isPNG ? "png" : "jpg")))
            expected.append((tile.level, tile.row, tile.column, data))
        }
        // The cache's own folder (with Layers/ inside) opens as well as Layers/ itself.
        let cache = try TileCacheFolder(path: root.deletingLastPathComponent().path)
        #expect(cache.info.tileFormat == "mixed")
        for tile in expected {
            let read = try #require(try cache.tile(z: tile.level, x: tile.column, y: tile.row))
            #expect(read == tile.data)
            #expect(TileContent.classify(read, vector: false) == (read == png ? .png : .jpeg))
        }
        #expect(try cache.tile(z: 2, x: 3, y: 9) == nil)
    }

    @Test func aFolderWithoutAConfigurationIsRefusedWithASentence() {
        #expect(throws: TileFormatError.self) { try TileCacheFolder(path: SharedData.url("raster/png-tiles-maine").path) }
    }
}
