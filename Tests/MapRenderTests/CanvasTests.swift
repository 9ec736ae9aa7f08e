import MapRender
import MapbookCore
import TileFormats
import Testing
import TerminalCanvas
import Geometry
import SharedTestData

@Suite struct CanvasTests {
    @Test func eachDotSetsItsBrailleBit() {
        var canvas = MapCanvas(columns: 1, rows: 1)
        var expected: UInt32 = 0
        let bits: [(Int, Int, UInt32)] = [(0, 0, 0x01), (0, 1, 0x02), (0, 2, 0x04), (1, 0, 0x08),
                                          (1, 1, 0x10), (1, 2, 0x20), (0, 3, 0x40), (1, 3, 0x80)]
        for (x, y, bit) in bits {
            canvas.setDot(x: x, y: y, color: nil)
            expected |= bit
            var frame = Frame(width: 1, height: 1)
            canvas.draw(into: &frame, at: (0, 0), glyphs: .unicode, colors: false)
            #expect(frame[0, 0].character == Character(Unicode.Scalar(0x2800 + expected)!))
        }
    }

    @Test func linesAreContinuousAndClipped() {
        var canvas = MapCanvas(columns: 4, rows: 2)
        canvas.line(from: (-100, 3), to: (100, 3), color: 1)
        var frame = Frame(width: 4, height: 2)
        canvas.draw(into: &frame, at: (0, 0), glyphs: .unicode, colors: false)
        // Row 3 of the dots is the bottom dot row of the first cell row: ⣀ in every cell.
        #expect(frame.row(at: 0) == "⣀⣀⣀⣀")
        #expect(frame.row(at: 1) == "")
        // Far-away coordinates neither crash nor draw.
        canvas.line(from: (1e300, -1e300), to: (-1e300, 1e300), color: 1)
        canvas.line(from: (.nan, 0), to: (5, 5), color: 1)
    }

    /// A polyline passes over segments that would only set the dot the last one ended on: the
    /// picture must be exactly what drawing every segment gives, in and out of the canvas, for
    /// thin, thick and dashed lines, in braille and as pixels.
    @Test func aPolylineDrawsWhatItsSegmentsDraw() {
        var random = SplitMix64(state: 7)
        for trial in 0..<300 {
            // Dense wanders (many points to a dot), some crossing the edges, some far outside.
            var points: [(x: Double, y: Double)] = []
            var at = (x: Double(random.next() % 50) - 5, y: Double(random.next() % 30) - 3)
            let step = trial % 3 == 0 ? 3.0 : 0.4
            for _ in 0..<(5 + Int(random.next() % 200)) {
                at.x += (Double(random.next() % 1000) / 500 - 1) * step
                at.y += (Double(random.next() % 1000) / 500 - 1) * step
                points.append(at)
            }
            let style = [LineStyle.solid, LineStyle(width: 3, dasharray: []), LineStyle(width: 1, dasharray: [2, 1])][trial % 3]
            let closed = trial % 2 == 0
            for asPixels in [false, true] {
                var segments = MapCanvas(columns: 20, rows: 6), polyline = MapCanvas(columns: 20, rows: 6)
                segments.linesAsPixels = asPixels; polyline.linesAsPixels = asPixels
                var phase = 0.0
                for i in 1..<points.count { segments.line(from: points[i - 1], to: points[i], color: 3, style: style, phase: &phase) }
                if closed { segments.line(from: points[points.count - 1], to: points[0], color: 3, style: style, phase: &phase) }
                polyline.polyline(points, color: 3, style: style, closed: closed)
                var expected = Frame(width: 20, height: 6), drawn = Frame(width: 20, height: 6)
                segments.draw(into: &expected, at: (0, 0), glyphs: .unicode, colors: true)
                polyline.draw(into: &drawn, at: (0, 0), glyphs: .unicode, colors: true)
                let same = drawn == expected
                #expect(same, "trial \(trial), pixels \(asPixels): \((0..<6).map { drawn.row(at: $0) }) for \((0..<6).map { expected.row(at: $0) })")
            }
        }
    }

    @Test func asciiGlyphsFollowTheLineDirection() {
        func glyph(_ a: (Double, Double), _ b: (Double, Double)) -> Character {
            var canvas = MapCanvas(columns: 1, rows: 1)
            canvas.line(from: a, to: b, color: nil)
            var frame = Frame(width: 1, height: 1)
            canvas.draw(into: &frame, at: (0, 0), glyphs: .ascii, colors: false)
            return frame[0, 0].character
        }
        #expect(glyph((0, 0), (0, 3)) == "|")
        #expect(glyph((0, 1), (1, 1)) == "-")
        #expect(glyph((0, 0), (1, 3)) == "\\")
        #expect(glyph((1, 0), (0, 3)) == "/")
        #expect(glyph((0, 3), (0, 3)) == ".")
    }

    @Test func polygonsFillAtHalfCellResolution() {
        var canvas = MapCanvas(columns: 4, rows: 2)
        // A square over the left half, top half: fill pixels x 0...1, y 0...1 (dots 0...4, 0...4).
        canvas.fill(rings: [[(0, 0), (4, 0), (4, 4), (0, 4)]], color: 22)
        var frame = Frame(width: 4, height: 2)
        canvas.draw(into: &frame, at: (0, 0), glyphs: .unicode, colors: true)
        #expect(frame[0, 0].style.background == 22 && frame[1, 0].style.background == 22)
        #expect(frame[2, 0].style.background == nil)
        #expect(frame[0, 1].style.background == nil)
        // Without colour, fills are left out entirely.
        var mono = Frame(width: 4, height: 2)
        canvas.draw(into: &mono, at: (0, 0), glyphs: .unicode, colors: false)
        #expect(mono.cells.allSatisfy { $0.style == .plain })
    }

    @Test func halfBlocksShowTwoColoursInOneCell() {
        var canvas = MapCanvas(columns: 1, rows: 1)
        canvas.fill(from: (0, 0), to: (2, 2), color: 17)
        canvas.fill(from: (0, 2), to: (2, 4), color: 22)
        var frame = Frame(width: 1, height: 1)
        canvas.draw(into: &frame, at: (0, 0), glyphs: .unicode, colors: true)
        #expect(frame[0, 0] == Cell("▀", style: CellStyle(foreground: 17, background: 22)))
    }
}

@Suite struct ProjectionAndPaletteTests {
    @Test func anExtentFitsCentredWithSquareDots() {
        let maine = GeoExtent(xmin: -71.1, ymin: 43.0, xmax: -66.9, ymax: 47.5)
        let projection = MapProjection(fitting: maine, dotWidth: 200, dotHeight: 100, margin: 0)
        let sw = projection.dot(longitude: maine.xmin, latitude: maine.ymin)
        let ne = projection.dot(longitude: maine.xmax, latitude: maine.ymax)
        // Taller than wide in Mercator: the height fills, the width is centred.
        #expect(abs(sw.y - 100) < 1e-6 && abs(ne.y) < 1e-6)
        #expect(abs((sw.x + ne.x) / 2 - 100) < 1e-6)
        #expect(ne.x > sw.x)
    }

    @Test func nearestPaletteColours() {
        #expect(XtermPalette.nearest(r: 0, g: 0, b: 0) == 16)
        #expect(XtermPalette.nearest(r: 255, g: 255, b: 255) == 231)
        #expect(XtermPalette.nearest(r: 255, g: 0, b: 0) == 196)
        #expect(XtermPalette.nearest(r: 128, g: 128, b: 128) == 244)
        for index in 0...255 {
            let c = XtermPalette.rgb(PaletteIndex(index))
            let back = XtermPalette.rgb(XtermPalette.nearest(r: c.r, g: c.g, b: c.b))
            #expect(back == c || index < 16, "colour \(index)")
        }
        #expect(XtermPalette.nearestSystem(196, count: 8) == 1)
        #expect(XtermPalette.nearestSystem(5, count: 8) == 5)
    }
}

