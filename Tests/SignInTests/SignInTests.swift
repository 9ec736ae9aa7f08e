import ArcGISPortal
import Foundation
import HTTP
import LoopbackHTTP
import MapbookCore
import PortalFixtures
import SamplePortal
import Testing
@testable import SignIn
import ArcGISModel

/// Each way of signing in against the sample portal — OAuth with PKCE (the browser's part done by
/// the test), a password's generateToken — then renewal, revocation, and the credential file.
@Suite("Signing in")
struct SignInTests {
    let server: SamplePortal
    let client: PortalClient
    let store: CredentialStore
    /// Stands in for mapbook's redirect listener: the browser lands here with the code.
    let callback: LoopbackServer
    var redirect: String { callback.baseURL.absoluteString + "/callback" }
    static let clientID = "mapbookTestApp"

    init() throws {
        callback = try LoopbackServer { _ in .text("ok", status: 200) }
        server = try SampleFixture.start()
        client = PortalClient(portal: server.baseURL, http: HTTPClient(configuration: HTTPConfiguration(retry: .none)))
        store = CredentialStore(directory: FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-signin-\(UUID())").path,
                                keyring: false)
    }

    /// What the user does in the browser: open the authorize page, approve with the demo user's
    /// password, follow the redirect; the answer is the address it landed on.
    func approve(_ address: URL, password: String = "mapbook-demo") async throws -> URLComponents {
        let http = HTTPClient(configuration: HTTPConfiguration(retry: .none))
        let page = try await http.send(HTTPRequest(url: address))
        #expect(String(decoding: page.body, as: UTF8.self).contains("<form method=\"post\""))
        let query = URLComponents(url: address, resolvingAgainstBaseURL: false)!.queryItems!
        var form = query.filter { ["client_id", "redirect_uri", "state", "code_challenge"].contains($0.name) }.map { ($0.name, $0.value!) }
        form += [("username", "demo"), ("password", password)]
        let body = form.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)" }.joined(separator: "&")
        let approved = try await http.send(HTTPRequest(url: server.baseURL.appendingPathComponent("sharing/rest/oauth2/authorize/approve"),
                                                       method: "POST", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                                       body: Data(body.utf8)))
        #expect(approved.status == 200 && approved.url.host == "127.0.0.1" && callback.requests.last?.path == "/callback")
        return URLComponents(url: approved.url, resolvingAgainstBaseURL: false)!
    }

    @Test func oauthWithPKCEGivesTokensThatOpenThePrivateWebMap() async throws {
        let pkce = PKCE()
        #expect(pkce.verifier.count == 64 && pkce.challenge.count == 43 && !pkce.challenge.contains("="))
        let address = client.authorizeURL(clientID: Self.clientID, redirectURI: redirect, state: "s-1", pkce: pkce)
        #expect(address.query?.contains("code_challenge_method=S256") == true && address.query?.contains(pkce.verifier) == false)
        let answer = try await approve(address)
        #expect(answer.host == "127.0.0.1" && answer.queryItems?.first { $0.name == "state" }?.value == "s-1")
        let code = try #require(answer.queryItems?.first { $0.name == "code" }?.value)
        let tokens = try await client.exchangeCode(code, clientID: Self.clientID, redirectURI: redirect, pkce: pkce)
        #expect(tokens.username == "demo" && tokens.refreshToken != nil && tokens.expires > Date())
        // The code and the verifier went in the POST body, never in an address.
        #expect(!server.requests.contains { $0.target.contains(code) || $0.target.contains(pkce.verifier) })
        let signedIn = PortalClient(portal: server.baseURL, token: tokens.accessToken)
        #expect(try await signedIn.item(ItemID(SampleCatalog.protectedID)!).title == "Explore Maine (staff)")
        #expect(try await signedIn.signedInUser() == "demo")
        // A code serves once.
        await #expect(throws: PortalError.self) {
            _ = try await client.exchangeCode(code, clientID: Self.clientID, redirectURI: redirect, pkce: pkce)
        }
    }

    @Test func aWrongVerifierIsRefused() async throws {
        let pkce = PKCE()
        let answer = try await approve(client.authorizeURL(clientID: Self.clientID, redirectURI: redirect, state: "s", pkce: pkce))
        let code = try #require(answer.queryItems?.first { $0.name == "code" }?.value)
        do {
            _ = try await client.exchangeCode(code, clientID: Self.clientID, redirectURI: redirect, pkce: PKCE())
            Issue.record("a wrong verifier was accepted")
        } catch let error as PortalError {
            #expect(error.serverMessage.contains("Invalid code_verifier"))
        }
    }

    @Test func aPasswordGivesATokenAndAWrongOneASentence() async throws {
        let tokens = try await client.generateToken(username: "demo", password: "mapbook-demo")
        #expect(tokens.refreshToken == nil && tokens.username == "demo")
        #expect(server.requests.last?.method == "POST" && server.requests.last?.target.contains("mapbook-demo") == false)
        await #expect(throws: SignInError("127.0.0.1 did not accept that username and password.")) {
            _ = try await client.generateToken(username: "demo", password: "guess")
        }
        // Plain http to another machine: the password is never sent.
        await #expect(throws: SignInError("portal.example.com is plain http: mapbook signs in only over https, so no password or token crosses the network readable.")) {
            _ = try await PortalClient(portal: URL(string: "http://portal.example.com")!).generateToken(username: "demo", password: "x")
        }
    }

    /// A token endpoint answering a web page (a proxy's sign-in page, a misconfigured portal): one
    /// sentence, nothing of the page in it.
    @Test func aTokenEndpointAnsweringHTMLIsOneSentence() async throws {
        let page = try LoopbackServer { _ in
            LoopbackResponse(status: 200, headers: [("Content-Type", "text/html")], body: Data("<html><body>Sign in\n<form></form></body></html>".utf8))
        }
        let client = PortalClient(portal: page.baseURL, http: HTTPClient(configuration: HTTPConfiguration(retry: .none)))
        do {
            _ = try await client.exchangeCode("code", clientID: Self.clientID, redirectURI: redirect, pkce: PKCE())
            Issue.record("a web page was taken for tokens")
        } catch {
            #expect(!error.userSentence.isEmpty && !error.userSentence.contains("<") && !error.userSentence.contains("\n"), "\(error.userSentence)")
        }
    }

    @Test func anExpiredTokenIsRenewedOnceAndKept() async throws {
        server.updateFaults { $0.tokenExpirySeconds = 1 }
        let pkce = PKCE()
        let answer = try await approve(client.authorizeURL(clientID: Self.clientID, redirectURI: redirect, state: "s", pkce: pkce))
        let tokens = try await client.exchangeCode(answer.queryItems!.first { $0.name == "code" }!.value!, clientID: Self.clientID,
                                                   redirectURI: redirect, pkce: pkce)
        try store.save(StoredCredential(portal: server.baseURL.absoluteString, username: "demo", method: .oauth, clientID: Self.clientID, tokens: tokens))
        try await Task.sleep(for: .seconds(1.5))
        server.updateFaults { $0.tokenExpirySeconds = nil }
        let session = try #require(try store.session(for: server.baseURL))
        let signedIn = PortalClient(portal: server.baseURL, session: session)
        #expect(try await signedIn.item(ItemID(SampleCatalog.protectedID)!).title == "Explore Maine (staff)")
        #expect(server.requests.contains { $0.path.hasSuffix("/oauth2/token") })
        let kept = try #require(try store.credential(for: server.baseURL))
        #expect(kept.tokens.accessToken != tokens.accessToken && kept.tokens.refreshToken == tokens.refreshToken && kept.tokens.expires > Date())
    }

    @Test func aRevokedSignInAsksToSignInAgain() async throws {
        let pkce = PKCE()
        let answer = try await approve(client.authorizeURL(clientID: Self.clientID, redirectURI: redirect, state: "s", pkce: pkce))
        let tokens = try await client.exchangeCode(answer.queryItems!.first { $0.name == "code" }!.value!, clientID: Self.clientID,
                                                   redirectURI: redirect, pkce: pkce)
        try await client.revoke(tokens.refreshToken!, clientID: Self.clientID)
        try await client.revoke(tokens.accessToken, clientID: Self.clientID)
        try store.save(StoredCredential(portal: server.baseURL.absoluteString, username: "demo", method: .oauth, clientID: Self.clientID, tokens: tokens))
        let signedIn = PortalClient(portal: server.baseURL, session: try store.session(for: server.baseURL))
        do {
            _ = try await signedIn.item(ItemID(SampleCatalog.protectedID)!)
            Issue.record("a revoked token opened the private web map")
        } catch {
            #expect(error.userSentence == "Your sign-in to 127.0.0.1 has expired. Sign in again: mapbook auth login")
        }
        // The `revoked` fault: every token refused.
        let fresh = try await client.generateToken(username: "demo", password: "mapbook-demo")
        server.updateFaults { $0.revoked = true }
        await #expect(throws: PortalError.self) { _ = try await PortalClient(portal: server.baseURL, token: fresh.accessToken).signedInUser() }
    }

    @Test func theCredentialFileIsTheOwnersAloneAndADamagedOneIsSaid() throws {
        let tokens = SignInTokens(accessToken: "secret-access", expires: Date().addingTimeInterval(600))
        try store.save(StoredCredential(portal: "https://portal.example.com/", username: "u", method: .password, clientID: nil, tokens: tokens))
        var info = stat()
        #expect(stat(store.path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(stat(store.directory, &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(try store.credential(for: URL(string: "https://PORTAL.example.com/sharing/rest")!)?.username == "u")
        chmod(store.path, 0o644)
        #expect(throws: CredentialError("\(store.path) can be read by others, so mapbook will not use it: chmod 600 it, or sign in again.")) {
            _ = try store.load()
        }
        chmod(store.path, 0o600)
        _ = FileManager.default.createFile(atPath: store.path, contents: Data("{not json".utf8), attributes: [.posixPermissions: 0o600])
        #expect(throws: CredentialError("\(store.path) is damaged. Sign in again: mapbook auth login")) { _ = try store.load() }
        // Signing in again replaces a damaged file.
        try store.save(StoredCredential(portal: "https://portal.example.com", username: "u", method: .password, clientID: nil, tokens: tokens))
        #expect(try store.load().count == 1)
        #expect(try store.remove(portal: URL(string: "https://portal.example.com")!)?.username == "u" && (try store.load()).isEmpty)
        // An expired token that cannot be renewed: sign in again.
        try store.save(StoredCredential(portal: "https://old.example.com", username: "u", method: .password, clientID: nil,
                                        tokens: SignInTokens(accessToken: "x", expires: Date().addingTimeInterval(-5))))
        #expect(throws: CredentialError("Your sign-in to old.example.com has expired. Sign in again: mapbook auth login")) {
            _ = try store.session(for: URL(string: "https://old.example.com")!)
        }
    }

    private func credential(_ portal: String, token: String) -> StoredCredential {
        StoredCredential(portal: portal, username: "u", method: .password, clientID: nil,
                         tokens: SignInTokens(accessToken: token, expires: Date().addingTimeInterval(600)))
    }

    /// A world-readable file: logout still forgets this portal's token (and says it signed out),
    /// and a new sign-in keeps the other portals' and makes the file 0600 again.
    @Test func aWorldReadableFileIsStillCleanedAndNothingElseIsDropped() throws {
        try store.save(credential("https://a.example.com", token: "token-of-a"))
        try store.save(credential("https://b.example.com", token: "token-of-b"))
        chmod(store.path, 0o644)
        #expect(try store.remove(portal: URL(string: "https://a.example.com")!)?.tokens.accessToken == "token-of-a")
        let text = try String(contentsOfFile: store.path, encoding: .utf8)
        #expect(!text.contains("token-of-a") && text.contains("token-of-b"))
        var info = stat()
        #expect(stat(store.path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        chmod(store.path, 0o644)
        try store.save(credential("https://c.example.com", token: "token-of-c"))
        #expect(Set(try store.load().map(\.portal)) == ["https://b.example.com", "https://c.example.com"])
    }

    /// A symbolic link in the credential file's place is never written through (the link would be
    /// replaced and the tokens left where it pointed): refused, with a sentence.
    @Test func aSymbolicLinkIsRefusedNotFollowed() throws {
        try store.save(credential("https://a.example.com", token: "token-of-a"))
        let target = store.directory + "/elsewhere.json"
        try FileManager.default.moveItem(atPath: store.path, toPath: target)
        try FileManager.default.createSymbolicLink(atPath: store.path, withDestinationPath: target)
        for attempt in [{ _ = try store.remove(portal: URL(string: "https://a.example.com")!) },
                        { try store.save(credential("https://b.example.com", token: "token-of-b")) }] as [() throws -> Void] {
            #expect(throws: CredentialError.self) { try attempt() }
        }
        let error = #expect(throws: CredentialError.self) { _ = try store.load() }
        #expect(error?.userSentence.contains("not a plain file") == true)
        // The link and its target are as they were.
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: store.path)) == target)
        #expect(try String(contentsOfFile: target, encoding: .utf8).contains("token-of-a"))
    }

    @Test func aTokenThatCouldSplitALineIsNeverKept() {
        #expect(throws: CredentialError.self) { try store.save(credential("https://a.example.com", token: "tok\r\nX-Injected: yes")) }
        #expect(!FileManager.default.fileExists(atPath: store.path))
    }
}
