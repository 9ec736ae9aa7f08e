import TerminalCanvas

/// Which characters drawings may use. `unicode` draws outlines in braille (2×4 dots a cell) and
/// fills in half blocks (1×2 a cell); `ascii` is for fonts without braille.
public enum GlyphSet: Sendable, Equatable {
    case unicode
    case ascii
}

/// A raster for maps: braille dots for lines and half-cell pixels for filled areas, in one grid of
/// `columns × rows` cells. Coordinates are in dots: x in `0..<columns*2`, y in `0..<rows*4`.
public struct MapCanvas: Sendable {
    public let columns: Int
    public let rows: Int
    private var dots: [UInt8]
    private var dotColors: [PaletteIndex?]
    /// Half-cell pixels: `columns × rows*2`.
    private var fills: [PaletteIndex?]
    /// Draw lines into the half-cell pixels instead of braille dots (solid colour, half the detail).
    public var linesAsPixels = false
    /// Lines and fills stay inside this box of dot coordinates when set: a vector tile's own square,
    /// so geometry a tile carries past its edge (its buffer, and the cut edges there) is not drawn.
    public var clipBox: (minX: Double, minY: Double, maxX: Double, maxY: Double)?
    /// See-through fills' blends over each palette colour, worked out once per drawing (`MapSurface`).
    var blends: [BlendKey: [Int16]] = [:]

    public init(columns: Int, rows: Int) {
        self.columns = max(columns, 0); self.rows = max(rows, 0)
        dots = Array(repeating: 0, count: self.columns * self.rows)
        dotColors = Array(repeating: nil, count: self.columns * self.rows)
        fills = Array(repeating: nil, count: self.columns * self.rows * 2)
    }

    public var dotWidth: Int { columns * 2 }
    public var dotHeight: Int { rows * 4 }

    /// Braille bit of the dot at (column, row) inside a cell.
    private static let dotBits: [[UInt8]] = [[0x01, 0x02, 0x04, 0x40], [0x08, 0x10, 0x20, 0x80]]

    public mutating func setDot(x: Int, y: Int, color: PaletteIndex?) {
        guard x >= 0, y >= 0, x < dotWidth, y < dotHeight else { return }
        if linesAsPixels {
            if let color { fills[(y / 2) * columns + x / 2] = color }
            return
        }
        let cell = (y / 4) * columns + x / 2
        dots[cell] |= Self.dotBits[x & 1][y & 3]
        dotColors[cell] = color
    }

    /// A straight line between two points in dot coordinates (Bresenham), clipped to the canvas.
    /// `style` gives its width in dots and its dashes; `phase` is how far along its dash pattern
    /// the line starts, and is moved to where it ends, so a polyline's dashes run on.
    /// Returns the dot it ended on (nil when nothing of it is on the canvas).
    @discardableResult
    public mutating func line(from a: (x: Double, y: Double), to b: (x: Double, y: Double), color: PaletteIndex?,
                              style: LineStyle = .solid, phase: inout Double) -> (x: Int, y: Int)? {
        let start = phase
        phase += style.dashes.isEmpty ? 0 : ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot()
        // Lines wholly outside on one side cost nothing; huge coordinates are clamped before
        // converting to Int so a far-away vertex cannot overflow.
        guard a.x.isFinite, a.y.isFinite, b.x.isFinite, b.y.isFinite else { return nil }
        let box = drawingBox
        if (a.x < box.minX && b.x < box.minX) || (a.y < box.minY && b.y < box.minY)
            || (a.x >= box.maxX && b.x >= box.maxX) || (a.y >= box.maxY && b.y >= box.maxY) { return nil }
        guard let (p, q) = Self.clip(a, b, to: box) else { return nil }
        var x0 = p.x.clampedInt(rounding: .down), y0 = p.y.clampedInt(rounding: .down)
        let x1 = q.x.clampedInt(rounding: .down), y1 = q.y.clampedInt(rounding: .down)
        let dx = abs(x1 - x0), dy = -abs(y1 - y0)
        let sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1
        var error = dx + dy
        // Thick lines spread across their minor axis.
        let across = style.offsets, horizontal = dx >= -dy
        // Dashes: the distance along the line at each step, from where the clipped part begins.
        let dashed = !style.dashes.isEmpty
        let steps = Double(max(dx, -dy, 1))
        let clippedLength = ((q.x - p.x) * (q.x - p.x) + (q.y - p.y) * (q.y - p.y)).squareRoot()
        let offset = dashed ? start + ((p.x - a.x) * (p.x - a.x) + (p.y - a.y) * (p.y - a.y)).squareRoot() : 0
        var step = 0.0
        while true {
            if !dashed || style.isOn(at: offset + step / steps * clippedLength) {
                if across.count == 1 {
                    setDot(x: x0, y: y0, color: color)
                } else {
                    for k in across { horizontal ? setDot(x: x0, y: y0 + k, color: color) : setDot(x: x0 + k, y: y0, color: color) }
                }
            }
            if x0 == x1 && y0 == y1 { break }
            let e2 = 2 * error
            if e2 >= dy { error += dy; x0 += sx }
            if e2 <= dx { error += dx; y0 += sy }
            step += 1
        }
        return (x1, y1)
    }

    /// Consecutive points joined by lines (and the last to the first when `closed`). Detailed
    /// outlines at a small scale put many points in one dot: for a solid line one dot wide, a
    /// segment inside the canvas that starts and ends in the dot the last one ended on would only
    /// set that dot again, so it is passed over. The picture is exactly the same; the overview of
    /// Maine at 120×40 draws 5,472 of its 20,543 segments (docs/benchmarks.md, start-up).
    public mutating func polyline(_ points: [(x: Double, y: Double)], color: PaletteIndex?, style: LineStyle = .solid,
                                  closed: Bool = false) {
        guard points.count > 1 else { return }
        let skips = style.dashes.isEmpty && style.offsets.count == 1
        let box = drawingBox
        // Well inside, so clipping would leave the segment as it is.
        let inner = (minX: max(box.minX, 0), minY: max(box.minY, 0), maxX: box.maxX - 1, maxY: box.maxY - 1)
        func isInner(_ p: (x: Double, y: Double)) -> Bool {
            p.x >= inner.minX && p.y >= inner.minY && p.x <= inner.maxX && p.y <= inner.maxY
        }
        var phase = 0.0
        var last: (x: Int, y: Int)?
        func segment(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) {
            if skips, let end = last, isInner(a), isInner(b) {
                // The dots `line` would start and end on (its end is computed as it computes it).
                let start = (x: a.x.clampedInt(rounding: .down), y: a.y.clampedInt(rounding: .down))
                let stop = (x: (a.x + (b.x - a.x)).clampedInt(rounding: .down), y: (a.y + (b.y - a.y)).clampedInt(rounding: .down))
                if start == end, stop == end { return }
            }
            last = line(from: a, to: b, color: color, style: style, phase: &phase)
        }
        for i in 1..<points.count { segment(points[i - 1], points[i]) }
        if closed { segment(points[points.count - 1], points[0]) }
    }

    /// A solid line one dot wide.
    public mutating func line(from a: (x: Double, y: Double), to b: (x: Double, y: Double), color: PaletteIndex?) {
        var phase = 0.0
        line(from: a, to: b, color: color, phase: &phase)
    }

    /// Where lines may go: the canvas (with a dot to spare), within `clipBox`.
    private var drawingBox: (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        var box = (minX: -1.0, minY: -1.0, maxX: Double(dotWidth), maxY: Double(dotHeight))
        if let clipBox {
            box = (max(box.minX, clipBox.minX), max(box.minY, clipBox.minY), min(box.maxX, clipBox.maxX), min(box.maxY, clipBox.maxY))
        }
        return box
    }

    /// Liang–Barsky clipping of a segment to a box.
    private static func clip(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double),
                             to box: (minX: Double, minY: Double, maxX: Double, maxY: Double))
        -> ((x: Double, y: Double), (x: Double, y: Double))? {
        guard box.minX <= box.maxX, box.minY <= box.maxY else { return nil }
        var t0 = 0.0, t1 = 1.0
        let dx = b.x - a.x, dy = b.y - a.y
        for (p, q) in [(-dx, a.x - box.minX), (dx, box.maxX - a.x), (-dy, a.y - box.minY), (dy, box.maxY - a.y)] {
            if p == 0 { if q < 0 { return nil }; continue }
            let r = q / p
            if p < 0 { if r > t1 { return nil }; t0 = max(t0, r) } else { if r < t0 { return nil }; t1 = min(t1, r) }
        }
        return ((a.x + t0 * dx, a.y + t0 * dy), (a.x + t1 * dx, a.y + t1 * dy))
    }

    /// One half-cell pixel (x in `0..<columns`, y in `0..<rows*2`).
    public mutating func setPixel(x: Int, y: Int, color: PaletteIndex) {
        guard x >= 0, y >= 0, x < columns, y < rows * 2 else { return }
        fills[y * columns + x] = color
    }

    /// The colour of one half-cell pixel, if it has one.
    public func pixel(x: Int, y: Int) -> PaletteIndex? {
        guard x >= 0, y >= 0, x < columns, y < rows * 2 else { return nil }
        return fills[y * columns + x]
    }

    /// Fills polygons given as rings in dot coordinates with the even-odd rule, at half-cell
    /// resolution (each fill pixel is 2×2 dots): a pixel is inside when its centre is. Each edge is
    /// reduced to the pixel rows whose centres it crosses (most edges of detailed polygons cross
    /// none), and each row looks only at the edges that cross it.
    public mutating func fill(rings: [[(x: Double, y: Double)]], color: PaletteIndex) {
        fill(rings: rings) { _ in color }
    }

    /// The same, each pixel painted from what it held: a see-through fill blends with what is below.
    public mutating func fill(rings: [[(x: Double, y: Double)]], paint: (PaletteIndex?) -> PaletteIndex) {
        var pixelBox = (firstColumn: 0, firstRow: 0, lastColumn: columns - 1, lastRow: rows * 2 - 1)
        if let clipBox {
            func first(_ v: Double) -> Int { ((v - 1) / 2).clampedInt(in: -1_000_000...1_000_000, rounding: .up) }
            pixelBox = (max(pixelBox.firstColumn, first(clipBox.minX)), max(pixelBox.firstRow, first(clipBox.minY)),
                        min(pixelBox.lastColumn, first(clipBox.maxX) - 1), min(pixelBox.lastRow, first(clipBox.maxY) - 1))
        }
        guard pixelBox.firstColumn <= pixelBox.lastColumn, pixelBox.firstRow <= pixelBox.lastRow else { return }
        var edges: [FillEdge] = []
        for ring in rings where ring.count > 2 && ring.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) {
            // An edge crosses a row centre only when its ends lie in different bands between centres:
            // one comparison per vertex weeds out the many that do not.
            var p = ring[ring.count - 1], pBand = Self.fillBand(p.y)
            for q in ring {
                let qBand = Self.fillBand(q.y)
                if qBand != pBand {
                    let edge = FillEdge(x0: p.x / 2, y0: p.y / 2, x1: q.x / 2, y1: q.y / 2,
                                        visibleRows: pixelBox.firstRow...pixelBox.lastRow)
                    if edge.firstRow <= edge.lastRow { edges.append(edge) }
                }
                p = q
                pBand = qBand
            }
        }
        guard !edges.isEmpty else { return }
        edges.sort { $0.firstRow < $1.firstRow }
        var active: [Int] = [], next = 0
        var crossings: [Double] = []
        let limit = Double(columns + 1)
        for row in edges[0].firstRow...pixelBox.lastRow {
            while next < edges.count, edges[next].firstRow <= row {
                active.append(next)
                next += 1
            }
            active.removeAll { edges[$0].lastRow < row }
            if active.isEmpty {
                if next == edges.count { break }
                continue
            }
            let y = Double(row) + 0.5
            crossings.removeAll(keepingCapacity: true)
            for index in active {
                let e = edges[index]
                // Clamped, so far-away vertices cannot overflow the conversion to Int.
                crossings.append(min(max(e.x0 + (y - e.y0) * (e.x1 - e.x0) / (e.y1 - e.y0), -1), limit))
            }
            crossings.sort()
            var i = 0
            while i + 1 < crossings.count {
                let start = max((crossings[i] - 0.5).clampedInt(rounding: .up), pixelBox.firstColumn)
                let end = min((crossings[i + 1] - 0.5).clampedInt(rounding: .down), pixelBox.lastColumn)
                if start <= end { for x in start...end { fills[row * columns + x] = paint(fills[row * columns + x]) } }
                i += 2
            }
        }
    }

    /// Which gap between fill-pixel row centres a dot's y falls in.
    private static func fillBand(_ y: Double) -> Double { (y / 2 - 0.5).rounded(.up) }

    /// Whether a polygon spanning `top...bottom` (dots) reaches across a row of fill-pixel centres:
    /// if not, `fill` would set no pixel for it.
    public static func fillCrossesRows(from top: Double, to bottom: Double) -> Bool {
        fillBand(top) != fillBand(bottom)
    }

    /// Fills an axis-aligned rectangle given in dot coordinates.
    public mutating func fill(from a: (x: Double, y: Double), to b: (x: Double, y: Double), color: PaletteIndex) {
        fill(rings: [[a, (b.x, a.y), b, (a.x, b.y)]], color: color)
    }

    /// Puts the canvas into `frame` at `origin`. With `colors` off, fills are left out (they would
    /// be blank), or with `shadeWithoutColor` drawn as characters of a density ramp, darker
    /// colours denser, so a monochrome map still shows land, water and imagery.
    /// With `overlay`, only cells with something drawn in them are put, over what the frame holds.
    public func draw(into frame: inout Frame, at origin: (x: Int, y: Int), glyphs: GlyphSet, colors: Bool,
                     shadeWithoutColor: Bool = false, overlay: Bool = false) {
        for row in 0..<rows {
            for column in 0..<columns {
                let cell = row * columns + column
                let topFill = fills[2 * row * columns + column], bottomFill = fills[(2 * row + 1) * columns + column]
                if overlay, dots[cell] == 0, topFill == nil, bottomFill == nil { continue }
                let top = colors ? topFill : nil
                let bottom = colors ? bottomFill : nil
                var drawn: Cell
                if dots[cell] != 0 {
                    let character = glyphs == .unicode ? Character(Unicode.Scalar(0x2800 + UInt32(dots[cell]))!) : Self.asciiGlyph(dots[cell])
                    // Over a picture already in the frame, a line keeps the picture's background.
                    let under = overlay ? frame[origin.x + column, origin.y + row].style.background : nil
                    drawn = Cell(character, style: CellStyle(foreground: colors ? dotColors[cell] : nil,
                                                             background: top ?? bottom ?? under))
                } else if !colors {
                    drawn = Cell(shadeWithoutColor ? Self.shade(topFill, bottomFill) : " ")
                } else if top == bottom || glyphs == .ascii || bottom == nil {
                    drawn = Cell(" ", style: CellStyle(background: top ?? bottom))
                } else if top == nil {
                    drawn = Cell("▄", style: CellStyle(foreground: bottom))
                } else {
                    drawn = Cell("▀", style: CellStyle(foreground: top, background: bottom))
                }
                frame[origin.x + column, origin.y + row] = drawn
            }
        }
    }

    /// The ramp character for the mean brightness of a cell's two pixels, darker denser (maps are
    /// light on paper); blank where unfilled.
    static func shade(_ top: PaletteIndex?, _ bottom: PaletteIndex?) -> Character {
        let pixels = [top, bottom].compactMap { $0 }
        guard !pixels.isEmpty else { return " " }
        let lightness = pixels.map { index -> Double in
            let c = XtermPalette.rgb(index)
            return (0.299 * Double(c.r) + 0.587 * Double(c.g) + 0.114 * Double(c.b)) / 255
        }.reduce(0, +) / Double(pixels.count)
        let ramp = ImageArt.asciiRamp
        return ramp[((1 - lightness) * Double(ramp.count)).clampedInt(in: 0...ramp.count - 1, rounding: .towardZero)]
    }

    /// A character that looks like the dot pattern, for fonts without braille: a line's direction
    /// from where its dots sit in the cell's two columns.
    static func asciiGlyph(_ mask: UInt8) -> Character {
        var rowsByColumn: [[Int]] = [[], []]
        for column in 0..<2 {
            for row in 0..<4 where mask & dotBits[column][row] != 0 { rowsByColumn[column].append(row) }
        }
        let all = rowsByColumn[0] + rowsByColumn[1]
        if all.count == 1 { return all[0] >= 2 ? "." : "'" }
        if rowsByColumn[0].isEmpty || rowsByColumn[1].isEmpty { return all.max()! - all.min()! >= 2 ? "|" : ":" }
        if all.max()! - all.min()! <= 1 { return all.min()! >= 2 ? "_" : "-" }
        let left = Double(rowsByColumn[0].reduce(0, +)) / Double(rowsByColumn[0].count)
        let right = Double(rowsByColumn[1].reduce(0, +)) / Double(rowsByColumn[1].count)
        if left + 1 <= right { return "\\" }
        if right + 1 <= left { return "/" }
        return "+"
    }
}

/// One polygon edge in fill-pixel coordinates, with the rows whose centres (`row + 0.5`) it
/// crosses: those with `top <= row + 0.5 < bottom`, within the visible rows (empty when none).
private struct FillEdge {
    var x0, y0, x1, y1: Double
    var firstRow, lastRow: Int

    init(x0: Double, y0: Double, x1: Double, y1: Double, visibleRows: ClosedRange<Int>) {
        self.x0 = x0; self.y0 = y0; self.x1 = x1; self.y1 = y1
        let top = min(y0, y1), bottom = max(y0, y1)
        // Clamped, so far-away vertices cannot overflow.
        func row(_ v: Double) -> Int { (v - 0.5).clampedInt(in: -1_000_000_000...1_000_000_000, rounding: .up) }
        firstRow = max(row(top), visibleRows.lowerBound)
        lastRow = min(row(bottom) - 1, visibleRows.upperBound)
    }
}

/// How a line is drawn in braille: one to three dots wide, solid or dashed.
public struct LineStyle: Sendable, Equatable {
    /// Dots across the line.
    public var width: Int
    /// Lengths in dots, alternately drawn and skipped; empty for a solid line.
    public var dashes: [Double]

    public static let solid = LineStyle(width: 1, dashes: [])

    /// From a style's `line-width` (pixels: one dot is one pixel at the view's zoom) and
    /// `line-dasharray` (in line widths). Wider than three dots reads as a band, not a line: capped.
    public init(width pixels: Double, dasharray: [Double]) {
        let width = pixels < 1.5 ? 1 : pixels < 2.5 ? 2 : 3
        self.width = width
        let scaled = dasharray.map { max($0, 0) * max(pixels, 1) }
        // A pattern without a gap, or too fine for dots, draws solid.
        dashes = scaled.count >= 2 && scaled.reduce(0, +) >= 2 && scaled.enumerated().contains { $0.offset % 2 == 1 && $0.element >= 0.5 }
            ? scaled : []
    }

    init(width: Int, dashes: [Double]) { self.width = width; self.dashes = dashes }

    /// The dot offsets across the line (a range: no array to allocate for every segment drawn).
    var offsets: ClosedRange<Int> {
        switch width {
        case 1: 0...0
        case 2: 0...1
        default: -1...1
        }
    }

    /// Whether the pattern draws at `distance` along the line.
    func isOn(at distance: Double) -> Bool {
        let period = dashes.reduce(0, +)
        guard period > 0 else { return true }
        var rest = distance.truncatingRemainder(dividingBy: period)
        if rest < 0 { rest += period }
        for (index, length) in dashes.enumerated() {
            if rest < length { return index % 2 == 0 }
            rest -= length
        }
        return true
    }
}
