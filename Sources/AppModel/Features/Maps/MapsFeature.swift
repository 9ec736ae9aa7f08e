import ArcGISModel
import MapbookCore

/// The Maps card: pages of web maps on its tabs, and their thumbnails.
public enum MapsFeature {
    /// What comes back from this feature's work (`Event.maps`).
    public enum Action: Sendable {
        /// A page asked for by the Maps card: its web maps, or why they could not be had.
        case mapsLoaded(WebMapsRequest, Result<WebMapsPage, LoadFailure>)
    }

    /// The work this feature asks for (`Effect.maps`), performed by its handler in the runtime.
    public enum Effect: Equatable, Sendable {
        /// A page of web maps for a tab of the Maps card (→ `mapsLoaded`).
        case loadMaps(WebMapsRequest)
        /// The web maps' thumbnails: kept with their library, else from the portal (→ `thumbnails`).
        case loadMapThumbnails([MapListing])
    }
}

extension App {
    /// `MapsFeature`'s part of `update`.
    static func reduce(_ state: inout AppState, _ action: MapsFeature.Action) -> [Effect] {
        switch action {
        case .mapsLoaded(let request, let result):
            return mapsLoaded(&state, request, result)
        }
    }
}

/// `M`, the Maps card, to open another web map. Typed in the plain mode: a tab, a search for web
/// maps, the web map in a row of the card (from 0).
public enum MapsIntent: Hashable, Sendable {
    case show
    case showTab(WebMapsTab)
    case search(String)
    case choose(Int)
}
