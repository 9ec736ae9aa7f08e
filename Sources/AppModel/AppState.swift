import Foundation
import MapRender
import MapbookCore
import LibraryModel
import TerminalCanvas
import TileFormats
import ArcGISModel
import Geometry
import UserFiles
import Location

/// How far loading the web map has come.
public enum LoadPhase: Equatable, Sendable {
    /// Before the portal can be asked (e.g. the sample portal is still starting), with what is happening.
    case starting(String)
    case loading
    case loaded
    /// No network: the portal's name does not resolve, or nothing answered in time.
    case unreachable(host: String)
    /// The network is there but the portal is not answering: refused, reset, closed early, stalled
    /// (one sentence saying which).
    case notAnswering(host: String, String)
    /// The portal answered, with an error (one sentence for the user).
    case failed(String)
}

/// Which screen is showing, with the state that only that screen has: an invalid combination (a
/// map screen without a map, a details scroll on the main screen) cannot be built.
public enum Screen: Equatable, Sendable {
    /// The overview beside the list.
    case main
    /// The selected row's details, scrolled this far.
    case details(scroll: Int)
    /// A map, full screen.
    case map(MapViewState)

    public var kind: Kind {
        switch self {
        case .main: .main
        case .details: .details
        case .map: .map
        }
    }

    public enum Kind: Equatable, Sendable { case main, details, map }
}

/// What sits over the screen and takes the keys first; at most one at a time.
/// What has the keys: a card over the screen, or a list or card over the map; nil for the screen
/// itself (`ListState.focus` says which part of it). A message from before it opened is not its to show.
public enum CardFocus: Equatable, Sendable {
    case help, confirm, filter, search, pinForm, signIn, newArea, maps, featureForm
    case mapPanel(MapPanel), identify, whatsHere, ruler, directions, goTo
}

public enum Overlay: Equatable, Sendable {
    /// The key map, scrolled this far.
    case help(scroll: Int)
    /// A destructive action waiting for y/n.
    case confirm(Confirmation)
    /// Typing into the list's filter.
    case filter
    /// Searching for a place: the line typed and the geocoder's suggestions.
    case search(PlaceSearch)
    /// A pin's title, note and link being typed.
    case pinForm(PinForm)
    /// A username and password being typed.
    case signIn(SignInForm)
    /// A map area of your own: its name, level of detail and estimate.
    case newArea(AreaForm)
    /// A feature's values being typed, for a new point or a feature identified.
    case featureForm(FeatureEditor)
    /// Web maps to open: recent, your content, your groups'.
    case maps(WebMapsBrowser)
}

public enum Focus: Equatable, Sendable {
    case list, overview
}

/// A row of the list: the web map itself on top, then its areas (index into `AppState.areas`).
public enum ListRow: Hashable, Sendable {
    case webMap
    case area(Int)
}

/// The terminal the state is shown on: its size in cells and what it can draw. Enters the state as
/// an event (`Event.resized`), at start and whenever it changes.
public struct Display: Equatable, Sendable {
    public var width: Int
    public var height: Int
    /// Colours are drawn (not `NO_COLOR`, and the terminal has them).
    public var colors: Bool
    /// Braille and box drawing can be shown (a UTF-8 locale, not `--ascii`).
    public var unicode: Bool
    /// The light theme is chosen: the terminal's background is light.
    public var lightTheme: Bool

    public init(width: Int, height: Int, colors: Bool = true, unicode: Bool = true, lightTheme: Bool = false) {
        self.width = max(width, 0); self.height = max(height, 0); self.colors = colors; self.unicode = unicode
        self.lightTheme = lightTheme
    }
}

/// A cell of the terminal, for the mouse.
public struct CellPoint: Equatable, Sendable {
    public var x: Int, y: Int
    public init(x: Int, y: Int) { self.x = x; self.y = y }
}

/// What is on this device, and what is moving toward it.
extension LibraryState {
    /// "3 edits not synced", for an area that has edits waiting; nil otherwise.
    public func editsWaiting(in area: ItemID?) -> String? {
        guard let area, let count = unsyncedEdits[area], count > 0 else { return nil }
        return "\(count) edit\(count == 1 ? "" : "s") not synced"
    }
}

public struct LibraryState: Equatable, Sendable {
    /// What is on this device has been read (once, at the start): until then the list shows only
    /// what the portal said, and the first frame waits a moment for it.
    public var isRead = false
    /// Areas on this device (verified downloads with their files in place), by area id.
    public var downloads: [ItemID: DownloadRecord] = [:]
    /// Bytes of interrupted downloads kept on disk, by area id.
    public var partialBytes: [ItemID: Int64] = [:]
    /// Edits saved offline and not yet synced, by area id: never silent, every row that has some says so.
    public var unsyncedEdits: [ItemID: Int] = [:]
    /// Areas whose edits are being synced now.
    public var syncing: Set<ItemID> = []
    /// Edits being opened in the editor or saved, not yet answered.
    public var editsUnderWay = 0
    /// What each area's last sync this session did, kept until the next (the details show it).
    public var lastSync: [ItemID: SyncSummary] = [:]
    /// Downloads asked for in this session and not finished, by area id.
    public var transfers: [ItemID: Transfer] = [:]
    /// Areas of your own the servers are preparing, with how far they are ("Preparing on the server 40 %").
    public var preparing: [ItemID: String] = [:]
    /// Areas being removed (asked for, not yet done).
    public var removing: Set<ItemID> = []
    /// Downloads that an earlier run left part way resume once the portal answers (the
    /// `resume-downloads` setting).
    public var resumesInterrupted = true
    /// They have been resumed this session (once is enough: what fails after that waits for `r`).
    public var hasResumedInterrupted = false

    public init() {}
}

/// The overview pane: the web map's basemap drawn for it, when it could be (online); the bundled
/// outline is drawn otherwise.
public struct OverviewState: Equatable, Sendable {
    public var basemap: MapImage?
    /// What the picture was drawn from (the sources tried, in order).
    public var drawnFrom: [MapSourceChoice] = []
    /// The sources a drawing under way tries (one drawing at a time).
    public var drawing: [MapSourceChoice]?

    public var isDrawing: Bool { drawing != nil }

    public init() {}
}

/// The areas list beside the overview.
public struct AreaListState: Equatable, Sendable {
    /// How it orders the areas (`o`), and whether the downloaded ones come first (`O`).
    public var order: AreaOrder = .portal
    public var downloadedFirst = false
    public var filterText = ""
    /// Whether the list or the overview has the keys.
    public var focus: Focus = .list
    /// Index into `AppState.rows`.
    public var selection = 0
    /// The first row on screen.
    public var top = 0

    public init() {}
}

/// The basemaps a web map can be drawn on.
public struct BasemapsState: Equatable, Sendable {
    /// The basemap chosen for this web map with `B` (remembered in the library); nil: the web map's own.
    public var chosen: Basemap?
    /// The portal's basemap gallery, asked for the first time `B` is pressed online.
    public var gallery: BasemapGallery = .notAsked

    public init() {}
}

/// What the user set in the config, as the browser applies it.
public struct Preferences: Equatable, Sendable {
    /// The keys, with those the config gives to other actions (`KeyMap.bindings(overriding:)`).
    public var keyBindings = KeyMap.bindings
    /// How distances are said (`units` in the config, else the locale's).
    public var units: DistanceUnits = .forLocale()
    /// How maps are drawn when they open (the `graphics` setting; `c` changes an open map's).
    public var mapMode: MapMode = .braille
    /// Edits sync by themselves once the portal answers (`sync = auto`, the default).
    public var syncsEditsByItself = true
    /// Where the position comes from (`LocationSource.chosen`), and whether it is watched from the
    /// start (the config or GPSD_HOST named it) or from the first `f`.
    public var location: LocationSource = .gpsd(GPSDAddress("127.0.0.1")!)
    public var watchesLocationAtStart = false

    public init() {}
}

extension Preferences {
    /// The location source from the config and the environment, by the rule `mapbook where` uses
    /// (`LocationSource.chosen`); watched from the start when either names one. A GPSD_HOST that
    /// is not an address is said (the sentence returned) and the default gpsd is used.
    public mutating func takeLocation(from settings: Settings, environment: [String: String]) -> String? {
        do throws(LocationSourceError) {
            location = try LocationSource.chosen(environment: environment, gpsd: settings.gpsd, location: settings.location)
            watchesLocationAtStart = settings.gpsd != nil || settings.location != nil || environment["GPSD_HOST"]?.isEmpty == false
            return nil
        } catch {
            return error.sentence
        }
    }
}

/// The portal this browser talks to: its host, whether it is connected and reachable, and who
/// signed in to it.
public struct PortalSession: Equatable, Sendable {
    public var host: String
    public var network: NetworkState = .unknown
    public var lastSynced: Date?
    /// The portal client is ready: downloads can be queued.
    public var isConnected = false
    /// The state shown while connecting: `.loading`, or what connecting involves.
    public var connectingPhase: LoadPhase
    /// The portal asked for a sign-in (its answer to the web map, or an expired one): `S` offers it.
    public var signInWanted = false
    /// Who signed in from the browser this session.
    public var signedInAs: String?
    /// The list came from the fleet mirror, the portal not answering: the network is up, the
    /// portal is not, and the status bar says which.
    public var listedFromMirror = false
    /// A sign-in from the browser is kept for the next start (the demo's portal changes address
    /// each run, so it keeps none): the form says which.
    public var keepsSignIn = true

    /// The portal as the header names it: with who is signed in, once someone is.
    public var headerName: String { signedInAs.map { "\($0) · \(host)" } ?? host }

    public init(host: String, connectingPhase: LoadPhase) { self.host = host; self.connectingPhase = connectingPhase }
}

/// The web map this browser shows, its areas, and how loading them goes.
public struct CatalogState: Equatable, Sendable {
    public var webMapID: ItemID
    public var webMapItem: PortalItem?
    public var webMap: WebMap?
    public var areas: [MapArea] = []
    public var thumbnails: [ItemID: RasterImage] = [:]
    public var phase: LoadPhase
    /// False when the browser started on a portal with no web map named or opened there before:
    /// nothing is loaded (the portal is only connected) until one is chosen on the Maps card.
    public var hasWebMap = true
    /// A view remembered from the last run, restored once the list is in (`restore`).
    public var viewToRestore: RememberedView?
    /// The Maps card opens over the web map at the start (nothing was ever opened): on this tab.
    public var startsOnMaps: WebMapsTab?

    public init(webMapID: ItemID, phase: LoadPhase) { self.webMapID = webMapID; self.phase = phase }
}

/// The terminal as the model knows it.
public struct TerminalState: Equatable, Sendable {
    /// nil until the front end says how big the terminal is.
    public var display: Display?
    /// Where a drag on the map last was, while the button is held.
    public var dragPoint: CellPoint?

    public init() {}
}

/// How this program ends, and what takes over once it has.
public struct Handoff: Equatable, Sendable {
    public var isQuitting = false
    /// The web map chosen in the Maps card: a program of its own takes over once this one has quit.
    public var nextWebMap: ItemID?
    /// A mobile map package on this device chosen in the Maps card: opened once this program ends.
    public var nextPackage: String?
    /// A one-map program's map was left with Back (not quit): a browser it was opened from shows
    /// again, on the card it was opened from.
    public var leftStandaloneMap = false

    public init() {}
}

/// The places the browser measures from: those searched for, and where this device is.
public struct Places: Equatable, Sendable {
    /// The places searched for, the latest first (a few): what "nearest" measures from, and where
    /// directions start when no other place is typed.
    public var recent: [MapPin] = []
    /// Where this device is (gpsd's fix, or the config's position); nil until it is watched (from
    /// the start when the config or GPSD_HOST names a source, else from the first `f`).
    public var here: LocationStatus?
    /// The track being recorded (`T` on a map), if one is.
    public var recording: TrackRecording?

    public init() {}
}

/// A track being recorded in the browser: which fixes it keeps (`TrackRecorder`, the rule
/// `mapbook tracks record` keeps too), its file's id once started, and the points to draw. The
/// handler writes its file in the order asked (start, points, end), so the points need no id.
public struct TrackRecording: Equatable, Sendable {
    /// The file's id, for the sentence that ends it; nil until the handler has started it.
    public var id: String?
    public var recorder = TrackRecorder()
    /// What the map draws: every point kept, thinned to every other one past `mostDrawn`.
    public var drawn: [GeoPoint] = []
    public static let mostDrawn = 20_000

    public init() {}
}

/// The user's pins (any portal), as last read, and their places.
public struct PinsState: Equatable, Sendable {
    public var all: [Pin] = []
    /// Pins' places, reverse-geocoded this session, by pin id.
    public var places: [String: String] = [:]

    public init() {}
}

/// Everything the screen shows, and everything `update` decides by: a value, changed only by
/// `update(_:_:)`. Every string in it that came from the network has been sanitized (see
/// `DisplayText`).
public struct AppState: Equatable, Sendable {
    /// The portal: host, connection, network, sign-in.
    public var portal: PortalSession
    /// The web map, its areas, and how loading them goes.
    public var catalog: CatalogState
    /// The areas on this device and the downloads under way.
    public var library = LibraryState()
    /// The overview pane's picture.
    public var overview = OverviewState()
    /// The areas list: its order, filter, selection and scroll, and whether it has the keys.
    public var list = AreaListState()
    /// The places searched for, and where this device is.
    public var places = Places()
    /// The directions asked for this session, and the one shown.
    public var directions = Directions()
    /// The requests under way (routes, estimates, searches, what's here, sign-in), by id.
    public var requests = Requests()
    /// The basemap chosen with `B`, and the portal's gallery to choose from.
    public var basemaps = BasemapsState()
    /// What the user set: keys, units, how maps are drawn.
    public var preferences = Preferences()

    public var screen: Screen = .main
    public var overlay: Overlay?
    /// The user's pins and their places.
    public var pins = PinsState()
    /// One line for the status bar.
    public var notice: Notice?
    /// The terminal's size and abilities, and a drag under way.
    public var terminal = TerminalState()
    /// Whether this program is ending, and what takes over when it has.
    public var handoff = Handoff()

    /// At most this many stored properties: a new feature's state goes in its own slice, not
    /// here (`AppStateShapeTests`).
    public static let storedPropertyLimit = 16

    public init(portalHost: String, webMapID: ItemID, phase: LoadPhase = .loading) {
        portal = PortalSession(host: portalHost, connectingPhase: phase)
        catalog = CatalogState(webMapID: webMapID, phase: phase)
    }

    /// What the first frame shows is in: the library read, or nothing to read (a map opened from
    /// a file, which has no library).
    public var isReadyToShow: Bool { library.isRead || map?.isStandalone == true }

    /// Nothing asked for is still on its way that a next command could depend on: the web map is
    /// in (or failed, or none is named), the portal connected or found unreachable (a web map kept
    /// in the library shows before that), no map is opening, no page of the Maps card is being
    /// asked for, no removal or sync is under way, no request is pending (`requests`). A question waiting
    /// for its answer is settled. Front ends that take commands from a script (the plain mode) run
    /// the next one only then.
    public var isSettled: Bool {
        let failed = switch catalog.phase {
        case .failed, .unreachable, .notAnswering: true
        case .loading, .starting, .loaded: false
        }
        let portalSettled = portal.isConnected || portal.network != .unknown || failed || map?.isStandalone == true
        let webMapSettled = switch catalog.phase {
        case .loading: false
        case .starting: !catalog.hasWebMap
        case .loaded, .failed, .unreachable, .notAnswering: true
        }
        let mapsSettled = if case .maps(let maps)? = overlay { maps.pending.isEmpty } else { true }
        // A map opened is settled once its first picture is in, and its operational layers are open.
        let mapSettled = map.map { !$0.isOpening && !$0.isOpeningLayers && ($0.image != nil || !$0.isOpen) } ?? true
        return webMapSettled && portalSettled && mapsSettled && mapSettled && requests.isEmpty && library.removing.isEmpty && library.syncing.isEmpty
            && library.editsUnderWay == 0 && handoff.nextWebMap == nil
            && handoff.nextPackage == nil
    }

    /// Settled, and no picture is being drawn (the map's, the overview's): the screen will not
    /// change until something new happens. The full screen's ready signal says so to tests.
    public var isIdle: Bool { isSettled && map?.isDrawing != true && !overview.isDrawing }

    /// The list as shown: everything, or what matches the filter, best match first.
    public var rows: [ListRow] {
        guard catalog.webMapItem != nil else { return [] }
        // Offline, only what is on this device (or on its way) is listed.
        let shown = ordered(portal.network.isCutOff ? catalog.areas.indices.filter(isOnDeviceOrOnItsWay) : Array(catalog.areas.indices))
        let all = [ListRow.webMap] + shown.map(ListRow.area)
        let query = list.filterText.trimmingCharacters(in: .whitespaces)
        guard !query.isEmpty else { return all }
        return all.enumerated()
            .compactMap { offset, row in FuzzyMatch.match(query, in: title(of: row)).map { (row, $0.score, offset) } }
            .sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.2 < $1.2 }
            .map(\.0)
    }

    /// The areas in the order chosen with `o` (a stable sort: ties keep the portal's order), the
    /// downloaded ones first with `O`.
    private func ordered(_ indices: [Int]) -> [Int] {
        let key: (Int) -> Double? = switch list.order {
        case .portal: { _ in nil }
        case .nearest(let place): { catalog.areas[$0].distance(from: place.point) }
        case .name: { _ in nil }
        case .size: { -Double(catalog.areas[$0].size) }
        }
        let sorted = indices.enumerated().sorted { a, b in
            if list.downloadedFirst {
                let da = library.downloads[catalog.areas[a.element].item.id] != nil, db = library.downloads[catalog.areas[b.element].item.id] != nil
                if da != db { return da }
            }
            if case .name = list.order {
                let order = catalog.areas[a.element].item.title.localizedStandardCompare(catalog.areas[b.element].item.title)
                if order != .orderedSame { return order == .orderedAscending }
            } else if let ka = key(a.element), let kb = key(b.element), ka != kb {
                return ka < kb
            }
            return a.offset < b.offset
        }
        return sorted.map(\.element)
    }

    /// Where the web map is, for the overview: its item's extent, else its initial view.
    public var webMapExtent: GeoExtent? { catalog.webMapItem?.extent ?? catalog.webMap?.initialExtent?.geographic }

    public var selectedRow: ListRow? {
        let rows = rows
        return rows.indices.contains(list.selection) ? rows[list.selection] : nil
    }

    /// The selected map area's index in `areas`, if an area (not the web map) is selected.
    public var selectedAreaIndex: Int? {
        if case .area(let index)? = selectedRow { return index }
        return nil
    }

    public func item(of row: ListRow) -> PortalItem? {
        switch row {
        case .webMap: catalog.webMapItem
        case .area(let index): catalog.areas.indices.contains(index) ? catalog.areas[index].item : nil
        }
    }

    public func title(of row: ListRow) -> String {
        item(of: row).map { $0.title.isEmpty ? "Untitled" : $0.title } ?? ""
    }

    /// The title of an area by id, for sentences (the web map's own, for what is edited online).
    public func title(of id: ItemID) -> String {
        if id == catalog.webMapItem?.id, let item = catalog.webMapItem { return item.title.isEmpty ? "Untitled" : item.title }
        return catalog.areas.first { $0.item.id == id }.map { $0.item.title.isEmpty ? "Untitled" : $0.item.title } ?? id.rawValue
    }

    /// Whose edits the open map shows and takes: its area's, or for the web map's own map (online)
    /// the web map's, kept under its id.
    public var editsOfOpenMap: ItemID? {
        guard let map, !map.isStandalone else { return nil }
        return map.operational?.area ?? map.area ?? catalog.webMapItem?.id
    }

    /// Offsets of the characters of the row's title that the filter matched, for highlighting.
    public func filterMatches(in row: ListRow) -> [Int] {
        let query = list.filterText.trimmingCharacters(in: .whitespaces)
        guard !query.isEmpty else { return [] }
        return FuzzyMatch.match(query, in: title(of: row))?.positions ?? []
    }

    /// Loaded, but the web map has no map areas.
    public var hasNoAreas: Bool { catalog.phase == .loaded && catalog.areas.isEmpty }

    /// The open map, if the map screen shows.
    public var map: MapViewState? {
        if case .map(let map) = screen { return map }
        return nil
    }

    /// Changes the open map in place, when there is one: the one way the update writes to it.
    @discardableResult
    public mutating func withMap<Result>(_ change: (inout MapViewState) -> Result) -> Result? {
        guard case .map(var map) = screen else { return nil }
        let result = change(&map)
        screen = .map(map)
        return result
    }

    /// Typing into the filter.
    public var isEditingFilter: Bool { overlay == .filter }

    /// Where things go on this terminal; nil before its size is known.
    public var layout: ScreenLayout? { terminal.display.map(ScreenLayout.init) }

    /// The status bar's sentence, if there is one.
    public var message: String? { notice?.sentence(keys: preferences.keyBindings) }

    /// What has the keys now (see `CardFocus`).
    public var cardFocus: CardFocus? {
        switch overlay {
        case .help?: return .help
        case .confirm?: return .confirm
        case .filter?: return .filter
        case .search?: return .search
        case .pinForm?: return .pinForm
        case .featureForm?: return .featureForm
        case .signIn?: return .signIn
        case .newArea?: return .newArea
        case .maps?: return .maps
        case nil: break
        }
        switch map?.card {
        case .list(let panel, _)?: return .mapPanel(panel)
        case .identify?: return .identify
        case .whatsHere?: return .whatsHere
        case .ruler?: return .ruler
        case .directions?: return .directions
        case .goTo?: return .goTo
        case nil: return nil
        }
    }

    /// The key the user presses for `intent`, as text for a sentence ("r to retry").
    /// The place searched for last.
    public var lastPlace: MapPin? { places.recent.first }

    public func key(_ intent: Intent) -> String { KeyMap.key(for: intent, preferences.keyBindings) ?? "its key" }
}

/// How the list orders the map areas.
public enum AreaOrder: Equatable, Sendable {
    /// As the portal lists them.
    case portal
    /// Nearest to a place first (the last one searched for).
    case nearest(MapPin)
    case name
    /// Largest first.
    case size
}

extension MapArea {
    /// Metres from `point` to the nearest edge of the area's extent (0 inside); nil without an extent.
    public func distance(from point: GeoPoint) -> Double? {
        guard let e = extent else { return nil }
        let inside = GeoPoint(longitude: min(max(point.longitude, e.xmin), e.xmax), latitude: min(max(point.latitude, e.ymin), e.ymax))
        return Geodesy.distance(point, inside)
    }
}
