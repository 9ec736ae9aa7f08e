import Foundation
import Geometry
import MapbookCore
import TileFormats

/// The sample portal's "Mobile Map Package" item, as the Offline Mapbook finds them (tagged
/// "Offline Mapbook"): Maine's places and counties in a geodatabase, over a vector tile package of
/// the basemap, with two bookmarks — laid out as ArcGIS Pro lays out a package (`package.info`,
/// `p13/mobile_map.mmap`, the data beside it), stored, not deflated, as real `.mmpk` files are.
public enum SampleMobilePackage {
    public static let id = "0ff1ab00c7d84e9f0a1b2c3d4e5f6a57"
    public static let title = "Maine Places"
    static let fileName = "Maine_Places.mmpk"
    static let snippet = "Maine's places and counties over the Explore Maine basemap, for the Offline Mapbook."
    static let tags = ["Offline Mapbook", "Maine", "offline"]
    static let modified: Int64 = SampleCatalog.modified + 300_000

    /// The package's bytes.
    static func bytes(basemap: SampleBasemap, features: SampleFeatureServer, thumbnail: Data?) throws -> Data {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-sample-mmpk-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // The basemap service's own levels over Maine: the whole state, not an area's close-ups.
        let tilesPath = folder + "/basemap.vtpk"
        try VectorTilePackageWriter(name: "Maine_basemap.vtpk", title: "Explore Maine Basemap", snippet: snippet,
                                    extent: SampleCatalog.extent, style: SampleBasemap.style)
            .write(tiles: basemap.tiles.filter { SampleBasemap.tile($0.key, meets: SampleCatalog.extent) }, to: tilesPath)
        let geodatabase = try SampleAreaGeodatabase.bytes(within: SampleCatalog.extent, features: features, replica: nil)

        let zipPath = folder + "/" + fileName
        let writer = try ZipWriter(path: zipPath)
        try writer.add("package.info", try encoded(info(thumbnail: thumbnail)))
        try writer.add("esriinfo/iteminfo.xml", Data("<ESRI_ItemInformation Culture='en-US'><name>\(fileName)</name><title>\(title)</title></ESRI_ItemInformation>".utf8))
        try writer.add("p13/mobile_map.mmap", try encoded(map()))
        try writer.add("p13/maine.geodatabase", geodatabase)
        try writer.add("p13/Maine_basemap.vtpk", try Data(contentsOf: URL(fileURLWithPath: tilesPath)))
        try writer.finish()
        return try Data(contentsOf: URL(fileURLWithPath: zipPath))
    }

    private static func encoded(_ value: JSONValue) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    private static func info(thumbnail: Data?) -> JSONValue {
        .object([
            "title": .string(title), "snippet": .string(snippet), "type": .string("Mobile Map Package"),
            "maps": .array([.string("Maine")]),
            "created": .number(Double(SampleCatalog.created)), "modified": .number(Double(modified)),
            "thumbnail": thumbnail.map { .string("data:image/png;base64," + $0.base64EncodedString()) } ?? .null,
        ])
    }

    private static func map() -> JSONValue {
        let (webMercator, envelope) = (SampleREST.webMercator, SampleREST.envelope)
        let portland = SampleCatalog.areas.first { $0.title == "Greater Portland" }!.extent
        return .object([
            "map": .object([
                "version": .string("2.10"), "spatialReference": webMercator,
                "operationalLayers": .array([
                    .object(["id": .string("counties"), "title": .string("Counties"), "layerType": .string("ArcGISFeatureLayer"),
                             "path": .string("file:./maine.geodatabase?itemId=1"), "opacity": .number(0.8), "visibility": .bool(true)]),
                    .object(["id": .string("places"), "title": .string("Places"), "layerType": .string("ArcGISFeatureLayer"),
                             "path": .string("file:./maine.geodatabase?itemId=0"), "visibility": .bool(true),
                             "popupInfo": SampleREST.placesPopup]),
                ]),
                "baseMap": .object(["title": .string("Explore Maine Basemap"), "baseMapLayers": .array([
                    .object(["id": .string("basemap"), "title": .string("Explore Maine Basemap"), "layerType": .string("VectorTileLayer"),
                             "path": .string("file:./Maine_basemap.vtpk"), "visibility": .bool(true)]),
                ])]),
                "initialState": .object(["viewpoint": .object(["targetGeometry": envelope(SampleCatalog.extent)])]),
                "bookmarks": .array([
                    .object(["name": .string("All of Maine"), "extent": envelope(SampleCatalog.bookmarks[0].extent)]),
                    .object(["name": .string("Greater Portland"), "extent": envelope(portland)]),
                ]),
            ]),
            "item": .object(["title": .string("Maine"), "extent": .array([
                .array([.number(SampleCatalog.extent.xmin), .number(SampleCatalog.extent.ymin)]),
                .array([.number(SampleCatalog.extent.xmax), .number(SampleCatalog.extent.ymax)]),
            ])]),
        ])
    }
}
