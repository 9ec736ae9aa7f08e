import Foundation
import MapbookCore
import Geometry

/// Writes a `.vtpk` as ArcGIS lays one out — `esriinfo/iteminfo.xml`, `p12/root.json`, the style at
/// `p12/resources/styles/root.json`, and gzip'd MVT tiles in Compact Cache V2 bundles under
/// `p12/tile/Lzz/` — as a stored zip. Entries, JSON keys, gzip headers and zip timestamps are all
/// fixed, so the same input always yields the same bytes.
public struct VectorTilePackageWriter: Sendable {
    public var name: String
    public var title: String
    public var snippet: String
    /// The package's extent, which `root.json` and `iteminfo.xml` report.
    public var extent: GeoExtent
    public var style: JSONValue

    public init(name: String, title: String, snippet: String, extent: GeoExtent, style: JSONValue) {
        self.name = name; self.title = title; self.snippet = snippet; self.extent = extent; self.style = style
    }

    /// Level 0 of a 512-pixel vector tile grid: one tile spans the world.
    static let level0Resolution = 2 * WebMercator.originShift / 512

    public func write(tiles: [TileKey: MVTTile], to path: String) throws {
        let maxZoom = tiles.keys.map(\.z).max() ?? 0
        let zip = try ZipWriter(path: path)
        try zip.add("esriinfo/iteminfo.xml", Data(itemInfoXML().utf8))
        try zip.add("p12/root.json", try Self.encode(rootJSON(maxZoom: maxZoom)))
        try zip.add("p12/resources/styles/root.json", try Self.encode(style))

        // One bundle per 128×128 block of each level, in a fixed order.
        var bundles: [TileKey: [(row: Int, column: Int, data: Data)]] = [:]
        for key in tiles.keys.sorted() {
            let block = TileKey(z: key.z, x: key.x & ~127, y: key.y & ~127)
            bundles[block, default: []].append((key.y & 127, key.x & 127, Deflate.deflate(tiles[key]!.encoded())))
        }
        for block in bundles.keys.sorted() {
            let name = String(format: "p12/tile/L%02d/", block.z) + CompactCacheV2Bundle.fileName(row: block.y, column: block.x)
            try zip.add(name, CompactCacheV2Bundle.encode(tiles: bundles[block]!))
        }
        try zip.finish()
    }

    public static func encode(_ json: JSONValue) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(json)
    }

    /// `p12/root.json`, which is also what a VectorTileServer answers to `?f=json`.
    public func rootJSON(maxZoom: Int) -> JSONValue {
        let sw = WebMercator.projected(longitude: extent.xmin, latitude: extent.ymin)
        let ne = WebMercator.projected(longitude: extent.xmax, latitude: extent.ymax)
        let webMercator: JSONValue = .object(["wkid": .number(102100), "latestWkid": .number(3857)])
        let envelope: JSONValue = .object(["xmin": .number(sw.x), "ymin": .number(sw.y), "xmax": .number(ne.x),
                                           "ymax": .number(ne.y), "spatialReference": webMercator])
        // Scale at 96 dpi: metres per pixel ÷ 0.0254 × 96.
        let lods: [JSONValue] = (0...maxZoom).map { level in
            let resolution = Self.level0Resolution / Double(1 << level)
            return .object(["level": .number(Double(level)), "resolution": .number(resolution),
                            "scale": .number(resolution * 96 / 0.0254)])
        }
        return .object([
            "currentVersion": .number(11.3),
            "name": .string(name),
            "capabilities": .string("TilesOnly"),
            "type": .string("indexedVector"),
            "defaultStyles": .string("resources/styles"),
            "tiles": .array([.string("tile/{z}/{y}/{x}.pbf")]),
            "exportTilesAllowed": .bool(false),
            "initialExtent": envelope,
            "fullExtent": envelope,
            "minScale": lods.first?["scale"] ?? .null,
            "maxScale": lods.last?["scale"] ?? .null,
            "tileInfo": .object([
                "rows": .number(512), "cols": .number(512), "dpi": .number(96), "format": .string("pbf"),
                "origin": .object(["x": .number(-WebMercator.originShift), "y": .number(WebMercator.originShift)]),
                "spatialReference": webMercator,
                "lods": .array(lods),
            ]),
            "maxzoom": .number(Double(maxZoom)),
            "minLOD": .number(0),
            "maxLOD": .number(Double(maxZoom)),
            "resourceInfo": .object([
                "styleVersion": .number(8),
                "tileCompression": .string("gzip"),
                "cacheInfo": .object(["storageInfo": .object(["packetSize": .number(128), "storageFormat": .string("compactV2")])]),
            ]),
        ])
    }

    func itemInfoXML() -> String {
        func escaped(_ s: String) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        }
        return """
            <?xml version="1.0" encoding="utf-8" ?>
            <ESRI_ItemInformation Culture='en-US'>
            <name>\(escaped(name))</name>
            <snippet>\(escaped(snippet))</snippet>
            <title>\(escaped(title))</title>
            <type>Vector Tile Package</type>
            <typekeywords>
            <typekeyword>Data</typekeyword>
            <typekeyword>Vector Tile Package</typekeyword>
            <typekeyword>vtpk</typekeyword>
            </typekeywords>
            <extent>
            <xmin>\(extent.xmin)</xmin>
            <ymin>\(extent.ymin)</ymin>
            <xmax>\(extent.xmax)</xmax>
            <ymax>\(extent.ymax)</ymax>
            </extent>
            <spatialreference>WGS_1984_Web_Mercator_Auxiliary_Sphere</spatialreference>
            </ESRI_ItemInformation>

            """
    }
}
