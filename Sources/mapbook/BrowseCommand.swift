import AppModel
import AppRuntime
import ArcGISPortal
import ArgumentParser
import EventLoop
import Foundation
import MapRender
import MapSources
import MapbookCore
import OfflineLibrary
import PlainUI
import SignIn
import TerminalRender
import TerminalUI
import ArcGISModel
import UserFiles
import MapbookServices

/// `mapbook` with no subcommand: the full-screen browser.
struct BrowseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browse",
        abstract: "Open the full-screen browser on the web map (the default command).",
        discussion: "Keys are listed on the ? help screen. NO_COLOR=1 turns colours off.")

    @OptionGroup var options: LibraryOptions
    @OptionGroup var display: DisplayOptions

    func run() async throws {
        let session = options.selection.session()
        let client = options.selection.client(session: session)
        let root = options.dataDirectory.root
        let mirror = options.selection.fleetMirror
        let portalKey = options.selection.portalKey
        let remembering = Browser.Remembering(recent: RecentWebMaps(), views: RememberedViews(), portal: client.portalURL.absoluteString)
        // Nothing named and nothing opened here before: the Maps card, to find a web map (your
        // content when signed in, else a search), over the default one.
        let neverOpened = !options.selection.isWebMapNamed && remembering.recent.last(portal: client.portalURL) == nil
        // The default web map (Explore Maine) belongs to ArcGIS Online: on an ArcGIS Enterprise
        // portal nothing loads behind the card until a web map is chosen. (Asked only on this
        // first start; a portal that cannot say is treated as ArcGIS Online.)
        let enterprise = neverOpened && !client.isArcGISOnline ? await client.isEnterprise() == true : false
        try await Browser.run(host: client.host, webMap: options.selection.webMapIDOrRecent,
                              hasWebMap: !enterprise,
                              library: { OfflineLibrary(root: root, portalKey: portalKey, webMap: $0, mirror: mirror) },
                              startingPhase: .loading, display: display, signIn: Browser.passwordSignIn(session: session, keep: true),
                              remembering: remembering, startsOnMaps: neverOpened ? (client.isSignedIn ? .mine : .search) : nil) { client }
    }
}

/// How the browser shows itself.
struct DisplayOptions: ParsableArguments {
    @Flag(help: "Draw with ASCII only, for fonts without braille or box-drawing characters.")
    var ascii = false

    @Flag(help: "Plain lines instead of the full screen, for screen readers and logs; commands are read from standard input (type help).")
    var plain = false

    @Option(help: ArgumentHelp("Maps in pixels where the terminal shows pictures: auto (ask the terminal), kitty, sixel, iterm, or off; as the graphics setting.",
                               valueName: "WAY"))
    var graphics: GraphicsChoice?

    /// The `graphics` setting, or `--graphics` over it.
    func graphics(_ settings: Settings) -> GraphicsMode {
        graphics.map { GraphicsMode(rawValue: $0.rawValue) ?? .auto } ?? settings.graphics
    }

    /// The plain mode: asked for, or a terminal that cannot draw the full screen (`TERM=dumb`).
    /// Without a terminal at all nothing changes: scripts get what they always got.
    var runsPlain: Bool {
        plain || (isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 && !TerminalApp.canDraw(term: ProcessInfo.processInfo.environment["TERM"]))
    }
}

/// `--graphics`: the ways to show maps in pixels, or off.
enum GraphicsChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, kitty, sixel, iterm, off
}

/// Opens the browser on a program that connects with `connect`.
enum Browser {
    /// What the browser keeps between runs: the web maps opened (`recent.json`) and where it was
    /// on each (`views.json`), for this portal.
    struct Remembering {
        let recent: RecentWebMaps
        let views: RememberedViews
        let portal: String
    }

    /// The browser on `webMap` (at the view it was left at, when `remembering`); when the user
    /// opens another web map from the Maps card, a new program (its own runtime and library) takes
    /// over the same screen, with the same portal client. `startsOnMaps` opens the Maps card at the
    /// start (not in the plain mode, which has none).
    static func run(host: String, webMap: ItemID, hasWebMap: Bool = true, library: @escaping @Sendable (ItemID) -> OfflineLibrary,
                    startingPhase: LoadPhase,
                    display: DisplayOptions, signIn: Runtime.SignIn? = nil, keepsSignIn: Bool = true, remembering: Remembering? = nil,
                    startsOnMaps: WebMapsTab? = nil, connect: @escaping Runtime.Connect) async throws {
        // The overview's geography is decoded on the work pool while the program is set up, the
        // terminal opened and the library read; the first frame waits for it.
        let geography = Task { display.runsPlain ? OverviewGeography.empty : await onWorkPool { OverviewGeography.bundled() } }
        let (settings, problems) = Settings.load()
        let pixels = PixelDrawing()
        @UIActor func program(_ webMap: ItemID, phase: LoadPhase, card: WebMapsTab?, hasWebMap: Bool = true) async -> Program {
            let runtime = Runtime(library: library(webMap), signIn: signIn, recent: remembering?.recent, pixels: pixels, connect: connect)
            var state = AppState(portalHost: host, webMapID: webMap, phase: phase)
            state.library.resumesInterrupted = settings.resumeDownloads
            state.preferences.syncsEditsByItself = settings.syncsEditsByItself
            state.preferences.mapMode = MapMode(rawValue: settings.graphics.rawValue) ?? .braille
            state.preferences.keyBindings = KeyMap.bindings(overriding: settings.keys)
            state.preferences.units = settings.units
            state.portal.keepsSignIn = keepsSignIn
            let locationProblem = state.preferences.takeLocation(from: settings, environment: ProcessInfo.processInfo.environment)
            if let problem = problems.first ?? locationProblem { state.notice = .problem(problem) }
            // The plain mode starts on the list, numbered as always: where the full screen was left
            // (its order, a map open) is the full screen's.
            if !display.runsPlain, let remembering, let view = remembering.views.view(portal: remembering.portal, webMap: webMap.rawValue) {
                state.restore(view)
            }
            state.catalog.startsOnMaps = display.runsPlain ? nil : card
            state.catalog.hasWebMap = hasWebMap
            return Program(state: state, runtime: runtime)
        }
        let first = await program(webMap, phase: startingPhase, card: startsOnMaps, hasWebMap: hasWebMap)
        // The web map the browser showed when a package was opened from its card, to go back to.
        var browsed = (webMap: webMap, hasWebMap: hasWebMap)
        try await present(first, display: display, settings: settings, geography: geography, pixels: pixels) { finished in
            let final = finished.state
            // A package's map left with Esc: the browser again, on the Packages tab.
            if final.handoff.leftStandaloneMap {
                return await program(browsed.webMap, phase: browsed.hasWebMap ? .loading : startingPhase, card: .packages, hasWebMap: browsed.hasWebMap)
            }
            if !display.runsPlain, let remembering, let view = final.viewToRemember {
                remembering.views.remember(view, portal: remembering.portal, webMap: final.catalog.webMapID.rawValue)
            }
            // A package chosen in the Maps card: the map view on it, as `mapbook open` shows it.
            if let path = final.handoff.nextPackage {
                browsed = (final.catalog.webMapID, final.catalog.hasWebMap)
                // One that no longer opens: back to the card, whose row says why.
                guard let opened = try? SideLoadedMap.open(path: path, map: nil) else {
                    return await program(final.catalog.webMapID, phase: .loading, card: .packages)
                }
                return OpenCommand.program(opened, settings: settings, pixels: pixels)
            }
            guard let chosen = final.handoff.nextWebMap else { return nil }
            return await program(chosen, phase: .loading, card: nil)
        }
    }

    /// `S` in the browser: `generateToken` with the username and password, the token into the
    /// client's session (shared with the download queue's), and with `keep` into the credential
    /// store for the next start.
    static func passwordSignIn(session: SignInSession, keep: Bool) -> Runtime.SignIn {
        { client, username, password in
            let tokens = try await client.generateToken(username: username, password: password)
            if keep {
                try CredentialStore().save(StoredCredential(portal: client.portalURL.absoluteString, username: username, method: .password,
                                                            clientID: nil, tokens: tokens))
            }
            session.signIn(tokens)
            return tokens.username ?? username
        }
    }

    /// Runs a front end on `program` until the user quits, then shuts the program down: downloads
    /// under way stop with their bytes and control files saved, to resume next time. `next`, given
    /// the program that ended (shut down), may give another to run in its place.
    static func present(_ program: Program, display: DisplayOptions, settings: Settings = Settings(), geography: Task<OverviewGeography, Never> = Task { .empty },
                        pixels: PixelDrawing? = nil, next: @escaping @UIActor (Program) async -> Program? = { _ in nil }) async throws {
        let ended: @UIActor (Program) async -> Program? = { finished in
            await finished.shutdown()
            return await next(finished)
        }
        guard !display.runsPlain else {
            if !display.plain {
                let term = TerminalText.sanitizedLine(ProcessInfo.processInfo.environment["TERM"] ?? "", maxLength: 40)
                Output.problem(term.isEmpty ? "No terminal type (TERM) is set: the plain mode runs instead of the full screen."
                                         : "TERM=\(term) cannot draw the full screen: the plain mode runs instead.")
            }
            var current: Program? = program
            while let running = current {
                await PlainApp.run(running)
                current = await ended(running)
            }
            if let status = StopSignal.exitStatus { throw ExitCode(status) }
            return
        }
        do {
            try await TerminalApp.run(program, settings: TerminalApp.Settings(ascii: display.ascii || settings.graphics == .ascii,
                                                                              geography: geography, theme: settings.theme,
                                                                              graphics: display.graphics(settings), pixels: pixels), next: ended)
        } catch {
            // The terminal could not be set up: no program ran.
            await program.shutdown()
            throw Output.fail(error, json: false)
        }
        // Stopped by a signal (downloads paused, to resume next time): 128 + its number.
        if let status = StopSignal.exitStatus { throw ExitCode(status) }
    }
}
