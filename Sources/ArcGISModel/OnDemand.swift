import Foundation
import MapbookCore
import Geometry

/// How close an on-demand area can be looked at: the named scales of Esri's offline toolkit, each a
/// Web Mercator level (the toolkit's `CacheScale`, its several "world" and "building" steps folded
/// into one name each).
public enum DetailLevel: String, CaseIterable, Sendable, Codable {
    case room, rooms, house, houses, building, buildings, street, streets, neighborhood, town, city, cities,
         metropolitan, county, counties, state, states, country, countries, continent, world

    /// The deepest Web Mercator level exported.
    public var level: Int {
        switch self {
        case .room: 23
        case .rooms: 22
        case .house: 21
        case .houses: 20
        case .building: 18
        case .buildings: 17
        case .street: 16
        case .streets: 15
        case .neighborhood: 14
        case .town: 13
        case .city: 12
        case .cities: 11
        case .metropolitan: 10
        case .county: 9
        case .counties: 8
        case .state: 7
        case .states: 6
        case .country: 5
        case .countries: 4
        case .continent: 3
        case .world: 1
        }
    }

    /// The map scale of that level at 96 dpi (1:N).
    public var scale: Double { 591_657_527.591555 / Double(1 << level) }

    public var title: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }

    /// A name as people type it, any case ("Street", "streets").
    public init?(name: String) {
        self.init(rawValue: name.trimmingCharacters(in: .whitespaces).lowercased())
    }

    /// The named level closest to a zoom (what the browser offers first for the view).
    public static func nearest(zoom: Double) -> DetailLevel {
        allCases.min { abs(Double($0.level) - zoom) < abs(Double($1.level) - zoom) }!
    }
}

/// The Web Mercator tile grid (256-pixel tiles, origin top left): what an export of an extent over
/// levels holds, counted the way a tile server counts it.
public enum TileGrid {
    /// The tiles of each level that meet `extent`.
    public static func tileCount(_ extent: GeoExtent, level: Int) -> Int {
        let nw = WebMercator.projected(longitude: extent.xmin, latitude: min(extent.ymax, WebMercator.maxLatitude))
        let se = WebMercator.projected(longitude: extent.xmax, latitude: max(extent.ymin, -WebMercator.maxLatitude))
        let first = WebMercator.tile(containingX: nw.x, y: nw.y, zoom: level)
        let last = WebMercator.tile(containingX: se.x, y: se.y, zoom: level)
        return (last.column - first.column + 1) * (last.row - first.row + 1)
    }

    public static func tileCount(_ extent: GeoExtent, levels: ClosedRange<Int>) -> Int {
        levels.reduce(0) { $0 + tileCount(extent, level: $1) }
    }
}

/// A server-side job's state, from a map or vector tile service's job (`esriJob…`) or a feature
/// service's replica status (`Pending`, `ExportingData`, `Completed`…).
public enum ServiceJobStatus: Sendable, Equatable {
    case waiting
    case running(percent: Int?)
    case succeeded
    /// The server's own sentence, sanitized.
    case failed(String)
    case cancelled

    /// A map or vector tile service's job: `{"jobStatus": "esriJobExecuting", "progress": {…}, "messages": […]}`.
    public init(job json: JSONValue) {
        let messages = (json["messages"]?.array ?? []).compactMap { $0["description"]?.string }
        let percent = json["progress"]?["percent"]?.double ?? json["percentComplete"]?.double
        switch json["jobStatus"]?.string ?? "" {
        case "esriJobNew", "esriJobSubmitted", "esriJobWaiting": self = .waiting
        case "esriJobExecuting", "esriJobCancelling": self = .running(percent: percent.flatMap { $0.int(in: 0...100) })
        case "esriJobSucceeded": self = .succeeded
        case "esriJobCancelled": self = .cancelled
        case "esriJobFailed", "esriJobTimedOut":
            self = .failed(Self.sentence(messages.last(where: { !$0.isEmpty }) ?? "the server gave no reason"))
        case let other: self = .failed(Self.sentence("the server said “\(other.isEmpty ? "nothing" : other)” of the job"))
        }
    }

    /// A feature service's replica job, at its `statusUrl`.
    public init(replica json: JSONValue) {
        let status = json["status"]?.string ?? ""
        switch status.lowercased() {
        case "pending", "submitted": self = .waiting
        case "inprogress", "exportingdata", "exportingsnapshot", "exportattachments", "provisioning":
            self = .running(percent: nil)
        case "completed": self = .succeeded
        case "cancelled", "canceled": self = .cancelled
        default:
            let reason = json["message"]?.string ?? (status.isEmpty ? "the server gave no status" : "the server said “\(status)”")
            self = .failed(Self.sentence(reason))
        }
    }

    public var isFinished: Bool {
        switch self {
        case .succeeded, .failed, .cancelled: true
        case .waiting, .running: false
        }
    }

    /// "Preparing on the server 40 %", "Waiting for the server"…
    public var label: String {
        switch self {
        case .waiting: "Waiting for the server"
        case .running(let percent?): "Preparing on the server \(percent) %"
        case .running(nil): "Preparing on the server"
        case .succeeded: "Prepared"
        case .failed: "Failed on the server"
        case .cancelled: "Cancelled on the server"
        }
    }

    /// One clause: sanitized, without the full stop the sentence it goes into adds.
    private static func sentence(_ text: String) -> String {
        var clause = TerminalText.sanitizedLine(text, maxLength: 300)
        while clause.hasSuffix(".") { clause.removeLast() }
        return clause
    }
}

/// What `estimateExportTilesSize` answers: `{"totalSize": bytes, "totalTilesToExport": n}`.
public struct TileExportEstimate: Sendable, Equatable {
    public var tiles: Int
    public var bytes: Int64

    public init(tiles: Int, bytes: Int64) { self.tiles = tiles; self.bytes = bytes }

    /// nil when the server's figures are not numbers a world of tiles could have (every tile of
    /// level 23 is 2^46; a petabyte): the tiles are then counted on the grid instead.
    public init?(json: JSONValue) {
        let value = json["value"] ?? json
        guard let tiles = value["totalTilesToExport"]?.int(in: 0...(1 << 47)),
              let bytes = value["totalSize"]?.int(in: 0...(1 << 50)) else { return nil }
        self.init(tiles: tiles, bytes: Int64(bytes))
    }
}

/// One layer of a web map as an on-demand export takes it: a tile service's tiles up to a level,
/// or a feature service's layers as a replica.
public struct OnDemandLayer: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable {
        case vectorTiles, rasterTiles, features
    }

    public var title: String
    public var kind: Kind
    /// The service's address (`…/VectorTileServer`, `…/MapServer`, `…/FeatureServer`).
    public var serviceURL: String
    /// A feature service's layer ids the web map shows.
    public var layerIDs: [Int]
    /// The most tiles the service exports at once (`maxExportTilesCount`).
    public var maxTiles: Int?
    /// The service's deepest level; the export stops there.
    public var deepestLevel: Int?

    public init(title: String, kind: Kind, serviceURL: String, layerIDs: [Int] = [], maxTiles: Int? = nil,
                deepestLevel: Int? = nil) {
        self.title = title; self.kind = kind; self.serviceURL = serviceURL; self.layerIDs = layerIDs
        self.maxTiles = maxTiles; self.deepestLevel = deepestLevel
    }

    /// The package type an export of it arrives as.
    public var packageType: String {
        switch kind {
        case .vectorTiles: "Vector Tile Package"
        case .rasterTiles: "Compact Tile Package"
        case .features: "SQLite Geodatabase"
        }
    }

    public var fileExtension: String {
        switch kind {
        case .vectorTiles: "vtpk"
        case .rasterTiles: "tpkx"
        case .features: "geodatabase"
        }
    }

    /// The levels exported for an area made to `maxLevel`.
    public func levels(upTo maxLevel: Int) -> ClosedRange<Int> { 0...max(0, min(maxLevel, deepestLevel ?? maxLevel)) }
}

/// What a user asked for when making an area of their own: kept in the area item's `properties`
/// (`onDemand`), so the library knows the area is "yours" and can export it again.
public struct OnDemandSpec: Sendable, Equatable, Codable {
    public var name: String
    public var extent: GeoExtent
    public var maxLevel: Int
    /// The named scale chosen, when one was.
    public var detail: DetailLevel?
    public var createdAt: Date

    public init(name: String, extent: GeoExtent, maxLevel: Int, detail: DetailLevel?, createdAt: Date) {
        self.name = name; self.extent = extent; self.maxLevel = maxLevel; self.detail = detail; self.createdAt = createdAt
    }

    /// "Street (level 16)", or "level 12".
    public var detailLabel: String { detail.map { "\($0.title) (level \(maxLevel))" } ?? "level \(maxLevel)" }

    public var json: JSONValue {
        var members: [String: JSONValue] = [
            "name": .string(name), "maxLevel": .number(Double(maxLevel)),
            "extent": .array([.number(extent.xmin), .number(extent.ymin), .number(extent.xmax), .number(extent.ymax)]),
            "createdAt": .number(Double(createdAt.epochMilliseconds)),
        ]
        if let detail { members["detail"] = .string(detail.rawValue) }
        return .object(members)
    }

    public init?(json: JSONValue?) {
        guard let json, let name = json["name"]?.string, let level = json["maxLevel"]?.double, (0...30).contains(level),
              let corners = json["extent"]?.array, corners.count == 4 else { return nil }
        let values = corners.compactMap(\.double)
        guard values.count == 4 else { return nil }
        self.init(name: TerminalText.sanitizedLine(name, maxLength: 120),
                  extent: GeoExtent(xmin: values[0], ymin: values[1], xmax: values[2], ymax: values[3]),
                  maxLevel: Int(level), detail: json["detail"]?.string.flatMap(DetailLevel.init(rawValue:)),
                  createdAt: Date(timeIntervalSince1970: (json["createdAt"]?.double ?? 0) / 1000))
    }
}

extension MapArea {
    /// The spec of an area the user made on this device; nil for a preplanned area.
    public var onDemand: OnDemandSpec? { OnDemandSpec(json: item.properties?["onDemand"]) }

    /// An area made on this device: an item of its own (type "Map Area", status complete, the spec
    /// in its properties) with one package item per exported layer, `modified` at `exported` so a
    /// new export is a new version of each.
    public static func onDemand(id: ItemID, spec: OnDemandSpec, packages: [(id: ItemID, layer: OnDemandLayer, url: URL, size: Int64?)],
                                exported: Date) -> MapArea {
        let item = PortalItem(id: id, title: spec.name, type: "Map Area", typeKeywords: ["Map", "Map Area", "OnDemand"],
                              snippet: "Made on this device: \(spec.detailLabel).", extent: spec.extent,
                              created: spec.createdAt, modified: exported,
                              properties: .object(["status": .string("complete"), "onDemand": spec.json]))
        var area = MapArea(item: item, status: .complete, packages: [])
        area.packages = packages.map { package in
            var packageItem = PortalItem(id: package.id, title: package.layer.title, type: package.layer.packageType,
                                         typeKeywords: package.layer.kind == .rasterTiles ? ["tpkx"] : [], modified: exported,
                                         size: package.size, url: package.url.absoluteString,
                                         name: "\(package.layer.title).\(package.layer.fileExtension)")
            packageItem.properties = .object(["exportedFrom": .string(package.layer.serviceURL)])
            return AreaPackage(item: packageItem)
        }
        return area
    }
}
