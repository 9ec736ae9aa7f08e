import AppModel
import EventLoop
import Foundation
import MapRender
import MapbookCore
import Testing
@testable import TerminalRender
@testable import TerminalUI
import TerminalCanvas
import ArcGISModel

@Suite struct SnapshotTests {
    static let sizes: [(width: Int, height: Int)] = [(80, 24), (120, 40), (200, 50), (50, 30)]

    @Test(arguments: sizes.map { [$0.width, $0.height] })
    @UIActor func mainScreen(size: [Int]) async {
        let state = await SnapshotState.loaded()
        let frame = SnapshotState.render(state, width: size[0], height: size[1])
        expectSnapshot(frame, "main-\(size[0])x\(size[1])")
        #expect(frame.text.contains("Greater Portland"))
        #expect(frame.text.contains("6 map areas"))
    }

    @Test(arguments: sizes.map { [$0.width, $0.height] })
    @UIActor func details(size: [Int]) async {
        var state = await SnapshotState.loaded()
        state.screen = .details(scroll: 0)
        let frame = SnapshotState.render(state, width: size[0], height: size[1])
        expectSnapshot(frame, "details-\(size[0])x\(size[1])")
        #expect(frame.text.contains("5dbbd50464b546a1ae4e39236f5fafa0"))
    }

    @Test(arguments: sizes.map { [$0.width, $0.height] })
    @UIActor func help(size: [Int]) async {
        var state = await SnapshotState.loaded()
        state.overlay = .help(scroll: 0)
        // The card's layout over the rows the list answers to: over the whole table its page count
        // moved with every key added anywhere (HelpTests check that help holds the whole table).
        state.preferences.keyBindings = KeyMap.bindings.filter { [.everywhere, .list].contains($0.context) }
        let frame = SnapshotState.render(state, width: size[0], height: size[1])
        expectSnapshot(frame, "help-\(size[0])x\(size[1])")
        #expect(frame.text.contains("Keys"))
    }

    @Test @UIActor func asciiAndMonochrome() async {
        let state = await SnapshotState.loaded()
        var options = SnapshotState.options
        options.glyphs = .ascii
        options.theme = .monochrome
        let frame = SnapshotState.render(state, width: 80, height: 24, options: options)
        expectSnapshot(frame, "main-80x24-ascii")
        // Nothing but ASCII: without a UTF-8 locale, anything else would be dropped by ncurses.
        #expect(frame.cells.allSatisfy { $0.character.isASCII && !$0.isContinuation })
        #expect(frame.cells.allSatisfy { $0.style.foreground == nil && $0.style.background == nil })
        // Without colour the selection shows in reverse video.
        let list = MainLayout(width: 80, height: 24).list
        let row = (0..<24).first { frame.row(at: $0).contains("Greater Portland") && frame[list.x, $0].character == ">" }
        #expect(row != nil && frame[list.x + 20, row!].style.reverse)
    }

    /// Every screen and overlay, in ASCII: no cell left out, the sentences' punctuation by likeness.
    @Test @UIActor func everyScreenIsASCIIWithoutUTF8() async {
        let loaded = await SnapshotState.loaded()
        var options = SnapshotState.options
        options.glyphs = .ascii
        var details = loaded, help = loaded, map = loaded, question = loaded, offline = loaded
        details.screen = .details(scroll: 0)
        details.list.selection = 1
        help.overlay = .help(scroll: 0)
        _ = App.update(&map, .intent(.list(.selectRow(1))))
        _ = App.update(&map, .intent(.list(.openMap)))
        question.overlay = .confirm(Confirmation(question: "2 downloads running — quit and resume them next time?",
                                                 detail: "What has arrived is kept on this device.", action: .quit))
        offline.portal.network = .offline
        offline.notice = .offline
        for (name, state) in [("main", loaded), ("details", details), ("help", help), ("map", map), ("question", question),
                              ("offline", offline)] {
            let frame = SnapshotState.render(state, width: 100, height: 30, options: options)
            #expect(frame.cells.allSatisfy { $0.character.isASCII && !$0.isContinuation }, "\(name)")
        }
        let text = SnapshotState.render(offline, width: 100, height: 30, options: options).text
        #expect(text.contains("map areas on this device"))
        #expect(SnapshotState.render(loaded, width: 100, height: 30, options: options).text.contains("^v move  m map"), "no gap for the arrows")
        #expect(SnapshotState.render(question, width: 100, height: 30, options: options).text
            .contains("2 downloads running - quit and resume them next time?"))
    }

    /// The Maps card on its Search tab: the words typed, the web maps found (where they were found,
    /// who owns them, offline and on this device), the thumbnail of the chosen one, more to come.
    @Test(arguments: [[120, 40], [80, 24]])
    @UIActor func mapsCard(size: [Int]) async {
        var state = await SnapshotState.loaded()
        var maps = WebMapsBrowser(tab: .search)
        maps.query = "maine"
        maps.lists[.search] = [
            MapListing(id: .exploreMaine, title: "Explore Maine", owner: "mapbook_sample", modified: Date(timeIntervalSince1970: 1_700_000_000),
                       offline: true, downloadedAreas: 2),
            MapListing(id: ItemID("0a11ce5ecdef4a7b9c1d2e3f40516273")!, title: "Explore Maine (staff)", owner: "demo", offline: true, folder: "Field Crew"),
            MapListing(id: ItemID("d1a20000000000000000000000000001")!, title: "Maine Topographic", owner: "mapbook_sample"),
        ]
        maps.more[.search] = .search("maine")
        state.overlay = .maps(maps)
        let frame = SnapshotState.render(state, width: size[0], height: size[1])
        expectSnapshot(frame, "maps-\(size[0])x\(size[1])")
        #expect(frame.text.contains("Search: maine") && frame.text.contains("1 of 3 web maps, more below"))
        #expect(frame.text.contains("2 areas here"))
        var ascii = SnapshotState.options
        ascii.glyphs = .ascii
        #expect(SnapshotState.render(state, width: size[0], height: size[1], options: ascii).cells.allSatisfy { $0.character.isASCII })
        // Narrow: the keys that fit, the border's corners kept, the titles before the details.
        let narrow = SnapshotState.render(state, width: 50, height: 20)
        let bottom = try! #require((0..<20).map { narrow.row(at: $0) }.first { $0.contains("╰") })
        #expect(bottom.contains("╰─") && bottom.contains("Enter open · / search ─╯") && !bottom.contains("Esc"))
        #expect((0..<20).map { narrow.row(at: $0) }.contains { $0.contains("Explore Maine (staff)") })
    }

    @Test @UIActor func loadingOfflineErrorEmptyAndNoMatchStates() async {
        let loaded = await SnapshotState.loaded()
        var states: [(String, AppState)] = []
        states.append(("loading", AppState(portalHost: "www.arcgis.com", webMapID: .exploreMaine, phase: .loading)))
        var offline = AppState(portalHost: "www.arcgis.com", webMapID: .exploreMaine, phase: .unreachable(host: "www.arcgis.com"))
        offline.portal.network = .offline
        states.append(("offline", offline))
        var failed = AppState(portalHost: "www.arcgis.com", webMapID: .exploreMaine,
                              phase: .failed("www.arcgis.com says the item was not found (ArcGIS error 400)."))
        failed.portal.network = .online
        states.append(("error", failed))
        var empty = loaded
        empty.catalog.areas = []
        empty.list.selection = 0
        states.append(("no-areas", empty))
        var noMatch = loaded
        noMatch.list.filterText = "zzz"
        noMatch.list.selection = 0
        states.append(("no-match", noMatch))
        for (name, state) in states {
            expectSnapshot(SnapshotState.render(state, width: 80, height: 24), "state-\(name)")
        }
        let offlineText = SnapshotState.render(offline, width: 80, height: 24).text
        #expect(offlineText.contains("No internet connection") && !offlineText.contains("no map areas"))
        #expect(SnapshotState.render(empty, width: 80, height: 24).text.contains("This web map has no map areas."))
    }

    @Test @UIActor func everySizeDownToOneByOneRendersWithoutCrashing() async {
        var state = await SnapshotState.loaded()
        // Sizes around every threshold of the layout: too small, stacked, split.
        let widths = [1, 2, 5, 19, 20, 21, 39, 40, 41, 49, 79, 80, 81, 133]
        let heights = [1, 2, 3, 7, 8, 9, 10, 11, 12, 25]
        for (screen, help) in [(Screen.main, false), (.details(scroll: 0), false), (.main, true)] {
            state.screen = screen
            state.overlay = help ? .help(scroll: 0) : nil
            for width in widths {
                for height in heights {
                    let frame = SnapshotState.render(state, width: width, height: height)
                    #expect(frame.width == width && frame.height == height)
                }
            }
        }
        let small = SnapshotState.render(state, width: 20, height: 8)
        #expect(small.text.contains("Terminal too small"))
        expectSnapshot(small, "too-small-20x8")
    }

    @Test @UIActor func theSelectedRowIsMarkedAndTheOverviewNamesAndMarksIt() async {
        let state = await SnapshotState.loaded()
        let frame = SnapshotState.render(state, width: 120, height: 40)
        let layout = MainLayout(width: 120, height: 40)
        let markedRows = (layout.list.y..<layout.list.maxY).filter { frame[layout.list.x, $0].character == "▌" }
        #expect(markedRows.count == 4, "the row's four lines")
        #expect(frame.row(at: markedRows[0]).contains("Greater Portland"))
        #expect(frame[layout.list.x, markedRows[0]].style == UITheme.color.marker)
        #expect(frame.row(at: layout.overview.y).hasPrefix(" ◆ Greater Portland"))
        let mapMarkers = (layout.overview.y + 1..<layout.overview.maxY).flatMap { y in
            (layout.overview.x..<layout.overview.maxX).filter { frame[$0, y].character == "◆" }
        }
        #expect(mapMarkers.count == 1)
        // With the web map selected the caption names the map, and no area is marked.
        var webMap = state
        webMap.list.selection = 0
        let mapFrame = SnapshotState.render(webMap, width: 120, height: 40)
        #expect(mapFrame.row(at: layout.overview.y).hasPrefix(" Explore Maine"))
        #expect(!mapFrame.cells.contains { $0.character == "◆" })
    }
}
