import AppModel
import EventLoop
import MapRender
import Testing
import TerminalUI

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
