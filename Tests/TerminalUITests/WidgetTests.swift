import ArcGISModel
import AppModel
import EventLoop
import Foundation
import MapRender
import MapbookCore
import OfflineLibrary
import TerminalCanvas
import Testing
@testable import TerminalRender
@testable import TerminalUI
import LibraryModel
import UserFiles

/// The screens' parts on their own, each drawn into a small frame and checked line by line and
/// style by style.
@Suite struct WidgetTests {
    let theme = UITheme.color
    let options = RenderOptions(glyphs: .unicode, theme: .color)

    /// Before the portal answers, the list shown is the kept one, and the status bar says from when;
    /// cut off, when it was synced. The map's footer leaves that out: it is about the list.
    @Test func theStatusBarSaysHowOldAKeptListIs() throws {
        var state = AppState(portalHost: "p", webMapID: .exploreMaine, phase: .loaded)
        var components = DateComponents(year: 2026, month: 11, day: 20, hour: 9, minute: 5)
        components.timeZone = .current
        state.portal.lastSynced = Calendar.current.date(from: components)
        var frame = Frame(width: 70, height: 1)
        Renderer.drawStatusBar(state, hints: "? help", position: "", into: &frame, options: options)
        #expect(frame.row(at: 0).hasPrefix(" ◌ connecting · list of 20 Nov 09:05 │ ? help"))
        state.portal.network = .portalNotAnswering
        Renderer.drawStatusBar(state, hints: "? help", position: "", into: &frame, options: options)
        #expect(frame.row(at: 0).hasPrefix(" ○ portal not answering · synced 20 Nov 09:05 │"))
        state.screen = AppState.standaloneMap(title: "m", sourceName: "s", home: nil).screen
        Renderer.drawStatusBar(state, hints: "? help", position: "", into: &frame, options: options)
        #expect(frame.row(at: 0).hasPrefix(" ○ portal not answering │"))
    }

    /// A map of an area with edits waiting says so first in its header, where the cut cannot reach it.
    @Test func theMapsHeaderSaysHowManyEditsWait() throws {
        var state = AppState.standaloneMap(title: "Greater Portland", sourceName: "Greater Portland · on this device with a long name", home: nil)
        guard case .map(var map) = state.screen else { Issue.record("no map"); return }
        let area = try #require(ItemID("5dbbd50464b546a1ae4e39236f5fafa0"))
        map.area = area
        map.isStandalone = false
        state.screen = .map(map)
        state.library.unsyncedEdits[area] = 2
        let frame = Renderer.render(state, width: 100, height: 20, options: options)
        #expect(frame.row(at: 0).contains("2 edits not synced · Greater Por"), "\(frame.row(at: 0))")
        state.library.unsyncedEdits = [:]
        #expect(!Renderer.render(state, width: 100, height: 20, options: options).row(at: 0).contains("edits"))
    }

    @Test func theStatusBarSaysTheNetworkThenTheMessageAndThePosition() {
        var state = AppState(portalHost: "p", webMapID: .exploreMaine, phase: .loaded)
        state.portal.network = .offline
        state.portal.lastSynced = nil
        state.notice = .offline
        var frame = Frame(width: 60, height: 2)
        Renderer.drawStatusBar(state, hints: "? help", position: "2/7", into: &frame, options: options)
        // Offline the indicator says so; the bar keeps the keys that still work.
        #expect(frame.row(at: 1) == " ○ offline │ ? help                                     2/7")
        #expect(frame[1, 1].style == theme.offline)
        #expect(frame[20, 1].style == theme.statusBar)
        #expect(frame.row(at: 0).isEmpty, "only its own line")
        state.notice = nil
        state.portal.network = .online
        Renderer.drawStatusBar(state, hints: "? help", position: "", into: &frame, options: options)
        #expect(frame.row(at: 1) == " ● online │ ? help")
        #expect(frame[1, 1].style == theme.online)
    }

    /// At 80 columns the basemap's sentence is longer than the line and the line above: it takes two
    /// lines above, and is read whole; at 120, one.
    @Test func aLongNoticeTakesAsManyLinesAboveAsItNeedsUpToTwo() throws {
        var state = AppState(portalHost: "p", webMapID: .exploreMaine, phase: .loaded)
        state.portal.network = .online
        state.notice = .basemapNotDrawable(WebMapLayer(title: "Carte de base", layerType: "WMS"))
        let sentence = try #require(state.message)
        let position = "46.8139°N 71.2080°W  z12.0  1:144,448  braille"
        for (width, above) in [(80, 2), (120, 1)] {
            var frame = Frame(width: width, height: 10)
            Renderer.drawStatusBar(state, hints: "", position: position, into: &frame, options: options)
            let rows = ((9 - above)...9).map { frame.row(at: $0).trimmingCharacters(in: .whitespaces) }
            #expect(rows.last?.hasSuffix(position) == true)
            let last = rows.last.map { String($0.dropFirst("● online │ ".count).dropLast(position.count)) } ?? ""
            let read = (rows.dropLast() + [last]).joined(separator: " ").split(separator: " ").joined(separator: " ")
            #expect(read == sentence, "\(width) columns: \(rows)")
            #expect(frame.row(at: 8 - above).isEmpty, "\(width) columns: no more lines than it needs")
        }
    }

    @Test func aCardHasABorderItsTitleAndBlankInside() {
        var frame = Frame(width: 20, height: 5)
        DocumentScreen.drawCard(Rect(x: 1, y: 0, width: 12, height: 4), title: "Keys", into: &frame, options: options)
        #expect(frame.text.split(separator: "\n").map(String.init) == [" ╭─ Keys ───╮", " │          │", " │          │", " ╰──────────╯"])
        #expect(frame[1, 0].style == theme.card)
        #expect(frame[4, 0].style.bold, "the title is bold")
        var ascii = Frame(width: 14, height: 3)
        DocumentScreen.drawCard(Rect(x: 0, y: 0, width: 8, height: 3), title: "K", into: &ascii,
                                options: RenderOptions(glyphs: .ascii, theme: .monochrome))
        #expect(ascii.row(at: 0) == "+- K --+" && ascii.row(at: 2) == "+------+")
    }

    @Test func aDocumentShowsItsLinesFromTheScrollClampedToItsEnd() {
        let lines = (1...10).map { [Span("line \($0)", $0 == 1 ? theme.title : .plain)] }
        var frame = Frame(width: 10, height: 4)
        #expect(DocumentScreen.drawLines(lines, scroll: 0, in: frame.bounds, into: &frame) == 0)
        #expect(frame.row(at: 0) == "line 1" && frame[0, 0].style == theme.title)
        frame = Frame(width: 10, height: 4)
        #expect(DocumentScreen.drawLines(lines, scroll: 99, in: frame.bounds, into: &frame) == 6)
        #expect(frame.text == "line 7\nline 8\nline 9\nline 10")
    }

    /// The scrolling list keeps the selection in view, bands it across the rectangle, and brings a
    /// row below it (a layer's legend) into view only as far as the selection stays on screen.
    @Test func aScrollingListKeepsTheSelectionInViewAndBandsIt() {
        let band = CellStyle(reverse: true)
        func drawn(_ list: ScrollingList, height: Int = 3) -> Frame {
            var frame = Frame(width: 8, height: height)
            list.draw(in: frame.bounds, into: &frame, band: band, ascii: false) { index, line, _, frame in
                frame.put("row \(index)", x: line.x, y: line.y, style: .plain, limit: line.maxX)
            }
            return frame
        }
        // Rows out of view are shown by arrows in the last column.
        #expect(drawn(ScrollingList(count: 10, selection: 0)).text == "row 0\nrow 1\nrow 2  ▼")
        let down = drawn(ScrollingList(count: 10, selection: 5))
        #expect(down.text == "row 3  ▲\nrow 4\nrow 5  ▼", "scrolled just far enough")
        #expect(down[6, 2].style == band && down[7, 2].style.reverse && down[7, 1].style != band, "the band crosses the whole width, under the arrow too")
        #expect(drawn(ScrollingList(count: 10, selection: 9)).text == "row 7  ▲\nrow 8\nrow 9")
        #expect(drawn(ScrollingList(count: 3, selection: 2)).text == "row 0\nrow 1\nrow 2", "all in view: no arrows")
        #expect(drawn(ScrollingList(count: 10, selection: 2, alsoShowing: 4)).text == "row 2  ▲\nrow 3\nrow 4  ▼")
        #expect(drawn(ScrollingList(count: 10, selection: 2, alsoShowing: 8)).text == "row 2  ▲\nrow 3\nrow 4  ▼",
                "what is also wanted never pushes the selection off the top")
        #expect(drawn(ScrollingList(count: 0, selection: 0)).text == "\n\n")
    }

    /// An area's row: thumbnail, title, snippet, status; selected, a marker bar down its side.
    @Test @UIActor func anAreaRowShowsItsStatusAndTheSelectionMarker() async {
        var state = await SnapshotState.loaded()
        let bangor = state.catalog.areas[5]
        state.library.transfers[bangor.item.id] = .running(DownloadProgress(bytes: 1_048_576, total: 2_097_152, bytesPerSecond: 524_288))
        var frame = Frame(width: 80, height: 3)
        MainScreen.drawEntry(.area(5), state: state, selected: true, in: frame.bounds, into: &frame, options: options)
        let text = frame.text.split(separator: "\n").map(String.init)
        #expect(text[0].hasSuffix("Bangor"))
        #expect(text[1].contains("Bangor, Brewer, Orono"))
        #expect(text[2].hasSuffix("Downloading ▕████    ▏ 50%  1.0/2.0 MiB  512.0 KiB/s  0:02"))
        #expect((0..<3).allSatisfy { frame[0, $0].character == "▌" && frame[0, $0].style == theme.marker })
        let status = text[2].range(of: "Downloading")!.lowerBound.utf16Offset(in: text[2])
        #expect(frame[frame.width - 1 - (text[2].count - 1 - status), 2].style.foreground != nil)
        var unselected = Frame(width: 80, height: 3)
        MainScreen.drawEntry(.area(5), state: state, selected: false, in: unselected.bounds, into: &unselected, options: options)
        #expect(unselected[0, 0].character == " ")
    }

    /// The list shows the rows from its scroll position, as many as fit, five lines an entry.
    @Test @UIActor func theListShowsTheRowsFromItsScrollPosition() async {
        var state = await SnapshotState.loaded()
        state.list.top = 2
        state.list.selection = 3
        let layout = MainLayout(width: 100, height: 17)
        var frame = Frame(width: 100, height: 17)
        MainScreen.drawList(state, layout: layout, into: &frame, options: options)
        let shown = (layout.entries.y..<layout.entries.maxY).map { frame.row(at: $0) }
        #expect(shown[0].hasSuffix("Boston") && shown[5].hasSuffix("Baxter State Park") && shown[10].hasSuffix("Greater Portland"))
        #expect(shown[3].hasSuffix("Updated 2023-11-14"))
        #expect(frame.row(at: layout.list.y).contains("6 map areas · 12.0 MiB in all"))
        #expect(frame[layout.list.x, layout.entries.y + 5].character == "▌", "the selected row, second on screen")
    }

    @Test func theProgressBarFillsByEighths() {
        #expect(ProgressText.bar(fraction: 0, width: 6, ascii: false) == "▕    ▏")
        #expect(ProgressText.bar(fraction: 0.5, width: 6, ascii: false) == "▕██  ▏")
        #expect(ProgressText.bar(fraction: 0.5 + 1.0 / 16, width: 6, ascii: false) == "▕██▎ ▏")
        #expect(ProgressText.bar(fraction: nil, width: 6, ascii: false).count == 6)
    }
}

/// The selected row is banded across its width — a background in colour, reverse video without —
/// over its title, snippet and status, not only marked at its edge.
@Suite struct SelectionBandTests {
    @Test @UIActor func theSelectedRowIsBandedAcrossItsWidth() async {
        let state = await SnapshotState.loaded()
        for theme in [UITheme.color, .monochrome] {
            var options = SnapshotState.options
            options.theme = theme
            let frame = SnapshotState.render(state, width: 120, height: 40, options: options)
            let list = MainLayout(width: 120, height: 40).list
            // The marker bar is at the list's left edge, on the selected entry's rows.
            let titleRow = (0..<40).first { frame[list.x, $0].character == "▌" }
            guard let y = titleRow else { Issue.record("no selected row"); continue }
            for row in y..<(y + 3) {
                let cell = frame[list.maxX - 2, row]
                #expect(theme.colors ? cell.style.background == 237 : cell.style.reverse, "row \(row), right edge")
            }
            let unselected = frame[list.maxX - 2, y + MainLayout.entryHeight]
            #expect(unselected.style.background == nil && !unselected.style.reverse)
            // Its title, in the terminal's own colour elsewhere, is in the band's text colour: black
            // on the dark band on a light terminal otherwise. Dim text keeps its own colour.
            let row = (0..<120).map { frame[$0, y] }
            let title = row.filter { $0.character != " " && $0.style.background == (theme.colors ? 237 : nil) && $0.style.bold }
            #expect(!title.isEmpty && title.allSatisfy { $0.style.foreground == theme.selectedRowText }, "\(title.map(\.style))")
            let dim = (0..<120).map { frame[$0, y + 2] }.filter { $0.character != " " && $0.style.background == (theme.colors ? 237 : nil) }
            #expect(!theme.colors || dim.contains { $0.style.foreground == theme.dim.foreground })
        }
    }

    /// The `theme` setting: light on a colour terminal; no colour at all with NO_COLOR or a
    /// terminal without colours, whatever the setting.
    @Test func theThemeSettingGivesWayToNoColour() {
        #expect(UITheme.chosen(.light, noColor: false, colorCount: 256).card.background == 255)
        #expect(UITheme.chosen(.light, noColor: false, colorCount: 256).map == .light, "the overview's colours too")
        #expect(UITheme.chosen(.auto, noColor: false, colorCount: 256).card.background == 235)
        #expect(!UITheme.chosen(.light, noColor: true, colorCount: 256).colors)
        #expect(!UITheme.chosen(.dark, noColor: false, colorCount: 2).colors)
        #expect(!UITheme.chosen(.mono, noColor: false, colorCount: 256).colors)
    }
}

/// The status bar names the keys of what has focus, as the card's border does, and as bound.
@Suite @UIActor struct FocusKeysTests {
    @Test func theMapsCardsKeysAreTheBarsWithTheKeysAsBound() {
        var state = AppState(portalHost: "p", webMapID: .exploreMaine, phase: .loaded)
        state.preferences.keyBindings = KeyMap.bindings(overriding: [.remove: "X"])
        var maps = WebMapsBrowser()
        maps.tab = .packages
        state.overlay = .maps(maps)
        #expect(FocusKeys.of(state) == ["←→ tabs", "Enter open or download", "u update", "X remove", "Esc close"])
        let frame = Renderer.render(state, width: 120, height: 30, options: SnapshotState.options)
        #expect(frame.row(at: 29).contains("←→ tabs  Enter open or download  u update  X remove  Esc close"), "\(frame.row(at: 29))")
        #expect(!frame.row(at: 29).contains("m map"), "not the list's keys under the card")
    }

    @Test func thePinsCardKeepsItsLinkInsideItsBorderAndNamesItsKeys() {
        var state = AppState.standaloneMap(title: "f", sourceName: "f", home: nil)
        let pin = Pin(id: "a", title: "Ledge", note: nil, link: "https://example.com/ledge", longitude: -68.2, latitude: 44.3,
                      created: Date(timeIntervalSince1970: 0))
        _ = App.update(&state, .terminal(.resized(Display(width: 100, height: 30))))
        _ = App.update(&state, .pins(.pinsLoaded([pin], problem: nil)))
        _ = App.update(&state, .terminal(.key(.character("P"))))
        let frame = Renderer.render(state, width: 100, height: 30, options: SnapshotState.options)
        let rows = (0..<30).map { frame.row(at: $0) }
        let link = rows.firstIndex { $0.contains("Link: https://example.com/ledge") }
        let bottom = rows.firstIndex { $0.contains("╰") }
        #expect(link != nil && bottom != nil && link! < bottom!, "the link above the bottom border")
        #expect(rows[bottom ?? 0].contains("Enter go") && rows[bottom ?? 0].contains("x delete"))
        #expect(rows[29].contains("↑↓ choose  Enter go  e edit  x delete"), "the bar as far as it has room")
    }
}

/// A line cut to fit says so: "…", and "..." in ASCII (a lone "." reads as a sentence's end).
struct CutLineTests {
    @Test func aStatusLineCutEndsInAnEllipsis() {
        let line = [StyledText("Web Map · 7 map areas", .dim), StyledText(" · 5 on this device", .good)]
        #expect(line.fitted(to: 32).plainText == "Web Map · 7 map areas · 5 on th…")
        #expect(line.fitted(to: 32).last?.role == .good, "the roles kept up to the cut")
        #expect(line.fitted(to: 60) == line)
    }

    @Test func asciiMakesACutThreeDots() {
        var frame = Frame(width: 12, height: 2)
        frame.put("Portland, …", x: 0, y: 0, style: CellStyle())
        frame.put("Loading…", x: 0, y: 1, style: CellStyle())
        let ascii = frame.asciiOnly()
        #expect(ascii.row(at: 0) == "Portland...", "over the two before, with no room after")
        #expect(ascii.row(at: 1) == "Loading...", "into the blanks after")
    }
}

/// The Maps card's facts line up in columns: each as wide as its widest, the owner dropped first
/// when they do not fit, and a fact too long for any column says the row's facts in a line.
struct MapsCardColumnTests {
    let rows = [
        MapListing(id: ItemID("0a11ce5ecdef4a7b9c1d2e3f40516273")!, title: "Explore Maine", owner: "mapbook_sample", offline: true, downloadedAreas: 2),
        MapListing(id: ItemID("1a11ce5ecdef4a7b9c1d2e3f40516273")!, title: "Staff", owner: "demo", folder: "Field Crew"),
    ]

    @Test func factsLineUpAndTheOwnerGoesFirstWhenRoomIsShort() {
        let widths = WebMapsCard.columnWidths(rows)
        #expect(widths == [10, 14, 0, 7, 12])
        let wide = rows.map { WebMapsCard.details($0, columns: widths) }
        #expect(wide == ["            mapbook_sample  Offline  2 areas here", "Field Crew  demo                                 "])
        let narrow = WebMapsCard.fitted(widths, room: 40)
        #expect(narrow == [10, 0, 0, 7, 12])
        #expect(rows.map { WebMapsCard.details($0, columns: narrow) } == ["            Offline  2 areas here", "Field Crew                       "])
    }

    @Test func aFactWiderThanItsColumnSaysTheRowInALine() {
        var failed = rows[0]
        failed.owner = String(repeating: "o", count: 40)
        #expect(WebMapsCard.details(failed, columns: WebMapsCard.columnWidths(rows)) == failed.facts.joined(separator: " · "))
    }
}
