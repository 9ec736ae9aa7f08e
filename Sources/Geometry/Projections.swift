import Foundation

/// A transverse Mercator zone (UTM, MTM, NZTM…) on the GRS 80 ellipsoid (WGS 84's differs by
/// less than a millimetre here): brings a web map's projected extent back to longitude and latitude.
/// Snyder, "Map Projections — A Working Manual" (USGS 1395), equations 8-18 to 8-25.
public struct TransverseMercator: Sendable, Equatable {
    public var centralMeridian: Double
    public var scale: Double
    public var falseEasting: Double
    public var falseNorthing: Double

    public init(centralMeridian: Double, scale: Double, falseEasting: Double, falseNorthing: Double) {
        self.centralMeridian = centralMeridian; self.scale = scale; self.falseEasting = falseEasting; self.falseNorthing = falseNorthing
    }

    private static let a = 6_378_137.0
    private static let e2 = { let f = 1 / 298.257_222_101; return f * (2 - f) }()

    /// The point at easting `x`, northing `y` (latitude of origin 0, as every zone here has).
    public func geographic(x: Double, y: Double) -> GeoPoint {
        let a = Self.a, e2 = Self.e2, ep2 = e2 / (1 - e2)
        let m = (y - falseNorthing) / scale
        let mu = m / (a * (1 - e2 / 4 - 3 * e2 * e2 / 64 - 5 * e2 * e2 * e2 / 256))
        let e1 = (1 - (1 - e2).squareRoot()) / (1 + (1 - e2).squareRoot())
        let phi1 = mu + (3 * e1 / 2 - 27 * pow(e1, 3) / 32) * sin(2 * mu) + (21 * e1 * e1 / 16 - 55 * pow(e1, 4) / 32) * sin(4 * mu)
            + 151 * pow(e1, 3) / 96 * sin(6 * mu) + 1097 * pow(e1, 4) / 512 * sin(8 * mu)
        let sinPhi = sin(phi1), cosPhi = cos(phi1), tanPhi = tan(phi1)
        let c1 = ep2 * cosPhi * cosPhi, t1 = tanPhi * tanPhi
        let n1 = a / (1 - e2 * sinPhi * sinPhi).squareRoot()
        let r1 = a * (1 - e2) / pow(1 - e2 * sinPhi * sinPhi, 1.5)
        let d = (x - falseEasting) / (n1 * scale)
        let latitude = phi1 - n1 * tanPhi / r1 * (d * d / 2 - (5 + 3 * t1 + 10 * c1 - 4 * c1 * c1 - 9 * ep2) * pow(d, 4) / 24
            + (61 + 90 * t1 + 298 * c1 + 45 * t1 * t1 - 252 * ep2 - 3 * c1 * c1) * pow(d, 6) / 720)
        let longitude = (d - (1 + 2 * t1 + c1) * pow(d, 3) / 6 + (5 - 2 * c1 + 28 * t1 - 3 * c1 * c1 + 8 * ep2 + 24 * t1 * t1) * pow(d, 5) / 120) / cosPhi
        return GeoPoint(longitude: centralMeridian + longitude * 180 / .pi, latitude: latitude * 180 / .pi)
    }
}

extension SpatialReference {
    /// Its transverse Mercator zone, for the families real web maps use: WGS 84, NAD83 and ETRS89
    /// UTM zones, NAD83 MTM zones (Québec, the Maritimes, Ontario) and New Zealand's NZTM.
    public var transverseMercator: TransverseMercator? {
        guard let code else { return nil }
        func utm(_ zone: Int, south: Bool = false) -> TransverseMercator {
            TransverseMercator(centralMeridian: Double(6 * zone - 183), scale: 0.9996, falseEasting: 500_000, falseNorthing: south ? 10_000_000 : 0)
        }
        switch code {
        case 32601...32660: return utm(code - 32600)
        case 32701...32760: return utm(code - 32700, south: true)
        case 26901...26923: return utm(code - 26900)
        case 25828...25838: return utm(code - 25800)
        case 32181...32190:
            let zone = code - 32180
            let meridian = zone == 1 ? -53 : zone == 2 ? -56 : -(58.5 + 3 * Double(zone - 3))
            return TransverseMercator(centralMeridian: meridian, scale: 0.9999, falseEasting: 304_800, falseNorthing: 0)
        case 2193: return TransverseMercator(centralMeridian: 173, scale: 0.9996, falseEasting: 1_600_000, falseNorthing: 10_000_000)
        default: return nil
        }
    }

    /// What people call it, for the sentences that say why a basemap is not drawn; nil when
    /// mapbook does not know the code.
    public var name: String? {
        guard let code else { return nil }
        switch code {
        case 4326: return "WGS 84"
        case 3857, 102100, 102113, 900913: return "Web Mercator"
        case 32601...32660: return "WGS 84 / UTM zone \(code - 32600)N"
        case 32701...32760: return "WGS 84 / UTM zone \(code - 32700)S"
        case 26901...26923: return "NAD83 / UTM zone \(code - 26900)N"
        case 25828...25838: return "ETRS89 / UTM zone \(code - 25800)N"
        case 32181...32190: return "NAD83 / MTM zone \(code - 32180)"
        case 2193: return "NZGD2000 / New Zealand Transverse Mercator 2000"
        case 27700: return "OSGB36 / British National Grid"
        case 2056: return "CH1903+ / LV95"
        case 28992: return "Amersfoort / RD New"
        case 3005: return "NAD83 / BC Albers"
        default: return nil
        }
    }

    /// Brings a point of this reference to longitude/latitude: WGS 84, Web Mercator and the
    /// transverse Mercator zones; nil for a system mapbook cannot project.
    public var geographicPoint: (@Sendable (_ x: Double, _ y: Double) -> GeoPoint)? {
        if isWGS84 { return { GeoPoint(longitude: $0, latitude: $1) } }
        if isWebMercator {
            return { let p = WebMercator.geographic(x: $0, y: $1); return GeoPoint(longitude: p.longitude, latitude: p.latitude) }
        }
        guard let zone = transverseMercator else { return nil }
        return { zone.geographic(x: $0, y: $1) }
    }

    /// "NAD83 / MTM zone 7 (wkid 32187)", or "wkid N" alone.
    public var summary: String {
        let wkid = code.map { "wkid \($0)" } ?? "an unnamed spatial reference"
        return name.map { "\($0) (\(wkid))" } ?? wkid
    }
}
