import Foundation
import MapbookCore
import ArcGISModel

/// What the library knows of the web map: its item, its data, and its areas with their packages,
/// as the portal last listed them. Enough to show the list and details with no network.
public struct LibraryCatalog: Sendable {
    public var webMapItem: PortalItem
    public var webMapData: JSONValue
    public var areas: [MapArea]
    public var syncedAt: Date?

    public init(webMapItem: PortalItem, webMapData: JSONValue, areas: [MapArea], syncedAt: Date?) {
        self.webMapItem = webMapItem; self.webMapData = webMapData; self.areas = areas; self.syncedAt = syncedAt
    }

    public var webMap: WebMap { WebMap(arcGISJSON: webMapData) }

    /// `areas`, followed by the downloaded areas they do not include (the portal dropped them, or
    /// they were downloaded before): what is on this device always stays listed.
    public static func adding(_ records: [ItemID: DownloadRecord], to areas: [MapArea]) -> [MapArea] {
        let listed = Set(areas.map(\.item.id))
        let extra = records.values.sorted { $0.downloadedAt < $1.downloadedAt }
            .filter { !listed.contains($0.areaID) }.compactMap(\.area)
        return areas + extra
    }
}

/// A map area that is on this device: written last, and only once every package arrived whole and
/// passed its checks. Its presence is what "downloaded" means.
public struct DownloadRecord: Sendable, Equatable, Codable {
    /// Where an area's bytes came from: the portal, a fleet mirror, or some of each.
    public enum Source: Sendable, Equatable {
        case portal
        case mirror(String)
        case mixed(mirror: String)

        /// "portal", "mirror" or "mixed" (some packages from each).
        public var kind: String {
            switch self {
            case .portal: "portal"
            case .mirror: "mirror"
            case .mixed: "mixed"
            }
        }

        /// The mirror's address, when some bytes came from one.
        public var mirror: String? {
            switch self {
            case .portal: nil
            case .mirror(let address), .mixed(let address): address
            }
        }

        /// "portal", "mirror http://host:port", "mirror http://host:port and portal".
        public var label: String {
            switch self {
            case .portal: "portal"
            case .mirror(let address): "mirror \(address)"
            case .mixed(let address): "mirror \(address) and portal"
            }
        }
    }

    /// Where the packages came from, as the record says (packages kept from before count as the
    /// portal's unless they say otherwise).
    public var source: Source {
        let mirrors = packages.compactMap(\.mirror)
        guard let mirror = mirrors.first else { return .portal }
        return mirrors.count == packages.count ? .mirror(mirror) : .mixed(mirror: mirror)
    }

    /// A layer a geodatabase package holds, and how many live features.
    public struct HeldLayer: Sendable, Equatable, Codable {
        public var title: String
        public var features: Int

        public init(title: String, features: Int) { self.title = title; self.features = features }
    }

    public struct Package: Sendable, Equatable, Codable {
        public var id: ItemID
        public var title: String
        public var type: String
        /// The file's name in the area's `packages` folder.
        public var fileName: String
        public var size: Int64
        /// The package item's `modified`, epoch milliseconds, as the portal gave it.
        public var modified: Int64?
        /// How the file was checked when it arrived: "zip CRC-32" or "size".
        public var verifiedBy: String
        /// Why this tile package, whole and verified, cannot be drawn here; nil when it can.
        public var drawProblem: String?
        /// Tiles found damaged when it arrived (upstream damage: the checksums passed), and their
        /// levels; the map draws around them.
        public var damagedTiles: Int?
        public var damagedLevels: [Int]?
        /// A geodatabase's layers and their feature counts, read when it arrived.
        public var layers: [HeldLayer]?
        /// The fleet mirror the bytes came from (its address); nil when they came from the portal.
        public var mirror: String?
        /// Why the mirror's copy was not taken, when it was tried and the portal gave the bytes instead.
        public var mirrorProblem: String?

        public init(id: ItemID, title: String, type: String, fileName: String, size: Int64, modified: Int64?, verifiedBy: String,
                    drawProblem: String? = nil, damagedTiles: Int? = nil, damagedLevels: [Int]? = nil, layers: [HeldLayer]? = nil,
                    mirror: String? = nil, mirrorProblem: String? = nil) {
            self.id = id; self.title = title; self.type = type; self.fileName = fileName
            self.size = size; self.modified = modified; self.verifiedBy = verifiedBy; self.drawProblem = drawProblem
            self.damagedTiles = damagedTiles; self.damagedLevels = damagedLevels; self.layers = layers
            self.mirror = mirror; self.mirrorProblem = mirrorProblem
        }

        private enum CodingKeys: String, CodingKey {
            case id, title, type, fileName, size, modified, verifiedBy, drawProblem, damagedTiles, damagedLevels, layers, mirror, mirrorProblem
        }

        /// A record is read back only if its file name stays inside the area's `packages` folder: a
        /// hand-edited or hostile `manifest.json` must not make mapbook read or delete files elsewhere.
        public init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let fileName = try c.decode(String.self, forKey: .fileName)
            guard Self.isPlainFileName(fileName) else {
                throw DecodingError.dataCorruptedError(forKey: .fileName, in: c, debugDescription: "not a plain file name")
            }
            self.init(id: try c.decode(ItemID.self, forKey: .id), title: try c.decode(String.self, forKey: .title),
                      type: try c.decode(String.self, forKey: .type), fileName: fileName,
                      size: try c.decode(Int64.self, forKey: .size), modified: try c.decodeIfPresent(Int64.self, forKey: .modified),
                      verifiedBy: try c.decode(String.self, forKey: .verifiedBy),
                      drawProblem: try c.decodeIfPresent(String.self, forKey: .drawProblem),
                      damagedTiles: try c.decodeIfPresent(Int.self, forKey: .damagedTiles),
                      damagedLevels: try c.decodeIfPresent([Int].self, forKey: .damagedLevels),
                      layers: try c.decodeIfPresent([HeldLayer].self, forKey: .layers),
                      mirror: try c.decodeIfPresent(String.self, forKey: .mirror),
                      mirrorProblem: try c.decodeIfPresent(String.self, forKey: .mirrorProblem))
        }

        /// Not empty, no `/`, no NUL, not `.`/`..` and not hidden.
        package static func isPlainFileName(_ name: String) -> Bool {
            !name.isEmpty && name.utf8.count <= 255 && !name.hasPrefix(".") && !name.contains("/") && !name.contains("\0")
        }
    }

    public var areaID: ItemID
    /// The area item and its package items as the portal gave them when downloaded (ArcGIS JSON), so
    /// the area stays listed even if the portal drops it later.
    public var areaItem: JSONValue
    public var packageItems: [JSONValue]
    public var packages: [Package]
    /// How many operational layers' feature copies were put in place with the area (nil: none, or
    /// a record from before copies were counted). Fewer on disk means the area is not whole.
    public var featureCopies: Int?
    public var downloadedAt: Date

    public init(areaID: ItemID, areaItem: JSONValue, packageItems: [JSONValue], packages: [Package], featureCopies: Int? = nil,
                downloadedAt: Date) {
        self.areaID = areaID; self.areaItem = areaItem; self.packageItems = packageItems
        self.packages = packages; self.featureCopies = featureCopies; self.downloadedAt = downloadedAt
    }

    public var area: MapArea? {
        guard let item = PortalItem(arcGISJSON: areaItem) else { return nil }
        return MapArea(areaItem: item, packageItems: packageItems.compactMap(PortalItem.init(arcGISJSON:)))
    }

    public var size: Int64 { packages.reduce(0) { $0 + $1.size } }

    /// Why the area's map cannot be drawn, when none of its tile packages can be; nil when one can
    /// (or it has none: its packages are not tiles).
    public var drawProblem: String? {
        let tiles = mapPackages
        guard !tiles.isEmpty, tiles.allSatisfy({ $0.drawProblem != nil }) else { return nil }
        return tiles[0].drawProblem
    }

    /// Tiles of its drawable packages found damaged when they arrived, and their levels.
    public var damagedTiles: (count: Int, levels: [Int]) {
        mapPackages.filter { $0.drawProblem == nil }.reduce((0, [])) { sum, package in
            (sum.0 + (package.damagedTiles ?? 0), Array(Set(sum.1 + (package.damagedLevels ?? []))).sorted())
        }
    }

    /// The packages a map view can draw, best first: vector tiles, then raster tile packages.
    /// (Geodatabases and mobile map packages hold features, not tiles.)
    public var mapPackages: [Package] {
        let rank = ["Vector Tile Package": 0, "Compact Tile Package": 1, "Tile Package": 1]
        return packages.filter { rank[$0.type] != nil }.sorted { rank[$0.type]! < rank[$1.type]! }
    }

    /// The packages holding the area's features (SQLite Geodatabases).
    public var geodatabasePackages: [Package] { packages.filter { $0.type == "SQLite Geodatabase" } }

    /// The layers its geodatabases hold and their features, for details and `mapbook library`:
    /// "Places: 2 features · Counties: 1 feature"; nil when it holds none.
    public var heldFeatures: String? {
        let layers = geodatabasePackages.flatMap { $0.layers ?? [] }
        guard !layers.isEmpty else { return nil }
        return layers.map { "\(TerminalText.sanitizedLine($0.title, maxLength: 80)): \($0.features) feature\($0.features == 1 ? "" : "s")" }
            .joined(separator: " · ")
    }

    /// Whether the portal's current packages differ from the ones on disk (by id, modified and size).
    /// An area made on this device has no newer version on a portal: it is refreshed by exporting again.
    public func needsUpdate(comparedWith current: MapArea) -> Bool {
        guard !current.packages.isEmpty, current.onDemand == nil else { return false }
        let stored = Set(packages.map { "\($0.id)|\($0.modified ?? 0)|\($0.size)" })
        let listed = Set(current.packages.map { package in
            "\(package.item.id)|\(package.item.modified.map(DownloadRecord.millis) ?? 0)|\(package.size ?? -1)"
        })
        return stored != listed
    }

    package static func millis(_ date: Date) -> Int64 { date.epochMilliseconds }
}

