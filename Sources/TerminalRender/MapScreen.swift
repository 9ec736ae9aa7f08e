import AppModel
import Foundation
import MapRender
import MapbookCore
import TerminalCanvas
import Geometry
import UserFiles

/// The map view, full screen: a header, the last drawn picture of the map, a list of bookmarks or
/// layers over it when open, and a footer with the centre, zoom, scale and drawing mode.
enum MapScreen {
    static func draw(_ map: MapViewState, state: AppState, into frame: inout Frame, options: RenderOptions) {
        let theme = options.theme
        // Edits waiting first: the header keeps a third of the width, and they must not be cut off.
        let right = (state.library.editsWaiting(in: state.editsOfOpenMap).map { $0 + " · " } ?? "") + (map.isStandalone ? "file on this device" : map.sourceName)
        Renderer.drawHeader([map.title, "Map"], right: right, into: &frame, options: options)
        let rect = ScreenLayout.mapRect(width: frame.width, height: frame.height)
        drawMap(map, state: state, in: rect, into: &frame, options: options)
        if let status = map.status {
            for (offset, line) in DisplayWidth.wrapped(status, width: max(rect.width - 4, 1)).prefix(3).enumerated() {
                frame.putCentred(line, in: rect, y: rect.y + rect.height / 2 + offset, style: offset == 0 ? theme.title : theme.dim)
            }
        }
        if let ruler = map.ruler { drawRulerCard(ruler, map: map, state: state, in: rect, into: &frame, options: options) }
        if let found = map.identify { IdentifyCard.draw(found, editable: state.editsOfOpenMap != nil, in: rect, into: &frame, options: options) }
        if map.panel == .layers {
            LayerListPanel.draw(map, rows: state.mapPanelRows, in: rect, into: &frame, options: options)
        } else if map.panel == .pins {
            PinsTable.draw(map, state: state, in: rect, into: &frame, options: options)
        } else if map.panel != nil {
            drawPanel(map, rows: state.mapPanelRows, in: rect, into: &frame, options: options)
        }
        if let here = map.whatsHere { drawWhatsHere(here, in: rect, into: &frame, options: options) }
        if let place = map.goTo {
            let lines = place.goToLines(from: state.places.here, units: state.preferences.units)
            drawCornerCard("Go to \(place.label)", lines: lines.enumerated().map { ($0.element, $0.offset == 0 ? options.theme.card.overlaid(by: CellStyle(bold: true)) : options.theme.card.overlaid(by: options.theme.dim)) },
                           closing: " \(state.key(.map(.goTo))) close ", in: rect, into: &frame, options: options)
        }
        if map.card == .directions { DirectionsPanel.draw(state.directions, in: rect, into: &frame, options: options) }
        // A card's keys; else what the last drawing could not draw, else the map's keys.
        let hints = FocusKeys.of(state)?.joined(separator: "  ")
            ?? map.problems.first ?? (KeyMap.hints(in: .map, bindings: state.preferences.keyBindings).joined(separator: "  ") + "  Esc back")
        Renderer.drawStatusBar(state, hints: hints, position: position(map, options: options),
                               showsNetwork: !map.isStandalone, into: &frame, options: options)
    }

    /// `w`: a card at the top left saying what is at the centre, where that is, and which areas hold it.
    private static func drawWhatsHere(_ here: WhatsHere, in rect: Rect, into frame: inout Frame, options: RenderOptions) {
        let theme = options.theme
        var lines: [(String, CellStyle)] = []
        switch here.answer {
        case nil: lines.append((options.glyphs == .unicode ? "Asking…" : "Asking...", theme.card.overlaid(by: theme.dim)))
        case .address(let label)?: lines.append((label, theme.card.overlaid(by: CellStyle(bold: true))))
        case .near(let sentence, let problem)?:
            if let problem { lines.append((problem, theme.card.overlaid(by: theme.dim))) }
            lines.append((sentence, theme.card.overlaid(by: CellStyle(bold: true))))
        case .nothing?: lines.append(("Nothing known here.", theme.card.overlaid(by: theme.dim)))
        }
        lines.append((String(format: "%.4f°%@ %.4f°%@", abs(here.point.latitude), here.point.latitude >= 0 ? "N" : "S",
                             abs(here.point.longitude), here.point.longitude >= 0 ? "E" : "W"), theme.card.overlaid(by: theme.dim)))
        lines.append((here.areas.isEmpty ? "In no map area of this web map." : "In " + here.areas.joined(separator: ", "), theme.card))
        drawCornerCard("What's here", lines: lines, closing: " Esc close ", in: rect, into: &frame, options: options)
    }

    /// A small card at the map's top left: a title, lines in their styles, and how to close it.
    private static func drawCornerCard(_ title: String, lines: [(String, CellStyle)], closing: String, in rect: Rect, into frame: inout Frame,
                                       options: RenderOptions) {
        let width = min(max(lines.map { DisplayWidth.of($0.0) }.max() ?? 0, 24) + 4, max(rect.width - 4, 10))
        let card = Rect(x: rect.x + 2, y: rect.y + 1, width: width, height: min(lines.count + 2, max(rect.height - 2, 3)))
        DocumentScreen.drawCard(card, title: title, into: &frame, options: options)
        for (offset, line) in lines.enumerated() where card.y + 1 + offset < card.maxY - 1 {
            frame.put(DisplayWidth.truncated(line.0, to: card.width - 4), x: card.x + 2, y: card.y + 1 + offset, style: line.1, limit: card.maxX - 2)
        }
        frame.put(closing, x: card.maxX - 2 - DisplayWidth.of(closing), y: card.maxY - 1, style: options.theme.card, limit: card.maxX - 1)
    }

    /// The last drawn picture of the map, and over it what the view lays on it, named in one pass.
    /// With directions shown, their stops stand for the searched place; a new area's card outlines
    /// the part of the view it takes.
    private static func drawMap(_ map: MapViewState, state: AppState, in rect: Rect, into frame: inout Frame, options: RenderOptions) {
        let route = map.card == .directions ? state.directions.current?.route : nil
        // The directions panel covers the map's right: no name goes under it.
        let covered = route == nil && map.card != .directions ? 0 : ScreenLayout.directionsPanelWidth(mapWidth: rect.width) + 1
        overlays(map, state: state).draw(over: map.image?.picture, viewport: map.viewport, into: &frame, rect: rect, theme: options.theme.map,
                                         glyphs: options.glyphs, colors: options.theme.colors, namesWidth: rect.width - covered,
                                         linesInPicture: map.image?.pixels != nil)
    }

    /// What the map view lays over its map, as `state` has it.
    static func overlays(_ map: MapViewState, state: AppState) -> MapOverlays {
        let centre = map.viewport.center.geographic
        let route = map.card == .directions ? state.directions.current?.route : nil
        let step = state.directions.current?.step
        return MapOverlays(
            identified: map.identify?.shown.flatMap { hit in hit.geometry.map { ($0, hit.card.title) } },
            ruler: map.ruler.map { MapOverlays.Ruler(path: $0.path(to: centre), points: $0.points, centre: centre) },
            route: route.map { route in
                MapOverlays.RouteLine(path: route.path, step: step.flatMap { route.maneuvers.indices.contains($0) ? route.maneuvers[$0].path : nil } ?? [],
                                      stops: route.stops.map { ($0.name, $0.point) })
            },
            pins: state.pins.all.map { ($0.title, GeoPoint(longitude: $0.longitude, latitude: $0.latitude)) },
            searched: map.goTo.map { ($0.label, $0.point) } ?? (route == nil ? map.pin.map { ($0.label, $0.point) } : nil),
            outline: { if case .newArea(let form)? = state.overlay { form.extent } else { nil } }(),
            here: state.hereMark, track: state.places.recording?.drawn ?? [])
    }

    /// `R`'s card: the distance, bearing and total to the centre.
    private static func drawRulerCard(_ ruler: Ruler, map: MapViewState, state: AppState, in rect: Rect, into frame: inout Frame,
                                      options: RenderOptions) {
        let theme = options.theme
        let centre = map.viewport.center.geographic
        var lines = [(ruler.sentence(to: centre, units: state.preferences.units), theme.card.overlaid(by: CellStyle(bold: true))),
                     ("Pan to measure · \(state.key(.map(.ruler))) or Enter adds a point", theme.card.overlaid(by: theme.dim))]
        // In a downloaded area's map the points are a new line's or area's vertices.
        if map.operational?.area != nil {
            lines.append(("Backspace takes one back · \(state.key(.map(.addFeature()))) adds a line or area through them", theme.card.overlaid(by: theme.dim)))
        }
        drawCornerCard("Ruler", lines: lines, closing: " Esc end ", in: rect, into: &frame, options: options)
    }

    /// `44.3512°N 68.2210°W  z11.0  1:288,895  braille` (`pixels` when the terminal shows the
    /// picture), and `…` while a newer view is drawing.
    static func position(_ map: MapViewState, options: RenderOptions) -> String {
        let point = map.viewport.center.geographic
        let mode = map.image?.pixels != nil ? "pixels" : options.glyphs == .unicode ? map.mode.rawValue : "ascii"
        let busy = map.isDrawing ? (options.glyphs == .unicode ? " …" : " ...") : ""
        return "\(point.degrees())  z\(String(format: "%.1f", map.viewport.zoom))  \(Format.scale(map.viewport.scale))  \(mode)\(busy)"
    }

    private static func drawPanel(_ map: MapViewState, rows: [String], in rect: Rect, into frame: inout Frame, options: RenderOptions) {
        let theme = options.theme
        let width = min(max((rows.map(DisplayWidth.of).max() ?? 0) + 10, 28), max(rect.width - 4, 10))
        let height = min(rows.count + 2, max(rect.height - 2, 3))
        let card = Rect(x: rect.maxX - width - 2, y: rect.y + 1, width: width, height: height)
        let title = map.panel == .bookmarks ? "Bookmarks" : "Basemaps"
        DocumentScreen.drawCard(card, title: title, into: &frame, options: options)
        let band = theme.card.overlaid(by: CellStyle(reverse: true))
        ScrollingList(count: rows.count, selection: map.panelSelection)
            .draw(in: card.inset(by: 1), into: &frame, band: band, ascii: options.glyphs == .ascii) { index, line, isSelected, frame in
                frame.put(DisplayWidth.truncated(rows[index], to: card.width - 4), x: card.x + 2, y: line.y,
                          style: isSelected ? band : theme.card, limit: card.maxX - 2)
            }
    }
}
