import Foundation
import MapbookCore

/// Distances and bearings on the Earth, taken as a sphere of its mean radius (haversine): within
/// 0.5 % of the ellipsoid's geodesic anywhere, which is what a terminal map can show. One place for
/// the ruler, the gazetteer's "12 km to the NE" and "areas nearest first".
public enum Geodesy {
    /// The Earth's mean radius (IUGG), metres.
    public static let earthRadius = 6_371_008.8

    /// The great-circle distance between two points, in metres.
    public static func distance(_ a: GeoPoint, _ b: GeoPoint) -> Double {
        let radians = Double.pi / 180
        let dLat = (b.latitude - a.latitude) * radians, dLon = (b.longitude - a.longitude) * radians
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(a.latitude * radians) * cos(b.latitude * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * earthRadius * asin(min(1, h.squareRoot()))
    }

    /// The length of a path through `points`, in metres.
    public static func length(_ points: [GeoPoint]) -> Double {
        zip(points, points.dropFirst()).reduce(0) { $0 + distance($1.0, $1.1) }
    }

    /// The initial bearing from `a` to `b`, degrees clockwise from north, 0 ..< 360.
    public static func bearing(from a: GeoPoint, to b: GeoPoint) -> Double {
        let radians = Double.pi / 180
        let y = sin((b.longitude - a.longitude) * radians) * cos(b.latitude * radians)
        let x = cos(a.latitude * radians) * sin(b.latitude * radians)
            - sin(a.latitude * radians) * cos(b.latitude * radians) * cos((b.longitude - a.longitude) * radians)
        return (atan2(y, x) / radians + 360).truncatingRemainder(dividingBy: 360)
    }

    /// The point `meters` from `start` along the initial `bearing` (degrees from north): an
    /// accuracy circle's edge, a "go to" distance checked.
    public static func destination(from start: GeoPoint, bearing: Double, meters: Double) -> GeoPoint {
        let radians = Double.pi / 180
        let angle = meters / earthRadius, theta = bearing * radians, phi = start.latitude * radians
        let latitude = asin(sin(phi) * cos(angle) + cos(phi) * sin(angle) * cos(theta))
        let longitude = start.longitude * radians + atan2(sin(theta) * sin(angle) * cos(phi), cos(angle) - sin(phi) * sin(latitude))
        let wrapped = (longitude / radians + 540).truncatingRemainder(dividingBy: 360) - 180
        return GeoPoint(longitude: wrapped, latitude: latitude / radians)
    }

    /// A bearing as one of eight compass points.
    public static func compassPoint(_ bearing: Double) -> String {
        ["N", "NE", "E", "SE", "S", "SW", "W", "NW"][Int((bearing + 22.5) / 45) % 8]
    }
}

extension GeoExtent {
    /// `W,S,E,N` in degrees, as `--extent` and `--bbox` take a box; nil unless exactly four numbers
    /// on the globe, west below east and south below north.
    public init?(parsing text: String) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 4, let west = parts[0], let south = parts[1], let east = parts[2], let north = parts[3],
              [west, south, east, north].allSatisfy(\.isFinite), west < east, south < north,
              abs(west) <= 180, abs(east) <= 180, abs(south) <= 90, abs(north) <= 90 else { return nil }
        self.init(xmin: west, ymin: south, xmax: east, ymax: north)
    }

    /// The box as the commands read it back: `W,S,E,N` (`-70.12345,43.5,-69.1,44.2` to `places`).
    public func written(places: Int = 5) -> String {
        [xmin, ymin, xmax, ymax].map { String(format: "%.*f", places, $0) }.joined(separator: ",")
    }
}

extension GeoPoint {
    /// `LON,LAT` as people write a point (`-68.2,44.35`); nil unless both are numbers on the globe.
    public init?(parsing text: String) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let longitude = parts[0], let latitude = parts[1], longitude.isFinite, latitude.isFinite,
              abs(longitude) <= 180, abs(latitude) <= 90 else { return nil }
        self.init(longitude: longitude, latitude: latitude)
    }

    /// The point as the commands read it back: `LON,LAT` (`-68.20000,44.35000`), so a printed point
    /// pasted into an option lands where it was.
    public func written(places: Int = 5) -> String {
        String(format: "%.*f,%.*f", places, longitude, places, latitude)
    }

    /// The point for people: `44.3512°N 68.2210°W`, latitude first with its hemisphere, as maps say it.
    public func degrees(places: Int = 4) -> String {
        String(format: "%.*f°%@ %.*f°%@", places, abs(latitude), latitude >= 0 ? "N" : "S", places, abs(longitude), longitude >= 0 ? "E" : "W")
    }

    /// The sentence for `what` (an option's name or "The point") that is not `LON,LAT`; when it
    /// reads as a point latitude first, it says so and gives the pair the right way round.
    public static func notAPoint(_ text: String, what: String) -> String {
        let sentence = "\(what) must be longitude,latitude, such as -68.2,44.35."
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let swapped = GeoPoint(parsing: "\(parts[1]),\(parts[0])") else { return sentence }
        // Both halves are numbers (they read as a point): only printable ASCII is kept, for the terminal.
        let shown = String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F }.map(Character.init))
        return sentence + " \(shown) reads latitude first: \(swapped.written(places: 4)) is that point."
    }
}

/// How distances are said: `metric` (m, km) or `imperial` (ft, mi).
public enum DistanceUnits: String, CaseIterable, Sendable {
    case metric, imperial

    /// What the locale measures in: imperial for the United States (and Liberia, Myanmar), else metric.
    public static func forLocale(_ locale: Locale = .current) -> DistanceUnits {
        ["US", "LR", "MM"].contains(locale.region?.identifier ?? "") ? .imperial : .metric
    }

    /// `850 m`, `12.4 km`, `240 km`; `900 ft`, `3.2 mi`, `150 mi`.
    public func format(_ meters: Double) -> String {
        switch self {
        case .metric:
            return Format.distance(meters)
        case .imperial:
            let feet = meters / 0.3048, miles = meters / 1609.344
            if miles < 0.2 { return "\(feet.clampedInt(in: 0...1_056)) ft" }
            return miles < 100 ? String(format: "%.1f mi", miles) : "\(miles.clampedInt(in: 0...Format.largestShown)) mi"
        }
    }
}
