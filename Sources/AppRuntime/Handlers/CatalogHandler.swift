import AppModel
import ArcGISPortal
import Connectivity
import EventLoop
import Foundation
import HTTP
import MapbookCore
import OfflineLibrary
import ArcGISModel
import UserFiles
import LibraryModel
import MapbookServices

/// The web map and its areas: the library read at start (no network), the portal connected (and,
/// once it is, the download queue and the network monitor started, each feeding events), the
/// catalogue loaded — shown as it fills in for a long listing — and kept for offline use, the
/// web map remembered as opened, and the thumbnails synced.
@UIActor
final class CatalogHandler {
    private let library: OfflineLibrary
    private let http: HTTPClient
    private let connect: Runtime.Connect
    private let recent: RecentWebMaps?
    private let networkTimings: NetworkMonitor.Timings
    private let clock: AppClock
    private let connection: PortalConnection
    private let firstFrame: FirstFrameGate
    private let send: EventSink
    private let tasks: TaskTracker

    private var monitor: NetworkMonitor?
    private var reading: Task<Void, Never>?
    private var loading: Task<Void, Never>?
    /// The web map's item and data while its areas are still being listed.
    private var listingHead: (PortalItem, JSONValue)?
    private var lastActivityNote = ContinuousClock.now - .seconds(10)

    init(library: OfflineLibrary, http: HTTPClient, connect: @escaping Runtime.Connect, recent: RecentWebMaps?,
         networkTimings: NetworkMonitor.Timings, clock: AppClock = .system, connection: PortalConnection, firstFrame: FirstFrameGate = FirstFrameGate(),
         send: EventSink, tasks: TaskTracker) {
        self.library = library; self.http = http; self.connect = connect; self.recent = recent
        self.networkTimings = networkTimings; self.clock = clock; self.connection = connection; self.firstFrame = firstFrame; self.send = send; self.tasks = tasks
    }

    func readLibrary() {
        let library = library
        reading = tasks.track { [send, firstFrame] in
            let (snapshot, unreadable) = await onWorkPool { Self.snapshot(of: library) }
            send(.catalog(.libraryRead(snapshot)))
            if let unreadable { send(.catalog(.libraryUnreadable(unreadable))) }
            await firstFrame.wait()
            let items = snapshot.catalog.map { [$0.webMapItem] + $0.areas.map(\.item) } ?? []
            let kept = await onWorkPool { Thumbnails.kept(of: items, in: library) }
            if !kept.isEmpty { send(.catalog(.thumbnails(kept))) }
        }
    }

    func loadWebMap() {
        loading?.cancel()
        loading = tasks.track { [weak self] in await self?.load() }
    }

    /// Connects (once) without loading a web map: the Maps card's pages need the client.
    func connectOnly() {
        loading?.cancel()
        loading = tasks.track { [weak self] in
            do { _ = try await self?.connected() } catch {
                guard !Task.isCancelled, !(error is CancellationError), let self else { return }
                self.send(.catalog(.webMapFailed(LoadFailure(error, host: self.connection.client?.host ?? ""))))
            }
        }
    }

    func report(_ network: NetworkState) {
        guard let monitor else { return }
        tasks.track { await monitor.report(network) }
    }

    func checkNetwork() {
        guard let monitor else { return }
        tasks.track { await monitor.check() }
    }

    /// Someone is using the app: the network monitor probes at its active pace (at most once a
    /// second is worth telling it).
    func noteActivity() {
        guard let monitor, ContinuousClock.now - lastActivityNote > .seconds(1) else { return }
        lastActivityNote = .now
        tasks.track { await monitor.activity() }
    }

    /// Downloads pause (their bytes and control files kept, to resume next time); the monitor stops.
    func stop() async {
        await connection.queue?.pauseAll()
        await monitor?.stop()
    }

    // MARK: -

    private func load() async {
        await reading?.value
        do {
            guard let client = try await connected() else { return }
            let id = library.webMapID
            // A long listing's reports come from the portal client's tasks; a tracked task of the
            // UI actor shows them (the newest only), until the whole list is in.
            let (reports, report) = AsyncStream.makeStream(of: ListingReport.self, bufferingPolicy: .bufferingNewest(1))
            defer { report.finish() }
            tasks.track { [weak self] in
                for await next in reports { self?.showListing(next.areas, known: next.known) }
            }
            // From the portal; from the fleet mirror when the portal cannot be reached.
            let (catalog, source) = try await Mirror.preferringPortal(client, mirror: library.mirror) { source in
                async let item = source.webMapItem(id)
                async let data = source.itemDataJSON(id)
                async let listed = source.mapAreas(of: id) { areas, known in report.yield(ListingReport(areas: areas, known: known)) }
                let (webMapItem, webMapData) = (try await item, try await data)
                listingHead = (webMapItem, webMapData)
                let areas = try await listed
                // From here on a late report of the listing is dropped: the whole list follows.
                listingHead = nil
                return (LibraryCatalog(webMapItem: webMapItem, webMapData: webMapData, areas: areas, syncedAt: Date()), source)
            }
            let webMapItem = catalog.webMapItem
            guard !Task.isCancelled else { return }
            let library = library
            let (kept, snapshot) = await onWorkPool { Self.keep(catalog, in: library) }
            await connection.queue?.setKeptLayers(catalog.webMap.keptLayers)
            if let recent {
                let opened = RecentWebMap(portal: client.portalURL.absoluteString, id: webMapItem.id.rawValue,
                                          title: TerminalText.sanitizedLine(webMapItem.title, maxLength: 200), opened: Date())
                await onWorkPool { recent.remember(opened) }
            }
            // Read from the mirror, the header says so.
            let fromMirror = source.portalURL != client.portalURL
            let host = fromMirror ? "mirror \(library.mirror?.host ?? source.host)" : client.host
            send(.catalog(.webMapLoaded(WebMapSnapshot(catalog: catalog, library: snapshot, host: host, fromMirror: fromMirror))))
            if let kept { send(.catalog(.catalogNotKept(kept))) }
            let thumbnails = await library.syncThumbnails(of: [catalog.webMapItem] + catalog.areas.map(\.item), from: client)
            let images = await onWorkPool { Thumbnails.decode(thumbnails) }
            if !images.isEmpty, !Task.isCancelled { send(.catalog(.thumbnails(images))) }
        } catch {
            listingHead = nil
            guard !Task.isCancelled, !(error is CancellationError) else { return }
            send(.catalog(.webMapFailed(LoadFailure(error, host: connection.client?.host ?? ""))))
        }
    }

    private struct ListingReport: Sendable {
        var areas: [MapArea]
        var known: Int
    }

    /// The portal's client, connected the first time (the download queue and network monitor
    /// started, `connected` sent); nil when cancelled meanwhile.
    private func connected() async throws -> PortalClient? {
        if let client = connection.client { return client }
        await firstFrame.wait()
        let client = try await connect()
        guard !Task.isCancelled else { return nil }
        connection.client = client
        startServices(client)
        send(.catalog(.connected(host: client.host)))
        return client
    }

    /// A long listing, shown as it fills in (once the web map's item and data are in).
    private func showListing(_ areas: [MapArea], known: Int) {
        guard let (item, data) = listingHead, loading?.isCancelled == false else { return }
        send(.catalog(.webMapListing(LibraryCatalog(webMapItem: item, webMapData: data, areas: areas, syncedAt: nil), known: known)))
    }

    /// Once connected: the download queue and the network monitor, each feeding events.
    private func startServices(_ client: PortalClient) {
        let queue = DownloadQueue(library: library, client: client, http: http)
        let mirror = library.mirror
        let monitor = NetworkMonitor(timings: networkTimings, watchRoutes: !client.isLoopback, clock: clock) { await Mirror.probe(client, mirror: mirror) }
        connection.queue = queue
        self.monitor = monitor
        tasks.track { [send] in
            for await event in queue.events {
                send(.downloads(.download(event)))
                await monitor.activity()
            }
        }
        tasks.track { [send] in
            for await status in monitor.statuses { send(.catalog(.network(status))) }
        }
    }

    /// What the library holds, and why its catalogue could not be read, if it could not.
    private nonisolated static func snapshot(of library: OfflineLibrary) -> (LibrarySnapshot, String?) {
        let downloads = library.downloadRecords()
        var catalog: LibraryCatalog?, unreadable: String?
        do { catalog = try library.loadCatalog(records: downloads) } catch {
            unreadable = TerminalText.sanitizedLine(error.userSentence, maxLength: 400)
        }
        return (LibrarySnapshot(catalog: catalog, downloads: downloads, partialBytes: library.partialDownloads(),
                                chosenBasemap: library.chosenBasemap(), unsyncedEdits: AreaEditor.unsyncedEdits(in: library)), unreadable)
    }

    /// Keeps the catalogue for offline use (with fsyncs: never on the UI thread); returns why it
    /// could not be kept, if it could not, and the library as it now is.
    private nonisolated static func keep(_ catalog: LibraryCatalog, in library: OfflineLibrary) -> (String?, LibrarySnapshot) {
        var failure: String?
        do { try library.saveCatalog(catalog) } catch {
            failure = TerminalText.sanitizedLine(error.userSentence, maxLength: 300)
        }
        let snapshot = LibrarySnapshot(catalog: nil, downloads: library.downloadRecords(), partialBytes: library.partialDownloads(),
                                       unsyncedEdits: AreaEditor.unsyncedEdits(in: library))
        return (failure, snapshot)
    }
}

extension CatalogHandler {
    /// Does the work `CatalogFeature` asks for.
    func perform(_ effect: CatalogFeature.Effect) {
        switch effect {
        case .readLibrary: readLibrary()
        case .loadWebMap: loadWebMap()
        case .connectPortal: connectOnly()
        case .reportNetwork(let network): report(network)
        case .checkNetwork: checkNetwork()
        }
    }
}
