import Foundation
import MapbookCore
import Testing
@testable import AppModel

/// `M`: tabs asked for when first shown, their lists made safe, Enter choosing the web map the
/// browser starts again on.
@Suite("update: the Maps card")
struct MapsCardTests {
    @Test func tabsLoadOnceAndEnterChoosesTheNextWebMap() {
        var state = Fixture.loaded()
        #expect(Fixture.keys(&state, .character("M")) == [.loadMaps(.recent)])
        _ = App.update(&state, .mapsLoaded(.recent, .success([])))
        #expect(Fixture.keys(&state, .right) == [.loadMaps(.mine)])
        let other = ItemID("0a11ce5ecdef4a7b9c1d2e3f40516273")!
        _ = App.update(&state, .mapsLoaded(.mine, .success([MapListing(id: Fixture.webMapID, title: "This one"),
                                                             MapListing(id: other, title: "Staff\u{1B}[2J", folder: "Field")])))
        guard case .maps(let maps)? = state.overlay else { Issue.record("no card"); return }
        #expect(maps.rows.count == 2 && !maps.rows[1].title.contains("\u{1B}"))
        // Back and forth: a tab already loaded is not asked again.
        #expect(Fixture.keys(&state, .left).isEmpty && Fixture.keys(&state, .right).isEmpty)
        _ = App.update(&state, .mapsLoaded(.groups, .failure(LoadFailure(sentence: "Sign in first.", network: .online, host: "h"))))
        // Enter on the web map already open only closes the card.
        _ = Fixture.keys(&state, .enter)
        #expect(state.overlay == nil && state.nextWebMap == nil && !state.isQuitting)
        _ = Fixture.keys(&state, .character("M"), .right)
        _ = App.update(&state, .mapsLoaded(.mine, .success([MapListing(id: other, title: "Staff")])))
        _ = Fixture.keys(&state, .enter)
        #expect(state.nextWebMap == other && state.isQuitting)
    }
}
