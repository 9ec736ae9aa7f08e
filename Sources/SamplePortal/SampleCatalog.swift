import Foundation
import MapbookCore
import ArcGISModel
import Geometry

/// One of Explore Maine's preplanned map areas, as the sample portal serves it.
public struct SampleArea: Sendable {
    public var id: String
    public var title: String
    public var snippet: String
    public var extent: GeoExtent
    /// The id of its basemap's package, a vector tile package.
    public var packageID: String
    /// The id of its SQLite Geodatabase package (the web map's feature layers), when it has one.
    public var geodatabaseID: String? = nil

    /// The package's file name, as ArcGIS names area packages.
    public var packageName: String { title.replacingOccurrences(of: " ", with: "_") + ".vtpk" }
}

/// What the sample portal holds: the Explore Maine web map, its six map areas (the two real ids
/// where they are known), and a token-protected item. Extents are the places' real geography.
public enum SampleCatalog {
    public static let webMapID = ItemID.exploreMaine.rawValue
    public static let owner = "mapbook_sample"
    public static let webMapTitle = "Explore Maine"
    public static let webMapSnippet = "Explore Maine's parks, coast and cities, online or offline."
    /// A web map that needs `X-Esri-Authorization: Bearer <validToken>`.
    public static let protectedID = "0a11ce5ecdef4a7b9c1d2e3f40516273"
    public static let validToken = "sample-portal-token"
    /// 2018-03-20 and 2023-11-14, in epoch milliseconds as ArcGIS sends dates.
    static let created: Int64 = 1_521_583_200_000
    static let modified: Int64 = 1_700_000_000_000
    public static let basemapServicePath = "/arcgis/rest/services/Explore_Maine_Basemap/VectorTileServer"

    /// Maine and Boston: the web map's extent and the basemap's.
    public static let extent = GeoExtent(xmin: -71.3, ymin: 42.2, xmax: -66.9, ymax: 47.5)

    public static let areas: [SampleArea] = [
        SampleArea(id: "d1a2c3e4f5a64b7c8d9e0f1a2b3c4d5e", title: "Acadia",
                   snippet: "Mount Desert Island: Acadia National Park, Bar Harbor and Cadillac Mountain.",
                   extent: GeoExtent(xmin: -68.46, ymin: 44.21, xmax: -68.16, ymax: 44.43),
                   packageID: "a0c4d1a9e3b84f6c9d2e7f1a3b5c7d90"),
        SampleArea(id: "b05701a2c3d44e5f8a9b0c1d2e3f4a5b", title: "Boston",
                   snippet: "Boston, Cambridge and the harbor islands, where many Maine trips begin.",
                   extent: GeoExtent(xmin: -71.19, ymin: 42.27, xmax: -70.95, ymax: 42.42),
                   packageID: "b0e2f3a4b5c64d7e8f9a0b1c2d3e4f51"),
        SampleArea(id: "ba7e45a1b2c34d5e6f7a8b9c0d1e2f3a", title: "Baxter State Park",
                   snippet: "Mount Katahdin, the northern end of the Appalachian Trail, and the park's lakes.",
                   extent: GeoExtent(xmin: -69.16, ymin: 45.80, xmax: -68.76, ymax: 46.28),
                   packageID: "c1d2e3f4a5b64c7d8e9f0a1b2c3d4e52"),
        SampleArea(id: "5dbbd50464b546a1ae4e39236f5fafa0", title: "Greater Portland",
                   snippet: "Portland, South Portland, Westbrook and the islands of Casco Bay.",
                   extent: GeoExtent(xmin: -70.45, ymin: 43.55, xmax: -70.10, ymax: 43.78),
                   packageID: "d2e3f4a5b6c74d8e9f0a1b2c3d4e5f53"),
        SampleArea(id: "ca71b0a1c2d34e5f6a7b8c9d0e1f2a3b", title: "Caribou",
                   snippet: "Caribou, Presque Isle and the potato country of the Aroostook valley.",
                   extent: GeoExtent(xmin: -68.16, ymin: 46.76, xmax: -67.90, ymax: 46.92),
                   packageID: "e3f4a5b6c7d84e9f0a1b2c3d4e5f6a54", geodatabaseID: "9e0db000c7d84e9f0a1b2c3d4e5f6a56"),
        SampleArea(id: "e26115e1fb1343c39fbd2970fd9d3792", title: "Bangor",
                   snippet: "Bangor, Brewer, Orono and the Penobscot River.",
                   extent: GeoExtent(xmin: -68.90, ymin: 44.74, xmax: -68.62, ymax: 44.92),
                   packageID: "f4a5b6c7d8e94f0a1b2c3d4e5f6a7b55"),
    ]

    public static func area(id: String) -> SampleArea? { areas.first { $0.id == id } }
    /// The area one of whose packages has this id.
    public static func area(packageID: String) -> SampleArea? { areas.first { $0.packageID == packageID || $0.geodatabaseID == packageID } }

    /// Bookmarks of the web map: Maine, and each area.
    static var bookmarks: [(name: String, extent: GeoExtent)] {
        [("All of Maine", GeoExtent(xmin: -71.1, ymin: 42.9, xmax: -66.9, ymax: 47.5))] + areas.map { ($0.title, $0.extent) }
    }
}
