import ArcGISPortal
import Foundation
import HTTP
import MapRender
import MapbookCore
import Observation
import TileFormats

/// The one place that changes what the screen shows. Key presses, mouse events and finished network
/// work all come here; the UI observes `state` and redraws when it changes.
@UIActor
@Observable
public final class AppModel {
    public private(set) var state: AppState

    /// Gives the portal client; may take time (starting the sample portal) or fail.
    public typealias Connect = @Sendable () async throws -> PortalClient

    @ObservationIgnored private let connect: Connect
    @ObservationIgnored private var client: PortalClient?
    @ObservationIgnored private var loadTask: Task<Void, Never>?
    /// Shown until connected: `.loading`, or what connecting involves.
    @ObservationIgnored private let connectingPhase: LoadPhase

    public init(state: AppState, connect: @escaping Connect) {
        self.state = state
        self.connect = connect
        connectingPhase = state.phase
    }

    // MARK: Loading

    /// Loads (or reloads) the web map, its areas and their thumbnails.
    public func reload() {
        loadTask?.cancel()
        if state.webMapItem == nil { state.phase = client == nil ? connectingPhase : .loading } else { state.message = "Reloading…" }
        loadTask = Task { await load() }
    }

    /// Waits for the current load to finish (tests, benchmarks).
    public func waitForLoad() async { await loadTask?.value }

    private func load() async {
        let id = state.webMapID
        do {
            let client: PortalClient
            if let connected = self.client { client = connected } else { client = try await connect() }
            self.client = client
            state.portalHost = client.host
            if state.webMapItem == nil { state.phase = .loading }
            async let item = client.webMapItem(id)
            async let webMap = client.webMap(id)
            async let areas = client.mapAreas(of: id)
            let loaded = try await (item, webMap, areas)
            guard !Task.isCancelled else { return }
            apply(item: loaded.0, webMap: loaded.1, areas: loaded.2)
            await loadThumbnails(of: [loaded.0] + loaded.2.map(\.item), from: client)
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
        state.network = .online
        state.lastSynced = Date()
        state.message = nil
        // Keep the selection on the same row when it is still there.
        let rows = state.rows
        state.selection = previous.flatMap { rows.firstIndex(of: $0) } ?? min(state.selection, max(rows.count - 1, 0))
        keepSelectionInView()
    }

    private func fail(_ error: any Error) {
        let unreachable = (error as? HTTPError)?.isUnreachable == true
        // Error sentences can quote the server's own message.
        let sentence = TerminalText.sanitizedLine(error.userSentence, maxLength: 400)
        state.network = unreachable ? .offline : .online
        if state.webMapItem != nil {
            // What was loaded stays on screen; the status bar says why it is not fresh.
            state.message = unreachable ? "No internet connection: showing what was loaded before." : sentence
        } else {
            state.phase = unreachable ? .unreachable(host: state.portalHost) : .failed(sentence)
            state.message = nil
        }
    }

    private func loadThumbnails(of items: [PortalItem], from client: PortalClient) async {
        for item in items where item.thumbnail != nil && state.thumbnails[item.id] == nil {
            guard !Task.isCancelled else { return }
            // A missing or broken thumbnail leaves its placeholder; it is not worth a message.
            guard let data = try? await client.thumbnail(of: item),
                  let image = await Self.decodeThumbnail(data) else { continue }
            state.thumbnails[item.id] = image
        }
    }

    /// Decoded off the UI thread and shrunk, so drawing it each frame costs little.
    nonisolated private static func decodeThumbnail(_ data: Data) async -> RasterImage? {
        guard let image = try? RasterImage(decoding: data) else { return nil }
        return ImageArt.shrunk(image, toFit: 64, 48)
    }

    // MARK: Input

    /// A key press: typed into the filter while it is being edited, else looked up in the key map.
    public func handle(_ key: Key) {
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
        if let intent = KeyMap.intent(for: key) { dispatch(intent) }
    }

    public func dispatch(_ intent: Intent) {
        if state.showingHelp, handleInHelp(intent) { return }
        switch intent {
        case .quit: state.isQuitting = true
        case .toggleHelp:
            state.showingHelp.toggle()
            state.documentScroll = 0
        case .refresh: reload()
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
        scrollDocument(intent)
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
        case .open:
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
        state.layout = metrics
        state.documentScroll = min(state.documentScroll, metrics.documentMaxScroll)
        keepSelectionInView()
    }
}
