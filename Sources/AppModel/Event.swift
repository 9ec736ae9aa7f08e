import Foundation
import UserFiles
import MapRender
import MapbookCore
import LibraryModel
import TileFormats
import ArcGISModel
import Geometry

/// Everything that can change the state: input, and the results of effects coming back. `update`
/// handles every case.
public enum Event: Sendable {
    /// The front end is up: read the library, connect, load.
    case started
    case key(Key)
    case mouse(MouseEvent)
    /// An intent from a front end that has no keys (the plain mode's commands).
    case intent(Intent)
    /// The terminal's size or abilities, at start and whenever they change.
    case resized(Display)
    /// SIGINT, SIGTERM, SIGHUP, or the terminal went away.
    case interrupted
    /// The notice numbered so has been shown long enough (`Effect.expireNotice`).
    case noticeExpired(Int)

    /// What the library on disk holds (read at start, before any network answer).
    case libraryRead(LibrarySnapshot)
    /// The library could not be read; one sentence.
    case libraryUnreadable(String)
    /// The basemap chosen for the web map could not be kept for the next start; one sentence.
    case basemapNotKept(String)
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

    /// A download's lifecycle (queued, started, finished, failed, cancelled, paused).
    case download(DownloadEvent)
    /// An area's files are gone from this device.
    case removed(ItemID)
    case removeFailed(ItemID, String)
    case network(NetworkState)

    /// The map of `session` can be drawn: what its source says about itself.
    case mapOpened(session: Int, MapSourceSummary)
    case mapOpenFailed(session: Int, String)
    case mapDrawn(session: Int, MapImage)
    /// A page asked for by the Maps card: its web maps, or why they could not be had.
    case mapsLoaded(WebMapsRequest, Result<WebMapsPage, LoadFailure>)
    case packageProgress(ItemID, DownloadProgress)
    case packageDownloaded(ItemID, title: String, Result<PackageListing, LoadFailure>)
    /// A package was deleted from this device, or why it could not be.
    case packageRemoved(title: String, Result<Void, LoadFailure>)
    /// Signed in from the browser, as this user; or why not.
    case signedIn(request: RequestID, username: String)
    case signInFailed(request: RequestID, String)
    /// The user's pins as now kept; a sentence when the file could not be read (kept aside).
    case pinsLoaded([Pin], problem: String?)
    case pinNotSaved(String)
    /// Pins' places, by pin id.
    case pinPlaces([String: String])
    /// The browser was started for a link, or why not.
    case linkOpened(problem: String?)
    /// The operational layers of the map of `session` are open.
    case featureLayersOpened(session: Int, FeatureLayersSummary)
    /// What identify `id` found, topmost first.
    case identified(session: Int, id: Int, [IdentifyHit])
    /// The overview's basemap picture; nil when it could not be drawn (the outline stays).
    case overviewDrawn(MapImage?)
    /// The portal's basemap gallery, or why it could not be had.
    case basemapGallery(Result<[BasemapChoice], LoadFailure>)
    /// The geocoder's suggestions for the search line's request `request`.
    /// `offline` when they come from the names on this device, not the geocoder.
    case placeSuggestions(request: RequestID, Result<[GeocodeSuggestion], LoadFailure>, offline: Bool)
    /// What is at the point of `w`'s request `request`.
    case placeDescribed(request: RequestID, PlaceDescription)
    /// The places found for the search's request `request`, best first.
    case placesFound(request: RequestID, Result<[GeocodeCandidate], LoadFailure>)
    /// The route for directions request `request`, or why there is none.
    case routeFound(request: RequestID, Result<Route, RouteFailure>)
    /// The names of the portal's travel modes, or why they could not be had.
    case travelModes(Result<[String], LoadFailure>)
    /// The estimate for new-area request `request`.
    case areaEstimated(request: RequestID, AreaEstimate)
    /// The servers are preparing an area of your own: the area (without packages yet) and how far.
    case areaPreparing(MapArea, label: String)
    /// Every job has its package: the area to download.
    case areaPrepared(MapArea)
    /// It could not be made (the area's id once it had one), one sentence.
    case areaNotMade(ItemID?, sentence: String)
}

/// The library as read from disk.
public struct LibrarySnapshot: Sendable {
    public var catalog: LibraryCatalog?
    /// Downloaded areas with their files in place.
    public var downloads: [ItemID: DownloadRecord]
    /// Bytes of interrupted downloads, by area.
    public var partialBytes: [ItemID: Int64]

    /// The basemap chosen for this web map (`B`), if one was.
    public var chosenBasemap: Basemap?

    public init(catalog: LibraryCatalog?, downloads: [ItemID: DownloadRecord], partialBytes: [ItemID: Int64],
                chosenBasemap: Basemap? = nil) {
        self.catalog = catalog; self.downloads = downloads; self.partialBytes = partialBytes; self.chosenBasemap = chosenBasemap
    }
}

/// The portal's answer about the web map, with the library re-read after it.
public struct WebMapSnapshot: Sendable {
    public var catalog: LibraryCatalog
    public var library: LibrarySnapshot
    public var host: String
    /// Read from the fleet mirror: the portal could not be reached.
    public var fromMirror: Bool

    public init(catalog: LibraryCatalog, library: LibrarySnapshot, host: String, fromMirror: Bool = false) {
        self.catalog = catalog; self.library = library; self.host = host; self.fromMirror = fromMirror
    }
}

/// Why the web map could not be loaded: one sentence, and what it says about the network —
/// `.offline`, `.portalNotAnswering`, or `.online` when the portal answered with an error.
public struct LoadFailure: Error, Equatable, Sendable {
    public var sentence: String
    public var network: NetworkState
    public var host: String
    /// The portal wants a (new) sign-in to answer.
    public var needsSignIn: Bool

    public init(sentence: String, network: NetworkState, host: String, needsSignIn: Bool = false) {
        self.sentence = sentence; self.network = network; self.host = host; self.needsSignIn = needsSignIn
    }
}

/// What a map's operational layers are: the names of those drawn, bottom first (as the runtime's
/// loaders name them), those the web map hides at first, each one's legend, the layers only listed
/// ("Roads (KML) · not drawn"), and what went wrong.
public struct FeatureLayersSummary: Equatable, Sendable {
    public var titles: [String]
    public var hidden: [String]
    public var legend: [String: [LegendEntry]]
    public var listedOnly: [String]
    public var problems: [String]

    public init(titles: [String], hidden: [String] = [], legend: [String: [LegendEntry]] = [:], listedOnly: [String] = [],
                problems: [String] = []) {
        self.titles = titles; self.hidden = hidden; self.legend = legend; self.listedOnly = listedOnly; self.problems = problems
    }
}

/// What an opened map source says about itself.
public struct MapSourceSummary: Equatable, Sendable {
    /// The source's layer names as the package spells them (the model shows them sanitized).
    public var layerNames: [String]
    public var extent: GeoExtent?
    /// What will not draw (a package's style, a basemap layer mapbook cannot draw), a sentence each.
    public var problems: [String]
    /// Each layer's legend, by the name in `layerNames`.
    public var legend: [String: [LegendEntry]]

    public init(layerNames: [String], extent: GeoExtent?, problems: [String] = [], legend: [String: [LegendEntry]] = [:]) {
        self.layerNames = layerNames; self.extent = extent; self.problems = problems; self.legend = legend
    }
}

/// A key press, as the terminal backend reports it.
public enum Key: Hashable, Sendable {
    case character(Character)
    case up, down, left, right
    case pageUp, pageDown, home, end
    case enter, escape, tab, backTab, backspace
}

/// What the mouse did, at a cell.
public enum MouseEvent: Equatable, Sendable {
    case press(CellPoint)
    /// Moved with the button held.
    case drag(CellPoint)
    case release(CellPoint)
    /// One notch of the wheel: negative up, positive down.
    case wheel(rows: Int, at: CellPoint)
}
