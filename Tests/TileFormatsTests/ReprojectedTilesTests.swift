import Foundation
import Geometry
import MapbookCore
import SharedTestData
import Testing
@testable import TileFormats

/// A tile set in NAD27 / UTM zone 11 (the Joshua Tree package's system) seen as Web Mercator
/// tiles: a marked square lands on the Web Mercator pixel where `cs2cs` puts it.
@Suite("Tiles in another tiling scheme")
struct ReprojectedTilesTests {
    /// One 256-pixel tile at 10 m a pixel, grey, with a blue 10×10 square at pixels 100–109.
    struct MarkedTiles: TileSource {
        var info = TileSetInfo(kind: .cacheFolder, bundleFormat: .compactV1, name: "marked", tileFormat: "png", tileSize: 256,
                               levels: [TileLevel(level: 0, zoom: nil, resolution: 10, scale: 0)],
                               fullExtent: Envelope(xmin: 580_000, ymin: 3_757_440, xmax: 582_560, ymax: 3_760_000,
                                                    spatialReference: SpatialReference(wkid: 26711)),
                               spatialReference: SpatialReference(wkid: 26711), origin: TileOrigin(x: 580_000, y: 3_760_000))

        func tile(z: Int, x: Int, y: Int) throws(TileFormatError) -> Data? {
            guard z == 0, x == 0, y == 0 else { return nil }
            var rgba = [UInt8](repeating: 128, count: 256 * 256 * 4)
            for row in 100..<110 { for column in 100..<110 { let i = (row * 256 + column) * 4; rgba[i] = 0; rgba[i + 1] = 0; rgba[i + 2] = 255 } }
            return PNG.encode(width: 256, height: 256, rgba: rgba)
        }
    }

    @Test(.enabled(if: CS2CS.available, CS2CS.skipMessage))
    func aMarkLandsWhereCS2CSPutsIt() async throws {
        let tiles = try ReprojectedTiles(MarkedTiles())
        // 10 m pixels at 34° north: Web Mercator zoom 14 or so.
        #expect(tiles.zooms.contains(13) && tiles.zooms.contains(14), "\(tiles.zooms)")
        // The square's centre, 105 pixels in from the origin each way.
        let (latitude, longitude) = try #require(try CS2CS.transform(580_000 + 1_050, 3_760_000 - 1_050, from: "EPSG:26711", to: "EPSG:4326"))
        let centre = GeoPoint(longitude: longitude, latitude: latitude)
        let z = 15
        let metres = WebMercator.projected(longitude: centre.longitude, latitude: centre.latitude)
        let span = 2 * WebMercator.originShift / Double(1 << z)
        let fx = (metres.x + WebMercator.originShift) / span, fy = (WebMercator.originShift - metres.y) / span
        let image = try #require(try await tiles.tile(z: z, x: Int(fx), y: Int(fy), from: MarkedTiles()))
        let px = Int((fx - fx.rounded(.down)) * 256), py = Int((fy - fy.rounded(.down)) * 256)
        let pixel = image.pixel(x: px, y: py)
        #expect(pixel.b == 255 && pixel.r == 0, "\(pixel) at \(px),\(py)")
        // Inside the 100 m square 10 pixels away (4 m pixels at zoom 15 here), grey 20 pixels away.
        let inside = image.pixel(x: min(px + 10, 255), y: py), away = image.pixel(x: min(px + 20, 255), y: py)
        #expect(inside.b == 255, "\(inside)")
        #expect(away.r == 128, "\(away)")
        // Nothing where the source has no tile.
        #expect(try await tiles.tile(z: z, x: Int(fx) + 40, y: Int(fy), from: MarkedTiles()) == nil)
    }

    /// Schemes that cannot be placed are refused with a reason, never drawn wrong.
    @Test func unusableSchemesAreRefused() {
        var bad = MarkedTiles()
        bad.info.levels = [TileLevel(level: 0, zoom: nil, resolution: 0, scale: 0), TileLevel(level: 1, zoom: nil, resolution: -5, scale: 0)]
        #expect(throws: TileFormatError.unsupported("its tiling scheme has no level with a usable resolution")) { try ReprojectedTiles(bad) }
        bad = MarkedTiles(); bad.info.origin = TileOrigin(x: 1e308, y: 0)
        #expect(throws: TileFormatError.unsupported("its tiling scheme has no usable origin")) { try ReprojectedTiles(bad) }
        bad = MarkedTiles(); bad.info.spatialReference = SpatialReference(wkid: 99999); bad.info.fullExtent = nil
        #expect(throws: TileFormatError.unsupported("it is in a coordinate system mapbook cannot use: wkid 99999 is not a coordinate system PROJ knows")) {
            try ReprojectedTiles(bad)
        }
    }

    @Test(.enabled(if: SharedData.available, SharedData.skipMessage))
    func theJoshuaTreePackageIsDrawnWhereItLies() async throws {
        let package = try TilePackage(path: SharedData.url("real/ios_JoshuaTree.tpk").path)
        let tiles = try ReprojectedTiles(package)
        #expect(tiles.zooms == 7...12, "\(tiles.zooms)")
        let extent = try #require(package.info.fullExtent?.geographic)
        #expect(abs(extent.xmin + 116.746) < 0.01 && abs(extent.ymax - 34.458) < 0.01, "\(extent)")
        // The park's middle, at zoom 10, is drawn.
        let middle = WebMercator.projected(longitude: -115.9, latitude: 33.9)
        let span = 2 * WebMercator.originShift / 1024
        let drawn = try await tiles.tile(z: 10, x: Int((middle.x + WebMercator.originShift) / span), y: Int((WebMercator.originShift - middle.y) / span),
                                         from: package)
        #expect(drawn != nil)
    }
}
