import Foundation
import MapbookCore
import Geometry

/// "Maine services": a web map of the layer kinds real web maps use besides feature services — a
/// dynamic map service (`Maine_Boundaries`, its sublayers' popups in the web map), a feature
/// collection inside the web map (lighthouses, in Web Mercator, as ArcGIS Online saves them), a
/// CSV item (ferry terminals) and a KML layer mapbook lists but does not draw — over Explore
/// Maine's basemap, with the same map areas.
public enum SampleServicesMap {
    public static let id = "5e7a1c2b3d4f4a6b8c9d0e1f2a3b4c5d"
    public static let title = "Maine services"
    static let snippet = "Maine's towns and counties from a map service, with lighthouses and ferry terminals."
    public static let csvID = "c5f0a1e2d3c44b5a96877a8b9c0d1e2f"
    static let csvTitle = "Maine ferry terminals"

    /// Lighthouses on Maine's coast: name, year first lit, longitude, latitude.
    static let lighthouses: [(String, Int, Double, Double)] = [
        ("Portland Head Light", 1791, -70.2078, 43.6231), ("Cape Neddick (Nubble) Light", 1879, -70.5908, 43.1653),
        ("Pemaquid Point Light", 1827, -69.5061, 43.8367), ("Owls Head Light", 1825, -69.0442, 44.0922),
        ("Bass Harbor Head Light", 1858, -68.3372, 44.2219), ("West Quoddy Head Light", 1808, -66.9525, 44.8150),
    ]

    /// The ferry terminals' CSV file, as a spreadsheet writes it: a quoted field with a comma.
    static let csv = """
        Name,Operator,Latitude,Longitude,Crossings
        Rockland,Maine State Ferry Service,44.1037,-69.1047,"Vinalhaven, North Haven, Matinicus"
        Lincolnville,Maine State Ferry Service,44.2806,-69.0597,Islesboro
        Bass Harbor,Maine State Ferry Service,44.2406,-68.3514,"Swans Island, Frenchboro"
        Portland,Casco Bay Lines,43.6560,-70.2487,Casco Bay islands
        Vinalhaven,Maine State Ferry Service,44.0480,-68.8370,Rockland

        """.replacingOccurrences(of: "\n", with: "\r\n")

    static func data(baseURL: String) -> JSONValue {
        var webMap = SampleREST.exploreMaineData(baseURL: baseURL).object ?? [:]
        let webMercator: JSONValue = .object(["wkid": .number(102100), "latestWkid": .number(3857)])
        func color(_ r: Int, _ g: Int, _ b: Int) -> JSONValue { .array([r, g, b, 255].map { .number(Double($0)) }) }
        func marker(_ style: String, _ fill: JSONValue, size: Double) -> JSONValue {
            .object(["type": .string("simple"), "symbol": .object([
                "type": .string("esriSMS"), "style": .string(style), "color": fill, "size": .number(size),
                "outline": .object(["color": color(255, 255, 255), "width": .number(1)]),
            ])])
        }
        func fieldInfo(_ name: String, _ label: String) -> JSONValue {
            .object(["fieldName": .string(name), "label": .string(label), "visible": .bool(true)])
        }
        let lights: [JSONValue] = lighthouses.enumerated().map { index, light in
            let p = WebMercator.projected(longitude: light.2, latitude: light.3)
            return .object([
                "geometry": .object(["x": .number(p.x), "y": .number(p.y), "spatialReference": webMercator]),
                "attributes": .object(["OBJECTID": .number(Double(index + 1)), "name": .string(light.0), "first_lit": .number(Double(light.1))]),
            ])
        }
        webMap["operationalLayers"] = .array([
            .object([
                "id": .string("maine-boundaries"), "layerType": .string("ArcGISMapServiceLayer"), "title": .string("Maine boundaries"),
                "url": .string(baseURL + SampleMapService.path), "visibility": .bool(true), "opacity": .number(0.9),
                "visibleLayers": .array([.number(0), .number(1)]),
                "layers": .array([
                    .object(["id": .number(0), "popupInfo": .object(["title": .string("{Name}"),
                                                                   "fieldInfos": .array([fieldInfo("Name", "Town"), fieldInfo("Population", "Population"),
                                                                                         fieldInfo("County", "County")])])]),
                    .object(["id": .number(1), "popupInfo": .object(["title": .string("{County} County"),
                                                                   "fieldInfos": .array([fieldInfo("County", "County"), fieldInfo("Area (km²)", "Area (km²)")])])]),
                ]),
            ]),
            .object([
                "id": .string("maine-lighthouses"), "layerType": .string("ArcGISFeatureLayer"), "title": .string("Lighthouses"),
                "visibility": .bool(true), "opacity": .number(1),
                "featureCollection": .object(["layers": .array([.object([
                    "layerDefinition": .object([
                        "name": .string("Lighthouses"), "geometryType": .string("esriGeometryPoint"), "objectIdField": .string("OBJECTID"),
                        "displayField": .string("name"), "spatialReference": webMercator,
                        "fields": .array([
                            .object(["name": .string("OBJECTID"), "type": .string("esriFieldTypeOID"), "alias": .string("OBJECTID")]),
                            .object(["name": .string("name"), "type": .string("esriFieldTypeString"), "alias": .string("Name")]),
                            .object(["name": .string("first_lit"), "type": .string("esriFieldTypeInteger"), "alias": .string("First lit")]),
                        ]),
                        "drawingInfo": .object(["renderer": marker("esriSMSDiamond", color(250, 200, 30), size: 9)]),
                    ]),
                    "featureSet": .object(["geometryType": .string("esriGeometryPoint"), "features": .array(lights)]),
                    "popupInfo": .object(["title": .string("{name}"), "fieldInfos": .array([fieldInfo("first_lit", "First lit")])]),
                ])])]),
            ]),
            .object([
                "id": .string("maine-ferries"), "layerType": .string("CSV"), "title": .string("Ferry terminals"),
                "url": .string(baseURL + "/sharing/rest/content/items/\(csvID)/data"), "itemId": .string(csvID),
                "visibility": .bool(true), "opacity": .number(1), "columnDelimiter": .string(","),
                "locationInfo": .object(["locationType": .string("coordinates"), "latitudeFieldName": .string("Latitude"),
                                         "longitudeFieldName": .string("Longitude")]),
                "layerDefinition": .object(["drawingInfo": .object(["renderer": marker("esriSMSSquare", color(30, 90, 200), size: 8)])]),
                "popupInfo": .object(["title": .string("{Name} ferry terminal"),
                                      "fieldInfos": .array([fieldInfo("Operator", "Operator"), fieldInfo("Crossings", "Crossings")])]),
            ]),
            .object([
                "id": .string("maine-trails"), "layerType": .string("KML"), "title": .string("Hiking trails"),
                "url": .string(baseURL + "/trails.kml"), "visibility": .bool(true),
            ]),
        ])
        webMap["bookmarks"] = .array([])
        return .object(webMap)
    }
}
