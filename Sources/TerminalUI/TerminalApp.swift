@preconcurrency import CCurses
import AppModel
import AppRuntime
import CTerminal
import EventLoop
import Foundation
import MapRender
import MapbookCore
import Observation
import PixelRender
import TerminalCanvas
import TerminalRender
import UserFiles

/// The full-screen app: opens the terminal, feeds input to the model, and redraws when the
/// model's state changes (and only then: an idle screen writes nothing).
@UIActor
public final class TerminalApp {
    public struct Settings: Sendable {
        /// `--ascii`: no braille or box drawing.
        public var ascii: Bool
        /// `NO_COLOR` or a terminal without colours.
        public var noColor: Bool
        /// The overview's geography, being decoded (on the work pool) while the terminal is set up
        /// and the library read; the first frame waits for it.
        public var geography: Task<OverviewGeography, Never>
        /// The `theme` setting.
        public var theme: ColorTheme
        /// `MAPBOOK_READY_SIGNAL=1`: say in the terminal's title when the screen is idle
        /// (`CursesBackend.signalReady`), for end-to-end tests.
        public var readySignal: Bool
        /// The `graphics` setting (or `--graphics`): pictures where the terminal shows them.
        public var graphics: GraphicsMode
        /// Told the cell size when the map is drawn in pixels (the programs' runtimes read it).
        public var pixels: PixelDrawing?

        public init(ascii: Bool = false, noColor: Bool = ProcessInfo.processInfo.environment["NO_COLOR"].map { !$0.isEmpty } ?? false,
                    geography: Task<OverviewGeography, Never> = Task { .empty }, theme: ColorTheme = .auto,
                    readySignal: Bool = ProcessInfo.processInfo.environment["MAPBOOK_READY_SIGNAL"] == "1", graphics: GraphicsMode = .off,
                    pixels: PixelDrawing? = nil) {
            self.ascii = ascii; self.noColor = noColor; self.geography = geography; self.theme = theme; self.readySignal = readySignal
            self.graphics = graphics; self.pixels = pixels
        }
    }

    private let program: Program
    private let backend: CursesBackend
    private var options: RenderOptions
    private let geography: Task<OverviewGeography, Never>
    private var redrawPending = false
    private let readySignal: Bool
    private var finished: CheckedContinuation<Void, Never>?
    /// The map's picture, when the terminal shows pictures.
    private let pictures: PicturePresenter?
    private let pixels: PixelDrawing?
    /// Why the terminal's pictures are not used, told once the program runs.
    private let picturesProblem: String?
    /// The user quit, perhaps before the first frame (while it waited for the library).
    private var hasFinished = false
    /// Counts the questions put to tmux (a resize, a focus change): an answer to one that a later
    /// one replaced is not used.
    private var tmuxAsked = 0

    /// Resizes, and requests to stop.
    private static let terminalSignals = [SIGWINCH, SIGINT, SIGTERM, SIGHUP]

    private init(program: Program, backend: CursesBackend, options: RenderOptions, geography: Task<OverviewGeography, Never>, readySignal: Bool,
                 pictures: PicturePresenter?, pixels: PixelDrawing?, picturesProblem: String?) {
        self.program = program; self.backend = backend; self.options = options; self.geography = geography; self.readySignal = readySignal
        self.pictures = pictures; self.pixels = pixels; self.picturesProblem = picturesProblem
    }

    /// Whether a terminal of type `term` can show the full screen: not one that says it cannot move
    /// the cursor (`dumb`, as Emacs' shell and some CI logs set), nor none at all. Such terminals get
    /// the plain mode, as `less` and `git` fall back to plain output.
    public nonisolated static func canDraw(term: String?) -> Bool {
        guard let term = term?.trimmingCharacters(in: .whitespaces), !term.isEmpty else { return false }
        return !["dumb", "unknown"].contains(term.lowercased())
    }

    /// Runs until the user quits or the terminal goes away, then restores the terminal. Each
    /// program that ends is handed to `next` (to shut it down), and the program `next` gives runs
    /// on the same screen (another web map, opened from the Maps card), with no flash of the shell.
    public static func run(_ program: Program, settings: Settings,
                           next: @escaping @UIActor (Program) async -> Program? = { _ in nil }) async throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw TerminalUnavailable(userMessage: "The full-screen browser needs a terminal; use a subcommand such as `mapbook areas` in scripts, or --plain.")
        }
        setlocale(LC_ALL, "")
        // Braille and box drawing need UTF-8; without it, fall back to ASCII rather than print garbage.
        let glyphs: GlyphSet = settings.ascii || mb_locale_is_utf8() == 0 ? .ascii : .unicode
        guard Signals.route(terminalSignals, to: { _ in }) else {
            throw TerminalUnavailable(userMessage: "Cannot set up signal handling for the terminal.")
        }
        // Asked before curses reads the input, so the terminal's answers never reach it as keys.
        let environment = ProcessInfo.processInfo.environment
        let (decision, answers, tmux) = decideGraphics(settings, ascii: glyphs == .ascii, environment: environment)
        if let (graphics, cell) = decision.pictures {
            settings.pixels?.use(cellSize: cell)
            settings.pixels?.showsMovesAtOnce = graphics != .iterm
        }
        let pictures = decision.pictures.map { PicturePresenter(graphics: $0.0, passthrough: tmux?.passthrough) }
        let backend = try CursesBackend(output: stdout, input: stdin)
        // Under tmux, the pane's focus is asked for: it says when tmux may have shown another window.
        let reportsFocus = pictures?.passthrough != nil
        if reportsFocus { backend.write(Array("\u{1B}[?1004h".utf8)) }
        let theme = UITheme.chosen(settings.theme, noColor: settings.noColor, colorCount: backend.colorCount,
                                   lightBackground: GraphicsProbe.lightBackground(answers, environment: environment))
        let options = RenderOptions(glyphs: glyphs, theme: theme)
        var current: Program? = program
        while let program = current {
            await TerminalApp(program: program, backend: backend, options: options, geography: settings.geography,
                              readySignal: settings.readySignal, pictures: pictures, pixels: settings.pixels,
                              picturesProblem: decision.problem).runLoop()
            current = await next(program)
        }
        if let bytes = pictures?.close(), !bytes.isEmpty { backend.write(bytes) }
        if reportsFocus { backend.write(Array("\u{1B}[?1004l".utf8)) }
        backend.close()
    }

    /// Pictures or characters for this terminal, and what it answered when asked (see
    /// `GraphicsProbe`): it is asked for pictures, or for its background under the `auto` theme
    /// (not under tmux, which answers for itself, nor on the Linux console, which shows no
    /// pictures and would print the questions it does not know). Under tmux, with a way named,
    /// tmux is asked whether it lets pictures through, and where the pane lies.
    private static func decideGraphics(_ settings: Settings, ascii: Bool, environment: [String: String])
        -> (decision: (pictures: (GraphicsProtocol, cell: (width: Int, height: Int))?, problem: String?), answers: GraphicsProbe.Answers?,
            tmux: TmuxPassthrough.Answer?) {
        let picturesWanted = settings.pixels != nil && ![.off, .braille, .blocks, .ascii].contains(settings.graphics) && !ascii
        let windowCell = GraphicsProbe.windowCell(STDOUT_FILENO)
        let forPictures = picturesWanted && (settings.graphics == .auto || windowCell == nil)
        let forTheme = settings.theme == .auto && !settings.noColor
        let mayAsk = environment["TMUX"] == nil && environment["TERM"] != "linux" && (forPictures || forTheme)
        let answers = mayAsk ? GraphicsProbe.ask(input: STDIN_FILENO, output: STDOUT_FILENO, pictures: forPictures) : nil
        guard picturesWanted else { return ((nil, nil), answers, nil) }
        let tmux = environment["TMUX"] != nil && GraphicsProbe.named(settings.graphics) != nil ? TmuxPassthrough.ask(environment: environment) : nil
        return (GraphicsProbe.decide(settings.graphics, environment: environment, ascii: ascii, answers: answers, windowCell: windowCell, tmux: tmux),
                answers, tmux)
    }

    private func runLoop() async {
        UIEventLoop.shared.watch(STDIN_FILENO) { Task { @UIActor in self.readInput() } }
        Signals.route(Self.terminalSignals) { signal in Task { @UIActor in self.received(signal) } }
        program.send(.terminal(.resized(display)))
        program.useClipboard { [backend] text in backend.copy(text) }
        program.holdBackgroundWorkUntilShown()
        program.send(.started)
        if let picturesProblem { program.send(.terminal(.picturesUnavailable(picturesProblem))) }
        await libraryRead(within: .milliseconds(150))
        options.geography = await geography.value
        redraw()
        program.shown()
        if !hasFinished { await withCheckedContinuation { finished = $0 } }
        UIEventLoop.shared.unwatch(STDIN_FILENO)
    }

    /// Waits until what is on this device has been read (a few milliseconds, on the work pool), or
    /// `limit`: a first frame drawn without the area list is drawn again at once with it, which
    /// cost the start a whole frame (docs/benchmarks.md, start-up). A map opened from a file has
    /// no library, and does not wait (`AppState.isReadyToShow`).
    private func libraryRead(within limit: Duration) async {
        let read = UIMoment(limit: limit)
        watch(until: read)
        await read.wait()
    }

    private func watch(until read: UIMoment) {
        guard !read.hasArrived else { return }
        let isRead = withObservationTracking { program.state.isReadyToShow } onChange: { [weak self] in
            Task { @UIActor in self?.watch(until: read) }
        }
        if isRead { read.arrive() }
    }

    private func finish() {
        hasFinished = true
        finished?.resume()
        finished = nil
    }

    private var display: Display { Renderer.display(width: backend.width, height: backend.height, options: options) }

    // MARK: Drawing

    /// Renders and flushes; re-arms observation so the next state change redraws.
    private func redraw() {
        redrawPending = false
        // A quit may come from an event, not a key (a package downloaded from the Maps card opens).
        guard !program.state.handoff.isQuitting else { return finish() }
        let state = withObservationTracking { program.state } onChange: { [weak self] in
            Task { @UIActor in self?.scheduleRedraw() }
        }
        let frame = Renderer.render(state, width: backend.width, height: backend.height, options: options)
        backend.draw(frame)
        if let pictures {
            let (bytes, repaint) = pictures.update(for: state, frame: frame, theme: options.theme.map)
            if repaint { backend.repaint(frame) }
            if !bytes.isEmpty { backend.write(bytes) }
        }
        signalReadyIfIdle()
    }

    /// See `Settings.readySignal`. After keys that changed nothing, too: a test waits for its keys.
    private func signalReadyIfIdle() {
        guard readySignal, !redrawPending, program.state.isIdle else { return }
        backend.signalReady()
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
            case .key(let key): program.send(.terminal(.key(key)))
            case .mouse(let mouse): program.send(.terminal(.mouse(mouse)))
            case .resize: resizeToTerminal()
            case .interrupt:
                StopSignal.record(SIGINT)
                program.send(.terminal(.interrupted))
            case .hangUp:
                StopSignal.record(SIGHUP)
                program.send(.terminal(.interrupted))
            case .focus(let gained): focusChanged(gained)
            }
        }
        if program.state.handoff.isQuitting { return finish() }
        // After the redraw the keys asked for, if they asked for one (it is scheduled by then).
        if readySignal { Task { @UIActor in self.signalReadyIfIdle() } }
    }

    private func received(_ signal: Int32) {
        if signal == SIGWINCH {
            resizeToTerminal()
        } else {
            StopSignal.record(signal)
            program.send(.terminal(.interrupted))
        }
        if program.state.handoff.isQuitting { finish() }
    }

    /// Under tmux (told `set -g focus-events on`), the pane gained or lost the focus: tmux is asked
    /// whether its window is still shown (`askTmux`).
    private func focusChanged(_ gained: Bool) {
        guard let pictures, pictures.passthrough != nil, gained || !pictures.hidden else { return }
        askTmux()
    }

    /// Asks tmux about the pane on the work pool (a child process, a second at most), on a resize
    /// and a focus change, and follows its answer unless another question was put since (whose
    /// answer says it all again): where the pane lies, the picture placed again there; whether its
    /// window is shown — not (another window, the session detached), no picture, as kitty's would
    /// stay on the terminal over what tmux shows now (taken away where tmux lets a hidden pane's
    /// bytes through, `allow-passthrough all`, tmux 3.4); shown again, the picture again, a sixel
    /// one, which tmux drew over, sent whole.
    private func askTmux() {
        tmuxAsked += 1
        let asked = tmuxAsked, environment = ProcessInfo.processInfo.environment
        Task { @UIActor in
            guard let answer = await onWorkPool({ TmuxPassthrough.ask(environment: environment) }) else { return }
            self.tmuxAnswered(answer, asked: asked)
        }
    }

    private func tmuxAnswered(_ answer: TmuxPassthrough.Answer, asked: Int) {
        guard asked == tmuxAsked, !hasFinished, let pictures else { return }
        let hidden = !answer.shown
        guard pictures.passthrough != answer.passthrough || pictures.hidden != hidden else { return }
        pictures.passthrough = answer.passthrough
        pictures.hidden = hidden
        redraw()
    }

    private func resizeToTerminal() {
        var rows: Int32 = 0, columns: Int32 = 0
        guard mb_terminal_size(STDOUT_FILENO, &rows, &columns) == 0 else { return }
        backend.resize(width: Int(columns), height: Int(rows))
        if let bytes = pictures?.screenCleared(), !bytes.isEmpty { backend.write(bytes) }
        // A font made larger or smaller changes the cell's pixels.
        if pictures != nil, let cell = GraphicsProbe.windowCell(STDOUT_FILENO) { pixels?.use(cellSize: cell) }
        program.send(.terminal(.resized(display)))
        redraw()
        // Under tmux the pane may have moved (a split, a status line turned on).
        if pictures?.passthrough != nil { askTmux() }
    }
}
