import AppModel
import EventLoop
import Foundation
import Geometry
import MapRender
import PixelRender
import TerminalCanvas
import TerminalRender
import Testing
import TileFormats
import UserFiles
@testable import TerminalUI

/// Asking the terminal whether it shows pictures, and what is sent for the map's picture.
@Suite struct TerminalPicturesTests {
    @Test func theTerminalsAnswersAreReadAmongAnythingElse() {
        let kitty = GraphicsProbe.Answers(parsing: Array("x\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[6;20;10t\u{1B}[?62;22c".utf8))
        #expect(kitty.kitty && !kitty.sixel && kitty.attributes && kitty.cell?.width == 10 && kitty.cell?.height == 20)
        let xterm = GraphicsProbe.Answers(parsing: Array("\u{1B}[?63;1;2;4;6;9;15;22c".utf8))
        #expect(!xterm.kitty && xterm.sixel && xterm.attributes && xterm.cell == nil)
        // Half an answer (the attributes not yet come), a hostile size, and noise.
        let partial = GraphicsProbe.Answers(parsing: Array("\u{1B}[6;99999;0t\u{1B}[?6".utf8))
        #expect(!partial.attributes && partial.cell == nil)
        #expect(GraphicsProbe.Answers(parsing: Array(repeating: 0x1B, count: 5_000)) == GraphicsProbe.Answers())
    }

    /// The background's colour (`OSC 11`, in any of its digit counts, ended by ST or BEL), and
    /// `COLORFGBG` when the terminal did not say.
    @Test func aLightBackgroundIsHeardOrHinted() {
        func light(_ answer: String, _ environment: [String: String] = [:]) -> Bool? {
            GraphicsProbe.lightBackground(GraphicsProbe.Answers(parsing: Array(answer.utf8)), environment: environment)
        }
        #expect(light("\u{1B}]11;rgb:ffff/ffff/ffff\u{1B}\\\u{1B}[?62c") == true)
        #expect(light("\u{1B}]11;rgb:fff/fff/eee\u{07}") == true)
        #expect(light("\u{1B}]11;rgb:00/2b/36\u{1B}\\") == false)
        // Bright blue is dark to read on, however bright its channel.
        #expect(light("\u{1B}]11;rgb:0000/0000/ffff\u{1B}\\") == false)
        // Hostile or broken answers say nothing.
        for broken in ["\u{1B}]11;rgb:fffff/ffff/ffff\u{07}", "\u{1B}]11;rgb:ff/ff\u{07}", "\u{1B}]11;rgb:zz/ff/ff\u{07}", "\u{1B}]11;"] {
            #expect(light(broken) == nil, "\(broken.debugDescription)")
        }
        #expect(light("", ["COLORFGBG": "0;15"]) == true && light("", ["COLORFGBG": "15;default;0"]) == false && light("", ["COLORFGBG": "x"]) == nil)
        // The terminal's own answer outranks the hint.
        #expect(light("\u{1B}]11;rgb:0/0/0\u{07}", ["COLORFGBG": "0;15"]) == false)
        #expect(UITheme.chosen(.auto, noColor: false, colorCount: 256, lightBackground: true).map == .light)
        #expect(UITheme.chosen(.dark, noColor: false, colorCount: 256, lightBackground: true).map != .light)
        #expect(UITheme.chosen(.auto, noColor: false, colorCount: 256, lightBackground: nil).map != .light)
    }

    @Test func theSettingTheAnswersAndTmuxDecide() {
        let cell = (width: 9, height: 18)
        let kitty = GraphicsProbe.Answers(parsing: Array("\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[?62;4c".utf8))
        let sixel = GraphicsProbe.Answers(parsing: Array("\u{1B}[?62;4c\u{1B}[23;1R".utf8))
        let sixelNotDrawn = GraphicsProbe.Answers(parsing: Array("\u{1B}[?62;4c\u{1B}[1;1R".utf8))
        let sixelUnchecked = GraphicsProbe.Answers(parsing: Array("\u{1B}[?62;4c".utf8))
        let none = GraphicsProbe.Answers(parsing: Array("\u{1B}[?62c".utf8))
        func way(_ choice: GraphicsMode, _ environment: [String: String] = [:], ascii: Bool = false, answers: GraphicsProbe.Answers?,
                 cell: (width: Int, height: Int)? = cell) -> GraphicsProtocol? {
            GraphicsProbe.decide(choice, environment: environment, ascii: ascii, answers: answers, windowCell: cell).pictures?.0
        }
        #expect(way(.auto, answers: kitty) == .kitty)
        #expect(way(.auto, answers: sixel) == .sixel)
        // Said sixel and drew nothing (or never said where the cursor went): characters, with why;
        // unless sixel was chosen by name.
        for answers in [sixelNotDrawn, sixelUnchecked] {
            let decided = GraphicsProbe.decide(.auto, environment: [:], ascii: false, answers: answers, windowCell: cell)
            #expect(decided.pictures == nil && decided.problem == "The terminal says it shows sixel pictures but did not draw one, so the map is drawn in characters.")
            #expect(way(.sixel, answers: answers) == .sixel)
        }
        #expect(way(.auto, answers: none) == nil)
        #expect(way(.auto, ["TERM_PROGRAM": "iTerm.app"], answers: none) == .iterm)
        // A terminal that never answered: characters.
        #expect(way(.auto, answers: nil) == nil)
        #expect(way(.sixel, answers: nil) == .sixel)
        #expect(way(.off, answers: kitty) == nil && way(.braille, answers: kitty) == nil)
        #expect(way(.auto, ascii: true, answers: kitty) == nil)
        #expect(way(.auto, ["TMUX": "/tmp/tmux-0/default,1,0"], answers: kitty) == nil)
        // Under tmux, a way named: pictures when tmux lets them through, else characters and why.
        let inTmux = ["TMUX": "/tmp/tmux-0/default,1,0"]
        let lets = TmuxPassthrough.parse("1|0|0|on|bottom|1|1"), refuses = TmuxPassthrough.parse("0|0|0|on|bottom|1|1")
        #expect(GraphicsProbe.decide(.kitty, environment: inTmux, ascii: false, answers: nil, windowCell: cell, tmux: lets).pictures?.0 == .kitty)
        let refused = GraphicsProbe.decide(.sixel, environment: inTmux, ascii: false, answers: nil, windowCell: cell, tmux: refuses)
        #expect(refused.pictures == nil && refused.problem?.contains("allow-passthrough on") == true)
        let unasked = GraphicsProbe.decide(.sixel, environment: inTmux, ascii: false, answers: nil, windowCell: cell, tmux: nil)
        #expect(unasked.pictures == nil && unasked.problem == "tmux could not be asked whether it lets pictures through, so the map is drawn in characters.")
        // Pictures asked for, and no cell size from anywhere: one sentence.
        let unknown = GraphicsProbe.decide(.sixel, environment: [:], ascii: false, answers: none, windowCell: nil)
        #expect(unknown.pictures == nil && unknown.problem?.hasSuffix(".") == true)
    }

    /// A terminal that never answers costs the limit, once; one that answers late is heard. (The
    /// waiting runs on a thread of its own, not one of the test runner's few.)
    @Test func aSilentTerminalCostsTheLimitAndASlowOneIsHeard() async throws {
        let (silent, waited, queried, slow) = try await XServer.offThePool { () throws -> (GraphicsProbe.Answers?, Duration, Int, GraphicsProbe.Answers?) in
            var controller: Int32 = 0, terminal: Int32 = 0
            guard openpty(&controller, &terminal, nil, nil, nil) == 0 else { throw XServer.Failure(description: "no pty") }
            defer { close(controller); close(terminal) }
            let start = ContinuousClock.now
            let silent = GraphicsProbe.ask(input: terminal, output: terminal, limit: .milliseconds(300))
            let waited = ContinuousClock.now - start
            // The query reached the terminal's side; the answer comes 100 ms later.
            var buffer = [UInt8](repeating: 0, count: 256)
            let queried = read(controller, &buffer, buffer.count)
            return (silent, waited, queried, Self.answered(on: terminal, by: controller, after: 100_000, cursorRow: 23))
        }
        #expect(silent.map { !$0.attributes && !$0.kitty && !$0.sixel } ?? true)
        #expect(waited >= .milliseconds(290) && waited < .seconds(5))
        #expect(queried >= GraphicsProbe.query.count)
        #expect(slow?.sixel == true && slow?.attributes == true && slow?.sixelDrawn == true)
    }

    /// A terminal that says it shows sixel is asked to draw one: one whose cursor stayed on the
    /// first row did not.
    @Test func aSixelTerminalThatDrawsNothingIsFoundOut() async throws {
        let answers = try await XServer.offThePool { () throws -> GraphicsProbe.Answers? in
            var controller: Int32 = 0, terminal: Int32 = 0
            guard openpty(&controller, &terminal, nil, nil, nil) == 0 else { throw XServer.Failure(description: "no pty") }
            defer { close(controller); close(terminal) }
            return Self.answered(on: terminal, by: controller, after: 0, cursorRow: 1)
        }
        #expect(answers?.sixel == true && answers?.sixelDrawn == false)
    }

    /// Asks on `terminal` while a thread plays a sixel terminal on `controller`: the device
    /// attributes after `delay` µs, then, once the test picture came, the cursor on `cursorRow`.
    private static func answered(on terminal: Int32, by controller: Int32, after delay: UInt32, cursorRow: Int) -> GraphicsProbe.Answers? {
        Thread.detachNewThread {
            usleep(delay)
            func send(_ text: String) { _ = Array(text.utf8).withUnsafeBytes { write(controller, $0.baseAddress, $0.count) } }
            send("\u{1B}[?63;4c")
            var seen: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 512)
            while !String(decoding: seen, as: UTF8.self).contains("\u{1B}[6n") {
                let count = read(controller, &buffer, buffer.count)
                guard count > 0 else { return }
                seen += buffer[0..<count]
            }
            send("\u{1B}[\(cursorRow);1R")
        }
        return GraphicsProbe.ask(input: terminal, output: terminal, limit: .seconds(3))
    }

    /// A map state showing `picture` at 20×6 cells of 4×8 pixels, on a 20×8 screen.
    static func mapState(_ picture: RasterImage?) -> AppState {
        var state = AppState.standaloneMap(title: "t", sourceName: "s", home: nil)
        let viewport = MapViewport(center: MercatorPoint(x: 0, y: 0), zoom: 3)
        var image = MapImage(picture: MapPicture(frame: Frame(width: 20, height: 6)), request: MapRequest(viewport: viewport, columns: 20, rows: 6))
        image.pixels = picture
        if case .map(var map) = state.screen {
            map.image = image
            state.screen = .map(map)
        }
        return state
    }

    /// The main screen at 100×30 with an overview basemap in pixels (4×8-pixel cells), and its pane.
    static func mainState() throws -> (AppState, Rect) {
        var state = AppState(portalHost: "h", webMapID: .exploreMaine, phase: .loaded)
        _ = App.update(&state, .terminal(.resized(Display(width: 100, height: 30))))
        let pane = try #require(state.layout?.main.overview)
        let viewport = MapViewport(center: MercatorPoint(x: 0, y: 0), zoom: 3)
        var image = MapImage(picture: MapPicture(frame: Frame(width: pane.width, height: pane.height - 1)),
                             request: MapRequest(viewport: viewport, columns: pane.width, rows: pane.height - 1))
        image.pixels = RasterImage(width: pane.width * 4, height: (pane.height - 1) * 8,
                                   rgba: [UInt8](repeating: 255, count: pane.width * 4 * (pane.height - 1) * 8 * 4))
        state.overview.basemap = image
        return (state, pane)
    }

    static let picture = RasterImage(width: 80, height: 48, rgba: Array([[UInt8]](repeating: [10, 120, 200, 255], count: 80 * 48).joined()))

    /// The test picture's four tiles: 80×48 pixels about the world's middle, where four of kitty's
    /// tiles meet (each 40×24 of it), and their ids.
    static let tileIDs: [UInt32] = [1_000_000, 1_000_001, 1_000_002, 1_000_003]

    static func kittyCommands(_ bytes: [UInt8], _ action: String) -> [String] {
        String(decoding: bytes, as: UTF8.self).split(separator: "\u{1B}_G").filter { $0.hasPrefix(action) }.map(String.init)
    }

    @Test @UIActor func kittySendsAPictureOnceAndTakesItAway() {
        let presenter = PicturePresenter(graphics: .kitty)
        var frame = Frame(width: 20, height: 8)
        let state = Self.mapState(Self.picture)
        let first = presenter.update(for: state, frame: frame, theme: MapTheme())
        let text = String(decoding: first.bytes, as: UTF8.self)
        // Its tiles transmitted, then each placed at its cell (the top left one at the map's corner) under the text.
        #expect(text.hasPrefix("\u{1B}7\u{1B}_Ga=t,f=24,o=z,s=40,v=24,i=1000000,q=2,"))
        #expect(Self.kittyCommands(first.bytes, "a=t,").count == 4)
        #expect(text.contains("\u{1B}[2;1H\u{1B}_Ga=p,i=1000000,p=1,x=0,y=0,w=40,h=24,X=0,Y=0,z=-1073741825,C=1,q=2\u{1B}\\"))
        #expect(text.contains("\u{1B}[5;11H\u{1B}_Ga=p,i=1000003,p=1,x=0,y=0,w=40,h=24,X=0,Y=0,z=-1073741825,C=1,q=2\u{1B}\\"))
        // The same picture under other text: nothing to send.
        _ = frame.put("Name", x: 3, y: 3)
        #expect(presenter.update(for: state, frame: frame, theme: MapTheme()).bytes.isEmpty)
        // No picture any more: its placements taken away, its pixels kept by the terminal…
        let gone = presenter.update(for: Self.mapState(nil), frame: frame, theme: MapTheme())
        #expect(String(decoding: gone.bytes, as: UTF8.self) == Self.tileIDs.map { "\u{1B}_Ga=d,d=i,i=\($0),q=2\u{1B}\\" }.joined() && !gone.repaint)
        // … so the same picture back is placed again, not sent; leaving for good deletes it.
        let back = presenter.update(for: state, frame: frame, theme: MapTheme()).bytes
        #expect(Self.kittyCommands(back, "a=p,").count == 4 && Self.kittyCommands(back, "a=t").isEmpty)
        #expect(String(decoding: presenter.close(), as: UTF8.self) == Self.tileIDs.map { "\u{1B}_Ga=d,d=I,i=\($0),q=2\u{1B}\\" }.joined())
    }

    /// While tmux shows another window the pictures are taken away (kitty keeps the tiles; a sixel
    /// picture's cells are drawn again), and shown again after: kitty's placed, sixel's sent whole.
    @Test @UIActor func aHiddenPaneShowsNoPictureAndItComesBackAfter() {
        let frame = Frame(width: 20, height: 8)
        let state = Self.mapState(Self.picture)
        let kitty = PicturePresenter(graphics: .kitty)
        _ = kitty.update(for: state, frame: frame, theme: MapTheme())
        kitty.hidden = true
        let away = kitty.update(for: state, frame: frame, theme: MapTheme())
        #expect(Self.kittyCommands(away.bytes, "a=d,d=i,").count == 4 && !away.repaint)
        #expect(kitty.update(for: state, frame: frame, theme: MapTheme()).bytes.isEmpty, "nothing more while hidden")
        kitty.hidden = false
        let back = kitty.update(for: state, frame: frame, theme: MapTheme()).bytes
        #expect(Self.kittyCommands(back, "a=p,").count == 4 && Self.kittyCommands(back, "a=t").isEmpty)
        let sixel = PicturePresenter(graphics: .sixel)
        let first = sixel.update(for: state, frame: frame, theme: MapTheme()).bytes
        sixel.hidden = true
        #expect(sixel.update(for: state, frame: frame, theme: MapTheme()).repaint)
        sixel.hidden = false
        #expect(sixel.update(for: state, frame: frame, theme: MapTheme()).bytes == first, "the whole picture again")
    }

    /// A resize clears the screen (curses does), and kitty with it: the tiles it held are deleted,
    /// and the same picture after it is sent again, not only placed; sixel's too.
    @Test @UIActor func afterTheScreenIsClearedThePictureIsSentAgain() {
        let frame = Frame(width: 20, height: 8)
        let state = Self.mapState(Self.picture)
        let kitty = PicturePresenter(graphics: .kitty)
        _ = kitty.update(for: state, frame: frame, theme: MapTheme())
        #expect(Self.kittyCommands(kitty.screenCleared(), "a=d,d=I,").count == 4)
        #expect(Self.kittyCommands(kitty.update(for: state, frame: frame, theme: MapTheme()).bytes, "a=t,").count == 4)
        let sixel = PicturePresenter(graphics: .sixel)
        let first = sixel.update(for: state, frame: frame, theme: MapTheme()).bytes
        #expect(sixel.screenCleared().isEmpty)
        #expect(sixel.update(for: state, frame: frame, theme: MapTheme()).bytes == first)
    }

    /// A pan's picture at hand is the tiles kitty holds placed moved (their parts still in view,
    /// from the cell and pixel where each now starts), none sent, over a wash of the last picture's
    /// mean colour (one pixel stretched under them); the view's own picture after it sends only the
    /// tiles whose pixels the terminal does not hold, the wash taken away.
    @Test @UIActor func kittyPlacesTheHeldPictureMovedForAPan() {
        let presenter = PicturePresenter(graphics: .kitty)
        let frame = Frame(width: 20, height: 8)
        let first = Self.mapState(Self.picture)
        _ = presenter.update(for: first, frame: frame, theme: MapTheme())
        // Panned by dots (two a cell across, four down; a cell is 4×8 pixels), at hand or drawn.
        func panned(_ dotsX: Double, _ dotsY: Double, atHand: Bool) -> AppState {
            var state = Self.mapState(Self.picture.moved(x: 0, y: 0, filling: (0, 0, 0, 255)))
            state.withMap { map in
                map.image?.request.viewport = first.map!.image!.request.viewport.panned(dotsX: dotsX, dotsY: dotsY)
                map.image?.isAtHand = atHand
            }
            return state
        }
        let right = presenter.update(for: panned(5, 0, atHand: true), frame: frame, theme: MapTheme()).bytes
        let wash = "\u{1B}[2;1H\u{1B}_Ga=T,f=24,s=1,v=1,i=3,p=1,c=20,r=6,z=-1073741826,C=1,q=2;CnjI\u{1B}\\"
        // Ten pixels right: the left tiles' last 30 columns from the corner, the right ones from pixel 30 (cell 7 and 2 pixels in).
        let placed = "\u{1B}7\u{1B}[2;1H\u{1B}_Ga=p,i=1000000,p=1,x=10,y=0,w=30,h=24,X=0,Y=0,z=-1073741825,C=1,q=2\u{1B}\\"
            + "\u{1B}[2;8H\u{1B}_Ga=p,i=1000001,p=1,x=0,y=0,w=40,h=24,X=2,Y=0,z=-1073741825,C=1,q=2\u{1B}\\"
        #expect(String(decoding: right, as: UTF8.self).hasPrefix(placed) && String(decoding: right, as: UTF8.self).hasSuffix(wash + "\u{1B}8"))
        #expect(Self.kittyCommands(right, "a=p,").count == 4 && Self.kittyCommands(right, "a=t").isEmpty)
        let upLeft = String(decoding: presenter.update(for: panned(-3, -4.5, atHand: true), frame: frame, theme: MapTheme()).bytes, as: UTF8.self)
        #expect(upLeft.hasPrefix("\u{1B}7\u{1B}_Ga=d,d=I,i=3,q=2\u{1B}\\\u{1B}[3;2H\u{1B}_Ga=p,i=1000000,p=1,x=0,y=0,w=40,h=24,X=2,Y=1,")
                && upLeft.contains(wash), "\(upLeft)")
        // Its own picture: the tiles that now reach further into view are sent; the others placed.
        let own = presenter.update(for: panned(-3, -4.5, atHand: false), frame: frame, theme: MapTheme()).bytes
        let ownText = String(decoding: own, as: UTF8.self)
        #expect(!Self.kittyCommands(own, "a=t,").isEmpty && Self.kittyCommands(own, "a=t,").count < 9)
        #expect(ownText.contains("a=d,d=I,i=3") && !ownText.contains("i=3,p=1"))
        #expect(!String(decoding: presenter.close(), as: UTF8.self).contains("i=3,"), "the wash is gone already")
    }

    /// A zoom's picture at hand is the tiles kitty holds placed scaled, each over the cells nearest
    /// its edges (so that they meet): zoomed in, the middle of each over a quarter of the view;
    /// zoomed out, each over the cells it covers about the middle, the wash around them. None sent.
    @Test @UIActor func kittyPlacesTheHeldPictureScaledForAZoom() {
        let presenter = PicturePresenter(graphics: .kitty)
        let frame = Frame(width: 20, height: 8)
        let first = Self.mapState(Self.picture)
        _ = presenter.update(for: first, frame: frame, theme: MapTheme())
        func zoomed(_ steps: Double) -> AppState {
            var state = Self.mapState(Self.picture.moved(x: 0, y: 0, filling: (0, 0, 0, 255)))
            state.withMap { map in
                map.image?.request.viewport = first.map!.image!.request.viewport.zoomed(by: steps)
                map.image?.isAtHand = true
            }
            return state
        }
        let zoomedIn = presenter.update(for: zoomed(1), frame: frame, theme: MapTheme()).bytes
        #expect(String(decoding: zoomedIn, as: UTF8.self)
            .hasPrefix("\u{1B}7\u{1B}[2;1H\u{1B}_Ga=p,i=1000000,p=1,x=20,y=12,w=20,h=12,c=10,r=3,z=-1073741825,C=1,q=2\u{1B}\\"))
        // 80×48 pixels halved about the middle: tiles of 20×12 pixels, five cells across and a cell
        // and a half down; the top ones from pixel row 12 (a cell and a half: the nearest cell edge
        // is row 2's end) over one row, their lower two thirds; the bottom ones over the next two.
        let zoomedOut = presenter.update(for: zoomed(-1), frame: frame, theme: MapTheme()).bytes
        let zoomedOutText = String(decoding: zoomedOut, as: UTF8.self)
        #expect(zoomedOutText.contains("\u{1B}[4;6H\u{1B}_Ga=p,i=1000000,p=1,x=0,y=8,w=40,h=16,c=5,r=1,z=-1073741825,")
                && zoomedOutText.contains("\u{1B}[5;11H\u{1B}_Ga=p,i=1000003,p=1,x=0,y=0,w=40,h=24,c=5,r=2,")
                && zoomedOutText.contains("i=3,p=1,c=20,r=6"), "\(zoomedOutText)")
        #expect(Self.kittyCommands(zoomedIn, "a=t").isEmpty && Self.kittyCommands(zoomedOut, "a=t").isEmpty, "no tile is sent again")
    }

    /// The overview's picture and the map view's have ids of their own: going from one screen to
    /// the other and back sends neither again; a new drawing is sent in place of the old.
    @Test @UIActor func theOverviewAndTheMapAreEachSentOnce() throws {
        let presenter = PicturePresenter(graphics: .kitty)
        let (main, _) = try Self.mainState()
        var map = Self.mapState(Self.picture)
        _ = App.update(&map, .terminal(.resized(Display(width: 20, height: 8))))
        let screen = Frame(width: 100, height: 30), small = Frame(width: 20, height: 8)
        func sent(_ state: AppState, _ frame: Frame) -> [UInt8] { presenter.update(for: state, frame: frame, theme: MapTheme()).bytes }
        func ids(_ bytes: [UInt8], _ action: String) -> Set<String> {
            Set(Self.kittyCommands(bytes, action).compactMap { $0.firstMatch(of: /i=(\d+)/).map { String($0.1) } })
        }
        let overview = sent(main, screen)
        let overviewTiles = ids(overview, "a=t,f=24,o=z")
        #expect(!overviewTiles.isEmpty && overviewTiles.allSatisfy { $0.hasPrefix("200000") })
        let toMap = sent(map, small)
        #expect(ids(toMap, "a=d,d=i,") == overviewTiles && ids(toMap, "a=t,f=24,o=z") == Set(Self.tileIDs.map(String.init)))
        let toMain = sent(main, screen)
        #expect(ids(toMain, "a=d,d=i,") == Set(Self.tileIDs.map(String.init)) && ids(toMain, "a=p,") == overviewTiles && ids(toMain, "a=t").isEmpty)
        let again = sent(map, small)
        #expect(ids(again, "a=p,") == Set(Self.tileIDs.map(String.init)) && ids(again, "a=t").isEmpty)
        // A new drawing of the map view: the old tiles' pixels freed, the new ones sent.
        let redrawn = sent(Self.mapState(RasterImage(width: 80, height: 48, rgba: [UInt8](repeating: 9, count: 80 * 48 * 4))), small)
        #expect(ids(redrawn, "a=d,d=I,") == Set(Self.tileIDs.map(String.init)) && Self.kittyCommands(redrawn, "a=t,f=32,").count == 4)
        let closed = presenter.close()
        #expect(ids(closed, "a=d,d=I,").count == 4 + overviewTiles.count && ids(closed, "a=d,d=I,").isSuperset(of: overviewTiles))
    }

    /// On the main screen the overview's basemap is the picture, under the pane's caption row.
    @Test @UIActor func theOverviewsPictureGoesUnderItsCaption() throws {
        let (state, pane) = try Self.mainState()
        let text = String(decoding: PicturePresenter(graphics: .kitty).update(for: state, frame: Frame(width: 100, height: 30), theme: MapTheme()).bytes, as: UTF8.self)
        #expect(text.contains("\u{1B}[\(pane.y + 2);\(pane.x + 1)H\u{1B}_Ga=p,i=2000000,p=1,x=0,y=0,"))
        #expect(!text.contains("\u{1B}[\(pane.y + 1);"), "nothing is placed on the caption row")
    }

    /// The map view's lines (here the ruler's) are drawn into the picture, not written over it in
    /// characters: a ruler moved sends the picture again, one unchanged nothing.
    @Test @UIActor func theRulerIsDrawnIntoThePicture() throws {
        let presenter = PicturePresenter(graphics: .kitty)
        let frame = Frame(width: 20, height: 8)
        let plain = presenter.update(for: Self.mapState(Self.picture), frame: frame, theme: MapTheme())
        var state = Self.mapState(Self.picture)
        guard case .map(var map) = state.screen else { Issue.record("not a map"); return }
        map.viewport = MapViewport(center: MercatorPoint(x: 0, y: 0), zoom: 3)
        map.ruler = Ruler(start: GeoPoint(longitude: -3, latitude: 0))
        state.screen = .map(map)
        let ruled = presenter.update(for: state, frame: frame, theme: MapTheme())
        #expect(!plain.bytes.isEmpty && !ruled.bytes.isEmpty && ruled.bytes != plain.bytes)
        #expect(presenter.update(for: state, frame: frame, theme: MapTheme()).bytes.isEmpty)
        map.ruler = Ruler(start: GeoPoint(longitude: 3, latitude: 0))
        state.screen = .map(map)
        #expect(!presenter.update(for: state, frame: frame, theme: MapTheme()).bytes.isEmpty)
    }

    /// A new picture that differs from the one shown in some pixel rows (a line drawn into it)
    /// sends the cell rows holding them, in iTerm2's way too; one of another size sends it all.
    @Test @UIActor func onlyTheChangedBandOfAPictureIsSent() throws {
        for graphics in [GraphicsProtocol.sixel, .iterm] {
            let presenter = PicturePresenter(graphics: graphics)
            let frame = Frame(width: 20, height: 8)
            let whole = String(decoding: presenter.update(for: Self.mapState(Self.picture), frame: frame, theme: MapTheme()).bytes, as: UTF8.self)
            #expect(whole.hasPrefix("\u{1B}7\u{1B}[2;1H"))
            var pixels = Self.picture.rgba
            for y in 17..<30 { for x in 0..<80 { pixels[(y * 80 + x) * 4] = 250 } }
            let lined = presenter.update(for: Self.mapState(RasterImage(width: 80, height: 48, rgba: pixels)), frame: frame, theme: MapTheme())
            let text = String(decoding: lined.bytes, as: UTF8.self)
            // Pixel rows 17–29 lie in cell rows 2 and 3 (8 pixels each): drawn from screen row 4.
            #expect(text.hasPrefix("\u{1B}7\u{1B}[4;1H"), "\(graphics)")
            if graphics == .sixel {
                #expect(text.contains("\"1;1;80;16"))
            } else {
                // The band's pixels: the rows from pixel row 16, the changed ones red.
                #expect(text.contains("height=2;"))
                let base64 = try #require(text.split(separator: ":", maxSplits: 1).last?.prefix { $0 != "\u{07}" })
                let band = try RasterImage(decoding: try #require(Data(base64Encoded: String(base64))))
                #expect(band.width == 80 && band.height == 16 && band.pixel(x: 5, y: 0).r == 10 && band.pixel(x: 5, y: 1).r == 250
                        && band.pixel(x: 5, y: 13).r == 250 && band.pixel(x: 5, y: 14).r == 10)
            }
        }
    }

    @Test @UIActor func sixelWritesTheTextAgainOverThePicture() throws {
        let presenter = PicturePresenter(graphics: .sixel)
        var frame = Frame(width: 20, height: 8)
        _ = frame.put("Ab", x: 2, y: 3, style: CellStyle(foreground: 231))
        let state = Self.mapState(Self.picture)
        let first = String(decoding: presenter.update(for: state, frame: frame, theme: MapTheme()).bytes, as: UTF8.self)
        #expect(first.contains("\u{1B}P"))
        // The name, in its colour, on the picture's colour under it (the nearest of 10,120,200).
        let under = XtermPalette.nearest(r: 10, g: 120, b: 200)
        #expect(first.contains("\u{1B}[4;3H\u{1B}[0;38;5;231;48;5;\(under)mA") && first.contains("\u{1B}[4;4H\u{1B}[0;38;5;231;48;5;\(under)mb"))
        #expect(presenter.update(for: state, frame: frame, theme: MapTheme()).bytes.isEmpty)
        // The text changed in one row: the picture under that row of cells (80×8 pixels) from its
        // top, and the new text.
        _ = frame.put("C", x: 9, y: 5)
        let again = String(decoding: presenter.update(for: state, frame: frame, theme: MapTheme()).bytes, as: UTF8.self)
        #expect(again.hasPrefix("\u{1B}7\u{1B}[6;1H\u{1B}P") && again.contains("\"1;1;80;8") && again.contains("\u{1B}[6;10H"))
        #expect(!again.contains("mA") && again.count < first.count)
        // The name taken away again: the same band, not encoded again.
        let made = presenter.encodingsMade
        _ = frame.put(" ", x: 9, y: 5)
        let back = String(decoding: presenter.update(for: state, frame: frame, theme: MapTheme()).bytes, as: UTF8.self)
        #expect(back.hasPrefix("\u{1B}7\u{1B}[6;1H\u{1B}P") && presenter.encodingsMade == made)
        // Text in rows 1 and 4 changed: the band from the one to the other; the same text and
        // picture again: nothing.
        _ = frame.put("D", x: 0, y: 2)
        _ = frame.put("E", x: 0, y: 5)
        let band = String(decoding: presenter.update(for: state, frame: frame, theme: MapTheme()).bytes, as: UTF8.self)
        #expect(band.hasPrefix("\u{1B}7\u{1B}[3;1H\u{1B}P") && band.contains("\"1;1;80;32") && band.contains("mA"))
        #expect(presenter.update(for: state, frame: frame, theme: MapTheme()).bytes.isEmpty)
        // Leaving the picture: every cell drawn again.
        #expect(presenter.update(for: Self.mapState(nil), frame: frame, theme: MapTheme()).repaint)
    }
}
