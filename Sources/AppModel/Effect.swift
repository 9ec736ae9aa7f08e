import UserFiles
import MapRender
import MapbookCore
import LibraryModel
import ArcGISModel
import Geometry

/// Work `update` asks for: values, performed by the runtime off the UI thread, whose results come
/// back as events. Nothing in the model performs them itself.
public enum Effect: Equatable, Sendable {
    /// Read what the library holds (→ `libraryRead`, then `thumbnails`).
    case readLibrary
    /// Connect if need be, fetch the web map and its areas, keep them in the library
    /// (→ `connected`, `webMapLoaded` or `webMapFailed`, `catalogNotKept`, `thumbnails`).
    case loadWebMap
    /// In a few seconds, say that the notice numbered so has been shown long enough.
    case expireNotice(Int)
    /// Stop what a request started: the model has forgotten it (`Requests.replaced`), so its
    /// answer must not come.
    case cancel(RequestID)
    /// Connect to the portal (the download queue and network monitor start) without loading a web map.
    case connectPortal
    /// Queue the area's download (→ `download`: its lifecycle and progress).
    case download(MapArea)
    case cancelDownload(ItemID)
    /// Delete what an interrupted download kept.
    case discardPartialDownload(ItemID)
    /// Stop the area's download if there is one, wait for it, then delete its files (→ `removed`
    /// or `removeFailed`).
    case removeDownload(ItemID, title: String)
    /// Stop every download, keeping its bytes to resume (the network went).
    case pauseDownloads
    /// What the web map's load learned about the network, for the monitor (believed at once).
    case reportNetwork(NetworkState)
    /// A download could not reach its server: the monitor probes now.
    case checkNetwork
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
    case rememberBasemap(Basemap?)
    /// Ask the geocoder for suggestions after a moment's pause in typing; a newer request replaces
    /// this one, even in flight (→ `placeSuggestions`). Offline (or when the geocoder fails) the
    /// names inside the downloaded packages and the bundled places answer instead.
    case suggestPlaces(String, request: RequestID, near: GeoPoint?, online: Bool)
    /// What is at `point`: the geocoder's address when `online`, else (or when it knows none) the
    /// nearest named place of the bundled gazetteer (→ `placeDescribed`).
    case describePlace(GeoPoint, request: RequestID, online: Bool)
    /// Download a portal's mobile map package onto this device (→ `packageProgress`, then `packageDownloaded`).
    case downloadPackage(ItemID, title: String)
    /// Delete a mobile map package from this device (→ `packageRemoved`).
    case removePackage(path: String, title: String)
    /// A page of web maps for a tab of the Maps card (→ `mapsLoaded`).
    case loadMaps(WebMapsRequest)
    /// The web maps' thumbnails: kept with their library, else from the portal (→ `thumbnails`).
    case loadMapThumbnails([MapListing])
    /// Sign in to the portal with a username and password (→ `signedIn` or `signInFailed`).
    case signIn(request: RequestID, username: String, password: String)
    /// Read the user's pins (→ `pinsLoaded`).
    case loadPins
    /// Keep a new pin, or a pin's new title, note and link (→ `pinsLoaded`, or `pinNotSaved`).
    case savePin(PinDraft)
    case deletePin(id: String)
    /// The places of these pins from the geocoder (→ `pinPlaces`), online only.
    case describePins([Pin])
    /// Hand an http(s) link to `$BROWSER` or `xdg-open` (→ `linkOpened`).
    case openLink(String)
    /// Put text on the terminal's clipboard (the front end's way: OSC 52 on the full screen).
    case copy(String)
    /// Find the place: a suggestion's by its key, else the text (→ `placesFound`).
    case findPlaces(String, magicKey: String?, request: RequestID, near: GeoPoint?, online: Bool)
    /// Ask the portal's route service for the route through `stops` in order, each name found
    /// first near the stop before it, by the travel mode of that name (nil: the service's default)
    /// (→ `routeFound`).
    case findRoute(request: RequestID, stops: [StopQuery], units: RouteUnits, mode: String?)
    /// The names of the portal's travel modes (→ `travelModes`).
    case loadTravelModes
    /// What an area of your own would weigh (→ `areaEstimated`).
    case estimateArea(request: RequestID, NewAreaOrder)
    /// Make it: the servers' jobs, then the download (→ `areaPreparing`…, `areaPrepared` or `areaNotMade`).
    case makeArea(NewAreaOrder)
    /// Follow again the exports an earlier run left under way (once the portal answers).
    case resumeAreaExports
}

/// Where a map's operational layers come from: a downloaded area's copies when it has them, else
/// the web map's layers (bottom first, groups opened), from their services while `online`.
public struct OperationalLayers: Equatable, Sendable {
    public var area: ItemID?
    public var layers: [WebMapLayer]
    public var online: Bool

    public init(area: ItemID? = nil, layers: [WebMapLayer], online: Bool) { self.area = area; self.layers = layers; self.online = online }
}

/// Where a map's tiles come from.
public enum MapSourceChoice: Equatable, Sendable {
    /// A downloaded area's package, offline.
    case package(area: ItemID, DownloadRecord.Package)
    /// A basemap's tile services, online.
    case basemap(Basemap)
    /// The source the runtime was started with (`mapbook open FILE`).
    case given
    /// The bundled world outline: what a web map's layers are drawn over when its basemap cannot be
    /// (another projection, a layer type mapbook does not draw).
    case outline
}
