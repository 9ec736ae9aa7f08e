import Foundation
import Synchronization
import MapbookCore
import TileFormats

/// Everything the sample portal serves that takes work to make: the basemap tiles, each area's
/// vector tile package, and thumbnails. Built deterministically; packages are cached on disk by a
/// content version, so a second start is quick.
public final class SampleContent: Sendable {
    public struct Package: Sendable {
        public var id: String
        public var name: String
        public var data: Data
        public var tileCount: Int
    }

    /// A strong validator for Range/If-Range: changes whenever the bytes do.
    static func etag(of data: Data) -> String { "\"\(String(Deflate.crc32(data), radix: 16))-\(data.count)\"" }

    /// Bump when anything that shapes the packages changes, so stale caches are not served.
    static let contentVersion = "v1"

    public let basemap: SampleBasemap
    public let packages: [String: Package]
    public let thumbnails: [String: Data]
    /// The raster MapServer's tiles, drawn when first asked for.
    let rasterTiles: SampleRasterTiles
    /// The UTM cache's geography, projected by PROJ when the cache is first asked for (not at every start).
    private let surveyCache = Mutex<SampleRasterTiles?>(nil)
    /// The GeocodeServer's places, gathered once.
    let geocoder: SampleGeocoder
    /// The FeatureServer's places and counties, gathered once.
    let featureServer: SampleFeatureServer
    /// The route service's road network: built when first asked for, not at every start.
    private let routeService = Mutex<SampleRouteService?>(nil)
    /// Areas' geodatabase packages, by area, server address and generation: made when first asked for.
    private let geodatabases = Mutex<[String: Data]>([:])
    /// Offline export jobs submitted to the tile and feature services.
    let exportJobs = SampleExportJobs()
    /// The mobile map package item's bytes: made when first asked for.
    private let mobilePackageBytes = Mutex<Data?>(nil)

    init(basemap: SampleBasemap, packages: [String: Package], thumbnails: [String: Data]) {
        self.basemap = basemap; self.packages = packages; self.thumbnails = thumbnails
        rasterTiles = SampleRasterTiles(basemap, scheme: .webMercator)
        geocoder = SampleGeocoder(basemap: basemap)
        featureServer = SampleFeatureServer(basemap: basemap)
    }

    /// The UTM cache's tiles; nil where PROJ is not on this machine.
    var surveyTiles: SampleRasterTiles? {
        surveyCache.withLock { built in
            if let built { return built }
            built = SampleTilingScheme.utm19N().map { SampleRasterTiles(basemap, scheme: $0) }
            return built
        }
    }

    var routes: SampleRouteService {
        routeService.withLock { built in
            if let built { return built }
            let service = SampleRouteService()
            built = service
            return service
        }
    }

    /// The area's geodatabase package as served from `baseURL` at `generation`; empty if it cannot be made.
    func geodatabase(for area: SampleArea, baseURL: String, generation: Int64) -> Data {
        let key = "\(area.id)|\(baseURL)|\(generation)"
        if let made = geodatabases.withLock({ $0[key] }) { return made }
        let data = (try? SampleAreaGeodatabase.bytes(for: area, features: featureServer, baseURL: baseURL, generation: generation)) ?? Data()
        geodatabases.withLock { $0[key] = data }
        return data
    }

    /// The "Mobile Map Package" item's file; empty if it cannot be made.
    func mobilePackage() -> Data {
        if let made = mobilePackageBytes.withLock({ $0 }) { return made }
        let data = (try? SampleMobilePackage.bytes(basemap: basemap, features: featureServer, thumbnail: thumbnails[SampleCatalog.webMapID])) ?? Data()
        // Two first requests may both make it; the first kept is the one served.
        return mobilePackageBytes.withLock { kept in
            if kept == nil { kept = data }
            return kept!
        }
    }

    /// The default cache: `$XDG_CACHE_HOME/mapbook/sample-portal` (or `~/.cache/…`).
    public static var defaultCacheDirectory: URL {
        URL(fileURLWithPath: XDGDirectories.cache() + "/sample-portal")
    }

    public static func build(cacheDirectory: URL = defaultCacheDirectory, useCache: Bool = true) throws -> SampleContent {
        let basemap = try SampleBasemap()
        var folder = cacheDirectory.appendingPathComponent(contentVersion)
        // A cache that cannot be written (a read-only home) costs only speed: build in a temporary folder.
        if (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)) == nil {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-sample-portal-\(getuid())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        var packages: [String: Package] = [:]
        var thumbnails: [String: Data] = [:]
        for area in SampleCatalog.areas {
            let path = folder.appendingPathComponent(area.packageName).path
            // A cached package is used when it opens; otherwise it is written again.
            var package = useCache ? try? TilePackage(path: path) : nil
            if package == nil {
                let tiles = basemap.packageTiles(for: area.extent)
                let writer = VectorTilePackageWriter(name: area.packageName, title: "\(area.title) basemap",
                                                     snippet: area.snippet, extent: area.extent, style: SampleBasemap.style)
                // Written beside, then renamed: a crash never leaves a half package in the cache.
                let partial = path + ".part"
                try writer.write(tiles: tiles, to: partial)
                guard rename(partial, path) == 0 else {
                    throw TileFormatError.cannotOpen(path: path, reason: String(cString: strerror(errno)))
                }
                package = try TilePackage(path: path)
            }
            guard let package, let data = FileManager.default.contents(atPath: path) else {
                throw TileFormatError.cannotOpen(path: path, reason: "it vanished after writing")
            }
            let count = try package.info.levels.reduce(0) { $0 + (try package.tilePositions(level: $1.level).count) }
            packages[area.packageID] = Package(id: area.packageID, name: area.packageName, data: data, tileCount: count)
            thumbnails[area.id] = Thumbnail.render(highlighting: area.extent, geography: basemap)
        }
        thumbnails[SampleCatalog.webMapID] = Thumbnail.render(highlighting: nil, geography: basemap)
        for item in SampleGallery.items {
            thumbnails[item.id] = Thumbnail.render(highlighting: nil, geography: basemap, colors: item.thumbnail)
        }
        return SampleContent(basemap: basemap, packages: packages, thumbnails: thumbnails)
    }
}
