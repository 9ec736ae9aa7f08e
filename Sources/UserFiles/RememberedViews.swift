import Foundation
import MapbookCore
import ArcGISModel

/// Where the browser was on a web map when it closed, to open there again: the list's order and
/// selection, and the map that was open (which, where, how drawn).
public struct RememberedView: Codable, Sendable, Equatable {
    /// The list's order: `portal`, `name` or `size` (nearest a place is not kept: the place is not).
    public var order: String?
    public var downloadedFirst: Bool?
    /// The area selected; nil for the web map's own row.
    public var selectedArea: String?
    /// The map open then, if one was.
    public var map: Map?

    public struct Map: Codable, Sendable, Equatable {
        /// The area whose map it was; nil for the web map's.
        public var area: String?
        public var longitude: Double
        public var latitude: Double
        public var zoom: Double
        /// How it was drawn: `braille`, `blocks` or `ascii`.
        public var mode: String

        public init(area: String?, longitude: Double, latitude: Double, zoom: Double, mode: String) {
            self.area = area; self.longitude = longitude; self.latitude = latitude; self.zoom = zoom; self.mode = mode
        }
    }

    public init(order: String? = nil, downloadedFirst: Bool? = nil, selectedArea: String? = nil, map: Map? = nil) {
        self.order = order; self.downloadedFirst = downloadedFirst; self.selectedArea = selectedArea; self.map = map
    }
}

/// The views remembered per web map, in `$XDG_STATE_HOME/mapbook/views.json` (else
/// `~/.local/state/mapbook/`): state a person never edits. A file that cannot be read counts as
/// empty and is replaced by the next write; the newest `limit` web maps are kept.
public struct RememberedViews: Sendable {
    public let path: String
    public static let limit = 100

    public init(path: String = XDGDirectories.state() + "/views.json") { self.path = path }

    private struct Entry: Codable {
        var view: RememberedView
        var saved: Date
    }

    public func view(portal: String, webMap: String) -> RememberedView? {
        entries()[Self.key(portal, webMap)]?.view
    }

    public func remember(_ view: RememberedView, portal: String, webMap: String, at date: Date = Date()) {
        var all = entries()
        all[Self.key(portal, webMap)] = Entry(view: view, saved: date)
        let kept = all.sorted { $0.value.saved > $1.value.saved }.prefix(Self.limit)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })) else { return }
        try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try? data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    private func entries() -> [String: Entry] {
        guard let data = FileManager.default.contents(atPath: path) else { return [:] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return (try? decoder.decode([String: Entry].self, from: data)) ?? [:]
    }

    private static func key(_ portal: String, _ webMap: String) -> String { PortalAddress.key(portal) + " " + webMap.lowercased() }
}
