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

/// What follows an ESC the keypad did not match: a terminal's late answer, read to its end and
/// dropped; anything else, the Escape key (and what was typed after it).
struct TerminalRepliesTests {
    static func after(_ text: String) -> (TerminalReplies.AfterEscape, rest: String) {
        var scalars = Array(text.unicodeScalars)[...]
        let found = TerminalReplies.afterEscape { scalars.popFirst()?.value }
        return (found, String(String.UnicodeScalarView(scalars)))
    }

    @Test func answersAreReadToTheirEndAndKeysAreKeys() {
        // kitty's answer, a background colour (ST or BEL), device attributes, a size, a cursor place.
        #expect(Self.after("_Gi=31;OK\u{1B}\\q") == (.sequence, "q"))
        #expect(Self.after("]11;rgb:ffff/ffff/dddd\u{1B}\\j") == (.sequence, "j"))
        #expect(Self.after("]11;rgb:0000/0000/0000\u{07}k") == (.sequence, "k"))
        #expect(Self.after("[?62;4;22cl") == (.sequence, "l"))
        #expect(Self.after("[6;17;8th") == (.sequence, "h"))
        #expect(Self.after("[12;1Rx") == (.sequence, "x"))
        // Focus reports: gained, lost; with a parameter, another sequence (a key ncurses does not know).
        #expect(Self.after("[Ij") == (.focus(gained: true), "j"))
        #expect(Self.after("[O") == (.focus(gained: false), ""))
        #expect(Self.after("[1Ij") == (.sequence, "j"))
        // The Escape key alone, and with a key typed after it.
        #expect(Self.after("") == (.escape(then: nil), ""))
        #expect(Self.after("q") == (.escape(then: 0x71), ""))
        // A reply that never ends is read no further than the longest one.
        let endless = "_" + String(repeating: "A", count: 10_000)
        #expect(Self.after(endless).rest.count == 10_000 - TerminalReplies.longest)
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
