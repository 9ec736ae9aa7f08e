import MapRender
import MapbookCore
import LibraryModel
import ArcGISModel
import UserFiles
import Geometry

/// What the status bar has to say: a value the model sets, worded once here for every front end
/// (the terminal's status bar, the plain mode's lines). Titles and sentences in it are sanitized.
public enum Notice: Equatable, Sendable {
    /// How long news stays in the status bar before the key hints come back.
    public static let fadesAfter = Duration.seconds(8)

    // The network and the portal
    case offline
    /// The network is there but the portal is not answering.
    case notAnswering(host: String)
    case backOnline
    case reloading
    case checkingPortal
    case notConnected
    case catalogNotKept(String)
    case listingAreas(known: Int, of: Int)
    // Downloads
    /// An area downloaded, or (`updated`) one already here brought up to date.
    case downloaded(title: String, size: Int64, updated: Bool = false)
    case downloadFailed(title: String, sentence: String)
    case cancelled(title: String)
    case downloadingCount(Int)
    case allDownloaded
    case upToDate(title: String)
    /// The same sentence `mapbook download` gives.
    case notDownloadable(title: String, NotDownloadableReason)
    /// A key for an area pressed on the web map's row: which area, to do what ("remove").
    case selectAnArea(to: String)
    case offlineDownloads
    case offlineUpdates
    case onlyDownloadedUpdates
    case noUpdate
    case noDownloadToCancel
    case notOnDevice(title: String)
    case removed(title: String)
    // The map
    case notOnDeviceForMap(title: String)
    /// The web map's basemap layer mapbook cannot draw (its title and type), or nil for none at all.
    case basemapNotDrawable(WebMapLayer?)
    /// The web map's basemap is in another projection than Web Mercator.
    case basemapProjection(SpatialReference)
    /// The list's new order (`o`), and the downloaded areas first or not (`O`).
    case ordered(AreaOrder)
    case downloadedFirst(Bool)
    /// A place found and shown, and the areas that hold it.
    case placeFound(String, areas: [String])
    /// A place shown on the map open now, and where it was found (a layer, a package, the gazetteer).
    case placeShown(String, from: String?)
    /// The map view's own news (its slice words it).
    case map(MapFeature.Notice)
    /// A failure worded elsewhere (an error's sentence), already sanitized.
    case problem(String)
    /// A sign-in from the browser succeeded.
    case signedIn(user: String, host: String)
    /// Each slice's own news, worded in the slice.
    case pins(PinsFeature.Notice)
    case directions(DirectionsFeature.Notice)
    case newArea(NewAreaFeature.Notice)
    case edits(EditsFeature.Notice)

    /// The sentence, naming the default keys.
    public var sentence: String { sentence(keys: KeyMap.bindings) }

    /// The sentence, naming the keys of `keys` (the config may have given actions other keys).
    public func sentence(keys: [KeyBinding]) -> String {
        func key(_ intent: Intent) -> String { KeyMap.key(for: intent, keys) ?? "its key" }
        return switch self {
        case .offline: "Offline — showing downloaded areas"
        case .notAnswering(let host): "\(host) is not answering — showing downloaded areas; trying again by itself"
        case .backOnline: "Back online"
        case .reloading: "Reloading…"
        case .checkingPortal: "Checking the portal…"
        case .notConnected: "Not connected to the portal yet."
        case .catalogNotKept(let why): "The list could not be kept for offline use: " + why
        case .listingAreas(let known, let total): "Listing the map areas: \(Format.grouped(known)) of \(Format.grouped(total)) checked…"
        case .downloaded(let title, let size, let updated): "\(title) \(updated ? "updated" : "downloaded") · \(Format.bytes(size)), verified"
        case .downloadFailed(let title, let sentence): "\(title): \(sentence)"
        case .cancelled(let title): "Cancelled the download of \(title)."
        case .downloadingCount(let count): "Downloading \(count) map area\(count == 1 ? "" : "s")…"
        case .allDownloaded: "Every area is downloaded and up to date."
        case .upToDate(let title): "\(title) is downloaded and up to date."
        case .notDownloadable(let title, let reason): LibraryError.notDownloadable(title: title, reason: reason).userMessage
        case .selectAnArea(let action): "Select a map area to \(action): this row is the web map."
        case .offlineDownloads: "Offline: downloads start when the network is back."
        case .offlineUpdates: "Offline: updates start when the network is back."
        case .onlyDownloadedUpdates: "Only a downloaded area can be updated."
        case .noUpdate: "No update available: the packages are the portal's latest."
        case .noDownloadToCancel: "No download to cancel."
        case .notOnDevice(let title): "\(title) is not on this device."
        case .removed(let title): "Removed \(title) from this device."
        case .notOnDeviceForMap(let title): "\(title) is not on this device: download it (d) to see its map offline."
        case .basemapNotDrawable(let layer):
            BasemapObstacle.notDrawable(layer).sentence + "; \(key(.map(.showBasemaps))) offers the portal's basemaps."
        case .basemapProjection(let reference):
            BasemapObstacle.projection(reference).sentence + "; \(key(.map(.showBasemaps))) offers the portal's basemaps."
        case .ordered(.portal): "Areas in the portal's order."
        case .ordered(.nearest(let place)): "Areas nearest to \(place.label) first."
        case .ordered(.name): "Areas by name."
        case .ordered(.size): "Areas by size, largest first."
        case .downloadedFirst(true): "Areas on this device first."
        case .downloadedFirst(false): "Areas on this device in their place."
        case .placeFound(let label, let areas) where areas.isEmpty: "\(label) — in no map area of this web map."
        case .placeFound(let label, let areas): "\(label) — in \(areas.joined(separator: ", "))"
        case .placeShown(let label, let from): "\(label)\(from.map { " — from \($0)" } ?? "")."
        case .map(let notice): notice.sentence(keys: keys)
        case .problem(let sentence): sentence
        case .signedIn(let user, let host): "Signed in to \(host) as \(user)."
        case .pins(let notice): notice.sentence(keys: keys)
        case .directions(let notice): notice.sentence(keys: keys)
        case .newArea(let notice): notice.sentence
        case .edits(let notice): notice.sentence
        }
    }
}

extension Notice {
    /// News (a pin kept, a download done, an order chosen) fades; what describes a state that lasts
    /// or a problem to act on (offline, a failure, progress) stays until something replaces it.
    /// The network's state, which the status bar's indicator and the list's caption already say:
    /// the bar keeps its key hints instead, for what still works.
    public var isNetworkState: Bool {
        switch self {
        case .offline, .notAnswering: true
        default: false
        }
    }

    /// Said of what the user just did, and worth reading after the reload it starts.
    public var outlivesReload: Bool {
        if case .signedIn = self { true } else { false }
    }

    public var fades: Bool {
        switch self {
        case .offline, .notAnswering, .reloading, .checkingPortal, .notConnected, .catalogNotKept, .listingAreas, .downloadFailed,
             .problem, .basemapNotDrawable, .basemapProjection:
            false
        case .map(let notice):
            notice.fades
        case .edits(let notice):
            notice.fades
        default:
            true
        }
    }
}
