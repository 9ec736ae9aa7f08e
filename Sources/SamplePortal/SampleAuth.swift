import CCrypto
import Foundation
import LoopbackHTTP
import MapbookCore
import Synchronization

/// The sample portal's signed-in world, as ArcGIS Online has it: `generateToken` (POST only),
/// OAuth 2.0 `oauth2/authorize` (a small approve page that redirects with a code),
/// `oauth2/token` (the authorization code with PKCE verification, and refresh tokens) and
/// `oauth2/revokeToken`. Tokens it issued open the private web map and name their user in
/// `portals/self` and `community/self`.
final class SampleAuth: Sendable {
    /// The demo user (docs/auth.md).
    static let username = "demo"
    static let password = "mapbook-demo"
    static let fullName = "Demo User"
    /// How long a token lives unless the `tokenExpiry` fault says otherwise.
    static let tokenLifetime: TimeInterval = 2 * 60 * 60
    static let refreshLifetime: TimeInterval = 14 * 24 * 60 * 60
    static let outOfBand = "urn:ietf:wg:oauth:2.0:oob"
    /// The demo user's group and folders.
    static let groupID = "f1e1dc0a2b3c4d5e6f708192a3b4c5d6"
    static let groupTitle = "Field Crew"
    static let folders = [(id: "a1b2c3d4e5f60718293a4b5c6d7e8f90", title: "Field work"), (id: "b2c3d4e5f60718293a4b5c6d7e8f9a01", title: "Archive")]

    private struct Code { var user: String; var clientID: String; var redirectURI: String; var challenge: String; var used: Bool }
    private struct State {
        var codes: [String: Code] = [:]
        var tokens: [String: (user: String, expires: Date)] = [:]
        var refreshTokens: [String: (user: String, clientID: String, expires: Date)] = [:]
    }
    private let state = Mutex(State())

    /// Who a request's `X-Esri-Authorization` names: nobody (no header), a user, or an invalid token.
    enum Caller: Equatable { case anonymous, user(String), invalid }

    func caller(_ request: LoopbackRequest, faults: SampleFaults) -> Caller {
        guard let header = request.headers["x-esri-authorization"] else { return .anonymous }
        let token = header.hasPrefix("Bearer ") ? String(header.dropFirst(7)) : header
        if token == SampleCatalog.validToken { return faults.revoked ? .invalid : .user(Self.username) }
        guard !faults.revoked, let issued = state.withLock({ $0.tokens[token] }), issued.expires > Date() else { return .invalid }
        return .user(issued.user)
    }

    /// Answers the auth operations under `sharing/rest`; nil for any other path.
    func respond(_ request: LoopbackRequest, parts: [String], faults: SampleFaults) -> LoopbackResponse? {
        switch parts {
        case ["generateToken"]: return generateToken(request, faults: faults)
        case ["oauth2", "authorize"]: return authorizePage(request)
        case ["oauth2", "authorize", "approve"]: return approve(request)
        case ["oauth2", "token"]: return token(request, faults: faults)
        case ["oauth2", "revokeToken"]: return revoke(request)
        default: return nil
        }
    }

    // MARK: Operations

    private func generateToken(_ request: LoopbackRequest, faults: SampleFaults) -> LoopbackResponse {
        guard request.method == "POST" else {
            return SampleREST.json(SampleREST.error(405, "Method not supported.", details: ["generateToken takes POST only."]))
        }
        let form = Self.form(request.body)
        guard form["username"] == Self.username, form["password"] == Self.password else {
            return SampleREST.json(SampleREST.error(400, "Unable to generate token.", details: ["Invalid username or password."]))
        }
        let (token, expires) = issue(user: Self.username, faults: faults)
        return SampleREST.json(.object(["token": .string(token), "expires": .number((expires.timeIntervalSince1970 * 1000).rounded()),
                                        "ssl": .bool(false)]))
    }

    private func authorizePage(_ request: LoopbackRequest) -> LoopbackResponse {
        let q = request.query
        guard q["response_type"] == "code", let clientID = q["client_id"], !clientID.isEmpty, let redirect = q["redirect_uri"],
              q["code_challenge_method"] == "S256", let challenge = q["code_challenge"], !challenge.isEmpty else {
            return .text("Invalid request: client_id, response_type=code, redirect_uri and an S256 code_challenge are needed.", status: 400)
        }
        func hidden(_ name: String, _ value: String) -> String { "<input type=\"hidden\" name=\"\(name)\" value=\"\(Self.escape(value))\">" }
        let html = """
            <!doctype html><html><head><title>Sign in to mapbook sample portal</title></head><body>
            <h1>Sign in</h1><p>Application \(Self.escape(clientID)) asks to use your account.</p>
            <form method="post" action="/sharing/rest/oauth2/authorize/approve">
            \(hidden("client_id", clientID))\(hidden("redirect_uri", redirect))\(hidden("state", q["state"] ?? ""))\(hidden("code_challenge", challenge))
            <label>Username <input name="username"></label> <label>Password <input name="password" type="password"></label>
            <button type="submit">Approve</button></form></body></html>
            """
        return LoopbackResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8")], body: Data(html.utf8))
    }

    private func approve(_ request: LoopbackRequest) -> LoopbackResponse {
        let form = Self.form(request.body)
        guard request.method == "POST", let clientID = form["client_id"], let redirect = form["redirect_uri"], let challenge = form["code_challenge"] else {
            return .text("Invalid request.", status: 400)
        }
        guard form["username"] == Self.username, form["password"] == Self.password else {
            return .text("Invalid username or password.", status: 401)
        }
        let code = Self.random()
        state.withLock { $0.codes[code] = Code(user: Self.username, clientID: clientID, redirectURI: redirect, challenge: challenge, used: false) }
        if redirect == Self.outOfBand {
            let html = "<!doctype html><html><body><p>Copy this code into mapbook:</p><p id=\"code\">\(code)</p></body></html>"
            return LoopbackResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8")], body: Data(html.utf8))
        }
        var components = URLComponents(string: redirect)
        let existing = components?.queryItems ?? []
        components?.queryItems = existing + [URLQueryItem(name: "code", value: code)]
            + (form["state"].map { [URLQueryItem(name: "state", value: $0)] } ?? [])
        return LoopbackResponse(status: 302, headers: [("Location", components?.url?.absoluteString ?? redirect)], body: Data())
    }

    private func token(_ request: LoopbackRequest, faults: SampleFaults) -> LoopbackResponse {
        let form = Self.form(request.body)
        guard request.method == "POST" else { return oauthError("invalid_request", "POST only.") }
        switch form["grant_type"] {
        case "authorization_code":
            guard let code = form["code"], let verifier = form["code_verifier"] else { return oauthError("invalid_request", "code and code_verifier are needed.") }
            let found: Code? = state.withLock { state in
                guard let entry = state.codes[code], !entry.used else { return nil }
                state.codes[code]?.used = true
                return entry
            }
            guard let entry = found else { return oauthError("invalid_grant", "Invalid authorization code.") }
            guard entry.clientID == form["client_id"], entry.redirectURI == form["redirect_uri"] else {
                return oauthError("invalid_grant", "Invalid client_id or redirect_uri.")
            }
            guard Self.challenge(of: verifier) == entry.challenge else { return oauthError("invalid_grant", "Invalid code_verifier.") }
            let (access, expires) = issue(user: entry.user, faults: faults)
            let refresh = Self.random()
            state.withLock { $0.refreshTokens[refresh] = (entry.user, entry.clientID, Date().addingTimeInterval(Self.refreshLifetime)) }
            return SampleREST.json(.object([
                "access_token": .string(access), "expires_in": .number(expires.timeIntervalSinceNow.rounded()), "username": .string(entry.user),
                "refresh_token": .string(refresh), "refresh_token_expires_in": .number(Self.refreshLifetime), "ssl": .bool(false),
            ]))
        case "refresh_token":
            guard let refresh = form["refresh_token"] else { return oauthError("invalid_request", "refresh_token is needed.") }
            let entry = state.withLock { $0.refreshTokens[refresh] }
            guard !faults.revoked, let entry, entry.expires > Date(), entry.clientID == form["client_id"] else {
                return oauthError("invalid_grant", "Invalid refresh_token.")
            }
            let (access, expires) = issue(user: entry.user, faults: faults)
            return SampleREST.json(.object(["access_token": .string(access), "expires_in": .number(expires.timeIntervalSinceNow.rounded()),
                                            "username": .string(entry.user), "ssl": .bool(false)]))
        default:
            return oauthError("unsupported_grant_type", "Unsupported grant type.")
        }
    }

    private func revoke(_ request: LoopbackRequest) -> LoopbackResponse {
        let form = Self.form(request.body)
        guard request.method == "POST", let token = form["token"] ?? form["auth_token"] else {
            return SampleREST.json(SampleREST.error(400, "Invalid request.", details: ["token is needed."]))
        }
        state.withLock {
            $0.tokens[token] = nil
            $0.refreshTokens[token] = nil
        }
        return SampleREST.json(.object(["success": .bool(true)]))
    }

    /// `community/self` for a signed-in caller.
    static func communitySelf(user: String) -> JSONValue {
        .object(["username": .string(user), "fullName": .string(fullName), "role": .string("org_user"), "culture": .string("en-us"),
                 "groups": .array([.object(["id": .string(groupID), "title": .string(groupTitle), "owner": .string(user)])])])
    }

    // MARK: Helpers

    private func issue(user: String, faults: SampleFaults) -> (String, Date) {
        let token = Self.random()
        let expires = Date().addingTimeInterval(faults.tokenExpirySeconds.map(TimeInterval.init) ?? Self.tokenLifetime)
        state.withLock { $0.tokens[token] = (user, expires) }
        return (token, expires)
    }

    /// ArcGIS's OAuth errors: HTTP 200, an error body with the OAuth error code.
    private func oauthError(_ error: String, _ description: String) -> LoopbackResponse {
        SampleREST.json(.object(["error": .object(["code": .number(400), "error": .string(error), "error_description": .string(description),
                                                   "message": .string(description), "details": .array([])])]))
    }

    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<24).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// The S256 challenge of a verifier: base64url of its SHA-256, without padding.
    static func challenge(of verifier: String) -> String {
        var digest = [UInt8](repeating: 0, count: Int(MB_SHA256_LENGTH))
        let bytes = Array(verifier.utf8)
        _ = mb_sha256(bytes, bytes.count, &digest)
        return Data(digest).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// A form-encoded body.
    static func form(_ body: Data) -> [String: String] {
        var result: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ s: Substring) -> String { String(s).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(s) }
            result[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return result
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
