import Foundation
import MapbookCore
import Synchronization
import TileFormats

/// Where a picture lies on the world's pixel grid at its resolution (metres a pixel): its top left
/// pixel, counted from the world's top left (`PixelMap.Geometry.grid`).
public struct PixelGrid: Sendable, Hashable {
    public let resolution: Double
    public let x: Int, y: Int

    public init(resolution: Double, x: Int, y: Int) { self.resolution = resolution; self.x = x; self.y = y }
}

/// The map view's picture on kitty as tiles cut along the world's pixel grid, each transmitted once
/// under an id of its own and placed by it. A pan's picture is mostly the last one's pixels moved:
/// their tiles are placed where they now lie, and only the tiles that came into view, or whose
/// pixels changed (a line drawn in, a layer shown), are sent — about a third of the picture
/// instead of all of it, compressed a tile a processor. A picture at hand (`placeHeld`) places the
/// tiles held, moved or scaled, and sends none. Tiles out of view are deleted: the terminal keeps
/// one view's worth.
public struct KittyTiles: Sendable {
    /// A tile's side in pixels: small enough that a pan sends little past what came into view,
    /// large enough that a view is a few dozen placements.
    public static let side = 256

    /// A command for the terminal, written at the cell `column`, `row` from the view's top left.
    public typealias Placed = (column: Int, row: Int, bytes: [UInt8])

    /// What brings the terminal to a view: transmissions and deletions (written anywhere), then
    /// placements (each at its cell).
    public struct Update {
        public var plain: [UInt8] = []
        public var placed: [Placed] = []
    }

    private struct Key: Hashable {
        let resolution: Double, column: Int, row: Int
    }

    /// A tile the terminal holds: its id, the part of it transmitted (world pixels: a tile on the
    /// view's edge is sent as far as the view reaches), and those pixels.
    private struct Tile {
        let id: UInt32
        let part: PixelRect
        let pixels: RasterImage
    }

    private var held: [Key: Tile] = [:]
    /// The ids placed now: taken away together (`hide`).
    private var placedIDs: [UInt32] = []
    private let ids: ClosedRange<UInt32>
    private var nextID: UInt32

    /// Tiles take their ids from `ids` (apart from the other pictures' own), round again when used up.
    public init(ids: ClosedRange<UInt32>) {
        self.ids = ids
        nextID = ids.lowerBound
    }

    /// The bytes that show `picture`, lying at `grid`, in a view of cells of `cell` pixels at
    /// `zIndex`: the tiles the terminal holds with the same pixels placed, the others sent and placed.
    public mutating func show(_ picture: RasterImage, at grid: PixelGrid, cell: (width: Int, height: Int), zIndex: Int) -> Update {
        let view = PixelRect(x: grid.x, y: grid.y, width: picture.width, height: picture.height)
        var kept: [Key: Tile] = [:]
        var sent: [(key: Key, part: PixelRect)] = []
        for (column, row) in Self.tiles(covering: view) {
            let key = Key(resolution: grid.resolution, column: column, row: row)
            let part = Self.rect(column, row).clamped(to: view)
            if let tile = held[key], tile.part.contains(part),
               Self.samePixels(tile.pixels, at: (part.x - tile.part.x, part.y - tile.part.y), picture, at: (part.x - grid.x, part.y - grid.y),
                               size: (part.width, part.height)) {
                kept[key] = tile
            } else {
                sent.append((key, part))
            }
        }
        var update = Update()
        let keptIDs = Set(kept.values.map(\.id))
        for tile in held.values.sorted(by: { $0.id < $1.id }) where !keptIDs.contains(tile.id) {
            update.plain += TerminalGraphics.kittyDelete(id: tile.id)
        }
        let regions = sent.map { picture.region(x: $0.part.x - grid.x..<$0.part.maxX - grid.x, y: $0.part.y - grid.y..<$0.part.maxY - grid.y) }
        let newIDs = sent.map { _ in takeID(besides: kept) }
        // Compressed a tile a processor: the encoding of a pan's third of a picture.
        let encoded = Mutex([[UInt8]](repeating: [], count: sent.count))
        DispatchQueue.concurrentPerform(iterations: sent.count) { index in
            let bytes = TerminalGraphics.kittyTransmit(regions[index], id: newIDs[index])
            encoded.withLock { $0[index] = bytes }
        }
        for (index, bytes) in encoded.withLock({ $0 }).enumerated() {
            update.plain += bytes
            kept[sent[index].key] = Tile(id: newIDs[index], part: sent[index].part, pixels: regions[index])
        }
        held = kept
        placedIDs = []
        for tile in held.values.sorted(by: { $0.id < $1.id }) {
            guard let placement = Self.placedAtOwnSize(tile, in: view, cell: cell, zIndex: zIndex) else { continue }
            update.placed.append(placement)
            placedIDs.append(tile.id)
        }
        return update
    }

    /// The bytes that show the tiles held where a view at `grid` of `columns × rows` cells of `cell`
    /// pixels puts them (a pan's or a zoom's picture at hand): at their own size when the view has
    /// their resolution, scaled over the cells nearest their edges when it zoomed; those out of
    /// view taken away. Nil when none of them shows there.
    public mutating func placeHeld(at grid: PixelGrid, columns: Int, rows: Int, cell: (width: Int, height: Int), zIndex: Int) -> Update? {
        let view = PixelRect(x: grid.x, y: grid.y, width: columns * cell.width, height: rows * cell.height)
        var update = Update()
        var placed: [UInt32] = []
        for (key, tile) in held.sorted(by: { $0.value.id < $1.value.id }) {
            var scale = key.resolution / grid.resolution
            if abs(scale - 1) < 1e-9 { scale = 1 }
            var placement: Placed?
            if scale == 1 {
                placement = Self.placedAtOwnSize(tile, in: view, cell: cell, zIndex: zIndex)
            } else {
                let x = Double(tile.part.x) * scale - Double(grid.x), y = Double(tile.part.y) * scale - Double(grid.y)
                if scale.isFinite, scale > 0, x.isFinite, y.isFinite {
                    placement = TerminalGraphics.kittyPlaceZoomed(id: tile.id, width: tile.part.width, height: tile.part.height,
                                                                  placed: PixelMap.Placement(scale: scale, x: x, y: y), cell: cell,
                                                                  columns: columns, rows: rows, zIndex: zIndex)
                }
            }
            if let placement {
                update.placed.append(placement)
                placed.append(tile.id)
            } else if placedIDs.contains(tile.id) {
                update.plain += TerminalGraphics.kittyHide(id: tile.id)
            }
        }
        guard !placed.isEmpty else { return nil }
        placedIDs = placed
        return update
    }

    /// The bytes that take the tiles placed away; the terminal keeps them, to be placed again.
    public mutating func hide() -> [UInt8] {
        defer { placedIDs = [] }
        return placedIDs.flatMap { TerminalGraphics.kittyHide(id: $0) }
    }

    /// The bytes that delete every tile the terminal holds.
    public mutating func deleteAll() -> [UInt8] {
        defer { held = [:]; placedIDs = [] }
        return held.values.map(\.id).sorted().flatMap { TerminalGraphics.kittyDelete(id: $0) }
    }

    /// `tile` at its own size where a view lying at `view` (world pixels at the tile's resolution)
    /// shows it: its part in view, from the cell and pixel where that starts; nil when none is.
    private static func placedAtOwnSize(_ tile: Tile, in view: PixelRect, cell: (width: Int, height: Int), zIndex: Int) -> Placed? {
        let part = tile.part.clamped(to: view)
        guard part.width > 0, part.height > 0 else { return nil }
        let source = PixelRect(x: part.x - tile.part.x, y: part.y - tile.part.y, width: part.width, height: part.height)
        return TerminalGraphics.kittyPlacePart(id: tile.id, source, at: (part.x - view.x, part.y - view.y), cell: cell, zIndex: zIndex)
    }

    /// The tiles (column, row) a rectangle of world pixels touches.
    private static func tiles(covering view: PixelRect) -> [(Int, Int)] {
        guard view.width > 0, view.height > 0 else { return [] }
        func tile(_ pixel: Int) -> Int { pixel >= 0 ? pixel / side : -((-pixel + side - 1) / side) }
        return (tile(view.y)...tile(view.y + view.height - 1)).flatMap { row in (tile(view.x)...tile(view.x + view.width - 1)).map { ($0, row) } }
    }

    private static func rect(_ column: Int, _ row: Int) -> PixelRect { PixelRect(x: column * side, y: row * side, width: side, height: side) }

    /// An id in the range not held by a tile kept.
    private mutating func takeID(besides kept: [Key: Tile]) -> UInt32 {
        let taken = Set(kept.values.map(\.id))
        repeat {
            let id = nextID
            nextID = nextID >= ids.upperBound ? ids.lowerBound : nextID + 1
            if !taken.contains(id) { return id }
        } while true
    }

    /// Whether `size` pixels of `a` from `at` and of `b` from `bAt` are the same.
    private static func samePixels(_ a: RasterImage, at: (x: Int, y: Int), _ b: RasterImage, at bAt: (x: Int, y: Int), size: (width: Int, height: Int)) -> Bool {
        guard at.x >= 0, at.y >= 0, bAt.x >= 0, bAt.y >= 0, at.x + size.width <= a.width, at.y + size.height <= a.height,
              bAt.x + size.width <= b.width, bAt.y + size.height <= b.height else { return false }
        return a.rgba.withUnsafeBytes { one in
            b.rgba.withUnsafeBytes { other in
                (0..<size.height).allSatisfy { row in
                    memcmp(one.baseAddress! + ((at.y + row) * a.width + at.x) * 4, other.baseAddress! + ((bAt.y + row) * b.width + bAt.x) * 4,
                           size.width * 4) == 0
                }
            }
        }
    }
}
