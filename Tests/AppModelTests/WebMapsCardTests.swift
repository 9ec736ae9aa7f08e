import ArcGISPortal
import Foundation
import MapbookCore
import Testing
@testable import AppModel
import ArcGISModel

/// `M`: tabs asked for when first shown, their lists made safe and paged, a search typed and
/// asked, Enter choosing the web map the browser starts again on.
@Suite("update: the Maps card")
struct MapsCardTests {
    let other = ItemID("0a11ce5ecdef4a7b9c1d2e3f40516273")!

    func card(_ state: AppState) -> WebMapsBrowser? {
        if case .maps(let maps)? = state.overlay { return maps }
        return nil
    }

    @Test func tabsLoadOnceAndEnterChoosesTheNextWebMap() {
        var state = Fixture.loaded()
        #expect(Fixture.keys(&state, .character("M")) == [.maps(.loadMaps(WebMapsRequest(tab: .recent)))])
        _ = App.update(&state, .maps(.mapsLoaded(WebMapsRequest(tab: .recent), .success(WebMapsPage([])))))
        #expect(Fixture.keys(&state, .right) == [.maps(.loadMaps(WebMapsRequest(tab: .mine)))])
        let effects = App.update(&state, .maps(.mapsLoaded(WebMapsRequest(tab: .mine), .success(WebMapsPage([
            MapListing(id: Fixture.webMapID, title: "This one"),
            MapListing(id: other, title: "Staff\u{1B}[2J", folder: "Field", thumbnail: "thumbnail/t.png")])))))
        #expect(effects == [.maps(.loadMapThumbnails([MapListing(id: Fixture.webMapID, title: "This one"),
                                                MapListing(id: other, title: "Staff", folder: "Field", thumbnail: "thumbnail/t.png")]))])
        #expect(card(state)?.rows.count == 2 && card(state)?.rows[1].title.contains("\u{1B}") == false)
        // Back and forth: a tab already loaded is not asked again.
        #expect(Fixture.keys(&state, .left).isEmpty && Fixture.keys(&state, .right).isEmpty)
        // Enter on the web map already open only closes the card.
        _ = Fixture.keys(&state, .enter)
        #expect(state.overlay == nil && state.handoff.nextWebMap == nil && !state.handoff.isQuitting)
        _ = Fixture.keys(&state, .character("M"), .right)
        _ = App.update(&state, .maps(.mapsLoaded(WebMapsRequest(tab: .mine), .success(WebMapsPage([MapListing(id: other, title: "Staff")])))))
        _ = Fixture.keys(&state, .enter)
        #expect(state.handoff.nextWebMap == other && state.handoff.isQuitting)
    }

    @Test func movingNearTheEndAsksForTheNextPageOnceAndItAddsToTheList() {
        var state = Fixture.loaded()
        _ = Fixture.keys(&state, .character("M"), .right)
        let more = WebMapCursor(sources: [.content(user: "demo", folder: nil)], start: 11)
        let first = (0..<10).map { MapListing(id: ItemID(String(format: "%032x", $0 + 1))!, title: "Map \($0)") }
        _ = App.update(&state, .maps(.mapsLoaded(WebMapsRequest(tab: .mine), .success(WebMapsPage(first, next: more)))))
        #expect(Fixture.keys(&state, .down, .down, .down).isEmpty, "far from the end")
        let next = WebMapsRequest(tab: .mine, cursor: more, appends: true)
        #expect(Fixture.keys(&state, .down, .down) == [.maps(.loadMaps(next))])
        #expect(Fixture.keys(&state, .down).isEmpty, "asked once")
        // An answer to something no longer asked for is dropped; the page asked for adds its rows
        // (one already listed is not listed twice).
        _ = App.update(&state, .maps(.mapsLoaded(WebMapsRequest(tab: .mine), .success(WebMapsPage([])))))
        #expect(card(state)?.rows.count == 10)
        let page = [first[9], MapListing(id: other, title: "Staff")]
        _ = App.update(&state, .maps(.mapsLoaded(next, .success(WebMapsPage(page)))))
        #expect(card(state)?.rows.map(\.title).suffix(2) == ["Map 9", "Staff"] && card(state)?.more[.mine] == nil)
        #expect(card(state)?.selection == 6)
        // A page that fails keeps the list and says why; moving asks again.
        var failing = Fixture.loaded()
        _ = Fixture.keys(&failing, .character("M"), .right)
        _ = App.update(&failing, .maps(.mapsLoaded(WebMapsRequest(tab: .mine), .success(WebMapsPage(first, next: more)))))
        #expect(Fixture.keys(&failing, .end) == [.maps(.loadMaps(next))])
        _ = App.update(&failing, .maps(.mapsLoaded(next, .failure(LoadFailure(sentence: "Cannot reach h.", network: .offline, host: "h")))))
        #expect(card(failing)?.rows.count == 10 && card(failing)?.problems[.mine] == "Cannot reach h.")
        #expect(Fixture.keys(&failing, .up) == [.maps(.loadMaps(next))])
    }

    @Test func theSearchTabTypesItsWordsAndAsks() {
        var state = Fixture.loaded()
        _ = Fixture.keys(&state, .character("M"))
        // `/` goes to Search and types there: letters that are keys elsewhere are words here.
        #expect(Fixture.keys(&state, .character("/"), .character("q"), .character("j"), .backspace).isEmpty)
        #expect(card(state)?.tab == .search && card(state)?.query == "q" && state.keyContext == .search)
        #expect(!state.handoff.isQuitting)
        // Already typing, a `/` at the start of the words (the habit of starting a search) is not typed.
        _ = Fixture.keys(&state, .backspace, .character("/"), .character("M"))
        #expect(card(state)?.query == "M")
        _ = Fixture.keys(&state, .backspace, .character("q"))
        _ = Fixture.keys(&state, .backspace, .character(" "))
        #expect(Fixture.keys(&state, .enter).isEmpty, "blank words are not asked")
        _ = Fixture.keys(&state, .character("p"), .character("a"), .character("r"), .character("k"))
        let asked = WebMapsRequest(tab: .search, cursor: .search("park"))
        #expect(Fixture.keys(&state, .enter) == [.maps(.loadMaps(asked))])
        #expect(card(state)?.isTypingQuery == false && state.keyContext == .list)
        _ = App.update(&state, .maps(.mapsLoaded(asked, .success(WebMapsPage([MapListing(id: other, title: "Parks")])))))
        // ↑ from the first row types again; Tab while typing changes tab.
        _ = Fixture.keys(&state, .up)
        #expect(card(state)?.isTypingQuery == true)
        #expect(Fixture.keys(&state, .tab) == [.maps(.loadMaps(WebMapsRequest(tab: .packages)))] && card(state)?.tab == .packages)
        // Esc stops typing, a second closes the card.
        _ = Fixture.keys(&state, .left, .escape)
        #expect(card(state)?.isTypingQuery == false)
        _ = Fixture.keys(&state, .escape)
        #expect(state.overlay == nil)
    }
}

extension MapsCardTests {
    /// `r` asks a tab again: the Search tab its words.
    @Test func refreshAsksTheTabAgain() {
        var state = Fixture.loaded()
        _ = Fixture.keys(&state, .character("M"), .character("/"), .character("x"), .enter)
        let asked = WebMapsRequest(tab: .search, cursor: .search("x"))
        _ = App.update(&state, .maps(.mapsLoaded(asked, .failure(LoadFailure(sentence: "Cannot reach h.", network: .offline, host: "h")))))
        #expect(Fixture.keys(&state, .character("r")) == [.maps(.loadMaps(asked))])
        _ = Fixture.keys(&state, .left)
        #expect(Fixture.keys(&state, .character("r")).isEmpty, "Groups is still being asked for")
    }
}

/// `S` where the Maps card says "Sign in to see your content and groups: S": the form over the
/// card; signed in, the header names the user, the status bar says so, and the card is back on
/// the tab it was opened from, asked again; Esc on the form goes back to the card too.
@Suite("update: signing in from the Maps card")
struct SignInFromTheMapsCardTests {
    @Test func sInTheMapsCardOpensTheFormAndComesBackToTheTab() {
        var state = Fixture.loaded()
        _ = Fixture.keys(&state, .character("M"), .right)
        _ = Fixture.keys(&state, .character("S"))
        guard case .signIn(let form)? = state.overlay else {
            Issue.record("no sign-in form: \(String(describing: state.overlay))")
            return
        }
        #expect(form.returnsToMaps == .mine)
        _ = Fixture.keys(&state, .escape)
        guard case .maps(let maps)? = state.overlay else { Issue.record("Esc did not go back to the card"); return }
        #expect(maps.tab == .mine)

        _ = Fixture.keys(&state, .character("S"))
        let effects = App.update(&state, .signIn(.signedIn(request: 1, username: "demo")))
        guard case .maps(let again)? = state.overlay else { Issue.record("not back on the card"); return }
        #expect(again.tab == .mine && effects.contains(.maps(.loadMaps(WebMapsRequest(tab: .mine)))), "\(effects)")
        #expect(state.notice == .signedIn(user: "demo", host: state.portal.host))
        #expect(state.portal.headerName == "demo · \(state.portal.host)")
    }
}
