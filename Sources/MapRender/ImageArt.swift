import CChafa
import Synchronization
import TileFormats
import TerminalCanvas

/// Pictures (thumbnails) drawn in cells by libchafa: block symbols (half blocks and quadrants, four
/// pixels a cell) in the xterm palette's 240 fixed colours; in ASCII, coloured spaces; without
/// colour, the symbols (blocks and shades, or the ASCII shading ramp) whose shapes best follow the
/// picture's light and dark.
public enum ImageArt {
    /// Draws `image` scaled to fill `rect`.
    public static func draw(_ image: RasterImage, into frame: inout Frame, rect: Rect, glyphs: GlyphSet, colors: Bool) {
        guard !rect.isEmpty, image.width > 0, image.height > 0 else { return }
        let cells = self.cells(image, width: rect.width, height: rect.height, glyphs: glyphs, colors: colors)
        for row in 0..<rect.height {
            for column in 0..<rect.width { frame[rect.x + column, rect.y + row] = cells[row * rect.width + column] }
        }
    }

    /// The picture as `width × height` cells, row by row. A screen draws the same thumbnails frame
    /// after frame: each is worked out once per size and kind and kept.
    static func cells(_ image: RasterImage, width: Int, height: Int, glyphs: GlyphSet, colors: Bool) -> [Cell] {
        let key = Key(image: image, width: width, height: height, glyphs: glyphs, colors: colors)
        if let kept = drawn.withLock({ $0[key] }) { return kept }
        let cells = chafa(image, width: width, height: height, glyphs: glyphs, colors: colors)
        drawn.withLock { kept in
            if kept.count >= 512 { kept.removeAll() }
            kept[key] = cells
        }
        return cells
    }

    private struct Key: Hashable {
        var image: RasterImage
        var width: Int, height: Int
        var glyphs: GlyphSet
        var colors: Bool

        func hash(into hasher: inout Hasher) {
            hasher.combine(width); hasher.combine(height); hasher.combine(colors); hasher.combine(glyphs == .unicode)
            hasher.combine(image.width); hasher.combine(image.height)
            image.rgba.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    private static let drawn = Mutex<[Key: [Cell]]>([:])

    private static func chafa(_ image: RasterImage, width: Int, height: Int, glyphs: GlyphSet, colors: Bool) -> [Cell] {
        let symbols = chafa_symbol_map_new()
        defer { chafa_symbol_map_unref(symbols) }
        let tags: [ChafaSymbolTags] = switch (glyphs, colors) {
        case (.unicode, true): [CHAFA_SYMBOL_TAG_SPACE, CHAFA_SYMBOL_TAG_SOLID, CHAFA_SYMBOL_TAG_HALF, CHAFA_SYMBOL_TAG_QUAD]
        case (.unicode, false): [CHAFA_SYMBOL_TAG_SPACE, CHAFA_SYMBOL_TAG_SOLID, CHAFA_SYMBOL_TAG_HALF, CHAFA_SYMBOL_TAG_QUAD,
                                 CHAFA_SYMBOL_TAG_STIPPLE]
        case (.ascii, _): [CHAFA_SYMBOL_TAG_SPACE]
        }
        chafa_symbol_map_add_by_tags(symbols, ChafaSymbolTags(rawValue: tags.reduce(0) { $0 | $1.rawValue }))
        // ASCII without colour: the shading ramp's characters only (letters in a picture read as text).
        if glyphs == .ascii, !colors {
            for character in asciiRamp { let code = character.unicodeScalars.first!.value; chafa_symbol_map_add_by_range(symbols, code, code) }
        }
        let config = chafa_canvas_config_new()
        defer { chafa_canvas_config_unref(config) }
        chafa_canvas_config_set_geometry(config, Int32(width), Int32(height))
        // The 240 fixed colours: the 16 system colours differ from terminal to terminal.
        chafa_canvas_config_set_canvas_mode(config, colors ? CHAFA_CANVAS_MODE_INDEXED_240 : CHAFA_CANVAS_MODE_FGBG)
        chafa_canvas_config_set_symbol_map(config, symbols)
        chafa_canvas_config_set_dither_mode(config, CHAFA_DITHER_MODE_NONE)
        chafa_canvas_config_set_work_factor(config, 1)
        let canvas = chafa_canvas_new(config)
        defer { chafa_canvas_unref(canvas) }
        image.rgba.withUnsafeBufferPointer { pixels in
            chafa_canvas_draw_all_pixels(canvas, CHAFA_PIXEL_RGBA8_UNASSOCIATED, pixels.baseAddress, Int32(image.width),
                                         Int32(image.height), Int32(image.width * 4))
        }
        var cells: [Cell] = []
        cells.reserveCapacity(width * height)
        for y in 0..<Int32(height) {
            for x in 0..<Int32(width) {
                let scalar = Unicode.Scalar(chafa_canvas_get_char_at(canvas, x, y)) ?? " "
                var fg: Int32 = -1, bg: Int32 = -1
                chafa_canvas_get_raw_colors_at(canvas, x, y, &fg, &bg)
                let style = colors ? CellStyle(foreground: Self.index(fg), background: Self.index(bg)) : CellStyle()
                cells.append(Cell(Character(scalar), style: style))
            }
        }
        return cells
    }

    /// A palette index from chafa's raw colour (negative: transparent or the terminal's own).
    private static func index(_ raw: Int32) -> PaletteIndex? { (0...255).contains(raw) ? PaletteIndex(raw) : nil }

    /// Characters from empty to dense, for drawing without colour (map fills, ASCII pictures).
    static let asciiRamp: [Character] = [" ", ".", ":", "-", "=", "+", "*", "#", "%", "@"]
}

extension ImageArt {
    /// A copy no larger than `maxWidth × maxHeight`, box-filtered; opaque (transparency over black).
    public static func shrunk(_ image: RasterImage, toFit maxWidth: Int, _ maxHeight: Int) -> RasterImage {
        guard image.width > maxWidth || image.height > maxHeight else { return image }
        let scale = min(Double(maxWidth) / Double(image.width), Double(maxHeight) / Double(image.height))
        let width = (Double(image.width) * scale).clampedInt(in: 1...maxWidth, rounding: .down), height = (Double(image.height) * scale).clampedInt(in: 1...maxHeight, rounding: .down)
        var rgba: [UInt8] = []
        rgba.reserveCapacity(width * height * 4)
        for y in 0..<height {
            let y0 = y * image.height / height, y1 = max((y + 1) * image.height / height, y0 + 1)
            for x in 0..<width {
                let x0 = x * image.width / width, x1 = max((x + 1) * image.width / width, x0 + 1)
                var r = 0, g = 0, b = 0
                for sy in y0..<min(y1, image.height) {
                    for sx in x0..<min(x1, image.width) {
                        let p = image.pixel(x: sx, y: sy)
                        r += Int(p.r) * Int(p.a) / 255
                        g += Int(p.g) * Int(p.a) / 255
                        b += Int(p.b) * Int(p.a) / 255
                    }
                }
                let n = max((min(y1, image.height) - y0) * (min(x1, image.width) - x0), 1)
                rgba += [UInt8(r / n), UInt8(g / n), UInt8(b / n), 255]
            }
        }
        return RasterImage(width: width, height: height, rgba: rgba)
    }
}
