import Foundation
import Geometry
import MapRender
import MapSources
import PixelRender
import SharedTestData
import TerminalCanvas
import Testing
import TileFormats

/// The pixel map is the cells' picture at finer grain: the same view, the same colours where the
/// cells are flat, the names in the same cells.
@Suite(.enabled(if: SharedData.available, SharedData.skipMessage))
struct PixelMapTests {
    /// The mean colour of each cell's block of pixels is within a few palette steps of the cell's
    /// own colour wherever the cell is one flat colour.
    @Test(arguments: [("raster/tpkx/Usa.tpkx", 5.0, GeoPoint(longitude: -95, latitude: 38)),
                      ("vector/vtpk/basemapde_sample_L00-L07_nofonts.vtpk", 7.0, nil)])
    func theCellsAndThePixelsShowTheSamePicture(path: String, zoom: Double, center: GeoPoint?) async throws {
        let source = try PackageMapSource(path: SharedData.url(path).path)
        let stack = MapStack(source)
        let (columns, rows) = (60, 20)
        var viewport = MapViewport(fitting: try #require(source.extent), columns: columns, rows: rows)
        viewport = MapViewport(center: center.map(MercatorPoint.init) ?? viewport.center, zoom: zoom)
        let request = MapRequest(viewport: viewport, columns: columns, rows: rows, mode: .blocks)
        let cells = await stack.render(request).picture.frame
        let pixels = try await PixelMap.render(stack, request, cell: (8, 16)).canvas.image()
        #expect(pixels.width == 480 && pixels.height == 320)
        var flat = 0, alike = 0
        for row in 0..<rows {
            for column in 0..<columns {
                let cell = cells[column, row]
                guard cell.character == " ", let background = cell.style.background else { continue }
                flat += 1
                var sum = (0, 0, 0)
                for y in (row * 16)..<(row * 16 + 16) {
                    for x in (column * 8)..<(column * 8 + 8) {
                        let p = pixels.pixel(x: x, y: y)
                        sum = (sum.0 + Int(p.r), sum.1 + Int(p.g), sum.2 + Int(p.b))
                    }
                }
                let mean = (sum.0 / 128, sum.1 / 128, sum.2 / 128), expected = XtermPalette.rgb(background)
                if max(abs(mean.0 - expected.r), abs(mean.1 - expected.g), abs(mean.2 - expected.b)) <= 48 { alike += 1 }
            }
        }
        #expect(flat > columns * rows / 4, "most cells of a basemap are flat")
        #expect(Double(alike) >= Double(flat) * 0.8, "\(alike) of \(flat) flat cells alike")
    }

    /// The package at `path` drawn at `zoom` about its middle, 60×20 cells of 8×16 pixels.
    static func drawnAtItsMiddle(_ path: String, zoom: Double) async throws -> (stack: MapStack, view: MapRequest, drawn: MapImage) {
        let source = try PackageMapSource(path: SharedData.url(path).path)
        let stack = MapStack(source)
        let (columns, rows) = (60, 20)
        let home = MapViewport(fitting: try #require(source.extent), columns: columns, rows: rows)
        let view = MapRequest(viewport: MapViewport(center: home.center, zoom: zoom), columns: columns, rows: rows)
        return (stack, view, try await PixelMap.render(stack, view, cell: (8, 16)).image(for: view))
    }

    /// A pan's picture at hand is the last one moved: where both show the ground, exactly the
    /// pixels the view's own drawing has there (both corners lie on the world's pixel grid); the
    /// names moved with it. Nothing at hand for another scale, the same view, or a jump past it.
    @Test(arguments: [("raster/tpkx/Usa.tpkx", 5.0), ("vector/vtpk/basemapde_sample_L00-L07_nofonts.vtpk", 7.0)])
    func aPansPictureAtHandIsTheLastOneMoved(path: String, zoom: Double) async throws {
        let (stack, first, drawn) = try await Self.drawnAtItsMiddle(path, zoom: zoom)
        for (dotsX, dotsY) in [(30.0, 0.0), (-30.0, 20.0), (7.0, -3.0)] {
            var panned = first
            panned.viewport = first.viewport.panned(dotsX: dotsX, dotsY: dotsY)
            let moved = try #require(PixelMap.atHand(from: drawn, for: panned))
            let own = try await PixelMap.render(stack, panned, cell: (8, 16)).image(for: panned)
            let (a, b) = (try #require(moved.pixels), try #require(own.pixels))
            let (dx, dy) = (Int(dotsX * 4), Int(dotsY * 4))
            #expect(moved.isAtHand && moved.request == panned)
            var same = 0, compared = 0
            for y in stride(from: max(0, -dy), to: min(320, 320 - dy), by: 3) {
                for x in stride(from: max(0, -dx), to: min(480, 480 - dx), by: 3) {
                    compared += 1
                    if a.pixel(x: x, y: y) == b.pixel(x: x, y: y) { same += 1 }
                }
            }
            #expect(Double(same) >= Double(compared) * 0.98, "\(same) of \(compared) pixels alike after a pan of \(dotsX),\(dotsY) dots")
            let names = drawn.picture.names.labels.first.map { $0.spots[0] }, movedNames = moved.picture.names.labels.first.map { $0.spots[0] }
            #expect(names.map { [$0.column - Int((Double(dx) / 8).rounded()), $0.row - Int((Double(dy) / 16).rounded())] }
                    == movedNames.map { [$0.column, $0.row] })
        }
        var far = first, tooDeep = first
        far.viewport = first.viewport.panned(dotsX: 120, dotsY: 0)
        tooDeep.viewport = first.viewport.zoomed(by: 5)
        #expect(PixelMap.atHand(from: drawn, for: first) == nil && PixelMap.atHand(from: drawn, for: far) == nil
                && PixelMap.atHand(from: drawn, for: tooDeep) == nil)
    }

    /// A pan's whole picture keeps the last one's pixels where both show the ground and draws only
    /// what came into view: the same picture as the view drawn anew, seams and all — but for a few
    /// pixels where Cairo's parts of the picture meet (each part leaves out what lies beyond it, and
    /// a line crossing its edge ends a shade differently there): 35 of 153,600 for the vector style,
    /// none for the raster tiles. Nothing is kept for a zoom, for other content (a layer shown, an
    /// edit saved), or from a picture at hand.
    @Test(arguments: [("raster/tpkx/Usa.tpkx", 5.0), ("vector/vtpk/basemapde_sample_L00-L07_nofonts.vtpk", 7.0)])
    func aPansWholePictureKeepsTheLastOnesPixelsAndDrawsWhatCameIntoView(path: String, zoom: Double) async throws {
        let (stack, first, drawn) = try await Self.drawnAtItsMiddle(path, zoom: zoom)
        for (dotsX, dotsY) in [(30.0, 0.0), (-30.0, 20.0), (7.0, -3.0), (0.0, -40.0)] {
            var panned = first
            panned.viewport = first.viewport.panned(dotsX: dotsX, dotsY: dotsY)
            let kept = try #require(PixelMap.kept(from: drawn, for: panned))
            let drawnArea = kept.regions.reduce(0) { $0 + $1.width * $1.height }
            #expect(drawnArea <= 480 * 320 / 2 && drawnArea > 0, "\(kept.regions)")
            let keeping = try await PixelMap.render(stack, panned, cell: (8, 16), after: drawn).canvas.image()
            let own = try await PixelMap.render(stack, panned, cell: (8, 16)).canvas.image()
            var differ = 0, most = 0
            for y in 0..<320 {
                for x in 0..<480 {
                    let (a, b) = (keeping.pixel(x: x, y: y), own.pixel(x: x, y: y))
                    let d = max(abs(Int(a.r) - Int(b.r)), abs(Int(a.g) - Int(b.g)), abs(Int(a.b) - Int(b.b)), abs(Int(a.a) - Int(b.a)))
                    if d > 0 { differ += 1; most = max(most, d) }
                }
            }
            #expect(differ <= 480 * 320 / 1_000, "\(differ) pixels differ (at most by \(most)) after a pan of \(dotsX),\(dotsY) dots")
            // Kept, not drawn again: a last picture all of one colour shows but where the view came in.
            var painted = drawn
            painted.pixels = RasterImage(width: 480, height: 320, rgba: [UInt8]((0..<480 * 320).flatMap { _ in [255, 0, 255, 255] }))
            let over = try await PixelMap.render(stack, panned, cell: (8, 16), after: painted).canvas.image()
            let magenta = (0..<320).reduce(0) { sum, y in sum + (0..<480).filter { over.pixel(x: $0, y: y) == (r: 255, g: 0, b: 255, a: 255) }.count }
            #expect(magenta == 480 * 320 - drawnArea)
        }
        var zoomed = first, changed = first, moved = first
        moved.viewport = first.viewport.panned(dotsX: 30, dotsY: 0)
        zoomed.viewport = first.viewport.zoomed(by: 1)
        changed.viewport = first.viewport.panned(dotsX: 30, dotsY: 0)
        changed.content += 1
        var atHand = drawn
        atHand.isAtHand = true
        #expect(PixelMap.kept(from: drawn, for: zoomed) == nil && PixelMap.kept(from: drawn, for: changed) == nil
                && PixelMap.kept(from: atHand, for: moved) == nil)
    }

    /// A zoom's picture at hand is the last one scaled about the point the zoom keeps: alike to the
    /// view's own drawing where it reaches (a level's tiles and the next one's show the same ground,
    /// a vector style's lines a little wider or narrower: at least 40 % of pixels within 6 of 255 a
    /// channel; scaled about the wrong point, 0–26 %), the rest the mean colour; its names left to
    /// the view's own drawing.
    @Test(arguments: [("raster/tpkx/Usa.tpkx", 3.0), ("vector/vtpk/basemapde_sample_L00-L07_nofonts.vtpk", 6.0)])
    func aZoomsPictureAtHandIsTheLastOneScaled(path: String, zoom: Double) async throws {
        let (stack, first, drawn) = try await Self.drawnAtItsMiddle(path, zoom: zoom)
        for steps in [1.0, -1.0] {
            var zoomed = first
            zoomed.viewport = first.viewport.zoomed(by: steps, anchor: (25, -12))
            let scaled = try #require(PixelMap.atHand(from: drawn, for: zoomed))
            let own = try await PixelMap.render(stack, zoomed, cell: (8, 16)).image(for: zoomed)
            #expect(scaled.isAtHand && scaled.request == zoomed && scaled.picture.names.labels.isEmpty && scaled.picture.names.marks.isEmpty)
            let (a, b) = (try #require(scaled.pixels), try #require(own.pixels))
            // Where the last picture reaches: all of the view zoomed in, its middle quarter zoomed out.
            let placed = try #require(PixelMap.placement(from: first, to: zoomed, picture: (480, 320)))
            #expect(placed.scale == pow(2, steps))
            var alike = 0, compared = 0
            for y in stride(from: max(0, Int(placed.y) + 2), to: min(320, Int(placed.y + 320 * placed.scale) - 2), by: 3) {
                for x in stride(from: max(0, Int(placed.x) + 2), to: min(480, Int(placed.x + 480 * placed.scale) - 2), by: 3) {
                    compared += 1
                    let (p, q) = (a.pixel(x: x, y: y), b.pixel(x: x, y: y))
                    if max(abs(Int(p.r) - Int(q.r)), abs(Int(p.g) - Int(q.g)), abs(Int(p.b) - Int(q.b))) <= 6 { alike += 1 }
                }
            }
            #expect(compared > 1_000 && Double(alike) >= Double(compared) * 0.4, "\(alike) of \(compared) pixels alike after a zoom by \(steps)")
        }
    }

    /// The pixel view covers the cells' ground, centred where they are, its corner on whole pixels.
    @Test func thePixelViewCoversTheCellsGround() throws {
        let viewport = MapViewport(center: MercatorPoint(GeoPoint(longitude: 10.5, latitude: 51)), zoom: 7.3)
        let request = MapRequest(viewport: viewport, columns: 200, rows: 50)
        let geometry = PixelMap.Geometry(request, cell: (8, 16))
        #expect(geometry.width == 1_600 && geometry.height == 800)
        let cells = viewport.projection(columns: 200, rows: 50)
        #expect(abs(geometry.projection.scale / (cells.scale * 4) - 1) < 1e-12)
        #expect(abs(geometry.projection.left - cells.left) < 1 / geometry.projection.scale)
        #expect(abs(geometry.projection.top - cells.top) < 1 / geometry.projection.scale)
        let corner = (geometry.projection.left + WebMercator.originShift) * geometry.projection.scale
        #expect(abs(corner - corner.rounded()) < 1e-6)
        // Loaded as a view of 800×200 "cells" of 2×4 pixels, two levels deeper.
        #expect(geometry.request.columns == 800 && geometry.request.rows == 200)
        #expect(abs(geometry.request.viewport.zoom - 9.3) < 1e-9)
    }

    /// Lines the view lays over the map (a route, the ruler) are drawn into a copy of its picture,
    /// where the picture's own view puts them; a picture not of that view is left alone.
    @Test func linesAreDrawnIntoACopyOfThePicture() throws {
        let white = RasterImage(width: 80, height: 48, rgba: [UInt8](repeating: 255, count: 80 * 48 * 4))
        let view = MapRequest(viewport: MapViewport(center: MercatorPoint(x: 0, y: 0), zoom: 3), columns: 20, rows: 6)
        let equator = MapOverlays.Line(paths: [[GeoPoint(longitude: -10, latitude: 0), GeoPoint(longitude: 10, latitude: 0)]], color: 196, dots: 2)
        let drawn = try #require(PixelMap.overlaid(white, view: view, lines: [equator]))
        let red = XtermPalette.rgb(196)
        for y in [23, 24] {
            let on = drawn.pixel(x: 40, y: y)
            let colour: [Int] = [Int(on.r), Int(on.g), Int(on.b)]
            #expect(colour == [red.r, red.g, red.b], "row \(y)")
        }
        #expect(drawn.pixel(x: 40, y: 4).g == 255 && drawn.pixel(x: 40, y: 44).g == 255, "the line is 3.5 pixels wide")
        #expect(white.pixel(x: 40, y: 24).g == 255, "the picture itself is left as it was")
        let odd = RasterImage(width: 81, height: 48, rgba: [UInt8](repeating: 255, count: 81 * 48 * 4))
        #expect(PixelMap.overlaid(odd, view: view, lines: [equator]) == nil)
    }
}
