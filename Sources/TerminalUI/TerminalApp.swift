@preconcurrency import CCurses
import AppModel
import Foundation
import MapRender
import Observation
import TerminalCanvas

/// The full-screen app: opens the terminal, feeds input to the model, and redraws when the
/// model's state changes (and only then: an idle screen writes nothing).
@UIActor
public final class TerminalApp {
    public struct Settings: Sendable {
        /// `--ascii`: no braille or box drawing.
        public var ascii: Bool
        /// `NO_COLOR` or a terminal without colours.
        public var noColor: Bool
        public var geography: OverviewGeography

        public init(ascii: Bool = false, noColor: Bool = ProcessInfo.processInfo.environment["NO_COLOR"].map { !$0.isEmpty } ?? false,
                    geography: OverviewGeography = .empty) {
            self.ascii = ascii; self.noColor = noColor; self.geography = geography
        }
    }

    private let model: AppModel
    private let backend: CursesBackend
    private let options: RenderOptions
    private let signalFD: Int32
    private var redrawPending = false
    /// Where a drag on the map last was, while the button is held.
    private var dragPoint: (x: Int, y: Int)?
    private var finished: CheckedContinuation<Void, Never>?

    private init(model: AppModel, backend: CursesBackend, options: RenderOptions, signalFD: Int32) {
        self.model = model; self.backend = backend; self.options = options; self.signalFD = signalFD
    }

    /// Runs until the user quits or the terminal goes away, then restores the terminal.
    public static func run(_ model: AppModel, settings: Settings) async throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw TerminalUnavailable(userMessage: "The full-screen browser needs a terminal; use a subcommand such as `mapbook areas` in scripts.")
        }
        setlocale(LC_ALL, "")
        // Braille and box drawing need UTF-8; without it, fall back to ASCII rather than print garbage.
        let glyphs: GlyphSet = settings.ascii || mb_locale_is_utf8() == 0 ? .ascii : .unicode
        guard let signalFD = SignalPipe.install() else {
            throw TerminalUnavailable(userMessage: "Cannot set up signal handling for the terminal.")
        }
        let backend = try CursesBackend(output: stdout, input: stdin)
        let theme: UITheme = settings.noColor || backend.colorCount < 8 ? .monochrome : .color
        let app = TerminalApp(model: model, backend: backend,
                              options: RenderOptions(glyphs: glyphs, theme: theme, geography: settings.geography),
                              signalFD: signalFD)
        await app.runLoop()
        backend.close()
    }

    private func runLoop() async {
        UIEventLoop.shared.watch(STDIN_FILENO) { Task { @UIActor in self.readInput() } }
        UIEventLoop.shared.watch(signalFD) { Task { @UIActor in self.readSignals() } }
        model.reload()
        redraw()
        await withCheckedContinuation { finished = $0 }
        UIEventLoop.shared.unwatch(STDIN_FILENO)
        UIEventLoop.shared.unwatch(signalFD)
    }

    private func finish() {
        finished?.resume()
        finished = nil
    }

    // MARK: Drawing

    /// Lays out, renders and flushes; re-arms observation so the next state change redraws.
    private func redraw() {
        redrawPending = false
        guard !model.state.isQuitting else { return }
        let width = backend.width, height = backend.height
        model.layoutChanged(Renderer.metrics(model.state, width: width, height: height, options: options))
        let state = withObservationTracking { model.state } onChange: { [weak self] in
            Task { @UIActor in self?.scheduleRedraw() }
        }
        backend.draw(Renderer.render(state, width: width, height: height, options: options))
    }

    /// Coalesces a burst of changes into one frame.
    private func scheduleRedraw() {
        guard !redrawPending else { return }
        redrawPending = true
        Task { @UIActor in self.redraw() }
    }

    // MARK: Input

    private func readInput() {
        for event in backend.readEvents() {
            switch event {
            case .key(let key): model.handle(key)
            case .click(let x, let y): click(x: x, y: y)
            case .drag(let x, let y): drag(x: x, y: y)
            case .release: dragPoint = nil
            case .wheel(let rows, let x, let y): wheel(rows: rows, x: x, y: y)
            case .resize: resizeToTerminal()
            case .interrupt, .hangUp: model.dispatch(.quit)
            }
        }
        if model.state.isQuitting { finish() }
    }

    private func readSignals() {
        for signal in SignalPipe.drain(signalFD) {
            if signal == SIGWINCH { resizeToTerminal() } else { model.dispatch(.quit) }
        }
        if model.state.isQuitting { finish() }
    }

    private func resizeToTerminal() {
        var rows: Int32 = 0, columns: Int32 = 0
        guard mb_terminal_size(STDOUT_FILENO, &rows, &columns) == 0 else { return }
        backend.resize(width: Int(columns), height: Int(rows))
        redraw()
    }

    /// On the map, the wheel zooms toward the pointer; elsewhere it scrolls.
    private func wheel(rows: Int, x: Int, y: Int) {
        let rect = MapScreen.mapRect(width: backend.width, height: backend.height)
        if model.state.screen == .map, rect.contains(x: x, y: y) {
            model.dispatch(.zoomAt(steps: -rows, column: x - rect.x, row: y - rect.y))
        } else {
            model.dispatch(.scroll(rows))
        }
    }

    /// Dragging the map moves it with the pointer.
    private func drag(x: Int, y: Int) {
        guard model.state.screen == .map, let last = dragPoint else { return }
        dragPoint = (x, y)
        if x != last.x || y != last.y { model.dispatch(.pan(columns: x - last.x, rows: y - last.y)) }
    }

    private func click(x: Int, y: Int) {
        if model.state.screen == .map {
            dragPoint = (x, y)
            return
        }
        let state = model.state
        guard state.screen == .main, !state.showingHelp,
              !MainLayout.isTooSmall(width: backend.width, height: backend.height) else { return }
        let layout = MainLayout(width: backend.width, height: backend.height)
        if let row = layout.row(atX: x, y: y, top: state.listTop), row < state.rows.count {
            model.dispatch(.selectRow(row))
        }
    }
}
