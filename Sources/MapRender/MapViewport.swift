import Foundation
import MapbookCore
import TileFormats
import Geometry

/// How the map view draws: braille dots for lines over half-block fills, half blocks for everything
/// (lines too: coarser, but solid colour), or ASCII characters for fonts without braille.
public enum MapMode: String, Sendable, CaseIterable {
    case braille, blocks, ascii

    public var next: MapMode {
        let all = Self.allCases
        return all[(all.firstIndex(of: self)! + 1) % all.count]
    }
}

/// What the map view looks at: a centre in Web Mercator and a zoom. Zoom follows ArcGIS's levels of
/// detail for 256-pixel tiles: at zoom z one braille dot covers one pixel of level z
/// (156,543 m / 2^z), so the scale shown matches the portal's. Vector tiles (512 px) of level z−1
/// have exactly that resolution.
public struct MapViewport: Sendable, Equatable {
    public var center: MercatorPoint
    public var zoom: Double

    public static let zoomRange = 0.0...22.0

    public init(center: MercatorPoint, zoom: Double) {
        self.center = center
        self.zoom = zoom
        clamp()
    }

    /// The viewport that shows `extent` whole in a canvas of `columns × rows` cells.
    public init(fitting extent: GeoExtent, columns: Int, rows: Int) {
        let sw = WebMercator.projected(longitude: extent.xmin, latitude: extent.ymin)
        let ne = WebMercator.projected(longitude: extent.xmax, latitude: extent.ymax)
        let spanX = max(ne.x - sw.x, 1), spanY = max(ne.y - sw.y, 1)
        let dotsX = max(Double(columns * 2) - 4, 1), dotsY = max(Double(rows * 4) - 4, 1)
        let resolution = max(spanX / dotsX, spanY / dotsY)
        self.init(center: MercatorPoint(x: (sw.x + ne.x) / 2, y: (sw.y + ne.y) / 2),
                  zoom: log2(WebMercator.resolution(zoom: 0) / resolution))
    }

    /// Metres per braille dot.
    public var resolution: Double { WebMercator.resolution(zoom: zoom) }

    /// The map scale at 96 dpi, as ArcGIS states it (1:N).
    public var scale: Double { resolution * 96 / 0.0254 }

    /// The projection of this viewport onto a canvas of `columns × rows` cells.
    public func projection(columns: Int, rows: Int) -> MapProjection {
        MapProjection(center: center, resolution: resolution, dotWidth: columns * 2, dotHeight: rows * 4)
    }

    /// Moved by a number of dots (right and down positive).
    public func panned(dotsX: Double, dotsY: Double) -> MapViewport {
        MapViewport(center: MercatorPoint(x: center.x + dotsX * resolution, y: center.y - dotsY * resolution), zoom: zoom)
    }

    /// Zoomed by `steps` levels, keeping the map point under `anchor` (in dots from the canvas
    /// centre) where it is: the wheel zooms toward the pointer.
    public func zoomed(by steps: Double, anchor: (x: Double, y: Double) = (0, 0)) -> MapViewport {
        let target = MapViewport(center: center, zoom: zoom + steps)
        let point = (x: center.x + anchor.x * resolution, y: center.y - anchor.y * resolution)
        let center = MercatorPoint(x: point.x - anchor.x * target.resolution, y: point.y + anchor.y * target.resolution)
        return MapViewport(center: center, zoom: target.zoom)
    }

    /// What a canvas of `columns × rows` cells shows, in longitude and latitude.
    public func geographicExtent(columns: Int, rows: Int) -> GeoExtent {
        let projection = projection(columns: columns, rows: rows)
        let nw = MercatorPoint(x: projection.left, y: projection.top).geographic
        let se = MercatorPoint(x: projection.left + Double(columns * 2) / projection.scale,
                               y: projection.top - Double(rows * 4) / projection.scale).geographic
        return GeoExtent(xmin: max(nw.longitude, -180), ymin: max(se.latitude, -85.06), xmax: min(se.longitude, 180), ymax: min(nw.latitude, 85.06))
    }

    /// Keeps the zoom in range and the centre on the world.
    private mutating func clamp() {
        if !zoom.isFinite { zoom = 0 }
        zoom = min(max(zoom, Self.zoomRange.lowerBound), Self.zoomRange.upperBound)
        let limit = WebMercator.originShift
        center.x = center.x.isFinite ? min(max(center.x, -limit), limit) : 0
        center.y = center.y.isFinite ? min(max(center.y, -limit), limit) : 0
    }

    /// The tile level to draw for tiles of `tileSize` pixels: the one whose pixels are closest to
    /// a dot, limited to the levels the source has (deeper views draw the deepest tiles bigger).
    public func tileZoom(tileSize: Int, available: ClosedRange<Int>) -> Int {
        let ideal = (zoom - log2(Double(max(tileSize, 1)) / 256)).clampedInt(in: -64...64)
        return min(max(ideal, available.lowerBound), available.upperBound)
    }

    /// The tiles at `tileZoom` that cover a canvas of `columns × rows` cells, centre first (so the
    /// middle of the view arrives first). The world does not repeat sideways.
    public func tiles(atZoom tileZoom: Int, columns: Int, rows: Int) -> [TileKey] {
        guard (0...30).contains(tileZoom) else { return [] }
        let projection = projection(columns: columns, rows: rows)
        let n = 1 << tileZoom
        let span = 2 * WebMercator.originShift / Double(n)
        let right = projection.left + Double(columns * 2) / projection.scale
        let bottom = projection.top - Double(rows * 4) / projection.scale
        let firstColumn = ((projection.left + WebMercator.originShift) / span).clampedInt(in: 0...n, rounding: .down)
        let lastColumn = ((right + WebMercator.originShift) / span).clampedInt(in: -1...n - 1, rounding: .down)
        let firstRow = ((WebMercator.originShift - projection.top) / span).clampedInt(in: 0...n, rounding: .down)
        let lastRow = ((WebMercator.originShift - bottom) / span).clampedInt(in: -1...n - 1, rounding: .down)
        guard firstRow <= lastRow, firstColumn <= lastColumn, lastColumn - firstColumn < 64, lastRow - firstRow < 64 else { return [] }
        let middle = (x: Double(firstColumn + lastColumn) / 2, y: Double(firstRow + lastRow) / 2)
        var keys: [TileKey] = []
        for row in firstRow...lastRow {
            for column in firstColumn...lastColumn {
                keys.append(TileKey(z: tileZoom, x: column, y: row))
            }
        }
        return keys.sorted {
            let a = abs(Double($0.x) - middle.x) + abs(Double($0.y) - middle.y)
            let b = abs(Double($1.x) - middle.x) + abs(Double($1.y) - middle.y)
            return a != b ? a < b : $0 < $1
        }
    }
}
