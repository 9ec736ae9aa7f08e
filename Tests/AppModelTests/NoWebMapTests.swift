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
        state.catalog.hasWebMap = false
        state.catalog.startsOnMaps = .search
        let effects = App.update(&state, .started)
        #expect(effects.contains(.catalog(.connectPortal)) && !effects.contains(.catalog(.loadWebMap)), "\(effects)")
        guard case .starting(let sentence) = state.catalog.phase else { Issue.record("\(state.catalog.phase)"); return }
        #expect(sentence.contains("No web map is named") && sentence.contains("M"))
        _ = App.update(&state, .catalog(.connected(host: "portal.example.com")))
        #expect(state.portal.isConnected && state.catalog.phase == .starting(sentence), "connecting does not start loading")
        // `r`, or the network coming back, asks nothing of the default web map.
        #expect(!App.update(&state, .terminal(.key(.character("r")))).contains(.catalog(.loadWebMap)))
    }
}

/// News in the status bar fades a few seconds after it appears (the key hints come back); a
/// state that lasts, or a problem to act on, stays until replaced; an expiry never clears a newer notice.
@Suite("update: notices that fade")
struct FadingNoticeTests {
    @Test func newsFadesAndStatesStay() {
        var state = Fixture.loaded()
        let serial = state.requests.noticeSerial
        _ = App.update(&state, .downloads(.download(.cancelled(Fixture.acadia))))
        let first = state.requests.noticeSerial
        #expect(state.notice != nil && first == serial + 1)
        // A newer notice comes first: the older expiry leaves it.
        _ = Fixture.keys(&state, .character("o"))
        let newer = state.requests.noticeSerial
        #expect(newer > first && state.notice != nil)
        _ = App.update(&state, .noticeExpired(first))
        #expect(state.notice != nil, "an old expiry does not clear a newer notice")
        _ = App.update(&state, .noticeExpired(newer))
        #expect(state.notice == nil && state.message == nil)
        // Being offline is a state, not news: no expiry.
        state.notice = nil
        #expect(!Notice.offline.fades && !Notice.problem("x").fades && Notice.pins(.pinKept("Ferry dock")).fades)
    }
}
