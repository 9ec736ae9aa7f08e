import TileFormats
import TerminalCanvas

/// Pictures (thumbnails) drawn in cells: two pixels a cell with half blocks in colour, or a ramp of
/// shading characters without colour.
public enum ImageArt {
    /// Draws `image` scaled to fill `rect` (box-filtered; transparent pixels over black).
    public static func draw(_ image: RasterImage, into frame: inout Frame, rect: Rect, glyphs: GlyphSet, colors: Bool) {
        guard !rect.isEmpty, image.width > 0, image.height > 0 else { return }
        let pixels = resampled(image, width: rect.width, height: rect.height * 2)
        let ramp = glyphs == .unicode ? unicodeRamp : asciiRamp
        for row in 0..<rect.height {
            for column in 0..<rect.width {
                let top = pixels[2 * row * rect.width + column], bottom = pixels[(2 * row + 1) * rect.width + column]
                let cell: Cell
                if colors {
                    let fg = XtermPalette.nearest(r: top.r, g: top.g, b: top.b)
                    let bg = XtermPalette.nearest(r: bottom.r, g: bottom.g, b: bottom.b)
                    cell = glyphs == .unicode ? Cell(fg == bg ? " " : "▀", style: CellStyle(foreground: fg, background: bg))
                                              : Cell(" ", style: CellStyle(background: fg))
                } else {
                    let luminance = (luma(top) + luma(bottom)) / 2
                    cell = Cell(ramp[min(luminance * ramp.count / 256, ramp.count - 1)])
                }
                frame[rect.x + column, rect.y + row] = cell
            }
        }
    }

    private static let unicodeRamp: [Character] = [" ", "░", "▒", "▓", "█"]
    /// Characters from empty to dense, for drawing without colour (thumbnails, map fills).
    static let asciiRamp: [Character] = [" ", ".", ":", "-", "=", "+", "*", "#", "%", "@"]

    private static func luma(_ p: (r: Int, g: Int, b: Int)) -> Int { (299 * p.r + 587 * p.g + 114 * p.b) / 1000 }

    /// The image averaged into `width × height` boxes, transparency composed over black.
    static func resampled(_ image: RasterImage, width: Int, height: Int) -> [(r: Int, g: Int, b: Int)] {
        var result: [(r: Int, g: Int, b: Int)] = []
        result.reserveCapacity(width * height)
        for y in 0..<height {
            let y0 = y * image.height / height, y1 = max((y + 1) * image.height / height, y0 + 1)
            for x in 0..<width {
                let x0 = x * image.width / width, x1 = max((x + 1) * image.width / width, x0 + 1)
                var r = 0, g = 0, b = 0
                for sy in y0..<min(y1, image.height) {
                    for sx in x0..<min(x1, image.width) {
                        let p = image.pixel(x: sx, y: sy)
                        let a = Int(p.a)
                        r += Int(p.r) * a / 255
                        g += Int(p.g) * a / 255
                        b += Int(p.b) * a / 255
                    }
                }
                let n = max((min(y1, image.height) - y0) * (min(x1, image.width) - x0), 1)
                result.append((r / n, g / n, b / n))
            }
        }
        return result
    }
}

extension ImageArt {
    /// A copy no larger than `maxWidth × maxHeight`, box-filtered; opaque.
    public static func shrunk(_ image: RasterImage, toFit maxWidth: Int, _ maxHeight: Int) -> RasterImage {
        guard image.width > maxWidth || image.height > maxHeight else { return image }
        let scale = min(Double(maxWidth) / Double(image.width), Double(maxHeight) / Double(image.height))
        let width = max(Int(Double(image.width) * scale), 1), height = max(Int(Double(image.height) * scale), 1)
        let pixels = resampled(image, width: width, height: height)
        return RasterImage(width: width, height: height,
                           rgba: pixels.flatMap { [UInt8($0.r), UInt8($0.g), UInt8($0.b), 255] })
    }
}
