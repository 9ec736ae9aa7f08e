import ArcGISPortal
import ArgumentParser
import Foundation
import HTTP
import MapbookCore
import OfflineLibrary
import SignIn
import ArcGISModel
import UserFiles

/// Which portal and which web map: shared by the browser and the subcommands.
struct PortalSelection: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The portal to use (default: portal in the config file, else https://www.arcgis.com); demo: the sample portal of mapbook demo, with its library.",
                                            valueName: "URL"))
    var portal: String?

    @Option(name: .long, help: ArgumentHelp("The web map's item id (default: webmap in the config file, else Explore Maine; the browser opens the last one opened).",
                                            valueName: "ID"))
    var webmap: String?

    @Option(name: .long, help: ArgumentHelp("A fleet mirror to take packages from when it holds them (default: mirror in the config file; docs/fleet.md).",
                                            valueName: "URL"))
    var mirror: String?

    func validate() throws {
        guard isDemo || portalURL != nil else {
            throw ValidationError("--portal must be an http or https URL, such as https://www.arcgis.com.")
        }
        if let mirror, !Settings.isWebAddress(mirror) {
            throw ValidationError("--mirror must be an http or https URL, such as http://mirror.site.example:8080.")
        }
        guard ItemID(webMapText) != nil else {
            throw ValidationError("--webmap must be an item id: 32 hexadecimal characters.")
        }
    }

    /// Read once: every use of the portal and web map options in a command sees the same file.
    private static let settings = Settings.load().0
    private var settings: Settings { Self.settings }

    /// `--portal demo`: the built-in sample portal, started in this process when first asked for.
    var isDemo: Bool { (portal ?? settings.portal)?.lowercased() == DemoPortal.name }

    var portalURL: URL? {
        if isDemo { return DemoPortal.url }
        guard let url = URL(string: portal ?? settings.portal ?? PortalClient.arcGISOnline.absoluteString), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", url.host != nil else { return nil }
        return url
    }

    /// The fleet mirror named by `--mirror` or the config file; nil for none. A private bucket's
    /// bearer token comes from `MAPBOOK_MIRROR_TOKEN` (never kept in a file, never the portal's).
    var fleetMirror: Mirror? {
        guard let text = mirror ?? settings.mirror, Settings.isWebAddress(text), let url = URL(string: text) else { return nil }
        return Mirror(url: url, bearer: Self.mirrorBearer)
    }

    /// `MAPBOOK_MIRROR_TOKEN`, read once (a refusal said once).
    private static let mirrorBearer: String? = {
        guard let bearer = ProcessInfo.processInfo.environment["MAPBOOK_MIRROR_TOKEN"], !bearer.isEmpty else { return nil }
        guard Secrets.isAcceptableToken(bearer) else {
            Output.write(Data("mapbook: MAPBOOK_MIRROR_TOKEN holds spaces or control characters, so it is not a token; it was not used.\n".utf8), to: STDERR_FILENO)
            return nil
        }
        return bearer
    }()

    private var webMapText: String { webmap ?? settings.webMap ?? ItemID.exploreMaine.rawValue }

    var webMapID: ItemID { ItemID(webMapText)! }

    /// A web map is named: with `--webmap` or in the config file.
    var isWebMapNamed: Bool { webmap != nil || settings.webMap != nil }

    /// The browser's web map: the one named, else the last one opened on the portal, else the default.
    var webMapIDOrRecent: ItemID {
        guard webmap == nil, let recent = RecentWebMaps().last(portal: portalURL!), let id = ItemID(recent.id) else { return webMapID }
        return id
    }

    /// The name the portal's offline library and kept answers go under: the demo's keeps one name
    /// whatever port its portal listens on.
    var portalKey: String { isDemo ? DemoPortal.libraryKey : LibraryLocation.portalKey(for: portalURL!) }

    /// The client for `--portal`: signed in with `MAPBOOK_TOKEN` or `MAPBOOK_API_KEY` when set, else
    /// with the sign-in kept for the portal (`mapbook auth login`), renewed as it expires; keeping
    /// the portal's answers to ask about again (`mapbook cache`). A kept sign-in that cannot be
    /// used is said on standard error, and the client goes without.
    func client(session: SignInSession? = nil) -> PortalClient {
        PortalClient(portal: portalURL!, session: session ?? self.session(), cache: Self.answers(portalKey: portalKey))
    }

    /// The portal's answers kept for revalidation (`$XDG_CACHE_HOME/mapbook/http/<portal>`).
    static func answers(of portal: URL) -> HTTPCache { answers(portalKey: LibraryLocation.portalKey(for: portal)) }

    private static func answers(portalKey: String) -> HTTPCache {
        HTTPCache(directory: LibraryLocation.httpCache(portalKey: portalKey))
    }

    /// The portal's sign-in: the environment's token or key, else the kept sign-in, else signed out
    /// (the browser's `S` can sign it in later).
    func session() -> SignInSession {
        let environment = ProcessInfo.processInfo.environment
        if let name = ["MAPBOOK_TOKEN", "MAPBOOK_API_KEY"].first(where: { environment[$0]?.isEmpty == false }), let token = environment[name] {
            guard Secrets.isAcceptableToken(token) else {
                Output.write(Data("mapbook: \(name) holds spaces or control characters, so it is not a token; it was not used.\n".utf8), to: STDERR_FILENO)
                return .signedOut()
            }
            return SignInSession(token: token)
        }
        do {
            return try CredentialStore().session(for: portalURL!) ?? .signedOut()
        } catch {
            Output.write(Data("mapbook: \(error.userSentence)\n".utf8), to: STDERR_FILENO)
            return .signedOut()
        }
    }
}

/// The options the listing commands share: the portal and web map, and how to print.
struct PortalOptions: ParsableArguments {
    @OptionGroup var selection: PortalSelection

    @Flag(name: .long, help: "Print JSON (described in docs/cli.md) instead of text.")
    var json = false

    var portalURL: URL? { selection.portalURL }
    var webMapID: ItemID { selection.webMapID }
    func client() -> PortalClient { selection.client() }
}
