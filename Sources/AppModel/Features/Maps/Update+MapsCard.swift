import Foundation
import MapbookCore
import ArcGISModel

/// A web map offered by the Maps card.
public struct MapListing: Equatable, Sendable {
    public var id: ItemID
    public var title: String
    public var owner: String?
    public var modified: Date?
    /// Set up for offline use (its `Offline` type keyword); nil when unknown (a recent one).
    public var offline: Bool?
    /// The folder of your content, or the group, it was found in.
    public var folder: String?
    /// The item's thumbnail name (`thumbnail/….png`), when the portal gave one.
    public var thumbnail: String?
    /// Its areas downloaded to this device.
    public var downloadedAreas = 0
    /// For the Packages tab: the mobile map package, on this device or the portal.
    public var package: PackageListing?

    public init(id: ItemID, title: String, owner: String? = nil, modified: Date? = nil, offline: Bool? = nil, folder: String? = nil,
                thumbnail: String? = nil, downloadedAreas: Int = 0, package: PackageListing? = nil) {
        self.id = id; self.title = title; self.owner = owner; self.modified = modified; self.offline = offline; self.folder = folder
        self.thumbnail = thumbnail; self.downloadedAreas = downloadedAreas; self.package = package
    }

    /// What a row says after the title: where it was found, its owner, when it changed, whether it
    /// is set up for offline use, and how many of its areas are on this device.
    public var facts: [String] { factColumns.compactMap { $0 } }

    /// The facts in their places, the same for every row of a tab (nil where a row has none), so a
    /// card can line them up in columns.
    public var factColumns: [String?] {
        if let package { return package.factColumns(owner: owner, created: modified) }
        let here = downloadedAreas > 0 ? "\(downloadedAreas) area\(downloadedAreas == 1 ? "" : "s") here" : nil
        return [folder, owner, modified.map { Format.date($0) }, offline == true ? "Offline" : nil, here]
    }
}

/// Where the Maps card's web maps come from.
public enum WebMapsTab: Int, CaseIterable, Sendable {
    case recent, mine, groups, search, packages

    public var title: String {
        switch self {
        case .recent: "Recent"
        case .mine: "My content"
        case .groups: "Groups"
        case .search: "Search"
        case .packages: "Packages"
        }
    }

    /// Read from this device first (the Packages tab adds the portal's when it can).
    var isOnDevice: Bool { self == .recent || self == .packages }
}

/// A page of a tab asked for: the first (`cursor` nil, or a search's words) or the next.
public struct WebMapsRequest: Equatable, Sendable {
    public var tab: WebMapsTab
    public var cursor: WebMapCursor?
    /// The page adds to the list (else it replaces it).
    public var appends: Bool

    public init(tab: WebMapsTab, cursor: WebMapCursor? = nil, appends: Bool = false) {
        self.tab = tab; self.cursor = cursor; self.appends = appends
    }
}

/// A page of web maps, and where the next starts (nil: none left).
public struct WebMapsPage: Equatable, Sendable {
    public var listings: [MapListing]
    public var next: WebMapCursor?

    /// Said under the list instead of its count: why part of it could not be had.
    public var note: String?

    public init(_ listings: [MapListing], next: WebMapCursor? = nil, note: String? = nil) {
        self.listings = listings; self.next = next; self.note = note
    }
}

/// `M`: web maps to open, by tab: each tab's list (nil until its first page arrives), where its
/// next page starts, the page it waits for, why it could not be had, and the row chosen.
public struct WebMapsBrowser: Equatable, Sendable {
    public var tab: WebMapsTab = .recent
    public var lists: [WebMapsTab: [MapListing]] = [:]
    public var problems: [WebMapsTab: String] = [:]
    public var more: [WebMapsTab: WebMapCursor] = [:]
    public var pending: [WebMapsTab: WebMapsRequest] = [:]
    public var selection = 0
    /// The Search tab's words, and whether keys type into them.
    public var query = ""
    public var isTypingQuery = false
    /// The package whose download Enter started: it opens when it arrives.
    public var opensWhenDownloaded: ItemID?

    public init(tab: WebMapsTab = .recent) { self.tab = tab }

    public var rows: [MapListing] { lists[tab] ?? [] }
    public var isAsking: Bool { pending[tab] != nil }

    /// The line under the list: why the tab has nothing, that more is being asked for, or how many.
    public func status(unicode: Bool) -> String {
        let ellipsis = unicode ? "…" : "..."
        if let problem = problems[tab] { return problem }
        let count = rows.count
        let noun = tab == .packages ? "package" : "web map"
        if isAsking { return count == 0 ? "Asking\(ellipsis)" : "\(count) \(noun)s; asking for more\(ellipsis)" }
        guard let list = lists[tab] else { return tab == .search ? "Type words, then Enter." : "" }
        if list.isEmpty {
            switch tab {
            case .recent: return "No web map opened here yet, and none with areas on this device."
            case .search: return "No web maps match."
            case .mine, .groups: return "No web maps."
            case .packages: return "No mobile map packages here or on the portal (mapbook import adds files)."
            }
        }
        let more = self.more[tab] != nil ? ", more below" : ""
        return "\(selection + 1) of \(count) \(noun)\(count == 1 ? "" : "s")\(more)"
    }
}

/// The Maps card: `M` opens it on the web maps opened lately and those with areas on this device;
/// ←→ (or Tab) move between Recent, My content, Groups and Search, each asked for the first time
/// it shows; moving near the end of a list asks for its next page; in Search, `/` types the
/// words and Enter asks; Enter on a row opens that web map; Esc closes.
extension App {
    static func showMaps(_ state: inout AppState, on tab: WebMapsTab = .recent) -> [Effect] {
        var maps = WebMapsBrowser(tab: tab)
        let effects = show(tab, in: &maps)
        state.overlay = .maps(maps)
        return whenConnected(effects, state)
    }

    static func inMaps(_ state: inout AppState, _ intent: Intent) -> [Effect] {
        whenConnected(inCard(&state, intent), state)
    }

    /// Until the portal client is ready, pages from the portal stay asked for (`pending`) but wait:
    /// `mapsConnected` sends them. Recent, and the packages on this device, are read from this
    /// device and go at once.
    private static func whenConnected(_ effects: [Effect], _ state: AppState) -> [Effect] {
        guard !state.portal.isConnected else { return effects }
        return effects.filter { if case .maps(.loadMaps(let request)) = $0 { request.tab.isOnDevice } else { true } }
    }

    private static func inCard(_ state: inout AppState, _ intent: Intent) -> [Effect] {
        guard case .maps(var maps)? = state.overlay else { return [] }
        var effects: [Effect] = []
        if maps.isTypingQuery, case .search(let edit) = intent {
            effects = editQuery(&maps, edit)
            state.overlay = .maps(maps)
            return effects
        }
        switch intent {
        case .move(.left), .move(.right), .list(.switchFocus):
            let count = WebMapsTab.allCases.count
            maps.tab = WebMapsTab(rawValue: (maps.tab.rawValue + (intent == .move(.left) ? count - 1 : 1)) % count)!
            effects = show(maps.tab, in: &maps)
        case .move(let move):
            // Up from the first row of a search goes back to its query.
            if move == .up, maps.selection == 0, maps.tab == .search { maps.isTypingQuery = true }
            maps.selection = ListCursor.moved(maps.selection, by: move, count: maps.rows.count, page: 10)
        case .list(.startFilter), .startSearch:
            maps.tab = .search
            effects = show(.search, in: &maps)
            maps.isTypingQuery = true
        case .maps(.showTab(let tab)):
            maps.tab = tab
            effects = show(tab, in: &maps)
        case .maps(.search(let words)):
            maps.tab = .search
            maps.query = String(words.prefix(200))
            effects = editQuery(&maps, .pick)
        case .maps(.choose(let index)):
            guard maps.rows.indices.contains(index) else { return [] }
            maps.selection = index
            state.overlay = .maps(maps)
            return inCard(&state, .open)
        case .refresh where maps.tab == .search:
            effects = editQuery(&maps, .pick)
        case .refresh:
            maps.lists[maps.tab] = nil
            maps.more[maps.tab] = nil
            effects = show(maps.tab, in: &maps)
        case .open where maps.tab == .packages, .area(.download) where maps.tab == .packages:
            effects = openPackage(&state, &maps)
            if state.overlay == nil { return effects }
        case .area(.update) where maps.tab == .packages:
            effects = updatePackage(&maps)
        case .area(.remove) where maps.tab == .packages:
            askToRemovePackage(&state, maps)
            return []
        case .open:
            guard maps.rows.indices.contains(maps.selection) else { return [] }
            let chosen = maps.rows[maps.selection]
            state.overlay = nil
            guard chosen.id != state.catalog.webMapID else { return [] }
            state.handoff.nextWebMap = chosen.id
            quit(&state)
            return []
        case .signIn:
            // The card says "S" when a tab needs a sign-in: the form, then back to this tab.
            let effects = startSignIn(&state)
            if case .signIn(var form)? = state.overlay {
                form.returnsToMaps = maps.tab
                state.overlay = .signIn(form)
            }
            return effects
        case .back, .maps(.show):
            state.overlay = nil
            return []
        case .quit:
            state.overlay = nil
            quit(&state)
            return []
        default:
            return []
        }
        effects += nextPageIfNear(&maps)
        state.overlay = .maps(maps)
        return effects
    }

    /// A tab coming into view: its first page asked for unless it has a list or an answer is on the
    /// way (a tab that failed is asked again); the Search tab types its words until it has some.
    private static func show(_ tab: WebMapsTab, in maps: inout WebMapsBrowser) -> [Effect] {
        maps.selection = 0
        maps.problems[tab] = maps.lists[tab] == nil ? nil : maps.problems[tab]
        guard maps.lists[tab] == nil, maps.pending[tab] == nil else { return [] }
        if tab == .search {
            maps.isTypingQuery = true
            return []
        }
        return ask(&maps, WebMapsRequest(tab: tab))
    }

    private static func ask(_ maps: inout WebMapsBrowser, _ request: WebMapsRequest) -> [Effect] {
        maps.pending[request.tab] = request
        return [.maps(.loadMaps(request))]
    }

    /// The portal client is ready (this happens once, before which portal pages only waited): the
    /// pages waiting for it are asked for.
    static func mapsConnected(_ state: inout AppState) -> [Effect] {
        guard case .maps(var maps)? = state.overlay else { return [] }
        var effects = maps.pending.values.filter { !$0.tab.isOnDevice }.sorted { $0.tab.rawValue < $1.tab.rawValue }.map { Effect.maps(.loadMaps($0)) }
        // Packages listed before the portal could be asked: asked again, with the portal's.
        if maps.lists[.packages] != nil, maps.pending[.packages] == nil {
            effects += ask(&maps, WebMapsRequest(tab: .packages))
            state.overlay = .maps(maps)
        }
        return effects
    }

    /// The selection within a few rows of the end of a list with more: its next page.
    private static func nextPageIfNear(_ maps: inout WebMapsBrowser) -> [Effect] {
        guard let cursor = maps.more[maps.tab], maps.pending[maps.tab] == nil, maps.selection >= maps.rows.count - 5 else { return [] }
        return ask(&maps, WebMapsRequest(tab: maps.tab, cursor: cursor, appends: true))
    }

    private static func editQuery(_ maps: inout WebMapsBrowser, _ edit: SearchEdit) -> [Effect] {
        switch edit {
        case .type(let character):
            // A `/` that starts the words is the habit of starting a search, not part of it.
            guard maps.query.count < 200, !character.isNewline, !(character == "/" && maps.query.isEmpty) else { return [] }
            maps.query.append(character)
        case .deleteBackward:
            if !maps.query.isEmpty { maps.query.removeLast() }
        case .pick:
            let words = maps.query.trimmingCharacters(in: .whitespaces)
            guard !words.isEmpty else { return [] }
            maps.isTypingQuery = false
            maps.lists[.search] = nil
            maps.problems[.search] = nil
            maps.more[.search] = nil
            maps.selection = 0
            return ask(&maps, WebMapsRequest(tab: .search, cursor: .search(words)))
        case .next:
            if !maps.rows.isEmpty { maps.isTypingQuery = false }
        case .close:
            maps.isTypingQuery = false
        case .previous:
            break
        }
        return []
    }

    static func mapsLoaded(_ state: inout AppState, _ request: WebMapsRequest, _ result: Result<WebMapsPage, LoadFailure>) -> [Effect] {
        guard case .maps(var maps)? = state.overlay, maps.pending[request.tab] == request else { return [] }
        maps.pending[request.tab] = nil
        var effects: [Effect] = []
        switch result {
        case .success(let page):
            let listings = page.listings.map { listing in
                var clean = listing
                clean.title = TerminalText.sanitizedLine(listing.title, maxLength: 200)
                clean.owner = listing.owner.map { TerminalText.sanitizedLine($0, maxLength: 100) }
                clean.folder = listing.folder.map { TerminalText.sanitizedLine($0, maxLength: 100) }
                clean.package?.problem = listing.package?.problem.map { TerminalText.sanitizedLine($0, maxLength: 200) }
                return clean
            }
            var list = request.appends ? maps.lists[request.tab] ?? [] : []
            for listing in listings where !list.contains(where: { $0.id == listing.id }) { list.append(listing) }
            maps.lists[request.tab] = list
            maps.more[request.tab] = page.next
            maps.problems[request.tab] = page.note.map { TerminalText.sanitizedLine($0, maxLength: 300) }
            let unseen = listings.filter { state.catalog.thumbnails[$0.id] == nil }
            if !unseen.isEmpty { effects.append(.maps(.loadMapThumbnails(unseen))) }
            // Not after a failure: the next move asks again, not a loop.
            if request.tab == maps.tab { effects += nextPageIfNear(&maps) }
        case .failure(let failure):
            if !request.appends { maps.lists[request.tab] = nil }
            maps.problems[request.tab] = TerminalText.sanitizedLine(failure.sentence, maxLength: 300)
        }
        state.overlay = .maps(maps)
        return effects
    }
}
