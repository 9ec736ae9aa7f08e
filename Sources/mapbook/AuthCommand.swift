import ArcGISPortal
import ArgumentParser
import Foundation
import LoopbackHTTP
import MapbookCore
import SignIn
import Synchronization
import UserFiles
import MapbookServices

/// `mapbook auth`: sign in to a portal (OAuth with PKCE in the browser, or a username and password
/// for `generateToken`), see who is signed in, sign out. docs/auth.md says how to register a client id.
struct AuthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth",
        abstract: "Sign in to a portal, see who is signed in, sign out.",
        subcommands: [Login.self, Status.self, Logout.self])

    /// `--portal`, shared by the three.
    struct PortalOption: ParsableArguments {
        @Option(help: ArgumentHelp("The portal to sign in to.", valueName: "URL")) var portal: String = PortalClient.arcGISOnline.absoluteString

        func validate() throws {
            guard url != nil else { throw ValidationError("--portal must be an http or https URL, such as https://www.arcgis.com.") }
        }

        var url: URL? {
            guard let url = URL(string: portal), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else { return nil }
            return url
        }
    }

    struct Login: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "login",
            abstract: "Sign in: OAuth 2.0 with PKCE in the browser (or --no-browser), or --username with --password-stdin.",
            discussion: """
                OAuth needs a client id: --client-id, or client-id in $XDG_CONFIG_HOME/mapbook/config (docs/auth.md). The \
                browser is $BROWSER, else xdg-open; the address is printed too, for SSH sessions. The sign-in is kept in \
                $XDG_CONFIG_HOME/mapbook/credentials.json (mode 0600), one per portal.
                """)
        @OptionGroup var portal: PortalOption
        @Option(help: "The OAuth app's client id.") var clientID: String?
        @Flag(help: "Print the address and read the code pasted back (out-of-band redirect).") var noBrowser = false
        @Option(help: "Sign in with this username and a password read from standard input (generateToken).") var username: String?
        @Flag(help: "Read the password from standard input (with --username).") var passwordStdin = false

        func validate() throws {
            if username != nil, !passwordStdin { throw ValidationError("--username needs --password-stdin: mapbook never takes a password as an argument.") }
            if passwordStdin, username == nil { throw ValidationError("--password-stdin needs --username.") }
        }

        func run() async throws {
            let url = portal.url!
            let client = PortalClient(portal: url)
            let store = CredentialStore()
            do {
                try client.requireSecureSignIn()
                let credential: StoredCredential
                if let username {
                    guard let password = readLine(strippingNewline: true), !password.isEmpty else {
                        throw SignInError("No password came on standard input.")
                    }
                    let tokens = try await client.generateToken(username: username, password: password)
                    credential = StoredCredential(portal: client.portalURL.absoluteString, username: username, method: .password, clientID: nil,
                                                  tokens: tokens)
                } else {
                    guard let clientID = clientID ?? Settings.load().0.clientID else {
                        throw SignInError("Signing in with OAuth needs the client id of an app registered on the portal: --client-id ID, "
                                          + "or client-id = ID in \(Settings.path()) (docs/auth.md says how to register one).")
                    }
                    var tokens = try await noBrowser ? pasteCode(client, clientID: clientID) : browserCode(client, clientID: clientID)
                    if tokens.username == nil {
                        tokens.username = try? await PortalClient(portal: url, token: tokens.accessToken).signedInUser()
                            .map { TerminalText.sanitizedLine($0, maxLength: 128) }
                    }
                    credential = StoredCredential(portal: client.portalURL.absoluteString, username: tokens.username, method: .oauth,
                                                  clientID: clientID, tokens: tokens)
                }
                try store.save(credential)
                Output.line("Signed in to \(client.host)\(credential.username.map { " as \(Output.cell($0))" } ?? "").")
            } catch {
                throw Output.fail(error, json: false)
            }
        }

        /// The authorization code through a redirect to a listener on 127.0.0.1 (a random port),
        /// its `state` checked.
        private func browserCode(_ client: PortalClient, clientID: String) async throws -> SignInTokens {
            // The state is a fresh random string of its own (a verifier's alphabet and length).
            let pkce = PKCE(), state = PKCE().verifier
            let answer = RedirectAnswer()
            let listener = try LoopbackServer { request in
                guard request.path == "/callback" else { return .text("Not Found", status: 404) }
                answer.deliver(request.query)
                let page = "<!doctype html><html><body><p>mapbook has your answer: you can close this tab.</p></body></html>"
                return LoopbackResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8")], body: Data(page.utf8))
            }
            defer { listener.stop() }
            let redirect = listener.baseURL.absoluteString + "/callback"
            let address = client.authorizeURL(clientID: clientID, redirectURI: redirect, state: state, pkce: pkce)
            Output.line("Sign in in your browser; if it does not open, open this address:\n  \(address.absoluteString)")
            if LinkOpener.open(address.absoluteString) != nil {
                Output.standardError("mapbook: no browser could be started; open the address above.")
            }
            let query = try await answer.wait(seconds: 300)
            guard query["state"] == state else { throw SignInError("The sign-in answer does not belong to this sign-in (its state differs); nothing was kept.") }
            if let error = query["error"] {
                throw SignInError("The portal refused the sign-in: \(TerminalText.sanitizedLine(query["error_description"] ?? error, maxLength: 200)).")
            }
            guard let code = query["code"], !code.isEmpty else { throw SignInError("The sign-in answer carried no code.") }
            return try await client.exchangeCode(code, clientID: clientID, redirectURI: redirect, pkce: pkce)
        }

        /// The out-of-band redirect: the portal shows the code, the user pastes it here.
        private func pasteCode(_ client: PortalClient, clientID: String) async throws -> SignInTokens {
            let pkce = PKCE()
            let address = client.authorizeURL(clientID: clientID, redirectURI: PortalClient.outOfBandRedirect, state: PKCE().verifier, pkce: pkce)
            Output.line("Open this address, sign in, and paste the code it shows:\n  \(address.absoluteString)")
            Output.standardError("Code: ", newline: false)
            guard let code = readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces), !code.isEmpty else {
                throw SignInError("No code was pasted; nothing was kept.")
            }
            return try await client.exchangeCode(code, clientID: clientID, redirectURI: PortalClient.outOfBandRedirect, pkce: pkce)
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "status", abstract: "Who is signed in to the portal, until when, and where it is kept.")
        @OptionGroup var portal: PortalOption
        @Flag(help: "Print JSON (described in docs/cli.md) instead of text.") var json = false

        func run() async throws {
            let url = portal.url!
            let store = CredentialStore()
            let credential: StoredCredential?
            do { credential = try store.credential(for: url) } catch { throw Output.fail(error, json: json) }
            let fromEnvironment = ["MAPBOOK_TOKEN", "MAPBOOK_API_KEY"].first { ProcessInfo.processInfo.environment[$0]?.isEmpty == false }
            let signedIn = credential != nil || fromEnvironment != nil
            if json {
                try Output.json(JSONValue.object([
                    "portal": .string(url.absoluteString), "signedIn": .bool(signedIn),
                    "user": .text(credential?.username), "method": credential.map { .string($0.method.rawValue) } ?? (fromEnvironment.map { .string($0) } ?? .null),
                    "expires": .date(credential?.tokens.expires), "renewable": .bool(credential?.isRenewable ?? false),
                    "keptIn": credential == nil ? .null : .string(store.location),
                ]))
                // The same status as the text's: a script asks with either.
                if !signedIn { throw ExitCode(4) }
                return
            }
            guard let credential else {
                guard let fromEnvironment else {
                    Output.line("Not signed in to \(url.host ?? "the portal"). Sign in with: mapbook auth login")
                    throw ExitCode(4)
                }
                Output.line("Using \(fromEnvironment) for \(url.host ?? "the portal"); no sign-in is kept.")
                return
            }
            Output.line("Signed in to \(url.host ?? "") as \(Output.cell(credential.username ?? "an unknown user")) (\(credential.method == .oauth ? "OAuth" : "password"))")
            let expiry = credential.tokens.expires > Date() ? "expires \(Format.date(credential.tokens.expires, time: true))"
                : credential.isRenewable ? "expired; renewed on the next request" : "expired: sign in again"
            Output.line("  Token \(expiry)\(credential.isRenewable ? ", renewable" : "")")
            Output.line("  Kept in \(store.location)")
        }
    }

    struct Logout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "logout", abstract: "Sign out: revoke the portal's tokens and forget them.")
        @OptionGroup var portal: PortalOption

        func run() async throws {
            let url = portal.url!
            let store = CredentialStore()
            // Answers to signed-in requests (private items) go whether or not a sign-in is found.
            PortalSelection.answers(of: url).forgetSignedIn()
            do {
                guard let credential = try store.remove(portal: url) else {
                    Output.line("Not signed in to \(url.host ?? "the portal").")
                    return
                }
                // Revoked first where OAuth allows; forgotten whatever the portal says.
                if credential.method == .oauth, let clientID = credential.clientID {
                    do {
                        try await PortalClient(portal: url).revoke(credential.tokens.refreshToken ?? credential.tokens.accessToken, clientID: clientID)
                    } catch {
                        Output.standardError("mapbook: the portal could not revoke the token (\(error.userSentence)); it is forgotten here.")
                    }
                }
                Output.line("Signed out of \(url.host ?? "the portal").")
            } catch {
                throw Output.fail(error, json: false)
            }
        }
    }
}

/// The redirect's query, handed from the listener's thread to the waiting command.
final class RedirectAnswer: Sendable {
    private let state = Mutex<(answer: [String: String]?, waiter: CheckedContinuation<[String: String], any Error>?)>((nil, nil))

    func deliver(_ query: [String: String]) {
        let waiter = state.withLock { state -> CheckedContinuation<[String: String], any Error>? in
            guard state.answer == nil else { return nil }
            state.answer = query
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: query)
    }

    func wait(seconds: Int) async throws -> [String: String] {
        let timeout = Task { [weak self] in
            try? await Task.sleep(for: .seconds(seconds))
            self?.fail()
        }
        defer { timeout.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> [String: String]? in
                if let answer = state.answer { return answer }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    private func fail() {
        let waiter = state.withLock { state -> CheckedContinuation<[String: String], any Error>? in
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(throwing: SignInError("No answer came from the browser in five minutes; nothing was kept."))
    }
}
