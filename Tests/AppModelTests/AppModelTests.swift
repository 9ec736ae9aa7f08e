import AppModel
import ArcGISPortal
import Foundation
import MapbookCore
import PortalFixtures
import SamplePortal
import Testing

/// The model against the sample portal on 127.0.0.1: loading, its failure states, and input.
@Suite struct AppModelTests {
    @UIActor
    private func loadedModel(_ portal: SamplePortal, webMap: String = SampleFixture.webMapID) async -> AppModel {
        let url = portal.baseURL
        let model = AppModel(state: AppState(portalHost: "start", webMapID: ItemID(webMap)!), library: SampleFixture.scratchLibrary()) { PortalClient(portal: url) }
        model.layoutChanged(LayoutMetrics(listCapacity: 3, documentPage: 10, documentMaxScroll: 25))
        model.reload()
        await model.waitForLoad()
        return model
    }

    @Test @UIActor func loadsTheWebMapItsSixAreasAndTheirThumbnails() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let model = await loadedModel(portal)
        let state = model.state
        #expect(state.phase == .loaded)
        #expect(state.network == .online)
        #expect(state.portalHost == "127.0.0.1")
        #expect(state.webMapItem?.title == "Explore Maine")
        #expect(state.areas.map(\.item.title) == ["Acadia", "Boston", "Baxter State Park", "Greater Portland", "Caribou", "Bangor"])
        #expect(state.rows.count == 7 && state.rows.first == .webMap)
        #expect(state.thumbnails.count == 7)
        #expect(state.thumbnails.values.allSatisfy { $0.width <= 64 && $0.height <= 48 })
        #expect(state.webMap?.bookmarks.isEmpty == false)
    }

    /// The overview pane draws the web map's basemap through the map renderer once the pane's size
    /// is known, and again for a new size.
    @Test @UIActor func theOverviewIsDrawnFromTheBasemap() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let model = await loadedModel(portal)
        #expect(model.state.overviewBasemap == nil, "no pane size yet")
        model.layoutChanged(LayoutMetrics(listCapacity: 3, overviewColumns: 40, overviewRows: 20))
        await model.waitForOverview()
        let image = try #require(model.state.overviewBasemap)
        #expect(image.request.columns == 40 && image.request.rows == 20)
        #expect(image.report.featuresDrawn > 0)
        #expect(image.frame.text.contains(where: { ("\u{2801}"..."\u{28FF}").contains($0) }), "braille lines of the basemap")
        model.layoutChanged(LayoutMetrics(listCapacity: 3, overviewColumns: 30, overviewRows: 12))
        await model.waitForOverview()
        #expect(model.state.overviewBasemap?.request.columns == 30)
    }

    @Test @UIActor func anUnreachablePortalIsOfflineNotNoAreas() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        try portal.setOutage(true)
        let model = await loadedModel(portal)
        #expect(model.state.phase == .unreachable(host: "127.0.0.1"))
        #expect(model.state.network == .offline)
        #expect(!model.state.hasNoAreas)
        // Back online, r loads it.
        try portal.setOutage(false)
        model.handle(.character("r"))
        await model.waitForLoad()
        #expect(model.state.phase == .loaded)
        #expect(model.state.network == .online)
    }

    @Test @UIActor func losingTheNetworkKeepsWhatWasLoaded() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let model = await loadedModel(portal)
        try portal.setOutage(true)
        model.reload()
        await model.waitForLoad()
        #expect(model.state.phase == .loaded)
        #expect(model.state.areas.count == 6)
        #expect(model.state.network == .offline)
        #expect(model.state.message == "Offline — showing downloaded areas")
        #expect(model.state.rows == [.webMap], "nothing is downloaded, so only the web map is listed")
    }

    @Test @UIActor func anArcGISErrorIsOneSentence() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let model = await loadedModel(portal, webMap: "0123456789abcdef0123456789abcdef")
        guard case .failed(let sentence) = model.state.phase else {
            Issue.record("expected a failure, got \(model.state.phase)")
            return
        }
        #expect(sentence.hasSuffix("."))
        #expect(!sentence.contains("\n"))
        #expect(model.state.network == .online)
    }

    @Test @UIActor func anItemThatIsNotAWebMapIsRefused() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let model = await loadedModel(portal, webMap: SampleFixture.portlandID)
        guard case .failed(let sentence) = model.state.phase else {
            Issue.record("expected a failure, got \(model.state.phase)")
            return
        }
        #expect(sentence.contains("Web Map"))
    }

    @Test @UIActor func keysMoveFilterOpenAndQuit() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let model = await loadedModel(portal)
        model.handle(.character("j"))
        model.handle(.down)
        #expect(model.state.selectedRow == .area(1))
        model.handle(.character("G"))
        #expect(model.state.selection == 6)
        #expect(model.state.listTop == 4, "the list scrolls so the last row shows")
        model.handle(.character("g"))
        #expect(model.state.selection == 0 && model.state.listTop == 0)
        model.handle(.pageDown)
        #expect(model.state.selection == 3)

        // Filter as you type; Esc clears it.
        model.handle(.character("/"))
        for character in "bang" { model.handle(.character(character)) }
        #expect(model.state.rows == [.area(5)])
        #expect(model.state.selectedRow == .area(5))
        model.handle(.character("q"))  // typed into the filter, not quitting
        #expect(!model.state.isQuitting && model.state.rows.isEmpty)
        model.handle(.backspace)
        model.handle(.enter)
        #expect(!model.state.isEditingFilter && model.state.filterText == "bang")
        model.handle(.escape)
        #expect(model.state.filterText.isEmpty && model.state.rows.count == 7)

        // Details, scrolled within what the layout allows; Esc goes back.
        model.handle(.character("j"))
        model.handle(.enter)
        #expect(model.state.screen == .details)
        for _ in 0..<40 { model.handle(.down) }
        #expect(model.state.documentScroll == 25)
        model.handle(.escape)
        #expect(model.state.screen == .main && model.state.documentScroll == 0)

        // Help takes the keys while it shows.
        model.handle(.character("?"))
        #expect(model.state.showingHelp)
        let selection = model.state.selection
        model.handle(.down)
        #expect(model.state.selection == selection && model.state.documentScroll == 1)
        model.handle(.escape)
        #expect(!model.state.showingHelp)

        model.handle(.character("q"))
        #expect(model.state.isQuitting)
    }

    @Test @UIActor func withTheMapFocusedArrowsPickTheNearestAreaThatWay() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let model = await loadedModel(portal)
        model.handle(.tab)
        #expect(model.state.focus == .overview)
        let titles = { model.state.selectedRow.map { model.state.title(of: $0) } }
        // From Greater Portland (south-west), north-east is towards Bangor; south is Boston.
        model.dispatch(.selectRow(4))  // a click selects in the list, focusing it
        #expect(titles() == "Greater Portland" && model.state.focus == .list)
        model.handle(.tab)
        model.handle(.down)
        #expect(titles() == "Boston")
        model.handle(.up)
        #expect(titles() == "Greater Portland")
        model.handle(.right)
        #expect(titles() != "Greater Portland")
        model.handle(.escape)
        #expect(model.state.focus == .list)
    }
}
