import Foundation

/// Named places (the bundled Maine places and world cities) and the nearest of them to a point,
/// with its distance and compass direction: "what's here" offline.
public struct Gazetteer: Sendable {
    public let places: [PlaceName]

    public init(places: [PlaceName]) { self.places = places }

    /// The nearest place, how far it is (metres, on the sphere) and which way from `point`.
    public func nearest(to point: GeoPoint) -> (place: PlaceName, meters: Double, direction: String)? {
        guard let place = places.min(by: { Self.meters($0.point, point) < Self.meters($1.point, point) }) else { return nil }
        return (place, Self.meters(point, place.point), Self.direction(from: point, to: place.point))
    }

    /// Great-circle distance (haversine, on a sphere of the Earth's mean radius).
    public static func meters(_ a: GeoPoint, _ b: GeoPoint) -> Double {
        let radians = Double.pi / 180
        let dLat = (b.latitude - a.latitude) * radians, dLon = (b.longitude - a.longitude) * radians
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(a.latitude * radians) * cos(b.latitude * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * 6_371_008.8 * asin(min(1, h.squareRoot()))
    }

    /// The initial bearing from `a` to `b` as one of eight compass points.
    public static func direction(from a: GeoPoint, to b: GeoPoint) -> String {
        let radians = Double.pi / 180
        let y = sin((b.longitude - a.longitude) * radians) * cos(b.latitude * radians)
        let x = cos(a.latitude * radians) * sin(b.latitude * radians)
            - sin(a.latitude * radians) * cos(b.latitude * radians) * cos((b.longitude - a.longitude) * radians)
        let degrees = (atan2(y, x) / radians + 360).truncatingRemainder(dividingBy: 360)
        return ["N", "NE", "E", "SE", "S", "SW", "W", "NW"][Int((degrees + 22.5) / 45) % 8]
    }
}
