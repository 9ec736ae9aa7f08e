import Foundation
import MapbookCore
import Geometry

/// A geocode service a portal offers (`portals/self` → `helperServices.geocode[]`).
public struct GeocodeService: Sendable, Equatable {
    public var url: URL
    public var name: String?
    /// Whether it answers `suggest` (as-you-type suggestions).
    public var suggests: Bool

    public init(url: URL, name: String? = nil, suggests: Bool = true) { self.url = url; self.name = name; self.suggests = suggests }
}

/// A suggestion as the user types: its text, and the key that finds it exactly.
public struct GeocodeSuggestion: Sendable, Equatable {
    public var text: String
    public var magicKey: String?
    /// A category ("Coffee shop") rather than one place.
    public var isCollection: Bool

    public init(text: String, magicKey: String?, isCollection: Bool = false) {
        self.text = text; self.magicKey = magicKey; self.isCollection = isCollection
    }
}

/// A place found: its label, where it is (WGS84), how sure the geocoder is, and how much to show.
public struct GeocodeCandidate: Sendable, Equatable {
    public var label: String
    public var location: GeoPoint
    public var score: Double
    public var extent: GeoExtent?
    /// The kind of place (`City`, `County`, `POI`, `StreetAddress`, …) when the geocoder says.
    public var type: String?
    /// A feature of the map open now, found by its display field: shown there, not on another map.
    public var isOnOpenMap: Bool

    public init(label: String, location: GeoPoint, score: Double, extent: GeoExtent?, type: String?, isOnOpenMap: Bool = false) {
        self.label = label; self.location = location; self.score = score; self.extent = extent; self.type = type
        self.isOnOpenMap = isOnOpenMap
    }
}

/// What is at a point: its address, and the point the address belongs to.
public struct ReverseGeocodeResult: Sendable, Equatable {
    public var label: String
    public var city: String?
    public var region: String?
    public var location: GeoPoint?

    public init(label: String, city: String?, region: String?, location: GeoPoint?) {
        self.label = label; self.city = city; self.region = region; self.location = location
    }
}

/// The geocoder's answer was unusable, or the request was: one sentence.
public struct GeocodeError: UserFacingError, Equatable {
    public let userMessage: String
    public init(_ message: String) { userMessage = message }
}
