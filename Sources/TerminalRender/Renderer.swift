import AppModel
import Location
import Foundation
import MapRender
import MapbookCore
import TerminalCanvas

/// `render(state, size) -> Frame`: the whole screen as a pure function of the state. No I/O, no
/// ncurses; the backend puts the frame on the terminal, and tests compare it as text.
public enum Renderer {
    public static func render(_ state: AppState, width: Int, height: Int, options: RenderOptions) -> Frame {
        let frame = compose(state, width: width, height: height, options: options)
        // Without UTF-8 (or with --ascii), nothing but ASCII reaches the terminal: never a dropped cell.
        return options.glyphs == .ascii ? frame.asciiOnly() : frame
    }

    /// What the map view lays over its map as `state` has it: the lines a picture in pixels has
    /// drawn into it are these.
    public static func mapOverlays(_ map: MapViewState, state: AppState) -> MapOverlays { MapScreen.overlays(map, state: state) }

    /// The lines the overview lays over its basemap (the web map's and the areas' extents): a
    /// basemap in pixels has these drawn into it.
    public static func overviewLines(_ state: AppState, theme: MapTheme) -> [MapOverlays.Line] {
        MainScreen.overview(state, geography: .empty).lines(theme: theme)
    }

    private static func compose(_ state: AppState, width: Int, height: Int, options: RenderOptions) -> Frame {
        var frame = Frame(width: width, height: height)
        let layout = ScreenLayout(display(width: width, height: height, options: options))
        if layout.isTooSmall {
            drawTooSmall(into: &frame, options: options)
            return frame
        }
        switch state.screen {
        case .main: MainScreen.draw(state, layout: layout.main, into: &frame, options: options)
        case .details(let scroll): DocumentScreen.drawDetails(state, scroll: scroll, layout: layout, into: &frame, options: options)
        case .map(let map): MapScreen.draw(map, state: state, into: &frame, options: options)
        }
        switch state.overlay {
        case .help(let scroll)?: DocumentScreen.drawHelp(scroll: scroll, layout: layout, bindings: state.preferences.keyBindings, into: &frame, options: options)
        case .confirm(let confirmation)?: DocumentScreen.drawConfirmation(confirmation, into: &frame, options: options)
        case .search(let search)?: DocumentScreen.drawSearch(search, into: &frame, options: options)
        case .pinForm(let form)?: PinFormCard.draw(form, into: &frame, options: options)
        case .signIn(let form)?: SignInCard.draw(form, host: state.portal.host, kept: state.portal.keepsSignIn, into: &frame, options: options)
        case .newArea(let form)?: NewAreaCard.draw(form, into: &frame, options: options)
        case .featureForm(let editor)?: FeatureFormCard.draw(editor, into: &frame, options: options)
        case .maps(let maps)?: WebMapsCard.draw(maps, state: state, into: &frame, options: options)
        case .filter?, nil: break
        }
        return frame
    }

    /// The display a terminal of this size offers with these options: what the model is told.
    public static func display(width: Int, height: Int, options: RenderOptions) -> Display {
        Display(width: width, height: height, colors: options.theme.colors, unicode: options.glyphs == .unicode,
                lightTheme: options.theme.colors && options.theme.map == .light)
    }

    private static func drawTooSmall(into frame: inout Frame, options: RenderOptions) {
        let needed = "\(MainLayout.minimumWidth)×\(MainLayout.minimumHeight) needed"
        let lines = ["Terminal too small", needed, "now \(frame.width)×\(frame.height)"]
        let top = max((frame.height - lines.count) / 2, 0)
        for (offset, line) in lines.enumerated() {
            frame.putCentred(line, in: frame.bounds, y: top + offset, style: offset == 0 ? options.theme.title : options.theme.dim)
        }
    }

    // MARK: Shared parts

    /// The top line: where you are, and the portal.
    static func drawHeader(_ trail: [String], right: String, into frame: inout Frame, options: RenderOptions) {
        let theme = options.theme, glyphs = Glyphs(options.glyphs)
        frame.fill(Rect(x: 0, y: 0, width: frame.width, height: 1), with: Cell(" ", style: theme.header))
        let rightText = DisplayWidth.truncated(right, to: max(frame.width / 3, 0))
        let rightStart = frame.width - DisplayWidth.of(rightText) - 1
        let text = " " + (["mapbook"] + trail).joined(separator: " \(glyphs.breadcrumb) ")
        frame.put(DisplayWidth.truncated(text, to: rightStart - 1), x: 0, y: 0, style: theme.header)
        frame.put(rightText, x: rightStart, y: 0, style: theme.headerDim)
    }

    /// The bottom line: network state, then a message or key hints, and a position on the right.
    static func drawStatusBar(_ state: AppState, hints: String, position: String, showsNetwork: Bool = true, into frame: inout Frame,
                              options: RenderOptions) {
        let theme = options.theme, glyphs = Glyphs(options.glyphs)
        let y = frame.height - 1
        frame.fill(Rect(x: 0, y: y, width: frame.width, height: 1), with: Cell(" ", style: theme.statusBar))
        let network: (String, CellStyle)
        // The map's footer has its own figures to show; when the list was synced is for the list.
        let onMap = state.screen.kind == .map
        switch state.portal.network {
        case .unknown:
            // Before the portal answers, the list on screen is the one kept from the last sync: say so, and when.
            let kept = state.catalog.phase == .loaded && !onMap ? state.portal.lastSynced.map { " · list of \(when($0))" } ?? "" : ""
            network = ("\(glyphs.connecting) connecting\(kept)", theme.statusBar)
        // Online through the fleet mirror alone: the network is up, the portal is not.
        case .online where state.portal.listedFromMirror: network = ("\(glyphs.online) mirror only · portal not answering", theme.online)
        case .online: network = ("\(glyphs.online) online", theme.online)
        case .offline, .portalNotAnswering:
            let synced = onMap ? "" : state.portal.lastSynced.map { " · synced \(when($0))" } ?? ""
            let what = state.portal.network == .offline ? "offline" : "portal not answering"
            network = ("\(glyphs.offline) \(what)\(synced)", theme.offline)
        }
        let positionStart = frame.width - DisplayWidth.of(position) - 1
        var x = 1
        if showsNetwork {
            x = frame.put(" " + network.0, x: 0, y: y, style: network.1, limit: positionStart)
            x = frame.put(" \(glyphs.vertical) ", x: x, y: y, style: theme.statusBar, limit: positionStart)
        }
        // Where this device is, once it is watched: how good the fix is, in a few words.
        if let here = state.places.here {
            let mark = options.glyphs == .unicode ? "◎ " : "* "
            x = frame.put(mark + here.brief, x: x, y: y, style: here.isCurrent ? theme.online : theme.offline, limit: positionStart)
            if let recording = state.places.recording {
                x = frame.put(" · track \(recording.recorder.count)", x: x, y: y, style: theme.statusBar, limit: positionStart)
            }
            x = frame.put(" \(glyphs.vertical) ", x: x, y: y, style: theme.statusBar, limit: positionStart)
        }
        let room = positionStart - x - 1
        // The network's state is the indicator's to say; the bar keeps the keys that still work.
        let message = state.notice?.isNetworkState == true ? nil : state.message
        // A notice longer than the line takes a line above too (two on a narrow screen), over the
        // screen's last rows, for as long as it shows: its start across the whole width, the rest
        // beside the position.
        if let message, DisplayWidth.of(message) > room, frame.height > 8 {
            let words = message.split(separator: " ", omittingEmptySubsequences: true)
            var upper: [String] = []
            var taken = 0
            for line in DisplayWidth.wrapped(message, width: frame.width - 2).prefix(2) {
                upper.append(line)
                taken += line.split(separator: " ").count
                if DisplayWidth.of(words.dropFirst(taken).joined(separator: " ")) <= room { break }
            }
            // Whole words on the upper lines (a word too long for a line is not split there).
            if taken > 0, words.prefix(taken).joined(separator: " ") == upper.joined(separator: " ") {
                for (index, line) in upper.enumerated() {
                    let row = y - upper.count + index
                    frame.fill(Rect(x: 0, y: row, width: frame.width, height: 1), with: Cell(" ", style: theme.statusBar))
                    frame.put(line, x: 1, y: row, style: theme.statusBar, limit: frame.width - 1)
                }
                frame.put(DisplayWidth.truncated(words.dropFirst(taken).joined(separator: " "), to: room), x: x, y: y, style: theme.statusBar,
                          limit: positionStart)
                frame.put(position, x: positionStart, y: y, style: theme.statusBar)
                return
            }
        }
        frame.put(DisplayWidth.truncated(message ?? hints, to: room), x: x, y: y, style: theme.statusBar, limit: positionStart)
        frame.put(position, x: positionStart, y: y, style: theme.statusBar)
    }

    /// Local wall-clock time, `10:42`.
    /// "22 Nov 14:02", in local time: a sync may be days old.
    static func when(_ date: Date) -> String {
        let c = Calendar.current.dateComponents([.day, .month, .hour, .minute], from: date)
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return String(format: "%d %@ %02d:%02d", c.day ?? 0, months[max(min((c.month ?? 1) - 1, 11), 0)], c.hour ?? 0, c.minute ?? 0)
    }
}

extension AppState {
    /// Where this device is, as the map and the overview mark it: its accuracy, and its heading
    /// while it moves (faster than a slow walk: a receiver standing still points anywhere).
    var hereMark: MapOverlays.Here? {
        switch places.here {
        case .fix(let fix, _)?:
            let moving = (fix.speed ?? 0) > 0.5 ? fix.track : nil
            return MapOverlays.Here(point: fix.position, accuracy: fix.accuracy, heading: moving)
        case .stale(let fix, _)?: return MapOverlays.Here(point: fix.position, accuracy: fix.accuracy, isCurrent: false)
        case .fixed(let point)?: return MapOverlays.Here(point: point)
        case .searching?, .noFix?, .unavailable?, nil: return nil
        }
    }
}
