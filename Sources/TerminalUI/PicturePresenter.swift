import AppModel
import EventLoop
import Foundation
import MapRender
import PixelRender
import TerminalCanvas
import TerminalRender
import TileFormats

/// Puts the map view's picture on the terminal after each frame, where the frame left the map's
/// cells blank. kitty: as tiles of the world's pixel grid (`KittyTiles`), each transmitted once and
/// placed under every cell with a background of its own (cards and panels cover it; names and
/// marks are text on it) — a pan sends the tiles that came into view and places the rest; the
/// map view's tiles and the overview's each in a range of ids of their own, kept by the terminal
/// while the other shows, so going back to one places it again without sending it. sixel and iTerm2: the
/// picture is written over the map's cells, then the text the frame puts there (names, marks,
/// cards) is written again over it — only the band of cell rows from the first to the last where
/// the picture's pixels or that text changed (a card closed sends the picture under its rows).
/// Under tmux, every picture and placement passes through it (`TmuxPassthrough`).
@UIActor
final class PicturePresenter {
    let graphics: GraphicsProtocol
    /// Set when mapbook runs in tmux (which lets pictures through): where the pane lies. When it
    /// moves, the picture is placed again (where it was is where the pane was).
    var passthrough: TmuxPassthrough? {
        didSet { if passthrough != oldValue { shown = nil } }
    }
    /// Set while tmux shows another window (or no client shows the session): the pictures passed
    /// through would stay on the terminal over it, so none is shown.
    var hidden = false
    /// The picture on the terminal, where, and the text written over it; kept so its pixels stay
    /// the same array (compared by address) and a frame that changed nothing sends nothing.
    private var shown: (picture: RasterImage, rect: Rect, text: [Cell], id: UInt32)?
    /// The tiles kitty holds, by picture id (the map view's and the overview's), and the mean
    /// colour of the last picture each showed: the wash under its tiles placed at hand.
    private var tiles: [UInt32: KittyTiles] = [:]
    private var washes: [UInt32: (r: UInt8, g: UInt8, b: UInt8)] = [:]
    /// The last picture's encodings (sixel, iTerm2), by the band of cell rows encoded (all of them,
    /// or those under a card): text changing again over a band sends it without encoding again.
    private var encoded: (picture: RasterImage, bands: [Range<Int>: [Piece]])?
    /// How many encodings were made (tests: text changes do not encode a band twice).
    private(set) var encodingsMade = 0
    /// Each id's picture with its lines drawn in, and the picture and lines it was made from.
    private var lined: [UInt32: (base: RasterImage, lines: [MapOverlays.Line], picture: RasterImage)] = [:]
    /// Whether kitty shows the wash under a picture placed moved (what comes into view, until the
    /// view's own picture comes).
    private var washed = false

    /// kitty's ids for the map view's picture and the overview's (each's tiles take ids of a
    /// million from a million times it), and the z-index that puts them under cells with a background.
    static let mapPictureID: UInt32 = 1
    static let overviewPictureID: UInt32 = 2
    static let washID: UInt32 = 3
    static let underBackgrounds = -1_073_741_825

    static func tileIDs(of picture: UInt32) -> ClosedRange<UInt32> { picture * 1_000_000...picture * 1_000_000 + 999_999 }

    init(graphics: GraphicsProtocol, passthrough: TmuxPassthrough? = nil) { self.graphics = graphics; self.passthrough = passthrough }

    /// The bytes that bring the terminal to show `state`'s picture (or none) for `frame`; empty when
    /// it already does. `repaint` is set when the cells must all be drawn again (a sixel picture
    /// taken away leaves its pixels until they are).
    func update(for state: AppState, frame: Frame, theme: MapTheme) -> (bytes: [UInt8], repaint: Bool) {
        guard !hidden, let (image, rect, id) = Self.shown(state, frame: frame), let drawn = image.pixels,
              image.request.columns == rect.width, image.request.rows == rect.height, !rect.isEmpty else {
            return takeAway()
        }
        let picture = withLines(drawn, of: image, id: id, state: state, theme: theme)
        let text = Self.cells(of: frame, in: rect)
        if let shown, Self.same(shown.picture, picture), shown.rect == rect, shown.id == id, graphics == .kitty || shown.text == text {
            return ([], false)
        }
        var out = Array("\u{1B}7".utf8)
        switch graphics {
        case .kitty:
            if let shown, shown.id != id { out += plain(tiles[shown.id]?.hide() ?? []) }
            if washed { out += plain(TerminalGraphics.kittyDelete(id: Self.washID)); washed = false }
            let cell = (width: picture.width / rect.width, height: picture.height / rect.height)
            let grid = PixelMap.Geometry(image.request, cell: cell).grid
            var held = tiles[id] ?? KittyTiles(ids: Self.tileIDs(of: id))
            if image.isAtHand, Self.same(picture, drawn), let wash = washes[id],
               let placed = held.placeHeld(at: grid, columns: rect.width, rows: rect.height, cell: cell, zIndex: Self.underBackgrounds) {
                // A pan's or zoom's picture at hand: the tiles held, moved or scaled, over a wash of the last picture's colour.
                out += written(placed, in: rect) + at(rect.x, rect.y, TerminalGraphics.kittyWash(wash, id: Self.washID, columns: rect.width, rows: rect.height,
                                                                                              zIndex: Self.underBackgrounds - 1))
                washed = true
            } else {
                out += written(held.show(picture, at: grid, cell: cell, zIndex: Self.underBackgrounds), in: rect)
                let mean = picture.meanColor()
                washes[id] = (mean.r, mean.g, mean.b)
            }
            tiles[id] = held
        case .sixel, .iterm:
            let rows = Self.changedRows(from: shown.flatMap { $0.id == id ? ($0.picture, $0.rect, $0.text) : nil }, to: picture, text: text, in: rect)
            let band = Rect(x: rect.x, y: rect.y + rows.lowerBound, width: rect.width, height: rows.count)
            let cellHeight = picture.height / rect.height
            let pixels = rows.count == rect.height ? picture : picture.band(rows.lowerBound * cellHeight..<rows.upperBound * cellHeight)
            for piece in encoding(of: pixels, rows: rows, of: picture, in: rect) {
                out += at(band.x + piece.column, band.y + piece.row, piece.bytes)
            }
            out += Self.textOver(frame, in: band, picture: pixels)
        }
        out += Array("\u{1B}8".utf8)
        shown = (picture, rect, text, id)
        return (out, false)
    }

    /// kitty's tiles' bytes: transmissions and deletions, then each placement at its cell of `rect`.
    private func written(_ update: KittyTiles.Update, in rect: Rect) -> [UInt8] {
        plain(update.plain) + update.placed.flatMap { at(rect.x + $0.column, rect.y + $0.row, $0.bytes) }
    }

    /// `bytes` (a picture, a placement) written at the cell at `column`, `row` (from 0); through tmux, passed through it.
    private func at(_ column: Int, _ row: Int, _ bytes: [UInt8]) -> [UInt8] {
        passthrough?.at(column, row, bytes) ?? Array("\u{1B}[\(row + 1);\(column + 1)H".utf8) + bytes
    }

    /// `bytes` that place nothing (a picture taken away); through tmux, passed through it.
    private func plain(_ bytes: [UInt8]) -> [UInt8] { bytes.isEmpty ? [] : passthrough?.wrap(bytes) ?? bytes }

    /// The cell rows of `rect` (from its top) to write again for sixel and iTerm2: from the first
    /// to the last whose pixels or text differ from what the terminal shows; all of them when it
    /// shows another place or size.
    private static func changedRows(from shown: (picture: RasterImage, rect: Rect, text: [Cell])?, to picture: RasterImage,
                                    text: [Cell], in rect: Rect) -> Range<Int> {
        let all = 0..<rect.height
        guard let shown, shown.rect == rect, shown.picture.width == picture.width, shown.picture.height == picture.height,
              shown.text.count == text.count, picture.height % rect.height == 0 else { return all }
        let cellHeight = picture.height / rect.height
        let changed = all.filter { row in
            shown.text[row * rect.width..<(row + 1) * rect.width] != text[row * rect.width..<(row + 1) * rect.width]
                || picture.differs(from: shown.picture, in: row * cellHeight..<(row + 1) * cellHeight)
        }
        guard let first = changed.first, let last = changed.last else { return all }
        return first..<(last + 1)
    }

    /// The drawing the screen shows, where, and its id: the map view's, or the overview's basemap
    /// under its caption row.
    private static func shown(_ state: AppState, frame: Frame) -> (MapImage, Rect, UInt32)? {
        switch state.screen {
        case .map(let map):
            return map.image.map { ($0, ScreenLayout.mapRect(width: frame.width, height: frame.height), mapPictureID) }
        case .main:
            guard let overview = state.layout?.main.overview, let image = state.overview.basemap else { return nil }
            return (image, Rect(x: overview.x, y: overview.y + 1, width: overview.width, height: overview.height - 1), overviewPictureID)
        default:
            return nil
        }
    }

    /// `picture` with the lines laid over it drawn into it — the map view's route, ruler, outlines
    /// and track, the overview's extents: made again only when the picture or the lines change.
    /// The cells leave them out.
    private func withLines(_ picture: RasterImage, of image: MapImage, id: UInt32, state: AppState, theme: MapTheme) -> RasterImage {
        let lines: [MapOverlays.Line] = switch state.screen {
        case .map(let map): Renderer.mapOverlays(map, state: state).lines(theme: theme, viewport: image.request.viewport)
        case .main: Renderer.overviewLines(state, theme: theme)
        default: []
        }
        guard !lines.isEmpty else { return picture }
        if let lined = lined[id], Self.same(lined.base, picture), lined.lines == lines { return lined.picture }
        let drawn = PixelMap.overlaid(picture, view: image.request, lines: lines) ?? picture
        lined[id] = (picture, lines, drawn)
        return drawn
    }

    /// Nothing to show: the last picture taken away (kitty keeps it, to be placed again).
    private func takeAway() -> (bytes: [UInt8], repaint: Bool) {
        guard let taken = shown else { return ([], false) }
        shown = nil
        encoded = nil
        guard graphics == .kitty else { return ([], true) }
        defer { washed = false }
        return (plain((tiles[taken.id]?.hide() ?? []) + (washed ? TerminalGraphics.kittyDelete(id: Self.washID) : [])), false)
    }

    /// The terminal's screen was cleared (a resize: curses clears it, kitty takes the pictures on it
    /// away — their pixels too, it may — and a sixel picture is wiped): nothing is taken as shown
    /// or held any more, so the next frame sends its picture whole. The bytes that delete what
    /// kitty may still hold.
    func screenCleared() -> [UInt8] {
        shown = nil
        let deleted = close()
        washed = false
        return deleted
    }

    /// The bytes when leaving the screen for good: every picture kitty holds deleted.
    func close() -> [UInt8] {
        guard graphics == .kitty else { return [] }
        var out: [UInt8] = []
        for id in tiles.keys.sorted() { out += tiles[id]?.deleteAll() ?? [] }
        tiles = [:]
        return plain(out + (washed ? TerminalGraphics.kittyDelete(id: Self.washID) : []))
    }

    /// A picture's encoding in pieces, each with the cell it starts at from the picture's top left.
    typealias Piece = (column: Int, row: Int, bytes: [UInt8])

    /// The encoding of `pixels`, cell rows `rows` of `whole` shown in `rect` (sixel: in pieces a
    /// terminal takes): kept while `whole` is shown (the whole and seven bands at most).
    private func encoding(of pixels: RasterImage, rows: Range<Int>, of whole: RasterImage, in rect: Rect) -> [Piece] {
        if let encoded, Self.same(encoded.picture, whole), let pieces = encoded.bands[rows] { return pieces }
        let cell = (width: whole.width / max(rect.width, 1), height: whole.height / max(rect.height, 1))
        let pieces = graphics == .sixel ? TerminalGraphics.sixelPieces(pixels, cell: cell)
            : [(0, 0, TerminalGraphics.iterm(pixels, columns: rect.width, rows: rows.count))]
        encodingsMade += 1
        var bands = encoded.flatMap { Self.same($0.picture, whole) ? $0.bands : nil } ?? [:]
        if bands.count >= 8, let dropped = bands.keys.first(where: { $0.count != rect.height }) { bands[dropped] = nil }
        bands[rows] = pieces
        encoded = (whole, bands)
        return pieces
    }

    /// The same picture: the same pixels array (a new drawing is a new array).
    private static func same(_ a: RasterImage, _ b: RasterImage) -> Bool {
        a.width == b.width && a.height == b.height && a.rgba.withUnsafeBufferPointer { x in b.rgba.withUnsafeBufferPointer { $0.baseAddress == x.baseAddress } }
    }

    private static func cells(of frame: Frame, in rect: Rect) -> [Cell] {
        var cells: [Cell] = []
        cells.reserveCapacity(rect.width * rect.height)
        for y in rect.y..<rect.maxY { for x in rect.x..<rect.maxX { cells.append(frame[x, y]) } }
        return cells
    }

    /// The frame's text in `rect` — every cell that is not a blank on the terminal's background —
    /// written again after a picture that covered it, in its colours. A sixel terminal paints a
    /// written cell's background over the picture there: a name without a background of its own
    /// gets the picture's colour under its cell, so it reads as written on the map.
    static func textOver(_ frame: Frame, in rect: Rect, picture: RasterImage) -> [UInt8] {
        let cell = (width: picture.width / max(rect.width, 1), height: picture.height / max(rect.height, 1))
        func under(_ column: Int, _ row: Int) -> PaletteIndex {
            var sum = (0, 0, 0), count = 0
            for y in stride(from: row * cell.height, to: min((row + 1) * cell.height, picture.height), by: 2) {
                for x in stride(from: column * cell.width, to: min((column + 1) * cell.width, picture.width), by: 2) {
                    let p = picture.pixel(x: x, y: y)
                    sum = (sum.0 + Int(p.r), sum.1 + Int(p.g), sum.2 + Int(p.b))
                    count += 1
                }
            }
            let n = max(count, 1)
            return XtermPalette.nearest(r: sum.0 / n, g: sum.1 / n, b: sum.2 / n)
        }
        var out = ""
        for y in rect.y..<rect.maxY {
            var x = rect.x
            while x < rect.maxX {
                let cell = frame[x, y]
                guard !cell.isContinuation, cell.character != " " || cell.style.background != nil else { x += 1; continue }
                let width = max(DisplayWidth.of(String(cell.character)), 1)
                out += "\u{1B}[\(y + 1);\(x + 1)H\u{1B}[0"
                if let fg = cell.style.foreground { out += ";38;5;\(fg)" }
                out += ";48;5;\(cell.style.background ?? under(x - rect.x, y - rect.y))"
                if cell.style.bold { out += ";1" }
                if cell.style.reverse { out += ";7" }
                out += "m"
                out.append(cell.character)
                x += width
            }
        }
        return Array((out + "\u{1B}[0m").utf8)
    }
}
