import Foundation
import MapRender
import MapbookCore
import TileFormats
import Testing

@Suite struct StyleExpressionTests {
    static func json(_ text: String) -> JSONValue { try! JSONValue(parsing: Data(text.utf8)) }

    static func feature(_ properties: [String: MVTValue], type: MVTGeometryType = .polygon, zoom: Double = 10) -> FeatureContext {
        FeatureContext(zoom: zoom, type: type, id: 7) { properties[$0] }
    }

    let road = feature(["class": .string("primary"), "lanes": .int(4), "name": .string("Main St")], type: .lineString)

    @Test func legacyFilters() {
        #expect(StyleExpression.passes(Self.json(#"["==", "class", "primary"]"#), road))
        #expect(!StyleExpression.passes(Self.json(#"["!=", "class", "primary"]"#), road))
        #expect(StyleExpression.passes(Self.json(#"["in", "class", "secondary", "primary"]"#), road))
        #expect(StyleExpression.passes(Self.json(#"["!in", "class", "motorway"]"#), road))
        #expect(StyleExpression.passes(Self.json(#"[">=", "lanes", 4]"#), road))
        #expect(!StyleExpression.passes(Self.json(#"["<", "lanes", 4]"#), road))
        #expect(StyleExpression.passes(Self.json(#"["has", "name"]"#), road))
        #expect(StyleExpression.passes(Self.json(#"["!has", "ref"]"#), road))
        #expect(StyleExpression.passes(Self.json(#"["==", "$type", "LineString"]"#), road))
        #expect(StyleExpression.passes(Self.json(#"["all", ["==", "class", "primary"], ["any", ["has", "x"], ["has", "name"]]]"#), road))
        #expect(!StyleExpression.passes(Self.json(#"["none", ["==", "class", "primary"]]"#), road))
    }

    @Test func expressions() {
        #expect(StyleExpression.passes(Self.json(#"["==", ["get", "class"], "primary"]"#), road))
        #expect(StyleExpression.passes(Self.json(#"["in", ["get", "class"], ["literal", ["primary", "trunk"]]]"#), road))
        #expect(StyleExpression.passes(Self.json(#"["==", ["geometry-type"], "LineString"]"#), road))
        #expect(StyleExpression.passes(Self.json(#"["!", ["has", "ref"]]"#), road))
        #expect(StyleExpression.evaluate(Self.json(#"["match", ["get", "class"], ["motorway", "trunk"], 3, "primary", 2, 1]"#), road) == .number(2))
        #expect(StyleExpression.evaluate(Self.json(#"["case", [">", ["get", "lanes"], 2], "wide", "narrow"]"#), road) == .string("wide"))
        #expect(StyleExpression.evaluate(Self.json(#"["coalesce", ["get", "ref"], ["get", "name"]]"#), road) == .string("Main St"))
        #expect(StyleExpression.evaluate(Self.json(#"["concat", ["get", "name"], " (", ["to-string", ["get", "lanes"]], ")"]"#), road)
                == .string("Main St (4)"))
        #expect(StyleExpression.evaluate(Self.json(#"["step", ["zoom"], 1, 8, 2, 12, 3]"#), road) == .number(2))
        #expect(StyleExpression.evaluate(Self.json(#"["interpolate", ["linear"], ["zoom"], 5, 0, 15, 10]"#), road) == .number(5))
    }

    @Test func zoomFunctionsInterpolateNumbersAndColours() {
        let width = Self.json(#"{"base": 1, "stops": [[8, 1], [12, 5]]}"#)
        #expect(StyleExpression.evaluate(width, .zoom(10)) == .number(3))
        #expect(StyleExpression.evaluate(width, .zoom(4)) == .number(1))
        #expect(StyleExpression.evaluate(width, .zoom(20)) == .number(5))
        let color = StyleExpression.evaluate(Self.json(##"{"stops": [[0, "#000000"], [10, "#ffffff"]]}"##), .zoom(5))
        let parsed = StyleColor(parsing: color.string ?? "")
        #expect(parsed.map { abs($0.r - 127.5) < 1 } == true)
        let categorical = Self.json(#"{"property": "class", "type": "categorical", "stops": [["primary", "red"]], "default": "blue"}"#)
        #expect(StyleExpression.evaluate(categorical, road) == .string("red"))
    }

    @Test func unknownOperatorsHideRatherThanFail() {
        #expect(!StyleExpression.passes(Self.json(#"["within", {"type": "Polygon"}]"#), road))
        #expect(StyleExpression.evaluate(Self.json(#"["frobnicate", 1]"#), road) == .null)
        #expect(StyleExpression.passes(nil, road))
    }

    @Test func colours() {
        #expect(StyleColor(parsing: "#fff") == StyleColor(r: 255, g: 255, b: 255))
        #expect(StyleColor(parsing: "#a9cbe0") == StyleColor(r: 169, g: 203, b: 224))
        #expect(StyleColor(parsing: "rgba(10, 20, 30, 0.5)") == StyleColor(r: 10, g: 20, b: 30, a: 0.5))
        #expect(StyleColor(parsing: "rgb(255,253,238)") == StyleColor(r: 255, g: 253, b: 238))
        let red = StyleColor(parsing: "hsl(0, 100%, 50%)")!
        #expect(abs(red.r - 255) < 0.5 && red.g < 0.5 && red.b < 0.5)
        #expect(StyleColor(parsing: "transparent")?.a == 0)
        #expect(StyleColor(parsing: "#12") == nil)
        #expect(StyleColor(parsing: "rgb(") == nil)
        #expect(StyleColor(r: 0, g: 0, b: 0).over(StyleColor(r: 255, g: 255, b: 255), opacity: 0.5).r == 127.5)
    }
}
