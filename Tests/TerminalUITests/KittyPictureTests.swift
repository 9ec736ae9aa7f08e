import Foundation
import PortalFixtures
import SharedTestData
import Testing
import TileFormats

/// A real terminal that shows pictures by the kitty protocol: kitty under Xvfb (Mesa's software
/// GL), running `mapbook open`, photographed and compared with `snapshot --png` of the same view;
/// then a pan typed into it (`l`, a quarter of the view to the right): its picture at hand (the
/// picture kitty holds, placed moved) and then its own, sent, show the first picture's right three
/// quarters on the left. Only the map is compared: kitty 0.26.5 under Xvfb draws some text over a
/// picture wrongly (letters of the row before left under the new ones).
extension EndToEndTests {
    static var kittyInstalled: Bool { XServer.toolsInstalled && FileManager.default.isExecutableFile(atPath: "/usr/bin/kitty") }

    @Test(.enabled(if: kittyInstalled && SharedData.available, "needs kitty, Xvfb, xwininfo and import (scripts/setup installs them) and ../shared/data"))
    func kittyShowsTheMapAndAPanMovesIt() async throws {
        let (columns, rows) = (60, 20), quarter = 15
        let (status, first, movedBefore, moved) = try await XServer.offThePool {
            let server = try XServer.start()
            defer { server.stop() }
            let file = SharedData.url("raster/tpkx/Usa.tpkx").path
            let view = ["--center=-98,39", "--zoom", "3"]
            let terminal = try server.kitty(columns: columns, rows: rows, mapbook: ["open", file] + view)
            defer { XServer.stop(terminal) }
            let window = try server.window(columns: columns, rows: rows)
            let reference = server.scratch.appendingPathComponent("reference.png")
            let status = try server.mapbookCommand(["snapshot", "--file", file, "--size", "\(columns)x\(rows - 2)",
                                                    "--cell-size", "\(window.cell.width)x\(window.cell.height)", "--png", reference.path] + view)
            let expected = try RasterImage(decoding: Data(contentsOf: reference))
            func best(shift: Int, photographs: Int) throws -> Double {
                var best = 0.0
                for _ in 0..<photographs where best < 0.8 {
                    usleep(500_000)
                    best = max(best, XServer.alike(try server.screenshot(), expected, origin: window.origin, cell: window.cell,
                                                   columns: columns, rows: rows - 2, shift: shift))
                }
                return best
            }
            let first = try best(shift: 0, photographs: 60)
            // The test tells a panned picture from the first: before the pan, the first is not it.
            let movedBefore = XServer.alike(try server.screenshot(), expected, origin: window.origin, cell: window.cell,
                                            columns: columns, rows: rows - 2, shift: quarter)
            try server.type("l")
            return (status, first, movedBefore, try best(shift: quarter, photographs: 60))
        }
        #expect(status == 0)
        #expect(first >= 0.8, "\(Int(first * 100)) % of the map's pixels look as the snapshot's")
        #expect(movedBefore < 0.6, "before the pan, \(Int(movedBefore * 100)) % looked panned already")
        #expect(moved >= 0.8, "after the pan, \(Int(moved * 100)) % of the map's pixels look as the snapshot's moved a quarter")
    }
}
