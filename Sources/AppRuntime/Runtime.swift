import AppModel
import ArcGISPortal
import Connectivity
import EventLoop
import Foundation
import HTTP
import MapSources
import MapbookCore
import OfflineLibrary
import UserFiles
import MapbookServices

/// Performs the model's effects and sends their results back as events. It composes one handler
/// per domain — the catalogue and the connection, downloads, maps, places, directions, areas of your own,
/// pins, sign-in, the web-map directory — each with its dependencies passed in (so it can be tested with fakes), and
/// owns what they share: the task tracker (every task is started through it, so `shutdown` stops
/// them all) and the sink events go out through. It lives on the UI actor; what takes time runs
/// elsewhere and comes back as an event. Each effect is one line here: which handler does it.
@UIActor
public final class Runtime {
    /// Gives the portal client; may take time (starting the sample portal) or fail.
    public typealias Connect = @Sendable () async throws -> PortalClient
    /// Signs the client in with a username and password (and keeps the sign-in); returns the
    /// user's name. The client shares its session with every copy, the download queue's too.
    public typealias SignIn = @Sendable (_ client: PortalClient, _ username: String, _ password: String) async throws -> String

    private let tasks = TaskTracker()
    private let clock: AppClock
    /// The front end's clipboard (the full screen's OSC 52); without one, what was copied is said
    /// in the status bar only.
    var clipboard: (@UIActor (String) -> Void)?
    private let firstFrame = FirstFrameGate()
    private let send = EventSink()
    private let catalog: CatalogHandler
    private let downloads: DownloadsHandler
    private let maps: MapViewHandler
    private let places: PlacesHandler
    private let pins: PinsHandler
    private let signIn: SignInHandler
    private let directory: WebMapDirectoryHandler
    private let packages: PackagesHandler
    private let directions: DirectionsHandler
    private let areas: AreaMakerHandler
    private let edits: EditsHandler
    private let location: LocationHandler

    /// `clock`: what the runtime's waits (a notice's fading) and the network monitor's are timed by.
    public init(library: OfflineLibrary, http: HTTPClient = HTTPClient(), networkTimings: NetworkMonitor.Timings = .standard,
                clock: AppClock = .system, map: MapStack? = nil, signIn: SignIn? = nil, recent: RecentWebMaps? = nil,
                pixels: PixelDrawing? = nil, connect: @escaping Connect) {
        self.clock = clock
        let connection = PortalConnection()
        catalog = CatalogHandler(library: library, http: http, connect: connect, recent: recent, networkTimings: networkTimings, clock: clock,
                                 connection: connection, firstFrame: firstFrame, send: send, tasks: tasks)
        downloads = DownloadsHandler(library: library, connection: connection, send: send, tasks: tasks)
        let finder = PlaceFinder(client: { await connection.client }, library: library)
        maps = MapViewHandler(library: library, http: http, connection: connection, given: map, finder: finder, firstFrame: firstFrame,
                              pixels: pixels, send: send, tasks: tasks)
        places = PlacesHandler(finder: finder, send: send, tasks: tasks)
        directions = DirectionsHandler(planner: RoutePlanner(client: { await connection.client }), finder: finder, send: send, tasks: tasks)
        pins = PinsHandler(store: PinStore(root: library.root), finder: finder, send: send, tasks: tasks)
        self.signIn = SignInHandler(connection: connection, signIn: signIn, send: send, tasks: tasks)
        directory = WebMapDirectoryHandler(connection: connection, recent: recent, library: library, send: send, tasks: tasks)
        packages = PackagesHandler(connection: connection, root: library.root, mirror: library.mirror, send: send, tasks: tasks)
        areas = AreaMakerHandler(library: library, connection: connection, send: send, tasks: tasks)
        edits = EditsHandler(library: library, connection: connection, send: send, tasks: tasks)
        location = LocationHandler(tracks: TrackStore(root: library.root), send: send)
    }

    /// Where events go: the program that owns this runtime.
    func attach(_ deliver: @escaping (Event) -> Void) { send.deliver = deliver }

    public func perform(_ effect: Effect) {
        switch effect {
        case .cancel(let request): tasks.cancel(request: request)
        case .expireNotice(let serial):
            tasks.track { [send, clock] in
                await clock.sleep(Notice.fadesAfter)
                if !Task.isCancelled { send(.noticeExpired(serial)) }
            }
        case .copy(let text): clipboard?(text)
        case .catalog(let effect): catalog.perform(effect)
        case .downloads(let effect): downloads.perform(effect)
        case .map(let effect) where effect.isLocation: location.perform(effect)
        case .map(let effect): maps.perform(effect)
        case .maps(let effect): directory.perform(effect)
        case .packages(let effect): packages.perform(effect)
        case .signIn(let effect): signIn.perform(effect)
        case .pins(let effect): pins.perform(effect)
        case .search(let effect): places.perform(effect)
        case .directions(let effect): directions.perform(effect)
        case .newArea(let effect): areas.perform(effect)
        case .edits(let effect): edits.perform(effect)
        }
    }

    /// See `Program.holdBackgroundWorkUntilShown` and `FirstFrameGate`.
    public func holdBackgroundWorkUntilShown(atMost limit: Duration = .milliseconds(250)) { firstFrame.hold(atMost: limit) }

    public func shown() { firstFrame.open() }

    /// Someone is using the app: the network monitor probes at its active pace.
    public func noteActivity() { catalog.noteActivity() }

    /// Stops downloads (their bytes and control files kept, to resume next time), the network
    /// monitor, and every task, and waits until they have stopped.
    public func shutdown() async {
        await catalog.stop()
        await location.stop()
        downloads.finish()
        await tasks.stopAll()
    }

    /// Tasks started and not yet ended (none once `shutdown` returns).
    var runningTasks: Int { tasks.running }
}
