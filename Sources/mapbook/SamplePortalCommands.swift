import ArcGISPortal
import ArgumentParser
import Foundation
import HTTP
import Synchronization
import MapbookCore
import OfflineLibrary
import SamplePortal
import ArcGISModel

/// `mapbook sample-portal`: the local stand-in for ArcGIS Online, standalone.
struct SamplePortalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sample-portal",
        abstract: "Serve the sample portal (Explore Maine, offline) on 127.0.0.1 until interrupted.",
        discussion: """
            Prints its URL, then one line per request (with its Range header). Faults can be set at \
            start with --faults and changed while it runs with GET /admin/faults?key=value&…: \
            latency=MS, bandwidth=BYTES (per second; 200k, 2M), drop=BYTES, status=500|503, \
            retryAfter=SECONDS, count=N, stall=BYTES, stallSeconds=S, times=N, hangup, ignoreRange, wrongLength, \
            corrupt, processing=AREA, failed=AREA, complete=AREA, update=AREA, reset, and (admin \
            only) outage=SECONDS. AREA is a map area's title or id. See docs/sample-portal.md.
            """)

    @Option(help: "The port to listen on (0 picks a free one).") var port: UInt16 = 0
    @Option(help: ArgumentHelp("Faults to inject, as key=value pairs separated by commas.", valueName: "FAULTS"))
    var faults: String = ""

    func run() async throws {
        var settings = SampleFaults()
        do { try settings.apply(faults) } catch { throw ValidationError("--faults: \(error)") }
        let portal: SamplePortal
        do {
            portal = try SamplePortal(content: SampleContent.build(), port: port, faults: settings) { Output.line($0) }
        } catch {
            throw Output.fail(error, json: false)
        }
        Output.line("Sample portal serving Explore Maine at \(portal.baseURL.absoluteString)")
        Output.line("Try: mapbook areas --portal \(portal.baseURL.absoluteString)")
        while true { try await Task.sleep(for: .seconds(3600)) }
    }
}

/// `mapbook demo`: mapbook against the sample portal, started in-process; no internet needed.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Open the browser on a built-in sample portal serving Explore Maine (no internet needed).",
        discussion: """
            When standard input or output is not a terminal, or with --json, it lists the areas instead; \
            with --plain it runs the plain, line-oriented browser (commands on standard input).
            """)

    @Flag(help: "List the areas as JSON (described in docs/cli.md) instead of opening the browser.") var json = false
    @Flag(help: "Start with the sample portal cut off, as out of coverage: what was downloaded in an earlier demo is what works.")
    var offline = false
    @OptionGroup var dataDirectory: DataDirectoryOption
    @OptionGroup var display: DisplayOptions

    func run() async throws {
        if json || !display.runsPlain && (isatty(STDIN_FILENO) != 1 || isatty(STDOUT_FILENO) != 1) {
            try await listAreas()
            return
        }
        let starter = SamplePortalStarter()
        defer { starter.stop() }
        // The sample portal listens on a new port each time; its library is kept under one name.
        let webMap = ItemID(SampleCatalog.webMapID)!
        let root = dataDirectory.root
        // Signed in for this run only: the portal's address changes each time.
        let session = SignInSession.signedOut()
        let offline = offline
        try await Browser.run(host: "sample portal", webMap: webMap, library: { OfflineLibrary(root: root, portalKey: DemoPortal.libraryKey, webMap: $0) },
                              startingPhase: .starting("Starting the sample portal…"), display: display,
                              signIn: Browser.passwordSignIn(session: session, keep: false), keepsSignIn: false) {
            // Its answers are kept under one name too: they are the same each time.
            let portal = try starter.start()
            if offline { try portal.setOutage(true) }
            return PortalClient(portal: portal.baseURL, session: session,
                                cache: HTTPCache(directory: LibraryLocation.httpCache(portalKey: DemoPortal.libraryKey)))
        }
    }

    private func listAreas() async throws {
        let areas = try AreasCommand.parse(["--portal", DemoPortal.name] + (json ? ["--json"] : []))
        try await areas.run()
    }
}

/// The sample portal as `--portal demo` names it: started in this process on first use, serving
/// until the process ends; its library is the one `mapbook demo` keeps.
enum DemoPortal {
    static let name = "demo"
    /// One name for the demo's library and kept answers, whatever port its portal listens on.
    static let libraryKey = "sample-portal"

    static var url: URL { started.baseURL }

    private static let started: SamplePortal = {
        do {
            return try SamplePortal(content: SampleContent.build())
        } catch {
            Output.write(Data("mapbook: The sample portal could not start: \(error.userSentence)\n".utf8), to: STDERR_FILENO)
            exit(1)
        }
    }()
}

/// Starts the sample portal once, on first use, off the UI thread (building its content takes a
/// moment), and stops it at the end.
private final class SamplePortalStarter: Sendable {
    /// Held while starting, so two callers never start two portals; a failed start is tried again.
    private let portal = Mutex<SamplePortal?>(nil)

    func start() throws -> SamplePortal {
        try portal.withLock { (started: inout SamplePortal?) throws -> SamplePortal in
            if let started { return started }
            let new = try SamplePortal(content: SampleContent.build())
            started = new
            return new
        }
    }

    func stop() { portal.withLock { $0?.stop() } }
}
