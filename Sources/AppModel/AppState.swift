import Foundation
import MapRender
import MapSources
import MapbookCore
import OfflineLibrary
import TileFormats

/// How far loading the web map has come.
public enum LoadPhase: Equatable, Sendable {
    /// Before the portal can be asked (e.g. the sample portal is still starting), with what is happening.
    case starting(String)
    case loading
    case loaded
    /// The portal could not be reached at all: no network, DNS, refused, timed out.
    case unreachable(host: String)
    /// The portal answered, with an error (one sentence for the user).
    case failed(String)
}

public enum NetworkState: Equatable, Sendable {
    case unknown, online, offline
}

public enum Screen: Equatable, Sendable {
    case main, details, map
}

public enum Focus: Equatable, Sendable {
    case list, overview
}

/// A row of the list: the web map itself on top, then its areas (index into `AppState.areas`).
public enum ListRow: Hashable, Sendable {
    case webMap
    case area(Int)
}

/// What the screen's layout allows, reported by the UI after each layout, so paging and scrolling
/// know their limits.
public struct LayoutMetrics: Equatable, Sendable {
    /// List rows that fit in the list pane.
    public var listCapacity: Int
    /// Lines of the details or help document that fit on screen, and how far it can scroll.
    public var documentPage: Int
    public var documentMaxScroll: Int
    /// The map view's drawing area in cells, and what the terminal can show there.
    public var mapColumns: Int
    public var mapRows: Int
    public var mapColors: Bool
    public var mapUnicode: Bool
    /// The main screen's overview map (its pane below the caption bar), in cells.
    public var overviewColumns: Int
    public var overviewRows: Int

    public init(listCapacity: Int = 1, documentPage: Int = 1, documentMaxScroll: Int = 0, mapColumns: Int = 0, mapRows: Int = 0,
                mapColors: Bool = true, mapUnicode: Bool = true, overviewColumns: Int = 0, overviewRows: Int = 0) {
        self.listCapacity = listCapacity; self.documentPage = documentPage; self.documentMaxScroll = documentMaxScroll
        self.mapColumns = mapColumns; self.mapRows = mapRows; self.mapColors = mapColors; self.mapUnicode = mapUnicode
        self.overviewColumns = overviewColumns; self.overviewRows = overviewRows
    }
}

/// Everything the screen shows. A value: `render(state, size)` is a pure function of it. Every string
/// in it that came from the network has been sanitized (see `DisplayText`).
public struct AppState: Sendable {
    public var portalHost: String
    public var webMapID: ItemID
    public var webMapItem: PortalItem?
    public var webMap: WebMap?
    public var areas: [MapArea] = []
    public var thumbnails: [ItemID: RasterImage] = [:]
    public var phase: LoadPhase
    public var network: NetworkState = .unknown
    public var lastSynced: Date?
    /// Areas on this device (verified downloads), by area id.
    public var downloads: [ItemID: DownloadRecord] = [:]
    /// Downloads asked for in this session and not finished, by area id.
    public var transfers: [ItemID: Transfer] = [:]
    /// A destructive action waiting for y/n.
    public var confirmation: Confirmation?
    /// The map view, while it is open.
    public var map: MapViewState?
    /// The web map's basemap drawn for the overview pane, when it could be (online); the bundled
    /// outline is drawn otherwise.
    public var overviewBasemap: MapImage?

    public var screen: Screen = .main
    public var showingHelp = false
    public var focus: Focus = .list
    /// Index into `rows`.
    public var selection = 0
    /// The first list row on screen.
    public var listTop = 0
    public var filterText = ""
    public var isEditingFilter = false
    /// First line shown of the details or help document.
    public var documentScroll = 0
    /// A one-line message for the status bar.
    public var message: String?
    public var isQuitting = false
    public var layout = LayoutMetrics()

    public init(portalHost: String, webMapID: ItemID, phase: LoadPhase = .loading) {
        self.portalHost = portalHost; self.webMapID = webMapID; self.phase = phase
    }

    /// The list as shown: everything, or what matches the filter, best match first.
    public var rows: [ListRow] {
        guard webMapItem != nil else { return [] }
        // Offline, only what is on this device can be opened.
        let shown = network == .offline ? areas.indices.filter(isDownloaded) : Array(areas.indices)
        let all = [ListRow.webMap] + shown.map(ListRow.area)
        let query = filterText.trimmingCharacters(in: .whitespaces)
        guard !query.isEmpty else { return all }
        return all.enumerated()
            .compactMap { offset, row in FuzzyMatch.match(query, in: title(of: row)).map { (row, $0.score, offset) } }
            .sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.2 < $1.2 }
            .map(\.0)
    }

    /// Where the web map is, for the overview: its item's extent, else its initial view.
    public var webMapExtent: GeoExtent? { webMapItem?.extent ?? webMap?.initialExtent?.geographic }

    public var selectedRow: ListRow? {
        let rows = rows
        return rows.indices.contains(selection) ? rows[selection] : nil
    }

    /// The selected map area's index in `areas`, if an area (not the web map) is selected.
    public var selectedAreaIndex: Int? {
        if case .area(let index)? = selectedRow { return index }
        return nil
    }

    public func item(of row: ListRow) -> PortalItem? {
        switch row {
        case .webMap: webMapItem
        case .area(let index): areas.indices.contains(index) ? areas[index].item : nil
        }
    }

    public func title(of row: ListRow) -> String {
        item(of: row).map { $0.title.isEmpty ? "Untitled" : $0.title } ?? ""
    }

    /// Offsets of the characters of the row's title that the filter matched, for highlighting.
    public func filterMatches(in row: ListRow) -> [Int] {
        let query = filterText.trimmingCharacters(in: .whitespaces)
        guard !query.isEmpty else { return [] }
        return FuzzyMatch.match(query, in: title(of: row))?.positions ?? []
    }

    /// Loaded, but the web map has no map areas.
    public var hasNoAreas: Bool { phase == .loaded && areas.isEmpty }
}
