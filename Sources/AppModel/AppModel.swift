import ArcGISPortal
import Foundation
import HTTP
import MapRender
import MapbookCore
import Observation
import MapSources
import OfflineLibrary
import TileFormats

/// The one place that changes what the screen shows. Key presses, mouse events and finished network
/// work all come here; the UI observes `state` and redraws when it changes.
@UIActor
@Observable
public final class AppModel {
    public internal(set) var state: AppState

    /// Gives the portal client; may take time (starting the sample portal) or fail.
    public typealias Connect = @Sendable () async throws -> PortalClient

    @ObservationIgnored private let connect: Connect
    @ObservationIgnored let library: OfflineLibrary
    @ObservationIgnored let http: HTTPClient
    @ObservationIgnored private let networkTimings: NetworkMonitor.Timings
    @ObservationIgnored private var client: PortalClient?
    @ObservationIgnored private var loadTask: Task<Void, Never>?
    @ObservationIgnored private var queue: DownloadQueue?
    @ObservationIgnored private var monitor: NetworkMonitor?
    @ObservationIgnored private var listeners: [Task<Void, Never>] = []
    @ObservationIgnored private var pendingProgress: [ItemID: DownloadProgress] = [:]
    @ObservationIgnored private var progressFlush: Task<Void, Never>?
    @ObservationIgnored private var libraryRead = false
    /// Shown until connected: `.loading`, or what connecting involves.
    @ObservationIgnored private let connectingPhase: LoadPhase
    /// The open map's tiles, and its drawing in progress (see `AppModel+Map`).
    @ObservationIgnored var mapLoader: TileLoader?
    @ObservationIgnored var mapOpening: Task<Void, Never>?
    @ObservationIgnored var mapDrawing: Task<Void, Never>?
    /// A view change arrived while drawing: draw again, with the latest view, when done.
    @ObservationIgnored var mapRedrawWanted = false
    @ObservationIgnored var overviewLoader: TileLoader?
    @ObservationIgnored var overviewDrawing: Task<Void, Never>?
    /// Map drawings started so far (tests and benchmarks check that bursts coalesce).
    @ObservationIgnored public internal(set) var mapDrawCount = 0
    /// Where online basemap tiles are kept; nil for no disk cache.
    @ObservationIgnored let tileCacheDirectory: String?

    /// Progress reaches the screen at most this often (downloads report more often than that).
    static let progressInterval: Duration = .milliseconds(100)

    public init(state: AppState, library: OfflineLibrary, http: HTTPClient = HTTPClient(),
                networkTimings: NetworkMonitor.Timings = .standard, connect: @escaping Connect) {
        self.state = state
        self.library = library
        self.http = http
        self.networkTimings = networkTimings
        self.connect = connect
        connectingPhase = state.phase
        tileCacheDirectory = library.tileCacheDirectory
    }

    /// Reads the library (and the network) only when a portal is being browsed: not for
    /// `mapbook open`, whose map is the whole app.
    private var browsesPortal: Bool { state.map?.isStandalone != true }

    // MARK: Loading

    /// Loads (or reloads) the web map, its areas and their thumbnails. The first time, what the
    /// library kept is shown at once, before the portal answers (or when it cannot).
    public func reload() {
        guard browsesPortal else { return }
        loadTask?.cancel()
        if !libraryRead {
            libraryRead = true
            showLibrary()
        }
        if state.webMapItem == nil {
            state.phase = client == nil ? connectingPhase : .loading
        } else {
            state.message = state.network == .offline ? "Checking the portal…" : "Reloading…"
        }
        loadTask = Task { await load() }
    }

    /// Waits for the current load to finish (tests, benchmarks).
    public func waitForLoad() async { await loadTask?.value }

    /// Stops downloads, keeping what arrived so the next start resumes, and the network monitor.
    public func shutdown() async {
        mapOpening?.cancel()
        mapDrawing?.cancel()
        overviewDrawing?.cancel()
        await queue?.pauseAll()
        await monitor?.stop()
        for listener in listeners { listener.cancel() }
    }

    private func showLibrary() {
        state.downloads = library.downloadRecords()
        let catalog: LibraryCatalog?
        do {
            catalog = try library.loadCatalog(records: state.downloads)
        } catch {
            state.message = TerminalText.sanitizedLine(error.userSentence, maxLength: 400)
            return
        }
        guard let catalog else { return }
        apply(item: catalog.webMapItem, webMap: catalog.webMap, areas: catalog.areas)
        state.lastSynced = catalog.syncedAt
        let items = [catalog.webMapItem] + catalog.areas.map(\.item)
        let kept = items.compactMap { item in library.thumbnail(for: item.id).map { (item.id, $0) } }
        Task { await showThumbnails(kept) }
    }

    private func load() async {
        let id = state.webMapID
        do {
            let client: PortalClient
            if let connected = self.client { client = connected } else { client = try await connect() }
            if self.client == nil {
                self.client = client
                startServices(client)
            }
            state.portalHost = client.host
            if state.webMapItem == nil { state.phase = .loading }
            async let item = client.webMapItem(id)
            async let data = client.itemDataJSON(id)
            async let areas = client.mapAreas(of: id)
            let catalog = LibraryCatalog(webMapItem: try await item, webMapData: try await data,
                                         areas: try await areas, syncedAt: Date())
            guard !Task.isCancelled else { return }
            state.downloads = library.downloadRecords()
            apply(item: catalog.webMapItem, webMap: catalog.webMap, areas: OfflineLibrary.adding(state.downloads, to: catalog.areas))
            state.network = .online
            state.lastSynced = catalog.syncedAt
            await monitor?.report(reachable: true)
            do {
                try library.saveCatalog(catalog)
            } catch {
                state.message = "The list could not be kept for offline use: " + TerminalText.sanitizedLine(error.userSentence, maxLength: 300)
            }
            let thumbnails = await library.syncThumbnails(of: [catalog.webMapItem] + catalog.areas.map(\.item), from: client)
            await showThumbnails(thumbnails.filter { state.thumbnails[$0.key] == nil }.map { ($0.key, $0.value) })
        } catch {
            guard !Task.isCancelled, !(error is CancellationError) else { return }
            fail(error)
        }
    }

    private func apply(item: PortalItem, webMap: WebMap, areas: [MapArea]) {
        let previous = state.selectedRow
        state.webMapItem = DisplayText.item(item)
        state.webMap = DisplayText.webMap(webMap)
        state.areas = areas.map(DisplayText.area)
        state.phase = .loaded
        state.message = nil
        reselect(previous)
        requestOverviewDraw()
    }

    /// After the rows changed: the same row stays selected when it is still shown, else the
    /// selection stays in range; either way it stays in view.
    private func reselect(_ previous: ListRow?) {
        let rows = state.rows
        state.selection = previous.flatMap { rows.firstIndex(of: $0) } ?? min(state.selection, max(rows.count - 1, 0))
        keepSelectionInView()
    }

    private func fail(_ error: any Error) {
        let unreachable = (error as? HTTPError)?.isUnreachable == true
        // Error sentences can quote the server's own message.
        let sentence = TerminalText.sanitizedLine(error.userSentence, maxLength: 400)
        if let monitor { Task { await monitor.report(reachable: !unreachable) } }
        // A portal that answered with an error is reachable.
        setNetwork(unreachable ? .offline : .online)
        if state.webMapItem != nil {
            // What was loaded stays on screen; the status bar says why it is not fresh.
            state.message = unreachable ? Self.offlineMessage : sentence
        } else {
            state.phase = unreachable ? .unreachable(host: state.portalHost) : .failed(sentence)
            state.message = nil
        }
    }

    nonisolated static let offlineMessage = "Offline — showing downloaded areas"

    /// Decoded off the UI thread and shrunk, so drawing them each frame costs little. A broken
    /// thumbnail keeps its placeholder; it is not worth a message.
    private func showThumbnails(_ images: [(ItemID, Data)]) async {
        for (id, data) in images {
            guard let image = await Self.decodeThumbnail(data) else { continue }
            state.thumbnails[id] = image
        }
    }

    nonisolated private static func decodeThumbnail(_ data: Data) async -> RasterImage? {
        guard let image = try? RasterImage(decoding: data) else { return nil }
        return ImageArt.shrunk(image, toFit: 64, 48)
    }

    // MARK: Downloads and the network

    /// Once connected: the download queue and the network monitor, each feeding the model.
    private func startServices(_ client: PortalClient) {
        let queue = DownloadQueue(library: library, client: client, http: http)
        let monitor = NetworkMonitor(timings: networkTimings, watchRoutes: !client.isLoopback) { await client.isReachable() }
        self.queue = queue
        self.monitor = monitor
        listeners.append(Task { [weak self] in
            for await event in queue.events { self?.downloadEvent(event) }
        })
        listeners.append(Task { [weak self] in
            for await status in monitor.statuses { self?.networkChanged(status) }
        })
    }

    private func downloadEvent(_ event: DownloadEvent) {
        switch event {
        case .queued(let id):
            if state.transfers[id] == nil { state.transfers[id] = .queued }
        case .started:
            break
        case .progress(let id, let progress):
            pendingProgress[id] = progress
            if progressFlush == nil {
                progressFlush = Task { [weak self] in
                    try? await Task.sleep(for: Self.progressInterval)
                    self?.flushProgress()
                }
            }
        case .finished(let id, let record):
            pendingProgress[id] = nil
            state.transfers[id] = nil
            state.downloads[id] = record
            state.message = "\(title(of: id)) downloaded · \(Format.bytes(record.size)), verified"
        case .failed(let id, let failure):
            pendingProgress[id] = nil
            if failure.isUnreachable {
                state.transfers[id] = .waitingForNetwork
                if let monitor { Task { await monitor.report(reachable: false) } }
            } else {
                state.transfers[id] = .failed(failure.sentence)
                state.message = "\(title(of: id)): \(failure.sentence)"
            }
        case .cancelled(let id):
            pendingProgress[id] = nil
            state.transfers[id] = nil
            state.message = "Cancelled the download of \(title(of: id))."
        case .paused(let id):
            pendingProgress[id] = nil
            if state.transfers[id] != .waitingForNetwork { state.transfers[id] = nil }
        }
    }

    private func flushProgress() {
        progressFlush = nil
        for (id, progress) in pendingProgress {
            if state.transfers[id]?.isActive == true { state.transfers[id] = .running(progress) }
        }
        pendingProgress = [:]
    }

    private func networkChanged(_ status: NetworkState) {
        let was = state.network
        setNetwork(status)
        if status == .offline, was != .offline {
            if state.webMapItem != nil { state.message = Self.offlineMessage }
            // Downloads wait for the network, keeping their bytes.
            for (id, transfer) in state.transfers where transfer.isActive {
                state.transfers[id] = .waitingForNetwork
            }
            if let queue { Task { await queue.pauseAll() } }
        } else if status == .online, was == .offline {
            state.message = "Back online"
            reload()
            for (id, transfer) in state.transfers where transfer == .waitingForNetwork {
                if let area = state.areas.first(where: { $0.item.id == id }) { startDownload(area) }
            }
        }
    }

    private func setNetwork(_ status: NetworkState) {
        guard status != state.network else { return }
        let previous = state.selectedRow
        state.network = status
        // Going offline hides rows.
        reselect(previous)
    }

    func title(of id: ItemID) -> String {
        state.areas.first { $0.item.id == id }.map { $0.item.title.isEmpty ? "Untitled" : $0.item.title } ?? id.rawValue
    }

    var selectedArea: MapArea? { state.selectedAreaIndex.map { state.areas[$0] } }

    private func startDownload(_ area: MapArea) {
        guard let queue else {
            state.message = "Not connected to the portal yet."
            return
        }
        state.transfers[area.item.id] = .queued
        Task { await queue.enqueue(area) }
    }

    /// `d`: the selected area, unless it is on this device and current already.
    private func download() {
        guard let index = state.selectedAreaIndex else { state.message = "Select a map area to download."; return }
        let area = state.areas[index]
        switch state.status(ofArea: index) {
        case .ready, .failed, .waitingForNetwork:
            guard state.network != .offline else { state.message = "Offline: downloads start when the network is back."; return }
            startDownload(area)
        case .downloaded(_, _, let updateAvailable):
            if updateAvailable { update() } else { state.message = "\(title(of: area.item.id)) is downloaded and up to date." }
        case .queued, .downloading:
            break
        case .packaging, .packagingFailed, .unavailable:
            state.message = "\(title(of: area.item.id)) cannot be downloaded: the portal has not packaged it."
        }
    }

    /// `D`: every area that can be downloaded and is not here (or has an update).
    private func downloadAll() {
        guard state.network != .offline else { state.message = "Offline: downloads start when the network is back."; return }
        var count = 0
        for index in state.areas.indices {
            switch state.status(ofArea: index) {
            case .ready, .failed, .waitingForNetwork, .downloaded(_, _, true):
                startDownload(state.areas[index])
                count += 1
            default: break
            }
        }
        state.message = count == 0 ? "Every area is downloaded and up to date." : "Downloading \(count) map area\(count == 1 ? "" : "s")…"
    }

    /// `u`: downloads the new packages beside the old ones, swapped in once verified.
    private func update() {
        guard let index = state.selectedAreaIndex, case .downloaded(_, _, let available) = state.status(ofArea: index) else {
            state.message = "Only a downloaded area can be updated."
            return
        }
        guard available else { state.message = "No update available: the packages are the portal's latest."; return }
        guard state.network != .offline else { state.message = "Offline: updates start when the network is back."; return }
        startDownload(state.areas[index])
    }

    /// `c`: stops the selected area's download and deletes its partial files.
    private func cancelDownload() {
        guard let area = selectedArea, let transfer = state.transfers[area.item.id] else {
            state.message = "No download to cancel."
            return
        }
        switch transfer {
        case .queued, .running:
            if let queue { Task { await queue.cancel(area.item.id) } }
        case .failed, .waitingForNetwork:
            library.removePartialDownload(area.item.id)
            state.transfers[area.item.id] = nil
            state.message = "Cancelled the download of \(title(of: area.item.id))."
        }
    }

    /// `x`: asks first; removing deletes the packages and any partial download.
    private func askToRemove() {
        guard let area = selectedArea else { return }
        let id = area.item.id
        guard let size = state.downloads[id]?.size ?? library.partialDownloadSize(id) else {
            state.message = "\(title(of: id)) is not on this device."
            return
        }
        state.confirmation = Confirmation(question: "Remove \(title(of: id)) from this device?",
                                          detail: "\(Format.bytes(size)) will be deleted. It can be downloaded again.",
                                          action: .remove(id))
    }

    private func confirm() {
        guard let confirmation = state.confirmation else { return }
        state.confirmation = nil
        switch confirmation.action {
        case .remove(let id):
            let title = title(of: id), library = library
            guard let queue else {
                do throws(LibraryError) {
                    try library.removeDownload(id, title: title)
                    removed(id, title: title)
                } catch {
                    state.message = TerminalText.sanitizedLine(error.userSentence, maxLength: 400)
                }
                return
            }
            // The queue stops the area's download and waits for it before deleting anything.
            Task { [weak self] in
                do throws(LibraryError) {
                    try await queue.remove(id, title: title)
                    self?.removed(id, title: title)
                } catch {
                    self?.state.message = TerminalText.sanitizedLine(error.userSentence, maxLength: 400)
                }
            }
        }
    }

    private func removed(_ id: ItemID, title: String) {
        let previous = state.selectedRow
        state.downloads[id] = nil
        state.transfers[id] = nil
        state.message = "Removed \(title) from this device."
        // Offline, the removed area leaves the list.
        reselect(previous)
    }

    // MARK: Input

    /// A key press: typed into the filter while it is being edited, else looked up in the key map.
    public func handle(_ key: Key) {
        if state.confirmation != nil {
            switch key {
            case .character("y"), .character("Y"), .enter: confirm()
            case .character("n"), .character("N"), .escape, .character("q"): state.confirmation = nil
            default: break
            }
            return
        }
        if state.isEditingFilter {
            switch key {
            case .character(let character):
                state.filterText.append(character)
                filterChanged()
                return
            case .backspace:
                if !state.filterText.isEmpty { state.filterText.removeLast(); filterChanged() }
                return
            case .enter:
                state.isEditingFilter = false
                return
            case .escape:
                state.isEditingFilter = false
                state.filterText = ""
                filterChanged()
                return
            default:
                break
            }
        }
        if let intent = KeyMap.intent(for: key, in: state.screen == .map && !state.showingHelp ? .map : .list) { dispatch(intent) }
    }

    public func dispatch(_ intent: Intent) {
        if state.showingHelp, handleInHelp(intent) { return }
        if state.screen == .map, handleInMap(intent) { return }
        switch intent {
        case .quit: state.isQuitting = true
        case .toggleHelp:
            state.showingHelp.toggle()
            state.documentScroll = 0
        case .refresh:
            // On a failed download, r retries it; anywhere else it reloads.
            if let area = selectedArea, case .failed? = state.transfers[area.item.id] {
                startDownload(area)
            } else {
                reload()
            }
        case .download: download()
        case .downloadAll: downloadAll()
        case .cancelDownload: cancelDownload()
        case .remove: askToRemove()
        case .update: update()
        case .back: back()
        default:
            if state.screen == .details { handleInDetails(intent) } else { handleInMain(intent) }
        }
    }

    /// Help is a document over the screen: keys scroll it; Esc or ? close it.
    private func handleInHelp(_ intent: Intent) -> Bool {
        switch intent {
        case .back, .toggleHelp:
            state.showingHelp = false
            state.documentScroll = 0
            return true
        case .quit:
            return false
        default:
            scrollDocument(intent)
            return true
        }
    }

    private func handleInDetails(_ intent: Intent) {
        if intent == .openMap { openMap() } else { scrollDocument(intent) }
    }

    private func scrollDocument(_ intent: Intent) {
        let page = max(state.layout.documentPage - 1, 1)
        let target: Int
        switch intent {
        case .moveUp: target = state.documentScroll - 1
        case .moveDown: target = state.documentScroll + 1
        case .pageUp: target = state.documentScroll - page
        case .pageDown: target = state.documentScroll + page
        case .top: target = 0
        case .bottom: target = state.layout.documentMaxScroll
        case .scroll(let lines): target = state.documentScroll + lines
        default: return
        }
        state.documentScroll = min(max(target, 0), state.layout.documentMaxScroll)
    }

    private func handleInMain(_ intent: Intent) {
        let count = state.rows.count
        let page = max(state.layout.listCapacity, 1)
        switch intent {
        case .moveUp where state.focus == .overview: moveSpatially(dx: 0, dy: 1)
        case .moveDown where state.focus == .overview: moveSpatially(dx: 0, dy: -1)
        case .moveLeft where state.focus == .overview: moveSpatially(dx: -1, dy: 0)
        case .moveRight where state.focus == .overview: moveSpatially(dx: 1, dy: 0)
        case .moveUp: select(state.selection - 1)
        case .moveDown: select(state.selection + 1)
        case .pageUp: select(state.selection - page)
        case .pageDown: select(state.selection + page)
        case .top: select(0)
        case .bottom: select(count - 1)
        case .selectRow(let row): state.focus = .list; select(row)
        case .scroll(let rows): select(state.selection + rows)
        case .open where state.selectedRow == .webMap, .openMap:
            openMap()
        case .open, .showDetails:
            guard state.selectedRow != nil else { return }
            state.screen = .details
            state.documentScroll = 0
        case .startFilter:
            guard state.webMapItem != nil else { return }
            state.isEditingFilter = true
            state.focus = .list
        case .switchFocus:
            state.focus = state.focus == .list ? .overview : .list
        default:
            break
        }
    }

    private func back() {
        if state.screen == .details {
            state.screen = .main
            state.documentScroll = 0
        } else if !state.filterText.isEmpty {
            state.filterText = ""
            filterChanged()
        } else if state.focus == .overview {
            state.focus = .list
        }
    }

    private func select(_ row: Int) {
        let count = state.rows.count
        guard count > 0 else { return }
        state.selection = min(max(row, 0), count - 1)
        keepSelectionInView()
    }

    private func filterChanged() {
        state.selection = 0
        state.listTop = 0
    }

    /// Scrolls the list just enough that the selection is on screen.
    private func keepSelectionInView() {
        let capacity = max(state.layout.listCapacity, 1)
        if state.selection < state.listTop { state.listTop = state.selection }
        if state.selection >= state.listTop + capacity { state.listTop = state.selection - capacity + 1 }
        state.listTop = max(min(state.listTop, max(state.rows.count - capacity, 0)), 0)
    }

    /// With the map focused, arrows pick the nearest area whose centre lies in that direction
    /// (`dy` > 0 is north), weighing sideways distance double.
    private func moveSpatially(dx: Double, dy: Double) {
        let rows = state.rows
        let current = state.selectedRow.flatMap(centre(of:))
        guard let from = current ?? state.webMapItem?.extent.map(Self.centre) else { return }
        var best: (index: Int, cost: Double)?
        for (index, row) in rows.enumerated() where index != state.selection {
            guard case .area = row, let to = centre(of: row) else { continue }
            let along = (to.x - from.x) * dx + (to.y - from.y) * dy
            let across = abs((to.x - from.x) * dy - (to.y - from.y) * dx)
            guard along > 0 else { continue }
            let cost = along + 2 * across
            if best == nil || cost < best!.cost { best = (index, cost) }
        }
        if let best { select(best.index) }
    }

    private func centre(of row: ListRow) -> (x: Double, y: Double)? {
        guard case .area = row, let extent = state.item(of: row)?.extent else { return nil }
        return Self.centre(extent)
    }

    private static func centre(_ extent: GeoExtent) -> (x: Double, y: Double) {
        ((extent.xmin + extent.xmax) / 2, (extent.ymin + extent.ymax) / 2)
    }

    // MARK: Layout

    /// The UI reports what fits after laying out; the list stays scrolled so the selection shows.
    public func layoutChanged(_ metrics: LayoutMetrics) {
        guard metrics != state.layout else { return }
        let mapResized = (metrics.mapColumns, metrics.mapRows, metrics.mapColors, metrics.mapUnicode)
            != (state.layout.mapColumns, state.layout.mapRows, state.layout.mapColors, state.layout.mapUnicode)
        let overviewResized = (metrics.overviewColumns, metrics.overviewRows, metrics.mapColors)
            != (state.layout.overviewColumns, state.layout.overviewRows, state.layout.mapColors)
        state.layout = metrics
        if mapResized { mapLayoutChanged() }
        if overviewResized { requestOverviewDraw() }
        state.documentScroll = min(state.documentScroll, metrics.documentMaxScroll)
        keepSelectionInView()
    }
}
