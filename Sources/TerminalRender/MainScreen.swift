import AppModel
import MapRender
import MapbookCore
import TerminalCanvas
import Geometry

/// The main screen: overview map beside (or above) the list of the web map and its areas.
enum MainScreen {
    static func draw(_ state: AppState, layout: MainLayout, into frame: inout Frame, options: RenderOptions) {
        let theme = options.theme, glyphs = Glyphs(options.glyphs)
        let title = state.catalog.webMapItem.map { $0.title.isEmpty ? "Untitled web map" : $0.title } ?? (state.catalog.hasWebMap ? "Loading…" : "No web map")
        Renderer.drawHeader([title], right: state.portal.headerName, into: &frame, options: options)

        drawOverview(state, in: layout.overview, into: &frame, options: options)
        if layout.isStacked {
            frame.put(String(repeating: glyphs.horizontal, count: layout.separator.width), x: 0, y: layout.separator.y,
                      style: theme.separator)
        } else {
            for y in layout.separator.y..<layout.separator.maxY {
                frame.put(glyphs.vertical, x: layout.separator.x, y: y, style: theme.separator)
            }
        }
        drawList(state, layout: layout, into: &frame, options: options)

        let rows = state.rows
        let hints = FocusKeys.of(state)?.joined(separator: "  ")
            ?? (state.list.focus == .overview ? "Map focused: arrows pick an area · Tab back to the list"
            : ((state.portal.signInWanted ? KeyMap.key(for: .signIn, state.preferences.keyBindings).map { ["\($0) sign in"] } ?? [] : [])
               + KeyMap.hints(for: state.catalog.phase, bindings: state.preferences.keyBindings, offline: state.portal.network.isCutOff)).joined(separator: "  "))
        let position = rows.isEmpty ? "" : "\(state.list.selection + 1)/\(rows.count)"
        Renderer.drawStatusBar(state, hints: hints, position: position, into: &frame, options: options)
    }

    // MARK: Overview

    private static func drawOverview(_ state: AppState, in rect: Rect, into frame: inout Frame, options: RenderOptions) {
        let map = overview(state, geography: options.geography)
        // The basemap picture when one was drawn for this pane's size, else the bundled outline.
        let mapPart = (columns: rect.width, rows: rect.height - 1)
        let basemap = state.overview.basemap.flatMap { image -> (picture: MapPicture, projection: MapProjection)? in
            guard (image.request.columns, image.request.rows) == mapPart, options.glyphs == .unicode else { return nil }
            return (image.picture, image.request.viewport.projection(columns: mapPart.columns, rows: mapPart.rows))
        }
        map.draw(into: &frame, rect: rect, title: state.catalog.webMapItem?.title ?? "", theme: options.theme.map, glyphs: options.glyphs,
                 colors: options.theme.colors, basemap: basemap, linesInPicture: state.overview.basemap?.pixels != nil)
    }

    /// The overview of `state`'s web map and areas over `geography`.
    static func overview(_ state: AppState, geography: OverviewGeography) -> OverviewMap {
        var shown: [OverviewArea] = []
        var selected: Int?
        for (index, area) in state.catalog.areas.enumerated() {
            guard let extent = area.extent else { continue }
            if index == state.selectedAreaIndex { selected = shown.count }
            shown.append(OverviewArea(title: area.item.title, extent: extent))
        }
        return OverviewMap(geography: geography, webMapExtent: state.webMapExtent, areas: shown, selected: selected,
                           pins: state.pins.all.map { ($0.title, GeoPoint(longitude: $0.longitude, latitude: $0.latitude)) },
                           here: state.hereMark)
    }

    // MARK: List

    static func drawList(_ state: AppState, layout: MainLayout, into frame: inout Frame, options: RenderOptions) {
        let theme = options.theme, list = layout.list
        let rows = state.rows

        // Caption: the filter being typed, or what the list holds.
        let caption: [Span]
        if state.isEditingFilter || !state.list.filterText.isEmpty {
            let cursor = state.isEditingFilter ? (options.glyphs == .unicode ? "▏" : "_") : ""
            caption = [Span(" / ", theme.heading), Span(state.list.filterText + cursor, theme.title),
                       Span("  \(max(rows.count, 0)) of \(state.catalog.areas.count + 1)", theme.dim)]
        } else if state.catalog.phase == .loaded, state.portal.network.isCutOff {
            // Offline only what is here is listed: say how many of how many, and their size.
            let here = rows.compactMap { row -> Int? in if case .area(let index) = row { index } else { nil } }
            let size = here.reduce(Int64(0)) { $0 + state.catalog.areas[$1].size }
            caption = [Span(" \(here.count) of \(state.catalog.areas.count) map areas on this device", theme.heading),
                       Span(size > 0 ? " · \(Format.bytes(size))" : "", theme.dim)]
        } else if state.catalog.phase == .loaded {
            let total = state.catalog.areas.reduce(Int64(0)) { $0 + $1.size }
            let count = state.catalog.areas.count == 1 ? "1 map area" : "\(state.catalog.areas.count) map areas"
            caption = [Span(" \(count)", theme.heading), Span(total > 0 ? " · \(Format.bytes(total)) in all" : "", theme.dim)]
        } else {
            caption = []
        }
        frame.put(caption, x: list.x, y: list.y, limit: list.maxX)

        switch state.catalog.phase {
        case .starting(let what):
            drawCard([Span(what, theme.title)], in: layout.entries, into: &frame, options: options)
            return
        case .loading:
            drawCard([Span("Loading the web map…", theme.title), Span(state.portal.host, theme.dim)],
                     in: layout.entries, into: &frame, options: options)
            return
        case .unreachable(let host):
            drawCard([Span("No internet connection", theme.error), Span("Cannot reach \(host).", .plain),
                      Span("mapbook tries again by itself; \(state.key(.refresh)) tries now.", theme.dim)], in: layout.entries, into: &frame, options: options)
            return
        case .notAnswering(let host, let sentence):
            drawCard([Span("\(host) is not answering", theme.error), Span(sentence, .plain),
                      Span("mapbook tries again by itself; \(state.key(.refresh)) tries now.", theme.dim)], in: layout.entries, into: &frame, options: options)
            return
        case .failed(let sentence):
            drawCard([Span(state.portal.signInWanted ? "Signing in is needed" : "The portal answered with an error", theme.error), Span(sentence, .plain),
                      Span(state.portal.signInWanted ? "Press \(state.key(.signIn)) to sign in, \(state.key(.refresh)) to try again." : "Press \(state.key(.refresh)) to try again.", theme.dim)],
                     in: layout.entries, into: &frame, options: options)
            return
        case .loaded:
            break
        }

        let entries = layout.entries
        if rows.isEmpty {
            drawCard([Span("Nothing matches “\(state.list.filterText)”.", theme.title), Span("Esc clears the filter.", theme.dim)],
                     in: entries, into: &frame, options: options)
            return
        }
        let capacity = layout.listCapacity
        let top = min(state.list.top, max(rows.count - 1, 0))
        for (slot, index) in (top..<min(top + capacity, rows.count)).enumerated() {
            let rect = Rect(x: entries.x, y: entries.y + slot * MainLayout.entryHeight, width: entries.width,
                            height: min(MainLayout.entryHeight - 1, entries.maxY - (entries.y + slot * MainLayout.entryHeight)))
            drawEntry(rows[index], state: state, selected: index == state.list.selection, in: rect, into: &frame, options: options)
        }
        let y = entries.y + MainLayout.entryHeight
        if y < entries.maxY, rows.count == 1, state.list.filterText.isEmpty {
            let note = state.hasNoAreas ? " This web map has no map areas."
                : state.portal.network.isCutOff ? " No map areas are on this device yet; they download when online." : ""
            frame.put(note, x: entries.x, y: y, style: theme.dim, limit: entries.maxX)
        }
    }

    /// Lines centred in `rect`, each wrapped to its width.
    static func drawCard(_ lines: [Span], in rect: Rect, into frame: inout Frame, options: RenderOptions) {
        let width = max(rect.width - 4, 1)
        let wrapped = lines.flatMap { span in DisplayWidth.wrapped(span.text, width: width).map { Span($0, span.style) } }
        let top = rect.y + max((rect.height - wrapped.count) / 2, 0)
        for (offset, line) in wrapped.enumerated() where top + offset < rect.maxY {
            frame.putCentred(line.text, in: rect, y: top + offset, style: line.style)
        }
    }

    static func drawEntry(_ row: ListRow, state: AppState, selected: Bool, in rect: Rect,
                                  into frame: inout Frame, options: RenderOptions) {
        let theme = options.theme, glyphs = Glyphs(options.glyphs)
        guard let item = state.item(of: row), rect.height > 0 else { return }
        // The selection is a marker bar (bright while the list has focus) and a band across the row's
        // text (a background; reverse video without colour), so it cannot be missed.
        if selected {
            let marker = state.list.focus == .list ? theme.marker : theme.dim
            for y in rect.y..<rect.maxY { frame.put(glyphs.marker, x: rect.x, y: y, style: marker) }
        }
        let thumbnailWidth = rect.width >= 40 ? 12 : 8
        let thumbnail = Rect(x: rect.x + 1, y: rect.y, width: thumbnailWidth, height: rect.height)
        if let image = state.catalog.thumbnails[item.id] {
            ImageArt.draw(image, into: &frame, rect: thumbnail, glyphs: options.glyphs, colors: theme.colors)
        } else {
            let placeholder = options.glyphs == .unicode ? "░" : "."
            frame.fill(thumbnail, with: Cell(theme.colors ? " " : Character(placeholder),
                                             style: theme.colors ? CellStyle(background: 238) : theme.dim))
        }

        let x = thumbnail.maxX + 1, limit = rect.maxX - 1
        let title = state.title(of: row)
        frame.put(highlighted(title, matches: state.filterMatches(in: row), width: limit - x, theme: theme), x: x, y: rect.y, limit: limit,
                  base: selected ? theme.title.overlaid(by: theme.selectedTitle) : theme.title)
        if rect.height > 1 {
            frame.put(DisplayWidth.truncated(item.snippet ?? "", to: limit - x), x: x, y: rect.y + 1,
                      style: theme.dim, limit: limit)
        }
        if rect.height > 2 {
            frame.put(theme.spans(StatusText.line(row, state: state, ascii: options.glyphs == .ascii, width: limit - x)), x: x, y: rect.y + 2,
                      limit: limit)
        }
        if rect.height > 3 {
            var facts = item.modified.map { ["Updated \(Format.date($0))"] } ?? []
            if case .nearest(let place) = state.list.order, case .area(let index) = row, let meters = state.catalog.areas[index].distance(from: place.point) {
                facts.append(meters < 1 ? "holds \(place.label)" : "\(Format.distance(meters)) from \(place.label)")
            }
            frame.put(DisplayWidth.truncated(facts.joined(separator: " · "), to: limit - x), x: x, y: rect.y + 3, style: theme.dim, limit: limit)
        }
        if selected {
            let band = state.list.focus == .list ? theme.selectedRow : theme.selectedRowUnfocused
            frame.restyle(Rect(x: thumbnail.maxX, y: rect.y, width: rect.maxX - thumbnail.maxX, height: rect.height)) { style in
                var banded = style.overlaid(by: band)
                if style.foreground == nil { banded.foreground = theme.selectedRowText }
                return banded
            }
        }
    }

    /// The title with the characters the filter matched picked out; cut with "…" to fit.
    private static func highlighted(_ title: String, matches: [Int], width: Int, theme: UITheme) -> [Span] {
        let shown = DisplayWidth.truncated(title, to: width)
        guard !matches.isEmpty else { return [Span(shown)] }
        let matched = Set(matches)
        return shown.enumerated().map { Span(String($0.element), matched.contains($0.offset) ? theme.match : .plain) }
    }
}
