import Foundation
import MapbookCore
import Testing
@testable import AppModel

/// A first start on a portal other than ArcGIS Online with no web map named: the Maps card, the
/// portal connected for it, and nothing loaded behind (ArcGIS Online's default web map is not
/// asked of another portal).
@Suite("update: no web map named")
struct NoWebMapTests {
    @Test func nothingLoadsBehindTheCardUntilAWebMapIsChosen() {
        var state = AppState(portalHost: "portal.example.com", webMapID: .exploreMaine, phase: .loading)
        state.hasWebMap = false
        state.startsOnMaps = .search
        let effects = App.update(&state, .started)
        #expect(effects.contains(.connectPortal) && !effects.contains(.loadWebMap), "\(effects)")
        guard case .starting(let sentence) = state.phase else { Issue.record("\(state.phase)"); return }
        #expect(sentence.contains("No web map is named") && sentence.contains("M"))
        _ = App.update(&state, .connected(host: "portal.example.com"))
        #expect(state.isConnected && state.phase == .starting(sentence), "connecting does not start loading")
        // `r`, or the network coming back, asks nothing of the default web map.
        #expect(!App.update(&state, .key(.character("r"))).contains(.loadWebMap))
    }
}
