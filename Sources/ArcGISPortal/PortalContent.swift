import Foundation
import MapbookCore

/// A folder of a user's content.
public struct PortalFolder: Sendable, Equatable {
    public var id: String
    public var title: String
    public init(id: String, title: String) { self.id = id; self.title = title }
}

/// A group the signed-in user belongs to.
public struct PortalGroup: Sendable, Equatable {
    public var id: String
    public var title: String
    public init(id: String, title: String) { self.id = id; self.title = title }
}

/// The signed-in user's content and groups, and finding web maps.
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

    /// `content/users/{user}[/{folder}]`: the items at the root (or in a folder) and the folders.
    public func userContent(_ username: String, folder: String? = nil) async throws -> (items: [PortalItem], folders: [PortalFolder]) {
        let json = try await getJSON(["content", "users", username] + (folder.map { [$0] } ?? []), query: [("num", "100")], about: nil)
        let items = (json["items"]?.array ?? []).compactMap(PortalDecoding.item)
        let folders = (json["folders"]?.array ?? []).compactMap { folder -> PortalFolder? in
            guard let id = folder["id"]?.string else { return nil }
            return PortalFolder(id: id, title: folder["title"]?.string ?? id)
        }
        return (items, folders)
    }

    /// Web maps matching `query` (any search terms), best first, up to `limit`.
    public func webMaps(matching query: String, limit: Int = 100) async throws -> [PortalItem] {
        var found: [PortalItem] = []
        var start = 1
        while found.count < limit {
            let page = try await search("(\(query)) AND type:\"Web Map\"", start: start, num: min(100, limit - found.count))
            found += page.results.filter { $0.type == "Web Map" }
            guard let next = page.nextStart, next > start else { break }
            start = next
        }
        return Array(found.prefix(limit))
    }
}

extension PortalItem {
    /// Whether the web map is set up for offline use (its `Offline` type keyword): the ones with
    /// preplanned map areas are.
    public var isOfflineEnabled: Bool { typeKeywords.contains("Offline") }
}
