import Foundation
import MapbookCore
import Synchronization
import TileFormats

/// The ways a terminal shows pictures, and how mapbook writes one in each.
public enum GraphicsProtocol: String, Sendable, CaseIterable {
    /// The kitty graphics protocol (kitty, WezTerm, Ghostty, Konsole): zlib-compressed RGBA,
    /// transmitted once under an id and placed by it.
    case kitty
    /// DEC sixel (xterm -ti vt340, foot, mlterm, WezTerm, Windows Terminal): a palette of up to
    /// 256 colours chosen for the picture, six pixel rows a band.
    case sixel
    /// iTerm2's inline images: a PNG in an OSC 1337 sequence.
    case iterm
}

/// Pictures as the escape sequences a terminal draws them from.
public enum TerminalGraphics {
    /// The kitty protocol's payload chunk: at most 4,096 base64 bytes a sequence.
    static let kittyChunk = 4_096

    /// `image` transmitted as image `id` and shown at the cursor, covering `columns × rows` cells,
    /// at `zIndex` (below zero: under the text, whose cells stay text). The cursor does not move.
    /// An opaque picture (a map, always) goes as RGB: a quarter less to compress and send.
    public static func kitty(_ image: RasterImage, id: UInt32, columns: Int, rows: Int, zIndex: Int = -1) -> [UInt8] {
        kittyChunks(image) { format in "a=T,f=\(format),o=z,s=\(image.width),v=\(image.height),i=\(id),p=1,c=\(columns),r=\(rows),z=\(zIndex),C=1,q=2" }
    }

    /// `image` transmitted as image `id`, not placed (`kittyPlacePart` places it).
    public static func kittyTransmit(_ image: RasterImage, id: UInt32) -> [UInt8] {
        kittyChunks(image) { format in "a=t,f=\(format),o=z,s=\(image.width),v=\(image.height),i=\(id),q=2" }
    }

    /// `image` compressed, in chunks of the protocol's size, the first with the keys `control`
    /// gives for its format (24: RGB, 32: RGBA).
    private static func kittyChunks(_ image: RasterImage, control: (Int) -> String) -> [UInt8] {
        let count = image.width * image.height
        let opaque = image.rgba.withUnsafeBufferPointer { rgba in stride(from: 3, to: min(rgba.count, count * 4), by: 4).allSatisfy { rgba[$0] == 255 } }
        let compressed: Data
        if opaque {
            var rgb = [UInt8](repeating: 0, count: count * 3)
            image.rgba.withUnsafeBufferPointer { rgba in
                rgb.withUnsafeMutableBufferPointer { rgb in
                    for i in 0..<count { rgb[i * 3] = rgba[i * 4]; rgb[i * 3 + 1] = rgba[i * 4 + 1]; rgb[i * 3 + 2] = rgba[i * 4 + 2] }
                }
            }
            compressed = rgb.withUnsafeBytes { Deflate.zlibInParallel($0) }.base64EncodedData()
        } else {
            compressed = image.rgba.withUnsafeBytes { Deflate.zlibInParallel($0) }.base64EncodedData()
        }
        var out: [UInt8] = []
        out.reserveCapacity(compressed.count + compressed.count / kittyChunk * 12 + 128)
        var offset = 0
        repeat {
            let end = min(offset + kittyChunk, compressed.count)
            let more = end < compressed.count ? 1 : 0
            let control = offset == 0 ? control(opaque ? 24 : 32) + ",m=\(more)" : "m=\(more)"
            out += Array("\u{1B}_G\(control);".utf8)
            out += compressed[offset..<end]
            out += Array("\u{1B}\\".utf8)
            offset = end
        } while offset < compressed.count
        return out
    }

    /// Removes image `id` and its placements (when a map closes, or pixels give way to cells).
    public static func kittyDelete(id: UInt32) -> [UInt8] { Array("\u{1B}_Ga=d,d=I,i=\(id),q=2\u{1B}\\".utf8) }

    /// Takes image `id`'s placement away; the terminal keeps its pixels, to be placed again.
    public static func kittyHide(id: UInt32) -> [UInt8] { Array("\u{1B}_Ga=d,d=i,i=\(id),q=2\u{1B}\\".utf8) }

    /// The part `part` of image `id`, already transmitted, shown at its own size with its top left
    /// at pixel `at` of the view (over cells of `cell` pixels), its one placement replaced. The
    /// cursor position to write first is returned with it, in cells from the view's top left.
    public static func kittyPlacePart(id: UInt32, _ part: PixelRect, at: (x: Int, y: Int), cell: (width: Int, height: Int),
                                      zIndex: Int = -1) -> (column: Int, row: Int, bytes: [UInt8]) {
        let (cw, ch) = (max(cell.width, 1), max(cell.height, 1))
        let control = "a=p,i=\(id),p=1,x=\(part.x),y=\(part.y),w=\(part.width),h=\(part.height),X=\(at.x % cw),Y=\(at.y % ch),z=\(zIndex),C=1,q=2"
        return (at.x / cw, at.y / ch, Array("\u{1B}_G\(control)\u{1B}\\".utf8))
    }

    /// Image `id`, already transmitted (`width × height` pixels), shown at the cursor as it lies in a
    /// view that zoomed from its own (`placed`, scale not 1) over cells of `cell` pixels, the view
    /// `columns × rows` cells: its part in view over the cells nearest its edges, scaled to them
    /// (kitty scales a placement to whole cells; pictures side by side, kitty's tiles, then cover
    /// the same cells edge to edge), its one placement replaced. The cursor position to write first
    /// is returned with it, in cells from the view's top left.
    public static func kittyPlaceZoomed(id: UInt32, width: Int, height: Int, placed: PixelMap.Placement, cell: (width: Int, height: Int),
                                        columns: Int, rows: Int, zIndex: Int = -1) -> (column: Int, row: Int, bytes: [UInt8])? {
        let (cw, ch) = (Double(max(cell.width, 1)), Double(max(cell.height, 1)))
        /// The cells the picture's part in view covers along one side, and that part in its pixels.
        func side(origin: Double, size: Int, cells: Int, cellSize: Double) -> (first: Int, count: Int, from: Int, length: Int)? {
            let first = (max(origin, 0) / cellSize).rounded().clampedInt(in: 0...cells)
            let end = (min(origin + Double(size) * placed.scale, Double(cells) * cellSize) / cellSize).rounded().clampedInt(in: 0...cells)
            let from = ((Double(first) * cellSize - origin) / placed.scale).rounded().clampedInt(in: 0...size)
            let to = ((Double(end) * cellSize - origin) / placed.scale).rounded().clampedInt(in: 0...size)
            return end > first && to > from ? (first, end - first, from, to - from) : nil
        }
        guard placed.scale > 0, placed.scale != 1, let across = side(origin: placed.x, size: width, cells: columns, cellSize: cw),
              let down = side(origin: placed.y, size: height, cells: rows, cellSize: ch) else { return nil }
        let control = "a=p,i=\(id),p=1,x=\(across.from),y=\(down.from),w=\(across.length),h=\(down.length),c=\(across.count),r=\(down.count),z=\(zIndex),C=1,q=2"
        return (across.first, down.first, Array("\u{1B}_G\(control)\u{1B}\\".utf8))
    }

    /// One pixel of `color` transmitted as image `id` and shown at the cursor stretched over
    /// `columns × rows` cells at `zIndex`: a wash under a picture that does not cover them all.
    public static func kittyWash(_ color: (r: UInt8, g: UInt8, b: UInt8), id: UInt32, columns: Int, rows: Int, zIndex: Int) -> [UInt8] {
        let pixel = Data([color.r, color.g, color.b]).base64EncodedString()
        return Array("\u{1B}_Ga=T,f=24,s=1,v=1,i=\(id),p=1,c=\(columns),r=\(rows),z=\(zIndex),C=1,q=2;\(pixel)\u{1B}\\".utf8)
    }

    /// `image` as a sixel sequence (DCS … ST): at most 256 colours chosen for it, not dithered (maps
    /// are flat colours and sharp edges: dithering adds noise and bytes, not detail).
    public static func sixel(_ image: RasterImage) -> [UInt8] { SixelEncoder.encode(image) }

    /// The most pixels a side of one sixel picture: xterm's default `maxGraphicSize`, past which it
    /// drops a picture whole (and does not say its own when asked).
    public static let sixelPieceSide = 1_000

    /// `image`, over cells of `cell` pixels, as sixel pictures of at most `sixelPieceSide` pixels a
    /// side, each with the cell it starts at from the image's top left: pieces of about one size on
    /// whole cells, at least one a processor across a picture 512 pixels wide or more, encoded at once.
    public static func sixelPieces(_ image: RasterImage, cell: (width: Int, height: Int),
                                   processors: Int = ProcessInfo.processInfo.activeProcessorCount) -> [(column: Int, row: Int, bytes: [UInt8])] {
        let (cw, ch) = (max(cell.width, 1), max(cell.height, 1))
        /// The cells along one side cut into `parts` of about one size: each part's first cell and its cells.
        func cut(_ cells: Int, into parts: Int) -> [(first: Int, count: Int)] {
            (0..<parts).map { (cells * $0 / parts, cells * ($0 + 1) / parts - cells * $0 / parts) }.filter { $0.1 > 0 }
        }
        let (columns, rows) = ((image.width + cw - 1) / cw, (image.height + ch - 1) / ch)
        let (mostAcross, mostDown) = (max(1, sixelPieceSide / cw), max(1, sixelPieceSide / ch))
        let across = max((columns + mostAcross - 1) / mostAcross, image.width >= 512 ? min(processors, columns) : 1)
        let parts = cut(rows, into: (rows + mostDown - 1) / mostDown).flatMap { down in cut(columns, into: across).map { (across: $0, down: down) } }
        let encoded = Mutex([[UInt8]](repeating: [], count: parts.count))
        DispatchQueue.concurrentPerform(iterations: parts.count) { index in
            let (x, y) = (parts[index].across, parts[index].down)
            let bytes = sixel(image.region(x: x.first * cw..<min((x.first + x.count) * cw, image.width),
                                           y: y.first * ch..<min((y.first + y.count) * ch, image.height)))
            encoded.withLock { $0[index] = bytes }
        }
        return zip(parts, encoded.withLock { $0 }).map { ($0.across.first, $0.down.first, $1) }
    }

    /// `image` as an iTerm2 inline image of `columns × rows` cells, the cursor left where it was.
    public static func iterm(_ image: RasterImage, columns: Int, rows: Int) -> [UInt8] {
        let png = PNG.encode(width: image.width, height: image.height, rgba: image.rgba, level: 1).base64EncodedString()
        return Array("\u{1B}]1337;File=inline=1;width=\(columns);height=\(rows);preserveAspectRatio=0;doNotMoveCursor=1:\(png)\u{07}".utf8)
    }
}
