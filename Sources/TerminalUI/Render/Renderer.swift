import AppModel
import Foundation
import MapRender
import MapbookCore
import TerminalCanvas

/// `render(state, size) -> Frame`: the whole screen as a pure function of the state. No I/O, no
/// ncurses; the backend puts the frame on the terminal, and tests compare it as text.
public enum Renderer {
    public static func render(_ state: AppState, width: Int, height: Int, options: RenderOptions) -> Frame {
        var frame = Frame(width: width, height: height)
        if MainLayout.isTooSmall(width: width, height: height) {
            drawTooSmall(into: &frame, options: options)
            return frame
        }
        switch state.screen {
        case .main: MainScreen.draw(state, into: &frame, options: options)
        case .details: DocumentScreen.drawDetails(state, into: &frame, options: options)
        case .map: MapScreen.draw(state, into: &frame, options: options)
        }
        if state.showingHelp { DocumentScreen.drawHelp(state, into: &frame, options: options) }
        if let confirmation = state.confirmation { DocumentScreen.drawConfirmation(confirmation, into: &frame, options: options) }
        return frame
    }

    /// What fits at this size, for the model to page and scroll by.
    public static func metrics(_ state: AppState, width: Int, height: Int, options: RenderOptions) -> LayoutMetrics {
        let layout = MainLayout(width: width, height: height)
        let map = MapScreen.mapRect(width: width, height: height)
        var metrics = LayoutMetrics(listCapacity: layout.listCapacity, mapColumns: map.width, mapRows: map.height,
                                    mapColors: options.theme.colors, mapUnicode: options.glyphs == .unicode,
                                    overviewColumns: layout.overview.width, overviewRows: max(layout.overview.height - 1, 0))
        if state.showingHelp {
            let help = DocumentScreen.helpGeometry(width: width, height: height, options: options)
            metrics.documentPage = help.body.height
            metrics.documentMaxScroll = max(help.lines.count - help.body.height, 0)
        } else if state.screen == .details {
            let body = DocumentScreen.detailsBody(width: width, height: height)
            let lines = DetailsDocument.lines(state, width: body.width, theme: options.theme)
            metrics.documentPage = body.height
            metrics.documentMaxScroll = max(lines.count - body.height, 0)
        }
        return metrics
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
        switch state.network {
        case .unknown: network = ("\(glyphs.connecting) connecting", theme.statusBar)
        case .online: network = ("\(glyphs.online) online", theme.online)
        case .offline:
            let synced = state.lastSynced.map { " · last synced \(clock($0))" } ?? ""
            network = ("\(glyphs.offline) offline\(synced)", theme.offline)
        }
        let positionStart = frame.width - DisplayWidth.of(position) - 1
        var x = 1
        if showsNetwork {
            x = frame.put(" " + network.0, x: 0, y: y, style: network.1, limit: positionStart)
            x = frame.put(" \(glyphs.vertical) ", x: x, y: y, style: theme.statusBar, limit: positionStart)
        }
        frame.put(DisplayWidth.truncated(state.message ?? hints, to: positionStart - x - 1), x: x, y: y,
                  style: theme.statusBar, limit: positionStart)
        frame.put(position, x: positionStart, y: y, style: theme.statusBar)
    }

    /// Local wall-clock time, `10:42`.
    static func clock(_ date: Date) -> String {
        let c = Calendar.current.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", c.hour ?? 0, c.minute ?? 0)
    }
}
