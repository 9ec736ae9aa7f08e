import Foundation
import MapbookCore
import TileFormats
import Geometry

/// Item thumbnails (200×133, as ArcGIS makes them) drawn from the bundled geography: water, the
/// neighbours, Maine, and the area outlined in red.
enum Thumbnail {
    static let width = 200, height = 133

    private static func polygons(_ features: [GeoFeature]) -> [[[GeoPoint]]] {
        features.flatMap { feature -> [[[GeoPoint]]] in
            if case .polygons(let p) = feature.geometry { return p }
            return []
        }
    }

    /// The thumbnail's colours: water, the neighbours' land, Maine.
    struct Colors {
        typealias RGB = (UInt8, UInt8, UInt8)
        var water: RGB, land: RGB, maine: RGB
        static let light = Colors(water: (169, 203, 224), land: (232, 228, 216), maine: (214, 228, 196))
        static let dark = Colors(water: (28, 40, 51), land: (46, 48, 51), maine: (58, 64, 54))
        static let topographic = SampleRasterTiles.colors
    }

    /// The web map's extent when `area` is nil; otherwise the area with room around it. Land and
    /// Maine come from the basemap's own geography.
    static func render(highlighting area: GeoExtent?, geography: SampleBasemap, colors: Colors = .light) -> Data {
        let land = polygons(geography.features(of: "region")), maine = polygons(geography.features(of: "state"))
        let focus = area.map { grown($0, by: 1.0) } ?? SampleCatalog.extent
        var canvas = Canvas(width: width, height: height, view: focus)
        canvas.fill(color: colors.water)
        for polygon in land { canvas.fill(polygon, color: colors.land) }
        for polygon in maine { canvas.fill(polygon, color: colors.maine) }
        if let area { canvas.outline(area, color: (200, 30, 30)) }
        return PNG.encode(width: width, height: height, rgba: canvas.pixels)
    }

    /// `extent` widened by `factor` of its size on each side, then to the thumbnail's aspect.
    static func grown(_ e: GeoExtent, by factor: Double) -> GeoExtent {
        let dx = (e.xmax - e.xmin) * factor, dy = (e.ymax - e.ymin) * factor
        return GeoExtent(xmin: e.xmin - dx, ymin: e.ymin - dy, xmax: e.xmax + dx, ymax: e.ymax + dy)
    }

    /// An RGBA raster over a Web Mercator view, fitted to keep the aspect ratio.
    struct Canvas {
        let width: Int, height: Int
        var pixels: [UInt8]
        private let originX: Double, originY: Double, scale: Double

        init(width: Int, height: Int, view: GeoExtent) {
            let sw = WebMercator.projected(longitude: view.xmin, latitude: view.ymin)
            let ne = WebMercator.projected(longitude: view.xmax, latitude: view.ymax)
            let scale = min(Double(width) / (ne.x - sw.x), Double(height) / (ne.y - sw.y))
            self.init(width: width, height: height, left: (sw.x + ne.x) / 2 - Double(width) / 2 / scale,
                      top: (sw.y + ne.y) / 2 + Double(height) / 2 / scale, scale: scale)
        }

        /// A canvas whose top left corner is at (`left`, `top`) in Web Mercator metres, `scale` pixels a metre.
        init(width: Int, height: Int, left: Double, top: Double, scale: Double) {
            self.width = width; self.height = height
            pixels = [UInt8](repeating: 255, count: width * height * 4)
            originX = left; originY = top; self.scale = scale
        }

        func pixel(_ p: GeoPoint) -> (x: Double, y: Double) {
            pixel(mercator: WebMercator.projected(longitude: p.longitude, latitude: p.latitude))
        }

        func pixel(mercator m: (x: Double, y: Double)) -> (x: Double, y: Double) {
            ((m.x - originX) * scale, (originY - m.y) * scale)
        }

        /// A one-pixel line between two points in Web Mercator metres.
        mutating func line(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double), color: (UInt8, UInt8, UInt8)) {
            let p = pixel(mercator: a), q = pixel(mercator: b)
            let steps = max(abs(q.x - p.x), abs(q.y - p.y)).clampedInt(rounding: .up)
            guard steps < 4 * (width + height) else { return }
            for i in 0...max(steps, 0) {
                let t = steps == 0 ? 0 : Double(i) / Double(steps)
                set(Int(p.x + (q.x - p.x) * t), Int(p.y + (q.y - p.y) * t), color)
            }
        }

        mutating func set(_ x: Int, _ y: Int, _ color: (UInt8, UInt8, UInt8)) {
            guard x >= 0, y >= 0, x < width, y < height else { return }
            let i = (y * width + x) * 4
            pixels[i] = color.0; pixels[i + 1] = color.1; pixels[i + 2] = color.2; pixels[i + 3] = 255
        }

        /// Every pixel transparent: a picture to lay over a map.
        mutating func clear() { pixels = [UInt8](repeating: 0, count: width * height * 4) }

        mutating func fill(color: (UInt8, UInt8, UInt8)) {
            for y in 0..<height { for x in 0..<width { set(x, y, color) } }
        }

        /// Even–odd scanline fill of a polygon's rings, sampled at pixel centres.
        mutating func fill(_ rings: [[GeoPoint]], color: (UInt8, UInt8, UInt8)) {
            fill(pixelRings: rings.map { $0.map(pixel) }, color: color)
        }

        /// The same, for rings in Web Mercator metres.
        mutating func fill(mercatorRings rings: [[(x: Double, y: Double)]], color: (UInt8, UInt8, UInt8)) {
            fill(pixelRings: rings.map { $0.map { pixel(mercator: $0) } }, color: color)
        }

        private mutating func fill(pixelRings rings: [[(x: Double, y: Double)]], color: (UInt8, UInt8, UInt8)) {
            let edges = rings.flatMap { points -> [((x: Double, y: Double), (x: Double, y: Double))] in
                zip(points, points.dropFirst() + points.prefix(1)).map { ($0, $1) }
            }
            guard let top = edges.map({ min($0.0.y, $0.1.y) }).min(), let bottom = edges.map({ max($0.0.y, $0.1.y) }).max(),
                  bottom >= 0, top < Double(height) else { return }
            for row in max(0, Int(top))...min(height - 1, Int(bottom)) {
                let y = Double(row) + 0.5
                var crossings: [Double] = []
                for (a, b) in edges where (a.y <= y) != (b.y <= y) {
                    crossings.append(a.x + (y - a.y) / (b.y - a.y) * (b.x - a.x))
                }
                crossings.sort()
                var i = 0
                while i + 1 < crossings.count {
                    let from = (crossings[i] - 0.5).clampedInt(in: 0...width, rounding: .up), to = (crossings[i + 1] - 0.5).clampedInt(in: -1...width - 1, rounding: .down)
                    if from <= to { for x in from...to { set(x, row, color) } }
                    i += 2
                }
            }
        }

        /// A two-pixel rectangle outline around `extent`.
        mutating func outline(_ extent: GeoExtent, color: (UInt8, UInt8, UInt8)) {
            let a = pixel(GeoPoint(longitude: extent.xmin, latitude: extent.ymax))
            let b = pixel(GeoPoint(longitude: extent.xmax, latitude: extent.ymin))
            let x0 = Int(a.x), x1 = Int(b.x), y0 = Int(a.y), y1 = Int(b.y)
            for x in x0...max(x0, x1) { for t in 0..<2 { set(x, y0 + t, color); set(x, y1 - t, color) } }
            for y in y0...max(y0, y1) { for t in 0..<2 { set(x0 + t, y, color); set(x1 - t, y, color) } }
        }
    }
}
