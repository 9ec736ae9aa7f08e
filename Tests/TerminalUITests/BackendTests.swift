import AppModel
import EventLoop
import MapRender
import Testing
@testable import TerminalRender
@testable import TerminalUI

/// What the ncurses backend really writes (into a file standing in for the terminal).
@Suite(.serialized) struct BackendTests {
    @Test @UIActor func movingTheSelectionWritesLittleAndAnIdleScreenNothing() async throws {
        var state = await SnapshotState.loaded()
        let terminal = try OffscreenTerminal(width: 200, height: 50)
        defer { terminal.close() }
        state.list.selection = 4
        let first = terminal.draw(SnapshotState.render(state, width: 200, height: 50))
        #expect(first > 2000, "the first frame paints the whole screen")
        state.list.selection = 5
        let moved = SnapshotState.render(state, width: 200, height: 50)
        let move = terminal.draw(moved)
        // The budget with the full-width selection band: 2 KB (a full redraw is ten times more).
        #expect(move > 0 && move <= 2048, "moving one row wrote \(move) bytes")
        #expect(terminal.draw(moved) == 0, "redrawing an unchanged frame writes nothing")
    }
}

/// SGR mouse reports, decoded where ncurses does not: the wheel, a press, a drag and a release,
/// one-based cells made zero-based; what mapbook has no use for, or what is not a report, is nil.
struct SGRMouseReportTests {
    /// OSC 52: the text in base64, so nothing of it reaches the terminal as a control.
    @Test func theClipboardSequenceCarriesTheTextInBase64() {
        #expect(CursesBackend.clipboardSequence("-68.20370,44.38760") == "\u{1B}]52;c;LTY4LjIwMzcwLDQ0LjM4NzYw\u{07}")
        #expect(!CursesBackend.clipboardSequence("a\u{1B}]0;x\u{07}b").dropFirst().dropLast().contains { $0 == "\u{1B}" || $0 == "\u{07}" })
    }

    @Test func reportsBecomeMouseEvents() {
        #expect(SGRMouseReport.event(body: "64;10;5", final: "M") == .wheel(rows: -1, at: CellPoint(x: 9, y: 4)))
        #expect(SGRMouseReport.event(body: "65;300;2", final: "M") == .wheel(rows: 1, at: CellPoint(x: 299, y: 1)), "past column 223")
        #expect(SGRMouseReport.event(body: "0;1;1", final: "M") == .press(CellPoint(x: 0, y: 0)))
        #expect(SGRMouseReport.event(body: "32;4;4", final: "M") == .drag(CellPoint(x: 3, y: 3)))
        #expect(SGRMouseReport.event(body: "0;4;4", final: "m") == .release(CellPoint(x: 3, y: 3)))
        #expect(SGRMouseReport.event(body: "68;4;4", final: "M") == .wheel(rows: -1, at: CellPoint(x: 3, y: 3)), "with shift")
    }

    @Test func whatIsNotAReportIsNothing() {
        for (body, final) in [("2;4;4", "M"), ("0;0;4", "M"), ("0;4", "M"), ("a;b;c", "M"), ("0;4;4", "x"), ("99999999999999999999;1;1", "M"), ("", "M")] {
            #expect(SGRMouseReport.event(body: body, final: Character(final)) == nil, "\(body)\(final)")
        }
    }
}
