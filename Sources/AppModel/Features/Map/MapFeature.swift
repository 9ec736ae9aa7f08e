import MapRender
import MapbookCore
import ArcGISModel
import Geometry
import Location

/// A map open full screen and the overview: its source, its pictures, its operational layers, identify, the basemap chosen.
public enum MapFeature {
    /// What comes back from this feature's work (`Event.map`).
    public enum Action: Sendable {
        /// The map of `session` can be drawn: what its source says about itself.
        case mapOpened(session: Int, MapSourceSummary)
        case mapOpenFailed(session: Int, String)
        case mapDrawn(session: Int, MapImage)
        /// The operational layers of the map of `session` are open.
        case featureLayersOpened(session: Int, FeatureLayersSummary)
        /// What identify `id` found, topmost first.
        case identified(session: Int, id: Int, [IdentifyHit])
        /// The overview's basemap picture; nil when it could not be drawn (the outline stays).
        case overviewDrawn(MapImage?)
        /// The portal's basemap gallery, or why it could not be had.
        case basemapGallery(Result<[BasemapChoice], LoadFailure>)
        /// The basemap chosen for the web map could not be kept for the next start; one sentence.
        case basemapNotKept(String)        /// Where this device is now, as the location source says (at most five times a second).
        case location(LocationStatus)
        /// The track's file was started (→ its points are written), or a track could not be kept.
        case trackStarted(id: String)
        case trackNotKept(String)
    }

    /// The work this feature asks for (`Effect.map`), performed by its handler in the runtime.
    public enum Effect: Equatable, Sendable {
        /// Open a map source for `session` (→ `mapOpened` or `mapOpenFailed`).
        case openMap(session: Int, MapSourceChoice)
        /// Open the operational layers of the map of `session` (→ `featureLayersOpened`).
        case openFeatureLayers(session: Int, OperationalLayers)
        /// What lies under `point` in the map of `session` as drawn for `request` (→ `identified`).
        case identify(session: Int, point: GeoPoint, request: MapRequest, id: Int)
        /// Draw the map of `session` (→ `mapDrawn`); one drawing at a time per session.
        case drawMap(session: Int, MapRequest)
        /// The map of `session` is closed: its loader can go.
        case closeMap(session: Int)
        /// Draw the overview's picture from the first of `sources` that opens and draws (→
        /// `overviewDrawn`); one drawing at a time.
        case drawOverview(MapRequest, sources: [MapSourceChoice])
        /// Ask the portal for its basemap gallery (→ `basemapGallery`).
        case loadBasemapGallery
        /// Keep the basemap chosen for this web map in the library; nil goes back to the web map's own.
        case rememberBasemap(Basemap?)        /// Watch where this device is, from now until the program ends (→ `location`); asked once.
        case watchLocation(LocationSource)
        /// Start a track's file (→ `trackStarted` or `trackNotKept`); append points to it, flushed
        /// to the disk (→ `trackNotKept` when they cannot be); end it, removed when nothing was
        /// kept. Done in the order asked.
        case startTrack
        case appendToTrack([TrackPoint])
        case endTrack(keep: Bool)
    }
}

extension MapFeature.Effect {
    /// Where this device is and the track recorded from it: the location handler's work.
    public var isLocation: Bool {
        switch self {
        case .watchLocation, .startTrack, .appendToTrack, .endTrack: true
        default: false
        }
    }
}

extension App {
    /// `MapFeature`'s part of `update`.
    static func reduce(_ state: inout AppState, _ action: MapFeature.Action) -> [Effect] {
        switch action {
        case .mapOpened(let session, let summary):
            return mapOpened(&state, session: session, summary)
        case .mapOpenFailed(let session, let sentence):
            guard state.map?.session == session else { return [] }
            state.withMap { map in
                map.status = TerminalText.sanitizedLine(sentence, maxLength: 300)
                map.isOpening = false
                // The runtime drops the layers of a map that did not open.
                map.isOpeningLayers = false
            }
            return []
        case .mapDrawn(let session, let image):
            return mapDrawn(&state, session: session, image)
        case .featureLayersOpened(let session, let summary):
            return featureLayersOpened(&state, session: session, summary)
        case .identified(let session, let id, let hits):
            return identified(&state, session: session, id: id, hits)
        case .overviewDrawn(let image):
            return overviewDrawn(&state, image)
        case .basemapGallery(let result):
            return basemapGalleryArrived(&state, result)
        case .basemapNotKept(let sentence):
            state.notice = .problem(sentence)
            return []
        case .location(let status):
            return locationChanged(&state, status)
        case .trackStarted(let id):
            return trackStarted(&state, id: id)
        case .trackNotKept(let sentence):
            state.places.recording = nil
            state.notice = .problem(TerminalText.sanitizedLine(sentence, maxLength: 300))
            return []
        }
    }
}
