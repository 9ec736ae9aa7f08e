import Foundation
import Synchronization
import HTTP
import MapRender
import MapbookCore
import TileFormats

/// An online VectorTileServer (the web map's basemap): the style from its `styleUrl`, the service
/// description from `{service}?f=json`, and tiles from `{service}/tile/{z}/{y}/{x}.pbf`, kept in a
/// bounded disk cache so views seen once draw again without the network.
public struct TileServiceSource: MapSource {
    public let name: String
    public let serviceURL: URL
    public let zooms: ClosedRange<Int>
    public let extent: GeoExtent?
    public let style: MapStyle
    public let attribution: String?
    public var isVector: Bool { true }
    public var tileSize: Int { 512 }
    private let http: HTTPClient
    private let cache: TileDiskCache?

    /// Reads the style and the service description. `styleURL` is the web map layer's `styleUrl`;
    /// `serviceURL` its `url`; either may be missing, not both.
    public static func connect(styleURL: String?, serviceURL: String?, title: String?, http: HTTPClient,
                               cacheDirectory: String?) async throws -> TileServiceSource {
        var style = MapStyle.plain
        var credit: String?
        var service = serviceURL.flatMap(URL.init(string:))
        let styleLocation = styleURL.flatMap(URL.init(string:)) ?? service?.appendingPathComponent("resources/styles/root.json")
        if let styleLocation {
            let data = try await http.send(HTTPRequest(url: Self.withJSONFormat(styleLocation))).body
            if let parsed = try? VectorStyle(data: data) {
                style = MapStyle(parsed)
                credit = parsed.attribution
            }
            // The style's source names the service, relative to the style.
            if service == nil, let json = try? JSONValue(parsing: data),
               let relative = json["sources"]?.object?.values.lazy.compactMap({ $0["url"]?.string }).first {
                service = URL(string: relative, relativeTo: styleLocation)?.absoluteURL
            }
        }
        guard var service, ["http", "https"].contains(service.scheme?.lowercased() ?? "") else {
            throw MapSourceError("The basemap names no vector tile service.")
        }
        if service.path.hasSuffix("/") { service = service.deletingLastPathComponent().appendingPathComponent(service.lastPathComponent) }
        let description = try await http.send(HTTPRequest(url: Self.withJSONFormat(service))).body
        guard let json = try? JSONValue(parsing: description), json["error"] == nil else {
            throw MapSourceError("The basemap's tile service did not describe itself.")
        }
        let lods = json["tileInfo"]?["lods"]?.array.compactMap { $0["level"]?.int64.map(Int.init) } ?? []
        let zooms = (lods.min() ?? 0)...(lods.max() ?? json["maxzoom"]?.int64.map(Int.init) ?? 14)
        let extent = (Envelope(json: json["initialExtent"], default: .webMercator) ?? Envelope(json: json["fullExtent"], default: .webMercator))?.geographic
        let cache = cacheDirectory.map { TileDiskCache(directory: $0 + "/" + TileDiskCache.folderName(for: service.absoluteString)) }
        return TileServiceSource(name: TerminalText.sanitizedLine(title ?? json["name"]?.string ?? service.host ?? "basemap", maxLength: 80),
                                 serviceURL: service, zooms: min(max(zooms.lowerBound, 0), 24)...min(max(zooms.upperBound, 0), 24),
                                 extent: extent, style: style,
                                 attribution: Attribution.clean(credit ?? json["copyrightText"]?.string), http: http, cache: cache)
    }

    private init(name: String, serviceURL: URL, zooms: ClosedRange<Int>, extent: GeoExtent?, style: MapStyle, attribution: String?,
                 http: HTTPClient, cache: TileDiskCache?) {
        self.name = name; self.serviceURL = serviceURL; self.zooms = zooms; self.extent = extent; self.style = style
        self.attribution = attribution; self.http = http; self.cache = cache
    }

    public func tile(_ key: TileKey) async throws -> MapTile? {
        if let cached = cache?.read(key) { return try MapTile(key: key, bytes: cached, vector: true) }
        let url = serviceURL.appendingPathComponent("tile/\(key.z)/\(key.y)/\(key.x).pbf")
        let response: HTTPResponse
        do throws(HTTPError) {
            response = try await http.send(HTTPRequest(url: url))
        } catch {
            // A service answers 404 (or an ArcGIS error body) where it has no tile.
            if case .status(404, _, _) = error { return nil }
            throw error
        }
        let bytes = response.body
        // ArcGIS answers some requests with HTTP 200 and an error body: 404 means no tile here;
        // anything else (a token required, a server error) is a failure to report.
        if bytes.first == UInt8(ascii: "{"), let error = (try? JSONValue(parsing: bytes))?["error"] {
            if error["code"]?.int64 == 404 { return nil }
            throw MapSourceError("The basemap's tile service refused a tile: "
                                 + TerminalText.sanitizedLine(error["message"]?.string ?? "no reason given", maxLength: 200) + ".")
        }
        let tile = try MapTile(key: key, bytes: bytes, vector: true)
        cache?.write(key, bytes)
        return tile
    }

    private static func withJSONFormat(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url }
        var items = components.queryItems ?? []
        if !items.contains(where: { $0.name == "f" }) { items.append(URLQueryItem(name: "f", value: "json")) }
        components.queryItems = items
        return components.url ?? url
    }
}

/// Tiles kept on disk as `{z}/{x}/{y}.pbf` in a folder per service, at most `limit` bytes (see
/// `BoundedDiskCache`).
struct TileDiskCache: Sendable {
    private let files: BoundedDiskCache

    init(directory: String, limit: Int64 = 64 << 20) {
        files = BoundedDiskCache(directory: directory, limit: limit, suffix: ".pbf")
    }

    static func folderName(for url: String) -> String { BoundedDiskCache.name(for: url) }

    func read(_ key: TileKey) -> Data? { files.read(Self.path(key)) }

    func write(_ key: TileKey, _ data: Data) { files.write(Self.path(key), data) }

    private static func path(_ key: TileKey) -> String { "\(key.z)/\(key.x)/\(key.y).pbf" }
}
