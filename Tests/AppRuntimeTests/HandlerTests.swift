import AppModel
import ArcGISPortal
import EventLoop
import Foundation
import MapRender
import MapSources
import MapbookCore
import OfflineLibrary
import PortalFixtures
import SamplePortal
import Synchronization
import Testing
import TestScheduling
@testable import AppRuntime
import Geometry
import Location
import Places
import UserFiles
import ArcGISModel
import LibraryModel
import MapbookServices

/// Each of the runtime's handlers alone, with fakes for what it depends on: no portal, no network.
/// What a handler is tested by is the events it sends.
@UIActor
@Suite("The runtime's handlers", .aheadOfQueuedTests)
struct HandlerTests {
    let tasks = TaskTracker()
    let sink = EventSink()
    let recorder = Recorder()
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-handlers-\(UUID())").path

    /// The events sent so far.
    @UIActor final class Recorder {
        var events: [Event] = []

        /// Waits for an event `matching` returns a value for: at most a minute, since the UI
        /// actor's one thread is shared with every other test of the run.
        func first<T>(_ matching: (Event) -> T?) async throws -> T {
            let deadline = ContinuousClock.now + .seconds(60)
            while true {
                if let found = events.lazy.compactMap(matching).first { return found }
                guard ContinuousClock.now < deadline else { throw Timeout(events: events) }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    struct Timeout: Error, CustomStringConvertible {
        let events: [Event]
        var description: String { "no such event among \(events)" }
    }

    init() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let recorder = recorder
        sink.deliver = { recorder.events.append($0) }
    }

    /// The library of the portal at 127.0.0.1:9 (nothing listens there).
    var library: OfflineLibrary { OfflineLibrary(root: root, portalKey: LibraryLocation.portalKey(for: URL(string: "http://127.0.0.1:9")!),
                                                 webMap: .exploreMaine) }

    /// A client for an address nothing listens on: the handlers under test never ask it anything.
    var unusedClient: PortalClient { PortalClient(portal: URL(string: "http://127.0.0.1:9")!) }

    /// These tests wait for events with a deadline: the suite's trait runs them ahead of the tests
    /// queued at the start of the run (see `AheadOfQueuedTests`).
    @Test func theseTestsRunAheadOfTheQueuedOnes() {
        #expect(Task.currentPriority == .high)
    }

    /// The track asked for is written in the order asked, each point on disk, and ended: a track
    /// with no point is removed; the config's fixed position is said at once.
    @Test func theLocationHandlerWritesTheTrackInOrder() async throws {
        let handler = LocationHandler(tracks: TrackStore(root: root), send: sink)
        handler.perform(.startTrack)
        let id = try await recorder.first { event -> String? in if case .map(.trackStarted(let id)) = event { id } else { nil } }
        let points = (0..<3).map { TrackPoint(position: GeoPoint(longitude: -68.2 + Double($0) * 0.001, latitude: 44.38), accuracy: 4,
                                              time: Date(timeIntervalSince1970: 1_780_000_000 + Double($0))) }
        for point in points { handler.perform(.appendToTrack([point])) }
        handler.perform(.endTrack(keep: true))
        handler.perform(.startTrack)
        handler.perform(.endTrack(keep: false))
        // One left recording when the program ends, with no point: removed too.
        handler.perform(.startTrack)
        handler.perform(.watchLocation(.fixed(GeoPoint(longitude: -68.2, latitude: 44.38))))
        await handler.stop()
        let tracks = try TrackStore(root: root).list()
        #expect(tracks.map(\.track.id) == [id] && tracks.first?.track.points == points)
        #expect(recorder.events.contains { if case .map(.location(.fixed)) = $0 { true } else { false } })
    }

    /// Reports that show nothing new (the same place, only later) are not delivered: a receiver
    /// standing still wakes nothing; one that moves is delivered, at most five times a second.
    @Test func aReceiverStandingStillWakesNothing() {
        let latest = LatestReport()
        func fix(_ seconds: Double, longitude: Double = -68.2) -> LocationStatus {
            var fix = GPSFix(dimension: .threeD, position: GeoPoint(longitude: longitude, latitude: 44.38), accuracy: 5,
                             time: Date(timeIntervalSince1970: seconds))
            fix.heard = Date(timeIntervalSince1970: seconds)
            return .fix(fix, nil)
        }
        #expect(latest.offer(fix(1)) == .zero)
        #expect(latest.offer(fix(2)) == nil, "scheduled already: the latest replaces it")
        #expect(latest.take() == fix(2))
        #expect(latest.offer(fix(3)) == nil, "the same place, later: nothing to show")
        if let wait = latest.offer(fix(4, longitude: -68.21)) { #expect(wait > .zero && wait <= LatestReport.interval) } else { Issue.record("a move was not delivered") }
    }

    @Test func theCatalogSaysWhyTheWebMapCouldNotLoad() async throws {
        let handler = CatalogHandler(library: library, http: .init(), connect: { throw PortalError(.tokenRequired, host: "p.example") },
                                     recent: nil, networkTimings: .standard, connection: PortalConnection(), send: sink, tasks: tasks)
        handler.readLibrary()
        handler.loadWebMap()
        _ = try await recorder.first { if case .catalog(.libraryRead(let snapshot)) = $0 { snapshot } else { nil } }
        let failure = try await recorder.first { if case .catalog(.webMapFailed(let failure)) = $0 { failure } else { nil } }
        #expect(failure.needsSignIn && failure.sentence.contains("p.example") && failure.network == .online)
        await tasks.stopAll()
    }

    @Test func downloadsRemoveFromTheLibraryBeforeThePortalConnects() async throws {
        let handler = DownloadsHandler(library: library, connection: PortalConnection(), send: sink, tasks: tasks)
        handler.remove(.exploreMaine, title: "Nothing here")
        let removed = try await recorder.first { if case .downloads(.removed(let id)) = $0 { id } else { nil } }
        #expect(removed == .exploreMaine)
        handler.finish()
        await tasks.stopAll()
    }

    @Test func mapsSayWhatCouldNotOpenAndNeedAConnectionForTheGallery() async throws {
        let handler = MapViewHandler(library: library, http: .init(), connection: PortalConnection(), given: nil,
                                     finder: PlaceFinder(client: { nil }, library: library), send: sink, tasks: tasks)
        handler.open(session: 7, .given)
        let failed = try await recorder.first { if case .map(.mapOpenFailed(let session, let sentence)) = $0 { (session, sentence) } else { nil } }
        #expect(failed.0 == 7 && failed.1 == "No map was given to open.")
        handler.loadBasemapGallery()
        let gallery = try await recorder.first { if case .map(.basemapGallery(.failure(let failure))) = $0 { failure } else { nil } }
        #expect(gallery == .notConnected)
        // A drawing asked of a map that is not open is not attempted.
        handler.close(session: 7)
        while tasks.running > 0 { try await Task.sleep(for: .milliseconds(5)) }
        let before = recorder.events.count
        handler.draw(session: 7, MapRequest(viewport: MapViewport(fitting: GeoExtent(xmin: -1, ymin: -1, xmax: 1, ymax: 1), columns: 10, rows: 10),
                                            columns: 10, rows: 10))
        #expect(recorder.events.count == before && tasks.running == 0)
    }

    /// The open map's stored features are searched by display field, first, while it is open.
    @Test func theOpenMapsFeaturesAreFoundByNameUntilItCloses() async throws {
        let info = FeatureLayerInfo(name: "Lakes", geometryType: .point, fields: [FeatureField(name: "NAME", type: "esriFieldTypeString")],
                                    displayField: "NAME", renderer: FeatureRenderer(kind: .simple, classes: []))
        let lake = LayerFeature(geometry: .points([GeoPoint(longitude: -69.6, latitude: 45.7)]), attributes: ["NAME": .string("Moosehead Lake")])
        var given = MapStack.worldOutline()
        given.features = [FeatureLayerLoader(title: "Lakes", info: info, features: [lake])]
        let moose = PlaceName(name: "Moose River", point: GeoPoint(longitude: -70.2, latitude: 45.6), rank: 1)
        let finder = PlaceFinder(client: { nil }, library: library, bundled: { [moose] })
        let handler = MapViewHandler(library: library, http: .init(), connection: PortalConnection(), given: given, finder: finder,
                                     send: sink, tasks: tasks)
        func found() async -> [String] {
            await finder.places(for: "moose", near: nil, limit: 5, online: false).value.map { "\($0.label) · \($0.type ?? "")" }
        }
        #expect(await found() == ["Moose River · a package on this device"])
        handler.open(session: 4, .given)
        _ = try await recorder.first { if case .map(.featureLayersOpened(4, _)) = $0 { true } else { nil } }
        let deadline = ContinuousClock.now + .seconds(60)
        while await found().count < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(await found() == ["Moosehead Lake · Lakes, a layer on this device", "Moose River · a package on this device"])
        handler.close(session: 4)
        await tasks.stopAll()
        #expect(await found() == ["Moose River · a package on this device"], "closed: the map's features are no longer searched")
        // Names arriving for a closed map are dropped.
        await finder.mapOpened(session: 4, features: PlaceIndex(places: [PlaceName(name: "Moosehead Lake", point: GeoPoint(longitude: -69.6, latitude: 45.7), rank: 1)]))
        #expect(await found().count == 1)
    }

    @Test func placesAnswerFromThisDeviceWhenOffline() async throws {
        let bangor = PlaceName(name: "Bangor", point: GeoPoint(longitude: -68.77, latitude: 44.80), rank: 1)
        let finder = PlaceFinder(client: { nil }, library: library, bundled: { [bangor] })
        let handler = PlacesHandler(finder: finder, send: sink, tasks: tasks)
        handler.suggest("bang", request: 3, near: nil, online: true)
        let (request, suggestions, offline) = try await recorder.first {
            if case .search(.placeSuggestions(let request, .success(let found), let offline)) = $0 { (request, found, offline) } else { nil }
        }
        #expect(request == 3 && offline && suggestions.map(\.text) == ["Bangor"])
        handler.describe(GeoPoint(longitude: -68.7, latitude: 44.8), request: 4, online: false)
        let described = try await recorder.first { if case .search(.placeDescribed(4, let place)) = $0 { place } else { nil } }
        guard case .near(let sentence, _) = described else { Issue.record("\(described)"); return }
        #expect(sentence.hasSuffix(" of Bangor"), "\(sentence)")
    }

    /// A route's first stop, with nothing before it, is looked for around the web map: on a map of
    /// Maine "Bangor" is Bangor, Maine, not the larger one an ocean away.
    @Test func theFirstStopIsLookedForAroundTheWebMap() async throws {
        let maine = PlaceName(name: "Bangor", point: GeoPoint(longitude: -68.77, latitude: 44.80), rank: PlaceName.rank(population: 31_000), region: "Maine")
        let ireland = PlaceName(name: "Bangor", point: GeoPoint(longitude: -5.67, latitude: 54.66), rank: PlaceName.rank(population: 61_000), region: "Northern Ireland")
        let finder = PlaceFinder(client: { nil }, library: library, bundled: { [ireland, maine] })
        let barHarbor = RouteStop(name: "Bar Harbor", point: GeoPoint(longitude: -68.20, latitude: 44.39))
        // No web map kept: the larger one.
        guard case .success(let anywhere) = await RoutePlanner.locate([.named("Bangor"), .place(barHarbor)], finder: finder) else { Issue.record("not found"); return }
        #expect(anywhere.stops.first?.point.longitude == -5.67)
        let item = PortalItem(id: ItemID("3bc3179f17da44a0ac0bfdac4ad15664")!, title: "Explore Maine", type: "Web Map",
                              extent: GeoExtent(xmin: -71.1, ymin: 43.0, xmax: -66.9, ymax: 47.5))
        try library.saveCatalog(LibraryCatalog(webMapItem: item, webMapData: .object([:]), areas: [], syncedAt: nil))
        guard case .success(let located) = await RoutePlanner.locate([.named("Bangor"), .place(barHarbor)], finder: finder) else { Issue.record("not found"); return }
        #expect(located.stops.first?.point.longitude == -68.77, "\(located.stops)")
    }

    /// Names are found first (here from this device: no portal); with no portal to ask, the route
    /// fails with the straight line along the stops; a name found nowhere is one sentence.
    @Test func directionsFindTheNamesThenAskTheRouteService() async throws {
        let bangor = PlaceName(name: "Bangor", point: GeoPoint(longitude: -68.77, latitude: 44.80), rank: 1)
        let finder = PlaceFinder(client: { nil }, library: library, bundled: { [bangor] })
        let handler = DirectionsHandler(planner: RoutePlanner(client: { nil }), finder: finder, send: sink, tasks: tasks)
        let portland = RouteStop(name: "Portland", point: GeoPoint(longitude: -70.2553, latitude: 43.6615))
        handler.route(request: 5, through: [.place(portland), .named("bangor")], units: .kilometers, mode: nil)
        let failure = try await recorder.first { if case .directions(.routeFound(5, .failure(let failure))) = $0 { failure } else { nil } }
        let straight = try #require(failure.straightLine)
        #expect(abs(straight - Geodesy.distance(portland.point, bangor.point)) < 1, "measured to Bangor as found on this device")
        #expect(failure.sentence == LoadFailure.notConnected.sentence + " In a straight line it is \(Format.distance(straight)).")
        handler.route(request: 6, through: [.place(portland), .named("Nowhereville")], units: .kilometers, mode: nil)
        let unknown = try await recorder.first { if case .directions(.routeFound(6, .failure(let failure))) = $0 { failure } else { nil } }
        #expect(unknown.sentence == "No place called “Nowhereville” was found; give it as LON,LAT." && unknown.straightLine == nil)
    }

    @Test func pinsAreKeptAndLinksHandedOn() async throws {
        let opened = OpenedLinks()
        let handler = PinsHandler(store: PinStore(root: root), finder: PlaceFinder(client: { nil }, library: library), send: sink,
                                  tasks: tasks, openLink: { opened.add($0); return nil })
        handler.save(PinDraft(id: nil, title: "Ferry dock", note: nil, link: "https://example.com", point: GeoPoint(longitude: -70, latitude: 44),
                              accuracy: 4.5))
        let pins = try await recorder.first { if case .pins(.pinsLoaded(let pins, nil)) = $0, !pins.isEmpty { pins } else { nil } }
        #expect(pins.map(\.title) == ["Ferry dock"] && pins.first?.accuracy == 4.5)
        handler.open("https://example.com")
        _ = try await recorder.first { if case .pins(.linkOpened(nil)) = $0 { true } else { nil } }
        #expect(opened.links == ["https://example.com"])
    }

    @Test func signingInNeedsAConnectionThenUsesTheCommandsWay() async throws {
        let connection = PortalConnection()
        let handler = SignInHandler(connection: connection, signIn: { _, username, _ in username.uppercased() }, send: sink, tasks: tasks)
        handler.signIn(request: 1, username: "demo", password: "x")
        #expect(try await recorder.first { if case .signIn(.signInFailed(1, let sentence)) = $0 { sentence } else { nil } } == LoadFailure.notConnected.sentence)
        connection.client = unusedClient
        handler.signIn(request: 2, username: "demo", password: "x")
        #expect(try await recorder.first { if case .signIn(.signedIn(2, let user)) = $0 { user } else { nil } } == "DEMO")
    }

    @Test func theDirectoryListsRecentFromThisDeviceAndAsksThePortalForTheRest() async throws {
        let recent = RecentWebMaps(path: root + "/recent.json")
        recent.remember(RecentWebMap(portal: "http://127.0.0.1:9", id: ItemID.exploreMaine.rawValue, title: "Explore Maine", opened: Date()))
        let handler = WebMapDirectoryHandler(connection: PortalConnection(), recent: recent, library: library, send: sink, tasks: tasks)
        handler.load(WebMapsRequest(tab: .recent))
        let page = try await recorder.first { if case .maps(.mapsLoaded(_, .success(let page))) = $0 { page } else { nil } }
        #expect(page.listings.map(\.title) == ["Explore Maine"])
        handler.load(WebMapsRequest(tab: .search))
        let failure = try await recorder.first { if case .maps(.mapsLoaded(_, .failure(let failure))) = $0 { failure } else { nil } }
        #expect(failure == .notConnected)
    }

    /// A notice's expiry comes back as an event once it has been shown long enough.
    @Test func aNoticeExpiresAfterItsTime() async throws {
        // The runtime's clock, here a test's: the wait is asked of it, and it answers at once.
        let waits = Mutex<[Duration]>([])
        let clock = AppClock(now: { .now }, sleep: { duration in waits.withLock { $0.append(duration) } })
        let runtime = Runtime(library: library, clock: clock) { throw CancellationError() }
        let recorder = recorder
        runtime.attach { recorder.events.append($0) }
        runtime.perform(.expireNotice(3))
        #expect(try await recorder.first { if case .noticeExpired(let serial) = $0 { serial } else { nil } } == 3)
        #expect(waits.withLock { $0 } == [Notice.fadesAfter])
        await runtime.shutdown()
    }

    /// The Packages tab takes a package from the fleet mirror that holds it, as `mapbook download`
    /// does: here with the portal stopped, so the item's description comes from the mirror too.
    @Test func thePackagesTabDownloadsThroughTheFleetMirror() async throws {
        let portal = try SampleFixture.start()
        let client = PortalClient(portal: portal.baseURL)
        let folder = root + "-mirror", id = try #require(ItemID(SampleMobilePackage.id))
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = try await MirrorStage(client: client, directory: folder, content: .mobileMapPackage(id), includePrivate: false).run()
        let bucket = try StaticFolderServer(folder: folder)
        defer { bucket.stop() }
        portal.stop()
        let connection = PortalConnection()
        connection.client = client
        let handler = PackagesHandler(connection: connection, root: root, mirror: Mirror(url: bucket.server.baseURL), send: sink, tasks: tasks)
        handler.download(id, title: SampleMobilePackage.title)
        let result = try await recorder.first { if case .packages(.packageDownloaded(id, _, let result)) = $0 { result } else { nil } }
        let listing = try result.get()
        #expect(FileManager.default.fileExists(atPath: try #require(listing.path)), "\(listing)")
        #expect(bucket.requests.contains("/sharing/rest/content/items/\(id.rawValue)/data"), "\(bucket.requests)")
    }

    /// `Effect.cancel` stops the task answering a request: a keystroke's suggestions replaced by
    /// the next never arrive, the next's do.
    @Test func aCancelledRequestIsNeverAnswered() async throws {
        let runtime = Runtime(library: library) { throw URLError(.notConnectedToInternet) }
        let recorder = recorder
        runtime.attach { recorder.events.append($0) }
        runtime.perform(.search(.suggestPlaces("bang", request: 1, near: nil, online: false)))
        runtime.perform(.cancel(1))
        runtime.perform(.search(.suggestPlaces("bango", request: 2, near: nil, online: false)))
        _ = try await recorder.first { if case .search(.placeSuggestions(2, _, _)) = $0 { true } else { nil } }
        #expect(!recorder.events.contains { if case .search(.placeSuggestions(1, _, _)) = $0 { true } else { false } })
        await runtime.shutdown()
    }

    /// While a full screen holds background work for its first frame, the portal is not asked
    /// (so libcurl is not loaded beside the drawing) until the frame is shown.
    @Test func thePortalWaitsForTheFirstFrameWhenHeld() async throws {
        @UIActor final class Asked { var times = 0 }
        let asked = Asked()
        let runtime = Runtime(library: library) { @UIActor in
            asked.times += 1
            throw URLError(.notConnectedToInternet)
        }
        let recorder = recorder
        runtime.attach { recorder.events.append($0) }
        runtime.holdBackgroundWorkUntilShown(atMost: .seconds(600))
        runtime.perform(.catalog(.readLibrary))
        runtime.perform(.catalog(.loadWebMap))
        _ = try await recorder.first { if case .catalog(.libraryRead) = $0 { true } else { nil } }
        // Time for a connection that did not wait to be asked for.
        try await Task.sleep(for: .milliseconds(50))
        #expect(asked.times == 0, "asked before the frame was shown")
        runtime.shown()
        // Then at once: the load fails (the fake portal cannot be reached) having asked.
        _ = try await recorder.first { if case .catalog(.webMapFailed) = $0 { true } else { nil } }
        #expect(asked.times == 1)
        await runtime.shutdown()
    }

    /// However many tasks are under way — a connection that never comes, a download lane — none
    /// is left running once `shutdown` returns.
    @Test func shutdownLeavesNoTaskRunning() async throws {
        let runtime = Runtime(library: library) {
            try await Task.sleep(for: .seconds(600))
            throw CancellationError()
        }
        runtime.perform(.catalog(.readLibrary))
        runtime.perform(.catalog(.loadWebMap))
        runtime.perform(.pins(.loadPins))
        runtime.perform(.search(.suggestPlaces("bang", request: 1, near: nil, online: false)))
        #expect(runtime.runningTasks > 0)
        await runtime.shutdown()
        #expect(runtime.runningTasks == 0)
    }
}

/// Links handed to the fake browser, from whichever thread.
final class OpenedLinks: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ link: String) { lock.withLock { list.append(link) } }
    var links: [String] { lock.withLock { list } }
}
