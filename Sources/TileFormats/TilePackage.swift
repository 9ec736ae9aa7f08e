import Foundation
import Synchronization
import MapbookCore
import Geometry

/// A tile package on disk — `.vtpk`, `.tpkx` or `.tpk` — read in place. The kind is recognised from
/// the archive's contents, not its file name: `p12/root.json` (vector), `root.json` (tpkx), or a
/// `conf.xml` beside an `_alllayers` folder (tpk, whose root folder name varies).
public final class TilePackage: TileSource, Sendable {
    public let path: String
    public let info: TileSetInfo
    public let archive: ZipArchive
    /// Bundles by their place, as their names say (`BundleName`).
    private let bundleEntries: [BundleKey: BundleFiles<ZipEntry>]
    private let styleEntry: ZipEntry?
    private let openBundles = BundleCache()

    public convenience init(path: String) throws(TileFormatError) {
        try self.init(source: FileByteSource(path: path), path: path)
    }

    public init(source: any ByteSource, path: String) throws(TileFormatError) {
        self.path = path
        archive = try ZipArchive(source: source)
        let fallbackName = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let metadata: PackageMetadata
        if archive.entry(named: "p12/root.json") != nil {
            metadata = try Self.vectorMetadata(archive, fallbackName: fallbackName)
        } else if archive.entry(named: "root.json") != nil {
            metadata = try Self.tpkxMetadata(archive, fallbackName: fallbackName)
        } else if let conf = Self.findTPKConfiguration(archive) {
            metadata = try Self.tpkMetadata(archive, conf: conf, fallbackName: fallbackName)
        } else {
            throw .malformed("not a tile package: it has no p12/root.json, root.json or conf.xml")
        }
        info = metadata.info
        styleEntry = metadata.styleEntry
        var bundles: [BundleKey: BundleFiles<ZipEntry>] = [:]
        let root = metadata.tileRoot.lowercased()
        for entry in archive.entries where entry.name.lowercased().hasPrefix(root) {
            guard let (key, isIndex) = BundleName.parse(String(entry.name.dropFirst(root.count))) else { continue }
            if isIndex { bundles[key, default: BundleFiles()].index = entry } else { bundles[key, default: BundleFiles()].data = entry }
        }
        bundleEntries = bundles
    }

    // MARK: Tiles

    public var populatedLevels: Set<Int>? { Set(bundleEntries.keys.map(\.level)) }

    public func tile(z: Int, x: Int, y: Int) throws(TileFormatError) -> Data? {
        guard let level = info.level(z: z, x: x, y: y) else { return nil }
        return try tile(level: level.level, row: y, column: x)
    }

    /// A tile by the package's own level id, row and column.
    public func tile(level: Int, row: Int, column: Int) throws(TileFormatError) -> Data? {
        guard let bundle = try bundle(level: level, row: row, column: column) else { return nil }
        return try bundle.tile(row: row, column: column)
    }

    /// Every tile present at a level (absolute rows and columns), read from the bundle indexes.
    public func tilePositions(level: Int) throws(TileFormatError) -> [(row: Int, column: Int)] {
        var positions: [(row: Int, column: Int)] = []
        let keys = bundleEntries.keys.filter { $0.level == level }.sorted { ($0.row, $0.column) < ($1.row, $1.column) }
        for key in keys {
            guard let bundle = try bundle(level: level, row: key.row, column: key.column) else { continue }
            for p in try bundle.presentTiles() {
                positions.append((key.row + p.row, key.column + p.column))
            }
        }
        return positions
    }

    /// A tile that is present but whose bytes cannot be drawn.
    public struct DamagedTile: Sendable, Equatable {
        public var level: Int, row: Int, column: Int
        public var reason: String
    }

    /// Reads every tile (or the first `perLevel` of each level) and judges its content
    /// (`TileContent.classify`): how many were checked, and which are damaged. A bundle that cannot
    /// be read at all throws.
    public func verifyTiles(perLevel: Int? = nil) throws(TileFormatError) -> (checked: Int, damaged: [DamagedTile]) {
        var checked = 0
        var damaged: [DamagedTile] = []
        for level in info.levels {
            for p in try tilePositions(level: level.level).prefix(perLevel ?? .max) {
                checked += 1
                do {
                    guard let data = try tile(level: level.level, row: p.row, column: p.column) else { continue }
                    if case .undecodable(let reason) = TileContent.classify(data, vector: info.isVector) {
                        damaged.append(DamagedTile(level: level.level, row: p.row, column: p.column, reason: reason))
                    }
                } catch {
                    damaged.append(DamagedTile(level: level.level, row: p.row, column: p.column, reason: error.description))
                }
            }
        }
        return (checked, damaged)
    }

    /// The package's Mapbox GL style (`.vtpk` only), parsed.
    public func style() throws(TileFormatError) -> VectorStyle? {
        guard let styleEntry else { return nil }
        return try VectorStyle(data: archive.contents(of: styleEntry))
    }

    private func bundle(level: Int, row: Int, column: Int) throws(TileFormatError) -> (any TileBundle)? {
        let key = BundleKey(level: level, holdingRow: row, column: column)
        if let cached = openBundles[key] { return cached }
        guard let data = bundleEntries[key]?.data else { return nil }
        let opened: any TileBundle
        switch info.bundleFormat {
        case .compactV2:
            opened = try CompactCacheV2Bundle(source: archive.source(of: data))
        case .compactV1:
            guard let index = bundleEntries[key]?.index else { throw .malformed("\(data.name) has no .bundlx index beside it") }
            opened = try CompactCacheV1Bundle(index: archive.source(of: index), data: archive.source(of: data))
        }
        openBundles[key] = opened
        return opened
    }

    // MARK: Metadata

    private struct PackageMetadata {
        var info: TileSetInfo
        var tileRoot: String
        var styleEntry: ZipEntry?
    }

    private static func json(_ archive: ZipArchive, _ name: String) throws(TileFormatError) -> JSONValue {
        guard let data = try archive.contents(of: name) else { throw .malformed("\(name) is missing") }
        do { return try JSONValue(parsing: data) } catch { throw .malformed("\(name) is not valid JSON") }
    }

    /// `tileInfo.origin` of root.json or a service's description.
    static func origin(_ tileInfo: JSONValue?) -> TileOrigin? {
        guard let x = tileInfo?["origin"]?["x"]?.double, let y = tileInfo?["origin"]?["y"]?.double else { return nil }
        return TileOrigin(x: x, y: y)
    }

    /// LODs as root.json's (or a service's) `tileInfo` lists them.
    static func levels(_ tileInfo: JSONValue?, tileSize: Int, sr: SpatialReference?) -> [TileLevel] {
        let origin = tileInfo?["origin"].flatMap { o in o["x"]?.double.flatMap { x in o["y"]?.double.map { (x, $0) } } }
        return (tileInfo?["lods"]?.array ?? []).compactMap { lod in
            guard let level = lod["level"]?.int64, let resolution = lod["resolution"]?.double else { return nil }
            return TileLevel(level: Int(level),
                             zoom: TileLevel.webZoom(resolution: resolution, tileSize: tileSize, origin: origin, spatialReference: sr),
                             resolution: resolution, scale: lod["scale"]?.double ?? 0)
        }
    }

    private static func vectorMetadata(_ archive: ZipArchive, fallbackName: String) throws(TileFormatError) -> PackageMetadata {
        let root = try json(archive, "p12/root.json")
        let tileInfo = root["tileInfo"]
        let sr = SpatialReference(json: tileInfo?["spatialReference"])
        let tileSize = Int(tileInfo?["rows"]?.int64 ?? 512)
        var levels = levels(tileInfo, tileSize: tileSize, sr: sr)
        // A vector tile service lists LODs past its data; the package holds tiles up to maxLOD.
        if let maxLOD = root["maxLOD"]?.int64 { levels = levels.filter { $0.level <= maxLOD } }
        let styleName = "p12/" + (root["defaultStyles"]?.string ?? "resources/styles") + "/root.json"
        let info = TileSetInfo(kind: .vectorTilePackage, bundleFormat: .compactV2, name: itemInfoTitle(archive) ?? root["name"]?.string ?? fallbackName,
                               tileFormat: "pbf", tileSize: tileSize, levels: levels,
                               fullExtent: Envelope(json: root["fullExtent"], default: sr ?? .webMercator),
                               spatialReference: sr, origin: origin(tileInfo))
        return PackageMetadata(info: info, tileRoot: "p12/tile/",
                               styleEntry: archive.entry(named: styleName) ?? archive.entry(named: "p12/resources/styles/root.json"))
    }

    private static func tpkxMetadata(_ archive: ZipArchive, fallbackName: String) throws(TileFormatError) -> PackageMetadata {
        let root = try json(archive, "root.json")
        let tileInfo = root["tileInfo"]
        let sr = SpatialReference(json: tileInfo?["spatialReference"]) ?? SpatialReference(json: root["spatialReference"])
        let tileSize = Int(tileInfo?["rows"]?.int64 ?? 256)
        var levels = levels(tileInfo, tileSize: tileSize, sr: sr)
        if let minLOD = root["minLOD"]?.int64, let maxLOD = root["maxLOD"]?.int64 {
            levels = levels.filter { (minLOD...max(minLOD, maxLOD)).contains(Int64($0.level)) }
        }
        var tileRoot = root["tileBundlesPath"]?.string ?? "./tile"
        if tileRoot.hasPrefix("./") { tileRoot.removeFirst(2) }
        if !tileRoot.hasSuffix("/") { tileRoot += "/" }
        let title = (try? archive.contents(of: "iteminfo.json")).flatMap { $0 }.flatMap { try? JSONValue(parsing: $0) }?["title"]?.string
        let format = root["storageInfo"]?["storageFormat"]?.string ?? ""
        let info = TileSetInfo(kind: .tilePackage, bundleFormat: format.hasSuffix("Compact") ? .compactV1 : .compactV2, name: title ?? root["name"]?.string ?? fallbackName,
                               tileFormat: (root["tileImageInfo"]?["format"]?.string ?? "unknown").lowercased(),
                               tileSize: tileSize, levels: levels,
                               fullExtent: Envelope(json: root["fullExtent"], default: sr ?? .webMercator),
                               spatialReference: sr, origin: origin(tileInfo))
        return PackageMetadata(info: info, tileRoot: tileRoot, styleEntry: nil)
    }

    /// The `conf.xml` of a `.tpk`: the one beside an `_alllayers` folder, preferring `v101/`.
    private static func findTPKConfiguration(_ archive: ZipArchive) -> ZipEntry? {
        let candidates = archive.entries.filter { entry in
            guard entry.name.lowercased().hasSuffix("/conf.xml") else { return false }
            let folder = entry.name.dropLast("conf.xml".count).lowercased() + "_alllayers/"
            return archive.entries.contains { $0.name.lowercased().hasPrefix(folder) }
        }
        return candidates.first { $0.name.lowercased().hasPrefix("v101/") } ?? candidates.first
    }

    private static func tpkMetadata(_ archive: ZipArchive, conf: ZipEntry, fallbackName: String) throws(TileFormatError) -> PackageMetadata {
        let xml = String(decoding: try archive.contents(of: conf), as: UTF8.self)
        let folder = String(conf.name.dropLast("conf.xml".count))
        let cdi = try archive.contents(of: folder + "conf.cdi").map { String(decoding: $0, as: UTF8.self) }
        let title = (try archive.contents(of: "esriinfo/iteminfo.xml")).flatMap {
            XMLText.elements("title", in: String(decoding: $0, as: UTF8.self)).first
        }
        let info = CacheConfiguration.info(xml: xml, cdi: cdi, kind: .compactV1TilePackage, name: title ?? fallbackName)
        return PackageMetadata(info: info, tileRoot: folder + "_alllayers/", styleEntry: nil)
    }

    private static func itemInfoTitle(_ archive: ZipArchive) -> String? {
        guard let data = try? archive.contents(of: "esriinfo/iteminfo.xml") else { return nil }
        return XMLText.elements("title", in: String(decoding: data, as: UTF8.self)).first
    }
}

/// An ArcGIS cache's `conf.xml` (with `conf.cdi` for its extent): the tiling scheme, its levels
/// matched to web zooms, the tile format and how tiles are stored. Read for `.tpk` packages and
/// for cache folders on disk alike.
enum CacheConfiguration {
    static func info(xml: String, cdi: String?, kind: TileSetInfo.Kind, name: String) -> TileSetInfo {
        let wkid = XMLText.elements("WKID", in: xml).first.flatMap { Int($0) }
        let latest = XMLText.elements("LatestWKID", in: xml).first.flatMap { Int($0) }
        // A custom system has no code: its WKT says what it is.
        let wkt = XMLText.elements("WKT", in: xml).first.flatMap { $0.isEmpty ? nil : $0 }
        let sr = wkid == nil && latest == nil && wkt == nil ? nil : SpatialReference(wkid: wkid, latestWkid: latest, wkt: wkt)
        let tileSize = XMLText.elements("TileCols", in: xml).first.flatMap { Int($0) } ?? 256
        let originXML = XMLText.elements("TileOrigin", in: xml).first ?? ""
        let origin = XMLText.elements("X", in: originXML).first.flatMap(Double.init)
            .flatMap { x in XMLText.elements("Y", in: originXML).first.flatMap(Double.init).map { (x, $0) } }
        let levels = XMLText.elements("LODInfo", in: xml).compactMap { lod -> TileLevel? in
            guard let id = XMLText.elements("LevelID", in: lod).first.flatMap({ Int($0) }),
                  let resolution = XMLText.elements("Resolution", in: lod).first.flatMap(Double.init) else { return nil }
            return TileLevel(level: id,
                             zoom: TileLevel.webZoom(resolution: resolution, tileSize: tileSize, origin: origin, spatialReference: sr),
                             resolution: resolution,
                             scale: XMLText.elements("Scale", in: lod).first.flatMap(Double.init) ?? 0)
        }
        // conf.cdi, beside conf.xml, holds the cache's full extent.
        var extent: Envelope?
        if let cdi {
            let corners = ["XMin", "YMin", "XMax", "YMax"].compactMap { XMLText.elements($0, in: cdi).first.flatMap(Double.init) }
            if corners.count == 4 {
                extent = Envelope(xmin: corners[0], ymin: corners[1], xmax: corners[2], ymax: corners[3],
                                  spatialReference: sr ?? .webMercator)
            }
        }
        return TileSetInfo(kind: kind, bundleFormat: storageFormat(xml) == .compactV2 ? .compactV2 : .compactV1, name: name,
                           tileFormat: (XMLText.elements("CacheTileFormat", in: xml).first ?? "unknown").lowercased(),
                           tileSize: tileSize, levels: levels, fullExtent: extent, spatialReference: sr,
                           origin: origin.map { TileOrigin(x: $0.0, y: $0.1) })
    }

    enum Storage { case compactV1, compactV2, exploded }

    /// `StorageFormat`: `esriMapCacheStorageModeCompact` (V1), `…CompactV2`, `…Exploded`.
    static func storageFormat(_ xml: String) -> Storage {
        let format = XMLText.elements("StorageFormat", in: xml).first ?? ""
        if format.hasSuffix("CompactV2") { return .compactV2 }
        if format.hasSuffix("Exploded") { return .exploded }
        return .compactV1
    }
}

/// The two bundle formats behind one face.
protocol TileBundle: Sendable {
    func tile(row: Int, column: Int) throws(TileFormatError) -> Data?
    func presentTiles() throws(TileFormatError) -> [(row: Int, column: Int)]
}

extension CompactCacheV1Bundle: TileBundle {}
extension CompactCacheV2Bundle: TileBundle {}

/// A bundle's files: its data and, for a V1 bundle, its index.
struct BundleFiles<File: Sendable>: Sendable {
    var data: File?
    var index: File?
}

/// Open bundles (each holds its 128 KiB index), shared between threads and bounded: past the limit
/// the cache starts over rather than grow with the package.
final class BundleCache: Sendable {
    private let bundles = Mutex<[BundleKey: any TileBundle]>([:])
    private let limit = 64

    subscript(key: BundleKey) -> (any TileBundle)? {
        get { bundles.withLock { $0[key] } }
        set {
            bundles.withLock {
                if $0.count >= limit { $0.removeAll(keepingCapacity: true) }
                $0[key] = newValue
            }
        }
    }
}

extension TileSetInfo {
    /// A tiled MapServer's or ImageServer's description (`?f=json`): its `tileInfo` and `fullExtent`.
    public init(service json: JSONValue, name: String) {
        let tileInfo = json["tileInfo"]
        let sr = SpatialReference(json: tileInfo?["spatialReference"]) ?? SpatialReference(json: json["spatialReference"])
        let tileSize = tileInfo?["cols"]?.int(in: 1...4096) ?? 256
        self.init(kind: .tileService, bundleFormat: .compactV2, name: name, tileFormat: (tileInfo?["format"]?.string ?? "unknown").lowercased(),
                  tileSize: tileSize, levels: TilePackage.levels(tileInfo, tileSize: tileSize, sr: sr),
                  fullExtent: Envelope(json: json["fullExtent"], default: sr ?? .webMercator), spatialReference: sr,
                  origin: TilePackage.origin(tileInfo))
    }
}
