import Foundation
import MapRender
import MapbookCore
import ArcGISModel
import Geometry

/// The map view and the overview's basemap. A burst of keys changes the viewport at once, key by
/// key (none is dropped); drawing runs one at a time and, when it ends, starts again with the latest
/// viewport if that changed meanwhile.
extension App {
    /// `m` (or Enter on the web map): the selected row's map. An area draws from its downloaded
    /// package, offline; the web map, and areas not downloaded, from the online basemap.
    static func openMap(_ state: inout AppState) -> [Effect] {
        guard let row = state.selectedRow else { return [] }
        let bookmarks = state.catalog.webMap?.bookmarks ?? []
        switch row {
        case .area(let index):
            let area = state.catalog.areas[index]
            let title = state.title(of: row)
            let effects: [Effect]
            if let record = state.library.downloads[area.item.id], let package = record.mapPackages.first {
                effects = open(&state, title: title, sourceName: packageSourceName(title), home: area.item.extent,
                               bookmarks: bookmarks, source: .package(area: area.item.id, package))
            } else if state.portal.network.isCutOff {
                state.notice = .notOnDeviceForMap(title: title)
                return []
            } else {
                effects = openBasemap(&state, title: title, home: area.item.extent, bookmarks: bookmarks)
            }
            state.withMap { $0.area = area.item.id }
            return effects
        case .webMap:
            // Offline too: the basemap draws from what it kept (or says it has nothing).
            let home = state.catalog.webMap?.initialExtent?.geographic ?? state.catalog.webMapItem?.extent
            return openBasemap(&state, title: state.catalog.webMapItem?.title ?? "Web map", home: home, bookmarks: bookmarks)
        }
    }

    /// The web map's basemap online, else its layers over the world outline, saying why.
    static func openBasemap(_ state: inout AppState, title: String, home: GeoExtent?, bookmarks: [Bookmark]) -> [Effect] {
        if let why = state.basemapNotShown {
            // The web map's layers are drawn all the same, over the world outline, saying why the
            // basemap is not: B there offers the portal's basemaps.
            return open(&state, title: title, sourceName: "world outline", home: home, bookmarks: bookmarks, source: .outline, why: why)
        }
        guard let basemap = state.onlineBasemap else { return [] }  // basemapNotShown said why
        return open(&state, title: title, sourceName: sourceName(basemap, state), home: home, bookmarks: bookmarks,
                    source: .basemap(basemap))
    }

    /// Shows the map screen at once (the picture blank until the source is open and drawn); with no
    /// source, empty and saying `why`. The web map's operational layers open beside its source.
    static func open(_ state: inout AppState, title: String, sourceName: String, home: GeoExtent?, bookmarks: [Bookmark],
                             source: MapSourceChoice?, why: Notice? = nil) -> [Effect] {
        let operational: OperationalLayers? = switch source {
        case .package(let area, _)?: operationalLayers(state, area: area)
        case .basemap?, .outline?: operationalLayers(state, area: nil)
        case .given?, nil: nil
        }
        var effects: [Effect] = state.map.map { [.map(.closeMap(session: $0.session))] } ?? []
        state.requests.mapSessions += 1
        var map = newMap(session: state.requests.mapSessions, title: title, sourceName: sourceName, home: home, bookmarks: bookmarks,
                         layout: state.layout)
        map.source = source
        map.operational = operational
        map.mode = state.preferences.mapMode
        if let why { map.status = why.sentence }
        map.isOpening = source != nil
        map.isOpeningLayers = source != nil && operational != nil
        state.screen = .map(map)
        state.notice = why
        if let source { effects.append(.map(.openMap(session: state.requests.mapSessions, source))) }
        if source != nil, let operational { effects.append(.map(.openFeatureLayers(session: state.requests.mapSessions, operational))) }
        return effects
    }

    static func newMap(session: Int, title: String, sourceName: String, home: GeoExtent?, bookmarks: [Bookmark],
                       layout: ScreenLayout?) -> MapViewState {
        let columns = max(layout?.mapRect.width ?? 0, 40), rows = max(layout?.mapRect.height ?? 0, 10)
        let world = GeoExtent(xmin: -180, ymin: -80, xmax: 180, ymax: 80)
        var map = MapViewState(session: session, title: TerminalText.sanitizedLine(title, maxLength: 120), sourceName: sourceName,
                               viewport: MapViewport(fitting: home ?? world, columns: columns, rows: rows),
                               homeExtent: home, bookmarks: bookmarks)
        map.status = "Opening the map…"
        return map
    }

    static func mapOpened(_ state: inout AppState, session: Int, _ summary: MapSourceSummary) -> [Effect] {
        guard state.map?.session == session else { return [] }
        let fitsHome = state.withMap { map in
            map.isOpen = true
            map.isOpening = false
            map.status = nil
            // Layer names and problems come from inside packages: sanitized like network strings.
            map.sourceLayerNames = summary.layerNames
            for (name, entries) in summary.legend { map.legend[TerminalText.sanitizedLine(name, maxLength: 80)] = entries }
            map.problems = summary.problems.map { TerminalText.sanitizedLine($0) }
            if map.homeExtent == nil { map.homeExtent = summary.extent }
            return map.fitsHomeWhenOpened
        }
        // Opened before the terminal's size was known: fit the home view to it now (a map reopened
        // on another basemap keeps its view).
        return fitsHome == true ? goHome(&state) : requestMapDraw(&state)
    }

    /// The map view's intents; nil for the ones the rest of the app handles (quit, help, downloads,
    /// a place search). The list's intents do nothing over the map.
    static func inMap(_ state: inout AppState, _ intent: Intent) -> [Effect]? {
        guard let map = state.map else { return nil }
        if map.panel == .pins, let handled = inPins(&state, intent) { return handled }
        if map.card == .directions, let handled = inDirections(&state, intent) { return handled }
        if map.panel != nil, let handled = inPanel(&state, intent) { return handled }
        switch intent {
        case .move(let move): return pan(&state, move)
        case .map(let asked): return onMap(&state, asked)
        case .open where map.ruler != nil: return layRuler(&state, at: nil)
        case .back where map.card != nil:
            // Whichever card is open (identify, what's here, the ruler, directions) closes: one rule, one card.
            state.withMap { $0.card = nil }
            return []
        case .back: return leaveMap(&state, map)
        case .open, .list, .maps, .signIn, .form:
            return []
        case .quit, .toggleHelp, .refresh, .startSearch, .area, .filter, .search, .confirm, .directions:
            return nil
        }
    }

    /// The map's cells across and down (at least one each).
    private static func mapCells(_ state: AppState) -> (columns: Double, rows: Double) {
        (Double(max(state.layout?.mapRect.width ?? 1, 1)), Double(max(state.layout?.mapRect.height ?? 1, 1)))
    }

    /// Arrows pan a quarter of the view; the wheel zooms.
    private static func pan(_ state: inout AppState, _ move: Move) -> [Effect] {
        let (columns, rows) = mapCells(state)
        switch move {
        case .up: return self.move(&state, byHand: true) { $0.panned(dotsX: 0, dotsY: -rows) }
        case .down: return self.move(&state, byHand: true) { $0.panned(dotsX: 0, dotsY: rows) }
        case .left: return self.move(&state, byHand: true) { $0.panned(dotsX: -columns / 2, dotsY: 0) }
        case .right: return self.move(&state, byHand: true) { $0.panned(dotsX: columns / 2, dotsY: 0) }
        case .scroll(let notches): return self.move(&state) { $0.zoomed(by: Double(-notches)) }
        case .pageUp, .pageDown, .top, .bottom: return []
        }
    }

    private static func onMap(_ state: inout AppState, _ asked: MapIntent) -> [Effect] {
        guard let map = state.map else { return [] }
        switch asked {
        case .pan(let dx, let dy): return move(&state, byHand: true) { $0.panned(dotsX: Double(-dx * 2), dotsY: Double(-dy * 4)) }
        case .zoomIn: return move(&state) { $0.zoomed(by: 1) }
        case .zoomOut: return move(&state) { $0.zoomed(by: -1) }
        case .zoomAt(let steps, let column, let row):
            let (columns, rows) = mapCells(state)
            let anchor = (x: Double(column * 2 + 1) - columns, y: Double(row * 4 + 2) - rows * 2)
            return move(&state, byHand: true) { $0.zoomed(by: Double(steps), anchor: anchor) }
        case .home: return goHome(&state)
        case .showBookmarks:
            guard !map.bookmarks.isEmpty else { state.notice = .map(.noBookmarks); return [] }
            state.withMap { $0.panel = .bookmarks; $0.panelSelection = 0 }
        case .showLayers:
            guard !state.mapPanelRows(.layers).isEmpty else { state.notice = .map(.noLayers); return [] }
            state.withMap { $0.panel = .layers; $0.panelSelection = 0 }
        case .showBasemaps: return showBasemaps(&state)
        case .whatsHere: return whatsHere(&state)
        case .copyPosition: return copyPosition(&state)
        case .locate: return locate(&state)
        case .recordTrack: return recordTrack(&state)
        case .goTo: return goTo(&state)
        case .copyExtent: return copyExtent(&state)
        case .identify: return identify(&state)
        case .identifyAt(let column, let row) where map.ruler != nil: return layRuler(&state, at: (column, row))
        case .identifyAt(let column, let row): return identify(&state, cell: (column, row))
        case .dropPin: return dropPin(&state)
        case .showPins: return showPins(&state)
        case .nextHit: return nextHit(&state)
        case .ruler: return layRuler(&state, at: nil)
        case .directions: return askDirections(&state)
        case .newArea: return startNewArea(&state)
        case .addFeature(let point, let layer): return addFeature(&state, at: point, layer: layer)
        case .editFeature: return editFeature(&state)
        case .moveFeature: return moveFeature(&state)
        case .deleteFeature: return deleteFeature(&state)
        case .undoEdit: return stepEdits(&state, undo: true)
        case .redoEdit: return stepEdits(&state, undo: false)
        case .takeBackPoint:
            state.withMap { map in
                guard var ruler = map.ruler else { return }
                if ruler.points.count > 1 { ruler.points.removeLast(); map.ruler = ruler } else { map.ruler = nil }
            }
        case .previousDirections: return otherResult(&state, by: -1)
        case .nextDirections: return otherResult(&state, by: 1)
        case .cycleMode:
            state.withMap { $0.mode = map.mode.next }
            state.notice = .map(.drawingMode(map.mode.next))
            return requestMapDraw(&state)
        case .editPin, .openLink, .toggle, .nextTravelMode, .copyDirections:
            // Only in the pins table, the layer list and the directions panel.
            break
        }
        return []
    }

    /// Starts the ruler at the centre, or fixes a point of it there (or at a clicked cell) and
    /// starts the next segment.
    private static func layRuler(_ state: inout AppState, at cell: (column: Int, row: Int)?) -> [Effect] {
        guard let map = state.map else { return [] }
        var point = map.viewport.center.geographic
        if let cell, let request = mapRequest(state) { point = Self.point(at: cell, of: map, request) }
        // A new ruler measures from this device's position when the map shows it.
        let start = cell == nil ? state.positionInView ?? point : point
        state.withMap { map in
            if var ruler = map.ruler {
                if ruler.points.last != point { ruler.points.append(point) }
                map.ruler = ruler
            } else {
                map.ruler = Ruler(start: start)
            }
        }
        return []
    }

    /// Esc with nothing open: back to the list (a map opened from a file quits).
    private static func leaveMap(_ state: inout AppState, _ map: MapViewState) -> [Effect] {
        if map.isStandalone {
            state.handoff.leftStandaloneMap = true
            state.handoff.isQuitting = true
            return []
        }
        state.screen = .main
        state.notice = switch state.portal.network {
        case .offline: .offline
        case .portalNotAnswering: .notAnswering(host: state.portal.host)
        default: nil
        }
        return [.map(.closeMap(session: map.session))]
    }

    /// A list over the map takes moves, Enter, Space and Esc (and its own key, which closes it);
    /// the map's other intents go on to the map.
    private static func inPanel(_ state: inout AppState, _ intent: Intent) -> [Effect]? {
        guard let map = state.map, let panel = map.panel else { return nil }
        let count = state.mapPanelRows.count
        switch intent {
        case .move(.up), .move(.down), .move(.top), .move(.bottom):
            guard case .move(let move) = intent else { return [] }
            state.withMap { $0.panelSelection = ListCursor.moved(map.panelSelection, by: move, count: count, page: 1) }
        case .map(.showBookmarks) where panel == .bookmarks, .map(.showLayers) where panel == .layers,
             .map(.showBasemaps) where panel == .basemaps, .map(.showPins) where panel == .pins, .back:
            state.withMap { $0.panel = nil }
        case .open where panel == .basemaps:
            let options = state.basemapOptions
            guard options.indices.contains(map.panelSelection) else { return [] }
            let option = options[map.panelSelection]
            guard option.kind != .message else { return [] }
            guard !option.isCurrent else { state.withMap { $0.panel = nil }; return [] }
            return chooseBasemap(&state, option)
        case .open where panel == .bookmarks:
            guard map.bookmarks.indices.contains(map.panelSelection),
                  let extent = map.bookmarks[map.panelSelection].extent.geographic else { return [] }
            state.withMap { $0.panel = nil }
            // An area's map holds only the area: a bookmark beyond it shows little or nothing, and says why.
            let outside = map.area != nil && map.homeExtent.map { !$0.intersects(extent) } == true ? map.title : nil
            state.notice = .map(.bookmark(map.bookmarks[map.panelSelection].name, outside: outside))
            return fit(&state, extent)
        case .open, .map(.toggle):
            let rows = state.mapPanelRows
            guard panel == .layers, rows.indices.contains(map.panelSelection) else { return [] }
            let name = rows[map.panelSelection]
            guard !map.listedOnlyLayers.contains(name) else { return [] }
            state.withMap { map in
                if map.hiddenLayers.contains(name) { map.hiddenLayers.remove(name) } else { map.hiddenLayers.insert(name) }
            }
            return requestMapDraw(&state)
        case .move, .map, .quit, .toggleHelp:
            return nil
        case .refresh, .startSearch, .signIn, .list, .area, .maps, .form, .filter, .search, .confirm, .directions:
            break
        }
        return []
    }

    /// A new view; one moved `byHand` (a pan, a zoom toward the pointer) stops following the
    /// position, a zoom about the centre keeps it.
    private static func move(_ state: inout AppState, byHand: Bool = false, _ change: (MapViewport) -> MapViewport) -> [Effect] {
        state.withMap { map in
            map.viewport = change(map.viewport)
            if byHand { map.followsLocation = false }
        }
        return requestMapDraw(&state, contentChanged: false)
    }

    private static func goHome(_ state: inout AppState) -> [Effect] {
        guard let extent = state.map?.homeExtent else { return requestMapDraw(&state) }
        return fit(&state, extent)
    }

    /// The view fitted to `extent` (home, a bookmark, a place): it no longer follows the position.
    static func fit(_ state: inout AppState, _ extent: GeoExtent) -> [Effect] {
        let rect = state.layout?.mapRect
        state.withMap { map in
            map.viewport = MapViewport(fitting: extent, columns: max(rect?.width ?? 1, 1), rows: max(rect?.height ?? 1, 1))
            map.followsLocation = false
        }
        return requestMapDraw(&state, contentChanged: false)
    }

    /// The terminal's size or abilities changed: a new picture (and the home view, before any
    /// move, refitted — unless a view was given or remembered).
    static func mapLayoutChanged(_ state: inout AppState) -> [Effect] {
        guard let map = state.map else { return [] }
        return map.image == nil && map.fitsHomeWhenOpened ? goHome(&state) : requestMapDraw(&state)
    }

    /// What the map of the state would be drawn as now; nil before its size is known.
    static func mapRequest(_ state: AppState) -> MapRequest? {
        guard let map = state.map, let layout = state.layout, layout.mapRect.width > 0, layout.mapRect.height > 0 else { return nil }
        // The list shows sanitized names; the renderer matches the package's own (operational
        // layers go by the names the runtime gave them, sanitized already).
        let layers = map.layers
        let hidden = Set(map.hiddenLayers.compactMap { shown in
            map.operationalLayers.contains(shown) ? shown
                : layers.firstIndex(of: shown).flatMap { map.sourceLayerNames.indices.contains($0) ? map.sourceLayerNames[$0] : nil }
        })
        return MapRequest(viewport: map.viewport, columns: layout.mapRect.width, rows: layout.mapRect.height,
                          mode: layout.display.unicode ? map.mode : .ascii, hiddenLayers: hidden, colors: layout.display.colors,
                          lightTheme: layout.display.lightTheme, content: map.contentChanges)
    }

    /// One drawing at a time: a change while drawing is remembered and drawn when that one ends.
    /// Anything but a move of the view (`contentChanged: false`) counts as a change to what the
    /// map shows, so the next drawing does not keep the last one's pixels.
    static func requestMapDraw(_ state: inout AppState, contentChanged: Bool = true) -> [Effect] {
        if contentChanged { state.withMap { $0.contentChanges &+= 1 } }
        guard let map = state.map, map.isOpen, let request = mapRequest(state) else { return [] }
        if map.isDrawing {
            state.withMap { $0.redrawWanted = true }
            return []
        }
        state.withMap { $0.isDrawing = true }
        return [.map(.drawMap(session: map.session, request))]
    }

    static func mapDrawn(_ state: inout AppState, session: Int, _ image: MapImage) -> [Effect] {
        guard let map = state.map, map.session == session else { return [] }
        // A first drawing from what was at hand: shown while the whole one is still being drawn
        // (its footer sentences wait for that), unless the view has moved on since.
        if image.isAtHand {
            if !map.redrawWanted, image.request == mapRequest(state) {
                state.withMap { $0.image = image }
            }
            return []
        }
        let stale = map.redrawWanted || image.request != mapRequest(state)
        state.withMap { map in
            map.image = image
            map.problems = image.problems.map { TerminalText.sanitizedLine($0, maxLength: 300) }
            map.isDrawing = false
            map.redrawWanted = false
        }
        return stale ? requestMapDraw(&state, contentChanged: false) : []
    }

    // MARK: The overview's basemap

    /// Draws the basemap for the overview pane's current size (once a drawing is under way, the
    /// next waits for it and uses the size then).
    static func requestOverviewDraw(_ state: inout AppState) -> [Effect] {
        let sources = overviewSources(state)
        guard state.catalog.phase == .loaded, !state.overview.isDrawing, !sources.isEmpty,
              let layout = state.layout, layout.main.overview.width > 0, layout.main.overview.height > 1 else { return [] }
        let areas = state.catalog.areas.compactMap { area in area.extent.map { OverviewArea(title: "", extent: $0) } }
        guard let view = OverviewMap(geography: .empty, webMapExtent: state.webMapExtent, areas: areas, selected: nil).viewExtent
        else { return [] }
        let columns = layout.main.overview.width, rows = layout.main.overview.height - 1
        let request = MapRequest(viewport: MapViewport(fitting: view, columns: columns, rows: rows), columns: columns, rows: rows,
                                 mode: .braille, colors: layout.display.colors, lightTheme: layout.display.lightTheme)
        guard state.overview.basemap?.request != request || state.overview.drawnFrom != sources else { return [] }
        state.overview.drawing = sources
        return [.map(.drawOverview(request, sources: sources))]
    }

    /// What the overview may be drawn from, the first that draws winning: the basemap (offline,
    /// from the tiles it kept), then, offline, the downloaded areas' packages, the largest first —
    /// each holds the coarse levels around its area.
    static func overviewSources(_ state: AppState) -> [MapSourceChoice] {
        var sources: [MapSourceChoice] = state.overviewBasemap.map { [.basemap($0)] } ?? []
        guard state.portal.network.isCutOff else { return sources }
        let downloaded = state.catalog.areas.filter { state.library.downloads[$0.item.id]?.mapPackages.isEmpty == false }
        for area in downloaded.sorted(by: { ($0.extent?.area ?? 0) > ($1.extent?.area ?? 0) }) {
            if let package = state.library.downloads[area.item.id]?.mapPackages.first { sources.append(.package(area: area.item.id, package)) }
        }
        return sources
    }

    static func overviewDrawn(_ state: inout AppState, _ image: MapImage?) -> [Effect] {
        let drawn = state.overview.drawing
        state.overview.drawing = nil
        guard let image, image.report.featuresDrawn + image.report.rasterTilesDrawn > 0 else {
            // Not drawn: the outline is no worse. But if the sources changed meanwhile (the library's
            // copy named a server that has moved, as the sample portal's port does), try the new ones.
            return drawn != overviewSources(state) ? requestOverviewDraw(&state) : []
        }
        state.overview.basemap = image
        state.overview.drawnFrom = drawn ?? []
        return requestOverviewDraw(&state)
    }

    /// `Y`: the centre as `LON,LAT` to five decimals (about a metre), the way `--at`, `reverse` and
    /// `route` read a point back; said in the status bar, so the plain mode shows it too.
    static func copyPosition(_ state: inout AppState) -> [Effect] {
        guard let centre = state.map?.viewport.center.geographic else { return [] }
        let position = centre.written()
        state.notice = .map(.copiedPosition(position))
        return [.copy(position)]
    }

    /// `E`: the part of the world the view shows as `W,S,E,N`, the way `area new --extent` and
    /// `package features --bbox` read a box, so what is on screen can be staged on other devices.
    static func copyExtent(_ state: inout AppState) -> [Effect] {
        let (columns, rows) = mapCells(state)
        guard let view = state.map?.viewport.geographicExtent(columns: Int(columns), rows: Int(rows)) else { return [] }
        let extent = view.written()
        state.notice = .map(.copiedExtent(extent))
        return [.copy(extent)]
    }
}

extension AppState {
    /// The basemap drawn online: the one chosen with `B`, else the web map's own, when mapbook can
    /// draw a layer of it.
    public var onlineBasemap: Basemap? {
        guard basemapNotShown == nil, let basemap = basemaps.chosen ?? catalog.webMap?.basemap else { return nil }
        return basemap
    }

    /// The overview's basemap: the web map's own, made for its extent and scale, whatever was
    /// chosen with `B` for the map view (a gallery basemap's town marks are black squares at the
    /// overview's scale); the one chosen only when the web map's own cannot be drawn.
    public var overviewBasemap: Basemap? {
        if let own = catalog.webMap?.basemap, BasemapObstacle.of(catalog.webMap, chosen: nil) == nil { return own }
        return onlineBasemap
    }

    /// Why the web map's basemap cannot be drawn, when it cannot (`BasemapObstacle`).
    public var basemapNotShown: Notice? {
        switch BasemapObstacle.of(catalog.webMap, chosen: basemaps.chosen) {
        case .projection(let reference)?: .basemapProjection(reference)
        case .notDrawable(let layer)?: .basemapNotDrawable(layer)
        case nil: nil
        }
    }

    /// A state whose whole app is one map (`mapbook open FILE`): leaving the map quits.
    public static func standaloneMap(title: String, sourceName: String, home: GeoExtent?, bookmarks: [Bookmark] = []) -> AppState {
        var state = AppState(portalHost: "", webMapID: .exploreMaine, phase: .loaded)
        state.requests.mapSessions = 1
        // A side-loaded package's bookmarks come from the file, cleaned as a web map's are.
        var map = App.newMap(session: 1, title: title, sourceName: sourceName, home: home, bookmarks: DisplayText.bookmarks(bookmarks), layout: nil)
        map.isStandalone = true
        state.screen = .map(map)
        return state
    }

}
