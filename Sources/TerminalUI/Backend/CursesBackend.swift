@preconcurrency import CCurses
import AppModel
import EventLoop
import Foundation
import MapRender
import MapbookCore
import TerminalCanvas
import TerminalRender

/// What the terminal sends, decoded.
enum InputEvent: Equatable {
    case key(Key)
    case mouse(MouseEvent)
    case interrupt
    /// ncurses saw the size change (KEY_RESIZE).
    case resize
    /// The terminal has gone: read failed or hung up.
    case hangUp
    /// The terminal (under tmux: the pane) gained or lost the focus, when asked to say (`reportsFocus`).
    case focus(gained: Bool)
}

/// Why the terminal could not be opened.
public struct TerminalUnavailable: UsageError {
    public let userMessage: String
}

/// The only code that talks to ncurses. It draws frames, sending only the cells that changed since
/// the last one, and turns key and mouse input into events. Runs on the UI actor's one thread.
@UIActor
final class CursesBackend {
    private let screen: OpaquePointer
    private var previous: Frame?
    /// Colour pairs handed out so far, by (foreground, background); -1 is the terminal default.
    private var pairs: [Int32: Int16] = [:]
    let colorCount: Int
    private(set) var width: Int
    private(set) var height: Int
    /// SGR mouse reports were asked for here, and are decoded here (`SGRMouseReport`).
    private let decodesSGRMouse: Bool

    /// Opens the terminal on the given streams (the process's own by default). `terminalType` nil
    /// means `$TERM`.
    init(output: UnsafeMutablePointer<FILE>, input: UnsafeMutablePointer<FILE>, terminalType: String? = nil) throws {
        let opened: OpaquePointer? = terminalType.map { type in type.withCString { newterm($0, output, input) } }
            ?? newterm(nil, output, input)
        guard let opened else {
            throw TerminalUnavailable(userMessage: "Cannot use this terminal (TERM=\(ProcessInfo.processInfo.environment["TERM"] ?? "unset")); try TERM=xterm-256color.")
        }
        screen = opened
        set_term(screen)
        cbreak()
        noecho()
        nonl()
        keypad(stdscr, true)
        nodelay(stdscr, true)
        curs_set(0)
        set_escdelay(25)
        if has_colors() {
            start_color()
            use_default_colors()
            colorCount = Int(COLORS)
        } else {
            colorCount = 0
        }
        // Motion reports make a drag possible on the map; they arrive only while a button is held
        // in most terminals, and the loop drops the rest cheaply.
        mousemask(MB_BUTTON1_PRESSED | MB_BUTTON1_RELEASED | MB_BUTTON4_PRESSED | MB_BUTTON5_PRESSED | MB_REPORT_MOUSE_POSITION, nil)
        mouseinterval(0)
        // Where the terminal's description asks only for the old reports (tmux's, screen's), SGR
        // reports are asked for too and read here: a terminal left sending them would otherwise
        // have its wheel read as keys ("…M" opening the Maps card), and old reports end at column 223.
        decodesSGRMouse = mb_ncurses_decodes_sgr_mouse() == 0
        if decodesSGRMouse {
            define_key("\u{1B}[<", MB_KEY_SGR_MOUSE)
            putp("\u{1B}[?1006h")
        }
        width = Int(getmaxx(stdscr)); height = Int(getmaxy(stdscr))
    }

    /// Restores the terminal.
    func close() {
        if decodesSGRMouse { putp("\u{1B}[?1006l") }
        endwin()
        delscreen(screen)
    }

    /// Takes a new size (after SIGWINCH) and repaints everything at the next draw, since the
    /// terminal may have reflowed what it showed.
    func resize(width newWidth: Int, height newHeight: Int) {
        resizeterm(Int32(newHeight), Int32(newWidth))
        width = Int(getmaxx(stdscr)); height = Int(getmaxy(stdscr))
        previous = nil
        clearok(curscr, true)
    }

    /// Puts `frame` on the terminal: only what `Frame.changes(from:)` says differs from the last one.
    func draw(_ frame: Frame) {
        var cchar = cchar_t()
        for change in frame.changes(from: previous) where change.y < height {
            for (offset, cell) in change.cells.enumerated() where !cell.isContinuation && change.x + offset < width {
                var text = Array(cell.character.unicodeScalars.prefix(4).map { wchar_t(bitPattern: $0.value) })
                text.append(0)
                setcchar(&cchar, text, attributes(cell.style), pair(for: cell.style), nil)
                mvwadd_wch(stdscr, Int32(change.y), Int32(change.x + offset), &cchar)
            }
        }
        previous = frame
        wnoutrefresh(stdscr)
        doupdate()
    }

    /// Bytes straight to the terminal after the frame (pictures): curses has flushed its own by then.
    func write(_ bytes: [UInt8]) {
        fflush(stdout)
        bytes.withUnsafeBytes { _ = fwrite($0.baseAddress, 1, $0.count, stdout) }
        fflush(stdout)
    }

    /// Draws `frame` whole again, every cell: what a sixel picture covered is written over.
    func repaint(_ frame: Frame) {
        previous = nil
        clearok(curscr, true)
        draw(frame)
    }

    /// Puts `text` on the terminal's clipboard with OSC 52 (xterm, kitty, WezTerm, foot, iTerm2;
    /// tmux keeps it as a paste buffer with `set-clipboard on`). Terminals without it ignore it.
    func copy(_ text: String) {
        putp(Self.clipboardSequence(text))
        fflush(stdout)
    }

    /// Sets the terminal's title to "mapbook ready KEYS SERIAL" (OSC 2), after the frame: a test
    /// in tmux reads it as the pane's title and knows the screen it captures next is whole, and
    /// which of its keys it answers. Only with `MAPBOOK_READY_SIGNAL=1`.
    func signalReady() {
        readySignals += 1
        putp("\u{1B}]2;mapbook ready \(keysRead) \(readySignals)\u{07}")
        fflush(stdout)
    }

    /// OSC 52 for the clipboard ("c"), the text in base64: nothing of it can reach the terminal as
    /// a control character.
    nonisolated static func clipboardSequence(_ text: String) -> String {
        "\u{1B}]52;c;\(Data(text.utf8).base64EncodedString())\u{07}"
    }

    private func attributes(_ style: CellStyle) -> attr_t {
        var a = MB_A_NORMAL
        if style.bold { a |= MB_A_BOLD }
        if style.dim { a |= MB_A_DIM }
        if style.reverse { a |= MB_A_REVERSE }
        if style.underline { a |= MB_A_UNDERLINE }
        return a
    }

    /// The colour pair for a style's colours, mapped down to what the terminal has; pair 0 (the
    /// defaults) when there are no colours or no pairs left.
    private func pair(for style: CellStyle) -> Int16 {
        guard colorCount > 0, style.foreground != nil || style.background != nil else { return 0 }
        let fg = style.foreground.map(terminalColor) ?? -1, bg = style.background.map(terminalColor) ?? -1
        let key = (fg + 1) << 16 | (bg + 1)
        if let known = pairs[key] { return known }
        let next = Int16(clamping: pairs.count + 1)
        guard Int32(next) < COLOR_PAIRS, next < Int16.max else { return 0 }
        init_pair(next, Int16(fg), Int16(bg))
        pairs[key] = next
        return next
    }

    private func terminalColor(_ index: PaletteIndex) -> Int32 {
        colorCount >= 256 ? Int32(index) : Int32(XtermPalette.nearestSystem(index, count: colorCount >= 16 ? 16 : 8))
    }

    /// Reads in a row that found input ready but decoded nothing.
    private var emptyReads = 0
    /// Keys (and mouse reports) read from the terminal since it was set up: the ready signal says
    /// how many, so a test knows its keys were handled.
    private(set) var keysRead = 0
    /// Ready signals sent (`signalReady`).
    private var readySignals = 0

    /// Everything waiting on the input, decoded. Called when the input is readable. Reading nothing
    /// is normal once (half an escape sequence); the input hanging up, or nothing again and again
    /// (which would spin), means the terminal is gone.
    func readEvents() -> [InputEvent] {
        var events: [InputEvent] = []
        var character: wint_t = 0
        let before = keysRead
        while true {
            let result = wget_wch(stdscr, &character)
            if result == ERR { break }
            keysRead += 1
            if result == KEY_CODE_YES, Int32(character) == MB_KEY_SGR_MOUSE {
                if let event = sgrMouseReport() { events.append(.mouse(event)) }
            } else if result == KEY_CODE_YES {
                if let event = functionKey(Int32(character)) { events.append(event) }
            } else if character == 27 {
                switch TerminalReplies.afterEscape({ nextCharacter() }) {
                case .sequence: continue
                case .focus(let gained): events.append(.focus(gained: gained))
                case .escape(let then):
                    events.append(.key(.escape))
                    if let then, let event = plainKey(then) { events.append(event) }
                }
            } else if let event = plainKey(UInt32(character)) {
                events.append(event)
            }
        }
        // A terminal's late answer read and dropped is input too, though no event.
        guard events.isEmpty, keysRead == before else {
            emptyReads = 0
            return events
        }
        emptyReads += 1
        var input = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        let hungUp = poll(&input, 1, 0) > 0 && input.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
        return hungUp || emptyReads >= 3 ? [.hangUp] : []
    }

    /// The character after an ESC, when one comes within 50 ms (the rest of a reply is on its way;
    /// the Escape key alone waits that long); a key ncurses decoded there is left to be read again.
    private func nextCharacter() -> UInt32? {
        var character: wint_t = 0
        wtimeout(stdscr, 50)
        defer { nodelay(stdscr, true) }
        let result = wget_wch(stdscr, &character)
        if result == KEY_CODE_YES { ungetch(Int32(character)) }
        guard result == OK else { return nil }
        keysRead += 1
        return UInt32(character)
    }

    /// The rest of an SGR mouse report whose start ncurses matched: its numbers up to `M` or `m`.
    private func sgrMouseReport() -> MouseEvent? {
        var body = "", character: wint_t = 0
        while body.count <= SGRMouseReport.longestBody, wget_wch(stdscr, &character) == OK, let scalar = Unicode.Scalar(UInt32(character)) {
            let next = Character(scalar)
            if next == "M" || next == "m" { return SGRMouseReport.event(body: body, final: next) }
            body.append(next)
        }
        return nil
    }

    private func plainKey(_ value: UInt32) -> InputEvent? {
        switch value {
        case 3: return .interrupt
        case 10, 13: return .key(.enter)
        case 27: return .key(.escape)
        case 9: return .key(.tab)
        case 8, 127: return .key(.backspace)
        case 0..<32: return nil
        default: return Unicode.Scalar(value).map { .key(.character(Character($0))) }
        }
    }

    private func functionKey(_ code: Int32) -> InputEvent? {
        switch code {
        case KEY_UP: return .key(.up)
        case KEY_DOWN: return .key(.down)
        case KEY_LEFT: return .key(.left)
        case KEY_RIGHT: return .key(.right)
        case KEY_PPAGE: return .key(.pageUp)
        case KEY_NPAGE: return .key(.pageDown)
        case KEY_HOME: return .key(.home)
        case KEY_END: return .key(.end)
        case KEY_ENTER: return .key(.enter)
        case KEY_BACKSPACE: return .key(.backspace)
        case KEY_BTAB: return .key(.backTab)
        case KEY_RESIZE: return .resize
        case KEY_MOUSE:
            var event = MEVENT()
            guard getmouse(&event) == OK else { return nil }
            let at = CellPoint(x: Int(event.x), y: Int(event.y))
            if event.bstate & MB_BUTTON4_PRESSED != 0 { return .mouse(.wheel(rows: -1, at: at)) }
            if event.bstate & MB_BUTTON5_PRESSED != 0 { return .mouse(.wheel(rows: 1, at: at)) }
            if event.bstate & MB_BUTTON1_PRESSED != 0 { return .mouse(.press(at)) }
            if event.bstate & MB_BUTTON1_RELEASED != 0 { return .mouse(.release(at)) }
            if event.bstate & MB_REPORT_MOUSE_POSITION != 0 { return .mouse(.drag(at)) }
            return nil
        default: return nil
        }
    }
}
