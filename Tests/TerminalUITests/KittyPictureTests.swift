import Foundation
import PortalFixtures
import SharedTestData
import Testing
import TileFormats

/// A real terminal that shows pictures by the kitty protocol: kitty under Xvfb (Mesa's software
/// GL), running `mapbook open --graphics kitty`, photographed and compared with `snapshot --png` of the same view;
/// then a pan typed into it (`l`, a quarter of the view to the right): its picture at hand (the
/// picture kitty holds, placed moved) and then its own, sent, show the first picture's right three
/// quarters on the left. Only the map is compared: kitty 0.26.5 under Xvfb draws some text over a
/// picture wrongly (letters of the row before left under the new ones). Again through tmux, told to
/// let pictures through, its status line at the top: the map where the pane's map lies.
extension EndToEndTests {
    static var kittyInstalled: Bool { XServer.toolsInstalled && FileManager.default.isExecutableFile(atPath: "/usr/bin/kitty") }

    @Test(.enabled(if: kittyInstalled && SharedData.available && FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"),
                   "needs kitty, tmux, Xvfb, xwininfo and import (scripts/setup installs them) and ../shared/data"),
          arguments: [false, true])
    func kittyShowsTheMapAndAPanMovesIt(throughTmux: Bool) async throws {
        let (columns, terminalRows) = (60, 20), quarter = 15
        let (status, first, movedBefore, moved) = try await XServer.offThePool {
            let server = try XServer.start()
            defer { server.stop() }
            let file = SharedData.url("raster/tpkx/Usa.tpkx").path
            let view = ["--center=-98,39", "--zoom", "3"]
            // kitty named: under load (software GL beside the suite) it answers the start's questions
            // after mapbook's 0.4 s, and the map would be drawn in characters (as it should then).
            let terminal = try server.kitty(columns: columns, rows: terminalRows, mapbook: ["open", file, "--graphics", "kitty"] + view,
                                            tmux: throughTmux ? ["set -g allow-passthrough on", "set -g status-position top"] : nil)
            defer { XServer.stop(terminal); if throughTmux { server.stopTmux() } }
            var window = try server.window(columns: columns, rows: terminalRows)
            // Through tmux mapbook's screen starts below tmux's status line, a row shorter.
            let rows = throughTmux ? terminalRows - 1 : terminalRows
            if throughTmux { window.origin.y += window.cell.height }
            let (status, expected) = try server.snapshot(file, view: view, columns: columns, rows: rows, cell: window.cell)
            let first = try server.bestLook(expected, window: window, columns: columns, rows: rows, photographs: 60) { $0 >= 0.8 }
            // The test tells a panned picture from the first: before the pan, the first is not it.
            let movedBefore = try server.bestLook(expected, window: window, columns: columns, rows: rows, shift: quarter, photographs: 1) { _ in true }
            do { try server.type("l") } catch {
                // kitty gone (its mapbook ended) or not listening: what it and mapbook said.
                let said = (try? String(contentsOf: server.scratch.appendingPathComponent("kitty.log"), encoding: .utf8)) ?? ""
                throw XServer.Failure(description: "\(error) (the map looked \(Int(first * 100)) % alike before; kitty said: \(said.suffix(400)))")
            }
            return (status, first, movedBefore,
                    try server.bestLook(expected, window: window, columns: columns, rows: rows, shift: quarter, photographs: 60) { $0 >= 0.8 })
        }
        #expect(status == 0)
        #expect(first >= 0.8, "\(Int(first * 100)) % of the map's pixels look as the snapshot's")
        #expect(movedBefore < 0.6, "before the pan, \(Int(movedBefore * 100)) % looked panned already")
        #expect(moved >= 0.8, "after the pan, \(Int(moved * 100)) % of the map's pixels look as the snapshot's moved a quarter")
    }

    /// A resize clears the screen (curses does), and kitty takes the pictures on it away: the map
    /// is sent again even when its size did not change (here a SIGWINCH at the same size), where
    /// before the screen stayed blank.
    @Test(.enabled(if: kittyInstalled && SharedData.available, "needs kitty, Xvfb, xwininfo and import (scripts/setup installs them) and ../shared/data"))
    func kittyShowsTheMapAgainAfterTheScreenIsCleared() async throws {
        let (columns, rows) = (60, 20)
        let (first, after) = try await XServer.offThePool {
            let server = try XServer.start()
            defer { server.stop() }
            let file = SharedData.url("raster/tpkx/Usa.tpkx").path
            let view = ["--center=-97,38", "--zoom", "4"]
            let terminal = try server.kitty(columns: columns, rows: rows, mapbook: ["open", file, "--graphics", "kitty"] + view)
            defer { XServer.stop(terminal) }
            let window = try server.window(columns: columns, rows: rows)
            let (_, expected) = try server.snapshot(file, view: view, columns: columns, rows: rows, cell: window.cell)
            let first = try server.bestLook(expected, window: window, columns: columns, rows: rows, photographs: 60) { $0 >= 0.8 }
            // mapbook itself (not kitty, whose command line holds the same words) told the window changed.
            try server.windowChanged(mapbook: "^[^ ]*/mapbook open .*--center=-97,38")
            usleep(1_500_000)
            return (first, try server.bestLook(expected, window: window, columns: columns, rows: rows, photographs: 20) { $0 >= 0.8 })
        }
        #expect(first >= 0.8, "\(Int(first * 100)) % of the map's pixels look as the snapshot's")
        #expect(after >= 0.8, "after the screen was cleared, \(Int(after * 100)) % of the map's pixels look as the snapshot's")
    }
}
