import Foundation
import MapbookCore

/// "Maine survey (UTM)": a web map in NAD83 / UTM zone 19N (wkid 26919), as a state agency's maps
/// often are — its basemap a cached service in that projection (`Maine_Survey_UTM`), its initial
/// view in UTM metres, and Explore Maine's two feature layers.
public enum SampleUTMMap {
    public static let id = "7f3e9a1b2c4d4e5f8a9b0c1d2e3f4a5b"
    public static let title = "Maine survey (UTM)"
    static let snippet = "Maine's places and counties, in NAD83 / UTM zone 19N."

    static func data(baseURL: String) -> JSONValue {
        var webMap = SampleREST.exploreMaineData(baseURL: baseURL).object ?? [:]
        let utm: JSONValue = .object(["wkid": .number(26919), "latestWkid": .number(26919)])
        webMap["spatialReference"] = utm
        webMap["baseMap"] = .object([
            "title": .string("Maine survey basemap"),
            "baseMapLayers": .array([.object([
                "id": .string("maine-survey-basemap"), "layerType": .string("ArcGISTiledMapServiceLayer"),
                "title": .string("Maine survey basemap"), "url": .string(baseURL + SampleMapServer.surveyPath),
                "visibility": .bool(true), "opacity": .number(1),
            ])]),
        ])
        // Mid-coast Maine, Portland to Mount Desert Island, in UTM metres.
        webMap["initialState"] = .object(["viewpoint": .object(["targetGeometry": .object([
            "xmin": .number(400_000), "ymin": .number(4_830_000), "xmax": .number(560_000), "ymax": .number(4_960_000),
            "spatialReference": utm,
        ])])])
        webMap["bookmarks"] = .array([])
        webMap["applicationProperties"] = nil
        return .object(webMap)
    }
}
