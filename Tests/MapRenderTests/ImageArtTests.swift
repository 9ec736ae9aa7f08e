import Foundation
import PortalFixtures
import SharedTestData
import TerminalCanvas
import Testing
import TileFormats
@testable import MapRender

/// Thumbnails through libchafa, measured against the pictures themselves: chafa's block symbols
/// must come at least as close to the source pixels as the half blocks mapbook drew before.
@Suite struct ImageArtTests {
    /// 2×4 pixels: red on top, blue below.
    private let image = RasterImage(width: 2, height: 4, rgba: [UInt8](
        [[255, 0, 0, 255], [255, 0, 0, 255], [255, 0, 0, 255], [255, 0, 0, 255],
         [0, 0, 255, 255], [0, 0, 255, 255], [0, 0, 255, 255], [0, 0, 255, 255]].joined()))

    @Test func halfAndHalfIsOneCellOfTwoColours() throws {
        var frame = Frame(width: 1, height: 1)
        ImageArt.draw(image, into: &frame, rect: Rect(x: 0, y: 0, width: 1, height: 1), glyphs: .unicode, colors: true)
        let cell = frame[0, 0]
        let (top, bottom) = try #require(Self.quadrants(cell).map { ($0[0], $0[2]) })
        #expect(top == 196 && bottom == 21, "red over blue, from \(cell)")
    }

    @Test func withoutColourShapesStandInForColours() {
        var frame = Frame(width: 2, height: 2)
        let white = RasterImage(width: 1, height: 1, rgba: [255, 255, 255, 255])
        ImageArt.draw(white, into: &frame, rect: Rect(x: 0, y: 0, width: 2, height: 2), glyphs: .unicode, colors: false)
        #expect(frame.cells.allSatisfy { $0.style.foreground == nil && $0.style.background == nil })
        #expect(Set(frame.cells.map(\.character)).count == 1, "a flat picture is one symbol throughout")
        ImageArt.draw(white, into: &frame, rect: Rect(x: 0, y: 0, width: 2, height: 2), glyphs: .ascii, colors: false)
        #expect(frame.cells.allSatisfy { $0.character.isASCII })
        ImageArt.draw(image, into: &frame, rect: Rect(x: 0, y: 0, width: 2, height: 2), glyphs: .ascii, colors: true)
        #expect(frame.cells.allSatisfy { $0.character == " " && $0.style.background != nil }, "ASCII in colour: coloured spaces")
    }

    @Test func shrinkingKeepsTheAspectAndAverages() {
        let big = RasterImage(width: 200, height: 100, rgba: [UInt8](repeating: 128, count: 200 * 100 * 4))
        let small = ImageArt.shrunk(big, toFit: 64, 48)
        #expect(small.width == 64 && small.height == 32)
        #expect(small.pixel(x: 10, y: 10).r == 64)  // 128 at alpha 128 over black
    }

    /// The sample portal's thumbnails, a gradient, and (with ../shared/data) real JPEG tiles, each
    /// at the list's size and the details screen's: the mean error per quarter cell, against the
    /// picture averaged to that grid, for chafa and for the half blocks it replaced.
    @Test func chafaIsNoFurtherFromThePicturesThanHalfBlocks() throws {
        var pictures = SampleFixture.content.thumbnails.sorted { $0.key < $1.key }.prefix(3).compactMap { try? RasterImage(decoding: $0.value) }
        pictures.append(Self.gradient)
        if SharedData.available {
            for path in ["raster/jpeg-tiles-esri-sample/L02/2/1.jpg", "raster/jpeg-tiles-esri-sample/L02/3/2.jpg"] {
                if let data = FileManager.default.contents(atPath: SharedData.url(path).path) { pictures.append(try RasterImage(decoding: data)) }
            }
        }
        var chafaTotal = 0.0, halfTotal = 0.0
        for picture in pictures {
            for (width, height) in [(12, 4), (40, 12)] {
                let chafa = ImageArt.cells(picture, width: width, height: height, glyphs: .unicode, colors: true)
                let half = Self.halfBlocks(picture, width: width, height: height)
                let chafaError = try Self.error(chafa, of: picture, width: width, height: height)
                let halfError = try Self.error(half, of: picture, width: width, height: height)
                chafaTotal += chafaError
                halfTotal += halfError
                #expect(chafaError <= halfError * 1.05, "\(picture.width)×\(picture.height) at \(width)×\(height): chafa \(chafaError), half blocks \(halfError)")
            }
        }
        #expect(chafaTotal < halfTotal, "over all pictures chafa is closer: \(chafaTotal) against \(halfTotal)")
    }

    static let gradient: RasterImage = {
        var rgba: [UInt8] = []
        for y in 0..<60 { for x in 0..<90 { rgba += [UInt8(x * 255 / 89), UInt8(y * 255 / 59), UInt8(255 - x * 2), 255] } }
        return RasterImage(width: 90, height: 60, rgba: rgba)
    }()

    /// What mapbook drew before chafa: a half block a cell, each half the nearest palette colour
    /// to the box average under it.
    static func halfBlocks(_ image: RasterImage, width: Int, height: Int) -> [Cell] {
        let pixels = averaged(image, width: width, height: height * 2)
        return (0..<height).flatMap { row in
            (0..<width).map { column in
                let top = pixels[2 * row * width + column], bottom = pixels[(2 * row + 1) * width + column]
                return Cell("▀", style: CellStyle(foreground: XtermPalette.nearest(r: Int(top.r), g: Int(top.g), b: Int(top.b)),
                                                  background: XtermPalette.nearest(r: Int(bottom.r), g: Int(bottom.g), b: Int(bottom.b))))
            }
        }
    }

    /// The picture averaged into `width × height` boxes.
    static func averaged(_ image: RasterImage, width: Int, height: Int) -> [(r: Double, g: Double, b: Double)] {
        (0..<height).flatMap { y in
            (0..<width).map { x in
                let x0 = x * image.width / width, x1 = max((x + 1) * image.width / width, x0 + 1)
                let y0 = y * image.height / height, y1 = max((y + 1) * image.height / height, y0 + 1)
                var sum = (r: 0.0, g: 0.0, b: 0.0), n = 0.0
                for sy in y0..<min(y1, image.height) {
                    for sx in x0..<min(x1, image.width) {
                        let p = image.pixel(x: sx, y: sy)
                        sum = (sum.r + Double(p.r), sum.g + Double(p.g), sum.b + Double(p.b))
                        n += 1
                    }
                }
                return (sum.r / max(n, 1), sum.g / max(n, 1), sum.b / max(n, 1))
            }
        }
    }

    /// Which quarters of a cell (top left, top right, bottom left, bottom right) show the foreground.
    static let masks: [Character: [Bool]] = [
        " ": [false, false, false, false], "█": [true, true, true, true], "▀": [true, true, false, false],
        "▄": [false, false, true, true], "▌": [true, false, true, false], "▐": [false, true, false, true],
        "▘": [true, false, false, false], "▝": [false, true, false, false], "▖": [false, false, true, false],
        "▗": [false, false, false, true], "▚": [true, false, false, true], "▞": [false, true, true, false],
        "▙": [true, false, true, true], "▛": [true, true, true, false], "▜": [true, true, false, true], "▟": [false, true, true, true],
    ]

    /// The palette colours of a cell's four quarters; nil for a symbol outside the block set.
    static func quadrants(_ cell: Cell) -> [PaletteIndex]? {
        guard let mask = masks[cell.character], let bg = cell.style.background ?? cell.style.foreground else { return nil }
        let fg = cell.style.foreground ?? bg
        return mask.map { $0 ? fg : bg }
    }

    /// Root mean square distance in RGB between the cells' quarters and the picture averaged to them.
    static func error(_ cells: [Cell], of image: RasterImage, width: Int, height: Int) throws -> Double {
        let source = averaged(image, width: width * 2, height: height * 2)
        var sum = 0.0
        for row in 0..<height {
            for column in 0..<width {
                let quarters = try #require(quadrants(cells[row * width + column]), "\(cells[row * width + column])")
                for (q, index) in quarters.enumerated() {
                    let shown = XtermPalette.rgb(index)
                    let s = source[(row * 2 + q / 2) * width * 2 + column * 2 + q % 2]
                    sum += pow(Double(shown.r) - s.r, 2) + pow(Double(shown.g) - s.g, 2) + pow(Double(shown.b) - s.b, 2)
                }
            }
        }
        return (sum / Double(width * height * 4)).squareRoot()
    }
}
