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

    /// Moved, each pixel lands where it should, what comes into view is the filling, and moving
    /// by the whole size or more leaves only the filling.
    @Test func movedPixelsLandWhereTheyShould() {
        var rgba: [UInt8] = []
        for y in 0..<5 { for x in 0..<7 { rgba += [UInt8(x), UInt8(y), 9, 255] } }
        let image = RasterImage(width: 7, height: 5, rgba: rgba)
        let fill: (r: UInt8, g: UInt8, b: UInt8, a: UInt8) = (200, 100, 50, 255)
        for (dx, dy) in [(2, 1), (-3, 0), (0, -4), (-1, 2), (7, 0), (0, -5), (9, 9)] {
            let moved = image.moved(x: dx, y: dy, filling: fill)
            for y in 0..<5 {
                for x in 0..<7 {
                    let (sx, sy) = (x - dx, y - dy)
                    let expected = (0..<7).contains(sx) && (0..<5).contains(sy) ? image.pixel(x: sx, y: sy) : fill
                    #expect(moved.pixel(x: x, y: y) == expected, "moved \(dx),\(dy) at \(x),\(y)")
                }
            }
        }
        #expect(image.meanColor() == (0, 0, 9, 255), "one pixel in 8 each way looked at: the first column and row")
    }

    /// Scaled, a doubling puts each pixel on two by two (blended with its neighbour between them), a
    /// halving averages each two by two, the corner lands at the origin given, and what the image
    /// does not reach is the filling.
    @Test func scaledPixelsLandWhereTheyShould() {
        var rgba: [UInt8] = []
        for y in 0..<4 { for x in 0..<6 { rgba += [UInt8(x * 40), UInt8(y * 60), 9, 255] } }
        let image = RasterImage(width: 6, height: 4, rgba: rgba)
        let fill: (r: UInt8, g: UInt8, b: UInt8, a: UInt8) = (200, 100, 50, 255)
        // Halved into the middle of a picture of the same size: (x, y) averages source (2x…2x+1, 2y…2y+1).
        let halved = image.scaled(0.5, to: (1.5, 1), width: 6, height: 4, filling: fill)
        #expect(halved.pixel(x: 0, y: 0) == fill && halved.pixel(x: 5, y: 3) == fill && halved.pixel(x: 1, y: 0) == fill)
        // Pixel 2 of the picture lies at source 0.5…1.5 after the 1.5-pixel shift: between source 1 and 2.
        #expect(halved.pixel(x: 2, y: 1) == (60, 30, 9, 255), "\(halved.pixel(x: 2, y: 1))")
        #expect(halved.pixel(x: 3, y: 2) == (140, 150, 9, 255), "\(halved.pixel(x: 3, y: 2))")
        // Doubled from its top left: pixels 2x and 2x+1 blend source x with its neighbours a quarter each way.
        let doubled = image.scaled(2, to: (0, 0), width: 12, height: 8, filling: fill)
        #expect(doubled.pixel(x: 0, y: 0) == (0, 0, 9, 255))
        #expect(doubled.pixel(x: 3, y: 0) == (50, 0, 9, 255), "\(doubled.pixel(x: 3, y: 0))")
        #expect(doubled.pixel(x: 11, y: 7) == (200, 180, 9, 255))
        // Shifted left by a whole image: nothing of it shows.
        #expect(image.scaled(1, to: (-6, 0), width: 6, height: 4, filling: fill).rgba == RasterImage(width: 6, height: 4, rgba: Array([[UInt8]](repeating: [200, 100, 50, 255], count: 24).joined())).rgba)
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
