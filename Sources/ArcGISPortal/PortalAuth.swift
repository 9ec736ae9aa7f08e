import CCrypto
import Foundation
import HTTP
import MapbookCore
import Synchronization

/// What signing in gives: an access token with its expiry, and (OAuth) a refresh token.
public struct SignInTokens: Sendable, Equatable, Codable {
    public var accessToken: String
    public var expires: Date
    public var refreshToken: String?
    public var refreshExpires: Date?
    public var username: String?

    public init(accessToken: String, expires: Date, refreshToken: String? = nil, refreshExpires: Date? = nil, username: String? = nil) {
        self.accessToken = accessToken; self.expires = expires; self.refreshToken = refreshToken
        self.refreshExpires = refreshExpires; self.username = username
    }
}

/// OAuth 2.0's proof key (RFC 7636): a random verifier kept by mapbook, and its S256 challenge
/// sent with the authorize request.
public struct PKCE: Sendable, Equatable {
    public let verifier: String
    public var challenge: String { Self.challenge(of: verifier) }

    /// 64 characters from the unreserved set, from the system's secure generator.
    public init() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        verifier = String((0..<64).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    public init(verifier: String) { self.verifier = verifier }

    /// base64url (no padding) of the verifier's SHA-256.
    public static func challenge(of verifier: String) -> String {
        var digest = [UInt8](repeating: 0, count: Int(MB_SHA256_LENGTH))
        let bytes = Array(verifier.utf8)
        // It fails only without libcrypto, and then libcurl (which needs it) cannot load either:
        // no request that carries the challenge can be sent.
        _ = mb_sha256(bytes, bytes.count, &digest)
        return Data(digest).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// A client's sign-in: its token (none while signed out), and how to get a new one. Shared by the
/// copies of a `PortalClient` (the browser's, its download queue's), so one sign-in or refresh
/// serves them all. `refresh` is nil for a token that cannot be renewed (`MAPBOOK_TOKEN`, an API
/// key, a password's token).
public final class SignInSession: Sendable {
    public typealias Refresh = @Sendable () async throws -> SignInTokens
    public typealias Renewed = @Sendable (SignInTokens) -> Void
    private struct State {
        var token: String?; var expires: Date?; var refresh: Refresh?; var renewed: Renewed?
        /// Servers asked whether they are federated with the portal, and the answer (by root).
        var federated: [String: Bool] = [:]
        /// The roots of the servers the portal lists as federated; nil until asked.
        var federatedServers: Set<String>?
    }
    private let state: Mutex<State>

    public init(token: String?, expires: Date? = nil, refresh: Refresh? = nil, renewed: Renewed? = nil) {
        state = Mutex(State(token: token, expires: expires, refresh: refresh, renewed: renewed))
    }

    /// Signed out, until `signIn`.
    public static func signedOut() -> SignInSession { SignInSession(token: nil) }

    public var token: String? { state.withLock { $0.token } }

    /// Takes a new sign-in: its token from now on, renewed by `refresh` when it has one.
    public func signIn(_ tokens: SignInTokens, refresh: Refresh? = nil, renewed: Renewed? = nil) {
        state.withLock {
            $0 = State(token: tokens.accessToken, expires: tokens.expires, refresh: refresh, renewed: renewed,
                       federated: $0.federated, federatedServers: $0.federatedServers)
        }
    }

    public func signOut() { state.withLock { $0 = State() } }

    /// Whether the token may go to a server (by its root); nil when it was not worked out yet.
    func isFederated(_ root: String) -> Bool? { state.withLock { $0.federated[root] } }

    func setFederated(_ root: String, _ federated: Bool) { state.withLock { $0.federated[root] = federated } }

    var federatedServers: Set<String>? {
        get { state.withLock { $0.federatedServers } }
        set { state.withLock { $0.federatedServers = newValue } }
    }

    /// Within a minute of its expiry (or past it), and renewable.
    var needsRefresh: Bool {
        state.withLock { state in
            guard state.refresh != nil, let expires = state.expires else { return false }
            return expires.timeIntervalSinceNow < 60
        }
    }

    var canRefresh: Bool { state.withLock { $0.refresh != nil } }

    /// A new token from the refresher; throws what it throws.
    func refresh() async throws {
        guard let (refresher, renewed) = state.withLock({ state in state.refresh.map { ($0, state.renewed) } }) else { return }
        let tokens = try await refresher()
        state.withLock {
            $0.token = tokens.accessToken
            $0.expires = tokens.expires
        }
        renewed?(tokens)
    }
}

public struct SignInError: UserFacingError, Equatable {
    public let userMessage: String
    public init(_ message: String) { userMessage = message }
}

/// Signing in to a portal: OAuth 2.0 with PKCE (authorize URL, code exchange, refresh, revoke) and
/// `generateToken` for a username and password. Every secret travels in a POST body, never in a URL.
extension PortalClient {
    public static let outOfBandRedirect = "urn:ietf:wg:oauth:2.0:oob"

    /// Where the user approves mapbook: `{rest}/oauth2/authorize` with the client id, the code
    /// response type, the redirect, the `state` to check and the PKCE challenge.
    public func authorizeURL(clientID: String, redirectURI: String, state: String, pkce: PKCE) -> URL {
        request(["oauth2", "authorize"], query: [
            ("client_id", clientID), ("response_type", "code"), ("redirect_uri", redirectURI), ("state", state),
            ("code_challenge", pkce.challenge), ("code_challenge_method", "S256"), ("expiration", "20160"),
        ], json: false).url
    }

    /// Refuses a sign-in over plain http to another machine: the password, code or tokens would
    /// cross the network readable. Loopback (the sample portal) is allowed.
    public func requireSecureSignIn() throws {
        guard portalURL.scheme?.lowercased() == "https" || isLoopback else {
            throw SignInError("\(host) is plain http: mapbook signs in only over https, so no password or token crosses the network readable.")
        }
    }

    /// `oauth2/token` with the code the redirect brought and the PKCE verifier.
    public func exchangeCode(_ code: String, clientID: String, redirectURI: String, pkce: PKCE) async throws -> SignInTokens {
        try requireSecureSignIn()
        return try tokens(from: try await post(["oauth2", "token"], form: [
            ("client_id", clientID), ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
            ("code_verifier", pkce.verifier),
        ]))
    }

    /// A new access token for a refresh token.
    public func refresh(_ refreshToken: String, clientID: String) async throws -> SignInTokens {
        try requireSecureSignIn()
        var tokens = try tokens(from: try await post(["oauth2", "token"], form: [
            ("client_id", clientID), ("grant_type", "refresh_token"), ("refresh_token", refreshToken),
        ]))
        tokens.refreshToken = tokens.refreshToken ?? refreshToken
        return tokens
    }

    /// `oauth2/revokeToken`: the token (a refresh token revokes its access tokens too) no longer works.
    public func revoke(_ token: String, clientID: String) async throws {
        _ = try await post(["oauth2", "revokeToken"], form: [("client_id", clientID), ("token", token), ("token_type_hint", "refresh_token")])
    }

    /// `generateToken` for a username and password (ArcGIS Enterprise, scripts). POST only, and
    /// refused over plain http except to this machine: the password would cross the network readable.
    public func generateToken(username: String, password: String, minutes: Int = 120) async throws -> SignInTokens {
        try requireSecureSignIn()
        let json: JSONValue
        do {
            json = try await post(["generateToken"], form: [
                ("username", username), ("password", password), ("client", "referer"), ("referer", portalURL.absoluteString),
                ("expiration", String(minutes)),
            ])
        } catch let error as PortalError where [.rejected(code: 400), .noAccess, .tokenRequired].contains(error.kind) {
            // ArcGIS answers a wrong username or password with 400 "Unable to generate token."
            // (the word "password" is only sometimes there).
            throw SignInError("\(host) did not accept that username and password.")
        }
        guard let token = json["token"]?.string else { throw SignInError("\(host) answered generateToken without a token.") }
        try Self.checkToken(token)
        let expires = json["expires"]?.double.map { Date(timeIntervalSince1970: $0 / 1000) } ?? Date().addingTimeInterval(Double(minutes) * 60)
        guard expires > Date() else {
            throw SignInError("\(host) gave a token that had already expired (\(Format.date(expires, time: true))); check this computer's clock, then sign in again.")
        }
        return SignInTokens(accessToken: token, expires: expires, username: username)
    }

    /// The signed-in user's name (`community/self`).
    public func signedInUser() async throws -> String? {
        try await getJSON(["community", "self"], query: [], about: nil)["username"]?.string
    }

    /// A form POST to `{rest}/path` whose answer is JSON, error bodies typed as for GETs.
    private func post(_ path: [String], form: [(String, String)]) async throws -> JSONValue {
        try await getJSON(formPost(base: restURL, path, form: form), about: nil)
    }

    /// A token the portal gave that could split a header or a line is refused, never kept.
    static func checkToken(_ token: String) throws {
        guard Secrets.isAcceptableToken(token) else {
            throw SignInError("The portal's answer held a token with spaces or control characters in it; it was not kept.")
        }
    }

    private func tokens(from json: JSONValue) throws -> SignInTokens {
        guard let access = json["access_token"]?.string else { throw SignInError("\(host) answered without an access token.") }
        try Self.checkToken(access)
        if let refresh = json["refresh_token"]?.string { try Self.checkToken(refresh) }
        let now = Date()
        return SignInTokens(accessToken: access, expires: now.addingTimeInterval(json["expires_in"]?.double ?? 1800),
                            refreshToken: json["refresh_token"]?.string,
                            refreshExpires: json["refresh_token_expires_in"]?.double.map { now.addingTimeInterval($0) },
                            username: json["username"]?.string)
    }
}
