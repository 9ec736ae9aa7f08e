@testable import ArcGISModel
import Foundation
import MapbookCore
import Testing

/// ArcGIS Pro's renderers and symbols (CIM) read as the nearest classic ones.
@Suite("CIM symbology")
struct CIMSymbologyTests {
    static func json(_ text: String) -> JSONValue { try! JSONValue(parsing: Data(text.utf8)) }

    static func rgb(_ r: Int, _ g: Int, _ b: Int, _ a: Int = 100) -> String {
        #"{"type":"CIMRGBColor","values":[\#(r),\#(g),\#(b),\#(a)]}"#
    }

    static func polygon(fill: String, stroke: String = rgb(0, 0, 0), width: Double = 0.7) -> String {
        #"""
        {"type":"CIMSymbolReference","symbol":{"type":"CIMPolygonSymbol","symbolLayers":[
          {"type":"CIMSolidStroke","enable":true,"width":\#(width),"color":\#(stroke)},
          {"type":"CIMSolidFill","enable":true,"color":\#(fill)}]}}
        """#
    }

    static let point = #"""
        {"type":"CIMSymbolReference","symbol":{"type":"CIMPointSymbol","symbolLayers":[
          {"type":"CIMVectorMarker","enable":true,"size":9,"markerGraphics":[{"type":"CIMMarkerGraphic",
            "symbol":{"type":"CIMPolygonSymbol","symbolLayers":[
              {"type":"CIMSolidStroke","enable":true,"width":1,"color":{"type":"CIMRGBColor","values":[255,255,255,100]}},
              {"type":"CIMSolidFill","enable":true,"color":{"type":"CIMRGBColor","values":[0,112,255,100]}}]}}]}]}}
        """#

    @Test func aSimpleRendererKeepsItsFillOutlineWidthAndAlpha() throws {
        let renderer = try #require(FeatureRenderer(json: Self.json(#"{"type":"CIMSimpleRenderer","label":"Lakes","symbol":\#(Self.polygon(fill: Self.rgb(10, 20, 30, 50)))}"#)))
        #expect(renderer.kindName == "simple")
        #expect(renderer.classes.map(\.label) == ["Lakes"])
        #expect(renderer.classes[0].symbol == FeatureSymbol(kind: .fill(style: "esriSFSSolid"), color: SymbolColor(r: 10, g: 20, b: 30, a: 128),
                                                            outline: SymbolColor(r: 0, g: 0, b: 0), size: 0.7))
    }

    @Test func aVectorMarkerTakesItsGraphicsColours() throws {
        let symbol = try #require(FeatureRenderer(json: Self.json(#"{"type":"CIMSimpleRenderer","symbol":\#(Self.point)}"#))?.classes.first?.symbol)
        #expect(symbol == FeatureSymbol(kind: .marker(style: "esriSMSCircle"), color: SymbolColor(r: 0, g: 112, b: 255),
                                        outline: SymbolColor(r: 255, g: 255, b: 255), size: 9))
    }

    @Test func uniqueValueClassesTakeEachCombinationOfValues() throws {
        let renderer = try #require(FeatureRenderer(json: Self.json(#"""
            {"type":"CIMUniqueValueRenderer","fields":["KIND","RANK"],"useDefaultSymbol":true,"defaultLabel":"Others",
             "defaultSymbol":\#(Self.polygon(fill: Self.rgb(200, 200, 200))),
             "groups":[{"type":"CIMUniqueValueGroup","heading":"Kind","classes":[
               {"type":"CIMUniqueValueClass","label":"Cities","symbol":\#(Self.polygon(fill: Self.rgb(255, 0, 0))),
                "values":[{"type":"CIMUniqueValue","fieldValues":["city","1"]},{"type":"CIMUniqueValue","fieldValues":["city","2"]}]},
               {"type":"CIMUniqueValueClass","label":"Towns","symbol":\#(Self.polygon(fill: Self.rgb(0, 0, 255))),
                "values":[{"type":"CIMUniqueValue","fieldValues":["town","<Null>"]}]}]}]}
            """#)))
        #expect(renderer.kind == .uniqueValue(fields: ["KIND", "RANK"], delimiter: ","))
        #expect(renderer.classes.map(\.label) == ["Cities", "Cities", "Towns"])
        #expect(renderer.classIndex(of: ["KIND": .string("city"), "RANK": .number(2)]) == 1)
        #expect(renderer.classIndex(of: ["KIND": .string("town")]) == 2, "a missing value is <Null>, as in a classic renderer")
        #expect(renderer.classIndex(of: ["KIND": .string("hamlet"), "RANK": .number(1)]) == nil)
        #expect(renderer.defaultSymbol?.color == SymbolColor(r: 200, g: 200, b: 200) && renderer.defaultLabel == "Others")

        let noDefault = try #require(FeatureRenderer(json: Self.json(#"""
            {"type":"CIMUniqueValueRenderer","fields":["KIND"],"useDefaultSymbol":false,"defaultSymbol":\#(Self.point),"groups":[]}
            """#)))
        #expect(noDefault.defaultSymbol == nil, "useDefaultSymbol false: unmatched features are not drawn with it")
    }

    @Test func classBreaksStartAtTheMinimumBreak() throws {
        let renderer = try #require(FeatureRenderer(json: Self.json(#"""
            {"type":"CIMClassBreaksRenderer","field":"POP","minimumBreak":0,"classBreakType":"GraduatedColor",
             "breaks":[{"type":"CIMClassBreak","label":"Small","upperBound":1000,"symbol":\#(Self.polygon(fill: Self.rgb(255, 255, 0)))},
                       {"type":"CIMClassBreak","label":"Large","upperBound":100000,"symbol":\#(Self.polygon(fill: Self.rgb(255, 0, 0)))}]}
            """#)))
        #expect(renderer.kind == .classBreaks(field: "POP"))
        #expect([0, 999, 1000, 1001, 100_000, 100_001].map { renderer.classIndex(of: ["POP": .number($0)]) } == [0, 0, 0, 1, 1, nil])
        #expect(renderer.classes.map(\.label) == ["Small", "Large"])
    }

    /// A renderer mapbook cannot draw as it is still draws with its one symbol, and says so.
    @Test func aHeatMapIsDrawnWithOneSymbolAndSaysSo() throws {
        let renderer = try #require(FeatureRenderer(json: Self.json(#"{"type":"CIMHeatMapRenderer","radius":20}"#)))
        #expect(renderer.kindName == "CIMHeatMapRenderer" && renderer.classes.isEmpty)
        let info = FeatureLayerInfo(name: "Crimes", geometryType: .point, renderer: renderer)
        #expect(info.rendererProblem == "Crimes: its CIMHeatMapRenderer renderer is drawn with one symbol.")
        #expect(info.symbol(for: [:]).symbol == .fallback(for: .point))
    }

    @Test func linesAreDashedByTheirEffectAndHatchesTakeTheirLineColour() throws {
        let dashed = try #require(FeatureSymbol(cim: Self.json(#"""
            {"type":"CIMLineSymbol","symbolLayers":[{"type":"CIMSolidStroke","width":2,"color":\#(Self.rgb(1, 2, 3)),
              "effects":[{"type":"CIMGeometricEffectDashes","dashTemplate":[4,2]}]}]}
            """#)))
        #expect(dashed == FeatureSymbol(kind: .line(style: "esriSLSDash"), color: SymbolColor(r: 1, g: 2, b: 3), size: 2))
        let hatched = try #require(FeatureSymbol(cim: Self.json(#"""
            {"type":"CIMPolygonSymbol","symbolLayers":[{"type":"CIMHatchFill","lineSymbol":
              {"type":"CIMLineSymbol","symbolLayers":[{"type":"CIMSolidStroke","width":1,"color":\#(Self.rgb(9, 8, 7))}]}}]}
            """#)))
        #expect(hatched.kind == .fill(style: "esriSFSForwardDiagonal") && hatched.color == SymbolColor(r: 9, g: 8, b: 7) && hatched.outline == nil)
        // A disabled layer is not drawn; a symbol of only disabled layers is none.
        #expect(FeatureSymbol(cim: Self.json(#"{"type":"CIMLineSymbol","symbolLayers":[{"type":"CIMSolidStroke","enable":false,"width":1}]}"#)) == nil)
    }

    @Test func coloursOfEveryModelBecomeRGB() {
        #expect(FeatureSymbol.color(Self.json(#"{"type":"CIMHSVColor","values":[120,100,100,100]}"#)) == SymbolColor(r: 0, g: 255, b: 0))
        #expect(FeatureSymbol.color(Self.json(#"{"type":"CIMCMYKColor","values":[0,100,100,0,100]}"#)) == SymbolColor(r: 255, g: 0, b: 0))
        #expect(FeatureSymbol.color(Self.json(#"{"type":"CIMGrayColor","values":[128,0]}"#)) == SymbolColor(r: 128, g: 128, b: 128, a: 0))
        #expect(FeatureSymbol.color(Self.json("[1,2,3,4]")) == SymbolColor(r: 1, g: 2, b: 3, a: 4), "the older form: 0–255 arrays")
        #expect(FeatureSymbol.color(Self.json(#"{"type":"CIMLABColor","values":[50,0,0,100]}"#)) == nil)
    }
}
