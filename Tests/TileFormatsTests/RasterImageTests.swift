import Foundation
import SharedTestData
import Testing
import TileFormats

@Suite struct RasterImageTests {
    @Test(.enabled(if: SharedData.available, SharedData.skipMessage))
    func decodesRealPNGAndJPEGTiles() throws {
        let png = try RasterImage(decoding: Data(contentsOf: SharedData.url("raster/png-tiles-maine/states_filled.tpk_z4_x4_y5.png")))
        #expect(png.width == 256 && png.height == 256)
        #expect(png.rgba.count == 256 * 256 * 4)
        let jpeg = try RasterImage(decoding: Data(contentsOf: SharedData.url("raster/jpeg-tiles-esri-sample/L00/0/0.jpg")))
        #expect(jpeg.width > 0 && jpeg.height > 0)
        #expect(jpeg.pixel(x: 0, y: 0).a == 255)
    }

    @Test func refusesGarbageTruncationAndHugeClaims() throws {
        #expect(throws: TileFormatError.self) { try RasterImage(decoding: Data("not an image at all".utf8)) }
        #expect(throws: TileFormatError.self) { try RasterImage(decoding: Data()) }
        // A PNG header claiming 100000 × 100000 pixels: refused before any pixel is decoded.
        var huge = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52])
        huge.append(contentsOf: [0x00, 0x01, 0x86, 0xA0, 0x00, 0x01, 0x86, 0xA0, 8, 6, 0, 0, 0, 0, 0, 0, 0])
        #expect(throws: TileFormatError.self) { try RasterImage(decoding: huge) }
    }

    @Test(.enabled(if: SharedData.available, SharedData.skipMessage))
    func truncatedImagesFailCleanly() throws {
        let data = try Data(contentsOf: SharedData.url("raster/png-tiles-maine/states_filled.tpk_z4_x4_y5.png"))
        for length in stride(from: 8, to: data.count, by: max(data.count / 40, 1)) {
            // Either a clear error or an image of the right size (stb fills missing rows); never a crash.
            if let image = try? RasterImage(decoding: data.prefix(length)) { #expect(image.width == 256) }
        }
    }
}
