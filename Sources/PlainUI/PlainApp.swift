import AppModel
import AppRuntime
import EventLoop
import Foundation
import MapbookCore

/// `mapbook --plain`: the same program as the full screen, shown as lines for screen readers and
/// logs. It prints what changes (the list once loaded, status sentences, download progress in
/// steps of 10 %), and reads commands from standard input (`PlainCommand`). No cursor movement, no
/// art, no colour.
@UIActor
public final class PlainApp {
    private let program: Program
    private var printed: [String: String] = [:]
    /// When each throttled fact (`PlainView.throttled`) was last said.
    private var spoken: [String: Date] = [:]
    /// What standard input has given and not yet run, kept across the programs of one run (`webmap
    /// N` starts another program; the lines a script piped in after it are its).
    private struct Input {
        var pending = ""
        /// Whole lines read and not run yet: a script can pipe its commands in at once, and each
        /// runs once what the one before it asked for has come (`AppState.isSettled`).
        var waiting: [String] = []
        var ended = false
    }
    private static var input = Input()
    private var listShown = false
    private var finished: CheckedContinuation<Void, Never>?

    private static let stopSignals = [SIGINT, SIGTERM, SIGHUP]

    private init(program: Program) { self.program = program }

    /// Runs until `quit`, a signal, or the end of the input once no download is under way.
    public static func run(_ program: Program) async {
        let app = PlainApp(program: program)
        await app.run()
    }

    private func run() async {
        Signals.route(Self.stopSignals) { number in
            StopSignal.record(number)
            Task { @UIActor in self.program.send(.terminal(.interrupted)) }
        }
        UIEventLoop.shared.watch(STDIN_FILENO) { Task { @UIActor in self.readInput() } }
        program.send(.terminal(.resized(Display(width: 100, height: 40, colors: false, unicode: false))))
        program.send(.started)
        showChanges()
        let watching = Task { @UIActor in
            while !Task.isCancelled, !self.isDone {
                await self.program.nextChange()
                self.showChanges()
            }
            self.finish()
        }
        await withCheckedContinuation { finished = $0 }
        watching.cancel()
        UIEventLoop.shared.unwatch(STDIN_FILENO)
        Signals.restoreDefaults(Self.stopSignals)
    }

    private var isDone: Bool {
        program.state.handoff.isQuitting
            || inputDone && !program.state.library.transfers.values.contains { $0.isActive } && program.state.library.removing.isEmpty
    }

    private func finish() {
        finished?.resume()
        finished = nil
    }

    // MARK: Output

    /// Runs what commands can run, then prints each fact whose sentence changed, and the list once,
    /// when it first loads.
    private func showChanges() {
        showFacts()
        runWaitingCommands()
        if isDone { finish() }
    }

    /// Prints each fact whose sentence changed, and the list once, when it has loaded and settled.
    private func showFacts() {
        let state = program.state
        var seen = Set<String>()
        for fact in PlainView.facts(state) {
            seen.insert(fact.key)
            if let every = PlainView.throttled[fact.key] {
                guard spoken[fact.key].map({ Date().timeIntervalSince($0) >= every }) ?? true else { continue }
                if printed[fact.key] != fact.line { spoken[fact.key] = Date() }
            }
            if printed[fact.key] != fact.line {
                printed[fact.key] = fact.line
                say(fact.line)
            }
        }
        for key in printed.keys where !seen.contains(key) { printed[key] = nil }
        // Once settled, so the list says each area's checked state, not "Checking its packages…"
        // that no later line would correct.
        if !listShown, state.catalog.phase == .loaded, state.catalog.webMapItem != nil, state.isSettled {
            listShown = true
            PlainView.list(state).forEach(say)
        }
    }

    private func say(_ line: String) {
        let data = Data((SpokenText.words(line) + "\n").utf8)
        data.withUnsafeBytes { bytes in
            var done = 0
            while done < bytes.count {
                let n = write(STDOUT_FILENO, bytes.baseAddress! + done, bytes.count - done)
                if n < 0, errno == EINTR { continue }
                if n <= 0 { return }
                done += n
            }
        }
    }

    // MARK: Input

    /// Called when standard input is readable: one read (it cannot block), then each whole line.
    private func readInput() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(STDIN_FILENO, &buffer, buffer.count)
        if count <= 0 {
            if count < 0, errno == EINTR || errno == EAGAIN { return }
            UIEventLoop.shared.unwatch(STDIN_FILENO)
            if !Self.input.pending.isEmpty { Self.input.waiting.append(Self.input.pending) }
            Self.input.pending = ""
            Self.input.ended = true
            showChanges()
            return
        }
        Self.input.pending += String(decoding: buffer[..<count], as: UTF8.self)
        while let newline = Self.input.pending.firstIndex(of: "\n") {
            Self.input.waiting.append(String(Self.input.pending[..<newline]))
            Self.input.pending = String(Self.input.pending[Self.input.pending.index(after: newline)...])
        }
        runWaitingCommands()
    }

    /// Runs the commands read so far, each once the one before has settled (`help` at once).
    private func runWaitingCommands() {
        while let line = Self.input.waiting.first {
            let command = PlainCommand.parse(line)
            guard program.state.isSettled || command == .success(.help) else { return }
            // `download N` then `remove N` in a script means in that order: the removal waits for
            // the download (a `cancel N` does not).
            if case .success(.remove(let number))? = command, isDownloading(row: number) { return }
            Self.input.waiting.removeFirst()
            perform(line)
            // What the command printed at once comes before what the next one prints.
            showFacts()
        }
    }

    /// Everything read has run (and settled) and the input is over.
    private var inputDone: Bool { Self.input.ended && Self.input.waiting.isEmpty && program.state.isSettled }

    private func perform(_ line: String) {
        guard let parsed = PlainCommand.parse(line) else { return }
        switch parsed {
        case .failure(let error): say(error.sentence)
        case .success(let command): perform(command)
        }
    }

    private func perform(_ command: PlainCommand) {
        switch command {
        case .list: PlainView.list(program.state).forEach(say)
        case .details(let number):
            guard select(number) else { return }
            PlainView.details(program.state).forEach(say)
        case .download(let number): if select(number) { program.send(.intent(.area(.download))) }
        case .downloadAll: program.send(.intent(.area(.downloadAll)))
        case .cancel(let number): if select(number) { program.send(.intent(.area(.cancel))) }
        case .update(let number): if select(number) { program.send(.intent(.area(.update))) }
        // Row 1 is the web map's: every area's edits.
        case .syncEdits(let number): if select(number ?? 1) { program.send(.intent(.area(.syncEdits))) }
        case .remove(let number): if select(number) { program.send(.intent(.area(.remove))) }
        case .settleConflicts(let number, let keepMine): if select(number) { program.send(.intent(.area(keepMine ? .keepMine : .takeTheirs))) }
        case .open(let number): if select(number) { program.send(.intent(.list(.openMap))) }
        case .back: program.send(.intent(.back))
        case .reload: program.send(.intent(.refresh))
        case .answer(let yes):
            guard case .confirm? = program.state.overlay else { say("There is no question to answer."); return }
            program.send(.intent(.confirm(yes)))
        case .maps(let tab): program.send(.intent(.maps(.showTab(tab))))
        case .searchMaps(let words): program.send(.intent(.maps(.search(words))))
        case .moreMaps, .webMap:
            guard case .maps(let maps)? = program.state.overlay, !maps.rows.isEmpty else { say("No web maps are listed: type maps first."); return }
            if case .webMap(let number) = command {
                guard maps.rows.indices.contains(number - 1) else { say("There is no web map \(number); the list has \(maps.rows.count)."); return }
                program.send(.intent(.maps(.choose(number - 1))))
            } else if maps.more[maps.tab] == nil {
                say("That is every web map of \(maps.tab.title).")
            } else {
                program.send(.intent(.move(.bottom)))
            }
        case .ruler(let points):
            var ruler = Ruler(start: points[0])
            ruler.points += points.dropFirst().dropLast()
            say("Ruler: " + ruler.sentence(to: points[points.count - 1], units: program.state.preferences.units))
        case .directions(let places): program.send(.intent(.directions(through: places)))
        case .addPoint(let layer, let point):
            guard program.state.map != nil else { say("Open a downloaded area's map first: open N."); return }
            program.send(.intent(.map(.addFeature(at: point, layer: layer))))
        case .setField(let name, let value):
            guard case .featureForm? = program.state.overlay else { say("There is no form open: type add point first."); return }
            program.send(.intent(.form(.set(field: name, value: value))))
        case .undoEdit, .redoEdit:
            guard program.state.map != nil else { say("Open a downloaded area's map first: open N."); return }
            program.send(.intent(.map(command == .undoEdit ? .undoEdit : .redoEdit)))
        case .saveForm, .leaveForm:
            guard case .featureForm? = program.state.overlay else { say("There is no form open."); return }
            program.send(.intent(.form(command == .saveForm ? .save : .cancel)))
        case .whereAmI: program.send(.intent(.map(.locate)))
        case .track: program.send(.intent(.map(.recordTrack)))
        case .help: PlainCommand.commandHelp.forEach(say)
        case .quit: program.send(.intent(.quit))
        }
    }

    /// Whether the area in row `number` (from 1) is queued or downloading.
    private func isDownloading(row number: Int) -> Bool {
        let rows = program.state.rows
        guard rows.indices.contains(number - 1), case .area(let index) = rows[number - 1],
              program.state.catalog.areas.indices.contains(index) else { return false }
        return program.state.library.transfers[program.state.catalog.areas[index].item.id]?.isActive == true
    }

    /// Selects row `number` (from 1) of the list, back on the main screen; false, with a
    /// sentence, when there is no such row.
    private func select(_ number: Int) -> Bool {
        // Back to the list: the Maps card closed, a map left.
        for _ in 0..<2 {
            let onCard = if case .maps? = program.state.overlay { true } else { false }
            guard onCard || program.state.screen.kind != .main else { break }
            program.send(.intent(.back))
        }
        let count = program.state.rows.count
        guard (1...max(count, 1)).contains(number), count > 0 else {
            say(count == 0 ? "Nothing is listed yet." : "There is no row \(number); the list has \(count). Type list.")
            return false
        }
        program.send(.intent(.list(.selectRow(number - 1))))
        return true
    }
}
