import Foundation
import Geometry
import MapbookCore

/// Named places (the bundled Maine towns and world gazetteer, and the names in downloaded
/// packages) and the nearest of them to a point: "what's here" offline.
public struct Gazetteer: Sendable {
    public typealias Nearest = (place: PlaceName, meters: Double, direction: String)

    public let places: [PlaceName]

    public init(places: [PlaceName]) { self.places = places }

    /// The nearest place, how far it is (metres, on the sphere), and which way `point` lies from it
    /// in words ("north-west").
    public func nearest(to point: GeoPoint) -> Nearest? {
        // Each place's distance worked out once (34,000 of them with the world gazetteer).
        var nearest: (place: PlaceName, meters: Double)?
        for place in places {
            let meters = Geodesy.distance(point, place.point)
            if meters < nearest?.meters ?? .infinity { nearest = (place, meters) }
        }
        return nearest.map { ($0.place, $0.meters, Self.direction(of: point, from: $0.place.point)) }
    }

    /// Which way `point` lies from `place`, as one of eight compass directions in words.
    public static func direction(of point: GeoPoint, from place: GeoPoint) -> String {
        ["north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west"][
            Int((Geodesy.bearing(from: place, to: point) + 22.5) / 45) % 8]
    }

    /// The sentence for the nearest place, as people say it: "811 km west of Denver, Colorado,
    /// United States"; "In Bangor, …" within a kilometre.
    public static func sentence(_ nearest: Nearest) -> String {
        nearest.meters < 1_000 ? "In \(nearest.place.title)"
            : "\(Format.distance(nearest.meters)) \(nearest.direction) of \(nearest.place.title)"
    }
}
