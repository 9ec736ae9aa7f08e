import Foundation
import MapbookCore

/// A rectangle in WGS84 longitude/latitude degrees, as item `extent`s carry them.
public struct GeoExtent: Sendable, Equatable, Codable {
    /// Its outline as a closed path, from the top left, clockwise.
    public var ring: [GeoPoint] {
        [GeoPoint(longitude: xmin, latitude: ymax), GeoPoint(longitude: xmax, latitude: ymax), GeoPoint(longitude: xmax, latitude: ymin),
         GeoPoint(longitude: xmin, latitude: ymin), GeoPoint(longitude: xmin, latitude: ymax)]
    }

    public var xmin: Double, ymin: Double, xmax: Double, ymax: Double

    public init(xmin: Double, ymin: Double, xmax: Double, ymax: Double) {
        self.xmin = xmin; self.ymin = ymin; self.xmax = xmax; self.ymax = ymax
    }

    /// Whether the point lies in it, edges included (never true of an inverted extent).
    public func contains(_ point: GeoPoint) -> Bool {
        point.longitude >= xmin && point.longitude <= xmax && point.latitude >= ymin && point.latitude <= ymax
    }

    /// Whether `other` lies wholly inside.
    public func contains(_ other: GeoExtent) -> Bool {
        other.xmin >= xmin && other.xmax <= xmax && other.ymin >= ymin && other.ymax <= ymax
    }

    /// Whether the two share any point, edges included.
    public func intersects(_ other: GeoExtent) -> Bool {
        other.xmin <= xmax && other.xmax >= xmin && other.ymin <= ymax && other.ymax >= ymin
    }

    /// Its size in square degrees, for comparing extents.
    public var area: Double { max(xmax - xmin, 0) * max(ymax - ymin, 0) }

    /// The smallest extent holding both.
    public func union(_ other: GeoExtent) -> GeoExtent {
        GeoExtent(xmin: min(xmin, other.xmin), ymin: min(ymin, other.ymin),
                  xmax: max(xmax, other.xmax), ymax: max(ymax, other.ymax))
    }
}

extension GeoExtent {
    /// `-70.1234, 43.5000 — -69.8000, 43.9000 (lon, lat)`, for details and `mapbook info`.
    public var summary: String { String(format: "%.4f, %.4f — %.4f, %.4f (lon, lat)", xmin, ymin, xmax, ymax) }
}

extension Sequence<GeoExtent> {
    /// The smallest extent holding them all; nil when there are none.
    public var union: GeoExtent? {
        reduce(nil) { total, next in total?.union(next) ?? next }
    }
}

/// A spatial reference by well-known id. Web Mercator shows up as 102100 or 3857.
public struct SpatialReference: Sendable, Hashable, Codable {
    public var wkid: Int?
    public var latestWkid: Int?
    /// The system as well-known text, when the data gives it (custom systems have no code).
    public var wkt: String?

    public init(wkid: Int?, latestWkid: Int? = nil, wkt: String? = nil) {
        self.wkid = wkid; self.latestWkid = latestWkid; self.wkt = wkt
    }

    public static let wgs84 = SpatialReference(wkid: 4326)
    public static let webMercator = SpatialReference(wkid: 102100, latestWkid: 3857)

    /// The EPSG code in use (`latestWkid` first).
    public var code: Int? { latestWkid ?? wkid }

    public var isWebMercator: Bool { [102100, 102113, 3857, 900913].contains(code ?? 0) }
    public var isWGS84: Bool { code == 4326 }
}

/// An envelope in a named spatial reference (web map viewpoints and bookmarks).
public struct Envelope: Sendable, Equatable, Codable {
    public var xmin: Double, ymin: Double, xmax: Double, ymax: Double
    public var spatialReference: SpatialReference

    public init(xmin: Double, ymin: Double, xmax: Double, ymax: Double, spatialReference: SpatialReference) {
        self.xmin = xmin; self.ymin = ymin; self.xmax = xmax; self.ymax = ymax
        self.spatialReference = spatialReference
    }

    /// The envelope in longitude/latitude, when its spatial reference is one we can convert.
    public var geographic: GeoExtent? {
        if spatialReference.isWGS84 { return GeoExtent(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax) }
        if spatialReference.isWebMercator {
            let sw = WebMercator.geographic(x: xmin, y: ymin), ne = WebMercator.geographic(x: xmax, y: ymax)
            return GeoExtent(xmin: sw.longitude, ymin: sw.latitude, xmax: ne.longitude, ymax: ne.latitude)
        }
        // A projected zone: its four corners and edges' midpoints, since meridians converge.
        guard let project = spatialReference.geographicPoint, xmin <= xmax, ymin <= ymax else { return nil }
        let xs = [xmin, (xmin + xmax) / 2, xmax], ys = [ymin, (ymin + ymax) / 2, ymax]
        let points = xs.flatMap { x in ys.map { y in project(x, y) } }
        guard points.allSatisfy({ $0.longitude.isFinite && $0.latitude.isFinite && abs($0.latitude) <= 90 }) else { return nil }
        return GeoExtent(xmin: points.map(\.longitude).min()!, ymin: points.map(\.latitude).min()!,
                         xmax: points.map(\.longitude).max()!, ymax: points.map(\.latitude).max()!)
    }
}

/// Spherical Web Mercator (EPSG:3857) and the ArcGIS tiling scheme built on it.
public enum WebMercator {
    public static let earthRadius = 6_378_137.0
    /// Half the width of the world in metres: the tiling origin is (-originShift, +originShift).
    public static let originShift = Double.pi * earthRadius
    /// Web Mercator is undefined at the poles; latitudes are clamped to the square world.
    public static let maxLatitude = 85.0511287798066

    public static func projected(longitude: Double, latitude: Double) -> (x: Double, y: Double) {
        let lat = min(max(latitude, -maxLatitude), maxLatitude)
        let x = longitude * .pi / 180 * earthRadius
        let y = log(tan(.pi / 4 + lat * .pi / 360)) * earthRadius
        return (x, y)
    }

    public static func geographic(x: Double, y: Double) -> (longitude: Double, latitude: Double) {
        let lon = x / earthRadius * 180 / .pi
        let lat = (2 * atan(exp(y / earthRadius)) - .pi / 2) * 180 / .pi
        return (lon, lat)
    }

    /// Metres per pixel at `zoom` for tiles of `tileSize` pixels (256 raster, 512 vector).
    public static func resolution(zoom: Double, tileSize: Double = 256) -> Double {
        2 * originShift / tileSize / pow(2, zoom)
    }

    /// The tile (column, row) containing a projected point at an integer zoom, rows counted from the top.
    public static func tile(containingX x: Double, y: Double, zoom: Int) -> (column: Int, row: Int) {
        let n = Double(1 << zoom)
        let span = 2 * originShift
        let last = (1 << zoom) - 1
        return (((x + originShift) / span * n).clampedInt(in: 0...last, rounding: .down),
                ((originShift - y) / span * n).clampedInt(in: 0...last, rounding: .down))
    }
}

extension SpatialReference {
    /// `{wkid, latestWkid}` or `{wkt}`/`{wkt2}` as ArcGIS JSON carries it; nil when it names none.
    public init?(json: JSONValue?) {
        guard let json else { return nil }
        let wkid = json["wkid"]?.int(in: 1...Int(Int32.max)), latest = json["latestWkid"]?.int(in: 1...Int(Int32.max))
        let wkt = (json["wkt"]?.string ?? json["wkt2"]?.string).flatMap { $0.isEmpty ? nil : $0 }
        guard wkid != nil || latest != nil || wkt != nil else { return nil }
        self.init(wkid: wkid, latestWkid: latest, wkt: wkt)
    }
}

extension Envelope {
    /// `{xmin, ymin, xmax, ymax, spatialReference}`, corners put in order; `sr` when it names none.
    public init?(json: JSONValue?, default sr: SpatialReference) {
        guard let json, let xmin = json["xmin"]?.double, let ymin = json["ymin"]?.double,
              let xmax = json["xmax"]?.double, let ymax = json["ymax"]?.double else { return nil }
        self.init(xmin: min(xmin, xmax), ymin: min(ymin, ymax), xmax: max(xmin, xmax), ymax: max(ymin, ymax),
                  spatialReference: SpatialReference(json: json["spatialReference"]) ?? sr)
    }
}
