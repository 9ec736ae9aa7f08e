import MapbookCore
import LibraryModel
import ArcGISModel
import TileFormats

/// The web map and its areas: the library read at start, the portal connected, the catalogue loaded, the network watched.
public enum CatalogFeature {
    /// What comes back from this feature's work (`Event.catalog`).
    public enum Action: Sendable {
        /// What the library on disk holds (read at start, before any network answer).
        case libraryRead(LibrarySnapshot)
        /// The library could not be read; one sentence.
        case libraryUnreadable(String)
        /// The portal client is ready (the sample portal may take a moment to start).
        case connected(host: String)
        /// The portal answered: the web map, its areas, and the library as it now is.
        case webMapLoaded(WebMapSnapshot)
        /// A long listing of areas so far (thousands of areas): all listed, the packages of `known` of
        /// them looked up; the others `packagesPending`.
        case webMapListing(LibraryCatalog, known: Int)
        case webMapFailed(LoadFailure)
        /// The catalogue could not be kept for offline use; one sentence.
        case catalogNotKept(String)
        /// Thumbnails decoded and shrunk for the list.
        case thumbnails([ItemID: RasterImage])
        case network(NetworkState)
    }

    /// The work this feature asks for (`Effect.catalog`), performed by its handler in the runtime.
    public enum Effect: Equatable, Sendable {
        /// Read what the library holds (→ `libraryRead`, then `thumbnails`).
        case readLibrary
        /// Connect if need be, fetch the web map and its areas, keep them in the library
        /// (→ `connected`, `webMapLoaded` or `webMapFailed`, `catalogNotKept`, `thumbnails`).
        case loadWebMap
        /// Connect to the portal (the download queue and network monitor start) without loading a web map.
        case connectPortal
        /// What the web map's load learned about the network, for the monitor (believed at once).
        case reportNetwork(NetworkState)
        /// A download could not reach its server: the monitor probes now.
        case checkNetwork
    }
}

extension App {
    /// `CatalogFeature`'s part of `update`.
    static func reduce(_ state: inout AppState, _ action: CatalogFeature.Action) -> [Effect] {
        switch action {
        case .libraryRead(let library):
            state.library.isRead = true
            state.library.downloads = library.downloads
            state.library.partialBytes = library.partialBytes
            state.library.unsyncedEdits = library.unsyncedEdits
            state.basemaps.chosen = library.chosenBasemap.map(DisplayText.basemap)
            // What the portal said this session is newer than what the library kept.
            guard state.portal.network != .online || state.catalog.webMapItem == nil, let catalog = library.catalog else { return [] }
            state.portal.lastSynced = catalog.syncedAt
            return apply(&state, item: catalog.webMapItem, webMap: catalog.webMap, areas: catalog.areas)
        case .libraryUnreadable(let sentence):
            state.notice = .problem(sentence)
            return []
        case .connected(let host):
            state.portal.host = host
            state.portal.isConnected = true
            if state.catalog.webMapItem == nil, state.catalog.hasWebMap { state.catalog.phase = .loading }
            return mapsConnected(&state)
        case .webMapLoaded(let loaded):
            return webMapLoaded(&state, loaded)
        case .webMapListing(let catalog, let known):
            state.notice = .listingAreas(known: known, of: catalog.areas.count)
            // A list kept in the library is complete: better than one still filling in.
            guard state.catalog.webMapItem == nil else { return [] }
            return apply(&state, item: catalog.webMapItem, webMap: catalog.webMap,
                         areas: LibraryCatalog.adding(state.library.downloads, to: catalog.areas), notice: state.notice, complete: false)
        case .webMapFailed(let failure):
            return webMapFailed(&state, failure)
        case .catalogNotKept(let why):
            state.notice = .catalogNotKept(why)
            return []
        case .thumbnails(let images):
            state.catalog.thumbnails.merge(images) { _, new in new }
            return []
        case .network(let status):
            return networkChanged(&state, status)
        }
    }
}
