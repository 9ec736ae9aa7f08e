import Foundation
import HTTP
import MapbookCore
import ArcGISModel

/// The ArcGIS portal REST API (`{portal}/sharing/rest`), as ArcGIS Online and ArcGIS Enterprise
/// serve it. Every JSON answer is checked for an error body, since ArcGIS reports errors with
/// HTTP 200 and `{"error":{…}}`.
public struct PortalClient: Sendable {
    public static let arcGISOnline = URL(string: "https://www.arcgis.com")!

    /// The portal's root, e.g. `https://www.arcgis.com` or `https://host/portal`.
    public let portalURL: URL
    /// `{portal}/sharing/rest`.
    public let restURL: URL
    public var host: String { portalURL.host ?? portalURL.absoluteString }

    let http: HTTPClient
    /// The signed-in token, shared by copies of this client; nil when anonymous.
    let session: SignInSession?

    /// For API answers someone waits on: a portal that sends nothing for 10 s is not answering (a
    /// download's watchdog waits longer).
    /// Nor may one answer take more than two minutes in all, however slowly its bytes keep coming.
    public static let apiHTTP = HTTPClient(configuration: HTTPConfiguration(stallTimeout: .seconds(10), deadline: .seconds(120)))

    /// Area2Package look-ups run this many at a time.
    private static let parallelLookups = 8

    /// `portal` may be given with or without `/sharing/rest`. The token, when given, travels in the
    /// `X-Esri-Authorization` header, never in a URL, so it cannot leak into logs or error messages.
    /// Answers kept with their validators, asked about again rather than fetched again; nil for none.
    let cache: HTTPCache?

    /// How requests are addressed: as the REST API has them, or (a fleet mirror) as the files that
    /// answer them (`MirrorLayout.file`), so a static host serves them with no rewrites.
    public enum Addressing: Sendable { case rest, files }
    let addressing: Addressing
    /// A fleet mirror's own credential (a private bucket's bearer token), sent as `Authorization`
    /// to the mirror's origin only: never the portal's token, never to another host.
    let mirrorBearer: String?
    /// Below this rate over its window, any request is given up (a fleet mirror's: it is there to be fast).
    let minimumRate: (bytesPerSecond: Int, window: Duration)?

    public init(portal: URL, token: String? = nil, http: HTTPClient = PortalClient.apiHTTP, cache: HTTPCache? = nil) {
        self.init(portal: portal, session: token.flatMap { $0.isEmpty ? nil : SignInSession(token: $0) }, http: http, cache: cache)
    }

    /// Signed in with `session`, whose token is renewed (once) when the portal says it expired.
    public init(portal: URL, session: SignInSession?, http: HTTPClient = PortalClient.apiHTTP, cache: HTTPCache? = nil,
                addressing: Addressing = .rest, mirrorBearer: String? = nil, minimumRate: (bytesPerSecond: Int, window: Duration)? = nil) {
        var root = portal.absoluteString
        while root.hasSuffix("/") { root.removeLast() }
        if root.hasSuffix("/sharing/rest") { root.removeLast("/sharing/rest".count) }
        portalURL = URL(string: root) ?? portal
        restURL = URL(string: root + "/sharing/rest") ?? portal
        self.http = http
        self.cache = cache
        self.session = session
        self.addressing = addressing
        self.mirrorBearer = addressing == .files ? mirrorBearer.flatMap { Secrets.isAcceptableToken($0) ? $0 : nil } : nil
        self.minimumRate = minimumRate
    }

    /// Whether requests carry a token.
    public var isSignedIn: Bool { session?.token != nil }

    // MARK: Items

    /// `content/items/{id}?f=json`.
    public func item(_ id: ItemID) async throws -> PortalItem {
        let json = try await itemJSON(id)
        guard let item = PortalDecoding.item(json) else {
            throw PortalError(.malformedResponse, host: host, serverMessage: "item without an id", itemID: id)
        }
        return item
    }

    /// An item that must be a web map: anything else is a `wrongItemType` error.
    public func webMapItem(_ id: ItemID) async throws -> PortalItem {
        let found = try await item(id)
        guard found.type == "Web Map" else {
            throw PortalError(.wrongItemType(expected: "Web Map", actual: found.type), host: host, itemID: id)
        }
        return found
    }

    /// The raw JSON of an item (`content/items/{id}?f=json`), as a fleet mirror stages it.
    public func itemJSON(_ id: ItemID) async throws -> JSONValue {
        try await getJSON(["content", "items", id.rawValue], query: [], about: id)
    }

    /// The raw JSON of an item's data (`content/items/{id}/data?f=json`), as kept by the offline library.
    public func itemDataJSON(_ id: ItemID) async throws -> JSONValue {
        try await getJSON(["content", "items", id.rawValue, "data"], query: [], about: id)
    }

    /// A web map's definition: basemap, layers, viewpoint, bookmarks, offline settings.
    public func webMap(_ id: ItemID) async throws -> WebMap {
        PortalDecoding.webMap(try await itemDataJSON(id))
    }

    /// `content/items/{id}/relatedItems?relationshipType=…&direction=…&f=json`.
    public func relatedItems(of id: ItemID, relationship: String, direction: RelationshipDirection = .forward)
        async throws -> [PortalItem] {
        try await relatedItemsJSON(of: id, relationship: relationship, direction: direction).items
    }

    /// The raw answer of `relatedItems`, and its items: what a fleet mirror stages.
    public func relatedItemsJSON(of id: ItemID, relationship: String, direction: RelationshipDirection = .forward)
        async throws -> (json: JSONValue, items: [PortalItem]) {
        let json = try await getJSON(["content", "items", id.rawValue, "relatedItems"],
                                     query: [("relationshipType", relationship), ("direction", direction.rawValue)],
                                     about: id)
        guard case .array(let items)? = json["relatedItems"] else {
            throw PortalError(.malformedResponse, host: host, serverMessage: "no relatedItems list", itemID: id)
        }
        return (json, items.compactMap(PortalDecoding.item))
    }

    /// Whether `bytes` hold this client's token: what is written for others to read (a fleet
    /// mirror) is checked before it is.
    public func holdsToken(_ bytes: Data) -> Bool {
        guard let token = session?.token, token.utf8.count >= 8 else { return false }
        return bytes.range(of: Data(token.utf8)) != nil
    }

    /// A web map's preplanned map areas (Map2Area), each with its packages (Area2Package), in the
    /// portal's order. Items that are not of type `Map Area` are skipped. An area whose package list
    /// the portal answers badly (an error body, or not the JSON the API promises) is listed as
    /// unavailable, with the reason; only a failure to reach the portal fails the whole list.
    ///
    /// The package lists are asked for eight at a time. When that takes a while (a web map with
    /// thousands of areas), `progress` is told the list so far every half second: every area, those
    /// whose packages are not known yet marked `packagesPending`, and how many are known.
    public func mapAreas(of webMap: ItemID, progress: (@Sendable (_ areas: [MapArea], _ known: Int) -> Void)? = nil)
        async throws -> [MapArea] {
        let areas = try await relatedItems(of: webMap, relationship: "Map2Area")
            .filter { $0.type.isEmpty || $0.type == "Map Area" }
        // A struct, not a labelled tuple: with a tuple, the optimizer (Swift 6.3, -O) handed every
        // result of this task group the first index.
        struct Lookup: Sendable {
            var index: Int
            var packages: Result<[PortalItem], PortalError>
        }
        func listed(_ found: [Int: Result<[PortalItem], PortalError>]) -> [MapArea] {
            areas.enumerated().map { index, area in
                switch found[index] {
                case .success(let items)?: PortalDecoding.mapArea(area, packages: items)
                case .failure(let error)?: PortalDecoding.mapArea(area, packages: [], unavailableReason: error.userSentence)
                case nil: PortalDecoding.mapArea(area, packages: [], pending: true)
                }
            }
        }
        let found = try await withThrowingTaskGroup(of: Lookup.self, returning: [Int: Result<[PortalItem], PortalError>].self) { group in
            var listing = Listing(report: progress.map { report in { report(listed($0), $0.count) } })
            for index in areas.indices {
                if index >= Self.parallelLookups, let done = try await group.next() { listing.add(done.index, done.packages) }
                let id = areas[index].id
                group.addTask { [index] in
                    do {
                        return Lookup(index: index, packages: .success(try await relatedItems(of: id, relationship: "Area2Package")))
                    } catch let error as PortalError {
                        return Lookup(index: index, packages: .failure(error))
                    }
                }
            }
            for try await done in group { listing.add(done.index, done.packages) }
            return listing.found
        }
        return listed(found)
    }

    /// The package lists found so far, told to `report` at most every half second.
    private struct Listing {
        var found: [Int: Result<[PortalItem], PortalError>] = [:]
        let report: (([Int: Result<[PortalItem], PortalError>]) -> Void)?
        private var reported = ContinuousClock.now

        init(report: (([Int: Result<[PortalItem], PortalError>]) -> Void)?) { self.report = report }

        mutating func add(_ index: Int, _ packages: Result<[PortalItem], PortalError>) {
            found[index] = packages
            guard let report, ContinuousClock.now - reported >= .milliseconds(500) else { return }
            reported = .now
            report(found)
        }
    }

    /// The item's thumbnail image bytes (`content/items/{id}/info/{thumbnail}`); nil if it has none.
    public func thumbnail(of item: PortalItem) async throws -> Data? {
        guard let name = item.thumbnail else { return nil }
        return try await thumbnail(of: item.id, named: name)
    }

    /// The largest thumbnail taken: real ones are a few hundred kilobytes at most.
    public static let maxThumbnailBytes = 2 << 20

    /// An item's thumbnail by its id and the name its item gives (`thumbnail/….png`), refused past
    /// `maxThumbnailBytes` (by `Content-Length`, else as it streams in).
    public func thumbnail(of id: ItemID, named name: String) async throws -> Data {
        let path = ["content", "items", id.rawValue, "info"] + name.split(separator: "/").map(String.init)
        guard !path.contains(where: { $0 == ".." || $0 == "." }) else {
            throw PortalError(.malformedResponse, host: host, serverMessage: "thumbnail name leaves the item", itemID: id)
        }
        var asked = request(path, query: [])
        asked.maxBodyBytes = Self.maxThumbnailBytes
        return try await send(asked, about: id) { response in
            try checkErrorBody(response, about: id, request: asked)
            return response.body
        }
    }

    /// `search?q=…`: one page of items, `num` at most 100 (the API's limit), `start` 1-based.
    public func search(_ query: String, start: Int = 1, num: Int = 20, sortField: String? = nil) async throws -> SearchPage {
        var parameters = [("q", query), ("start", String(max(start, 1))), ("num", String(min(max(num, 1), 100)))]
        if let sortField { parameters.append(("sortField", sortField)) }
        let json = try await getJSON(["search"], query: parameters, about: nil)
        let next = json["nextStart"]?.int64.map(Int.init) ?? -1
        return SearchPage(total: json["total"]?.int64.map(Int.init) ?? 0,
                          results: json["results"]?.array.compactMap(PortalDecoding.item) ?? [],
                          nextStart: next > 0 ? next : nil)
    }

    /// The portal's basemap gallery, as the maps apps find it: `portals/self` names the gallery's
    /// group by a query (`vectorBasemapGalleryGroupQuery` when the portal prefers vector basemaps,
    /// else `basemapGalleryGroupQuery`); `community/groups` finds the group; `search?q=group:ID` lists
    /// its web maps; each one's data holds its `baseMap`. Empty when the portal names no gallery.
    public func basemapGallery() async throws -> [BasemapChoice] {
        let portal = try await getJSON(["portals", "self"], query: [], about: nil)
        let vector = portal["useVectorBasemaps"]?.bool == true ? portal["vectorBasemapGalleryGroupQuery"]?.string : nil
        guard let query = vector ?? portal["basemapGalleryGroupQuery"]?.string, !query.isEmpty else { return [] }
        let groups = try await getJSON(["community", "groups"], query: [("q", query), ("num", "1")], about: nil)
        guard let group = groups["results"]?.array.first?["id"]?.string else { return [] }
        let items = try await search("group:\(group)", num: 100).results.filter { $0.type == "Web Map" }
        return try await withThrowingTaskGroup(of: Indexed<BasemapChoice>.self, returning: [BasemapChoice].self) { tasks in
            for (index, item) in items.enumerated() {
                tasks.addTask { Indexed(index, BasemapChoice(item: item, basemap: PortalDecoding.webMap(try await self.itemDataJSON(item.id)).basemap)) }
            }
            var found: [Int: BasemapChoice] = [:]
            for try await choice in tasks { found[choice.index] = choice.value }
            return items.indices.compactMap { found[$0] }
        }
    }

    /// Whether the portal answers at all: `GET {rest}?f=json` (the REST root, a few bytes), any HTTP
    /// answer counting. Quick to give up and never retried: the network monitor asks again.
    /// One light request to the portal's root (no token): whether it answers, and if not, whether
    /// the network or the portal is missing.
    public func probe() async -> NetworkState {
        var request = request([], query: [])
        request.headers = []
        do {
            _ = try await Self.probeClient.send(request)
            return .online
        } catch {
            return error.networkState
        }
    }

    private static let probeClient = HTTPClient(configuration: HTTPConfiguration(
        connectTimeout: .seconds(3), stallTimeout: .seconds(5), maxBodyBytes: 64 << 10, retry: .none))

    /// Whether the portal is on this machine (the sample portal): no route is needed to reach it.
    public var isLoopback: Bool { ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased()) }

    /// Where a package item's file is: `content/items/{id}/data` with no `f=json`, so the bytes come.
    public func packageRequest(_ id: ItemID) -> HTTPRequest {
        request(["content", "items", id.rawValue, "data"], query: [], json: false)
    }

    // MARK: -

    /// Builds `{rest}/{path}?{query}&f=json` with every part percent-encoded.
    func request(_ path: [String], query: [(String, String)], json: Bool = true) -> HTTPRequest {
        request(base: restURL, path, query: query, json: json)
    }

    /// The same under another base (a geocode service). The token goes only to the portal itself,
    /// and from ArcGIS Online to its own services (`*.arcgis.com`).
    func request(base: URL, _ path: [String], query: [(String, String)], json: Bool = true) -> HTTPRequest {
        if addressing == .files, base == restURL, let file = MirrorLayout.file(restPath: path, query: query, json: json) {
            return request(url: file.reduce(restURL) { $0.appendingPathComponent($1, isDirectory: false) })
        }
        var url = base
        for component in path { url.appendPathComponent(component, isDirectory: false) }
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        let items = query.map { URLQueryItem(name: $0.0, value: $0.1) } + (json ? [URLQueryItem(name: "f", value: "json")] : [])
        components.percentEncodedQueryItems = items.isEmpty ? nil : items.map {
            URLQueryItem(name: Self.formEncode($0.name), value: $0.value.map(Self.formEncode))
        }
        return request(url: components.url!)
    }

    /// A form POST to `{base}/{path}` with `f=json`: for secrets, and for parameters too long for an
    /// address (a route's stops), with the token as for a GET.
    func formPost(base: URL, _ path: [String], form: [(String, String)]) -> HTTPRequest {
        var request = request(base: base, path, query: [], json: false)
        request.method = "POST"
        request.headers.append(("Content-Type", "application/x-www-form-urlencoded"))
        request.body = Data((form + [("f", "json")]).map { "\(Self.formEncode($0.0))=\(Self.formEncode($0.1))" }.joined(separator: "&").utf8)
        return request
    }

    /// A GET of `url` as it is, with the token when the address may carry it (a mirror's: its own
    /// credential, on its own origin).
    func request(url: URL) -> HTTPRequest {
        var headers: [(String, String)] = []
        if let token = session?.token, Secrets.isAcceptableToken(token), mayCarryToken(url) {
            headers.append(("X-Esri-Authorization", "Bearer \(token)"))
        }
        if let mirrorBearer, url.origin == portalURL.origin {
            headers.append(("Authorization", "Bearer \(mirrorBearer)"))
        }
        var request = HTTPRequest(url: url, headers: headers)
        request.minimumRate = minimumRate
        return request
    }

    /// A GET of a file below the portal's root (a fleet mirror's `mirror.json`), credentials as for
    /// any request to it.
    public func request(file path: String) -> HTTPRequest {
        request(url: portalURL.appendingPathComponent(path))
    }

    private static let formSafe = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func formEncode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: formSafe) ?? text
    }

    func getJSON(_ path: [String], query: [(String, String)], about id: ItemID?) async throws -> JSONValue {
        try await getJSON(request(path, query: query), about: id)
    }

    /// A service's JSON operation: `{base}/{path}?{query}&f=json`, its error body typed; `deadline`
    /// bounds the whole answer (else the client's).
    func getJSON(_ base: URL, _ path: [String], query: [(String, String)], deadline: Duration? = nil) async throws -> JSONValue {
        var request = request(base: base, path, query: query)
        request.deadline = deadline
        return try await getJSON(request, about: nil)
    }

    /// A JSON answer, with a token renewed first when it is about to expire, and once more when the
    /// portal says it is no longer valid (498); a renewal that fails means signing in again.
    func getJSON(_ request: HTTPRequest, about id: ItemID?) async throws -> JSONValue {
        guard let session, session.canRefresh else { return try await readJSON(request, about: id) }
        if session.needsRefresh { try await renew(session) }
        do {
            return try await readJSON(withCurrentToken(request), about: id)
        } catch let error as PortalError where error.kind == .invalidToken {
            try await renew(session)
            return try await readJSON(withCurrentToken(request), about: id)
        }
    }

    private func renew(_ session: SignInSession) async throws {
        do {
            try await session.refresh()
        } catch let error as HTTPError where error.networkState.isCutOff {
            throw error
        } catch {
            throw SignInError("Your sign-in to \(host) has expired. Sign in again: mapbook auth login")
        }
    }

    /// The request with the session's token as it is now.
    private func withCurrentToken(_ request: HTTPRequest) -> HTTPRequest {
        guard let token = session?.token, Secrets.isAcceptableToken(token) else { return request }
        var renewed = request
        renewed.headers = request.headers.map { $0.0 == "X-Esri-Authorization" ? ($0.0, "Bearer \(token)") : $0 }
        return renewed
    }
}

public enum RelationshipDirection: String, Sendable {
    case forward, reverse
}

public struct SearchPage: Sendable, Equatable {
    public var total: Int
    public var results: [PortalItem]
    /// The `start` of the next page; nil on the last page.
    public var nextStart: Int?
}
