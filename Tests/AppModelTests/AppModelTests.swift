import AppModel
import AppRuntime
import ArcGISPortal
import EventLoop
import Foundation
import HTTP
import MapbookCore
import PortalFixtures
import SamplePortal
import Testing
import TestScheduling

/// The whole program — update and runtime — against the sample portal on 127.0.0.1: loading, its
/// failure states, the overview's basemap.
@Suite(.aheadOfQueuedTests) @UIActor struct ProgramTests {
    /// The full screen's first frame waits for the library's read, and a map opened from a file,
    /// which has none, waits for nothing.
    @Test func theFirstFrameIsReadyOnceTheLibraryIsRead() {
        var state = AppState(portalHost: "", webMapID: .exploreMaine)
        #expect(!state.isReadyToShow)
        _ = App.update(&state, .catalog(.libraryRead(LibrarySnapshot(catalog: nil, downloads: [:], partialBytes: [:]))))
        #expect(state.isReadyToShow)
        #expect(AppState.standaloneMap(title: "Trails", sourceName: "trails.vtpk", home: nil).isReadyToShow)
    }

    @Test func loadsTheWebMapItsSixAreasAndTheirThumbnails() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let program = await ProgramFixture.started(portal: portal.baseURL)
        defer { Task { await program.shutdown() } }
        let state = program.state
        #expect(state.catalog.phase == .loaded)
        #expect(state.portal.network == .online)
        #expect(state.portal.host == "127.0.0.1")
        #expect(state.catalog.webMapItem?.title == "Explore Maine")
        #expect(state.catalog.areas.map(\.item.title) == ["Acadia", "Boston", "Baxter State Park", "Greater Portland", "Caribou", "Bangor"])
        #expect(state.rows.count == 7 && state.rows.first == .webMap)
        #expect(state.catalog.thumbnails.count == 7)
        #expect(state.catalog.thumbnails.values.allSatisfy { $0.width <= 64 && $0.height <= 48 })
        #expect(state.catalog.webMap?.bookmarks.isEmpty == false)
    }

    /// The overview pane draws the web map's basemap through the map renderer at the pane's size,
    /// and again for a new size.
    @Test func theOverviewIsDrawnFromTheBasemap() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let program = await ProgramFixture.started(portal: portal.baseURL) { $0.overview.basemap != nil }
        defer { Task { await program.shutdown() } }
        let image = try #require(program.state.overview.basemap)
        let pane = ScreenLayout(ProgramFixture.display).main.overview
        #expect(image.request.columns == pane.width && image.request.rows == pane.height - 1)
        #expect(image.report.featuresDrawn > 0)
        #expect(image.frame.text.contains(where: { ("\u{2801}"..."\u{28FF}").contains($0) }), "braille lines of the basemap")
        program.send(.terminal(.resized(Display(width: 100, height: 30))))
        let smaller = ScreenLayout(Display(width: 100, height: 30)).main.overview
        #expect(await ProgramFixture.settle(program) { $0.overview.basemap?.request.columns == smaller.width })
    }

    @Test func aPortalThatRefusesIsNotAnsweringNotNoAreas() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        try portal.setOutage(true)
        let program = await ProgramFixture.started(portal: portal.baseURL)
        defer { Task { await program.shutdown() } }
        #expect(program.state.catalog.phase == .notAnswering(
            host: "127.0.0.1", "Cannot reach 127.0.0.1: the connection was refused or the network is unreachable."))
        #expect(program.state.portal.network == .portalNotAnswering)
        #expect(!program.state.hasNoAreas)
        // Back online, r loads it.
        try portal.setOutage(false)
        program.send(.terminal(.key(.character("r"))))
        #expect(await ProgramFixture.settle(program) { $0.catalog.phase == .loaded && $0.portal.network == .online })
    }

    @Test func losingTheNetworkKeepsWhatWasLoaded() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let program = await ProgramFixture.started(portal: portal.baseURL)
        defer { Task { await program.shutdown() } }
        try portal.setOutage(true)
        program.send(.terminal(.key(.character("r"))))
        #expect(await ProgramFixture.settle(program) { $0.portal.network == .portalNotAnswering })
        #expect(program.state.catalog.phase == .loaded)
        #expect(program.state.catalog.areas.count == 6)
        #expect(program.state.message == "127.0.0.1 is not answering — showing downloaded areas; trying again by itself")
        #expect(program.state.rows == [.webMap], "nothing is downloaded, so only the web map is listed")
    }

    @Test func anArcGISErrorIsOneSentence() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let program = await ProgramFixture.started(portal: portal.baseURL, webMap: "0123456789abcdef0123456789abcdef")
        defer { Task { await program.shutdown() } }
        guard case .failed(let sentence) = program.state.catalog.phase else {
            Issue.record("expected a failure, got \(program.state.catalog.phase)")
            return
        }
        #expect(sentence.hasSuffix("."))
        #expect(!sentence.contains("\n"))
        #expect(program.state.portal.network == .online)
    }

    @Test func anItemThatIsNotAWebMapIsRefused() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let program = await ProgramFixture.started(portal: portal.baseURL, webMap: SampleFixture.portlandID)
        defer { Task { await program.shutdown() } }
        guard case .failed(let sentence) = program.state.catalog.phase else {
            Issue.record("expected a failure, got \(program.state.catalog.phase)")
            return
        }
        #expect(sentence.contains("Web Map"))
    }

    /// A download through the program: `d` → queued → progress → downloaded; then `x`, `y` removes
    /// it, the queue stopping nothing since nothing runs. The portal holds the package part way
    /// until the program has shown it moving, so what is seen does not depend on the machine's load.
    @Test func downloadAndRemoveThroughTheRuntime() async throws {
        var faults = SampleFaults()
        faults.holdAfterBytes = 307_200  // a whole number of 4 KiB blocks: all written while held
        let portal = try SampleFixture.start(faults: faults)
        defer { portal.stop() }
        // Held is not stalled: the watchdog waits longer than any pause of a loaded machine.
        let program = await ProgramFixture.started(portal: portal.baseURL,
                                                   http: HTTPClient(configuration: HTTPConfiguration(stallTimeout: .seconds(300))))
        defer { Task { await program.shutdown() } }
        program.transcript = []
        program.send(.intent(.list(.selectRow(6))))
        #expect(program.state.title(of: try #require(program.state.selectedRow, "the web map did not load")) == "Bangor")
        program.send(.terminal(.key(.character("d"))))
        let bangor = program.state.catalog.areas[5].item.id
        #expect(program.state.library.transfers[bangor] == .queued)
        // Held part way: the progress reported reaches those bytes, and the row shows them until
        // the portal lets the rest go. (Each wait is for an event in the transcript: it cannot
        // come and go between two looks.)
        let held = await ProgramFixture.received(program) { event -> Int64? in
            if case .downloads(.download(.progress(bangor, let progress))) = event, progress.bytes == 307_200 { progress.bytes } else { nil }
        }
        try #require(held != nil, "no progress reached the held bytes: \(program.transcript ?? [])")
        if case .running(let progress)? = program.state.library.transfers[bangor] { #expect(progress.bytes == 307_200) } else {
            Issue.record("not running while held: \(String(describing: program.state.library.transfers[bangor]))")
        }
        portal.releaseHeldDownloads()
        try #require(await ProgramFixture.received(program) { if case .downloads(.download(.finished(bangor, _))) = $0 { true } else { nil } } != nil)
        let events = program.transcript ?? []
        let started = events.firstIndex { if case .downloads(.download(.started(bangor, resumedFrom: 0))) = $0 { true } else { false } }
        let finished = events.firstIndex { if case .downloads(.download(.finished(bangor, _))) = $0 { true } else { false } }
        let moved = events.compactMap { event -> Int64? in if case .downloads(.download(.progress(bangor, let p))) = event { p.bytes } else { nil } }
        #expect(started != nil && finished != nil && started! < finished!, "started, then finished")
        #expect(moved.contains(307_200) && moved.last == program.state.library.downloads[bangor]?.size && moved == moved.sorted(), "\(moved)")
        #expect(program.state.message == "Bangor downloaded · 2.0 MiB, verified")
        program.send(.terminal(.key(.character("x"))))
        #expect(program.state.overlay.map { if case .confirm = $0 { true } else { false } } == true)
        program.send(.terminal(.key(.character("y"))))
        try #require(await ProgramFixture.received(program) { if case .downloads(.removed(bangor)) = $0 { true } else { nil } } != nil)
        #expect(program.state.library.downloads[bangor] == nil)
        #expect(program.state.message == "Removed Bangor from this device.")
    }
}
