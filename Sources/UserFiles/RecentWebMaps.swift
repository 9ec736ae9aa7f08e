import Foundation
import MapbookCore
import ArcGISModel

/// A web map opened in the browser, for `mapbook maps --recent` and for opening it again.
public struct RecentWebMap: Codable, Sendable, Equatable {
    /// The portal's root address.
    public var portal: String
    public var id: String
    public var title: String
    public var opened: Date

    public init(portal: String, id: String, title: String, opened: Date) {
        self.portal = portal; self.id = id; self.title = title; self.opened = opened
    }
}

/// The web maps opened lately, newest first, in `$XDG_STATE_HOME/mapbook/recent.json` (else
/// `~/.local/state/mapbook/`): state, not settings, so a person never has to edit it. A file that
/// cannot be read counts as empty and is replaced by the next write.
public struct RecentWebMaps: Sendable {
    public let path: String
    public static let limit = 20

    public init(path: String = XDGDirectories.state() + "/recent.json") { self.path = path }

    public func all() -> [RecentWebMap] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return ((try? decoder.decode([RecentWebMap].self, from: data)) ?? []).filter { ItemID($0.id) != nil }
    }

    /// The last web map opened on this portal.
    public func last(portal: URL) -> RecentWebMap? { all().first { PortalAddress.key($0.portal) == PortalAddress.key(portal.absoluteString) } }

    /// Puts the web map first (once), keeping the newest `limit`.
    public func remember(_ map: RecentWebMap) {
        var maps = all().filter { !($0.id == map.id && PortalAddress.key($0.portal) == PortalAddress.key(map.portal)) }
        maps.insert(map, at: 0)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(Array(maps.prefix(Self.limit))) else { return }
        try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try? data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
