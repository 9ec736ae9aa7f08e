import Foundation

/// An ArcGIS tile cache as a folder on disk, as ArcGIS Server and ArcGIS Pro write them and as a
/// `.tpk` holds one unzipped: `conf.xml` (and `conf.cdi`) beside `_alllayers`, whose levels hold
/// compact bundles (`Lnn/RrrrrCcccc.bundle`, V1 with its `.bundlx` or V2) or loose tiles
/// (`Lnn/Rrrrrrrrr/Ccccccccc.png`, exploded; `MIXED` caches hold PNGs and JPEGs side by side).
/// Tiles are read in place.
public final class TileCacheFolder: TileSource, Sendable {
    public let path: String
    public let info: TileSetInfo
    private let storage: CacheConfiguration.Storage
    /// Files under `_alllayers` by their lowercased relative path: cache writers differ in case.
    private let files: [String: String]
    /// Bundles by their place, as their names say (`BundleName`).
    private let bundles: [BundleKey: BundleFiles<String>]
    private let openBundles = BundleCache()

    /// The folder holding `conf.xml`, or the cache's folder with it in `Layers/`.
    public static func configuration(in path: String) -> String? {
        for candidate in [path, path + "/Layers", path + "/layers"] {
            let conf = candidate + "/conf.xml"
            if FileManager.default.fileExists(atPath: conf),
               FileManager.default.fileExists(atPath: candidate + "/_alllayers") { return candidate }
        }
        return nil
    }

    public init(path: String) throws(TileFormatError) {
        guard let folder = Self.configuration(in: path) else {
            throw .cannotOpen(path: path, reason: "it has no conf.xml beside an _alllayers folder")
        }
        let xmlData = try FileByteSource.contents(of: folder + "/conf.xml", limit: 4 << 20)
        self.path = path
        let xml = String(decoding: xmlData, as: UTF8.self)
        let cdi = (try? FileByteSource.contents(of: folder + "/conf.cdi", limit: 4 << 20)).map { String(decoding: $0, as: UTF8.self) }
        info = CacheConfiguration.info(xml: xml, cdi: cdi, kind: .cacheFolder, name: URL(fileURLWithPath: path).lastPathComponent)
        storage = CacheConfiguration.storageFormat(xml)
        let root = URL(fileURLWithPath: folder + "/_alllayers")
        var files: [String: String] = [:]
        let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: FolderBoundary.keys)
        let boundary = FolderBoundary(folder)
        let prefix = root.standardizedFileURL.path + "/"
        // A cache of millions of loose tiles is listed up to a limit; bundled caches hold few files.
        while let file = walker?.nextObject() as? URL, files.count < 4_000_000 {
            let full = file.standardizedFileURL.path
            // A symbolic link that leads out of the cache is not read.
            guard full.hasPrefix(prefix), boundary.admits(file) else { continue }
            files[String(full.dropFirst(prefix.count)).lowercased()] = full
        }
        self.files = files
        var bundles: [BundleKey: BundleFiles<String>] = [:]
        for full in files.values {
            guard let (key, isIndex) = BundleName.parse(String(full.dropFirst(prefix.count))) else { continue }
            if isIndex { bundles[key, default: BundleFiles()].index = full } else { bundles[key, default: BundleFiles()].data = full }
        }
        self.bundles = bundles
    }

    /// Bundled caches say by their bundles; an exploded one would have to be walked, so it does not say.
    public var populatedLevels: Set<Int>? { storage == .exploded ? nil : Set(bundles.keys.map(\.level)) }

    public func tile(z: Int, x: Int, y: Int) throws(TileFormatError) -> Data? {
        guard let level = info.level(z: z, x: x, y: y) else { return nil }
        return try tile(level: level.level, row: y, column: x)
    }

    /// A tile by the cache's own level id, row and column.
    public func tile(level: Int, row: Int, column: Int) throws(TileFormatError) -> Data? {
        switch storage {
        case .exploded:
            let base = String(format: "l%02d/r%08x/c%08x", level, row, column)
            for ext in ["png", "jpg", "jpeg"] {
                guard let file = files[base + "." + ext] else { continue }
                let source = try FileByteSource(path: file)
                guard source.size <= CompactCacheV2Bundle.maxTileSize else { throw .malformed("\(file) is too large to be a tile") }
                return try source.read(at: 0, count: Int(source.size))
            }
            return nil
        case .compactV1, .compactV2:
            guard let bundle = try bundle(level: level, row: row, column: column) else { return nil }
            return try bundle.tile(row: row, column: column)
        }
    }

    private func bundle(level: Int, row: Int, column: Int) throws(TileFormatError) -> (any TileBundle)? {
        let key = BundleKey(level: level, holdingRow: row, column: column)
        if let cached = openBundles[key] { return cached }
        guard let data = bundles[key]?.data else { return nil }
        let opened: any TileBundle
        if storage == .compactV2 {
            opened = try CompactCacheV2Bundle(source: FileByteSource(path: data))
        } else {
            guard let index = bundles[key]?.index else { throw .malformed("\(data) has no .bundlx index beside it") }
            opened = try CompactCacheV1Bundle(index: FileByteSource(path: index), data: FileByteSource(path: data))
        }
        openBundles[key] = opened
        return opened
    }
}
