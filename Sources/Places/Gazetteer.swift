import Foundation
import Geometry

/// Named places (the bundled Maine places and world cities) and the nearest of them to a point,
/// with its distance and compass direction: "what's here" offline.
public struct Gazetteer: Sendable {
    public let places: [PlaceName]

    public init(places: [PlaceName]) { self.places = places }

    /// The nearest place, how far it is (metres, on the sphere) and which way from `point`.
    public func nearest(to point: GeoPoint) -> (place: PlaceName, meters: Double, direction: String)? {
        guard let place = places.min(by: { Geodesy.distance($0.point, point) < Geodesy.distance($1.point, point) }) else { return nil }
        return (place, Geodesy.distance(point, place.point), Self.direction(from: point, to: place.point))
    }

    /// The initial bearing from `a` to `b` as one of eight compass points.
    public static func direction(from a: GeoPoint, to b: GeoPoint) -> String {
        Geodesy.compassPoint(Geodesy.bearing(from: a, to: b))
    }
}
