import Foundation
import PortalFixtures
import SharedTestData
import Testing
import TileFormats

/// A real terminal that shows sixel: xterm as a VT340 under Xvfb, running `mapbook open`. Its
/// window is photographed (ImageMagick's `import`) and compared, pixel by pixel, with what
/// `mapbook snapshot --png` draws of the same view: the picture the terminal shows is the map.
/// Run one at a time with the other end-to-end tests: a terminal, a server and mapbook each.
extension EndToEndTests {
    @Test(.enabled(if: XServer.toolsInstalled && SharedData.available, XServer.skipMessage), arguments: [("raster/tpkx/Usa.tpkx", "-98,39", "3"), ("vector/vtpk/basemapde_sample_L00-L07_nofonts.vtpk", "10.5,51", "5")])
    func xtermShowsTheMapAsSnapshotDrawsIt(package: String, center: String, zoom: String) async throws {
        // The picture comes after the first frame: photographed until it matches, for half a minute at most.
        let (status, best) = try await XServer.offThePool {
            try XServer.compare(package, view: ["--center=\(center)", "--zoom", zoom], photographs: 60) { $0 >= 0.8 }
        }
        #expect(status == 0)
        #expect(best >= 0.8, "\(Int(best * 100)) % of the map's pixels look as the snapshot's")
    }

    /// A window wider than xterm takes in one sixel picture (1,120 pixels: it drops one past 1,000
    /// whole, and showed no map) gets the map in pieces.
    @Test(.enabled(if: XServer.toolsInstalled && SharedData.available, XServer.skipMessage))
    func aWideXtermShowsTheWholeMap() async throws {
        let (status, best) = try await XServer.offThePool {
            try XServer.compare("raster/tpkx/Usa.tpkx", view: ["--center=-98,39", "--zoom", "4"], columns: 140, rows: 24, photographs: 60) { $0 >= 0.8 }
        }
        #expect(status == 0)
        #expect(best >= 0.8, "\(Int(best * 100)) % of the map's pixels look as the snapshot's")
    }

    /// Through tmux (told to let pictures through, its status line at the top): `--graphics sixel`
    /// shows the map where the pane's map lies on xterm's screen, one row lower than without tmux —
    /// a picture placed where mapbook's own cursor would be, not the pane's, is not alike. Then a
    /// pane split off above moves mapbook's pane down: asked again, the map follows it. Then
    /// another window shown draws over the map, and back in mapbook's window (tmux told
    /// `focus-events on`: the focused pane's focus says when) the map is sent again — before, its
    /// cells stayed blank until mapbook drew again for another reason.
    @Test(.enabled(if: XServer.toolsInstalled && SharedData.available && FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"),
                   XServer.skipMessage))
    func throughTmuxXtermShowsTheMapWhereThePaneIs() async throws {
        let (status, best, split, away, back) = try await XServer.offThePool {
            let server = try XServer.start()
            defer { server.stop() }
            let file = SharedData.url("raster/tpkx/Usa.tpkx").path, view = ["--center=-98,39", "--zoom", "3"]
            let (columns, rows) = (60, 21)
            let terminal = try server.xterm(columns: columns, rows: rows, mapbook: ["open", file, "--graphics", "sixel"] + view,
                                            tmux: ["set -g allow-passthrough on", "set -g status-position top", "set -g focus-events on"])
            defer { XServer.stop(terminal); server.stopTmux() }
            var window = try server.window(columns: columns, rows: rows)
            // The pane, and so mapbook's screen, starts below tmux's status line.
            window.origin.y += window.cell.height
            let (status, expected) = try server.snapshot(file, view: view, columns: columns, rows: rows - 1, cell: window.cell)
            let best = try server.bestLook(expected, window: window, columns: columns, rows: rows - 1, photographs: 60) { $0 >= 0.8 }
            // Five rows and a border line above it now: mapbook's pane is 14 rows from the 8th.
            try server.tmux(["split-window", "-v", "-b", "-l", "5", "sleep 600"])
            window.origin.y += 6 * window.cell.height
            let (_, smaller) = try server.snapshot(file, view: view, columns: columns, rows: 14, cell: window.cell)
            let split = try server.bestLook(smaller, window: window, columns: columns, rows: 14, photographs: 60) { $0 >= 0.8 }
            // mapbook's pane focused again (a pane without the focus hears nothing of its window going).
            try server.tmux(["last-pane"])
            try server.tmux(["new-window", "sleep 600"])
            var away = 1.0
            for _ in 0..<40 {
                usleep(250_000)
                away = XServer.alike(try server.screenshot(), smaller, origin: window.origin, cell: window.cell, columns: columns, rows: 12)
                if away < 0.2 { break }
            }
            try server.tmux(["last-window"])
            let back = try server.bestLook(smaller, window: window, columns: columns, rows: 14, photographs: 20) { $0 >= 0.8 }
            return (status, best, split, away, back)
        }
        #expect(status == 0)
        #expect(best >= 0.8, "\(Int(best * 100)) % of the map's pixels look as the snapshot's")
        #expect(split >= 0.8, "after the split, \(Int(split * 100)) % of the map's pixels look as the snapshot's")
        #expect(away < 0.2, "with another tmux window shown, \(Int(away * 100)) % of the map still showed")
        #expect(back >= 0.8, "back in its window, \(Int(back * 100)) % of the map's pixels look as the snapshot's")
    }

    /// The same view drawn in characters (`--graphics off`) is not taken for the picture: the
    /// comparison above tells them apart.
    @Test(.enabled(if: XServer.toolsInstalled && SharedData.available, XServer.skipMessage))
    func charactersAreNotThePicture() async throws {
        // Drawn by now (characters come at once); its best look over a few seconds.
        let (_, best) = try await XServer.offThePool {
            try XServer.compare("raster/tpkx/Usa.tpkx", view: ["--center=-98,39", "--zoom", "3"], graphicsOff: true, photographs: 8) { _ in false }
        }
        #expect(best < 0.6, "characters looked \(Int(best * 100)) % like the picture")
    }
}

extension XServer {
    /// Blocking work (waiting for processes, sleeping between photographs) on a thread of its own,
    /// not one of the test runner's few cooperative threads.
    static func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }

    /// `mapbook open PACKAGE` at `view` in a `columns × rows` xterm, photographed up to `photographs` times
    /// half a second apart (until `enough` says so), each compared with `snapshot --png` of the
    /// same view: the snapshot's exit status and the best share of pixels alike.
    static func compare(_ package: String, view: [String], graphicsOff: Bool = false, columns: Int = 60, rows: Int = 20, photographs: Int,
                        enough: (Double) -> Bool) throws -> (status: Int32, best: Double) {
        let server = try XServer.start()
        defer { server.stop() }
        let file = SharedData.url(package).path
        let terminal = try server.xterm(columns: columns, rows: rows, mapbook: ["open", file] + (graphicsOff ? ["--graphics", "off"] : []) + view)
        defer { XServer.stop(terminal) }
        let window = try server.window(columns: columns, rows: rows)
        let (status, expected) = try server.snapshot(file, view: view, columns: columns, rows: rows, cell: window.cell)
        let best = try server.bestLook(expected, window: window, columns: columns, rows: rows, photographs: photographs, enough: enough)
        return (status, best)
    }
}

/// An X server of our own (Xvfb) on a free display, and the tools that drive it; every child is
/// started by `CleanSpawn` and waited for by its pid (Foundation's `Process` waits hang on the
/// test runner's few threads).
final class XServer {
    static let tools = ["/usr/bin/Xvfb", "/usr/bin/xterm", "/usr/bin/xwininfo", "/usr/bin/import", "/usr/bin/env"]
    static var toolsInstalled: Bool { tools.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) } }
    static let skipMessage: Comment = "needs Xvfb, xterm, xwininfo and import (scripts/setup installs them) and ../shared/data"

    /// The share of the map's pixels (below the header row) within 24 levels of the snapshot's in
    /// every channel; with `shift`, the map is the snapshot's moved that many columns left (a pan
    /// to the right), and the columns that came into view are left out.
    static func alike(_ shot: RasterImage, _ expected: RasterImage, origin: (x: Int, y: Int), cell: (width: Int, height: Int),
                      columns: Int, rows: Int, shift: Int = 0) -> Double {
        guard shot.width >= origin.x + columns * cell.width, shot.height >= origin.y + (rows + 1) * cell.height,
              expected.width == columns * cell.width, expected.height == rows * cell.height, (0..<columns).contains(shift) else { return 0 }
        // Every other pixel of every other row: the same answer, a quarter of the work beside the suite.
        var alike = 0, compared = 0
        for y in stride(from: 0, to: expected.height, by: 2) {
            for x in stride(from: 0, to: expected.width - shift * cell.width, by: 2) {
                compared += 1
                let a = shot.pixel(x: origin.x + x, y: origin.y + cell.height + y), b = expected.pixel(x: x + shift * cell.width, y: y)
                if max(abs(Int(a.r) - Int(b.r)), abs(Int(a.g) - Int(b.g)), abs(Int(a.b) - Int(b.b))) <= 24 { alike += 1 }
            }
        }
        return Double(alike) / Double(max(compared, 1))
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    let display: String
    let scratch: URL
    private let server: pid_t
    /// The test bundle sits beside the built executables.
    let mapbook = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("mapbook").path

    private init(display: String, scratch: URL, server: pid_t) { self.display = display; self.scratch = scratch; self.server = server }

    /// Starts Xvfb on the first free display from :90, and waits for its socket — its own: two
    /// tests (or two test runs) starting at once may both find a display free, and the one whose
    /// server lost the race (its lock file names the other's process) goes on to the next.
    static func start() throws -> XServer {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-x-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        // A display whose lock or socket is left from another server is passed over: a stale socket
        // would be taken for this server's before it listens.
        for number in 90..<140 where !FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock")
            && !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") {
            // `-noreset`: by default the server starts over when its last client leaves (a probe,
            // a photograph), and a client connecting meanwhile is refused.
            let pid = try CleanSpawn.start("/usr/bin/Xvfb", [":\(number)", "-screen", "0", "1280x900x24", "-nolisten", "tcp", "-noreset"],
                                           output: scratch.appendingPathComponent("xvfb.log").path)
            for _ in 0..<100 {
                if FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)"), lockHolder(number) == pid {
                    // The socket is made before the server listens on it (a client then is refused:
                    // "Can't open display"); it is ready once it answers.
                    let server = XServer(display: ":\(number)", scratch: scratch, server: pid)
                    for _ in 0..<200 {
                        if (try? server.run("/usr/bin/xwininfo", ["-display", server.display, "-root"])) != nil { return server }
                        usleep(50_000)
                    }
                    break
                }
                if waitpid(pid, nil, WNOHANG) == pid { break }
                usleep(50_000)
            }
            Self.stop(pid)
        }
        throw Failure(description: "no display for Xvfb between :90 and :139")
    }

    /// The process that holds display `number`'s lock (Xvfb writes its pid there).
    private static func lockHolder(_ number: Int) -> pid_t? {
        (try? String(contentsOfFile: "/tmp/.X\(number)-lock", encoding: .ascii))
            .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    static func stop(_ pid: pid_t) {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    func stop() {
        Self.stop(server)
        try? FileManager.default.removeItem(at: scratch)
    }

    /// What mapbook sees in the terminal: its own config (the default settings: `graphics = auto`),
    /// colour, no tmux.
    private var settings: [String] { settings(term: "xterm-256color") }

    private func settings(term: String) -> [String] {
        ["env", "-u", "NO_COLOR", "-u", "TMUX", "-u", "MAPBOOK_TOKEN", "-u", "MAPBOOK_API_KEY", "TERM=\(term)",
         "XDG_CONFIG_HOME=\(scratch.appendingPathComponent("config").path)", "XDG_STATE_HOME=\(scratch.appendingPathComponent("state").path)",
         "XDG_CACHE_HOME=\(scratch.appendingPathComponent("cache").path)"]
    }

    /// xterm as a VT340 with 256 sixel colours, at the top left, running mapbook with `arguments`;
    /// with `tmux` (its configuration's lines), in a tmux of its own (`stopTmux` ends it).
    func xterm(columns: Int, rows: Int, mapbook arguments: [String], tmux: [String]? = nil) throws -> pid_t {
        try CleanSpawn.start("/usr/bin/xterm", ["-display", display, "-ti", "vt340", "-xrm", "XTerm*decTerminalID: vt340",
                                                "-xrm", "XTerm*numColorRegisters: 256", "-fa", "DejaVu Sans Mono", "-fs", "10", "-b", "0",
                                                "-geometry", "\(columns)x\(rows)+0+0", "-title", "mapbook-under-test", "-e"]
                             + (try command(settings, arguments, tmux: tmux)), output: scratch.appendingPathComponent("xterm.log").path)
    }

    /// What the terminal runs: mapbook with `arguments` in the environment `settings` gives; with
    /// `tmux` (its configuration's lines), in a tmux of its own (`stopTmux` ends it).
    private func command(_ settings: [String], _ arguments: [String], tmux: [String]?) throws -> [String] {
        guard let tmux else { return settings + [mapbook] + arguments }
        let configuration = scratch.appendingPathComponent("tmux.conf")
        try (["set -g default-terminal tmux-256color"] + tmux).joined(separator: "\n").write(to: configuration, atomically: true, encoding: .utf8)
        return settings + ["TMUX_TMPDIR=\(scratch.path)", "/usr/bin/tmux", "-L", "under-test", "-f", configuration.path, "new-session", mapbook] + arguments
    }

    /// Ends the tmux `xterm(columns:rows:mapbook:tmux:)` started, and mapbook in it.
    func stopTmux() { _ = try? tmux(["kill-server"]) }

    /// A tmux command to the tmux `xterm(columns:rows:mapbook:tmux:)` started.
    func tmux(_ arguments: [String]) throws {
        _ = try run("/usr/bin/env", ["TMUX_TMPDIR=\(scratch.path)", "/usr/bin/tmux", "-L", "under-test"] + arguments)
    }

    /// kitty (its own settings only) at the top left, `columns × rows` cells, running mapbook with
    /// `arguments` (in a tmux of its own with `tmux`, as `xterm` does); told what to type through its
    /// remote control (`type`).
    func kitty(columns: Int, rows: Int, mapbook arguments: [String], tmux: [String]? = nil) throws -> pid_t {
        let home = scratch.appendingPathComponent("kitty").path
        return try CleanSpawn.start("/usr/bin/env", ["-u", "WAYLAND_DISPLAY", "DISPLAY=\(display)", "XDG_CONFIG_HOME=\(home)", "XDG_CACHE_HOME=\(home)",
                                                     "/usr/bin/kitty", "--config", "NONE", "-o", "font_family=DejaVu Sans Mono", "-o", "font_size=10",
                                                     "-o", "remember_window_size=no", "-o", "initial_window_width=\(columns)c",
                                                     "-o", "initial_window_height=\(rows)c", "-o", "window_padding_width=0",
                                                     "-o", "placement_strategy=top-left", "-o", "allow_remote_control=yes",
                                                     "--listen-on", "unix:\(kittySocket)", "--title", "mapbook-under-test"]
                                    + (try command(settings(term: "xterm-kitty"), arguments, tmux: tmux)), output: scratch.appendingPathComponent("kitty.log").path)
    }

    private var kittySocket: String { scratch.appendingPathComponent("kitty.sock").path }

    /// `text` typed into the kitty started by `kitty(columns:rows:mapbook:)`.
    func type(_ text: String) throws {
        _ = try run("/usr/bin/kitty", ["@", "--to", "unix:\(kittySocket)", "send-text", text])
    }

    /// What `snapshot --png` draws of `file` at `view` for the map of a `columns × rows` terminal
    /// of `cell`-pixel cells (all its rows but the header and the status bar): its exit status and
    /// the picture.
    func snapshot(_ file: String, view: [String], columns: Int, rows: Int, cell: (width: Int, height: Int)) throws -> (status: Int32, picture: RasterImage) {
        let reference = scratch.appendingPathComponent("reference.png")
        let status = try mapbookCommand(["snapshot", "--file", file, "--size", "\(columns)x\(rows - 2)",
                                         "--cell-size", "\(cell.width)x\(cell.height)", "--png", reference.path] + view)
        return (status, try RasterImage(decoding: Data(contentsOf: reference)))
    }

    /// The best share of the terminal's map alike to `expected` (moved `shift` columns left: see
    /// `alike`) in up to `photographs` photographs half a second apart, until `enough` says so.
    func bestLook(_ expected: RasterImage, window: (origin: (x: Int, y: Int), cell: (width: Int, height: Int)), columns: Int, rows: Int,
                  shift: Int = 0, photographs: Int, enough: (Double) -> Bool) throws -> Double {
        var best = 0.0
        for _ in 0..<photographs {
            usleep(500_000)
            best = max(best, Self.alike(try screenshot(), expected, origin: window.origin, cell: window.cell, columns: columns, rows: rows - 2,
                                        shift: shift))
            if enough(best) { break }
        }
        return best
    }

    /// The mapbook whose command line matches `pattern` told its window changed (SIGWINCH). A
    /// terminal's command line holds the same words: `pattern` should start at mapbook's path.
    func windowChanged(mapbook pattern: String) throws { _ = try run("/usr/bin/pkill", ["-WINCH", "-f", pattern]) }

    /// mapbook with `arguments` run to its end, as the terminal's would run it; its exit status.
    func mapbookCommand(_ arguments: [String]) throws -> Int32 {
        let pid = try CleanSpawn.start("/usr/bin/env", Array(settings.dropFirst()) + [mapbook] + arguments,
                                       output: scratch.appendingPathComponent("command.log").path)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }

    /// The terminal window's inner top left on the screen and a cell's size (its inner size over its columns and rows).
    func window(columns: Int, rows: Int) throws -> (origin: (x: Int, y: Int), cell: (width: Int, height: Int)) {
        // Up to three minutes: xterm's first start after fonts were installed builds fontconfig's
        // cache, slowly beside busy processors.
        let deadline = ContinuousClock.now + .seconds(180)
        while ContinuousClock.now < deadline {
            if let info = try? run("/usr/bin/xwininfo", ["-display", display, "-name", "mapbook-under-test"]) {
                let numbers = info.split(separator: "\n").reduce(into: [String: Int]()) { found, line in
                    let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                    if parts.count == 2, let value = Int(parts[1]) { found[parts[0]] = value }
                }
                if let width = numbers["Width"], let height = numbers["Height"], width >= columns, height >= rows,
                   let x = numbers["Absolute upper-left X"], let y = numbers["Absolute upper-left Y"] {
                    let border = numbers["Border width"] ?? 0
                    return ((x + border, y + border), (width / columns, height / rows))
                }
            }
            usleep(100_000)
        }
        // What the terminal and the server said, and who holds the display: for a failure to explain itself.
        let said = ["xterm.log", "kitty.log", "xvfb.log"].map { name in
            let text = (try? String(contentsOf: scratch.appendingPathComponent(name), encoding: .utf8)) ?? ""
            return "\(name): \(text.suffix(400).trimmingCharacters(in: .whitespacesAndNewlines))"
        }
        let number = Int(display.dropFirst()) ?? -1
        throw Failure(description: "the terminal's window did not appear on \(display) (server \(server), lock held by \(Self.lockHolder(number).map(String.init) ?? "none")); "
                      + said.joined(separator: "; "))
    }

    /// The whole screen, as a picture.
    func screenshot() throws -> RasterImage {
        let file = scratch.appendingPathComponent("screen.png")
        _ = try run("/usr/bin/import", ["-display", display, "-window", "root", file.path])
        return try RasterImage(decoding: Data(contentsOf: file))
    }

    private func run(_ tool: String, _ arguments: [String]) throws -> String {
        let output = scratch.appendingPathComponent("tool-output").path
        let pid = try CleanSpawn.start(tool, arguments, output: output)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else {
            let said = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            throw Failure(description: "\(tool) \(arguments.first ?? "") failed: \(said.suffix(300).trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    }
}
