import Foundation
import MapRender
import MapbookCore
import MapSources
import OfflineLibrary
import TerminalCanvas
import Testing
@testable import AppModel
import UserFiles

/// Pins in the browser: `p` writes one at the centre, the store's answer closes the form (or keeps
/// it with the reason), `P` lists them, and the table's keys fly, edit, delete and open links,
/// asking first where they should.
@Suite("update: pins")
struct PinTests {
    static func pin(_ id: String, _ title: String, link: String? = nil) -> Pin {
        Pin(id: id, title: title, note: "note of \(title)", link: link, longitude: -68.2, latitude: 44.35, created: Date(timeIntervalSince1970: 1_763_800_000))
    }

    static func mapOpen() -> AppState {
        var state = Fixture.loaded(downloaded: [Fixture.acadia])
        #expect(App.update(&state, .started).contains(.pins(.loadPins)))
        Fixture.select(&state, "Acadia")
        _ = Fixture.keys(&state, .character("m"))
        _ = App.update(&state, .map(.mapOpened(session: 1, MapSourceSummary(layerNames: ["land"], extent: nil))))
        _ = App.update(&state, .map(.mapDrawn(session: 1, MapImage(picture: MapPicture(frame: Frame(width: 120, height: 38)), request: App.mapRequest(state)!))))
        return state
    }

    static func type(_ state: inout AppState, _ text: String) {
        for character in text { _ = App.update(&state, .terminal(.key(.character(character)))) }
    }

    @Test func pWritesAPinAtTheCentreAndTheStoresAnswerClosesTheForm() {
        var state = Self.mapOpen()
        _ = Fixture.keys(&state, .character("p"))
        guard case .pinForm(let form)? = state.overlay else { Issue.record("no form"); return }
        #expect(form.point == state.map!.viewport.center.geographic && form.focus == .title)
        // Keys type into the form, not the map: q is a letter here.
        Self.type(&state, "Quiet cove")
        _ = Fixture.keys(&state, .tab)
        Self.type(&state, "low tide only")
        _ = Fixture.keys(&state, .tab)
        Self.type(&state, "javascript:alert(1)")
        let effects = Fixture.keys(&state, .enter)
        #expect(effects == [.pins(.savePin(PinDraft(id: nil, title: "Quiet cove", note: "low tide only", link: "javascript:alert(1)", point: form.point)))])
        // While it is being kept, keys wait.
        _ = Fixture.keys(&state, .character("x"))
        guard case .pinForm(let saving)? = state.overlay else { Issue.record("form closed"); return }
        #expect(saving.isSaving && saving.link == "javascript:alert(1)")
        // Refused: the form stays, with the reason, on the link.
        _ = App.update(&state, .pins(.pinNotSaved("A pin's link must be an http or https address.")))
        guard case .pinForm(let refused)? = state.overlay else { Issue.record("form closed"); return }
        #expect(!refused.isSaving && refused.focus == .link && refused.problem == "A pin's link must be an http or https address.")
        for _ in 0..<19 { _ = Fixture.keys(&state, .backspace) }
        Self.type(&state, "https://example.com")
        guard case .pins(.savePin(let draft))? = Fixture.keys(&state, .enter).first else { Issue.record("not saved"); return }
        #expect(draft.link == "https://example.com")
        let kept = Self.pin("abc", "Quiet cove", link: "https://example.com")
        let afterSave = App.update(&state, .pins(.pinsLoaded([kept], problem: nil)))
        #expect(state.overlay == nil && state.notice == .pins(.pinKept("Quiet cove")) && state.pins.all == [kept])
        #expect(afterSave == [.pins(.describePins([kept]))])
        // The message belongs to the map it came on: the pins list opened after it shows its own keys.
        _ = Fixture.keys(&state, .character("P"))
        #expect(state.map?.panel == .pins && state.notice == nil, "\(String(describing: state.notice))")
    }

    @Test func aTitleIsNeededAndEscLeavesWithoutKeeping() {
        var state = Self.mapOpen()
        _ = Fixture.keys(&state, .character("p"))
        #expect(Fixture.keys(&state, .enter).isEmpty)
        guard case .pinForm(let form)? = state.overlay else { Issue.record("form closed"); return }
        #expect(form.problem == "A pin needs a title.")
        _ = Fixture.keys(&state, .escape)
        #expect(state.overlay == nil && state.screen.kind == .map)
    }

    @Test func thePinsTableFliesEditsDeletesAndOpensLinksAskingFirst() {
        var state = Self.mapOpen()
        #expect(Fixture.keys(&state, .character("P")).isEmpty && state.notice == .pins(.noPins))
        _ = App.update(&state, .pins(.pinsLoaded([Self.pin("a1", "Cove"), Self.pin("b2", "Ledge", link: "https://example.com/ledge")], problem: nil)))
        let opened = Fixture.keys(&state, .character("P"))
        #expect(state.map?.panel == .pins && state.mapPanelRows == ["Cove", "Ledge"])
        #expect(opened == [.pins(.describePins(state.pins.all))])
        _ = App.update(&state, .pins(.pinPlaces(["a1": "Bar Harbor, ME\u{1B}[2J"])))
        #expect(state.pins.places["a1"]?.contains("\u{1B}") == false)
        // o on a pin without a link says so; on one with, asks with the link in full.
        _ = Fixture.keys(&state, .character("o"))
        #expect(state.notice == .problem("Cove has no link.") && state.overlay == nil)
        _ = Fixture.keys(&state, .down, .character("o"))
        guard case .confirm(let ask)? = state.overlay else { Issue.record("no question"); return }
        #expect(ask.detail == "https://example.com/ledge" && ask.answers == "y yes, open it · n no")
        #expect(Fixture.keys(&state, .character("y")) == [.pins(.openLink("https://example.com/ledge"))])
        // e: the form, filled in, for this pin.
        _ = Fixture.keys(&state, .character("e"))
        guard case .pinForm(let form)? = state.overlay else { Issue.record("no form"); return }
        #expect(form.editing == "b2" && form.title == "Ledge" && form.link == "https://example.com/ledge")
        _ = Fixture.keys(&state, .escape)
        // x asks, then deletes.
        _ = Fixture.keys(&state, .character("x"))
        guard case .confirm(let delete)? = state.overlay else { Issue.record("no question"); return }
        #expect(delete.question == "Delete the pin Ledge?")
        #expect(Fixture.keys(&state, .character("y")) == [.pins(.deletePin(id: "b2"))])
        _ = App.update(&state, .pins(.pinsLoaded([Self.pin("a1", "Cove")], problem: nil)))
        #expect(state.mapPanelRows == ["Cove"] && state.map?.panelSelection == 0)
        // Enter flies to the pin, marked.
        let flown = Fixture.keys(&state, .enter)
        guard case .map(.drawMap)? = flown.first else { Issue.record("\(flown)"); return }
        #expect(state.map?.panel == nil && state.map?.pin?.label == "Cove" && (state.map?.viewport.zoom ?? 0) >= 12)
        let centre = state.map!.viewport.center.geographic
        #expect(abs(centre.longitude + 68.2) < 1e-6 && abs(centre.latitude - 44.35) < 1e-6)
    }

    @Test func aDamagedPinsFileIsSaidAndTheOthersStillShow() {
        var state = Self.mapOpen()
        _ = App.update(&state, .pins(.pinsLoaded([], problem: "pins.json is damaged; it was kept as pins.json.bad-20261124-101500, and a new pins file is started.")))
        #expect(state.notice == .problem("pins.json is damaged; it was kept as pins.json.bad-20261124-101500, and a new pins file is started."))
    }
}
