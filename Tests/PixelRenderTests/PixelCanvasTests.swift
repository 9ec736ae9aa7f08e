import Foundation
import Geometry
import MapRender
@testable import PixelRender
import TerminalCanvas
import Testing
import TileFormats

/// The Cairo surface: what a fill, a line, a dash, a clip and a tile put where, read back from its pixels.
@Suite struct PixelCanvasTests {
    static let white = StyleColor(r: 255, g: 255, b: 255)
    static let red = StyleColor(r: 255, g: 0, b: 0)
    static let blue = StyleColor(r: 0, g: 0, b: 255)

    static func rgb(_ image: RasterImage, _ x: Int, _ y: Int) -> [UInt8] {
        let p = image.pixel(x: x, y: y)
        return [p.r, p.g, p.b, p.a]
    }

    @Test func aFillAndALineLandWhereTheirDotsAre() throws {
        var canvas = try PixelCanvas(width: 100, height: 50, cell: (8, 16))
        canvas.paintAll(Self.white)
        canvas.fill(rings: [[(10, 10), (40, 10), (40, 40), (10, 40)]], color: Self.red, alpha: 1)
        canvas.stroke([(0, 45), (100, 45)], color: Self.blue, width: 3, dasharray: [], closed: false)
        let image = canvas.image()
        #expect(image.width == 100 && image.height == 50)
        #expect(Self.rgb(image, 25, 25) == [255, 0, 0, 255])
        #expect(Self.rgb(image, 60, 25) == [255, 255, 255, 255])
        #expect(Self.rgb(image, 50, 45) == [0, 0, 255, 255])
        // Three pixels wide about y = 45: 43.5 to 46.5.
        #expect(Self.rgb(image, 50, 42) == [255, 255, 255, 255])
        #expect(Self.rgb(image, 50, 47) == [255, 255, 255, 255])
        #expect(canvas.dotsPerCell == (8, 16))
    }

    /// Two areas that share an edge between pixel centres leave nothing of what is below between
    /// them; an edge across pixels over the background is smoothed.
    @Test func sharedEdgesLeaveNoSeamAndOthersAreSmooth() throws {
        var canvas = try PixelCanvas(width: 40, height: 40, cell: (8, 16))
        canvas.paintAll(Self.white)
        canvas.fill(rings: [[(0, 0), (20.25, 0), (20.25, 20), (0, 20)]], color: Self.red, alpha: 1)
        canvas.fill(rings: [[(20.25, 0), (40, 0), (40, 20), (20.25, 20)]], color: Self.blue, alpha: 1)
        canvas.fill(rings: [[(0, 21), (40, 39), (0, 39)]], color: Self.blue, alpha: 1)
        let image = canvas.image()
        #expect((0..<40).allSatisfy { image.pixel(x: $0, y: 10).g == 0 }, "\((0..<40).map { Self.rgb(image, $0, 10) })")
        #expect(Self.rgb(image, 19, 10) == [255, 0, 0, 255] && Self.rgb(image, 21, 10) == [0, 0, 255, 255])
        let slope = (0..<40).map { image.pixel(x: $0, y: 30).r }
        #expect(slope.contains { $0 > 20 && $0 < 235 }, "\(slope)")
    }

    @Test func aSeeThroughFillMixesWithWhatIsBelow() throws {
        var canvas = try PixelCanvas(width: 20, height: 20, cell: (8, 16))
        canvas.paintAll(Self.white)
        canvas.fill(rings: [[(0, 0), (20, 0), (20, 20), (0, 20)]], color: Self.blue, alpha: 0.5)
        let p = canvas.image().pixel(x: 10, y: 10)
        #expect((126...129).contains(p.r) && (126...129).contains(p.g) && p.b == 255)
    }

    @Test func dashesLeaveGapsAlongTheLine() throws {
        var canvas = try PixelCanvas(width: 64, height: 8, cell: (8, 16))
        canvas.paintAll(Self.white)
        // Dashes of 2 widths (4 px) and gaps of 2 widths.
        canvas.stroke([(0, 4), (64, 4)], color: Self.blue, width: 2, dasharray: [2, 2], closed: false)
        let image = canvas.image()
        let on = (0..<64).map { image.pixel(x: $0, y: 4).r < 128 }
        #expect(on[1] && on[2] && !on[5] && !on[6] && on[9] && on[10])
        #expect(on.filter { $0 }.count == 32)
    }

    @Test func aClipBoxKeepsDrawingInside() throws {
        var canvas = try PixelCanvas(width: 40, height: 20, cell: (8, 16))
        canvas.clipBox = (0, 0, 20, 20)
        canvas.paintAll(Self.red)
        canvas.clipBox = nil
        let image = canvas.image()
        #expect(Self.rgb(image, 10, 10) == [255, 0, 0, 255])
        #expect(Self.rgb(image, 30, 10)[3] == 0)
    }

    @Test func aRasterTileIsScaledToWhereItsKeyPutsIt() throws {
        // One level-1 tile, the north-west quarter of the world: red on its left half, blue on its right.
        var rgba: [UInt8] = []
        for _ in 0..<256 { for x in 0..<256 { rgba += x < 128 ? [255, 0, 0, 255] : [0, 0, 255, 255] } }
        let tile = RasterImage(width: 256, height: 256, rgba: rgba)
        // The whole world in 512 pixels: level 1's tiles at their own size.
        let projection = MapProjection(center: MercatorPoint(x: 0, y: 0), resolution: WebMercator.resolution(zoom: 1), dotWidth: 512, dotHeight: 512)
        var canvas = try PixelCanvas(width: 512, height: 512, cell: (8, 16))
        canvas.paintAll(Self.white)
        canvas.drawTiles([TileKey(z: 1, x: 0, y: 0): tile], projection: projection, opacity: 1)
        let image = canvas.image()
        #expect(Self.rgb(image, 60, 100) == [255, 0, 0, 255])
        #expect(Self.rgb(image, 200, 100) == [0, 0, 255, 255])
        #expect(Self.rgb(image, 300, 100) == [255, 255, 255, 255])
        #expect(Self.rgb(image, 100, 300) == [255, 255, 255, 255])
    }

    /// The picture is drawn on bands of rows at once: however many, the same pixels — a tile
    /// scaled across their edges, a clip, fills, dashed and round lines, dots and text.
    @Test func anyNumberOfBandsDrawsTheSamePicture() throws {
        var rgba: [UInt8] = []
        for y in 0..<256 { for x in 0..<256 { rgba += [UInt8(x), UInt8(y), UInt8((x + y) / 2), 255] } }
        let projection = MapProjection(center: MercatorPoint(x: 0, y: 0), resolution: WebMercator.resolution(zoom: 1) * 1.37, dotWidth: 300, dotHeight: 400)
        var canvas = try PixelCanvas(width: 300, height: 400, cell: (8, 16))
        canvas.paintAll(Self.white)
        canvas.drawTiles([TileKey(z: 1, x: 0, y: 0): RasterImage(width: 256, height: 256, rgba: rgba)], projection: projection, opacity: 0.8)
        canvas.clipBox = (minX: 10, minY: 30, maxX: 290, maxY: 380)
        canvas.fill(rings: [[(0, 0), (300, 133.3), (120, 400)], [(50, 100), (90, 100), (90, 250)]], color: Self.red, alpha: 1)
        canvas.fill(rings: [[(100, 50), (250, 60), (260, 300)]], color: Self.blue, alpha: 0.4)
        canvas.stroke([(0, 0), (150, 390), (299, 10)], color: Self.blue, width: 5.5, dasharray: [2, 1], closed: false)
        canvas.clipBox = nil
        canvas.dot(at: (150, 127.5), color: Self.red, radius: 9)
        var frame = Frame(width: 10, height: 4)
        _ = frame.put("Mapbook", x: 1, y: 1, style: CellStyle(foreground: 231, background: 18))
        canvas.write(frame, origin: (2, 7))
        let one = canvas.image(bands: 1)
        for bands in [2, 3, 5] {
            let many = canvas.image(bands: bands)
            // A scaled tile may round one step apart (pixman's filter works by the surface's size).
            let differing: [Int] = (0..<one.rgba.count).filter { (i: Int) -> Bool in abs(Int(one.rgba[i]) - Int(many.rgba[i])) > 1 }.map { $0 / 4 }
            let first: String = differing.first.map { "(\($0 % one.width), \($0 / one.width))" } ?? "-"
            #expect(differing.isEmpty, "\(bands) bands: \(differing.count) channels differ, the first at \(first)")
        }
        #expect(Set(stride(from: 0, to: one.rgba.count, by: 4).map { one.rgba[$0] }).count > 50)
    }

    /// As on the cells, the deepest level at hand wins where it has a tile, even where its pixels
    /// are clear: a coarser tile's printed names must not show through a finer tile's.
    @Test func aDeeperTileHidesTheCoarserOneEvenWhereClear() throws {
        let red = RasterImage(width: 256, height: 256, rgba: Array([[UInt8]](repeating: [255, 0, 0, 255], count: 256 * 256).joined()))
        let clear = RasterImage(width: 256, height: 256, rgba: [UInt8](repeating: 0, count: 256 * 256 * 4))
        let projection = MapProjection(center: MercatorPoint(x: 0, y: 0), resolution: WebMercator.resolution(zoom: 2), dotWidth: 1024, dotHeight: 1024)
        var canvas = try PixelCanvas(width: 1024, height: 1024, cell: (8, 16))
        canvas.paintAll(Self.white)
        // Level 1's north-west tile, and level 2's tile at its top left.
        canvas.drawTiles([TileKey(z: 1, x: 0, y: 0): red, TileKey(z: 2, x: 0, y: 0): clear], projection: projection, opacity: 1)
        let image = canvas.image()
        #expect(Self.rgb(image, 100, 100) == [255, 255, 255, 255])
        #expect(Self.rgb(image, 400, 100) == [255, 0, 0, 255])
        #expect(Self.rgb(image, 100, 400) == [255, 0, 0, 255])
    }

    @Test func hostileSizesAndCoordinatesEndInOneSentenceOrNothingDrawn() throws {
        for (width, height) in [(10_000, 10), (0, 10), (10, -1), (8_000, 8_000)] {
            #expect(throws: PixelMapError.self) { try PixelCanvas(width: width, height: height, cell: (8, 16)) }
        }
        #expect(throws: PixelMapError.self) { try PixelCanvas(width: 10, height: 10, cell: (0, 16)) }
        do {
            _ = try PixelCanvas(width: 10_000, height: 10, cell: (8, 16))
        } catch {
            #expect(error.userMessage.hasSuffix(".") && !error.userMessage.contains("\n"))
        }
        var tiny = try PixelCanvas(width: 1, height: 1, cell: (8, 16))
        tiny.paintAll(Self.white)
        // A 1,000-pixel line is drawn 64 wide; coordinates past what Cairo holds are left out.
        var canvas = try PixelCanvas(width: 200, height: 200, cell: (8, 16))
        canvas.paintAll(Self.white)
        canvas.stroke([(0, 100), (200, 100)], color: Self.red, width: 1_000, dasharray: [], closed: false)
        canvas.stroke([(0, 0), (.nan, 5), (1e300, 7)], color: Self.blue, width: 2, dasharray: [], closed: false)
        canvas.fill(rings: [[(0, 0), (.infinity, 0), (0, 10)]], color: Self.blue, alpha: 1)
        canvas.dot(at: (-1e20, 5), color: Self.blue, radius: 1e9)
        let image = canvas.image()
        #expect(Self.rgb(image, 100, 100) == [255, 0, 0, 255])
        #expect(Self.rgb(image, 100, 60) == [255, 255, 255, 255])
        #expect(Self.rgb(image, 100, 140) == [255, 255, 255, 255])
        #expect(Self.rgb(image, 2, 2) == [255, 255, 255, 255])
    }
}
