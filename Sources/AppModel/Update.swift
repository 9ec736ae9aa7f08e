import Foundation
import MapRender
import MapbookCore
import LibraryModel
import ArcGISModel

/// The app's logic: `update(&state, event) -> [Effect]`, the one place the state changes. Pure and
/// synchronous: it reads nothing but the state and the event, performs nothing, and says what work
/// it wants done as `Effect` values, whose results come back as events. Every event is handled.
public enum App {
    /// The one update: `event` applied to `state`, and the work it asks for. A notice that is only
    /// news (not a state that lasts, like being offline) gets a new `noticeSerial`: the program asks
    /// for it to expire (`Effect.expireNotice`) a few seconds on, unless another takes its place first.
    public static func update(_ state: inout AppState, _ event: Event) -> [Effect] {
        let before = state.notice, focus = state.cardFocus
        let effects = apply(&state, event)
        // A passing message belongs to what had the keys when it came: a card opened (or closed)
        // since shows its own keys, not "Pin kept" from before.
        if state.cardFocus != focus, state.notice == before, state.notice?.fades == true { state.notice = nil }
        if state.notice != before, let notice = state.notice, notice.fades { state.noticeSerial += 1 }
        return effects
    }

    private static func apply(_ state: inout AppState, _ event: Event) -> [Effect] {
        switch event {
        case .noticeExpired(let serial):
            if serial == state.noticeSerial, state.notice?.fades == true { state.notice = nil }
            return []
        case .started:
            if let map = state.map, map.isStandalone { return [.openMap(session: map.session, .given), .loadPins] }
            state.phase = state.webMapItem == nil ? state.portal.connectingPhase : state.phase
            let maps = state.startsOnMaps.map { showMaps(&state, on: $0) } ?? []
            state.startsOnMaps = nil
            guard state.hasWebMap else {
                state.phase = .starting(Self.chooseAWebMap(state))
                return [.readLibrary, .connectPortal, .loadPins] + maps
            }
            return [.readLibrary, .loadWebMap, .loadPins] + maps
        case .key(let key):
            guard let intent = KeyMap.intent(for: key, in: state.keyContext, bindings: state.preferences.keyBindings) else { return [] }
            return dispatch(&state, intent)
        case .mouse(let mouse):
            let (intent, drag) = MouseTranslator.translate(mouse, in: state)
            state.dragPoint = drag
            return intent.map { dispatch(&state, $0) } ?? []
        case .intent(let intent):
            return dispatch(&state, intent)
        case .resized(let display):
            return resized(&state, display)
        case .interrupted:
            state.isQuitting = true
            return []

        case .libraryRead(let library):
            state.library.isRead = true
            state.library.downloads = library.downloads
            state.library.partialBytes = library.partialBytes
            state.basemaps.chosen = library.chosenBasemap.map(DisplayText.basemap)
            // What the portal said this session is newer than what the library kept.
            guard state.portal.network != .online || state.webMapItem == nil, let catalog = library.catalog else { return [] }
            state.portal.lastSynced = catalog.syncedAt
            return apply(&state, item: catalog.webMapItem, webMap: catalog.webMap, areas: catalog.areas)
        case .libraryUnreadable(let sentence), .basemapNotKept(let sentence):
            state.notice = .problem(sentence)
            return []
        case .connected(let host):
            state.portal.host = host
            state.portal.isConnected = true
            if state.webMapItem == nil, state.hasWebMap { state.phase = .loading }
            return mapsConnected(&state)
        case .webMapLoaded(let loaded):
            return webMapLoaded(&state, loaded)
        case .webMapListing(let catalog, let known):
            state.notice = .listingAreas(known: known, of: catalog.areas.count)
            // A list kept in the library is complete: better than one still filling in.
            guard state.webMapItem == nil else { return [] }
            return apply(&state, item: catalog.webMapItem, webMap: catalog.webMap,
                         areas: LibraryCatalog.adding(state.library.downloads, to: catalog.areas), notice: state.notice, complete: false)
        case .webMapFailed(let failure):
            return webMapFailed(&state, failure)
        case .catalogNotKept(let why):
            state.notice = .catalogNotKept(why)
            return []
        case .thumbnails(let images):
            state.thumbnails.merge(images) { _, new in new }
            return []

        case .download(let download):
            return downloadEvent(&state, download)
        case .removed(let id):
            let previous = state.selectedRow
            state.library.removing.remove(id)
            state.library.downloads[id] = nil
            state.library.transfers[id] = nil
            state.library.partialBytes[id] = nil
            state.notice = .removed(title: state.title(of: id))
            // Offline, the removed area leaves the list.
            reselect(&state, previous)
            return []
        case .removeFailed(let id, let sentence):
            state.library.removing.remove(id)
            state.notice = .problem(sentence)
            return []
        case .network(let status):
            return networkChanged(&state, status)

        case .mapOpened(let session, let summary):
            return mapOpened(&state, session: session, summary)
        case .mapOpenFailed(let session, let sentence):
            guard state.map?.session == session else { return [] }
            state.withMap { map in
                map.status = TerminalText.sanitizedLine(sentence, maxLength: 300)
                map.isOpening = false
            }
            return []
        case .mapDrawn(let session, let image):
            return mapDrawn(&state, session: session, image)
        case .mapsLoaded(let request, let result):
            return mapsLoaded(&state, request, result)
        case .packageProgress(let item, let progress):
            packageProgress(&state, item, progress)
            return []
        case .packageDownloaded(let item, let title, let result):
            packageDownloaded(&state, item, title: title, result)
            return []
        case .packageRemoved(let title, let result):
            switch result {
            case .success: state.notice = .removed(title: title)
            case .failure(let failure): state.notice = .problem(TerminalText.sanitizedLine(failure.sentence, maxLength: 300))
            }
            // The card was closed to ask: it comes back on the packages, listed afresh.
            return showMaps(&state, on: .packages)
        case .signedIn(let request, let username):
            return signedIn(&state, request: request, username: username)
        case .signInFailed(let request, let sentence):
            return signInFailed(&state, request: request, sentence)
        case .pinsLoaded(let pins, let problem):
            return pinsLoaded(&state, pins, problem: problem)
        case .pinNotSaved(let sentence):
            return pinNotSaved(&state, sentence)
        case .pinPlaces(let places):
            for (id, place) in places { state.pins.places[id] = TerminalText.sanitizedLine(place, maxLength: 200) }
            return []
        case .linkOpened(let problem):
            if let problem { state.notice = .problem(TerminalText.sanitizedLine(problem, maxLength: 400)) }
            return []
        case .featureLayersOpened(let session, let summary):
            return featureLayersOpened(&state, session: session, summary)
        case .identified(let session, let id, let hits):
            return identified(&state, session: session, id: id, hits)
        case .overviewDrawn(let image):
            return overviewDrawn(&state, image)
        case .basemapGallery(let result):
            return basemapGalleryArrived(&state, result)
        case .placeSuggestions(let request, let result, let offline):
            return suggestionsArrived(&state, request: request, result, offline: offline)
        case .placeDescribed(let request, let description):
            return placeDescribed(&state, request: request, description)
        case .placesFound(let request, let result):
            return placesFound(&state, request: request, result)
        case .routeFound(let request, let result):
            return routeFound(&state, request: request, result)
        case .travelModes(let result):
            return travelModesArrived(&state, result)
        case .areaEstimated(let request, let estimate):
            return areaEstimated(&state, request: request, estimate)
        case .areaPreparing(let area, let label):
            return areaPreparing(&state, area, label: label)
        case .areaPrepared(let area):
            return areaPrepared(&state, area)
        case .areaNotMade(let id, let sentence):
            return areaNotMade(&state, id, sentence: sentence)
        }
    }

    // MARK: Loading

    /// What the main screen says behind the Maps card when no web map was named.
    static func chooseAWebMap(_ state: AppState) -> String {
        "No web map is named for this portal: \(state.key(.maps(.show))) lists yours and finds others."
    }

    /// `r` (or the network coming back): ask the portal again; what is loaded stays on screen meanwhile.
    static func reload(_ state: inout AppState) -> [Effect] {
        guard state.map?.isStandalone != true else { return [] }
        guard state.hasWebMap else { return state.portal.isConnected ? [] : [.connectPortal] }
        if state.webMapItem == nil {
            state.phase = state.portal.isConnected ? .loading : state.portal.connectingPhase
        } else {
            state.notice = state.portal.network.isCutOff ? .checkingPortal : .reloading
        }
        return [.loadWebMap]
    }

    private static func webMapLoaded(_ state: inout AppState, _ loaded: WebMapSnapshot) -> [Effect] {
        state.portal.host = loaded.host
        state.portal.listedFromMirror = loaded.fromMirror
        state.library.downloads = loaded.library.downloads
        state.library.partialBytes = loaded.library.partialBytes
        state.portal.lastSynced = loaded.catalog.syncedAt
        var effects = setNetwork(&state, .online)
        effects += apply(&state, item: loaded.catalog.webMapItem, webMap: loaded.catalog.webMap,
                         areas: LibraryCatalog.adding(loaded.library.downloads, to: loaded.catalog.areas))
        effects += resumeInterrupted(&state)
        return [.reportNetwork(.online)] + effects
    }

    private static func webMapFailed(_ state: inout AppState, _ failure: LoadFailure) -> [Effect] {
        // A portal that answered with an error is reachable (`failure.network` is `.online` then).
        let network = failure.network
        var effects = setNetwork(&state, network)
        let sentence = TerminalText.sanitizedLine(failure.sentence, maxLength: 400)
        let host = TerminalText.sanitizedLine(failure.host, maxLength: 200)
        state.portal.signInWanted = failure.needsSignIn
        if state.webMapItem != nil {
            // What was loaded stays on screen; the status bar says why it is not fresh.
            state.notice = switch network {
            case .offline: .offline
            case .portalNotAnswering: .notAnswering(host: host)
            default: .problem(sentence)
            }
        } else {
            state.phase = switch network {
            case .offline: .unreachable(host: host)
            case .portalNotAnswering: .notAnswering(host: host, sentence)
            default: .failed(sentence)
            }
            state.notice = nil
        }
        if network.isCutOff { effects += pauseForNetwork(&state) }
        return [.reportNetwork(network)] + effects
    }

    /// The web map and its areas, made safe for the terminal as they enter the state.
    /// A list of the web map's areas: the whole of it (`complete`), or a long one still filling in.
    private static func apply(_ state: inout AppState, item: PortalItem, webMap: WebMap, areas: [MapArea],
                              notice: Notice? = nil, complete: Bool = true) -> [Effect] {
        let previous = state.selectedRow
        state.webMapItem = DisplayText.item(item)
        state.webMap = DisplayText.webMap(webMap)
        state.areas = areas.map(DisplayText.area)
        state.phase = .loaded
        // What said the load was under way goes, and so does older news; a sign-in's confirmation
        // outlives the reload it started (it fades by itself).
        if notice != nil || !(state.notice?.outlivesReload ?? false) { state.notice = notice }
        reselect(&state, previous)
        return requestOverviewDraw(&state) + (complete ? restoreView(&state) : [])
    }

    // MARK: The network

    private static func networkChanged(_ state: inout AppState, _ status: NetworkState) -> [Effect] {
        let was = state.portal.network
        var effects = setNetwork(&state, status)
        if status.isCutOff, !was.isCutOff {
            if state.webMapItem != nil { state.notice = status == .offline ? .offline : .notAnswering(host: state.portal.host) }
            effects += pauseForNetwork(&state)
        } else if status == .online, was.isCutOff {
            state.notice = .backOnline
            effects += reload(&state)
            for (id, transfer) in state.library.transfers where transfer == .waitingForNetwork {
                if let area = state.areas.first(where: { $0.item.id == id }) { effects += startDownload(&state, area) }
            }
        }
        return effects
    }

    /// Downloads wait for the network, keeping their bytes.
    private static func pauseForNetwork(_ state: inout AppState) -> [Effect] {
        let active = state.library.transfers.filter { $0.value.isActive }
        guard !active.isEmpty else { return [] }
        for id in active.keys { state.library.transfers[id] = .waitingForNetwork }
        return [.pauseDownloads]
    }

    /// Going offline hides rows; the selection stays on the same row where it can.
    static func setNetwork(_ state: inout AppState, _ status: NetworkState) -> [Effect] {
        guard status != state.portal.network else { return [] }
        let previous = state.selectedRow
        state.portal.network = status
        reselect(&state, previous)
        return requestOverviewDraw(&state)
    }

    // MARK: The list

    /// After the rows changed: the same row stays selected when it is still shown, else the
    /// selection stays in range; either way it stays in view.
    static func reselect(_ state: inout AppState, _ previous: ListRow?) {
        let rows = state.rows
        state.list.selection = previous.flatMap { rows.firstIndex(of: $0) } ?? min(state.list.selection, max(rows.count - 1, 0))
        keepSelectionInView(&state)
    }

    /// Scrolls the list just enough that the selection is on screen.
    static func keepSelectionInView(_ state: inout AppState) {
        state.list.top = ListCursor.top(keeping: state.list.selection, from: state.list.top, count: state.rows.count,
                                       visible: state.layout?.main.listCapacity ?? 1)
    }

    // MARK: Size

    private static func resized(_ state: inout AppState, _ display: Display) -> [Effect] {
        let old = state.layout
        state.display = display
        let new = ScreenLayout(display)
        var effects: [Effect] = []
        if old?.mapRect.width != new.mapRect.width || old?.mapRect.height != new.mapRect.height
            || old?.display.colors != display.colors || old?.display.unicode != display.unicode
            || old?.display.lightTheme != display.lightTheme {
            effects += mapLayoutChanged(&state)
        }
        if old?.main.overview != new.main.overview || old?.display.colors != display.colors || old?.display.lightTheme != display.lightTheme {
            effects += requestOverviewDraw(&state)
        }
        clampDocumentScroll(&state)
        keepSelectionInView(&state)
        return effects
    }
}

extension AppState {
    /// Which keys apply: the overlay's, else the screen's.
    public var keyContext: KeyContext {
        switch overlay {
        case .confirm?: .confirm
        case .filter?: .filter
        case .search?: .search
        case .pinForm?, .signIn?, .newArea?: .form
        case .maps(let maps)?: maps.isTypingQuery ? .search : .list
        case .help?: .list
        case nil: screen.kind == .map ? .map : .list
        }
    }
}
