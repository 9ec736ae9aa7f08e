import Foundation
import Geometry
import MapbookCore
import Testing
@testable import ArcGISModel

/// The layer kinds real web maps use besides feature services, as the web map describes them:
/// feature collections, CSV files, map services, and the kinds only listed.
@Suite("Feature collections, CSV layers and how each layer is drawn")
struct EmbeddedFeatureLayerTests {
    static func layer(_ json: String) throws -> WebMapLayer {
        try #require(PortalDecoding.layer(try JSONValue(parsing: Data(json.utf8))))
    }

    @Test func eachLayerKindIsDrawnItsOwnWayAndGroupsAreOpened() throws {
        let json = """
            {"operationalLayers":[
              {"layerType":"ArcGISMapServiceLayer","title":"Soils","url":"https://s/MapServer","visibleLayers":[2,5],
               "layers":[{"id":2,"popupInfo":{"title":"{MUNAME}"}}]},
              {"layerType":"GroupLayer","title":"Hidden group","visibility":false,"layers":[
                {"layerType":"CSV","title":"Wells","url":"https://s/wells.csv","columnDelimiter":";",
                 "locationInfo":{"locationType":"coordinates","latitudeFieldName":"lat_dd","longitudeFieldName":"lon_dd"}}]},
              {"layerType":"ArcGISFeatureLayer","title":"Notes","featureCollection":{"layers":[]}},
              {"layerType":"ArcGISFeatureLayer","title":"Parcels","url":"https://s/FeatureServer/0"},
              {"layerType":"KML","title":"Trails","url":"https://s/trails.kml"},
              {"layerType":"ArcGISFeatureLayer","title":"No address"}
            ]}
            """
        let map = PortalDecoding.webMap(try JSONValue(parsing: Data(json.utf8)))
        #expect(map.flatOperationalLayers.map(\.drawing) == [.serviceImage, .csv, .featureCollection, .featureService, .none, .none])
        #expect(map.keptLayers.map(\.title) == ["Soils", "Wells", "Notes", "Parcels"], "the map service's picture is kept too")
        let soils = map.flatOperationalLayers[0]
        #expect(soils.title == "Soils" && map.flatOperationalLayers.filter { $0.drawing == .none }.map(\.title) == ["Trails", "No address"])
        #expect(soils.visibleLayers == [2, 5] && soils.layers.first?.id == "2" && soils.layers.first?.popupInfo != nil)
        let wells = map.keptLayers[1]
        #expect(!wells.visible, "a hidden group hides its layers")
        #expect(wells.csv == CSVLayout(delimiter: ";", latitudeField: "lat_dd", longitudeField: "lon_dd"))
    }

    @Test func aFeatureCollectionInWebMercatorIsReadInDegreesWithItsOwnPopupAndRenderer() throws {
        let portland = WebMercator.projected(longitude: -70.2078, latitude: 43.6231)
        let layer = try Self.layer("""
            {"layerType":"ArcGISFeatureLayer","title":"Notes","popupInfo":{"title":"outer"},"featureCollection":{"layers":[
              {"layerDefinition":{"name":"Points","geometryType":"esriGeometryPoint","objectIdField":"OID",
                 "fields":[{"name":"OID","type":"esriFieldTypeOID"},{"name":"label","type":"esriFieldTypeString"}],
                 "drawingInfo":{"renderer":{"type":"simple","symbol":{"type":"esriSMS","style":"esriSMSCircle","color":[0,0,255,255],"size":8}}}},
               "popupInfo":{"title":"{label}"},
               "featureSet":{"geometryType":"esriGeometryPoint","features":[
                 {"geometry":{"x":\(portland.x),"y":\(portland.y),"spatialReference":{"wkid":102100}},"attributes":{"OID":1,"label":"Head Light"}},
                 {"geometry":{"x":-70.1,"y":43.7,"spatialReference":{"wkid":4326}},"attributes":{"OID":2,"label":"In degrees"}},
                 {"geometry":null,"attributes":{"OID":3,"label":"Nowhere"}}]}},
              {"layerDefinition":{"name":"Lines","geometryType":"esriGeometryPolyline"},
               "featureSet":{"features":[{"geometry":{"paths":[[[0,0],[111319.49,0]]]},"attributes":{}}]}},
              {"layerDefinition":{"name":"Mystery"},"featureSet":{"features":[]}}
            ]}}
            """)
        let (layers, problems) = FeatureCollectionLayers.read(layer)
        #expect(layers.map(\.title) == ["Notes · Points", "Notes · Lines"])
        #expect(problems == ["Notes · Mystery is not drawn: its features have no geometry type mapbook reads."])
        let points = layers[0]
        guard case .points(let first)? = points.features[0].geometry else { Issue.record("no point"); return }
        #expect(abs(first[0].longitude + 70.2078) < 1e-6 && abs(first[0].latitude - 43.6231) < 1e-6, "Web Mercator brought to degrees")
        guard case .points(let second)? = points.features[1].geometry else { Issue.record("no point"); return }
        #expect(second[0] == GeoPoint(longitude: -70.1, latitude: 43.7), "a geometry's own spatial reference wins")
        #expect(points.features[2].geometry == nil)
        #expect(points.info.popup?.title == "{label}", "the part's popup before the layer's")
        #expect(points.info.symbol(for: [:]).symbol.color == SymbolColor(r: 0, g: 0, b: 255), "the collection's own renderer")
        // Kept as a copy would be: Esri JSON in WGS84.
        #expect(points.featureJSON[0]["geometry"]?["spatialReference"]?["wkid"]?.int64 == 4326)
        guard case .lines(let lines)? = layers[1].features.first?.geometry else { Issue.record("no line"); return }
        #expect(abs(lines[0][1].longitude - 1) < 1e-6, "with no spatial reference said, Web Mercator as ArcGIS Online writes it")
        #expect(FeatureCollectionLayers.read(try Self.layer(#"{"layerType":"ArcGISFeatureLayer","title":"E","featureCollection":{}}"#)).problems
                == ["E is not drawn: its feature collection holds no layers."])
    }

    @Test func aCSVFileIsReadAsSpreadsheetsWriteIt() throws {
        let layer = try Self.layer(#"{"layerType":"CSV","title":"Ferries","url":"https://s/f.csv"}"#)
        let text = "\u{FEFF}Name,Lat,Long,Crossings,Boats\r\n"
            + "Rockland,44.1037,-69.1047,\"Vinalhaven, North Haven\",3\r\n"
            + "\r\n"
            + "\"Say \"\"hi\"\"\",44.2,-69.0,\"two\nlines\",\r\n"
            + "Lost,north,-69,none,1\r\n"
            + "Short,44.3"
        let read = try CSVLayer.read(Data(text.utf8), layer: layer)
        #expect(read.features.count == 4, "the blank line left out")
        #expect(read.features[0].attributes["Crossings"] == .string("Vinalhaven, North Haven"))
        #expect(read.features[0].attributes["Boats"] == .number(3), "a column of numbers is a number field")
        #expect(read.features[1].attributes["Name"] == .string("Say \"hi\"") && read.features[1].attributes["Crossings"] == .string("two\nlines"))
        #expect(read.features[1].attributes["Boats"] == .null)
        #expect(read.features[0].geometry == .points([GeoPoint(longitude: -69.1047, latitude: 44.1037)]))
        #expect(read.features[2].geometry == nil && read.features[3].geometry == nil, "no usable coordinates: listed, not placed")
        #expect(read.info.displayField == "Name" && read.info.geometryType == .point)
        #expect(read.info.field("Lat")?.type == "esriFieldTypeString", "\"north\" makes the column text")
        #expect(read.info.rendererProblem == nil, "a default marker when the web map gives no renderer")
        // Past the limit, rows are counted, not kept.
        let many = "lat,lon\n" + String(repeating: "44,-69\n", count: EmbeddedFeatureLayer.limit + 5)
        let capped = try CSVLayer.read(Data(many.utf8), layer: layer)
        #expect(capped.features.count == EmbeddedFeatureLayer.limit && capped.leftOut == 5)
    }

    @Test func aCSVFileWithItsOwnDelimiterAndFieldsAndOnesThatCannotBeRead() throws {
        let layer = try Self.layer("""
            {"layerType":"CSV","title":"Wells","url":"https://s/w.csv","columnDelimiter":"\\t",
             "locationInfo":{"locationType":"coordinates","latitudeFieldName":"Y_DD","longitudeFieldName":"X_DD"}}
            """)
        let read = try CSVLayer.read(Data("id\tY_DD\tX_DD\n7\t45.5\t-68.25\n".utf8), layer: layer)
        #expect(read.features.first?.geometry == .points([GeoPoint(longitude: -68.25, latitude: 45.5)]))
        #expect(read.info.objectIDField == "OBJECTID")
        #expect(throws: CSVLayer.Unreadable.self) { try CSVLayer.read(Data("a,b\n1,2\n".utf8), layer: layer) }
        #expect(throws: CSVLayer.Unreadable.self) { try CSVLayer.read(Data(), layer: layer) }
        do {
            _ = try CSVLayer.read(Data("name,x\nA,1\n".utf8), layer: layer)
        } catch {
            #expect(error.userMessage == "Wells is not drawn: its file has no latitude and longitude columns mapbook can find.")
        }
        // Latin-1 from an old spreadsheet still reads.
        let latin = try CSVLayer.read(Data([0x4E, 0x61, 0x6D, 0x65, 0x09, 0x59, 0x5F, 0x44, 0x44, 0x09, 0x58, 0x5F, 0x44, 0x44, 0x0A,
                                            0x51, 0x75, 0xE9, 0x62, 0x65, 0x63, 0x09, 0x34, 0x36, 0x09, 0x2D, 0x37, 0x31, 0x0A]), layer: layer)
        #expect(latin.features.first?.attributes["Name"] == .string("Québec"))
    }
}
