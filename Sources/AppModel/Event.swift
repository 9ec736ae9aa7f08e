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
    /// What the terminal reports: keys, the mouse, its size, its going away.
    case terminal(TerminalEvent)
    /// An intent from a front end that has no keys (the plain mode's commands).
    case intent(Intent)
    /// The notice numbered so has been shown long enough (`Effect.expireNotice`).
    case noticeExpired(Int)

    // Each feature's results, one case per slice (Features/): `update` hands each to its
    // feature's `reduce`.
    case catalog(CatalogFeature.Action)
    case downloads(DownloadsFeature.Action)
    case map(MapFeature.Action)
    case maps(MapsFeature.Action)
    case packages(PackagesFeature.Action)
    case signIn(SignInFeature.Action)
    case pins(PinsFeature.Action)
    case search(SearchFeature.Action)
    case directions(DirectionsFeature.Action)
    case newArea(NewAreaFeature.Action)
    case edits(EditsFeature.Action)
}

/// What the terminal reports.
public enum TerminalEvent: Sendable {
    case key(Key)
    case mouse(MouseEvent)
    /// The terminal's size or abilities, at start and whenever they change.
    case resized(Display)
    /// SIGINT, SIGTERM, SIGHUP, or the terminal went away.
    case interrupted
    /// The terminal's pictures were asked for and cannot be used: the sentence why (maps are drawn in characters).
    case picturesUnavailable(String)
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
    /// Edits saved offline and not yet synced, by area (areas without any left out).
    public var unsyncedEdits: [ItemID: Int]

    public init(catalog: LibraryCatalog?, downloads: [ItemID: DownloadRecord], partialBytes: [ItemID: Int64],
                chosenBasemap: Basemap? = nil, unsyncedEdits: [ItemID: Int] = [:]) {
        self.catalog = catalog; self.downloads = downloads; self.partialBytes = partialBytes; self.chosenBasemap = chosenBasemap
        self.unsyncedEdits = unsyncedEdits
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
