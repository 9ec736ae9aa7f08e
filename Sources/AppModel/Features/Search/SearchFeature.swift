import ArcGISModel
import MapbookCore
import Geometry

/// Finding places: suggestions while typing, the places found, what is here.
public enum SearchFeature {
    /// What comes back from this feature's work (`Event.search`).
    public enum Action: Sendable {
        /// The geocoder's suggestions for the search line's request `request`.
        /// `offline` when they come from the names on this device, not the geocoder.
        case placeSuggestions(request: RequestID, Result<[GeocodeSuggestion], LoadFailure>, offline: Bool)
        /// What is at the point of `w`'s request `request`.
        case placeDescribed(request: RequestID, PlaceDescription)
        /// The places found for the search's request `request`, best first.
        case placesFound(request: RequestID, Result<[GeocodeCandidate], LoadFailure>)
    }

    /// The work this feature asks for (`Effect.search`), performed by its handler in the runtime.
    public enum Effect: Equatable, Sendable {
        /// Ask the geocoder for suggestions after a moment's pause in typing; a newer request replaces
        /// this one, even in flight (→ `placeSuggestions`). Offline (or when the geocoder fails) the
        /// names inside the downloaded packages and the bundled places answer instead.
        case suggestPlaces(String, request: RequestID, near: GeoPoint?, online: Bool)
        /// What is at `point`: the geocoder's address when `online`, else (or when it knows none) the
        /// nearest named place of the bundled gazetteer (→ `placeDescribed`).
        case describePlace(GeoPoint, request: RequestID, online: Bool)
        /// Find the place: a suggestion's by its key, else the text (→ `placesFound`).
        case findPlaces(String, magicKey: String?, request: RequestID, near: GeoPoint?, online: Bool)
    }
}

extension App {
    /// `SearchFeature`'s part of `update`.
    static func reduce(_ state: inout AppState, _ action: SearchFeature.Action) -> [Effect] {
        switch action {
        case .placeSuggestions(let request, let result, let offline):
            return suggestionsArrived(&state, request: request, result, offline: offline)
        case .placeDescribed(let request, let description):
            return placeDescribed(&state, request: request, description)
        case .placesFound(let request, let result):
            return placesFound(&state, request: request, result)
        }
    }
}
