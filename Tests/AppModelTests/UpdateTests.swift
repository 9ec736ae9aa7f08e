import AppModel
import ArcGISPortal
import Foundation
import MapRender
import MapSources
import MapbookCore
import OfflineLibrary
import TerminalCanvas
import Testing
import ArcGISModel
import Geometry
import LibraryModel

/// A web map of three areas, as values: no portal, no network, no disk.
enum Fixture {
    static let webMapID = ItemID("3bc3179f17da44a0ac0bfdac4ad15664")!
    static let acadia = id(1), portland = id(2), bangor = id(3)

    static func id(_ n: Int) -> ItemID { ItemID(String(format: "a%031d", n))! }

    static func area(_ n: Int, _ title: String, _ extent: GeoExtent) -> MapArea {
        let item = PortalItem(id: id(n), title: title, type: "Map Area", snippet: "\(title) and around", extent: extent,
                              properties: .object(["status": .string("complete")]))
        let package = PortalItem(id: id(100 + n), title: "\(title) basemap", type: "Vector Tile Package",
                                 modified: Date(timeIntervalSince1970: 1_700_000_000), size: 2_097_152)
        return MapArea(areaItem: item, packageItems: [package])
    }

    static var areas: [MapArea] {
        [area(1, "Acadia", GeoExtent(xmin: -68.5, ymin: 44.2, xmax: -68.0, ymax: 44.5)),
         area(2, "Greater \u{1B}[31mPortland", GeoExtent(xmin: -70.4, ymin: 43.5, xmax: -70.1, ymax: 43.8)),
         area(3, "Bangor", GeoExtent(xmin: -68.9, ymin: 44.7, xmax: -68.6, ymax: 44.9))]
    }

    static var catalog: LibraryCatalog {
        let data = try! JSONValue(parsing: Data(#"""
        {"baseMap":{"title":"Topo","baseMapLayers":[{"id":"v","layerType":"VectorTileLayer","title":"Topo",
          "styleUrl":"https://basemaps.example.com/style/root.json"}]},
         "bookmarks":[{"name":"Coast","extent":{"xmin":-70,"ymin":43,"xmax":-68,"ymax":45,"spatialReference":{"wkid":4326}}}],
         "spatialReference":{"wkid":102100}}
        """#.utf8))
        let item = PortalItem(id: webMapID, title: "Explore Maine", type: "Web Map",
                              extent: GeoExtent(xmin: -71.1, ymin: 42.9, xmax: -66.9, ymax: 47.5))
        return LibraryCatalog(webMapItem: item, webMapData: data, areas: areas, syncedAt: Date(timeIntervalSince1970: 1_763_700_000))
    }

    static func record(for area: MapArea) -> DownloadRecord {
        let package = area.packages[0]
        return DownloadRecord(areaID: area.item.id, areaItem: .null, packageItems: [],
                              packages: [.init(id: package.item.id, title: package.item.title, type: package.item.type,
                                               fileName: "p.vtpk", size: package.size!, modified: 1_700_000_000_000, verifiedBy: "zip CRC-32")],
                              downloadedAt: Date(timeIntervalSince1970: 1_763_700_000))
    }

    /// Loaded from the portal, connected, online, on a terminal of this size; `downloaded` areas on
    /// this device.
    static func loaded(width: Int = 120, height: Int = 40, downloaded: [ItemID] = []) -> AppState {
        var state = AppState(portalHost: "start", webMapID: webMapID)
        _ = App.update(&state, .terminal(.resized(Display(width: width, height: height))))
        _ = App.update(&state, .catalog(.connected(host: "portal.example.com")))
        let records = Dictionary(uniqueKeysWithValues: areas.filter { downloaded.contains($0.item.id) }.map { ($0.item.id, record(for: $0)) })
        _ = App.update(&state, .catalog(.webMapLoaded(WebMapSnapshot(catalog: catalog, library: LibrarySnapshot(catalog: nil, downloads: records,
                                                                                                        partialBytes: [:]),
                                                            host: "portal.example.com"))))
        return state
    }

    static func keys(_ state: inout AppState, _ keys: Key...) -> [Effect] {
        keys.flatMap { App.update(&state, .terminal(.key($0))) }
    }

    static func select(_ state: inout AppState, _ title: String) {
        let row = state.rows.firstIndex { state.title(of: $0).hasSuffix(title) }!
        _ = App.update(&state, .intent(.list(.selectRow(row))))
    }
}

/// Send an event, assert the new state and the effects returned: the model with no portal, no
/// network and no terminal.
@Suite("update: loading and the list")
struct UpdateLoadingAndListTests {
    @Test func startingAsksForTheLibraryThenThePortal() {
        var state = AppState(portalHost: "sample portal", webMapID: Fixture.webMapID, phase: .starting("Starting…"))
        #expect(App.update(&state, .started) == [.catalog(.readLibrary), .catalog(.loadWebMap), .pins(.loadPins)])
        #expect(state.catalog.phase == .starting("Starting…"))
        _ = App.update(&state, .catalog(.connected(host: "127.0.0.1")))
        #expect(state.catalog.phase == .loading && state.portal.host == "127.0.0.1" && state.portal.isConnected)
    }

    @Test func theLibraryIsShownBeforeThePortalAnswers() {
        var state = AppState(portalHost: "p", webMapID: Fixture.webMapID)
        _ = App.update(&state, .catalog(.libraryRead(LibrarySnapshot(catalog: Fixture.catalog, downloads: [:], partialBytes: [Fixture.bangor: 500]))))
        #expect(state.catalog.phase == .loaded)
        #expect(state.catalog.areas.count == 3)
        #expect(state.library.partialBytes[Fixture.bangor] == 500)
        #expect(state.portal.network == .unknown)
    }

    @Test func anUnreadableLibraryIsOneSentenceAndThePortalStillLoads() {
        var state = AppState(portalHost: "p", webMapID: Fixture.webMapID)
        _ = App.update(&state, .catalog(.libraryRead(LibrarySnapshot(catalog: nil, downloads: [:], partialBytes: [:]))))
        _ = App.update(&state, .catalog(.libraryUnreadable("/lib/areas.json is damaged (not the JSON mapbook wrote); remove the area and download it again.")))
        #expect(state.message?.hasPrefix("/lib/areas.json is damaged") == true)
        #expect(state.catalog.phase == .loading)
    }

    @Test func whatThePortalSaysIsSanitizedAndMeansOnline() {
        var state = AppState(portalHost: "start", webMapID: Fixture.webMapID)
        _ = App.update(&state, .terminal(.resized(Display(width: 120, height: 40))))
        let effects = App.update(&state, .catalog(.webMapLoaded(WebMapSnapshot(catalog: Fixture.catalog,
                                                                      library: LibrarySnapshot(catalog: nil, downloads: [:], partialBytes: [:]),
                                                                      host: "portal.example.com"))))
        #expect(state.catalog.areas[1].item.title == "Greater Portland")
        #expect(state.portal.network == .online && state.portal.host == "portal.example.com")
        #expect(effects.first == .catalog(.reportNetwork(.online)))
        #expect(effects.contains { if case .map(.drawOverview) = $0 { true } else { false } }, "the overview's basemap is drawn")
        #expect(state.overview.isDrawing)
        // A newer library read does not replace what the portal said.
        _ = App.update(&state, .catalog(.libraryRead(LibrarySnapshot(catalog: LibraryCatalog(webMapItem: Fixture.catalog.webMapItem,
                                                                                    webMapData: .null, areas: [], syncedAt: nil),
                                                            downloads: [:], partialBytes: [:]))))
        #expect(state.catalog.areas.count == 3)
    }

    /// Thousands of areas: the list shows as it fills, areas whose packages are not known yet are
    /// "checking", not downloadable, and the whole list replaces it.
    @Test func aLongListingShowsAsItFills() {
        var state = AppState(portalHost: "p", webMapID: Fixture.webMapID)
        _ = App.update(&state, .terminal(.resized(Display(width: 120, height: 40))))
        _ = App.update(&state, .catalog(.connected(host: "p")))
        var partial = Fixture.catalog
        partial.areas[1].packagesPending = true
        partial.areas[2].packagesPending = true
        _ = App.update(&state, .catalog(.webMapListing(partial, known: 1)))
        #expect(state.catalog.phase == .loaded && state.rows.count == 4)
        #expect(state.message == "Listing the map areas: 1 of 3 checked…")
        #expect(StatusText.line(.area(2), state: state).plainText == "Checking its packages…")
        Fixture.select(&state, "Bangor")
        #expect(Fixture.keys(&state, .character("d")).isEmpty)
        _ = App.update(&state, .catalog(.webMapLoaded(WebMapSnapshot(catalog: Fixture.catalog,
                                                            library: LibrarySnapshot(catalog: nil, downloads: [:], partialBytes: [:]),
                                                            host: "p"))))
        #expect(state.message == nil)
        #expect(StatusText.line(.area(2), state: state).plainText == "Ready · 2.0 MiB")
        // A complete list from the library stays until the portal's whole list arrives.
        var kept = AppState(portalHost: "p", webMapID: Fixture.webMapID)
        _ = App.update(&kept, .catalog(.libraryRead(LibrarySnapshot(catalog: Fixture.catalog, downloads: [:], partialBytes: [:]))))
        _ = App.update(&kept, .catalog(.webMapListing(partial, known: 1)))
        #expect(kept.catalog.areas.allSatisfy { !$0.packagesPending })
    }

    /// The library's copy of the web map names a basemap server that has moved (the sample portal
    /// listens on a new port each run): when that drawing fails, the portal's basemap is drawn.
    @Test func aStaleBasemapThatFailsGivesWayToThePortals() throws {
        var state = AppState(portalHost: "p", webMapID: Fixture.webMapID)
        _ = App.update(&state, .terminal(.resized(Display(width: 120, height: 40))))
        let effects = App.update(&state, .catalog(.libraryRead(LibrarySnapshot(catalog: Fixture.catalog, downloads: [:], partialBytes: [:]))))
        let stale = try #require(state.onlineBasemap)
        #expect(effects.contains { if case .map(.drawOverview(_, [.basemap(stale)])) = $0 { true } else { false } })
        var moved = Fixture.catalog
        let text = String(decoding: try JSONSerialization.data(withJSONObject: [
            "baseMap": ["title": "Topo", "baseMapLayers": [["id": "v", "layerType": "VectorTileLayer", "title": "Topo",
                                                          "styleUrl": "http://127.0.0.1:4242/style/root.json"]]]]), as: UTF8.self)
        moved.webMapData = try JSONValue(parsing: Data(text.utf8))
        _ = App.update(&state, .catalog(.connected(host: "p")))
        let whileDrawing = App.update(&state, .catalog(.webMapLoaded(WebMapSnapshot(
            catalog: moved, library: LibrarySnapshot(catalog: nil, downloads: [:], partialBytes: [:]), host: "p"))))
        #expect(!whileDrawing.contains { if case .map(.drawOverview) = $0 { true } else { false } }, "one drawing at a time")
        let current = try #require(state.onlineBasemap)
        #expect(current != stale)
        #expect(App.update(&state, .map(.overviewDrawn(nil))).contains { if case .map(.drawOverview(_, [.basemap(current)])) = $0 { true } else { false } })
        // A failure of the current basemap is not retried at once: the outline stays.
        #expect(App.update(&state, .map(.overviewDrawn(nil))).isEmpty)
    }

    @Test func anUnreachablePortalBeforeAnythingLoadedIsOffline() {
        var state = AppState(portalHost: "www.arcgis.com", webMapID: Fixture.webMapID)
        let effects = App.update(&state, .catalog(.webMapFailed(LoadFailure(sentence: "Cannot reach www.arcgis.com.", network: .offline,
                                                                   host: "www.arcgis.com"))))
        #expect(state.catalog.phase == .unreachable(host: "www.arcgis.com"))
        #expect(state.portal.network == .offline)
        #expect(effects == [.catalog(.reportNetwork(.offline))])
        #expect(KeyMap.hints(for: state.catalog.phase) == ["r try now", "? help", "q quit"], "no d download, no m map on a card")
    }

    /// A portal that refuses, resets or closes connections is "not answering", not online; when the
    /// network monitor sees it answer again, the web map reloads by itself.
    @Test func aPortalNotAnsweringIsNotOnlineAndReloadsWhenItAnswers() {
        var state = AppState(portalHost: "p", webMapID: Fixture.webMapID)
        _ = App.update(&state, .terminal(.resized(Display(width: 120, height: 40))))
        _ = App.update(&state, .catalog(.network(.online)))
        let sentence = "The connection to p was lost mid-transfer. Try again."
        let effects = App.update(&state, .catalog(.webMapFailed(LoadFailure(sentence: sentence, network: .portalNotAnswering, host: "p"))))
        #expect(state.catalog.phase == .notAnswering(host: "p", sentence))
        #expect(state.portal.network == .portalNotAnswering)
        #expect(effects.first == .catalog(.reportNetwork(.portalNotAnswering)))
        #expect(App.update(&state, .catalog(.network(.online))) == [.catalog(.loadWebMap)])

        // With the list loaded: downloaded areas only, downloads wait, and the status bar says why.
        var loaded = Fixture.loaded(downloaded: [Fixture.acadia])
        Fixture.select(&loaded, "Bangor")
        _ = Fixture.keys(&loaded, .character("d"))
        _ = App.update(&loaded, .downloads(.download(.queued(Fixture.bangor))))
        let paused = App.update(&loaded, .catalog(.webMapFailed(LoadFailure(sentence: sentence, network: .portalNotAnswering, host: "p"))))
        #expect(paused.contains(.downloads(.pauseDownloads)))
        #expect(loaded.library.transfers[Fixture.bangor] == .waitingForNetwork)
        #expect(loaded.message == "p is not answering — showing downloaded areas; trying again by itself")
        #expect(loaded.rows.count == 3, "the web map, Acadia, and Bangor waiting for the network")
        let back = App.update(&loaded, .catalog(.network(.online)))
        #expect(back.contains(.catalog(.loadWebMap)) && back.contains(.downloads(.download(loaded.catalog.areas.first { $0.item.id == Fixture.bangor }!))))
    }

    @Test func aFailureAfterLoadingKeepsTheListAndSaysWhy() {
        var state = Fixture.loaded()
        _ = App.update(&state, .catalog(.webMapFailed(LoadFailure(sentence: "p answered HTTP 500.", network: .online, host: "p"))))
        #expect(state.catalog.phase == .loaded && state.catalog.areas.count == 3)
        #expect(state.message == "p answered HTTP 500.")
        #expect(state.portal.network == .online)
    }

    @Test func arrowsMoveTheSelectionAndTheListScrolls() {
        // 17 rows: three entries fit.
        var state = Fixture.loaded(width: 100, height: 17)
        #expect(state.layout?.main.listCapacity == 3)
        _ = Fixture.keys(&state, .down, .character("j"), .down)
        #expect(state.list.selection == 3 && state.list.top == 1)
        _ = Fixture.keys(&state, .up, .up, .up)
        #expect(state.list.selection == 0 && state.list.top == 0)
        _ = Fixture.keys(&state, .character("G"))
        #expect(state.list.selection == 3)
        _ = Fixture.keys(&state, .character("g"), .pageDown)
        #expect(state.list.selection == 3)
    }

    @Test func enterOnAnAreaOpensItsDetailsAndEscapeComesBack() {
        var state = Fixture.loaded()
        Fixture.select(&state, "Acadia")
        #expect(Fixture.keys(&state, .enter).isEmpty)
        #expect(state.screen.kind == .details)
        _ = Fixture.keys(&state, .escape)
        #expect(state.screen.kind == .main)
        _ = Fixture.keys(&state, .character("i"))
        #expect(state.screen.kind == .details)
    }

    @Test func detailsScrollNoFurtherThanTheirEnd() {
        var state = Fixture.loaded(width: 100, height: 14)
        Fixture.select(&state, "Acadia")
        _ = Fixture.keys(&state, .enter)
        let body = state.layout!.detailsBody
        let maximum = DetailsDocument.lines(state, width: body.width).count - body.height
        #expect(maximum > 3)
        for _ in 0..<100 { _ = Fixture.keys(&state, .down) }
        #expect(state.screen.kind == .details)
        guard case .details(let scroll) = state.screen else { return }
        #expect(scroll == maximum)
        _ = Fixture.keys(&state, .pageUp)
        guard case .details(let after) = state.screen else { return }
        #expect(after == maximum - (body.height - 1))
        // A taller terminal shows more, so it scrolls less far.
        _ = App.update(&state, .terminal(.resized(Display(width: 100, height: 60))))
        guard case .details(let clamped) = state.screen else { return }
        #expect(clamped <= max(DetailsDocument.lines(state, width: 96).count - 57, 0))
    }

    @Test func tabFocusesTheMapWhereArrowsPickTheNearestAreaThatWay() {
        var state = Fixture.loaded()
        Fixture.select(&state, "Portland")
        _ = Fixture.keys(&state, .tab)
        #expect(state.list.focus == .overview)
        _ = Fixture.keys(&state, .right)
        #expect(state.title(of: state.selectedRow!) != "Greater Portland")
        _ = Fixture.keys(&state, .escape)
        #expect(state.list.focus == .list)
    }
}

@Suite("update: filter, help and questions")
struct UpdateOverlayTests {
    @Test func slashStartsTheFilterAndTypedLettersNarrowTheList() {
        var state = Fixture.loaded()
        _ = Fixture.keys(&state, .character("/"))
        #expect(state.overlay == .filter && state.keyContext == .filter)
        _ = Fixture.keys(&state, .character("b"), .character("a"), .character("n"))
        #expect(state.rows == [.area(2)])
        #expect(state.list.filterText == "ban" && state.list.selection == 0)
    }

    @Test func lettersThatAreKeysElsewhereAreTypedIntoTheFilter() {
        var state = Fixture.loaded()
        _ = Fixture.keys(&state, .character("/"), .character("q"), .character("d"), .character("?"))
        #expect(!state.handoff.isQuitting && state.overlay == .filter && state.list.filterText == "qd?")
    }

    @Test func backspaceEnterAndEscapeEditTheFilter() {
        var state = Fixture.loaded()
        _ = Fixture.keys(&state, .character("/"), .character("a"), .character("x"), .backspace, .enter)
        #expect(state.overlay == nil && state.list.filterText == "a")
        _ = Fixture.keys(&state, .character("/"), .escape)
        #expect(state.overlay == nil && state.list.filterText.isEmpty && state.rows.count == 4)
    }

    @Test func arrowsStillMoveWhileTyping() {
        var state = Fixture.loaded()
        _ = Fixture.keys(&state, .character("/"), .character("a"), .down)
        #expect(state.overlay == .filter && state.list.selection == 1)
    }

    @Test func helpScrollsAndClosesAndTheListStaysPut() {
        var state = Fixture.loaded(width: 100, height: 20)
        _ = Fixture.keys(&state, .character("?"))
        #expect(state.overlay == .help(scroll: 0))
        _ = Fixture.keys(&state, .down, .down)
        #expect(state.overlay == .help(scroll: 2) && state.list.selection == 0)
        _ = Fixture.keys(&state, .character("G"))
        let help = state.layout!.help()
        #expect(state.overlay == .help(scroll: help.lines.count - help.body.height))
        _ = Fixture.keys(&state, .escape)
        #expect(state.overlay == nil)
    }

    @Test func qQuitsEvenFromHelp() {
        var state = Fixture.loaded()
        _ = Fixture.keys(&state, .character("?"), .character("q"))
        #expect(state.handoff.isQuitting)
    }

    @Test func removingAsksFirstAndNoLeavesItBe() {
        var state = Fixture.loaded(downloaded: [Fixture.acadia])
        Fixture.select(&state, "Acadia")
        #expect(Fixture.keys(&state, .character("x")).isEmpty)
        guard case .confirm(let question)? = state.overlay else { Issue.record("no question"); return }
        #expect(question.question == "Remove Acadia from this device?")
        #expect(question.detail == "2.0 MiB will be deleted. It can be downloaded again.")
        #expect(Fixture.keys(&state, .character("j"), .character("d")).isEmpty, "other keys wait for the answer")
        #expect(state.selectedRow == .area(0))
        #expect(Fixture.keys(&state, .character("n")).isEmpty)
        #expect(state.overlay == nil && state.library.downloads[Fixture.acadia] != nil)
    }

    @Test func yesRemovesThroughTheRuntimeAndTheResultComesBack() {
        var state = Fixture.loaded(downloaded: [Fixture.acadia])
        Fixture.select(&state, "Acadia")
        _ = Fixture.keys(&state, .character("x"))
        #expect(Fixture.keys(&state, .character("y")) == [.downloads(.removeDownload(Fixture.acadia, title: "Acadia"))])
        #expect(state.overlay == nil)
        _ = App.update(&state, .downloads(.removed(Fixture.acadia)))
        #expect(state.library.downloads.isEmpty && state.message == "Removed Acadia from this device.")
    }

    @Test func removingAnAreaThatIsNotHereSaysSo() {
        var state = Fixture.loaded()
        Fixture.select(&state, "Bangor")
        _ = Fixture.keys(&state, .character("x"))
        #expect(state.overlay == nil && state.message == "Bangor is not on this device.")
    }

    @Test func aFailedRemoveIsOneSentence() {
        var state = Fixture.loaded(downloaded: [Fixture.acadia])
        _ = App.update(&state, .downloads(.removeFailed(Fixture.acadia, "Acadia is being downloaded by another mapbook (pid 7); wait for it, or stop it first.")))
        #expect(state.library.downloads[Fixture.acadia] != nil)
        #expect(state.message?.hasPrefix("Acadia is being downloaded by another mapbook") == true)
    }
}

@Suite("update: downloads and the network")
struct UpdateDownloadTests {
    @Test func dQueuesTheSelectedArea() {
        var state = Fixture.loaded()
        Fixture.select(&state, "Bangor")
        let effects = Fixture.keys(&state, .character("d"))
        #expect(effects == [.downloads(.download(state.catalog.areas[2]))])
        #expect(state.library.transfers[Fixture.bangor] == .queued)
        #expect(Fixture.keys(&state, .character("d")).isEmpty, "already queued")
    }

    @Test func dBeforeConnectingSaysWhy() {
        var state = AppState(portalHost: "p", webMapID: Fixture.webMapID)
        _ = App.update(&state, .catalog(.libraryRead(LibrarySnapshot(catalog: Fixture.catalog, downloads: [:], partialBytes: [:]))))
        Fixture.select(&state, "Bangor")
        #expect(Fixture.keys(&state, .character("d")).isEmpty)
        #expect(state.message == "Not connected to the portal yet.")
        #expect(state.library.transfers.isEmpty)
    }

    @Test func capitalDQueuesEveryAreaNotHere() {
        var state = Fixture.loaded(downloaded: [Fixture.acadia])
        let effects = Fixture.keys(&state, .character("D"))
        #expect(effects.count == 2)
        #expect(state.message == "Downloading 2 map areas…")
    }

    @Test func progressReachesOnlyTransfersStillUnderWay() {
        var state = Fixture.loaded()
        Fixture.select(&state, "Bangor")
        _ = Fixture.keys(&state, .character("d"))
        let progress = DownloadProgress(bytes: 1_000, total: 2_097_152, bytesPerSecond: 500)
        _ = App.update(&state, .downloads(.download(.progress(Fixture.bangor, progress))))
        _ = App.update(&state, .downloads(.download(.progress(Fixture.acadia, progress))))
        #expect(state.library.transfers[Fixture.bangor] == .running(progress))
        #expect(state.library.transfers[Fixture.acadia] == nil)
    }

    @Test func aFinishedDownloadIsRecordedAndSaidSo() {
        var state = Fixture.loaded()
        Fixture.select(&state, "Bangor")
        _ = Fixture.keys(&state, .character("d"))
        let record = Fixture.record(for: state.catalog.areas[2])
        _ = App.update(&state, .downloads(.download(.finished(Fixture.bangor, record))))
        #expect(state.library.transfers[Fixture.bangor] == nil && state.library.downloads[Fixture.bangor] == record)
        #expect(state.message == "Bangor downloaded · 2.0 MiB, verified")
        #expect(Fixture.keys(&state, .character("d")).isEmpty)
        #expect(state.message == "Bangor is downloaded and up to date.")
        _ = Fixture.keys(&state, .character("u"))
        #expect(state.message == "No update available: the packages are the portal's latest.")
    }

    @Test func aFailedDownloadIsRetriedWithR() {
        var state = Fixture.loaded()
        Fixture.select(&state, "Bangor")
        _ = Fixture.keys(&state, .character("d"))
        let failure = DownloadFailure(sentence: "p answered HTTP 503 (service unavailable).", isUnreachable: false, isDiskFull: false)
        _ = App.update(&state, .downloads(.download(.failed(Fixture.bangor, failure))))
        #expect(state.library.transfers[Fixture.bangor] == .failed(failure.sentence))
        #expect(state.message == "Bangor: p answered HTTP 503 (service unavailable).")
        #expect(Fixture.keys(&state, .character("r")) == [.downloads(.download(state.catalog.areas[2]))])
    }

    @Test func aNetworkFailureWaitsForTheNetwork() {
        var state = Fixture.loaded()
        Fixture.select(&state, "Bangor")
        _ = Fixture.keys(&state, .character("d"))
        _ = App.update(&state, .downloads(.download(.progress(Fixture.bangor, DownloadProgress(bytes: 4_096, total: nil, bytesPerSecond: nil)))))
        let failure = DownloadFailure(sentence: "Cannot reach p.", isUnreachable: true, isDiskFull: false)
        #expect(App.update(&state, .downloads(.download(.failed(Fixture.bangor, failure)))) == [.catalog(.checkNetwork)])
        #expect(state.library.transfers[Fixture.bangor] == .waitingForNetwork)
        #expect(state.library.partialBytes[Fixture.bangor] == 4_096, "what it reached can be removed")
    }

    @Test func cCancelsARunningDownloadAndDiscardsAFailedOnesBytes() {
        var state = Fixture.loaded()
        Fixture.select(&state, "Bangor")
        _ = Fixture.keys(&state, .character("d"))
        #expect(Fixture.keys(&state, .character("c")) == [.downloads(.cancelDownload(Fixture.bangor))])
        _ = App.update(&state, .downloads(.download(.cancelled(Fixture.bangor))))
        #expect(state.library.transfers[Fixture.bangor] == nil && state.message == "Cancelled the download of Bangor.")
        _ = Fixture.keys(&state, .character("d"))
        _ = App.update(&state, .downloads(.download(.failed(Fixture.bangor, DownloadFailure(sentence: "x", isUnreachable: false, isDiskFull: false)))))
        #expect(Fixture.keys(&state, .character("c")) == [.downloads(.discardPartialDownload(Fixture.bangor))])
        #expect(state.library.transfers[Fixture.bangor] == nil)
        #expect(Fixture.keys(&state, .character("c")).isEmpty && state.message == "No download to cancel.")
    }

    @Test func goingOfflinePausesDownloadsAndListsOnlyWhatIsHereOrOnItsWay() {
        var state = Fixture.loaded(downloaded: [Fixture.acadia])
        Fixture.select(&state, "Bangor")
        _ = Fixture.keys(&state, .character("d"))
        let effects = App.update(&state, .catalog(.network(.offline)))
        #expect(effects.contains(.downloads(.pauseDownloads)))
        #expect(state.library.transfers[Fixture.bangor] == .waitingForNetwork)
        #expect(state.rows == [.webMap, .area(0), .area(2)], "Acadia, and Bangor waiting for the network")
        #expect(state.message == "Offline — showing downloaded areas")
        Fixture.select(&state, "Acadia")
        _ = Fixture.keys(&state, .character("D"))
        #expect(state.message == "Offline: downloads start when the network is back.")
    }

    @Test func comingBackOnlineReloadsAndResumes() {
        var state = Fixture.loaded()
        Fixture.select(&state, "Bangor")
        _ = Fixture.keys(&state, .character("d"))
        _ = App.update(&state, .catalog(.network(.offline)))
        let effects = App.update(&state, .catalog(.network(.online)))
        #expect(effects.contains(.catalog(.loadWebMap)))
        #expect(effects.contains(.downloads(.download(state.catalog.areas[2]))))
        #expect(state.library.transfers[Fixture.bangor] == .queued)
        #expect(state.message == "Reloading…")
    }
}

@Suite("update: the map view")
struct UpdateMapTests {
    static let summary = MapSourceSummary(layerNames: ["land", "roads\u{1B}[31m", "places"],
                                          extent: GeoExtent(xmin: -68.5, ymin: 44.2, xmax: -68.0, ymax: 44.5))

    /// A downloaded Acadia's map, opened and drawn once.
    static func openMap() -> (AppState, MapRequest) {
        var state = Fixture.loaded(downloaded: [Fixture.acadia])
        Fixture.select(&state, "Acadia")
        let package = state.library.downloads[Fixture.acadia]!.packages[0]
        #expect(Fixture.keys(&state, .character("m")) == [.map(.openMap(session: 1, .package(area: Fixture.acadia, package)))])
        #expect(state.map?.status == "Opening the map…")
        let effects = App.update(&state, .map(.mapOpened(session: 1, summary)))
        guard case .map(.drawMap(1, let request))? = effects.first, effects.count == 1 else {
            Issue.record("expected one drawing, got \(effects)")
            return (state, MapRequest(viewport: state.map!.viewport, columns: 0, rows: 0))
        }
        #expect(request.columns == 120 && request.rows == 38)
        return (state, request)
    }

    static func image(for request: MapRequest) -> MapImage {
        MapImage(picture: MapPicture(frame: Frame(width: request.columns, height: request.rows)), request: request)
    }

    @Test func mOpensADownloadedAreasPackageAndDrawsItsHomeView() {
        let (state, request) = Self.openMap()
        #expect(state.map?.layers == ["land", "roads", "places"])
        #expect(state.map?.isDrawing == true)
        #expect(request.viewport == state.map?.viewport)
    }

    /// 53 keys while a drawing is under way: every key moves the view at once, none asks for a
    /// drawing of its own, and when the drawing ends one more starts, for the latest view.
    @Test func aBurstOfKeysWhileDrawingCoalescesIntoOneDrawing() {
        var (state, first) = Self.openMap()
        let start = state.map!.viewport
        var effects: [Effect] = []
        for _ in 0..<40 { effects += Fixture.keys(&state, .right) }
        for _ in 0..<3 { effects += Fixture.keys(&state, .character("+")) }
        for _ in 0..<10 { effects += Fixture.keys(&state, .character("k")) }
        #expect(effects.isEmpty)
        var expected = start
        for _ in 0..<40 { expected = expected.panned(dotsX: 60, dotsY: 0) }
        for _ in 0..<3 { expected = expected.zoomed(by: 1) }
        for _ in 0..<10 { expected = expected.panned(dotsX: 0, dotsY: -38) }
        #expect(state.map?.viewport == expected)
        let next = App.update(&state, .map(.mapDrawn(session: 1, Self.image(for: first))))
        guard case .map(.drawMap(1, let latest))? = next.first, next.count == 1 else { Issue.record("\(next)"); return }
        #expect(latest.viewport == expected)
        #expect(App.update(&state, .map(.mapDrawn(session: 1, Self.image(for: latest)))).isEmpty)
        #expect(state.map?.isDrawing == false)
    }

    /// A first drawing from what was at hand shows at once, the drawing still under way; one for a
    /// view since left is not shown; the whole drawing then ends it.
    @Test func aDrawingFromWhatIsAtHandShowsWhileTheWholeOneComes() {
        var (state, request) = Self.openMap()
        var atHand = Self.image(for: request)
        atHand.isAtHand = true
        #expect(App.update(&state, .map(.mapDrawn(session: 1, atHand))).isEmpty)
        #expect(state.map?.image?.isAtHand == true && state.map?.isDrawing == true)
        #expect(Fixture.keys(&state, .right).isEmpty, "the whole drawing is still under way: the next waits for it")
        let whole = App.update(&state, .map(.mapDrawn(session: 1, Self.image(for: request))))
        guard case .map(.drawMap(1, let latest))? = whole.first else { Issue.record("\(whole)"); return }
        #expect(latest.viewport == state.map?.viewport && state.map?.image?.isAtHand == false)

        // The view moved on before the first drawing came: it is not shown.
        let reopened = Self.openMap()
        var moved = reopened.0
        let old = reopened.1
        _ = Fixture.keys(&moved, .right)
        var late = Self.image(for: old)
        late.isAtHand = true
        #expect(App.update(&moved, .map(.mapDrawn(session: 1, late))).isEmpty)
        #expect(moved.map?.image == nil && moved.map?.isDrawing == true)
    }

    @Test func resultsForAClosedMapAreIgnored() {
        var (state, request) = Self.openMap()
        #expect(Fixture.keys(&state, .escape) == [.map(.closeMap(session: 1))])
        #expect(state.screen.kind == .main)
        #expect(App.update(&state, .map(.mapDrawn(session: 1, Self.image(for: request)))).isEmpty)
        #expect(App.update(&state, .map(.mapOpened(session: 1, Self.summary))).isEmpty)
        #expect(state.screen.kind == .main)
    }

    @Test func bookmarksGoToTheirPlace() {
        var (state, request) = Self.openMap()
        _ = App.update(&state, .map(.mapDrawn(session: 1, Self.image(for: request))))
        _ = Fixture.keys(&state, .character("b"))
        #expect(state.map?.panel == .bookmarks)
        let effects = Fixture.keys(&state, .enter)
        #expect(state.map?.panel == nil && state.message == "Bookmark: Coast")
        #expect(effects.count == 1)
        // One beyond the area: its map has nothing there, and says so.
        state.withMap { $0.bookmarks.append(Bookmark(name: "Caribou", extent: Envelope(xmin: -68.2, ymin: 46.8, xmax: -67.9, ymax: 46.9, spatialReference: .wgs84))) }
        _ = Fixture.keys(&state, .character("b"), .down, .enter)
        #expect(state.message == "Bookmark: Caribou, outside \(state.map?.title ?? ""): this map holds the area's layers and basemap only.", "\(state.message ?? "")")
    }

    @Test func theLayerListHidesALayerByThePackagesOwnName() {
        var (state, request) = Self.openMap()
        _ = App.update(&state, .map(.mapDrawn(session: 1, Self.image(for: request))))
        _ = Fixture.keys(&state, .character("L"), .down)
        let effects = Fixture.keys(&state, .character(" "))
        #expect(state.map?.hiddenLayers == ["roads"])
        guard case .map(.drawMap(_, let hidden))? = effects.first else { Issue.record("\(effects)"); return }
        #expect(hidden.hiddenLayers == ["roads\u{1B}[31m"])
    }

    /// A pan, a zoom or home asks for the view with the same content (its pixels may be kept);
    /// a layer hidden, while a drawing is under way too, with other content.
    @Test func onlyMovesOfTheViewKeepTheContent() {
        var (state, request) = Self.openMap()
        _ = App.update(&state, .map(.mapDrawn(session: 1, Self.image(for: request))))
        let moved = Fixture.keys(&state, .right)
        guard case .map(.drawMap(_, let panned))? = moved.first else { Issue.record("\(moved)"); return }
        #expect(panned.content == request.content && panned.viewport != request.viewport)
        // A layer hidden while the pan is drawn: the drawing that follows it has other content.
        #expect(Fixture.keys(&state, .character("L"), .down, .character(" "), .escape).isEmpty)
        let redrawn = App.update(&state, .map(.mapDrawn(session: 1, Self.image(for: panned))))
        guard case .map(.drawMap(_, let afterHiding))? = redrawn.first else { Issue.record("\(redrawn)"); return }
        #expect(afterHiding.content != panned.content && afterHiding.viewport == panned.viewport)
    }

    @Test func cCyclesTheDrawingModeInTheMapButCancelsInTheList() {
        var (state, request) = Self.openMap()
        _ = App.update(&state, .map(.mapDrawn(session: 1, Self.image(for: request))))
        let effects = Fixture.keys(&state, .character("c"))
        #expect(state.map?.mode == .blocks && state.message == "Drawing in blocks")
        guard case .map(.drawMap(_, let blocks))? = effects.first else { Issue.record("\(effects)"); return }
        #expect(blocks.mode == .blocks)
    }

    @Test func offlineTheWebMapsBasemapDrawsWhatItKept() {
        var state = Fixture.loaded(downloaded: [Fixture.acadia])
        _ = App.update(&state, .catalog(.network(.offline)))
        _ = App.update(&state, .catalog(.network(.online)))
        _ = App.update(&state, .catalog(.webMapFailed(LoadFailure(sentence: "x", network: .offline, host: "p"))))
        Fixture.select(&state, "Explore Maine")
        #expect(Fixture.keys(&state, .enter) == [.map(.openMap(session: 1, .basemap(state.onlineBasemap!)))])
        #expect(state.map?.sourceName == "Topo · offline, tiles seen before")
    }

    @Test func onlineTheWebMapOpensItsBasemap() {
        var state = Fixture.loaded()
        let effects = Fixture.keys(&state, .enter)
        #expect(effects == [.map(.openMap(session: 1, .basemap(state.onlineBasemap!)))])
        #expect(state.map?.sourceName == "Topo · online")
    }

    @Test func aStandaloneMapQuitsWhenLeft() {
        var state = AppState.standaloneMap(title: "file.vtpk", sourceName: "file.vtpk", home: nil)
        #expect(App.update(&state, .started) == [.map(.openMap(session: 1, .given)), .pins(.loadPins)])
        _ = App.update(&state, .terminal(.resized(Display(width: 80, height: 24))))
        _ = App.update(&state, .map(.mapOpened(session: 1, Self.summary)))
        var quit = state
        _ = Fixture.keys(&state, .escape)
        #expect(state.handoff.isQuitting && state.handoff.leftStandaloneMap, "left: a browser it came from shows again")
        _ = Fixture.keys(&quit, .character("q"))
        #expect(quit.handoff.isQuitting && !quit.handoff.leftStandaloneMap, "quit: mapbook ends")
    }

    /// A package's bookmark names come from the file: cleaned before any list shows them.
    @Test func aStandaloneMapsBookmarksAreCleaned() {
        let extent = Envelope(xmin: 0, ymin: 0, xmax: 1, ymax: 1, spatialReference: .wgs84)
        let state = AppState.standaloneMap(title: "f", sourceName: "f", home: nil,
                                           bookmarks: [Bookmark(name: "Harbor\u{1B}[2J\nview", extent: extent)])
        #expect(state.map?.bookmarks.map(\.name) == ["Harbor view"])
    }

    @Test func aMapThatCannotOpenSaysWhy() {
        var state = AppState.standaloneMap(title: "f", sourceName: "f", home: nil)
        _ = App.update(&state, .map(.mapOpenFailed(session: 1, "f.vtpk cannot be opened: \u{1B}[2Jnot a zip.")))
        #expect(state.map?.status == "f.vtpk cannot be opened: not a zip.")
    }
}

@Suite("Mouse: clicks, wheel and drags become intents")
struct MouseTests {
    @Test func aClickOnAListEntrySelectsIt() {
        var state = Fixture.loaded()
        let entries = state.layout!.main.entries
        _ = App.update(&state, .terminal(.mouse(.press(CellPoint(x: entries.x + 10, y: entries.y + MainLayout.entryHeight * 2)))))
        #expect(state.list.selection == 2 && state.terminal.dragPoint == nil)
        // The blank line between entries is not an entry.
        _ = App.update(&state, .terminal(.mouse(.press(CellPoint(x: entries.x + 10, y: entries.y + MainLayout.entryHeight - 1)))))
        #expect(state.list.selection == 2)
    }

    @Test func aClickUnderAQuestionDoesNothing() {
        var state = Fixture.loaded(downloaded: [Fixture.acadia])
        Fixture.select(&state, "Acadia")
        _ = Fixture.keys(&state, .character("x"))
        let entries = state.layout!.main.entries
        _ = App.update(&state, .terminal(.mouse(.press(CellPoint(x: entries.x + 10, y: entries.y)))))
        #expect(state.selectedRow == .area(0))
    }

    @Test func theWheelScrollsTheListAndZoomsTheMapTowardThePointer() {
        var state = Fixture.loaded()
        let list = state.layout!.main.entries
        #expect(MouseTranslator.translate(.wheel(rows: 1, at: CellPoint(x: list.x, y: list.y)), in: state).intent == .move(.scroll(1)))
        var (map, _) = UpdateMapTests.openMap()
        let rect = map.layout!.mapRect
        let (intent, _) = MouseTranslator.translate(.wheel(rows: -1, at: CellPoint(x: 10, y: rect.y + 5)), in: map)
        #expect(intent == .map(.zoomAt(steps: 1, column: 10, row: 5)))
        let zoom = map.map!.viewport.zoom
        _ = App.update(&map, .terminal(.mouse(.wheel(rows: -1, at: CellPoint(x: 10, y: rect.y + 5)))))
        #expect(map.map!.viewport.zoom == zoom + 1)
    }

    @Test func aDragOnTheMapPansWithThePointer() {
        var (state, _) = UpdateMapTests.openMap()
        let before = state.map!.viewport
        _ = App.update(&state, .terminal(.mouse(.press(CellPoint(x: 50, y: 20)))))
        #expect(state.terminal.dragPoint == CellPoint(x: 50, y: 20))
        #expect(MouseTranslator.translate(.drag(CellPoint(x: 53, y: 18)), in: state).intent == .map(.pan(columns: 3, rows: -2)))
        _ = App.update(&state, .terminal(.mouse(.drag(CellPoint(x: 53, y: 18)))))
        #expect(state.map!.viewport == before.panned(dotsX: -6, dotsY: 8))
        _ = App.update(&state, .terminal(.mouse(.release(CellPoint(x: 53, y: 18)))))
        #expect(state.terminal.dragPoint == nil)
        #expect(MouseTranslator.translate(.drag(CellPoint(x: 60, y: 18)), in: state).intent == nil, "no button held, no pan")
    }
}

@Suite("Notices are worded once")
struct NoticeTests {
    @Test func everyNoticeIsOneSentence() {
        let notices: [Notice] = [.offline, .backOnline, .reloading, .checkingPortal, .notConnected, .catalogNotKept("x."),
                                 .downloaded(title: "A", size: 1_048_576), .downloadFailed(title: "A", sentence: "x."),
                                 .cancelled(title: "A"), .downloadingCount(1), .allDownloaded, .upToDate(title: "A"),
                                 .notDownloadable(title: "A", .processing), .selectAnArea(to: "remove"), .offlineDownloads, .offlineUpdates,
                                 .onlyDownloadedUpdates, .noUpdate, .noDownloadToCancel, .notOnDevice(title: "A"),
                                 .removed(title: "A"), .notOnDeviceForMap(title: "A"), .basemapNotDrawable(nil),
                                 .basemapNotDrawable(WebMapLayer(title: "World Topographic Map", layerType: "ArcGISTiledMapServiceLayer")),
                                 .map(.noBookmarks), .map(.noLayers), .map(.drawingMode(.ascii)), .map(.bookmark("B")), .problem("x."),
                                 .map(.noBasemapChoice), .map(.basemapChosen("Dark"))]
        for notice in notices {
            #expect(!notice.sentence.isEmpty && !notice.sentence.contains("\n"), "\(notice)")
        }
        #expect(Notice.downloadingCount(1).sentence == "Downloading 1 map area…")
        // A basemap mapbook cannot draw is named, never silently replaced.
        #expect(Notice.basemapNotDrawable(WebMapLayer(title: "World Hillshade", layerType: "WMS")).sentence
            == "This web map's basemap, “World Hillshade” (WMS), is of a kind mapbook does not draw: "
            + "its layers are drawn over the world outline; B offers the portal's basemaps.")
        #expect(!Notice.basemapNotDrawable(WebMapLayer(title: "Relief\u{1b}[2J\u{7}", layerType: "WMS\u{1b}]0;x\u{7}")).sentence
            .contains { $0.asciiValue.map { $0 < 0x20 } ?? false }, "the web map's title and type are cleaned")
        #expect(Notice.downloaded(title: "A", size: 1_048_576).sentence == "A downloaded · 1.0 MiB, verified")
        #expect(Notice.downloaded(title: "A", size: 1_048_576, updated: true).sentence == "A updated · 1.0 MiB, verified")
    }
}
