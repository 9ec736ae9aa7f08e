import AppModel
import ArcGISPortal
import Connectivity
import EventLoop
import Foundation
import MapbookAssets
import HTTP
import MapRender
import MapSources
import MapbookCore
import Observation
import OfflineLibrary
import TileFormats

/// Performs the model's effects and sends their results back as events. It owns the services —
/// the portal client, the download queue, the network monitor, the map tile loaders — and every
/// task it starts, so that `shutdown` can stop them all. It lives on the UI actor, but what takes
/// time (the network, the disk, decoding, drawing) runs elsewhere and comes back as an event.
/// Download commands go through one ordered lane: a cancel never overtakes the enqueue before it.
@UIActor
public final class Runtime {
    /// Gives the portal client; may take time (starting the sample portal) or fail.
    public typealias Connect = @Sendable () async throws -> PortalClient
    /// Signs the client in with a username and password (and keeps the sign-in); returns the
    /// user's name. The client shares its session with every copy, the download queue's too.
    public typealias SignIn = @Sendable (_ client: PortalClient, _ username: String, _ password: String) async throws -> String

    private let library: OfflineLibrary
    private let http: HTTPClient
    private let connect: Connect
    private let signIn: SignIn?
    /// Where the web maps opened are remembered (the browser's, not the tests').
    private let recent: RecentWebMaps?
    private let networkTimings: NetworkMonitor.Timings
    /// `mapbook open FILE`: the map source the app was started with.
    private let givenSource: (any MapSource)?
    private var deliver: (Event) -> Void = { _ in }

    private var client: PortalClient?
    private var queue: DownloadQueue?
    private var monitor: NetworkMonitor?
    /// The open map: its session, its layers once they are open, and its operational layers once
    /// those are (one map at a time).
    private var map: (session: Int, stack: MapStack?, features: [FeatureLayerLoader], featureProblems: [String])?
    /// The overview's sources and the layers of the one that drew (new sources get new loaders).
    private var overview: (sources: [MapSourceChoice], stack: MapStack)?
    private var reading: Task<Void, Never>?
    /// The suggestions asked for last: a newer keystroke cancels it, even in flight.
    private var suggesting: Task<Void, Never>?
    /// The portal's geocoder, once found.
    private var geocoder: GeocodeService?
    /// The bundled named places, read the first time `w` needs them offline.
    private var gazetteer: Gazetteer?
    /// The names on this device (downloaded packages and the bundled places), and the downloads
    /// they were read from: a new download means reading again.
    private var places: (downloads: Set<ItemID>, index: PlaceIndex)?
    private var loading: Task<Void, Never>?
    private var tasks: [Int: Task<Void, Never>] = [:]
    private var taskCount = 0
    private let lane: AsyncStream<@Sendable () async -> Void>.Continuation
    private var lastActivityNote = ContinuousClock.now - .seconds(10)

    public init(library: OfflineLibrary, http: HTTPClient = HTTPClient(), networkTimings: NetworkMonitor.Timings = .standard,
                source: (any MapSource)? = nil, signIn: SignIn? = nil, recent: RecentWebMaps? = nil, connect: @escaping Connect) {
        self.library = library; self.http = http; self.networkTimings = networkTimings
        self.givenSource = source; self.connect = connect; self.signIn = signIn; self.recent = recent
        let (jobs, lane) = AsyncStream.makeStream(of: (@Sendable () async -> Void).self)
        self.lane = lane
        track { for await job in jobs { await job() } }
    }

    /// Where events go: the program that owns this runtime.
    func attach(_ deliver: @escaping (Event) -> Void) { self.deliver = deliver }

    private func emit(_ event: Event) { deliver(event) }

    public func perform(_ effect: Effect) {
        switch effect {
        case .readLibrary:
            let library = library
            reading = track { [weak self] in
                let (snapshot, unreadable) = await onWorkPool { await Self.snapshot(of: library) }
                self?.deliver(.libraryRead(snapshot))
                if let unreadable { self?.deliver(.libraryUnreadable(unreadable)) }
                let items = snapshot.catalog.map { [$0.webMapItem] + $0.areas.map(\.item) } ?? []
                let kept = await onWorkPool { await Self.keptThumbnails(of: items, in: library) }
                if !kept.isEmpty { self?.deliver(.thumbnails(kept)) }
            }
        case .loadWebMap:
            loading?.cancel()
            loading = track { [weak self] in await self?.load() }
        case .download(let area):
            inLane { queue in await queue?.enqueue(area) }
        case .cancelDownload(let id):
            inLane { queue in await queue?.cancel(id) }
        case .discardPartialDownload(let id):
            let library = library
            inLane { _ in library.removePartialDownload(id) }
        case .removeDownload(let id, let title):
            let library = library
            inLane { [weak self] queue in
                do {
                    if let queue { try await queue.remove(id, title: title) } else { try library.removeDownload(id, title: title) }
                    await self?.emit(.removed(id))
                } catch {
                    await self?.emit(.removeFailed(id, TerminalText.sanitizedLine(error.userSentence, maxLength: 400)))
                }
            }
        case .pauseDownloads:
            inLane { queue in await queue?.pauseAll() }
        case .reportNetwork(let network):
            guard let monitor else { return }
            track { await monitor.report(network) }
        case .checkNetwork:
            guard let monitor else { return }
            track { await monitor.check() }
        case .openMap(let session, let choice):
            map = (session, nil, [], [])
            track { [weak self] in await self?.openMap(session: session, choice) }
        case .openFeatureLayers(let session, let layers):
            track { [weak self] in await self?.openFeatureLayers(session: session, layers) }
        case .drawMap(let session, let request):
            guard let stack = drawable(session) else { return }
            track { [weak self] in
                let image = await onWorkPool { await stack.render(request) }
                self?.deliver(.mapDrawn(session: session, image))
            }
        case .identify(let session, let point, let request, let id):
            guard let stack = drawable(session) else { return }
            track { [weak self] in
                let hits = await onWorkPool { await stack.identify(at: point, request: request) }
                self?.deliver(.identified(session: session, id: id, hits))
            }
        case .closeMap(let session):
            if map?.session == session { map = nil }
        case .drawOverview(let request, let sources):
            track { [weak self] in await self?.drawOverview(request, sources: sources) }
        case .loadBasemapGallery:
            guard let client else {
                deliver(.basemapGallery(.failure(LoadFailure(sentence: "Not connected to the portal yet.", network: .unknown, host: ""))))
                return
            }
            track { [weak self] in
                do {
                    let choices = try await client.basemapGallery()
                    self?.deliver(.basemapGallery(.success(choices)))
                } catch {
                    self?.deliver(.basemapGallery(.failure(LoadFailure(sentence: error.userSentence,
                                                                       network: (error as? HTTPError)?.networkState ?? .online,
                                                                       host: client.host))))
                }
            }
        case .suggestPlaces(let text, let request, let near, let online):
            suggesting?.cancel()
            suggesting = track { [weak self] in
                // Typing on within the pause asks again, and this request never goes out.
                try? await Task.sleep(for: .milliseconds(150))
                guard !Task.isCancelled, let self else { return }
                if online, case .success(let suggestions) = await self.geocode({ client, service in
                    try await client.suggest(text, near: near, using: service)
                }) {
                    guard !Task.isCancelled else { return }
                    self.deliver(.placeSuggestions(request: request, .success(suggestions), offline: false))
                    return
                }
                // Offline, or the geocoder failed: the names on this device.
                let places = await self.offlinePlaces().search(text, near: near, limit: 8)
                guard !Task.isCancelled else { return }
                self.deliver(.placeSuggestions(request: request, .success(places.map { GeocodeSuggestion(text: $0.name, magicKey: nil) }),
                                               offline: true))
            }
        case .describePlace(let point, let request, let online):
            track { [weak self] in
                guard let self else { return }
                var problem: String?
                if online {
                    switch await self.geocode({ client, service in try await client.reverseGeocode(point, using: service) }) {
                    case .success(let address?):
                        self.deliver(.placeDescribed(request: request, .address(address.label)))
                        return
                    case .success(nil): break
                    case .failure(let failure): problem = failure.sentence
                    }
                }
                let near = await self.nearestNamedPlace(to: point)
                self.deliver(.placeDescribed(request: request, near.map {
                    .near(name: $0.place.name, meters: $0.meters, direction: $0.direction, geocoderProblem: problem)
                } ?? .nothing))
            }
        case .loadMaps(let request):
            let (client, recent, library) = (client, recent, library)
            track { [weak self] in
                let result = await Self.maps(request, client: client, recent: recent, library: library)
                self?.deliver(.mapsLoaded(request, result))
            }
        case .loadMapThumbnails(let listings):
            let (client, library) = (client, library)
            track { [weak self] in
                let images = await Self.thumbnails(of: listings, client: client, library: library)
                if !images.isEmpty { self?.deliver(.thumbnails(images)) }
            }
        case .signIn(let username, let password):
            guard let client, let signIn else {
                deliver(.signInFailed(client == nil ? "Not connected to the portal yet." : "This portal is signed in to with mapbook auth login."))
                return
            }
            track { [weak self] in
                do {
                    self?.deliver(.signedIn(username: try await signIn(client, username, password)))
                } catch {
                    self?.deliver(.signInFailed(error.userSentence))
                }
            }
        case .loadPins:
            let store = PinStore(root: library.root)
            track { [weak self] in
                let (pins, problem) = await onWorkPool { () -> ([Pin], String?) in
                    do { return (try store.load(), nil) } catch { return ((try? store.load()) ?? [], error.userSentence) }
                }
                self?.deliver(.pinsLoaded(pins, problem: problem))
            }
        case .savePin(let draft):
            let store = PinStore(root: library.root)
            track { [weak self] in
                let result = await onWorkPool { () -> Result<[Pin], PinError> in
                    do {
                        if let id = draft.id {
                            try store.update(id, title: draft.title, note: draft.note, link: draft.link)
                        } else {
                            try store.add(title: draft.title, note: draft.note, link: draft.link, at: draft.point)
                        }
                        return .success(try store.load())
                    } catch {
                        return .failure(PinError(error.userSentence))
                    }
                }
                switch result {
                case .success(let pins): self?.deliver(.pinsLoaded(pins, problem: nil))
                case .failure(let error): self?.deliver(.pinNotSaved(error.userMessage))
                }
            }
        case .deletePin(let id):
            let store = PinStore(root: library.root)
            track { [weak self] in
                let (pins, problem) = await onWorkPool { () -> ([Pin], String?) in
                    do { _ = try store.remove(id); return (try store.load(), nil) } catch { return ((try? store.load()) ?? [], error.userSentence) }
                }
                self?.deliver(.pinsLoaded(pins, problem: problem))
            }
        case .describePins(let pins):
            track { [weak self] in
                guard let self else { return }
                var places: [String: String] = [:]
                for pin in pins {
                    let point = GeoPoint(longitude: pin.longitude, latitude: pin.latitude)
                    guard case .success(let address?) = await self.geocode({ client, service in try await client.reverseGeocode(point, using: service) })
                    else { continue }
                    places[pin.id] = address.label
                }
                if !places.isEmpty { self.deliver(.pinPlaces(places)) }
            }
        case .openLink(let link):
            track { [weak self] in
                let problem = await onWorkPool { LinkOpener.open(link) }
                self?.deliver(.linkOpened(problem: problem))
            }
        case .findPlaces(let text, let magicKey, let request, let near, let online):
            suggesting?.cancel()
            track { [weak self] in
                guard let self else { return }
                if online, case .success(let found) = await self.geocode({ client, service in
                    try await client.findCandidates(text, magicKey: magicKey, near: near, limit: 5, using: service)
                }), !found.isEmpty {
                    self.deliver(.placesFound(request: request, .success(found)))
                    return
                }
                let places = await self.offlinePlaces().search(text, near: near, limit: 5)
                self.deliver(.placesFound(request: request, .success(places.map {
                    GeocodeCandidate(label: $0.name, location: $0.point, score: 100, extent: nil, type: "on this device")
                })))
            }
        case .rememberBasemap(let basemap):
            let library = library
            track { [weak self] in
                do { try await onWorkPool { try library.saveChosenBasemap(basemap) } } catch {
                    self?.deliver(.libraryUnreadable("The basemap choice could not be kept: \(error.userSentence)"))
                }
            }
        }
    }

    /// Someone is using the app: the network monitor probes at its active pace (at most once a
    /// second is worth telling it).
    public func noteActivity() {
        guard let monitor, ContinuousClock.now - lastActivityNote > .seconds(1) else { return }
        lastActivityNote = .now
        track { await monitor.activity() }
    }

    /// Stops downloads (their bytes and control files kept, to resume next time), the network
    /// monitor, and every task, and waits until they have stopped.
    public func shutdown() async {
        await queue?.pauseAll()
        await monitor?.stop()
        lane.finish()
        let running = tasks.values
        for task in running { task.cancel() }
        for task in running { await task.value }
    }

    // MARK: Loading

    private func load() async {
        await reading?.value
        do {
            let client: PortalClient
            if let connected = self.client {
                client = connected
            } else {
                client = try await connect()
                guard !Task.isCancelled else { return }
                self.client = client
                startServices(client)
                deliver(.connected(host: client.host))
            }
            let id = library.webMapID
            async let item = client.webMapItem(id)
            async let data = client.itemDataJSON(id)
            async let listed = client.mapAreas(of: id) { [weak self] areas, known in
                Task { @UIActor [weak self] in self?.showListing(areas, known: known) }
            }
            let (webMapItem, webMapData) = (try await item, try await data)
            listingHead = (webMapItem, webMapData)
            let areas = try await listed
            // From here on a late report of the listing is dropped: the whole list follows.
            listingHead = nil
            let catalog = LibraryCatalog(webMapItem: webMapItem, webMapData: webMapData, areas: areas, syncedAt: Date())
            guard !Task.isCancelled else { return }
            let (kept, snapshot) = await onWorkPool { await Self.keep(catalog, in: library) }
            await queue?.setFeatureLayers(catalog.webMap.featureLayers)
            if let recent {
                let opened = RecentWebMap(portal: client.portalURL.absoluteString, id: webMapItem.id.rawValue,
                                          title: TerminalText.sanitizedLine(webMapItem.title, maxLength: 200), opened: Date())
                await onWorkPool { recent.remember(opened) }
            }
            deliver(.webMapLoaded(WebMapSnapshot(catalog: catalog, library: snapshot, host: client.host)))
            if let kept { deliver(.catalogNotKept(kept)) }
            let thumbnails = await library.syncThumbnails(of: [catalog.webMapItem] + catalog.areas.map(\.item), from: client)
            let images = await onWorkPool { await Self.decodeThumbnails(thumbnails) }
            if !images.isEmpty, !Task.isCancelled { deliver(.thumbnails(images)) }
        } catch {
            listingHead = nil
            guard !Task.isCancelled, !(error is CancellationError) else { return }
            let needsSignIn = error is SignInError || (error as? PortalError).map { [.tokenRequired, .invalidToken].contains($0.kind) } ?? false
            deliver(.webMapFailed(LoadFailure(sentence: error.userSentence, network: (error as? HTTPError)?.networkState ?? .online,
                                              host: client?.host ?? "", needsSignIn: needsSignIn)))
        }
    }

    /// The web map's item and data while its areas are still being listed.
    private var listingHead: (PortalItem, JSONValue)?

    /// A long listing, shown as it fills in (once the web map's item and data are in).
    private func showListing(_ areas: [MapArea], known: Int) {
        guard let (item, data) = listingHead, loading?.isCancelled == false else { return }
        deliver(.webMapListing(LibraryCatalog(webMapItem: item, webMapData: data, areas: areas, syncedAt: nil), known: known))
    }

    /// Once connected: the download queue and the network monitor, each feeding events.
    private func startServices(_ client: PortalClient) {
        let queue = DownloadQueue(library: library, client: client, http: http)
        let monitor = NetworkMonitor(timings: networkTimings, watchRoutes: !client.isLoopback) { await client.probe() }
        self.queue = queue
        self.monitor = monitor
        track { [weak self] in
            for await event in queue.events {
                self?.deliver(.download(event))
                await monitor.activity()
            }
        }
        track { [weak self] in
            for await progress in queue.progress { self?.deliver(.downloadProgress(progress)) }
        }
        track { [weak self] in
            for await status in monitor.statuses { self?.deliver(.network(status)) }
        }
    }

    // MARK: Maps

    private func openMap(session: Int, _ choice: MapSourceChoice) async {
        do {
            let (library, http, given) = (library, http, givenSource)
            let stack = try await onWorkPool { try await Self.stack(for: choice, given: given, library: library, http: http) }
            // A map closed (or replaced) while its source opened keeps no loader.
            guard map?.session == session else { return }
            map?.stack = stack
            deliver(.mapOpened(session: session, MapSourceSummary(layerNames: stack.layerNames, extent: stack.extent,
                                                                  problems: stack.problems, legend: stack.legend())))
        } catch {
            guard !Task.isCancelled else { return }
            deliver(.mapOpenFailed(session: session, error.userSentence))
        }
    }

    /// The open map of `session` with its operational layers, once its basemap is open.
    private func drawable(_ session: Int) -> MapStack? {
        guard let map, map.session == session, var stack = map.stack else { return nil }
        stack.features = map.features
        // Layers that could not be opened are named in every drawing's footer, not only the first.
        stack.problems += map.featureProblems
        return stack
    }

    private func openFeatureLayers(session: Int, _ layers: OperationalLayers) async {
        let (library, client) = (library, client)
        let (loaders, problems) = await onWorkPool { await OperationalLayerLoaders.open(layers, library: library, client: client) }
        guard map?.session == session else { return }
        map?.features = loaders
        map?.featureProblems = problems
        var legend: [String: [LegendEntry]] = [:]
        for loader in loaders { legend[loader.title] = MapLegend.entries(for: loader.info) }
        deliver(.featureLayersOpened(session: session, FeatureLayersSummary(titles: loaders.map(\.title),
                                                                            hidden: loaders.filter { !$0.initiallyVisible }.map(\.title),
                                                                            legend: legend, problems: problems)))
    }

    private func drawOverview(_ request: MapRequest, sources: [MapSourceChoice]) async {
        if let overview, overview.sources == sources {
            let stack = overview.stack
            deliver(.overviewDrawn(await onWorkPool { await stack.render(request) }))
            return
        }
        // The first source that opens and draws something; none: the pane keeps the outline.
        let (library, http) = (library, http)
        for source in sources {
            guard let stack = try? await onWorkPool({ try await Self.stack(for: source, given: nil, library: library, http: http) }) else {
                continue
            }
            let image = await onWorkPool { await stack.render(request) }
            guard image.report.featuresDrawn + image.report.rasterTilesDrawn > 0 else { continue }
            overview = (sources, stack)
            deliver(.overviewDrawn(image))
            return
        }
        deliver(.overviewDrawn(nil))
    }

    /// The nearest of the bundled places (Maine's, and the world's cities), read once, off the UI thread.
    private func nearestNamedPlace(to point: GeoPoint) async -> (place: PlaceName, meters: Double, direction: String)? {
        if gazetteer == nil { gazetteer = await onWorkPool { Gazetteer(places: MapbookAssets.placeNames()) } }
        return gazetteer?.nearest(to: point)
    }

    /// The index of the names on this device, read (off the UI thread) when the downloads changed.
    private func offlinePlaces() async -> PlaceIndex {
        let library = library
        let downloads = await onWorkPool { Set(library.downloadRecords().keys) }
        if let places, places.downloads == downloads { return places.index }
        let index = await onWorkPool { PlaceIndex(places: library.downloadedPlaceNames() + MapbookAssets.placeNames()) }
        places = (downloads, index)
        return index
    }

    /// A geocoder operation, the geocoder found through the portal the first time; failures as
    /// one sentence.
    private func geocode<T: Sendable>(_ operation: @Sendable (PortalClient, GeocodeService) async throws -> T) async -> Result<T, LoadFailure> {
        guard let client else { return .failure(LoadFailure(sentence: "Not connected to the portal yet.", network: .unknown, host: "")) }
        do {
            let service: GeocodeService
            if let geocoder { service = geocoder } else {
                service = try await client.geocodeService()
                geocoder = service
            }
            return .success(try await operation(client, service))
        } catch {
            return .failure(LoadFailure(sentence: error.userSentence, network: (error as? HTTPError)?.networkState ?? .online, host: client.host))
        }
    }

    // MARK: Off the UI thread

    /// A page of the Maps card. Recent is read from this device: the web maps opened lately on this
    /// portal, then the others with areas downloaded here; the other tabs ask the portal.
    private nonisolated static func maps(_ request: MapsRequest, client: PortalClient?, recent: RecentWebMaps?,
                                         library: OfflineLibrary) async -> Result<MapsPage, LoadFailure> {
        if request.tab == .recent {
            let local = await onWorkPool { OfflineLibrary.recentWebMaps(recent?.all() ?? [], root: library.root, portalKey: library.portalKey) }
            return .success(MapsPage(local.map { map in
                let item = map.kept?.item
                return MapListing(id: map.id, title: map.title, owner: item?.owner, modified: map.opened ?? item?.modified,
                                  offline: item?.isOfflineEnabled, thumbnail: item?.thumbnail, downloadedAreas: map.kept?.downloadedAreas ?? 0)
            }))
        }
        guard let client else { return .failure(LoadFailure(sentence: "Not connected to the portal yet.", network: .unknown, host: "")) }
        guard client.isSignedIn || request.tab == .search else {
            return .failure(LoadFailure(sentence: "Sign in to see your content and groups: S, or mapbook auth login.", network: .online,
                                        host: client.host, needsSignIn: true))
        }
        do {
            var cursor = request.cursor ?? WebMapCursor(sources: [])
            if request.cursor == nil, request.tab == .mine { cursor = try await client.myContent() }
            if request.cursor == nil, request.tab == .groups { cursor = try await client.myGroups() }
            let page = try await client.webMaps(from: cursor, atLeast: mapsPageSize)
            let kept = await onWorkPool { OfflineLibrary.keptWebMaps(root: library.root, portalKey: library.portalKey) }
            let downloaded = Dictionary(kept.map { ($0.item.id, $0.downloadedAreas) }, uniquingKeysWith: { first, _ in first })
            return .success(MapsPage(page.maps.map { map in
                MapListing(id: map.item.id, title: map.item.title, owner: map.item.owner, modified: map.item.modified,
                           offline: map.item.isOfflineEnabled, folder: map.place, thumbnail: map.item.thumbnail,
                           downloadedAreas: downloaded[map.item.id] ?? 0)
            }, next: page.next))
        } catch {
            return .failure(LoadFailure(sentence: error.userSentence, network: (error as? HTTPError)?.networkState ?? .online, host: client.host))
        }
    }

    /// Web maps asked for at a time by the Maps card: a screenful or two.
    nonisolated static let mapsPageSize = 50

    /// The listings' thumbnails: the one kept with the web map's library, else the portal's.
    private nonisolated static func thumbnails(of listings: [MapListing], client: PortalClient?,
                                               library: OfflineLibrary) async -> [ItemID: RasterImage] {
        // One at a time, each decoded and shrunk as it comes: only one thumbnail's bytes (2 MiB at
        // most) are ever held, however many web maps a page lists.
        var images: [ItemID: RasterImage] = [:]
        for listing in listings {
            if Task.isCancelled { break }
            let own = OfflineLibrary(root: library.root, portalKey: library.portalKey, webMap: listing.id)
            var bytes = await onWorkPool { own.thumbnail(for: listing.id) }
            if bytes == nil, let client, let name = listing.thumbnail {
                bytes = try? await client.thumbnail(of: listing.id, named: name)
            }
            guard let found = bytes else { continue }
            images.merge(await onWorkPool { await decodeThumbnails([listing.id: found]) }) { _, new in new }
        }
        return images
    }

    private nonisolated static func stack(for choice: MapSourceChoice, given: (any MapSource)?, library: OfflineLibrary,
                                          http: HTTPClient) async throws -> MapStack {
        switch choice {
        case .package(let area, let package):
            return MapStack(try PackageMapSource(path: library.packagePath(area, package)))
        case .basemap(let basemap):
            return try await MapStack.connect(basemap, http: http, cacheDirectory: library.tileCacheDirectory)
        case .given:
            guard let given else { throw MapSourceError("No map was given to open.") }
            return MapStack(given)
        }
    }

    /// What the library holds, and why its catalogue could not be read, if it could not.
    private nonisolated static func snapshot(of library: OfflineLibrary) async -> (LibrarySnapshot, String?) {
        let downloads = library.downloadRecords()
        var catalog: LibraryCatalog?, unreadable: String?
        do { catalog = try library.loadCatalog(records: downloads) } catch {
            unreadable = TerminalText.sanitizedLine(error.userSentence, maxLength: 400)
        }
        return (LibrarySnapshot(catalog: catalog, downloads: downloads, partialBytes: library.partialDownloads(),
                                chosenBasemap: library.chosenBasemap()), unreadable)
    }

    /// Keeps the catalogue for offline use (with fsyncs: never on the UI thread); returns why it
    /// could not be kept, if it could not, and the library as it now is.
    private nonisolated static func keep(_ catalog: LibraryCatalog, in library: OfflineLibrary) async -> (String?, LibrarySnapshot) {
        var failure: String?
        do { try library.saveCatalog(catalog) } catch {
            failure = TerminalText.sanitizedLine(error.userSentence, maxLength: 300)
        }
        let snapshot = LibrarySnapshot(catalog: nil, downloads: library.downloadRecords(), partialBytes: library.partialDownloads())
        return (failure, snapshot)
    }

    private nonisolated static func keptThumbnails(of items: [PortalItem], in library: OfflineLibrary) async -> [ItemID: RasterImage] {
        await decodeThumbnails(Dictionary(items.compactMap { item in library.thumbnail(for: item.id).map { (item.id, $0) } },
                                          uniquingKeysWith: { first, _ in first }))
    }

    /// Decoded and shrunk, so drawing them each frame costs little. A broken thumbnail keeps its
    /// placeholder; it is not worth a message.
    private nonisolated static func decodeThumbnails(_ data: [ItemID: Data]) async -> [ItemID: RasterImage] {
        var images: [ItemID: RasterImage] = [:]
        for (id, bytes) in data {
            guard let image = try? RasterImage(decoding: bytes) else { continue }
            images[id] = ImageArt.shrunk(image, toFit: 64, 48)
        }
        return images
    }

    // MARK: Tasks

    /// Starts a task the runtime keeps until it ends, so shutdown can stop and await it.
    @discardableResult
    private func track(_ body: @escaping @UIActor () async -> Void) -> Task<Void, Never> {
        taskCount += 1
        let id = taskCount
        let task = Task { @UIActor [weak self] in
            await body()
            self?.tasks[id] = nil
        }
        tasks[id] = task
        return task
    }

    /// Runs `job` after every download command sent before it has run.
    private func inLane(_ job: @escaping @Sendable (DownloadQueue?) async -> Void) {
        let queue = queue
        lane.yield { await job(queue) }
    }
}

/// The program: the state, the one update function, and the runtime that performs what it asks.
/// Front ends send it events and watch `state` (it is observable); they never change the state
/// themselves.
@UIActor
@Observable
public final class Program {
    public private(set) var state: AppState
    @ObservationIgnored private let runtime: Runtime

    public init(state: AppState, runtime: Runtime) {
        self.state = state
        self.runtime = runtime
        runtime.attach { [weak self] event in self?.send(event) }
    }

    public func send(_ event: Event) {
        switch event {
        case .key, .mouse, .intent: runtime.noteActivity()
        default: break
        }
        for effect in App.update(&state, event) { runtime.perform(effect) }
    }

    /// Stops downloads (keeping what arrived, to resume next time) and everything else running.
    public func shutdown() async { await runtime.shutdown() }

    /// Returns once the state has changed: for front ends that react to changes as they happen
    /// (the plain mode) rather than redraw a screen.
    public func nextChange() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            withObservationTracking { _ = state } onChange: { continuation.resume() }
        }
    }
}
