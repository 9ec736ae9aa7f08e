import Foundation
import HTTP
import MapbookCore
import ArcGISModel

/// Reading the portal's answers: kept answers asked about first (a 304 from the address's own
/// origin stands in for the body), ArcGIS error bodies (sent with HTTP 200) typed, the server's
/// words shown with the request's secrets taken out, HTTP statuses that mean the same typed alike.
extension PortalClient {
    func readJSON(_ request: HTTPRequest, about id: ItemID?) async throws -> JSONValue {
        let secrets = Secrets.carried(by: request)
        return try await send(request, about: id) { response in
            let json: JSONValue
            do {
                json = try JSONValue(parsing: response.body)
            } catch {
                // A web page (a proxy's sign-in page, a wrong address) is named as one, not quoted;
                // nor is anything that answered a request carrying a secret (it may echo it).
                let start = String(decoding: response.body.prefix(40), as: UTF8.self)
                let page = start.trimmingCharacters(in: .whitespacesAndNewlines).lowercased().hasPrefix("<")
                    || response.headers["content-type"]?.lowercased().contains("html") == true
                let message = page ? "a web page, not JSON" : request.body != nil || !secrets.isEmpty ? "not JSON" : "not JSON: \(start)"
                throw PortalError(.malformedResponse, host: request.url.host ?? host, serverMessage: message, itemID: id)
            }
            if let error = arcGISError(json, about: id, redacting: secrets, request: request) { throw error }
            return json
        }
    }

    /// The answer to `request`, read by `read`. A kept answer is asked about first: when the portal
    /// says it has not changed (304), the kept body stands in — only if the 304 came from the
    /// address's own origin. A kept body that no longer reads is forgotten and the request asked
    /// again without validators. A new answer is kept only once `read` accepted it: ArcGIS sends its
    /// errors with HTTP 200.
    func send<T>(_ request: HTTPRequest, about id: ItemID?, read: (HTTPResponse) throws -> T) async throws -> T {
        // Whether this request carries a credential: its answer is kept apart from anonymous ones.
        let signedIn = Self.carriesToken(request)
        var entry = request.method == "GET" ? cache?.entry(for: request.url, signedIn: signedIn) : nil
        while true {
            var asked = request
            if let entry { asked.headers += HTTPCache.validators(of: entry) }
            let response: HTTPResponse
            do {
                response = try await http.send(asked)
            } catch {
                throw translate(error, about: id, request: request)
            }
            if response.status == 304 {
                if let kept = entry, HTTPCache.sameOrigin(response, as: request.url),
                   let value = try? read(HTTPResponse(status: 200, headers: response.headers, body: kept.body, url: response.url)) {
                    return value
                }
                cache?.forget(request.url, signedIn: signedIn)
                guard entry != nil else {
                    throw PortalError(.malformedResponse, host: response.url.host ?? host, serverMessage: "an answer of 304 to a question not asked", itemID: id)
                }
                entry = nil
                continue
            }
            let value = try read(response)
            cache?.keep(response, for: request.url, signedIn: signedIn)
            return value
        }
    }

    /// Thumbnails are bytes, but an error still comes as a JSON error body.
    func checkErrorBody(_ response: HTTPResponse, about id: ItemID, request: HTTPRequest) throws {
        guard response.body.first == UInt8(ascii: "{"), let json = try? JSONValue(parsing: response.body) else { return }
        if let error = arcGISError(json, about: id, redacting: [], request: request) { throw error }
    }

    /// The answer's error body, typed; the server's words with any secret the request carried
    /// taken out (a server may echo what it was sent).
    func arcGISError(_ json: JSONValue, about id: ItemID?, redacting secrets: [String], request: HTTPRequest) -> PortalError? {
        guard let error = json["error"], error.object != nil else { return nil }
        let code = error["code"]?.int64.map(Int.init) ?? 0
        var message = error["message"]?.string ?? ""
        let details = error["details"]?.stringArray ?? []
        if !details.isEmpty { message += (message.isEmpty ? "" : " ") + details.joined(separator: " ") }
        message = Secrets.redact(message, secrets + [session?.token].compactMap { $0 })
        return PortalError(PortalError.kind(forArcGISCode: code, message: message), host: request.url.host ?? host,
                           serverMessage: message, itemID: id, tokenSent: Self.carriesToken(request), tokenWithheld: session?.token != nil)
    }

    /// HTTP statuses that mean the same as ArcGIS codes become the same typed errors.
    func translate(_ error: HTTPError, about id: ItemID?, request: HTTPRequest) -> any Error {
        guard case .status(let code, _, _) = error, [401, 403, 404, 498, 499].contains(code) else { return error }
        return PortalError(PortalError.kind(forArcGISCode: code, message: ""), host: request.url.host ?? host, itemID: id,
                           tokenSent: Self.carriesToken(request), tokenWithheld: session?.token != nil)
    }

    static func carriesToken(_ request: HTTPRequest) -> Bool {
        request.headers.contains { Redirect.credentialHeaders.contains($0.0.lowercased()) }
    }
}
