import Foundation
import MapbookCore
import ArcGISModel

/// The signed-in user's content and groups, and finding web maps and mobile map packages.
extension PortalClient {
    /// `community/self`: who is signed in, and their groups.
    public func me() async throws -> (username: String, groups: [PortalGroup]) {
        let json = try await getJSON(["community", "self"], query: [], about: nil)
        guard let username = json["username"]?.string else {
            throw PortalError(.tokenRequired, host: host, serverMessage: "community/self names no user", itemID: nil, tokenSent: isSignedIn)
        }
        let groups = (json["groups"]?.array ?? []).compactMap { group -> PortalGroup? in
            guard let id = group["id"]?.string else { return nil }
            return PortalGroup(id: id, title: group["title"]?.string ?? id)
        }
        return (username, groups)
    }

    /// `content/users/{user}[/{folder}]`: one page of the items at the root (or in a folder), the
    /// folders, and where the next page starts (nil on the last).
    public func userContent(_ username: String, folder: String? = nil, start: Int = 1,
                            num: Int = 100) async throws -> (items: [PortalItem], folders: [PortalFolder], nextStart: Int?) {
        let json = try await getJSON(["content", "users", username] + (folder.map { [$0] } ?? []),
                                     query: [("start", String(max(start, 1))), ("num", String(min(max(num, 1), 100)))], about: nil)
        let items = (json["items"]?.array ?? []).compactMap(PortalDecoding.item)
        let folders = (json["folders"]?.array ?? []).compactMap { folder -> PortalFolder? in
            guard let id = folder["id"]?.string else { return nil }
            return PortalFolder(id: id, title: folder["title"]?.string ?? id)
        }
        let next = json["nextStart"]?.int64.map(Int.init) ?? -1
        return (items, folders, next > start ? next : nil)
    }

    /// Where finding your web maps starts: the root of your content (its folders follow once it
    /// has been read).
    public func myContent() async throws -> WebMapCursor {
        WebMapCursor(sources: [.content(user: try await me().username, folder: nil)])
    }

    /// Where finding your groups' web maps starts: each group in turn.
    public func myGroups() async throws -> WebMapCursor {
        WebMapCursor(sources: try await me().groups.map(WebMapSource.group))
    }

    /// Web maps from `cursor` on: pages of `pageSize` items (100, the API's most) are read until
    /// `atLeast` web maps are found or nothing is left; the page says where the next one starts.
    public func webMaps(from cursor: WebMapCursor, atLeast: Int = 50, pageSize: Int = 100) async throws -> WebMapPage {
        try await items(ofType: "Web Map", from: cursor, atLeast: atLeast, pageSize: pageSize)
    }

    /// The portal's mobile map packages from `cursor` on, as `webMaps` finds web maps.
    public func mobileMapPackages(from cursor: WebMapCursor, atLeast: Int = 50, pageSize: Int = 100) async throws -> WebMapPage {
        try await items(ofType: PortalItem.mobileMapPackageType, from: cursor, atLeast: atLeast, pageSize: pageSize)
    }

    /// How far into one source (a folder, a group, a search) pages are followed.
    public static let maxItemsPerSource = 10_000

    /// Items of one `type` from `cursor` on: a user's content (its folders after its root), groups
    /// (`group:ID`) and searches (`(words) AND type:"…"`), read a page at a time.
    func items(ofType type: String, from cursor: WebMapCursor, atLeast: Int, pageSize: Int) async throws -> WebMapPage {
        var found: [FoundWebMap] = []
        var cursor = cursor
        while let source = cursor.sources.first, found.count < atLeast {
            var next: Int?
            switch source {
            case .content(let user, let folder):
                let page = try await userContent(user, folder: folder?.id, start: cursor.start, num: pageSize)
                found += page.items.filter { $0.type == type }.map { FoundWebMap(item: $0, place: folder?.title) }
                // The root lists the folders: each is read after it.
                if folder == nil, cursor.start == 1 {
                    cursor.sources += page.folders.map { WebMapSource.content(user: user, folder: $0) }
                }
                next = page.nextStart
            case .group(let group):
                let page = try await search("group:\(group.id) AND type:\"\(type)\"", start: cursor.start, num: pageSize)
                found += page.results.filter { $0.type == type }.map { FoundWebMap(item: $0, place: group.title) }
                next = page.nextStart
            case .search(let text):
                let page = try await search("(\(text)) AND type:\"\(type)\"", start: cursor.start, num: pageSize)
                found += page.results.filter { $0.type == type }.map { FoundWebMap(item: $0, place: nil) }
                next = page.nextStart
            }
            // ArcGIS lists at most 10,000 results of a search; a portal that pages past that without
            // end (or lists nothing of the type, page after page) is left there.
            if let next, next > cursor.start, next <= Self.maxItemsPerSource {
                cursor.start = next
            } else {
                cursor.sources.removeFirst()
                cursor.start = 1
            }
        }
        return WebMapPage(maps: found, next: cursor.sources.isEmpty ? nil : cursor)
    }

    /// Every web map from `cursor` on, up to `limit`, each once.
    public func allWebMaps(from cursor: WebMapCursor, limit: Int = 1_000) async throws -> [FoundWebMap] {
        try await all(ofType: "Web Map", from: cursor, limit: limit)
    }

    /// Every mobile map package item from `cursor` on, up to `limit`, each once.
    public func allMobileMapPackages(from cursor: WebMapCursor, limit: Int = 1_000) async throws -> [FoundWebMap] {
        try await all(ofType: PortalItem.mobileMapPackageType, from: cursor, limit: limit)
    }

    private func all(ofType type: String, from cursor: WebMapCursor, limit: Int) async throws -> [FoundWebMap] {
        var found: [FoundWebMap] = []
        var next: WebMapCursor? = cursor
        while let cursor = next, found.count < limit {
            let page = try await items(ofType: type, from: cursor, atLeast: limit - found.count, pageSize: 100)
            for map in page.maps where !found.contains(where: { $0.item.id == map.item.id }) { found.append(map) }
            next = page.next
        }
        return Array(found.prefix(limit))
    }
}
