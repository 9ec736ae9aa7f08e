import Foundation
import ArcGISModel
import MapbookCore
import Geometry

/// Intents: the overlay takes them first, then the map screen, then what works everywhere, then
/// the main list or the details document.
extension App {
    static func dispatch(_ state: inout AppState, _ intent: Intent) -> [Effect] {
        switch state.overlay {
        case .confirm?:
            if case .confirm(let yes) = intent { return confirm(&state, yes) }
            return []
        case .filter?:
            if case .filter(let edit) = intent { return editFilter(&state, edit) }
        case .search?:
            if case .search(let edit) = intent { return editSearch(&state, edit) }
            if intent == .quit { break }
            return []
        case .pinForm?:
            if case .form(let edit) = intent { return editPinForm(&state, edit) }
            return []
        case .signIn?:
            if case .form(let edit) = intent { return editSignIn(&state, edit) }
            return []
        case .newArea?:
            if case .form(let edit) = intent { return editAreaForm(&state, edit) }
            return []
        case .featureForm?:
            if case .form(let edit) = intent { return editFeatureForm(&state, edit) }
            return []
        case .maps?:
            return inMaps(&state, intent)
        case .help?:
            if let handled = inHelp(&state, intent) { return handled }
        case nil:
            break
        }
        if state.screen.kind == .map, let handled = inMap(&state, intent) { return handled }
        switch intent {
        case .quit:
            quit(&state)
        case .toggleHelp:
            state.overlay = .help(scroll: 0)
        case .signIn:
            return startSignIn(&state)
        case .maps(.show):
            return showMaps(&state)
        case .maps(.showTab(let tab)):
            return showMaps(&state, on: tab)
        case .maps(.search):
            return showMaps(&state, on: .search) + inMaps(&state, intent)
        case .maps(.choose):
            break
        case .refresh:
            // On a failed download, r retries it; anywhere else it reloads.
            if let index = state.selectedAreaIndex, case .failed? = state.library.transfers[state.catalog.areas[index].item.id] {
                return startDownload(&state, state.catalog.areas[index])
            }
            return reload(&state)
        case .area(let asked):
            return onArea(&state, asked)
        case .back: back(&state)
        case .startSearch:
            return startSearch(&state)
        case .directions(let places):
            return route(&state, through: places.map(StopQuery.init(typed:)))
        case .list(.cycleOrder):
            cycleOrder(&state)
        case .list(.toggleDownloadedFirst):
            let previous = state.selectedRow
            state.list.downloadedFirst.toggle()
            state.notice = .downloadedFirst(state.list.downloadedFirst)
            reselect(&state, previous)
        case .move, .open, .list:
            if case .details = state.screen { return inDetails(&state, intent) }
            return inMain(&state, intent)
        // Where this device is, and its track, are the app's, not only the map's.
        case .map(.locate): return locate(&state)
        case .map(.recordTrack): return recordTrack(&state)
        case .map, .filter, .confirm, .search, .form:
            // The map's intents away from the map, and editing with nothing open to edit.
            break
        }
        return []
    }

    private static func onArea(_ state: inout AppState, _ asked: AreaIntent) -> [Effect] {
        switch asked {
        case .download: return download(&state)
        case .downloadAll: return downloadAll(&state)
        case .cancel: return cancelDownload(&state)
        case .remove: askToRemove(&state); return []
        case .update: return updateSelectedArea(&state)
        case .syncEdits: return syncEdits(&state)
        case .keepMine: return askToSettleConflicts(&state, keepMine: true)
        case .takeTheirs: return askToSettleConflicts(&state, keepMine: false)
        }
    }

    /// Help is a document over the screen: moves scroll it; Esc or ? close it; q still quits.
    private static func inHelp(_ state: inout AppState, _ intent: Intent) -> [Effect]? {
        guard case .help(let scroll)? = state.overlay else { return nil }
        switch intent {
        case .back, .toggleHelp:
            state.overlay = nil
        case .quit:
            return nil
        case .move(let move):
            let (page, maximum) = helpExtent(state)
            state.overlay = .help(scroll: scrolled(scroll, by: move, page: page, maximum: maximum))
        default:
            break
        }
        return []
    }

    private static func inDetails(_ state: inout AppState, _ intent: Intent) -> [Effect] {
        guard case .details(let scroll) = state.screen else { return [] }
        switch intent {
        case .list(.openMap): return openMap(&state)
        case .move(let move):
            let (page, maximum) = detailsExtent(state)
            state.screen = .details(scroll: scrolled(scroll, by: move, page: page, maximum: maximum))
        default: break
        }
        return []
    }

    /// Where a move takes a document. A page keeps one line of the one before in view.
    private static func scrolled(_ scroll: Int, by move: Move, page: Int, maximum: Int) -> Int {
        ListCursor.moved(scroll, by: move, count: maximum + 1, page: page - 1)
    }

    /// The details document's page height and how far it can scroll, at the state's size.
    static func detailsExtent(_ state: AppState) -> (page: Int, maximum: Int) {
        guard let body = state.layout?.detailsBody, body.height > 0 else { return (1, 0) }
        let lines = DetailsDocument.lines(state, width: body.width).count
        return (body.height, max(lines - body.height, 0))
    }

    static func helpExtent(_ state: AppState) -> (page: Int, maximum: Int) {
        guard let help = state.layout?.help(state.preferences.keyBindings), help.body.height > 0 else { return (1, 0) }
        return (help.body.height, max(help.lines.count - help.body.height, 0))
    }

    /// A new size (or a change of content) never leaves a document scrolled past its end.
    static func clampDocumentScroll(_ state: inout AppState) {
        if case .details(let scroll) = state.screen { state.screen = .details(scroll: min(scroll, detailsExtent(state).maximum)) }
        if case .help(let scroll)? = state.overlay { state.overlay = .help(scroll: min(scroll, helpExtent(state).maximum)) }
    }

    private static func inMain(_ state: inout AppState, _ intent: Intent) -> [Effect] {
        let count = state.rows.count
        let page = max(state.layout?.main.listCapacity ?? 1, 1)
        switch intent {
        case .move(.up) where state.list.focus == .overview: moveSpatially(&state, dx: 0, dy: 1)
        case .move(.down) where state.list.focus == .overview: moveSpatially(&state, dx: 0, dy: -1)
        case .move(.left) where state.list.focus == .overview: moveSpatially(&state, dx: -1, dy: 0)
        case .move(.right) where state.list.focus == .overview: moveSpatially(&state, dx: 1, dy: 0)
        case .move(let move):
            select(&state, ListCursor.moved(state.list.selection, by: move, count: count, page: page))
        case .list(.selectRow(let row)): state.list.focus = .list; select(&state, row)
        case .open where state.selectedRow == .webMap, .list(.openMap):
            return openMap(&state)
        case .open, .list(.showDetails):
            guard state.selectedRow != nil else { return [] }
            state.screen = .details(scroll: 0)
        case .list(.startFilter):
            guard state.catalog.webMapItem != nil else { return [] }
            state.overlay = .filter
            state.list.focus = .list
        case .list(.switchFocus):
            state.list.focus = state.list.focus == .list ? .overview : .list
        default:
            break
        }
        return []
    }

    private static func editFilter(_ state: inout AppState, _ edit: FilterEdit) -> [Effect] {
        switch edit {
        case .type(let character):
            state.list.filterText.append(character)
            filterChanged(&state)
        case .deleteBackward:
            if !state.list.filterText.isEmpty { state.list.filterText.removeLast(); filterChanged(&state) }
        case .keep:
            state.overlay = nil
        case .clear:
            state.overlay = nil
            state.list.filterText = ""
            filterChanged(&state)
        }
        return []
    }

    private static func back(_ state: inout AppState) {
        if case .details = state.screen {
            state.screen = .main
        } else if !state.list.filterText.isEmpty {
            state.list.filterText = ""
            filterChanged(&state)
        } else if state.list.focus == .overview {
            state.list.focus = .list
        }
    }

    private static func select(_ state: inout AppState, _ row: Int) {
        let count = state.rows.count
        guard count > 0 else { return }
        state.list.selection = min(max(row, 0), count - 1)
        keepSelectionInView(&state)
    }

    private static func filterChanged(_ state: inout AppState) {
        state.list.selection = 0
        state.list.top = 0
    }

    /// With the map focused, arrows pick the nearest area whose centre lies in that direction
    /// (`dy` > 0 is north), weighing sideways distance double.
    private static func moveSpatially(_ state: inout AppState, dx: Double, dy: Double) {
        let rows = state.rows
        let current = state.selectedRow.flatMap { centre(of: $0, in: state) }
        guard let from = current ?? state.catalog.webMapItem?.extent.map(centre) else { return }
        var best: (index: Int, cost: Double)?
        for (index, row) in rows.enumerated() where index != state.list.selection {
            guard case .area = row, let to = centre(of: row, in: state) else { continue }
            let along = (to.x - from.x) * dx + (to.y - from.y) * dy
            let across = abs((to.x - from.x) * dy - (to.y - from.y) * dx)
            guard along > 0 else { continue }
            let cost = along + 2 * across
            if best == nil || cost < best!.cost { best = (index, cost) }
        }
        if let best { select(&state, best.index) }
    }

    private static func centre(of row: ListRow, in state: AppState) -> (x: Double, y: Double)? {
        guard case .area = row, let extent = state.item(of: row)?.extent else { return nil }
        return centre(extent)
    }

    private static func centre(_ extent: GeoExtent) -> (x: Double, y: Double) {
        ((extent.xmin + extent.xmax) / 2, (extent.ymin + extent.ymax) / 2)
    }
}

/// Turns what the mouse did into an intent, pure: a click picks a list row; on the map the wheel
/// zooms toward the pointer and a drag pans; elsewhere the wheel scrolls.
public enum MouseTranslator {
    /// The intent, and where a drag on the map now is (nil when no button is held on the map).
    public static func translate(_ event: MouseEvent, in state: AppState) -> (intent: Intent?, drag: CellPoint?) {
        guard let layout = state.layout else { return (nil, nil) }
        let onMap = state.screen.kind == .map
        switch event {
        case .wheel(let rows, let point):
            let rect = layout.mapRect
            if onMap, rect.contains(x: point.x, y: point.y) {
                return (.map(.zoomAt(steps: -rows, column: point.x - rect.x, row: point.y - rect.y)), state.terminal.dragPoint)
            }
            return (.move(.scroll(rows)), state.terminal.dragPoint)
        case .press(let point):
            if onMap { return (nil, point) }
            // Only the main screen's list can be clicked, and not under a card or a question.
            guard state.screen.kind == .main, state.overlay == nil || state.overlay == .filter, !layout.isTooSmall,
                  let row = layout.main.row(atX: point.x, y: point.y, top: state.list.top), row < state.rows.count else {
                return (nil, nil)
            }
            return (.list(.selectRow(row)), nil)
        case .drag(let point):
            guard onMap, let last = state.terminal.dragPoint else { return (nil, state.terminal.dragPoint) }
            guard point != last else { return (nil, point) }
            return (.map(.pan(columns: point.x - last.x, rows: point.y - last.y)), point)
        case .release(let point):
            // A press and release on one cell of the map, with no drag between: identify there.
            let rect = layout.mapRect
            if onMap, state.overlay == nil, state.terminal.dragPoint == point, rect.contains(x: point.x, y: point.y) {
                return (.map(.identifyAt(column: point.x - rect.x, row: point.y - rect.y)), nil)
            }
            return (nil, nil)
        }
    }
}
