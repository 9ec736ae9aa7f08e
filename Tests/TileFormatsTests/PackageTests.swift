import Foundation
import MapbookCore
import SharedTestData
import Testing
@testable import TileFormats

@Suite(.enabled(if: SharedData.available, SharedData.skipMessage))
struct RealPackageTests {
    @Test func usaTPKXHasAll144TilesAndTwoDamagedOnes() throws {
        let package = try TilePackage(path: SharedData.url("raster/tpkx/Usa.tpkx").path)
        #expect(package.info.kind == .tilePackage)
        #expect(package.info.bundleFormat == .compactV2)
        #expect(package.info.tileFormat == "png")
        #expect(package.info.tileSize == 256)
        #expect(package.info.levels.map(\.level) == Array(0...5))
        #expect(package.info.levels.map(\.zoom) == Array(0...5))
        #expect(package.info.name == "Usa")
        let (checked, damaged) = try package.verifyTiles()
        #expect(checked == 144)
        #expect(damaged.count == 2, "\(damaged)")
        #expect(damaged.allSatisfy { $0.reason == "neither a PNG nor a JPEG signature" })
        for name in ["z4_x4_y5", "z5_x9_y11", "z5_x10_y11", "z5_x9_y10"] {
            let parts = name.split(separator: "_").map { Int($0.dropFirst())! }
            let loose = try Data(contentsOf: SharedData.url("raster/png-tiles-maine/Usa.tpkx_\(name).png"))
            #expect(try package.tile(z: parts[0], x: parts[1], y: parts[2]) == loose, "\(name)")
        }
        #expect(try package.tile(z: 6, x: 0, y: 0) == nil, "no level 6")
        #expect(try package.tile(z: 2, x: 4, y: 0) == nil, "outside the world")
    }

    @Test func statesFilledTPKEveryTileAndMaine() throws {
        let package = try TilePackage(path: SharedData.url("raster/tpk/states_filled.tpk").path)
        #expect(package.info.kind == .compactV1TilePackage)
        #expect(package.info.tileFormat == "png8")
        #expect(package.info.name == "states_filled")
        #expect(package.info.levels.map(\.zoom) == Array(0...4))
        let extent = try #require(package.info.fullExtent?.geographic)
        #expect(extent.xmin < -66.9 && extent.xmax > -67.0 && extent.ymax > 47)
        let (checked, damaged) = try package.verifyTiles()
        #expect(checked == 24)
        #expect(damaged.isEmpty)
        #expect(package.info.bundleFormat == .compactV1)
        let maine = try Data(contentsOf: SharedData.url("raster/png-tiles-maine/states_filled.tpk_z4_x4_y5.png"))
        #expect(try package.tile(level: 4, row: 5, column: 4) == maine)
        #expect(try package.tile(z: 4, x: 4, y: 5) == maine)
    }

    @Test func vectorTilePackageTilesDecodeAndStyleParses() throws {
        let package = try TilePackage(path: SharedData.url("vector/vtpk/basemapde_sample_L00-L07_nofonts.vtpk").path)
        #expect(package.info.kind == .vectorTilePackage)
        #expect(package.info.tileSize == 512)
        #expect(package.info.levels.first?.zoom == 0)
        let (checked, damaged) = try package.verifyTiles()
        #expect(checked == 34)
        #expect(damaged.isEmpty, "every tile gunzips and decodes")
        let stored = try #require(try package.tile(z: 0, x: 0, y: 0))
        #expect(Deflate.isGzip(stored))
        let decoded = try #require(try package.vectorTile(z: 0, x: 0, y: 0))
        #expect(!decoded.layers.isEmpty)
        let style = try #require(try package.style())
        #expect(style.version == 8)
        #expect(style.layers.count > 100)
        #expect(style.skippedLayerCount == 0)
        #expect(!style.layers.contains { $0.type == .unknown })
    }
}
