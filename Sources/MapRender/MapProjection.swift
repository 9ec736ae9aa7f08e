import MapbookCore
import Geometry

/// A point in Web Mercator metres.
public struct MercatorPoint: Sendable, Equatable {
    public var x: Double, y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }
    public init(_ point: GeoPoint) {
        let p = WebMercator.projected(longitude: point.longitude, latitude: point.latitude)
        x = p.x; y = p.y
    }

    /// The point in WGS84.
    public var geographic: GeoPoint {
        let g = WebMercator.geographic(x: x, y: y)
        return GeoPoint(longitude: g.longitude, latitude: g.latitude)
    }
}

/// Places Web Mercator coordinates on a canvas's dot grid. Braille dots are about square on a
/// terminal whose cells are twice as tall as wide, so one scale serves both axes.
public struct MapProjection: Sendable, Equatable {
    /// Dots per metre.
    public let scale: Double
    /// The Mercator coordinates of the canvas's top-left corner.
    public let left: Double, top: Double

    /// The largest scale at which `extent` fits in the dot grid, with `margin` dots free at each
    /// side, centred.
    public init(fitting extent: GeoExtent, dotWidth: Int, dotHeight: Int, margin: Double = 2) {
        let sw = WebMercator.projected(longitude: extent.xmin, latitude: extent.ymin)
        let ne = WebMercator.projected(longitude: extent.xmax, latitude: extent.ymax)
        let spanX = max(ne.x - sw.x, 1), spanY = max(ne.y - sw.y, 1)
        let usableX = max(Double(dotWidth) - 2 * margin, 1), usableY = max(Double(dotHeight) - 2 * margin, 1)
        scale = min(usableX / spanX, usableY / spanY)
        left = (sw.x + ne.x) / 2 - Double(dotWidth) / 2 / scale
        top = (sw.y + ne.y) / 2 + Double(dotHeight) / 2 / scale
    }

    /// `resolution` metres per dot with `center` in the middle of a `dotWidth × dotHeight` grid.
    public init(center: MercatorPoint, resolution: Double, dotWidth: Int, dotHeight: Int) {
        scale = 1 / resolution
        left = center.x - Double(dotWidth) / 2 * resolution
        top = center.y + Double(dotHeight) / 2 * resolution
    }

    public func dot(_ p: MercatorPoint) -> (x: Double, y: Double) {
        ((p.x - left) * scale, (top - p.y) * scale)
    }

    public func dot(longitude: Double, latitude: Double) -> (x: Double, y: Double) {
        dot(MercatorPoint(GeoPoint(longitude: longitude, latitude: latitude)))
    }

    /// The cell a point falls in (a cell is two dots wide and four tall), from the grid's top left;
    /// nil when it lies too far off for a grid to hold (a pole, an absurd coordinate).
    public func cell(_ p: MercatorPoint) -> (column: Int, row: Int)? {
        let d = dot(p)
        guard d.x.isFinite, d.y.isFinite, abs(d.x) < 1e6, abs(d.y) < 1e6 else { return nil }
        return ((d.x / 2).clampedInt(rounding: .down), (d.y / 4).clampedInt(rounding: .down))
    }
}
