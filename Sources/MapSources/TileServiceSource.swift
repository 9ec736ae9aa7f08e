import Foundation
import HTTP
import MapRender
import MapbookCore
import TileFormats
import ArcGISModel
import Geometry

/// An online tile service, one layer of a web map's basemap: a VectorTileServer (its style from
/// `styleUrl`), a tiled MapServer or ImageServer (`{url}?f=json` tileInfo, `{url}/tile/{level}/{row}/{col}`),
/// or a WebTiledLayer's template. Tiles are kept in a bounded disk cache, a folder per service, and
/// the service's description and style beside them, so views seen once draw again without the
/// network.
public struct TileServiceSource: MapSource {
    public let name: String
    public let zooms: ClosedRange<Int>
    public let extent: GeoExtent?
    public let style: MapStyle
    public let attribution: String?
    public let isVector: Bool
    public let tileSize: Int
    /// A MapServer's legend (`legend?f=json`), for the layer list.
    public let legend: [LegendEntry]
    public var isRemote: Bool { true }
    let addressing: TileAddressing
    /// A cache in a scheme of its own (State Plane, UTM, a national grid), drawn as Web Mercator tiles.
    let reprojected: ReprojectedTiles?
    private let http: HTTPClient
    private let cache: TileDiskCache?

    /// Opens a basemap layer of any type mapbook draws; throws one sentence naming the layer otherwise.
    public static func connect(_ layer: WebMapLayer, http: HTTPClient, cacheDirectory: String?) async throws -> TileServiceSource {
        switch layer.layerType {
        case "VectorTileLayer":
            return try await connect(styleURL: layer.styleURL, serviceURL: layer.url, title: layer.title, http: http,
                                     cacheDirectory: cacheDirectory)
        case "ArcGISTiledMapServiceLayer", "ArcGISTiledImageServiceLayer", "ArcGISImageServiceLayer":
            return try await connectTiledService(layer, http: http, cacheDirectory: cacheDirectory)
        case "WebTiledLayer":
            return try webTiled(layer, http: http, cacheDirectory: cacheDirectory)
        default:
            throw MapSourceError(Self.cannotDraw(layer))
        }
    }

    /// "Roads (WMS) cannot be drawn: mapbook draws tiled layers and map services."
    public static func cannotDraw(_ layer: WebMapLayer) -> String {
        "\(Self.layerName(layer)) (\(TerminalText.sanitizedLine(layer.layerType, maxLength: 60))) cannot be drawn: mapbook draws tiled layers and map services."
    }

    static func layerName(_ layer: WebMapLayer) -> String {
        TerminalText.sanitizedLine(layer.title ?? layer.id ?? "A basemap layer", maxLength: 80)
    }

    // MARK: Vector tile services

    /// Reads the style and the service description. `styleURL` is the web map layer's `styleUrl`;
    /// `serviceURL` its `url`; either may be missing, not both.
    public static func connect(styleURL: String?, serviceURL: String?, title: String?, http: HTTPClient,
                               cacheDirectory: String?) async throws -> TileServiceSource {
        var style = MapStyle.plain
        var credit: String?
        var service = serviceURL.flatMap(URL.init(string:))
        let styleLocation = styleURL.flatMap(URL.init(string:)) ?? service?.appendingPathComponent("resources/styles/root.json")
        if let styleLocation {
            let data = try await fetch(Self.withJSONFormat(styleLocation), http: http, cacheDirectory: cacheDirectory) {
                (try? VectorStyle(data: $0)) != nil
            }
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
        guard let service = service.flatMap(Self.webAddress) else {
            throw MapSourceError("The basemap names no vector tile service.")
        }
        let json = try await describe(service, http: http, cacheDirectory: cacheDirectory)
        let lods = json["tileInfo"]?["lods"]?.array.compactMap { $0["level"]?.int64.map(Int.init) } ?? []
        let zooms = (lods.min() ?? 0)...(lods.max() ?? json["maxzoom"]?.int64.map(Int.init) ?? 14)
        return TileServiceSource(name: name(title, json, service), zooms: zooms, extent: extent(json), style: style,
                                 attribution: Attribution.clean(credit ?? json["copyrightText"]?.string), isVector: true,
                                 tileSize: 512, addressing: .vectorTileServer(service), http: http, cacheDirectory: cacheDirectory)
    }

    // MARK: Raster tile services

    /// A cached MapServer or ImageServer. On Web Mercator's grid (as every ArcGIS Online basemap
    /// is) its levels are matched to zooms by resolution, since a cache may start at any level and
    /// number its levels as it likes; in a scheme of its own its tiles are resampled into Web
    /// Mercator ones (`ReprojectedTiles`).
    static func connectTiledService(_ layer: WebMapLayer, http: HTTPClient, cacheDirectory: String?) async throws -> TileServiceSource {
        guard let service = layer.url.flatMap(URL.init(string:)).flatMap(Self.webAddress) else {
            throw MapSourceError("\(layerName(layer)) names no service address.")
        }
        let json = try await describe(service, http: http, cacheDirectory: cacheDirectory)
        guard let tileInfo = json["tileInfo"], tileInfo.object != nil, json["singleFusedMapCache"]?.bool != false else {
            throw MapSourceError("\(layerName(layer)) is not a tiled service.")
        }
        if let format = tileInfo["format"]?.string?.uppercased(), format.hasPrefix("LERC") {
            throw MapSourceError("\(layerName(layer)) holds elevation data (LERC), not pictures.")
        }
        let scheme: RasterTiling
        do {
            scheme = try RasterTiling(tileInfo: tileInfo, layerName: layerName(layer))
        } catch {
            let info = TileSetInfo(service: json, name: name(layer.title, json, service))
            let resampled: ReprojectedTiles
            do { resampled = try ReprojectedTiles(info: info, levels: info.levels) } catch {
                throw MapSourceError("\(layerName(layer)) cannot be drawn: \(error.description).")
            }
            return TileServiceSource(name: info.name, zooms: resampled.zooms, extent: extent(json), style: .plain,
                                     attribution: Attribution.clean(json["copyrightText"]?.string), isVector: false,
                                     tileSize: ReprojectedTiles.tileSize, addressing: .ownScheme(service), reprojected: resampled, http: http,
                                     cacheDirectory: cacheDirectory)
        }
        // The legend is a nicety: a service without one (an ImageServer, an old MapServer) still draws.
        var legend: [LegendEntry] = []
        if service.path.hasSuffix("/MapServer"),
           let data = try? await fetch(withJSONFormat(service.appendingPathComponent("legend")), http: http, cacheDirectory: cacheDirectory,
                                       isValid: { (try? JSONValue(parsing: $0))?["layers"] != nil }),
           let json = try? JSONValue(parsing: data) {
            legend = MapLegend.entries(serviceLegend: json)
        }
        return TileServiceSource(name: name(layer.title, json, service), zooms: scheme.zooms, extent: extent(json), style: .plain,
                                 attribution: Attribution.clean(json["copyrightText"]?.string), isVector: false,
                                 tileSize: scheme.tileSize, legend: legend, addressing: .tiledService(service, levels: scheme.levels), http: http,
                                 cacheDirectory: cacheDirectory)
    }

    /// A WebTiledLayer: tiles straight from its template, in the Web Mercator grid.
    static func webTiled(_ layer: WebMapLayer, http: HTTPClient, cacheDirectory: String?) throws -> TileServiceSource {
        guard let template = layer.templateURL, template.contains("{level}") || template.contains("{z}"),
              let sample = URL(string: TileAddressing.fill(template, key: TileKey(z: 0, x: 0, y: 0), subDomains: layer.subDomains)),
              webAddress(sample) != nil else {
            throw MapSourceError("\(layerName(layer)) has no usable tile address template.")
        }
        return TileServiceSource(name: layerName(layer), zooms: 0...19, extent: nil, style: .plain, attribution: nil,
                                 isVector: false, tileSize: 256, addressing: .template(template, subDomains: layer.subDomains),
                                 http: http, cacheDirectory: cacheDirectory)
    }

    // MARK: Tiles

    init(name: String, zooms: ClosedRange<Int>, extent: GeoExtent?, style: MapStyle, attribution: String?, isVector: Bool,
         tileSize: Int, legend: [LegendEntry] = [], addressing: TileAddressing, reprojected: ReprojectedTiles? = nil, http: HTTPClient,
         cacheDirectory: String?) {
        self.name = name; self.legend = legend; self.reprojected = reprojected
        self.zooms = min(max(zooms.lowerBound, 0), 24)...min(max(zooms.upperBound, 0), 24)
        self.extent = extent; self.style = style; self.attribution = attribution; self.isVector = isVector
        self.tileSize = tileSize; self.addressing = addressing; self.http = http
        cache = cacheDirectory.map {
            TileDiskCache(directory: $0 + "/" + TileDiskCache.folderName(for: addressing.identity), vector: isVector)
        }
    }

    public func tile(_ key: TileKey) async throws -> MapTile? {
        if let reprojected {
            let image = try await reprojected.tile(z: key.z, x: key.x, y: key.y) { level, column, row in
                try await fetched(TileKey(z: level, x: column, y: row)) { try RasterImage(decoding: $0) }
            }
            return image.map { MapTile(key: key, raster: $0) }
        }
        return try await fetched(key) { try MapTile(key: key, bytes: $0, vector: isVector) }
    }

    /// A tile decoded, from the disk cache or the service (kept once it decodes: a damaged tile is
    /// reported, never cached); nil where the service has no tile.
    private func fetched<Tile>(_ key: TileKey, decode: (Data) throws -> Tile) async throws -> Tile? {
        if let cached = cache?.read(key) { return try decode(cached) }
        guard let url = addressing.url(for: key) else { return nil }
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
        let tile = try decode(bytes)
        cache?.write(key, bytes)
        return tile
    }

    // MARK: Helpers

    /// The service's description (`?f=json`), refused when it is an ArcGIS error or not JSON.
    private static func describe(_ service: URL, http: HTTPClient, cacheDirectory: String?) async throws -> JSONValue {
        let description = try await fetch(Self.withJSONFormat(service), http: http, cacheDirectory: cacheDirectory) { data in
            guard let json = try? JSONValue(parsing: data) else { return false }
            return json.object != nil && json["error"] == nil
        }
        guard let json = try? JSONValue(parsing: description), json.object != nil else {
            throw MapSourceError("The basemap's tile service did not describe itself.")
        }
        if let error = json["error"] {
            throw MapSourceError("The basemap's tile service answered: "
                                 + TerminalText.sanitizedLine(error["message"]?.string ?? "an error", maxLength: 200) + ".")
        }
        return json
    }

    /// A description or style from the network, kept (when `isValid`) in the cache's
    /// `descriptions` folder; when the network is cut off, the kept copy.
    private static func fetch(_ url: URL, http: HTTPClient, cacheDirectory: String?,
                              isValid: (Data) -> Bool) async throws -> Data {
        let kept = cacheDirectory.map { BoundedDiskCache(directory: $0 + "/descriptions", limit: 4 << 20, suffix: ".json") }
        let name = BoundedDiskCache.name(for: url.absoluteString) + ".json"
        let response: HTTPResponse
        do throws(HTTPError) {
            response = try await http.send(HTTPRequest(url: url))
        } catch {
            guard error.networkState.isCutOff else { throw error }
            // Said by host: the portal may well answer while the basemap's own server does not.
            guard let data = kept?.read(name) else {
                let host = TerminalText.sanitizedLine(url.host ?? "its server", maxLength: 80)
                throw MapSourceError("The basemap's server \(host) cannot be reached, and this basemap has not been opened on this device before.")
            }
            return data
        }
        if isValid(response.body) { kept?.write(name, response.body) }
        return response.body
    }

    private static func name(_ title: String?, _ json: JSONValue, _ service: URL) -> String {
        TerminalText.sanitizedLine(title ?? json["name"]?.string ?? json["mapName"]?.string ?? service.host ?? "basemap", maxLength: 80)
    }

    private static func extent(_ json: JSONValue) -> GeoExtent? {
        (Envelope(json: json["initialExtent"], default: .webMercator) ?? Envelope(json: json["fullExtent"], default: .webMercator))?.geographic
    }

    /// http or https only; a trailing slash dropped (tile paths are appended to it).
    private static func webAddress(_ url: URL) -> URL? {
        guard ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else { return nil }
        guard url.path.hasSuffix("/"), url.path.count > 1 else { return url }
        return url.deletingLastPathComponent().appendingPathComponent(url.lastPathComponent)
    }

    private static func withJSONFormat(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url }
        var items = components.queryItems ?? []
        if !items.contains(where: { $0.name == "f" }) { items.append(URLQueryItem(name: "f", value: "json")) }
        components.queryItems = items
        return components.url ?? url
    }
}

/// Where a tile of a service is asked for.
enum TileAddressing: Sendable, Equatable {
    /// `{service}/tile/{z}/{y}/{x}.pbf`
    case vectorTileServer(URL)
    /// `{service}/tile/{level}/{row}/{col}`, the service's level for each Web Mercator zoom.
    case tiledService(URL, levels: [Int: Int])
    /// A WebTiledLayer's `templateUrl`.
    case template(String, subDomains: [String])
    /// `{service}/tile/{level}/{row}/{col}` of a scheme of the service's own: the key's `z` is the level id.
    case ownScheme(URL)

    func url(for key: TileKey) -> URL? {
        switch self {
        case .vectorTileServer(let service):
            return service.appendingPathComponent("tile/\(key.z)/\(key.y)/\(key.x).pbf")
        case .tiledService(let service, let levels):
            guard let level = levels[key.z] else { return nil }
            return service.appendingPathComponent("tile/\(level)/\(key.y)/\(key.x)")
        case .template(let template, let subDomains):
            return URL(string: Self.fill(template, key: key, subDomains: subDomains))
        case .ownScheme(let service):
            return service.appendingPathComponent("tile/\(key.z)/\(key.y)/\(key.x)")
        }
    }

    /// What names the service's tiles (its disk cache folder).
    var identity: String {
        switch self {
        case .vectorTileServer(let service): service.absoluteString
        case .tiledService(let service, _): service.absoluteString
        case .template(let template, _): template
        case .ownScheme(let service): service.absoluteString + " (its own scheme)"
        }
    }

    /// The template with the tile's numbers in. The sub-domain follows from the tile, so a tile
    /// always comes from (and is cached as) the same address.
    static func fill(_ template: String, key: TileKey, subDomains: [String]) -> String {
        var text = template
        for (token, value) in [("{level}", key.z), ("{z}", key.z), ("{col}", key.x), ("{x}", key.x), ("{row}", key.y), ("{y}", key.y)] {
            text = text.replacingOccurrences(of: token, with: String(value))
        }
        if !subDomains.isEmpty {
            text = text.replacingOccurrences(of: "{subDomain}", with: subDomains[(key.x + key.y) % subDomains.count])
        }
        return text
    }
}

/// A raster cache's tiling scheme (`tileInfo`), checked to be the Web Mercator grid and its
/// levels matched to zooms.
struct RasterTiling: Equatable {
    let tileSize: Int
    /// Zoom → the service's level id.
    let levels: [Int: Int]
    var zooms: ClosedRange<Int> { (levels.keys.min() ?? 0)...(levels.keys.max() ?? 0) }

    init(tileInfo: JSONValue, layerName: String) throws {
        let wkid = tileInfo["spatialReference"]?["latestWkid"]?.int64 ?? tileInfo["spatialReference"]?["wkid"]?.int64
        let origin = (tileInfo["origin"]?["x"]?.double, tileInfo["origin"]?["y"]?.double)
        let size = tileInfo["cols"]?.int64.map(Int.init) ?? 256
        guard let wkid, [3857, 102100, 102113, 900913].contains(wkid),
              let x = origin.0, let y = origin.1,
              abs(x + WebMercator.originShift) < 1, abs(y - WebMercator.originShift) < 1,
              size == (tileInfo["rows"]?.int64.map(Int.init) ?? size), [128, 256, 512, 1024].contains(size) else {
            throw MapSourceError("\(layerName) is not tiled in Web Mercator's grid, which is all mapbook draws.")
        }
        var levels: [Int: Int] = [:]
        for lod in tileInfo["lods"]?.array ?? [] {
            guard let level = lod["level"]?.int(in: 0...1_000), let resolution = lod["resolution"]?.double, resolution > 0 else { continue }
            let zoom = log2(2 * WebMercator.originShift / (Double(size) * resolution))
            // A scheme of other resolutions (a local one in Web Mercator) has levels off the grid.
            guard let web = zoom.int(in: 0...24), abs(zoom - Double(web)) < 0.01 else { continue }
            levels[web] = level
        }
        guard !levels.isEmpty else {
            throw MapSourceError("\(layerName)'s levels are not those of Web Mercator's grid, which is all mapbook draws.")
        }
        tileSize = size
        self.levels = levels
    }
}

/// Tiles kept on disk as `{z}/{x}/{y}` in a folder per service, at most `limit` bytes (see
/// `BoundedDiskCache`).
struct TileDiskCache: Sendable {
    private let files: BoundedDiskCache
    private let suffix: String

    init(directory: String, vector: Bool = true, limit: Int64 = 64 << 20) {
        suffix = vector ? ".pbf" : ".img"
        files = BoundedDiskCache(directory: directory, limit: limit, suffix: suffix)
    }

    static func folderName(for url: String) -> String { BoundedDiskCache.name(for: url) }

    func read(_ key: TileKey) -> Data? { files.read(path(key)) }

    func write(_ key: TileKey, _ data: Data) { files.write(path(key), data) }

    private func path(_ key: TileKey) -> String { "\(key.z)/\(key.x)/\(key.y)\(suffix)" }
}
