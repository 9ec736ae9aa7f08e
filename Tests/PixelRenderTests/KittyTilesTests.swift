import Foundation
import PixelRender
import Testing
import TileFormats

/// kitty's tiles, checked by a terminal made here that keeps the images transmitted and paints
/// their placements: what it shows after each update must be the picture, pixel for pixel.
@Suite struct KittyTilesTests {
    static let cell = (width: 8, height: 16)

    /// A picture of `width × height` pixels lying at `grid`, each pixel coloured by where it lies
    /// in the world, as two drawings of the same map agree; `line`: a row of black pixels at that
    /// world row (something drawn in).
    static func world(_ grid: PixelGrid, width: Int = 640, height: Int = 400, line: Int? = nil) -> RasterImage {
        var rgba = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let (wx, wy) = (grid.x + x, grid.y + y)
                let i = (y * width + x) * 4
                if wy == line { rgba[i] = 0; rgba[i + 1] = 0; rgba[i + 2] = 0; continue }
                rgba[i] = UInt8(truncatingIfNeeded: wx &* 7 &+ wy); rgba[i + 1] = UInt8(truncatingIfNeeded: wy &* 3); rgba[i + 2] = UInt8(truncatingIfNeeded: (wx / 16) ^ (wy / 16))
            }
        }
        return RasterImage(width: width, height: height, rgba: rgba)
    }

    /// A terminal for the kitty protocol's images and placements at their own size, a view of
    /// `width × height` pixels.
    struct Terminal {
        var images: [String: RasterImage] = [:]
        var placements: [String: (column: Int, row: Int, control: [String: String])] = [:]
        var transmitted = 0

        mutating func apply(_ update: KittyTiles.Update) throws {
            var pending: (control: [String: String], payload: [UInt8])?
            for chunk in TerminalGraphicsTests.kittyChunks(update.plain) {
                if let started = pending {
                    pending = (started.control, started.payload + chunk.payload)
                } else {
                    pending = chunk
                }
                guard chunk.control["m"] != "1", let (control, payload) = pending else { continue }
                pending = nil
                let id = try #require(control["i"])
                switch (control["a"], control["d"]) {
                case ("t", _):
                    let compressed = try #require(Data(base64Encoded: Data(payload)))
                    let rgb = [UInt8](try Deflate.inflate(compressed, container: .zlib, limit: 64 << 20))
                    let (width, height) = (Int(control["s"]!)!, Int(control["v"]!)!)
                    #expect(control["f"] == "24" && rgb.count == width * height * 3)
                    var rgba: [UInt8] = []
                    for pixel in 0..<width * height { rgba += [rgb[pixel * 3], rgb[pixel * 3 + 1], rgb[pixel * 3 + 2], 255] }
                    images[id] = RasterImage(width: width, height: height, rgba: rgba)
                    transmitted += width * height
                case ("d", "I"): images[id] = nil; placements[id] = nil
                case ("d", "i"): placements[id] = nil
                default: Issue.record("unexpected \(control)")
                }
            }
            for placed in update.placed {
                let control = try #require(TerminalGraphicsTests.kittyChunks(placed.bytes).first).control
                #expect(control["a"] == "p" && images[control["i"]!] != nil, "a placement of an image held")
                placements[control["i"]!] = (placed.column, placed.row, control)
            }
        }

        /// The view as placed, at the images' own size; pixels no placement covers are transparent.
        func view(width: Int, height: Int) -> RasterImage {
            var rgba = [UInt8](repeating: 0, count: width * height * 4)
            for (id, placement) in placements {
                guard let image = images[id], placement.control["c"] == nil else { continue }
                let number = { (key: String) in Int(placement.control[key] ?? "0")! }
                let left = placement.column * KittyTilesTests.cell.width + number("X"), top = placement.row * KittyTilesTests.cell.height + number("Y")
                for y in 0..<number("h") {
                    for x in 0..<number("w") where left + x < width && top + y < height {
                        let p = image.pixel(x: number("x") + x, y: number("y") + y)
                        let i = ((top + y) * width + left + x) * 4
                        rgba[i] = p.r; rgba[i + 1] = p.g; rgba[i + 2] = p.b; rgba[i + 3] = 255
                    }
                }
            }
            return RasterImage(width: width, height: height, rgba: rgba)
        }
    }

    /// Where the first view's picture lies.
    static let grid = PixelGrid(resolution: 10, x: 5_000, y: 9_000)

    /// Tiles, and a terminal they were sent to for the first view's picture.
    static func firstView() throws -> (tiles: KittyTiles, terminal: Terminal) {
        var tiles = KittyTiles(ids: 100...199)
        var terminal = Terminal()
        try terminal.apply(tiles.show(Self.world(grid), at: grid, cell: Self.cell, zIndex: -1))
        return (tiles, terminal)
    }

    @Test func aPanSendsOnlyTheTilesThatCameIntoViewAndShowsThePicture() throws {
        var (tiles, terminal) = try Self.firstView()
        let first = Self.grid
        #expect(terminal.view(width: 640, height: 400) == Self.world(first))
        let all = terminal.transmitted
        #expect(all == 640 * 400, "every pixel sent once")
        // A quarter of the view right and a row down, as a pan moves it.
        let panned = PixelGrid(resolution: 10, x: 5_160, y: 9_016)
        try terminal.apply(tiles.show(Self.world(panned), at: panned, cell: Self.cell, zIndex: -1))
        #expect(terminal.view(width: 640, height: 400) == Self.world(panned))
        let sent = terminal.transmitted - all
        #expect(sent > 0 && sent < all * 3 / 4, "a pan sent \(sent) pixels of \(all)")
        // Tiles out of view are deleted: the terminal holds what the view shows and no more.
        #expect(terminal.images.values.reduce(0) { $0 + $1.width * $1.height } < all * 3 / 2)
        // The same picture again: placed, nothing sent.
        let before = terminal.transmitted
        try terminal.apply(tiles.show(Self.world(panned), at: panned, cell: Self.cell, zIndex: -1))
        #expect(terminal.transmitted == before && terminal.view(width: 640, height: 400) == Self.world(panned))
    }

    @Test func aTileWhosePixelsChangedIsSentAgainAndOnlyIt() throws {
        var (tiles, terminal) = try Self.firstView()
        let grid = Self.grid
        let before = terminal.transmitted
        // A line drawn along world row 9_300: the tiles of row 36 (9_216…9_471), four across the view.
        let lined = Self.world(grid, line: 9_300)
        try terminal.apply(tiles.show(lined, at: grid, cell: Self.cell, zIndex: -1))
        #expect(terminal.view(width: 640, height: 400) == lined)
        #expect(terminal.transmitted - before == 640 * (400 - 216), "the tiles under the line, as far as the view reaches")
    }

    @Test func thePictureAtHandPlacesTheHeldTilesMovedAndSendsNone() throws {
        var (tiles, terminal) = try Self.firstView()
        let before = terminal.transmitted
        let moved = PixelGrid(resolution: 10, x: 4_900, y: 9_030)
        let placed = tiles.placeHeld(at: moved, columns: 80, rows: 25, cell: Self.cell, zIndex: -1)
        let update = try #require(placed)
        try terminal.apply(update)
        #expect(terminal.transmitted == before)
        // Where both views show, the held pixels where the new view puts them; the rest is for the wash.
        let shown = terminal.view(width: 640, height: 400), expected = Self.world(moved)
        for (x, y) in [(100, 0), (639, 369), (300, 200)] { #expect(shown.pixel(x: x, y: y) == expected.pixel(x: x, y: y)) }
        for (x, y) in [(99, 0), (0, 399), (639, 370)] { #expect(shown.pixel(x: x, y: y).a == 0, "\(x),\(y) came into view") }
        // Moved out of view altogether: nothing to place.
        let away = tiles.placeHeld(at: PixelGrid(resolution: 10, x: 50_000, y: 9_000), columns: 80, rows: 25, cell: Self.cell, zIndex: -1)
        #expect(away == nil)
    }

    /// Zoomed, the held tiles are placed scaled over the cells nearest their edges: tiles side by
    /// side cover the same cells edge to edge, none twice, every cell they reach covered.
    @Test(arguments: [2.0, 0.5, 1.5])
    func zoomedTheHeldTilesMeetEdgeToEdge(scale: Double) throws {
        var tiles = try Self.firstView().tiles
        let grid = Self.grid
        // The view about the same middle at the new resolution.
        let middle = (x: Double(grid.x) + 320, y: Double(grid.y) + 200)
        let zoomed = PixelGrid(resolution: 10 / scale, x: Int((middle.x * scale - 320).rounded()), y: Int((middle.y * scale - 200).rounded()))
        let placed = tiles.placeHeld(at: zoomed, columns: 80, rows: 25, cell: Self.cell, zIndex: -1)
        let update = try #require(placed)
        var covered = [Int](repeating: 0, count: 80 * 25)
        for tile in update.placed {
            let control = try #require(TerminalGraphicsTests.kittyChunks(tile.bytes).first).control
            let (columns, rows) = (Int(control["c"]!)!, Int(control["r"]!)!)
            for row in tile.row..<tile.row + rows { for column in tile.column..<tile.column + columns { covered[row * 80 + column] += 1 } }
        }
        #expect(covered.allSatisfy { $0 <= 1 }, "no cell under two tiles")
        let reached = covered.indices.filter { covered[$0] == 1 }
        let (columns, rows) = (Set(reached.map { $0 % 80 }), Set(reached.map { $0 / 80 }))
        #expect(reached.count == columns.count * rows.count, "the cells covered are one rectangle, without holes")
    }
}
