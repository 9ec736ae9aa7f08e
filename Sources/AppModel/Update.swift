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
        if state.notice != before, let notice = state.notice, notice.fades { state.requests.noticeSerial += 1 }
        return effects
    }

    private static func apply(_ state: inout AppState, _ event: Event) -> [Effect] {
        switch event {
        case .noticeExpired(let serial):
            if serial == state.requests.noticeSerial, state.notice?.fades == true { state.notice = nil }
            return []
        case .started:
            let location = watchLocationAtStart(&state)
            if let map = state.map, map.isStandalone { return [.map(.openMap(session: map.session, .given)), .pins(.loadPins)] + location }
            state.catalog.phase = state.catalog.webMapItem == nil ? state.portal.connectingPhase : state.catalog.phase
            let maps = state.catalog.startsOnMaps.map { showMaps(&state, on: $0) } ?? []
            state.catalog.startsOnMaps = nil
            guard state.catalog.hasWebMap else {
                state.catalog.phase = .starting(Self.chooseAWebMap(state))
                return [.catalog(.readLibrary), .catalog(.connectPortal), .pins(.loadPins)] + maps + location
            }
            return [.catalog(.readLibrary), .catalog(.loadWebMap), .pins(.loadPins)] + maps + location
        case .terminal(let terminal):
            return terminalEvent(&state, terminal)
        case .intent(let intent):
            return dispatch(&state, intent)
        case .catalog(let action): return reduce(&state, action)
        case .downloads(let action): return reduce(&state, action)
        case .map(let action): return reduce(&state, action)
        case .maps(let action): return reduce(&state, action)
        case .packages(let action): return reduce(&state, action)
        case .signIn(let action): return reduce(&state, action)
        case .pins(let action): return reduce(&state, action)
        case .search(let action): return reduce(&state, action)
        case .directions(let action): return reduce(&state, action)
        case .newArea(let action): return reduce(&state, action)
        case .edits(let action): return reduce(&state, action)
        }
    }

    private static func terminalEvent(_ state: inout AppState, _ event: TerminalEvent) -> [Effect] {
        switch event {
        case .key(let key):
            guard let intent = KeyMap.intent(for: key, in: state.keyContext, bindings: state.preferences.keyBindings) else { return [] }
            return dispatch(&state, intent)
        case .mouse(let mouse):
            let (intent, drag) = MouseTranslator.translate(mouse, in: state)
            state.terminal.dragPoint = drag
            return intent.map { dispatch(&state, $0) } ?? []
        case .resized(let display):
            return resized(&state, display)
        case .interrupted:
            state.handoff.isQuitting = true
            return []
        case .picturesUnavailable(let sentence):
            state.notice = .problem(sentence)
            return []
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
        guard state.catalog.hasWebMap else { return state.portal.isConnected ? [] : [.catalog(.connectPortal)] }
        if state.catalog.webMapItem == nil {
            state.catalog.phase = state.portal.isConnected ? .loading : state.portal.connectingPhase
        } else {
            state.notice = state.portal.network.isCutOff ? .checkingPortal : .reloading
        }
        return [.catalog(.loadWebMap)]
    }

    static func webMapLoaded(_ state: inout AppState, _ loaded: WebMapSnapshot) -> [Effect] {
        state.portal.host = loaded.host
        state.portal.listedFromMirror = loaded.fromMirror
        state.library.downloads = loaded.library.downloads
        state.library.partialBytes = loaded.library.partialBytes
        state.library.unsyncedEdits = loaded.library.unsyncedEdits
        state.portal.lastSynced = loaded.catalog.syncedAt
        var effects = setNetwork(&state, .online)
        effects += apply(&state, item: loaded.catalog.webMapItem, webMap: loaded.catalog.webMap,
                         areas: LibraryCatalog.adding(loaded.library.downloads, to: loaded.catalog.areas))
        effects += resumeInterrupted(&state)
        effects += syncEditsByItself(&state)
        return [.catalog(.reportNetwork(.online))] + effects
    }

    static func webMapFailed(_ state: inout AppState, _ failure: LoadFailure) -> [Effect] {
        // A portal that answered with an error is reachable (`failure.network` is `.online` then).
        let network = failure.network
        var effects = setNetwork(&state, network)
        let sentence = TerminalText.sanitizedLine(failure.sentence, maxLength: 400)
        let host = TerminalText.sanitizedLine(failure.host, maxLength: 200)
        state.portal.signInWanted = failure.needsSignIn
        if state.catalog.webMapItem != nil {
            // What was loaded stays on screen; the status bar says why it is not fresh.
            state.notice = switch network {
            case .offline: .offline
            case .portalNotAnswering: .notAnswering(host: host)
            default: .problem(sentence)
            }
        } else {
            state.catalog.phase = switch network {
            case .offline: .unreachable(host: host)
            case .portalNotAnswering: .notAnswering(host: host, sentence)
            default: .failed(sentence)
            }
            state.notice = nil
        }
        if network.isCutOff { effects += pauseForNetwork(&state) }
        return [.catalog(.reportNetwork(network))] + effects
    }

    /// The web map and its areas, made safe for the terminal as they enter the state.
    /// A list of the web map's areas: the whole of it (`complete`), or a long one still filling in.
    static func apply(_ state: inout AppState, item: PortalItem, webMap: WebMap, areas: [MapArea],
                              notice: Notice? = nil, complete: Bool = true) -> [Effect] {
        let previous = state.selectedRow
        state.catalog.webMapItem = DisplayText.item(item)
        state.catalog.webMap = DisplayText.webMap(webMap)
        state.catalog.areas = areas.map(DisplayText.area)
        state.catalog.phase = .loaded
        // What said the load was under way goes, and so does older news; a sign-in's confirmation
        // outlives the reload it started (it fades by itself).
        if notice != nil || !(state.notice?.outlivesReload ?? false) { state.notice = notice }
        reselect(&state, previous)
        return requestOverviewDraw(&state) + (complete ? restoreView(&state) : [])
    }

    // MARK: The network

    static func networkChanged(_ state: inout AppState, _ status: NetworkState) -> [Effect] {
        let was = state.portal.network
        var effects = setNetwork(&state, status)
        if status.isCutOff, !was.isCutOff {
            if state.catalog.webMapItem != nil { state.notice = status == .offline ? .offline : .notAnswering(host: state.portal.host) }
            effects += pauseForNetwork(&state)
        } else if status == .online, was.isCutOff {
            state.notice = .backOnline
            effects += reload(&state)
            for (id, transfer) in state.library.transfers where transfer == .waitingForNetwork {
                if let area = state.catalog.areas.first(where: { $0.item.id == id }) { effects += startDownload(&state, area) }
            }
        }
        return effects
    }

    /// Downloads wait for the network, keeping their bytes.
    private static func pauseForNetwork(_ state: inout AppState) -> [Effect] {
        let active = state.library.transfers.filter { $0.value.isActive }
        guard !active.isEmpty else { return [] }
        for id in active.keys { state.library.transfers[id] = .waitingForNetwork }
        return [.downloads(.pauseDownloads)]
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
        state.terminal.display = display
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
        case .pinForm?, .signIn?, .newArea?, .featureForm?: .form
        case .maps(let maps)?: maps.isTypingQuery ? .search : .list
        case .help?: .help
        case nil:
            switch (screen.kind, map?.card) {
            case (.map, .directions?): .directions
            case (.map, .list?): .mapList
            case (.map, _): .map
            default: .list
            }
        }
    }
}
