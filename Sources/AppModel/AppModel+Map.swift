import Foundation
import MapRender
import MapSources
import MapbookCore
import OfflineLibrary

/// The map view: opening a source, moving the view, and drawing off the UI thread. A burst of
/// keys changes the viewport at once, key by key (none is dropped); drawing runs one at a time and,
/// when it ends, starts again with the latest viewport if that changed meanwhile.
extension AppModel {
    /// `m` (or Enter on the web map): the selected row's map. An area draws from its downloaded
    /// package, offline; the web map, and areas not downloaded, from the online basemap.
    func openMap() {
        guard let row = state.selectedRow else { return }
        let bookmarks = state.webMap?.bookmarks ?? []
        switch row {
        case .area(let index):
            let area = state.areas[index]
            let title = area.item.title.isEmpty ? "Untitled" : area.item.title
            if let record = state.downloads[area.item.id], let path = library.mapPackagePaths(record).first {
                let name = "\(title) · on this device"
                openMap(title: title, sourceName: name, home: area.item.extent, bookmarks: bookmarks) {
                    try PackageMapSource(path: path)
                }
            } else if state.network == .offline {
                state.message = "\(title) is not on this device: download it (d) to see its map offline."
            } else {
                openBasemap(title: title, home: area.item.extent, bookmarks: bookmarks)
            }
        case .webMap:
            guard state.network != .offline else {
                state.message = "Offline: the web map's basemap needs the network; open a downloaded area's map with m."
                return
            }
            let home = state.webMap?.initialExtent?.geographic ?? state.webMapItem?.extent
            openBasemap(title: state.webMapItem?.title ?? "Web map", home: home, bookmarks: bookmarks)
        }
    }

    private func openBasemap(title: String, home: GeoExtent?, bookmarks: [Bookmark]) {
        guard let basemap = onlineBasemap else {
            state.message = "This web map's basemap is not a vector tile layer, which is what mapbook draws online."
            return
        }
        openMap(title: title, sourceName: "\(basemap.title) · online", home: home, bookmarks: bookmarks, source: basemap.open)
    }

    /// The web map's vector tile basemap, as a name and a way to connect to it (off the UI thread).
    var onlineBasemap: (title: String, open: @Sendable () async throws -> any MapSource)? {
        guard let layer = state.webMap?.basemapLayers.first(where: { $0.layerType == "VectorTileLayer" }) else { return nil }
        let http = self.http, cache = tileCacheDirectory
        return (layer.title ?? "basemap", {
            try await TileServiceSource.connect(styleURL: layer.styleURL, serviceURL: layer.url, title: layer.title, http: http,
                                                cacheDirectory: cache)
        })
    }

    /// Opens the map screen at once (with the last frame area blank) and the source behind it.
    func openMap(title: String, sourceName: String, home: GeoExtent?, bookmarks: [Bookmark], standalone: Bool = false,
                 source open: @escaping @Sendable () async throws -> any MapSource) {
        closeMap()
        let columns = max(state.layout.mapColumns, 40), rows = max(state.layout.mapRows, 10)
        let world = GeoExtent(xmin: -180, ymin: -80, xmax: 180, ymax: 80)
        var map = MapViewState(title: TerminalText.sanitizedLine(title, maxLength: 120), sourceName: sourceName,
                               viewport: MapViewport(fitting: home ?? world, columns: columns, rows: rows),
                               homeExtent: home, bookmarks: bookmarks)
        map.status = "Opening the map…"
        map.isStandalone = standalone
        state.map = map
        state.screen = .map
        state.message = nil
        mapOpening = Task { [weak self] in
            do {
                let source = try await Task.detached { try await open() }.value
                self?.mapOpened(source)
            } catch {
                guard !Task.isCancelled else { return }
                self?.state.map?.status = TerminalText.sanitizedLine(error.userSentence, maxLength: 300)
            }
        }
    }

    private func mapOpened(_ source: any MapSource) {
        guard state.map != nil else { return }
        mapLoader = TileLoader(source: source)
        state.map?.status = nil
        // Layer names and problems come from inside packages: sanitized like network strings.
        state.map?.layers = source.layerNames.map { TerminalText.sanitizedLine($0, maxLength: 80) }
        if let problem = (source as? PackageMapSource)?.styleProblem { state.map?.problems = [TerminalText.sanitizedLine(problem)] }
        if state.map?.homeExtent == nil { state.map?.homeExtent = source.extent }
        // Opened before the terminal's size was known: fit the home view to it now.
        goHome()
        requestMapDraw()
    }

    func closeMap() {
        mapOpening?.cancel()
        mapDrawing?.cancel()
        mapOpening = nil
        mapDrawing = nil
        mapRedrawWanted = false
        mapLoader = nil
        state.map = nil
    }

    /// Map keys; false for intents the rest of the app handles (quit, help, downloads).
    func handleInMap(_ intent: Intent) -> Bool {
        guard let map = state.map else { return false }
        if map.panel != nil, handleInPanel(intent) { return true }
        let columns = Double(max(state.layout.mapColumns, 1)), rows = Double(max(state.layout.mapRows, 1))
        switch intent {
        case .moveUp: move { $0.panned(dotsX: 0, dotsY: -rows) }
        case .moveDown: move { $0.panned(dotsX: 0, dotsY: rows) }
        case .moveLeft: move { $0.panned(dotsX: -columns / 2, dotsY: 0) }
        case .moveRight: move { $0.panned(dotsX: columns / 2, dotsY: 0) }
        case .pan(let dx, let dy): move { $0.panned(dotsX: Double(-dx * 2), dotsY: Double(-dy * 4)) }
        case .zoomIn: move { $0.zoomed(by: 1) }
        case .zoomOut: move { $0.zoomed(by: -1) }
        case .scroll(let notches): move { $0.zoomed(by: Double(-notches)) }
        case .zoomAt(let steps, let column, let row):
            let anchor = (x: Double(column * 2 + 1) - columns, y: Double(row * 4 + 2) - rows * 2)
            move { $0.zoomed(by: Double(steps), anchor: anchor) }
        case .home: goHome()
        case .showBookmarks:
            guard !map.bookmarks.isEmpty else { state.message = "This web map has no bookmarks."; return true }
            state.map?.panel = .bookmarks
            state.map?.panelSelection = 0
        case .showLayers:
            guard !map.layers.isEmpty else { state.message = "No layers to list yet."; return true }
            state.map?.panel = .layers
            state.map?.panelSelection = 0
        case .cycleMapMode:
            state.map?.mode = map.mode.next
            state.message = "Drawing in \(map.mode.next.rawValue)"
            requestMapDraw()
        case .back:
            if map.isStandalone {
                state.isQuitting = true
            } else {
                closeMap()
                state.screen = .main
                state.message = state.network == .offline ? Self.offlineMessage : nil
            }
        case .quit, .toggleHelp, .download, .downloadAll, .cancelDownload, .remove, .update, .refresh:
            return false
        default:
            break
        }
        return true
    }

    /// The bookmark or layer list: ↑↓ choose, Enter goes or toggles, Space toggles, Esc closes.
    private func handleInPanel(_ intent: Intent) -> Bool {
        guard let map = state.map, let panel = map.panel else { return false }
        let count = map.panelRows.count
        switch intent {
        case .moveUp: state.map?.panelSelection = max(map.panelSelection - 1, 0)
        case .moveDown: state.map?.panelSelection = min(map.panelSelection + 1, max(count - 1, 0))
        case .top: state.map?.panelSelection = 0
        case .bottom: state.map?.panelSelection = max(count - 1, 0)
        case .back: state.map?.panel = nil
        case .showBookmarks where panel == .bookmarks, .showLayers where panel == .layers: state.map?.panel = nil
        case .open where panel == .bookmarks:
            guard map.bookmarks.indices.contains(map.panelSelection),
                  let extent = map.bookmarks[map.panelSelection].extent.geographic else { return true }
            state.map?.panel = nil
            state.message = "Bookmark: \(map.bookmarks[map.panelSelection].name)"
            fit(extent)
        case .open, .toggle:
            guard panel == .layers, map.layers.indices.contains(map.panelSelection) else { return true }
            let name = map.layers[map.panelSelection]
            if map.hiddenLayers.contains(name) { state.map?.hiddenLayers.remove(name) } else { state.map?.hiddenLayers.insert(name) }
            requestMapDraw()
        case .moveLeft, .moveRight, .pan, .zoomIn, .zoomOut, .zoomAt, .scroll, .home, .cycleMapMode, .showBookmarks, .showLayers:
            return false
        default:
            return intent != .quit && intent != .toggleHelp
        }
        return true
    }

    private func move(_ change: (MapViewport) -> MapViewport) {
        guard let viewport = state.map?.viewport else { return }
        state.map?.viewport = change(viewport)
        requestMapDraw()
    }

    private func goHome() {
        guard let extent = state.map?.homeExtent else { return }
        fit(extent)
    }

    private func fit(_ extent: GeoExtent) {
        // Worked out first: the right-hand side of `state.map?.x = …` runs inside the access to `state`.
        let viewport = MapViewport(fitting: extent, columns: max(state.layout.mapColumns, 1), rows: max(state.layout.mapRows, 1))
        state.map?.viewport = viewport
        requestMapDraw()
    }

    /// The terminal's size or abilities changed: a new picture (and the home view, before any
    /// move, refitted).
    func mapLayoutChanged() {
        guard state.map != nil else { return }
        if state.map?.image == nil { goHome() } else { requestMapDraw() }
    }

    var currentMapRequest: MapRequest? {
        guard let map = state.map, state.layout.mapColumns > 0, state.layout.mapRows > 0 else { return nil }
        // The list shows sanitized names; the renderer matches the package's own.
        let sourceNames = mapLoader?.source.layerNames ?? []
        let hidden = Set(map.hiddenLayers.compactMap { shown in
            map.layers.firstIndex(of: shown).flatMap { sourceNames.indices.contains($0) ? sourceNames[$0] : nil }
        })
        return MapRequest(viewport: map.viewport, columns: state.layout.mapColumns, rows: state.layout.mapRows,
                          mode: state.layout.mapUnicode ? map.mode : .ascii, hiddenLayers: hidden,
                          colors: state.layout.mapColors)
    }

    func requestMapDraw() {
        guard let loader = mapLoader, let request = currentMapRequest else { return }
        if mapDrawing != nil {
            mapRedrawWanted = true
            return
        }
        state.map?.isDrawing = true
        mapDrawCount += 1
        mapDrawing = Task { [weak self] in
            // `render` is not isolated to the UI actor: tiles load and the frame composes elsewhere.
            let image = await loader.render(request)
            self?.mapDrawn(image, by: loader)
        }
    }

    private func mapDrawn(_ image: MapImage, by loader: TileLoader) {
        mapDrawing = nil
        guard state.map != nil, loader === mapLoader else { return }
        state.map?.image = image
        state.map?.problems = image.problems.map { TerminalText.sanitizedLine($0, maxLength: 300) }
        if mapRedrawWanted || image.request != currentMapRequest {
            mapRedrawWanted = false
            requestMapDraw()
        } else {
            state.map?.isDrawing = false
        }
    }

    /// Waits until the map has been opened and drawn for the current view (tests, benchmarks).
    public func waitForMap() async {
        await mapOpening?.value
        while let drawing = mapDrawing { await drawing.value }
    }
}

extension AppModel {
    /// `mapbook open FILE`: the map is the whole app; Esc or q quits.
    public func openStandaloneMap(title: String, source: any MapSource) {
        openMap(title: title, sourceName: source.name, home: source.extent, bookmarks: [], standalone: true) { source }
    }
}
