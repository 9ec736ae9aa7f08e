import Foundation
import Testing
@testable import ArcGISModel
import Geometry
import MapbookCore
import ArcGISModel

@Suite("Feature layers and popups")
struct FeatureLayerTests {
    static func json(_ text: String) -> JSONValue { try! JSONValue(parsing: Data(text.utf8)) }

    static let marker = #"{"type":"esriSMS","style":"esriSMSSquare","color":[200,30,40,255],"size":10}"#

    @Test func aUniqueValueRendererMatchesTheJoinedFieldsAndFallsToItsDefault() {
        let renderer = FeatureRenderer(json: Self.json(#"""
            {"type":"uniqueValue","field1":"kind","field2":"rank","fieldDelimiter":"|",
             "defaultSymbol":{"type":"esriSMS","color":[1,2,3,255]},"defaultLabel":"Others",
             "uniqueValueInfos":[{"value":"city|1","label":"Capital","symbol":\#(Self.marker)},
                                 {"value":"town|2","symbol":{"type":"esriSMS","style":"esriSMSCircle","color":[0,0,255,255]}}]}
            """#))!
        #expect(renderer.classIndex(of: ["kind": .string("city"), "rank": .number(1)]) == 0)
        // Numbers compare as ArcGIS writes them (2, not 2.0); no label means the value.
        #expect(renderer.classIndex(of: ["kind": .string("town"), "rank": .number(2)]) == 1 && renderer.classes[1].label == "town|2")
        #expect(renderer.classIndex(of: ["kind": .string("village"), "rank": .number(3)]) == nil)
        #expect(renderer.classIndex(of: [:]) == nil && renderer.defaultLabel == "Others")
        #expect(renderer.classes[0].symbol == FeatureSymbol(kind: .marker(style: "esriSMSSquare"), color: SymbolColor(r: 200, g: 30, b: 40), size: 10))
    }

    @Test func classBreaksTakeTheUpperBoundAndTheFirstClassItsLowerBound() {
        let fill = #"{"type":"esriSFS","style":"esriSFSSolid","color":[10,20,30,128],"outline":{"type":"esriSLS","color":[0,0,0,255],"width":1}}"#
        let renderer = FeatureRenderer(json: Self.json(#"""
            {"type":"classBreaks","field":"area","minValue":0,
             "classBreakInfos":[{"classMaxValue":10,"label":"small","symbol":\#(fill)},{"classMaxValue":100,"label":"big","symbol":\#(fill)}]}
            """#))!
        #expect(renderer.classIndex(of: ["area": .number(0)]) == 0)
        #expect(renderer.classIndex(of: ["area": .number(10)]) == 0)
        #expect(renderer.classIndex(of: ["area": .number(10.5)]) == 1)
        #expect(renderer.classIndex(of: ["area": .string("100")]) == 1)
        #expect(renderer.classIndex(of: ["area": .number(100.1)]) == nil && renderer.classIndex(of: ["area": .number(-1)]) == nil)
        #expect(renderer.classIndex(of: ["area": .null]) == nil)
        #expect(renderer.classes[0].symbol.outline == SymbolColor(r: 0, g: 0, b: 0) && renderer.classes[0].symbol.color?.a == 128)
    }

    @Test func anUnknownRendererDrawsEverythingWithOneSymbolAndSaysSo() {
        let layer = FeatureLayerInfo(json: Self.json(#"""
            {"name":"Heat","geometryType":"esriGeometryPoint","drawingInfo":{"renderer":{"type":"heatmap","colorStops":[]}}}
            """#))!
        #expect(layer.renderer.kind == .unsupported(type: "heatmap"))
        #expect(layer.symbol(for: [:]).symbol == .fallback(for: .point) && layer.symbol(for: [:]).classIndex == nil)
        #expect(layer.rendererProblem == "Heat: its heatmap renderer is drawn with one symbol.")
        // No renderer at all draws the same way; a table (no geometry type) is no feature layer.
        #expect(FeatureLayerInfo(json: Self.json(#"{"name":"Lines","geometryType":"esriGeometryPolyline"}"#))?.symbol(for: [:]).symbol
                == .fallback(for: .polyline))
        #expect(FeatureLayerInfo(json: Self.json(#"{"name":"Table","type":"Table"}"#)) == nil)
    }

    @Test func theWebMapsLayerDefinitionOverridesTheService() {
        let service = Self.json(#"""
            {"name":"Service name","geometryType":"esriGeometryPoint","minScale":1000000,"maxRecordCount":2000,
             "advancedQueryCapabilities":{"supportsPagination":true},"drawingInfo":{"renderer":{"type":"simple","symbol":\#(Self.marker)}},
             "fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"},{"name":"NAME","type":"esriFieldTypeString","alias":"Name"}]}
            """#)
        let overrides = Self.json(#"""
            {"minScale":50000,"definitionExpression":"POP > 10","drawingInfo":{"renderer":{"type":"simple","symbol":{"type":"esriSMS","color":[0,255,0,255]}},
             "labelingInfo":[{"labelExpression":"[NAME] ([POP])","minScale":20000}]}}
            """#)
        let layer = FeatureLayerInfo(json: service, overrides: overrides, title: "Web map title")!
        #expect(layer.name == "Web map title" && layer.minScale == 50_000 && layer.definitionExpression == "POP > 10")
        #expect(layer.renderer.classes.first?.symbol.color == SymbolColor(r: 0, g: 255, b: 0))
        #expect(layer.labeling?.parts == [.field("NAME"), .text(" ("), .field("POP"), .text(")")] && layer.labeling?.minScale == 20_000)
        #expect(layer.objectIDField == "OBJECTID" && layer.maxRecordCount == 2000 && layer.supportsPagination)
        #expect(layer.isVisible(atScale: 40_000) && !layer.isVisible(atScale: 60_000))
        #expect(layer.labeling?.text(for: ["NAME": .string("Bath"), "POP": .number(8514)]) == "Bath (8514)")
        #expect(layer.labeling?.text(for: [:]) == nil)
        // showLabels false in the web map: no labels.
        let quiet = FeatureLayerInfo(json: service, overrides: Self.json(#"{"showLabels":false}"#))!
        #expect(quiet.labeling == nil)
    }

    @Test func arcadeLabelsOfTheSimplestKindAreReadAndAnyOtherIsLeftOut() {
        #expect(FeatureLabeling.arcadeParts("$feature.NAME") == [.field("NAME")])
        #expect(FeatureLabeling.arcadeParts(#"$feature["Full Name"] + ", " + $feature.STATE"#) == [.field("Full Name"), .text(", "), .field("STATE")])
        #expect(FeatureLabeling.arcadeParts("Upper($feature.NAME)").isEmpty)
        #expect(FeatureLabeling.arcadeParts("$feature.NAME; DeleteAll()").isEmpty)
    }

    @Test func esriGeometryIsReadAndBrokenGeometryIsLeftOutNotFatal() {
        let set = Self.json(#"""
            {"exceededTransferLimit":true,"features":[
              {"attributes":{"id":1},"geometry":{"x":-70.2,"y":43.6}},
              {"attributes":{"id":2},"geometry":null},
              {"attributes":{"id":3},"geometry":{"rings":[[[0,0],[1,0],[1,1]]]}},
              {"attributes":{"id":4},"geometry":{"rings":[[[0,0],[1,0]]]}},
              {"attributes":{"id":5},"geometry":{"paths":[[[0,0],["x",1]],[[0,0],[2,2]]]}},
              {"attributes":{"id":6},"geometry":{"x":"NaN","y":1e308}},
              {"attributes":{"id":7},"geometry":{"points":[]}},
              {"geometry":{"x":1,"y":2}}]}
            """#)
        let (features, more) = EsriFeatures.features(in: set)
        #expect(more && features.count == 8)
        #expect(features[0].geometry == .points([GeoPoint(longitude: -70.2, latitude: 43.6)]))
        #expect(features[1].geometry == nil)
        // A ring that does not close is closed; one of two points is no ring.
        #expect(features[2].geometry == .polygons([[[GeoPoint(longitude: 0, latitude: 0), GeoPoint(longitude: 1, latitude: 0),
                                                     GeoPoint(longitude: 1, latitude: 1), GeoPoint(longitude: 0, latitude: 0)]]]))
        #expect(features[3].geometry == nil)
        #expect(features[4].geometry == .lines([[GeoPoint(longitude: 0, latitude: 0), GeoPoint(longitude: 2, latitude: 2)]]))
        #expect(features[5].geometry == nil && features[6].geometry == nil)
        #expect(features[7].attributes.isEmpty)
    }

    // MARK: Popups

    static let fields = [FeatureField(name: "NAME", alias: "Town", type: "esriFieldTypeString"),
                         FeatureField(name: "POP", alias: "Population", type: "esriFieldTypeInteger"),
                         FeatureField(name: "FOUNDED", alias: "Founded", type: "esriFieldTypeDate"),
                         FeatureField(name: "AREA", type: "esriFieldTypeDouble")]

    @Test func aPopupFillsItsTitleAndFormatsItsVisibleFields() {
        let popup = PopupInfo(json: Self.json(#"""
            {"title":"{NAME} ({missing})","fieldInfos":[
              {"fieldName":"NAME","label":"Name","visible":true},
              {"fieldName":"POP","label":"People","visible":true,"format":{"places":0,"digitSeparator":true}},
              {"fieldName":"AREA","visible":true,"format":{"places":2,"digitSeparator":true}},
              {"fieldName":"FOUNDED","label":"Since","visible":true,"format":{"dateFormat":"shortDateShortTime"}},
              {"fieldName":"SECRET","visible":false}],
             "description":"<p>{NAME} has <b>{POP}</b> people.</p><script>alert(1)</script>\u001b[31m<style>p{}</style>"}
            """#))!
        let attributes: FeatureAttributes = ["NAME": .string("Bangor"), "POP": .number(31753), "AREA": .number(89123.456),
                                             "FOUNDED": .number(-4_386_441_600_000), "SECRET": .string("x")]
        let card = PopupCard.make(layer: "Places", attributes: attributes, fields: Self.fields, popup: popup)
        #expect(card.title == "Bangor ()")
        #expect(card.rows == [PopupCard.Row(label: "Name", value: "Bangor"), PopupCard.Row(label: "People", value: "31,753"),
                              PopupCard.Row(label: "AREA", value: "89,123.46"), PopupCard.Row(label: "Since", value: "1831-01-01 00:00 UTC")])
        // The description takes the fields as formatted; script, style and escape bytes never show.
        #expect(card.text == "Bangor has 31,753 people.")
    }

    @Test func withoutAPopupTheCardShowsTheLayerAndEveryAttribute() {
        let attributes: FeatureAttributes = ["POP": .number(100), "NAME": .string("Eastport\u{1B}]0;owned\u{07}"), "EXTRA": .bool(true),
                                             "FOUNDED": .string("1798-02-24")]
        let card = PopupCard.make(layer: "Towns\u{1B}[2J", attributes: attributes, fields: Self.fields, popup: nil, displayField: "NAME")
        #expect(!card.layer.contains("\u{1B}") && card.layer.hasPrefix("Towns"))
        #expect(!card.title.contains("\u{1B}") && !card.title.contains("\u{07}") && card.title.hasPrefix("Eastport"))
        // Schema order first (aliases as labels, dates as strings read), then fields the schema lacks.
        #expect(card.rows.map(\.label) == ["Town", "Population", "Founded", "EXTRA"])
        #expect(card.rows[2].value == "1798-02-24" && card.rows[3].value == "true")
    }

    @Test func numbersAreWrittenWithTheirPlacesAndSeparators() {
        #expect(PopupFormat.number(1234567.891, places: 1, separator: true) == "1,234,567.9")
        #expect(PopupFormat.number(-1234, places: nil, separator: true) == "-1,234")
        #expect(PopupFormat.number(999, places: 0, separator: true) == "999")
        #expect(PopupFormat.number(0.5, places: nil, separator: false) == "0.5")
        #expect(PopupFormat.substitute("{a}{b}{", with: { $0.uppercased() }) == "AB{")
    }

    @Test func polygonsCoverPointsInsideAndNotInTheirHoles() {
        let outer = [GeoPoint(longitude: 0, latitude: 0), GeoPoint(longitude: 10, latitude: 0), GeoPoint(longitude: 10, latitude: 10),
                     GeoPoint(longitude: 0, latitude: 10)]
        let hole = [GeoPoint(longitude: 4, latitude: 4), GeoPoint(longitude: 6, latitude: 4), GeoPoint(longitude: 6, latitude: 6),
                    GeoPoint(longitude: 4, latitude: 6)]
        let polygon = GeoGeometry.polygons([[outer, hole]])
        #expect(polygon.covers(GeoPoint(longitude: 2, latitude: 2)))
        #expect(!polygon.covers(GeoPoint(longitude: 5, latitude: 5)) && !polygon.covers(GeoPoint(longitude: 11, latitude: 5)))
        #expect(!GeoGeometry.points([GeoPoint(longitude: 2, latitude: 2)]).covers(GeoPoint(longitude: 2, latitude: 2)))
    }
}
