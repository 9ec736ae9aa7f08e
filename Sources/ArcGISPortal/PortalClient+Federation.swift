import Foundation
import HTTP
import MapbookCore
import ArcGISModel

/// Who may receive the signed-in token besides the portal itself (docs/auth.md): ArcGIS Online's
/// own services, and the servers an ArcGIS Enterprise portal vouches for as federated.
extension PortalClient {
    /// Who may receive the token (docs/auth.md): the portal's own origin; from ArcGIS Online its
    /// own services (`*.arcgis.com`, over https); from ArcGIS Enterprise the servers the portal
    /// itself lists as federated (`learnFederation`). A server's own claim is never enough.
    func mayCarryToken(_ url: URL) -> Bool {
        if url.origin == portalURL.origin { return true }
        if isArcGISOnline { return url.scheme?.lowercased() == "https" && Self.isArcGISHost(url.host) }
        guard let root = Self.serverRoot(of: url) else { return false }
        return session?.isFederated(root) == true
    }

    /// Whether the portal is an ArcGIS Enterprise portal (`portals/self` → `isPortal`); nil when it
    /// cannot be told (offline, no answer in a few seconds).
    public func isEnterprise() async -> Bool? {
        var asked = request(["portals", "self"], query: [])
        asked.deadline = .seconds(5)
        return try? await getJSON(asked, about: nil)["isPortal"]?.bool
    }

    /// ArcGIS Online (or one of its organisations' addresses).
    public var isArcGISOnline: Bool { portalURL.scheme?.lowercased() == "https" && Self.isArcGISHost(portalURL.host) }

    private static func isArcGISHost(_ host: String?) -> Bool {
        guard let host = host?.lowercased() else { return false }
        return host == "arcgis.com" || host.hasSuffix(".arcgis.com")
    }

    /// A server's root, as the portal lists it (`https://host/server`) or as a service's address
    /// begins (the part before `/rest/`): origin and path, lower-cased, no trailing slash.
    static func serverRoot(of url: URL) -> String? {
        guard url.host != nil else { return nil }
        var path = url.path.lowercased()
        if let rest = path.range(of: "/rest/") ?? (path.hasSuffix("/rest") ? path.range(of: "/rest", options: .backwards) : nil) {
            path = String(path[..<rest.lowerBound])
        }
        while path.hasSuffix("/") { path.removeLast() }
        return url.origin + path
    }

    /// Before a signed-in request to a service on another server of an ArcGIS Enterprise portal:
    /// whether the token may go there. Only when the portal lists the server among its federated
    /// servers (`portals/{id}/servers`, asked of the portal once per session, with the token) and
    /// the server's own `rest/info` (asked without the token) names the portal as its
    /// `owningSystemUrl`. Over https only (or between loopback addresses, for tests). Remembered
    /// per server for the session.
    func learnFederation(of serviceURL: URL) async {
        guard let session, session.token != nil, !isArcGISOnline, !mayCarryToken(serviceURL),
              let root = Self.serverRoot(of: serviceURL), session.isFederated(root) == nil else { return }
        let loopback = ["127.0.0.1", "localhost", "::1"]
        let secure = serviceURL.scheme?.lowercased() == "https" || (isLoopback && loopback.contains(serviceURL.host ?? ""))
        guard secure, await federatedServers(session).contains(root),
              var info = URLComponents(string: root + "/rest/info") else {
            session.setFederated(root, false)
            return
        }
        info.queryItems = [URLQueryItem(name: "f", value: "json")]
        var federated = false
        var asked = info.url.map { HTTPRequest(url: $0) }
        // The server is not trusted yet: its answer may not hold up every request to it for long.
        asked?.deadline = .seconds(10)
        if let asked, let answer = try? await http.send(asked), answer.status == 200, HTTPCache.sameOrigin(answer, as: asked.url),
           let owner = (try? JSONValue(parsing: answer.body))?["owningSystemUrl"]?.string {
            federated = PortalAddress.key(owner) == PortalAddress.key(portalURL.absoluteString)
        }
        session.setFederated(root, federated)
    }

    /// The roots of the servers the portal says are federated with it: `portals/self` gives its id,
    /// `portals/{id}/servers` the list. Asked once per session; none when the portal will not say.
    private func federatedServers(_ session: SignInSession) async -> Set<String> {
        if let known = session.federatedServers { return known }
        var roots: Set<String> = []
        if let id = try? await getJSON(["portals", "self"], query: [], about: nil)["id"]?.string, !id.isEmpty,
           let listed = try? await getJSON(["portals", id, "servers"], query: [], about: nil)["servers"]?.array {
            for server in listed {
                if let text = server["url"]?.string, let url = URL(string: text), let root = Self.serverRoot(of: url) { roots.insert(root) }
            }
        }
        session.federatedServers = roots
        return roots
    }
}
