import Foundation

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

/// Where web maps (or mobile map packages) are looked for.
public enum WebMapSource: Sendable, Equatable {
    /// A user's content: the root (nil) or a folder.
    case content(user: String, folder: PortalFolder?)
    /// A group's web maps (`search?q=group:ID`).
    case group(PortalGroup)
    /// Web maps matching the words (`search?q=(words) AND type:"Web Map"`).
    case search(String)
}

/// Where the next page of web maps starts: the sources still to read, the first from `start`.
public struct WebMapCursor: Sendable, Equatable {
    public var sources: [WebMapSource]
    public var start: Int

    public init(sources: [WebMapSource], start: Int = 1) { self.sources = sources; self.start = start }

    public static func search(_ words: String) -> WebMapCursor { WebMapCursor(sources: [.search(words)]) }
}

/// A web map found, with the folder or group it was found in.
public struct FoundWebMap: Sendable, Equatable {
    public var item: PortalItem
    public var place: String?

    public init(item: PortalItem, place: String?) { self.item = item; self.place = place }
}

/// A page of web maps, and where the next starts (nil: none left).
public struct WebMapPage: Sendable, Equatable {
    public var maps: [FoundWebMap]
    public var next: WebMapCursor?

    public init(maps: [FoundWebMap], next: WebMapCursor?) { self.maps = maps; self.next = next }
}

extension PortalItem {
    /// The type of a portal's mobile map package items.
    public static let mobileMapPackageType = "Mobile Map Package"
    /// The tag the Offline Mapbook finds packages by, when no words are given.
    public static let offlineMapbookKeyword = "Offline Mapbook"

    /// Whether the web map is set up for offline use (its `Offline` type keyword, or `Offline Map
    /// Areas` once areas were made): the ones with preplanned map areas are.
    public var isOfflineEnabled: Bool { typeKeywords.contains("Offline") || typeKeywords.contains("Offline Map Areas") }
}
